"""The Iceberg jars for the embedded Spark session, built from pip wheels only.

The Iceberg Spark runtime jar comes from the ``snowpark-connect-deps-iceberg``
wheel. As shipped it references Jackson relocated under
``org.apache.iceberg.shaded.com.fasterxml.jackson`` but does not contain it, so
Spark fails with ``ClassNotFoundException`` on the first table operation. This
module builds the missing piece from the Jackson jars that pyspark ships: every
class is moved under the shaded prefix and the CONSTANT_Utf8 entries of each
class file's constant pool are rewritten to match, the rest of the bytes being
copied unchanged. The result is cached per input hash and written atomically.

Users who can reach Maven set ``TSDEDUP_ICEBERG_PACKAGES`` (for example
``org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.0``) and get
``spark.jars.packages`` instead; nothing is built then.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import re
import struct
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

ENV_PACKAGES = "TSDEDUP_ICEBERG_PACKAGES"
RUNTIME_PACKAGE = "snowpark_connect_deps_iceberg"
RUNTIME_DIST = "snowpark-connect-deps-iceberg"
JACKSON_ARTIFACTS = (
    "jackson-annotations",
    "jackson-core",
    "jackson-databind",
    "jackson-datatype-jsr310",
)
SHADED_PREFIX = "org/apache/iceberg/shaded/"
JACKSON_PACKAGE = "com/fasterxml/jackson/"
CACHE_STEM = "iceberg-shaded-jackson"
# Bump when the output of build_shaded_jar changes for the same inputs.
BUILD_FORMAT = b"tsdedup-shaded-jackson-2"

_FIXED_DATE = (1980, 1, 1, 0, 0, 0)
_MANIFEST = b"Manifest-Version: 1.0\r\nCreated-By: tsdedup (tsdedup.iceberg_jars)\r\n\r\n"
_SIGNATURE = re.compile(r"^META-INF/[^/]+\.(SF|RSA|DSA|EC)$", re.IGNORECASE)
_SERVICES = "META-INF/services/"
_CLASS_MAGIC = 0xCAFEBABE

# Constant pool tag -> size of the entry's payload after the tag byte
# (CONSTANT_Utf8, tag 1, is variable-length and handled separately).
_CP_PAYLOAD = {
    3: 4,  # Integer
    4: 4,  # Float
    5: 8,  # Long (takes two slots)
    6: 8,  # Double (takes two slots)
    7: 2,  # Class
    8: 2,  # String
    9: 4,  # Fieldref
    10: 4,  # Methodref
    11: 4,  # InterfaceMethodref
    12: 4,  # NameAndType
    15: 3,  # MethodHandle
    16: 2,  # MethodType
    17: 4,  # Dynamic
    18: 4,  # InvokeDynamic
    19: 2,  # Module
    20: 2,  # Package
}
_TWO_SLOTS = {5, 6}


class IcebergJarsError(RuntimeError):
    """The Iceberg jars cannot be found or built."""


class ClassFormatError(ValueError):
    """A ``.class`` file whose constant pool cannot be parsed."""


def _relocation_pattern(old: str, new: str) -> tuple[re.Pattern[bytes], bytes]:
    """A bytes pattern for ``old`` that skips occurrences already relocated."""
    lookbehind = new[: len(new) - len(old)]
    pattern = re.compile(b"(?<!" + re.escape(lookbehind.encode()) + b")" + re.escape(old.encode()))
    return pattern, new.encode()


_SHADED_JACKSON = SHADED_PREFIX + JACKSON_PACKAGE
_RELOCATIONS = (
    _relocation_pattern(JACKSON_PACKAGE, _SHADED_JACKSON),
    _relocation_pattern(JACKSON_PACKAGE.replace("/", "."), _SHADED_JACKSON.replace("/", ".")),
)


def relocate_bytes(data: bytes) -> bytes:
    """Rewrite Jackson package names (slash and dotted forms) in ``data``.

    Safe on modified UTF-8: the ASCII patterns cannot match inside a multi-byte
    sequence, whose bytes are all >= 0x80. Idempotent: names already under the
    shaded prefix are left alone.
    """
    for pattern, replacement in _RELOCATIONS:
        data = pattern.sub(replacement, data)
    return data


def relocate_class(data: bytes) -> bytes:
    """Return the class file ``data`` with its CONSTANT_Utf8 entries relocated.

    Only the constant pool changes; the bytes after it are copied as they are
    (nothing there holds absolute offsets into the pool's bytes).
    """
    if len(data) < 10 or struct.unpack_from(">I", data)[0] != _CLASS_MAGIC:
        raise ClassFormatError("not a class file (bad magic)")
    count = struct.unpack_from(">H", data, 8)[0]
    out = [data[:10]]
    pos = 10
    index = 1
    while index < count:
        tag, end = _cp_entry_bounds(data, pos)
        if tag == 1:
            out.append(_utf8_entry(relocate_bytes(data[pos + 3 : end])))
        else:
            out.append(data[pos:end])
        index += 2 if tag in _TWO_SLOTS else 1
        pos = end
    out.append(data[pos:])
    return b"".join(out)


def _cp_entry_bounds(data: bytes, pos: int) -> tuple[int, int]:
    """The tag of the constant pool entry at ``pos`` and the offset just past it."""
    if pos >= len(data):
        raise ClassFormatError("constant pool runs past the end of the class file")
    tag = data[pos]
    if tag == 1:
        if pos + 3 > len(data):
            raise ClassFormatError("truncated CONSTANT_Utf8 entry")
        end = pos + 3 + struct.unpack_from(">H", data, pos + 1)[0]
    elif tag in _CP_PAYLOAD:
        end = pos + 1 + _CP_PAYLOAD[tag]
    else:
        raise ClassFormatError(f"unknown constant pool tag {tag} at offset {pos}")
    if end > len(data):
        raise ClassFormatError(f"constant pool entry at offset {pos} is truncated")
    return tag, end


def _utf8_entry(value: bytes) -> bytes:
    """A CONSTANT_Utf8 entry (tag, u2 length, bytes) holding ``value``."""
    if len(value) > 0xFFFF:
        raise ClassFormatError("relocated CONSTANT_Utf8 entry exceeds 65535 bytes")
    return struct.pack(">BH", 1, len(value)) + value


def relocate_entry_name(name: str) -> str | None:
    """The name a jar entry gets in the shaded jar, or None to leave it out.

    Classes and resources under ``com/fasterxml/jackson/`` move under the shaded
    prefix, as do service files named after Jackson types. Signatures, module
    descriptors, multi-release variants, directories and the manifest are
    dropped (the base classes run on any Java 8+ JVM).
    """
    if name.endswith("/") or name == "META-INF/MANIFEST.MF" or _SIGNATURE.match(name):
        return None
    if name.startswith("META-INF/versions/") or name.rsplit("/", 1)[-1] == "module-info.class":
        return None
    if name.startswith(JACKSON_PACKAGE):
        return SHADED_PREFIX + name
    if name.startswith(_SERVICES):
        return _SERVICES + relocate_bytes(name[len(_SERVICES) :].encode()).decode()
    return name


def relocate_entry(name: str, data: bytes) -> bytes:
    """The content of entry ``name`` in the shaded jar."""
    if name.endswith(".class"):
        return relocate_class(data)
    if name.startswith(_SERVICES):
        return relocate_bytes(data)
    return data


def _shaded_entries(sources: Iterable[Path]) -> Iterator[tuple[str, bytes]]:
    """(new name, new content) for every kept entry of ``sources``; the first
    of two entries with the same new name wins (e.g. each jar's LICENSE)."""
    seen: set[str] = set()
    for source in sources:
        with zipfile.ZipFile(source) as archive:
            for info in archive.infolist():
                new_name = relocate_entry_name(info.filename)
                if new_name is None or new_name in seen:
                    continue
                seen.add(new_name)
                yield new_name, relocate_entry(info.filename, archive.read(info))


def _write_entry(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    """Add a file entry with a fixed timestamp, so equal inputs give equal bytes."""
    info = zipfile.ZipInfo(name, date_time=_FIXED_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def build_shaded_jar(sources: Iterable[Path], target: Path | IO[bytes]) -> None:
    """Write to ``target`` (a path or a binary file) a jar holding the relocated
    content of ``sources``."""
    with zipfile.ZipFile(target, "w") as archive:
        _write_entry(archive, "META-INF/MANIFEST.MF", _MANIFEST)
        for name, data in _shaded_entries(sources):
            _write_entry(archive, name, data)


def inputs_hash(sources: Iterable[Path]) -> str:
    """A short hash of the build format and the contents of ``sources``."""
    digest = hashlib.sha256(BUILD_FORMAT)
    for source in sources:
        digest.update(source.name.encode() + b"\0")
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def write_jar_atomically(target: Path, build: Callable[[IO[bytes]], None]) -> Path:
    """Write ``target`` with ``build`` (which writes a jar to a binary file),
    unless it exists: to a temporary file beside it, moved into place with
    ``os.replace``, so a concurrent or killed run never leaves a partial jar
    under the final name (concurrent builders write identical bytes)."""
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.stem}-", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w+b") as handle:
            build(handle)
            handle.flush()
            os.fsync(handle.fileno())
        tmp.chmod(0o644)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return target


def shaded_jackson_jar(sources: list[Path], cache_dir: Path) -> Path:
    """The shaded Jackson jar for ``sources`` under ``cache_dir``, built if absent."""
    target = cache_dir / f"{CACHE_STEM}-{inputs_hash(sources)}.jar"
    return write_jar_atomically(target, lambda handle: build_shaded_jar(sources, handle))


def is_signed(jar: Path) -> bool:
    """Whether ``jar`` carries a signature (``META-INF/*.SF`` and the like)."""
    with zipfile.ZipFile(jar) as archive:
        return any(_SIGNATURE.match(name) for name in archive.namelist())


def unsigned_jar(source: Path, cache_dir: Path) -> Path:
    """A copy of ``source`` without its signature files under ``cache_dir``,
    built if absent: its classes and resources byte for byte."""

    def build(handle: IO[bytes]) -> None:
        with zipfile.ZipFile(source) as archive, zipfile.ZipFile(handle, "w") as copy:
            for info in archive.infolist():
                if not _SIGNATURE.match(info.filename):
                    copy.writestr(info, archive.read(info))

    stat = source.stat()
    return write_jar_atomically(cache_dir / f"unsigned-{stat.st_size}-{source.name}", build)


def _package_dir(package: str) -> Path | None:
    """The folder of an installed top-level package, without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def pyspark_jars_dir() -> Path:
    """pyspark's bundled ``jars`` folder."""
    folder = _package_dir("pyspark")
    if folder is None or not (folder / "jars").is_dir():
        raise IcebergJarsError(
            "pyspark is not installed in this Python environment (or has no jars/ "
            "folder, as with a pyspark built from source without its jars), so the "
            "Iceberg runtime cannot be set up. Install the project's requirements, "
            "e.g. `pip install -r requirements.txt` (pyspark 3.5), or set "
            f"{ENV_PACKAGES} to an iceberg-spark-runtime Maven coordinate to "
            "download Iceberg from Maven instead."
        )
    return folder / "jars"


def spark_scala_versions(jars_dir: Path) -> tuple[str, str]:
    """(Spark minor version, Scala binary version) from pyspark's spark-core jar,
    e.g. ("3.5", "2.12") for ``spark-core_2.12-3.5.9.jar``."""
    for jar in sorted(jars_dir.glob("spark-core_*.jar")):
        match = re.fullmatch(r"spark-core_(\d+\.\d+)-(\d+\.\d+)\.[^-]+\.jar", jar.name)
        if match:
            return match.group(2), match.group(1)
    raise IcebergJarsError(
        f"No spark-core_<scala>-<version>.jar in {jars_dir}, so the Spark and Scala "
        "versions of the installed pyspark are unknown and the matching Iceberg "
        "runtime cannot be chosen. Reinstall pyspark 3.5 from PyPI "
        "(`pip install --force-reinstall pyspark==3.5.*`)."
    )


def jackson_jars(jars_dir: Path) -> list[Path]:
    """pyspark's Jackson jars that Iceberg needs, in a fixed order."""
    found: list[Path] = []
    missing: list[str] = []
    for artifact in JACKSON_ARTIFACTS:
        matches = sorted(jars_dir.glob(f"{artifact}-[0-9]*.jar"))
        if matches:
            found.append(matches[-1])
        else:
            missing.append(artifact)
    if missing:
        raise IcebergJarsError(
            f"pyspark's jars folder {jars_dir} lacks {', '.join(missing)}, which "
            "tsdedup relocates to supply the Jackson classes the Iceberg runtime jar "
            "references but does not contain. Reinstall pyspark 3.5 from PyPI "
            "(`pip install --force-reinstall pyspark==3.5.*`), or set "
            f"{ENV_PACKAGES} to an iceberg-spark-runtime Maven coordinate to "
            "download Iceberg from Maven instead."
        )
    return found


def runtime_jar(spark_version: str, scala_version: str) -> Path:
    """The Iceberg Spark runtime jar from the installed wheel for this Spark/Scala."""
    folder = _package_dir(RUNTIME_PACKAGE)
    pattern = f"iceberg-spark-runtime-{spark_version}_{scala_version}-*.jar"
    matches = sorted((folder / "jars").glob(pattern)) if folder else []
    if not matches:
        where = f"in {folder / 'jars'}" if folder else "because the package is not installed"
        raise IcebergJarsError(
            f"No Iceberg Spark runtime jar matching {pattern} was found {where}. "
            f"Install it with `pip install {RUNTIME_DIST}` (the project pins it in "
            "requirements.txt), or set "
            f"{ENV_PACKAGES}=org.apache.iceberg:iceberg-spark-runtime-"
            f"{spark_version}_{scala_version}:<version> to let Spark download it "
            "from Maven instead."
        )
    return matches[-1]


def iceberg_jars(cache_dir: Path) -> list[Path]:
    """The jars to put on ``spark.jars``: the Iceberg runtime from the wheel and
    the shaded Jackson jar built (or reused) under ``cache_dir``."""
    jars_dir = pyspark_jars_dir()
    spark_version, scala_version = spark_scala_versions(jars_dir)
    runtime = runtime_jar(spark_version, scala_version)
    return [runtime, shaded_jackson_jar(jackson_jars(jars_dir), cache_dir)]


def spark_jar_conf(cache_dir: Path) -> dict[str, str]:
    """Spark settings that put Iceberg on the classpath.

    ``{"spark.jars.packages": ...}`` when ``TSDEDUP_ICEBERG_PACKAGES`` is set
    (Spark then resolves it from Maven), else ``{"spark.jars": "a.jar,b.jar"}``.
    """
    packages = os.environ.get(ENV_PACKAGES, "").strip()
    if packages:
        return {"spark.jars.packages": packages}
    return {"spark.jars": ",".join(str(jar) for jar in iceberg_jars(cache_dir))}
