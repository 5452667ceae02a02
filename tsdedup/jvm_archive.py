"""Class data sharing for the driver JVM: its classes, read once, mapped at start.

A Spark driver loads about 18,000 classes before and during its first queries;
an AppCDS archive of them (JDK 17 static CDS) saves ≈2.7 s of every command
that starts Spark (24.7 → 21.9 s for a run with no new file, three runs each).
The first command without an archive records the classes it loads
(``-XX:DumpLoadedClassList``); when it ends, a background process builds the
archive from that list (≈40 s of one core, ≈230 MB); later commands start
with it. A JVM ignores an archive that does not match it, so the archive only
saves time, never changes behaviour. The cache folder is per machine (every
warehouse shares it), keyed by the JVM and the driver's jars.

CDS archives only classes that a built-in class loader reads from an unsigned
jar. So the driver's class path starts with jars of its own (``driver_jars``):
unsigned copies of Spark's signed jars (Janino, which compiles every query's
generated code) and the Iceberg runtime, which ``spark.jars`` would load with a
class loader of Spark's; that archives about 5,000 more classes (decision 0016).
``TSDEDUP_JVM_ARCHIVE=0`` turns it off; ``TSDEDUP_JVM_CACHE`` moves it.
Each start marks the files it uses: the archive and class list by their
modification time, a jar by that of a marker beside it (``<jar>.used``),
since a JVM refuses an archive whose jars' modification times changed. When
an archive is built, the folder's files that no start has used for
``UNUSED_DAYS`` (an archive of a JVM or jars replaced since, and its class
list and jars) are removed, so the folder does not grow with every upgrade.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tsdedup import iceberg_jars

# Options that keep an unusable archive quiet (the JVM then starts without it).
QUIET = ("-Xlog:cds=off", "-Xlog:cds+dynamic=off")
# Files of the cache folder that no start used for this long are removed.
UNUSED_DAYS = 30
# What the folder holds: archives, class lists, scans for signed jars, jars.
CACHED_FILES = ("tsdedup-*.jsa", "classes-*.lst", "signed-*.txt", "*.jar", "*.jar.used")
# Beside a jar, the file whose modification time says when a start last used it.
USED_SUFFIX = ".used"


def enabled() -> bool:
    return os.environ.get("TSDEDUP_JVM_ARCHIVE", "1").strip() not in ("0", "false", "no", "")


def cache_dir() -> Path:
    configured = os.environ.get("TSDEDUP_JVM_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "tsdedup" / "jvm"


def spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def classpath(home: Path, jars: Sequence[Path] = ()) -> str:
    """The driver's class path as pyspark's launcher builds it, with ``jars``
    (``spark.driver.extraClassPath``) first."""
    return ":".join([*map(str, jars), str(home / "conf"), f"{home / 'jars'}/*"])


def java() -> Path | None:
    home = os.environ.get("JAVA_HOME")
    found = Path(home) / "bin" / "java" if home else shutil.which("java")
    return Path(found).resolve() if found else None


def archive_key(java_binary: Path, home: Path, jars: Sequence[Path] = ()) -> str:
    """Which JVM and which jars (Spark's and the driver's own ``jars``): an
    archive is used with exactly these. The JVM checks each jar's size and
    modification time against the archive's and ignores an archive built
    from other ones, so both are in the key: a jar replaced or touched gets
    an archive of its own instead of one the JVM refuses."""
    digest = hashlib.sha256()
    stat = java_binary.stat()
    digest.update(f"{java_binary}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    for jar in [*sorted((home / "jars").glob("*.jar")), *jars]:
        jar_stat = jar.stat()
        digest.update(f"|{jar}|{jar_stat.st_size}|{jar_stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def signed_spark_jars(home: Path, folder: Path, key: str) -> list[Path]:
    """Spark's signed jars, found once per set of jars (``key``, archive_key
    of Spark's jars alone) and listed in ``folder``."""
    listing = folder / f"signed-{key}.txt"
    if listing.is_file():
        names = listing.read_text(encoding="utf-8").split()
    else:
        names = [
            jar.name for jar in sorted((home / "jars").glob("*.jar")) if iceberg_jars.is_signed(jar)
        ]
        folder.mkdir(parents=True, exist_ok=True)
        partial = listing.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text("".join(f"{name}\n" for name in names), encoding="utf-8")
        os.replace(partial, listing)
    return [home / "jars" / name for name in names]


def driver_jars(java_binary: Path, home: Path, folder: Path) -> list[Path]:
    """The jars put ahead of Spark's on the driver's class path, so that the
    archive holds their classes too: an unsigned copy of each signed jar of
    Spark's, and the Iceberg runtime with its Jackson jar (both built in
    ``folder``), unless Spark fetches Iceberg from Maven
    (``TSDEDUP_ICEBERG_PACKAGES``). ``spark.jars`` still lists Iceberg's, for
    the executors; on the driver the class path's copy is the one loaded."""
    spark_key = archive_key(java_binary, home)
    jars = [
        iceberg_jars.unsigned_jar(jar, folder) for jar in signed_spark_jars(home, folder, spark_key)
    ]
    if not os.environ.get(iceberg_jars.ENV_PACKAGES, "").strip():
        with contextlib.suppress(iceberg_jars.IcebergJarsError):  # the session says why
            jars += iceberg_jars.iceberg_jars(folder)
    return jars


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


def dump_command(
    java_binary: Path, home: Path, folder: Path, key: str, jars: Sequence[Path] = ()
) -> list[str]:
    """A shell command that builds the archive from the class list once the
    driver that wrote it has ended, under a temporary name, then renames it;
    ``jars``: the driver's own, ahead of Spark's (driver_jars)."""
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
            classpath(home, jars),
        ]
    )
    return [
        "sh",
        "-c",
        f"sleep 10; nice -n 10 {java_command} && mv -f {shlex.quote(str(partial))} "
        f"{shlex.quote(str(archive))}; rm -f {shlex.quote(str(partial))} "
        f"{shlex.quote(str(folder / f'building-{key}'))}",
    ]


@dataclass(frozen=True)
class Driver:
    """What this machine's driver JVM starts with: its Java options and the
    jars ahead of Spark's on its class path (``spark.driver.extraClassPath``;
    a target that sets its own there gets the archive only if it lists them
    first)."""

    options: list[str]
    class_path: list[Path]


def driver() -> Driver:
    """The driver's options and class path (none when the archive is turned
    off, when there is no JVM to key it by, or in a folder with a space)."""
    java_binary, folder = java(), cache_dir()
    if not enabled() or java_binary is None or " " in str(folder):
        return Driver([], [])
    home = spark_home()
    jars = driver_jars(java_binary, home, folder)
    key = archive_key(java_binary, home, jars)
    mark_used([*paths(key, folder), *jars])
    return Driver(driver_options(folder, key), jars)


def _used_marker(jar: Path) -> Path:
    return jar.with_name(jar.name + USED_SUFFIX)


def mark_used(files: Sequence[Path]) -> None:
    """Mark those of ``files`` that exist as used now: the modification time
    of each, or for a jar that of its marker (never the jar's own, which the
    archive was built with)."""
    for file in files:
        with contextlib.suppress(OSError):
            if file.suffix == ".jar":
                if file.is_file():
                    _used_marker(file).touch()
            else:
                os.utime(file)


def _last_used(file: Path) -> float:
    """When a start last used ``file`` (a jar: the later of it and its marker)."""
    used = file.stat().st_mtime
    if file.suffix == ".jar":
        with contextlib.suppress(OSError):
            used = max(used, _used_marker(file).stat().st_mtime)
    return used


def remove_unused(folder: Path, now: float | None = None) -> list[Path]:
    """Remove the cached files no start has used for UNUSED_DAYS; returns them."""
    limit = (time.time() if now is None else now) - UNUSED_DAYS * 86400
    removed: list[Path] = []
    for pattern in CACHED_FILES:
        for file in sorted(folder.glob(pattern)):
            with contextlib.suppress(OSError):
                if _last_used(file) < limit:
                    file.unlink()
                    removed.append(file)
    return removed


def build_in_background() -> None:
    """Start building the archive, when a class list waits for one; returns at once."""
    java_binary = java()
    if not enabled() or java_binary is None:
        return
    home, folder = spark_home(), cache_dir()
    jars = driver_jars(java_binary, home, folder)
    key = archive_key(java_binary, home, jars)
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
    remove_unused(folder)
    subprocess.Popen(
        dump_command(java_binary, home, folder, key, jars),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
