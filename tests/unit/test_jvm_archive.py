"""The driver JVM's class data sharing archive (tsdedup/jvm_archive.py):
which options a driver gets, and that the archive command builds an archive
a JVM then starts with."""

from __future__ import annotations

import os
import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from tsdedup import jvm_archive
from tsdedup.spark_session import DRIVER_GC_OPTIONS


def test_the_first_driver_records_the_class_list_and_later_ones_use_the_archive(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "jvm"
    archive, class_list = jvm_archive.paths("k1", folder)
    assert jvm_archive.driver_options(folder, "k1") == [f"-XX:DumpLoadedClassList={class_list}"]
    assert class_list.exists()
    assert jvm_archive.driver_options(folder, "k1") == [], "one driver records the list"
    archive.write_bytes(b"archive")
    assert jvm_archive.driver_options(folder, "k1") == [
        f"-XX:SharedArchiveFile={archive}",
        "-Xlog:cds=off",
        "-Xlog:cds+dynamic=off",
    ]
    # Spark splits the driver's options at spaces: no archive in such a folder.
    assert jvm_archive.driver_options(tmp_path / "a b", "k1") == []


def test_the_key_changes_with_the_jvm_and_the_jars(tmp_path: Path) -> None:
    java, home = tmp_path / "java", tmp_path / "spark"
    java.write_bytes(b"jvm")
    (home / "jars").mkdir(parents=True)
    (home / "jars" / "a.jar").write_bytes(b"a")
    first = jvm_archive.archive_key(java, home)
    assert jvm_archive.archive_key(java, home) == first
    (home / "jars" / "b.jar").write_bytes(b"b")
    assert jvm_archive.archive_key(java, home) != first
    second = jvm_archive.archive_key(java, home)
    java.write_bytes(b"another jvm")
    assert jvm_archive.archive_key(java, home) != second
    # The JVM refuses an archive whose jars have another modification time.
    own = tmp_path / "own.jar"
    own.write_bytes(b"c")
    third = jvm_archive.archive_key(java, home, [own])
    jvm_archive.mark_used([own])  # a start's mark leaves the jar as it was
    assert jvm_archive.archive_key(java, home, [own]) == third
    os.utime(own, (1_000_000, 1_000_000))
    assert jvm_archive.archive_key(java, home, [own]) != third


def test_files_no_start_used_for_a_month_are_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "jvm"
    folder.mkdir()
    names = ["tsdedup-old.jsa", "classes-old.lst", "signed-old.txt", "unsigned-1-x.jar"]
    names += ["unsigned-1-x.jar.used", "tsdedup-new.jsa", "classes-new.lst", "notes.txt"]
    names += ["unsigned-2-y.jar"]
    for name in names:
        (folder / name).write_bytes(b"x")
    month_ago = time.time() - (jvm_archive.UNUSED_DAYS + 1) * 86400
    for name in [*names[:5], "tsdedup-new.jsa", "notes.txt", "unsigned-2-y.jar"]:
        os.utime(folder / name, (month_ago, month_ago))
    # A start marks what it uses: this archive stays, though built long ago,
    # and so does this jar, by a marker beside it: the jar keeps its own time.
    jvm_archive.mark_used(
        [folder / "tsdedup-new.jsa", folder / "unsigned-2-y.jar", folder / "missing.jar"]
    )
    assert (folder / "unsigned-2-y.jar").stat().st_mtime == pytest.approx(month_ago)
    removed = jvm_archive.remove_unused(folder)
    assert sorted(p.name for p in removed) == sorted(names[:5])
    # Files of other kinds are not the cache's to remove.
    assert sorted(p.name for p in folder.iterdir()) == [
        "classes-new.lst",
        "notes.txt",
        "tsdedup-new.jsa",
        "unsigned-2-y.jar",
        "unsigned-2-y.jar.used",
    ]


def test_the_turned_off_archive_gives_no_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TSDEDUP_JVM_ARCHIVE", "0")
    assert jvm_archive.driver() == jvm_archive.Driver([], [])


def _jar(path: Path, entries: dict[str, bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


def test_the_driver_puts_unsigned_copies_of_signed_jars_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    java, home, folder = tmp_path / "java", tmp_path / "spark", tmp_path / "jvm"
    java.write_bytes(b"jvm")
    classes = {"META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n", "a/A.class": b"\xca\xfe"}
    signature = {"META-INF/DUMMY.SF": b"sig", "META-INF/DUMMY.DSA": b"dsa"}
    _jar(home / "jars" / "signed-1.0.jar", {**classes, **signature})
    _jar(home / "jars" / "plain-1.0.jar", {"b/B.class": b"\xca\xfe"})
    monkeypatch.setenv(
        "TSDEDUP_ICEBERG_PACKAGES", "org.apache.iceberg:runtime:1"
    )  # no Iceberg jars
    jars = jvm_archive.driver_jars(java, home, folder)
    assert [jar.parent for jar in jars] == [folder]
    with zipfile.ZipFile(jars[0]) as copy:
        assert {name: copy.read(name) for name in copy.namelist()} == classes
    # Spark's jars are scanned once per set of jars; the copy is built once.
    monkeypatch.setattr(
        jvm_archive.iceberg_jars, "is_signed", lambda jar: pytest.fail("scanned again")
    )
    built = jars[0].stat().st_mtime_ns
    assert jvm_archive.driver_jars(java, home, folder) == jars
    assert jars[0].stat().st_mtime_ns == built
    # The archive's key follows the driver's jars.
    assert jvm_archive.archive_key(java, home, jars) != jvm_archive.archive_key(java, home)


@pytest.mark.skipif(jvm_archive.java() is None, reason="no JVM")
def test_the_dump_command_builds_an_archive_a_jvm_starts_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TSDEDUP_ICEBERG_PACKAGES", raising=False)
    java = jvm_archive.java()
    assert java is not None
    home = jvm_archive.spark_home()
    jars = jvm_archive.driver_jars(java, home, tmp_path)
    archive, class_list = jvm_archive.paths("k2", tmp_path)
    # Janino comes in a signed jar, Iceberg from spark.jars: the driver's class
    # path is what lets the archive hold them.
    loaded = [
        "org.apache.spark.SparkConf",
        "org.codehaus.janino.Scanner",
        "org.apache.iceberg.Table",
    ]
    class_list.write_text(
        "".join(name.replace(".", "/") + "\n" for name in ["java.lang.Object", *loaded])
    )
    # Built a while ago, as a machine's jars are when a later start marks them.
    for jar in jars:
        if jar.parent == tmp_path:
            os.utime(jar, (time.time() - 3600, time.time() - 3600))
    command = jvm_archive.dump_command(java, home, tmp_path, "k2", jars)
    command[2] = command[2].replace("sleep 10; ", "")  # no driver to wait for here
    subprocess.run(command, check=True, timeout=300)
    assert archive.is_file()
    assert not list(tmp_path.glob("*.tmp"))
    # Every later start marks the files it uses; the archive must still map.
    jvm_archive.mark_used([archive, class_list, *jars])
    # -Xshare:on refuses to start when the archive cannot be used, here with
    # the collector the driver runs (spark_session.DRIVER_GC_OPTIONS).
    program = tmp_path / "Load.java"
    program.write_text(
        "public class Load { public static void main(String[] names) throws Exception {"
        " for (String name : names) Class.forName(name); } }"
    )
    started = subprocess.run(
        [str(java), "-Xshare:on", f"-XX:SharedArchiveFile={archive}", *DRIVER_GC_OPTIONS,
         "-Xlog:class+load=info", "-cp", jvm_archive.classpath(home, jars), str(program), *loaded],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    for name in loaded:
        assert f"{name} source: shared objects file" in started.stdout, name
