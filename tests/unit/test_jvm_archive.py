"""The driver JVM's class data sharing archive (python_udfs/jvm_archive.py):
which options a driver gets, and that the archive command builds an archive
a JVM then starts with."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from python_udfs import jvm_archive
from python_udfs.spark_session import DRIVER_GC_OPTIONS


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


def test_the_turned_off_archive_gives_no_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TSDEDUP_JVM_ARCHIVE", "0")
    assert jvm_archive.options() == []


@pytest.mark.skipif(jvm_archive.java() is None, reason="no JVM")
def test_the_dump_command_builds_an_archive_a_jvm_starts_with(tmp_path: Path) -> None:
    java = jvm_archive.java()
    assert java is not None
    home = jvm_archive.spark_home()
    archive, class_list = jvm_archive.paths("k2", tmp_path)
    class_list.write_text("java/lang/Object\njava/lang/String\norg/apache/spark/SparkConf\n")
    command = jvm_archive.dump_command(java, home, tmp_path, "k2")
    command[2] = command[2].replace("sleep 10; ", "")  # no driver to wait for here
    subprocess.run(command, check=True, timeout=300)
    assert archive.is_file()
    assert not list(tmp_path.glob("*.tmp"))
    # -Xshare:on refuses to start when the archive cannot be used, here with
    # the collector the driver runs (spark_session.DRIVER_GC_OPTIONS).
    started = subprocess.run(
        [str(java), "-Xshare:on", f"-XX:SharedArchiveFile={archive}", *DRIVER_GC_OPTIONS,
         "-cp", jvm_archive.classpath(home), "-version"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
