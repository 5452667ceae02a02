"""Class data sharing for the driver JVM: its classes, read once, mapped at start.

A Spark driver loads about 18,000 classes before and during its first queries;
an AppCDS archive of them (JDK 17 static CDS) saves ≈2.7 s of every command
that starts Spark (24.7 → 21.9 s for a run with no new file, three runs each).
The first command without an archive records the classes it loads
(``-XX:DumpLoadedClassList``); when it ends, a background process builds the
archive from that list (≈16 s of one core, ≈190 MB); later commands start
with it. A JVM ignores an archive that does not match it, so the archive only
saves time, never changes behaviour. The cache folder is per machine (every
warehouse shares it), keyed by the JVM and Spark's jars.
``TSDEDUP_JVM_ARCHIVE=0`` turns it off; ``TSDEDUP_JVM_CACHE`` moves it.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path

# Options that keep an unusable archive quiet (the JVM then starts without it).
QUIET = ("-Xlog:cds=off", "-Xlog:cds+dynamic=off")


def enabled() -> bool:
    return os.environ.get("TSDEDUP_JVM_ARCHIVE", "1").strip() not in ("0", "false", "no", "")


def cache_dir() -> Path:
    configured = os.environ.get("TSDEDUP_JVM_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "tsdedup" / "jvm"


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def classpath(home: Path) -> str:
    """The driver's class path as pyspark's launcher builds it."""
    return f"{home / 'conf'}:{home / 'jars'}/*"


def java() -> Path | None:
    home = os.environ.get("JAVA_HOME")
    found = Path(home) / "bin" / "java" if home else shutil.which("java")
    return Path(found).resolve() if found else None


def archive_key(java_binary: Path, home: Path) -> str:
    """Which JVM and which jars: an archive is used with exactly these."""
    digest = hashlib.sha256()
    stat = java_binary.stat()
    digest.update(f"{java_binary}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    for jar in sorted((home / "jars").glob("*.jar")):
        digest.update(f"|{jar.name}|{jar.stat().st_size}".encode())
    return digest.hexdigest()[:16]


def paths(key: str, folder: Path) -> tuple[Path, Path]:
    """The archive and the class list of ``key``."""
    return folder / f"tsdedup-{key}.jsa", folder / f"classes-{key}.lst"


def driver_options(folder: Path, key: str) -> list[str]:
    """The JVM options of a driver: use the archive, or record the class list
    the archive will be built from (once)."""
    archive, class_list = paths(key, folder)
    if " " in str(folder):
        return []  # Spark splits the driver's Java options at spaces
    if archive.is_file():
        return [f"-XX:SharedArchiveFile={archive}", *QUIET]
    folder.mkdir(parents=True, exist_ok=True)
    try:  # one driver records the list: the one that creates the file
        class_list.open("x").close()
    except FileExistsError:
        return []
    return [f"-XX:DumpLoadedClassList={class_list}"]


def dump_command(java_binary: Path, home: Path, folder: Path, key: str) -> list[str]:
    """A shell command that builds the archive from the class list once the
    driver that wrote it has ended, under a temporary name, then renames it."""
    archive, class_list = paths(key, folder)
    partial = archive.with_suffix(f".{os.getpid()}.tmp")
    java_command = shlex.join(
        [
            str(java_binary),
            "-Xshare:dump",
            f"-XX:SharedClassListFile={class_list}",
            f"-XX:SharedArchiveFile={partial}",
            *QUIET,
            "-cp",
            classpath(home),
        ]
    )
    return [
        "sh",
        "-c",
        f"sleep 10; nice -n 10 {java_command} && mv -f {shlex.quote(str(partial))} "
        f"{shlex.quote(str(archive))}; rm -f {shlex.quote(str(partial))} "
        f"{shlex.quote(str(folder / f'building-{key}'))}",
    ]


def options() -> list[str]:
    """The options for this machine's driver JVM (none when turned off or
    when there is no JVM to key the archive by)."""
    java_binary = java()
    if not enabled() or java_binary is None:
        return []
    return driver_options(cache_dir(), archive_key(java_binary, spark_home()))


def build_in_background() -> None:
    """Start building the archive, when a class list waits for one; returns at once."""
    java_binary = java()
    if not enabled() or java_binary is None:
        return
    home, folder = spark_home(), cache_dir()
    key = archive_key(java_binary, home)
    archive, class_list = paths(key, folder)
    if archive.exists() or not class_list.is_file() or class_list.stat().st_size == 0:
        return
    marker = folder / f"building-{key}"
    try:  # one build at a time; a marker left by a build that died expires
        if time.time() - marker.stat().st_mtime < 600:
            return
    except FileNotFoundError:
        pass
    marker.touch()
    subprocess.Popen(
        dump_command(java_binary, home, folder, key),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
