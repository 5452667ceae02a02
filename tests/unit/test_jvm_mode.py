"""The driver JVM's mode for a command (tsdedup/jvm_mode.py)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tsdedup import cli, jvm_archive, jvm_mode
from tsdedup.invocation import Invocation
from tsdedup.jvm_mode import JvmModeError, choose, landing_listing, new_bytes, remember_landing

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    home, landing = tmp_path / "home", tmp_path / "landing"
    home.mkdir()
    (landing / "sub").mkdir(parents=True)
    (landing / "a.lp").write_bytes(b"x" * 100)
    (landing / "sub" / "b.lp").write_bytes(b"y" * 50)
    return home, landing


def env(landing: Path, **extra: str) -> dict[str, str]:
    return {"TSDEDUP_LANDING": str(landing), **extra}


def test_a_run_without_an_earlier_listing_gets_the_default_jvm(
    folders: tuple[Path, Path],
) -> None:
    home, landing = folders
    mode = choose(["run"], env(landing), home)
    assert not mode.short
    assert mode.java_options == jvm_mode.LONG_OPTIONS
    assert "no earlier listing" in mode.reason


def test_a_run_with_few_new_bytes_gets_a_short_lived_jvm(folders: tuple[Path, Path]) -> None:
    home, landing = folders
    remember_landing(home, landing_listing(landing))
    assert choose(["run"], env(landing), home).reason == "0.0 MB landed since the last run"
    (landing / "c.lp").write_bytes(b"z" * 3 * 1024 * 1024)
    mode = choose(["run", "--target", "local"], env(landing), home)
    assert mode.short
    assert mode.java_options == jvm_mode.SHORT_OPTIONS
    assert "-XX:TieredStopAtLevel=1" in mode.java_options
    assert mode.reason == "3.0 MB landed since the last run"


def test_more_new_bytes_than_the_limit_get_the_default_jvm(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, landing = folders
    remember_landing(home, landing_listing(landing))
    monkeypatch.setattr(jvm_mode, "SHORT_RUN_BYTES", 120)
    (landing / "a.lp").write_bytes(b"x" * 121)  # changed: all its bytes count
    assert not choose(["run"], env(landing), home).short
    (landing / "a.lp").write_bytes(b"x" * 100)
    os.utime(landing / "a.lp", ns=(1, 1))  # changed time only: counts too
    assert choose(["run"], env(landing), home).short


def test_an_ingest_only_run_gets_a_short_lived_jvm_whatever_it_reads(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, landing = folders
    monkeypatch.setattr(jvm_mode, "SHORT_RUN_BYTES", 120)
    ingest = ["run", "--select", "raw_chunks"]
    # no listing yet: the log may not exist, and its first run writes files too
    assert choose(ingest, env(landing), home).short
    assert not choose(["run"], env(landing), home).short
    remember_landing(home, landing_listing(landing))
    (landing / "c.lp").write_bytes(b"z" * 121)
    assert not choose(["run"], env(landing), home).short
    for args in (ingest, ["run", "-s", "raw_chunks"], ["run", "--select=raw_chunks"]):
        mode = choose(args, env(landing), home)
        assert mode.short and mode.reason.startswith("an ingest-only run"), args
    for args in (
        ["run", "-s", "raw_chunks", "cpu"],
        ["run", "--select", "raw_chunks+"],
        [*ingest, "--vars", "{tsdedup_raw_write: spark}"],
        [*ingest, "--full-refresh"],
    ):
        assert not choose(args, env(landing), home).short, args


def test_other_commands_full_refreshes_and_remote_landing_get_the_default_jvm(
    folders: tuple[Path, Path],
) -> None:
    home, landing = folders
    remember_landing(home, landing_listing(landing))
    full_refreshes = (["run", "--full-refresh"], ["run", "-f"])
    for args in (["build"], ["test"], ["sql", "select 1"], *full_refreshes):
        assert not choose(args, env(landing), home).short, args
    assert not choose(["run"], env(landing, DBT_FULL_REFRESH="true"), home).short
    assert not choose(["run"], {"TSDEDUP_LANDING": "s3://bucket/landing"}, home).short


def test_the_setting_overrides_the_choice_and_a_bad_one_is_named(
    folders: tuple[Path, Path],
) -> None:
    home, landing = folders
    assert choose(["build"], env(landing, TSDEDUP_JVM_MODE="short"), home).short
    remember_landing(home, landing_listing(landing))
    assert not choose(["run"], env(landing, TSDEDUP_JVM_MODE="Long"), home).short
    with pytest.raises(JvmModeError, match="TSDEDUP_JVM_MODE='fast': use one of auto, short, long"):
        choose(["run"], env(landing, TSDEDUP_JVM_MODE="fast"), home)


def test_a_listing_that_is_not_one_counts_as_none_and_writing_it_never_fails(
    folders: tuple[Path, Path],
) -> None:
    home, landing = folders
    for content in ('{"a.lp": 5}', '{"a.lp": [1, "x"]}', "[1]", "{"):
        (home / "landed_listing.json").write_text(content, encoding="utf-8")
        assert choose(["run"], env(landing), home).reason.startswith("no earlier listing"), content
    remember_landing(home / "missing" / "folder", landing_listing(landing))  # no error


def test_listing_names_files_by_relative_path_and_new_bytes_compares_them(
    folders: tuple[Path, Path],
) -> None:
    _, landing = folders
    listing = landing_listing(landing)
    assert sorted(listing) == ["a.lp", "sub/b.lp"]
    assert listing["sub/b.lp"][0] == 50
    assert new_bytes(listing, listing) == 0
    assert new_bytes({}, listing) == 150
    assert new_bytes({"a.lp": listing["a.lp"]}, listing) == 50


def test_the_short_mode_reaches_the_driver_options_and_the_status_line(
    folders: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home, _ = folders
    monkeypatch.setenv("DBT_PROFILES_DIR", str(ROOT / "profiles"))
    monkeypatch.setenv("TSDEDUP_HOME", str(home))
    monkeypatch.delenv("TSDEDUP_TARGET", raising=False)
    started: list[dict[str, str]] = []
    monkeypatch.setattr(
        "tsdedup.spark_session.build_session", lambda conf, **_: started.append(conf)
    )
    monkeypatch.setattr(
        cli.jvm_archive,
        "driver",
        lambda: jvm_archive.Driver(
            ["-XX:SharedArchiveFile=a.jsa"], [Path("/j/a.jar"), Path("/j/b.jar")]
        ),
    )
    mode = jvm_mode.JvmMode(True, "0.0 MB landed since the last run")
    cli.start_spark(Invocation.parse(["run"]), jvm=mode)
    options = started[0]["spark.driver.extraJavaOptions"].split()
    short = list(jvm_mode.SHORT_OPTIONS)
    assert options[-len(short) - 1 :] == ["-XX:SharedArchiveFile=a.jsa", *short]
    assert "a short-lived JVM: 0.0 MB landed since the last run" in capsys.readouterr().err
    assert started[0]["spark.driver.extraClassPath"] == "/j/a.jar:/j/b.jar"
    cli.start_spark(Invocation.parse(["run"]), jvm=jvm_mode.JvmMode(False, "the default"))
    options = started[1]["spark.driver.extraJavaOptions"].split()
    assert "-XX:TieredStopAtLevel=1" not in options
    assert options[-len(jvm_mode.LONG_OPTIONS) :] == list(jvm_mode.LONG_OPTIONS)
    cli.start_spark(Invocation.parse(["run"]))  # the resident engine: the JVM's defaults
    options = started[2]["spark.driver.extraJavaOptions"].split()
    assert not any(option.startswith("-XX:Tier") for option in options)


def test_a_bad_setting_stops_the_command_before_spark_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TSDEDUP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TSDEDUP_LANDING", str(tmp_path / "landing"))
    for name in ("DBT_PROJECT_DIR", "DBT_PROFILES_DIR", "DBT_SEND_ANONYMOUS_USAGE_STATS"):
        monkeypatch.delenv(name, raising=False)  # main() sets them; restored after
    monkeypatch.setenv("TSDEDUP_JVM_MODE", "turbo")
    assert cli.main(["run"]) == 2
    assert "TSDEDUP_JVM_MODE='turbo'" in capsys.readouterr().err
    assert not (tmp_path / "home").exists()


def jvm_flag(name: str, *options: str) -> int:
    """The value of the JVM flag ``name`` in a JVM started with ``options``
    (which it must accept: a misspelt option stops it)."""
    java = jvm_archive.java()
    if java is None:
        pytest.skip("no java")
    flags = subprocess.run(
        [str(java), *options, "-XX:+PrintFlagsFinal", "-version"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = re.search(rf"\b{name}\s*=\s*(\d+)", flags)
    assert found, flags[:500]
    return int(found.group(1))


def code_cache_bytes(*options: str) -> int:
    """The code cache a JVM started with ``options`` reserves."""
    return jvm_flag("ReservedCodeCacheSize", *options)


def test_the_short_lived_jvm_compiles_sooner() -> None:
    # Its row loops run tens of thousands of rows per task: compiled after fewer
    # calls and loop iterations than the defaults wait for.
    for name in (
        "Tier3InvocationThreshold",
        "Tier3MinInvocationThreshold",
        "Tier3CompileThreshold",
        "Tier3BackEdgeThreshold",
    ):
        assert jvm_flag(name, *jvm_mode.SHORT_OPTIONS) < jvm_flag(name), name


def test_the_short_lived_jvm_keeps_the_default_code_cache() -> None:
    # C1 alone shrinks the code cache to 48 MB by default; a 1 % run fills it,
    # and the JVM then stops compiling for the rest of the run.
    assert code_cache_bytes("-XX:TieredStopAtLevel=1") < code_cache_bytes()
    assert code_cache_bytes(*jvm_mode.SHORT_OPTIONS) >= code_cache_bytes()
