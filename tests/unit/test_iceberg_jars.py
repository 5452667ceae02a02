"""The shaded Jackson jar for the Iceberg Spark runtime and the Spark jar settings.

Class files are built by hand and parsed back with a constant pool reader of
this module's own, independent of the code under test. No Spark JVM is started.
"""

from __future__ import annotations

import importlib.util
import io
import os
import re
import struct
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tsdedup import iceberg_jars
from tsdedup.iceberg_jars import (
    ClassFormatError,
    IcebergJarsError,
    build_shaded_jar,
    inputs_hash,
    jackson_jars,
    pyspark_jars_dir,
    relocate_bytes,
    relocate_class,
    runtime_jar,
    shaded_jackson_jar,
    spark_jar_conf,
    spark_scala_versions,
)

SHADED = "org/apache/iceberg/shaded/com/fasterxml/jackson/"
SHADED_DOTTED = SHADED.replace("/", ".")
ENV = "TSDEDUP_ICEBERG_PACKAGES"

# --------------------------------------------------------------------------
# Class files: a writer for test inputs and a reader for verification.
# --------------------------------------------------------------------------

UTF8, INTEGER, FLOAT, LONG, DOUBLE = 1, 3, 4, 5, 6
CLASS, STRING, FIELDREF, METHODREF, NAME_AND_TYPE, METHOD_HANDLE = 7, 8, 9, 10, 12, 15

# Payload sizes of the fixed-size constant pool entries this reader accepts.
FIXED_PAYLOAD = {
    INTEGER: 4,
    FLOAT: 4,
    LONG: 8,
    DOUBLE: 8,
    CLASS: 2,
    STRING: 2,
    FIELDREF: 4,
    METHODREF: 4,
    11: 4,
    NAME_AND_TYPE: 4,
    METHOD_HANDLE: 3,
    16: 2,
    17: 4,
    18: 4,
    19: 2,
    20: 2,
}


@dataclass(frozen=True)
class Entry:
    """One constant pool entry: its slot index, tag and raw bytes (tag included)."""

    index: int
    tag: int
    raw: bytes

    @property
    def utf8(self) -> bytes:
        """The value of a CONSTANT_Utf8 entry, checked against its length prefix."""
        assert self.tag == UTF8
        (length,) = struct.unpack_from(">H", self.raw, 1)
        assert length == len(self.raw) - 3
        return self.raw[3:]


@dataclass(frozen=True)
class ParsedClass:
    header: bytes  # magic and version
    count: int  # constant_pool_count as stored
    entries: list[Entry]
    rest: bytes  # everything after the constant pool

    def by_index(self) -> dict[int, Entry]:
        return {entry.index: entry for entry in self.entries}

    def utf8_values(self) -> list[bytes]:
        return [entry.utf8 for entry in self.entries if entry.tag == UTF8]

    def class_names(self) -> list[str]:
        """The names of all CONSTANT_Class entries."""
        pool = self.by_index()
        names = []
        for entry in self.entries:
            if entry.tag == CLASS:
                (name_index,) = struct.unpack_from(">H", entry.raw, 1)
                names.append(pool[name_index].utf8.decode("utf-8"))
        return names


def parse_class(data: bytes) -> ParsedClass:
    """Split a class file into header, constant pool entries and the rest."""
    (magic,) = struct.unpack_from(">I", data)
    assert magic == 0xCAFEBABE
    (count,) = struct.unpack_from(">H", data, 8)
    entries: list[Entry] = []
    pos, index = 10, 1
    while index < count:
        tag = data[pos]
        if tag == UTF8:
            (length,) = struct.unpack_from(">H", data, pos + 1)
            size = 3 + length
        else:
            size = 1 + FIXED_PAYLOAD[tag]
        assert pos + size <= len(data)
        entries.append(Entry(index, tag, data[pos : pos + size]))
        pos += size
        index += 2 if tag in (LONG, DOUBLE) else 1
    return ParsedClass(data[:8], count, entries, data[pos:])


def utf8(value: str | bytes) -> bytes:
    raw = value.encode("utf-8") if isinstance(value, str) else value
    return struct.pack(">BH", UTF8, len(raw)) + raw


def class_file(entries: list[bytes], rest: bytes, slots: int | None = None) -> bytes:
    """A class file whose constant pool holds ``entries`` (``slots`` = pool count)."""
    count = slots if slots is not None else len(entries) + 1
    return struct.pack(">IHHH", 0xCAFEBABE, 0, 52, count) + b"".join(entries) + rest


# The hand-built class: slot -> entry. Slots 8 and 9 belong to the Long.
LONG_BYTES = struct.pack(">q", 0x0100_2A63_6F6D_2F66)  # starts like a Utf8 tag + length
MODIFIED_UTF8 = "é€/com/fasterxml/jackson/x".encode()  # multi-byte chars before the match
SAMPLE_POOL: list[tuple[int, bytes]] = [
    (1, utf8("com/fasterxml/jackson/core/JsonFactory")),
    (2, struct.pack(">BH", CLASS, 1)),
    (3, utf8("Lcom/fasterxml/jackson/core/JsonFactory;")),
    (4, utf8("com.fasterxml.jackson.core")),
    (5, struct.pack(">BH", STRING, 4)),
    (6, utf8("java/lang/Object")),
    (7, struct.pack(">Bi", INTEGER, 0x0A0B0C0D)),
    (8, bytes([LONG]) + LONG_BYTES),
    (10, utf8("factory")),
    (11, struct.pack(">BHH", NAME_AND_TYPE, 10, 3)),
    (12, struct.pack(">BHH", FIELDREF, 2, 11)),
    (13, struct.pack(">BBH", METHOD_HANDLE, 1, 12)),
    (14, struct.pack(">Bd", DOUBLE, 2.5)),
    (16, utf8(SHADED + "core/AlreadyShaded")),
    (17, utf8(MODIFIED_UTF8)),
    (18, utf8("(Ljava/lang/String;Lcom/fasterxml/jackson/core/JsonParser;)V")),
    (19, utf8("")),
    (20, struct.pack(">Bf", FLOAT, 1.5)),
]
SAMPLE_SLOTS = 21
# access flags, this_class, super_class, no interfaces/fields/methods, then an
# attribute-like tail that mentions Jackson: it must not be rewritten.
SAMPLE_REST = (
    struct.pack(">HHHHHHH", 0x0021, 2, 2, 0, 0, 0, 0)
    + b"\x00com/fasterxml/jackson/not-in-the-pool\xff\x01\x00"
)
SAMPLE = class_file([raw for _, raw in SAMPLE_POOL], SAMPLE_REST, SAMPLE_SLOTS)

EXPECTED_UTF8 = {
    1: (SHADED + "core/JsonFactory").encode(),
    3: f"L{SHADED}core/JsonFactory;".encode(),
    4: (SHADED_DOTTED + "core").encode(),
    6: b"java/lang/Object",
    10: b"factory",
    16: (SHADED + "core/AlreadyShaded").encode(),
    17: f"é€/{SHADED}x".encode(),
    18: f"(Ljava/lang/String;L{SHADED}core/JsonParser;)V".encode(),
    19: b"",
}


# --------------------------------------------------------------------------
# relocate_class
# --------------------------------------------------------------------------


def test_sample_class_parses_as_built() -> None:
    parsed = parse_class(SAMPLE)
    assert [(entry.index, entry.raw) for entry in parsed.entries] == SAMPLE_POOL
    assert parsed.rest == SAMPLE_REST


def test_relocate_class_rewrites_only_the_utf8_entries() -> None:
    before = parse_class(SAMPLE)
    after = parse_class(relocate_class(SAMPLE))

    assert after.header == before.header
    assert after.count == before.count == SAMPLE_SLOTS
    assert [(e.index, e.tag) for e in after.entries] == [(e.index, e.tag) for e in before.entries]
    pool = after.by_index()
    # Utf8 values relocated (or kept), each with a length prefix that matches.
    assert {i: pool[i].utf8 for i in EXPECTED_UTF8} == EXPECTED_UTF8
    # Every other entry, and everything after the pool, byte for byte the same.
    for old, new in zip(before.entries, after.entries, strict=True):
        if old.tag != UTF8:
            assert new.raw == old.raw
    assert after.rest == SAMPLE_REST
    assert after.class_names() == [f"{SHADED}core/JsonFactory"]


def test_relocated_class_grows_by_the_prefix_per_occurrence() -> None:
    # One occurrence each in entries 1, 3, 4, 17 and 18; entry 16 is already shaded.
    occurrences = 5
    assert len(relocate_class(SAMPLE)) == len(SAMPLE) + occurrences * len(
        "org/apache/iceberg/shaded/"
    )


def test_relocate_class_is_idempotent_and_keeps_unrelated_classes() -> None:
    once = relocate_class(SAMPLE)
    assert relocate_class(once) == once

    plain = class_file(
        [utf8("java/lang/Object"), struct.pack(">BH", CLASS, 1), utf8("com/fasterxml/other")],
        b"\x00\x01\x02",
    )
    assert relocate_class(plain) == plain


def test_relocate_class_accepts_an_empty_pool() -> None:
    data = class_file([], b"tail")
    assert relocate_class(data) == data


def test_relocate_bytes_handles_both_forms_and_is_idempotent() -> None:
    text = b"com/fasterxml/jackson/a com.fasterxml.jackson.b com/fasterxml/jacksonx"
    once = relocate_bytes(text)
    assert once == f"{SHADED}a {SHADED_DOTTED}b com/fasterxml/jacksonx".encode()
    assert relocate_bytes(once) == once


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"PK\x03\x04" + b"\x00" * 40, id="zip-header"),
        pytest.param(b"\xca\xfe\xba\xbe\x00\x00\x00", id="truncated-header"),
        pytest.param(b"\xca\xfe\xba\xbf" + b"\x00" * 10, id="bad-magic"),
        pytest.param(SAMPLE[:40], id="truncated-in-pool"),
        pytest.param(SAMPLE[:11], id="truncated-utf8-length"),
        pytest.param(class_file([utf8("abc")], b"", slots=5), id="pool-count-too-high"),
        pytest.param(class_file([b"\x02\x00\x00"], b"\x00" * 8), id="unknown-tag"),
        pytest.param(class_file([struct.pack(">BH", UTF8, 50) + b"x"], b""), id="utf8-overrun"),
        pytest.param(class_file([bytes([LONG]) + b"\x00" * 4], b"", 3), id="truncated-long"),
    ],
)
def test_relocate_class_rejects_malformed_input(data: bytes) -> None:
    with pytest.raises(ClassFormatError):
        relocate_class(data)


def test_class_format_error_is_a_value_error() -> None:
    assert issubclass(ClassFormatError, ValueError)


def test_relocate_class_refuses_utf8_entries_that_outgrow_the_length_field() -> None:
    value = b"com/fasterxml/jackson/" * 2900  # 63800 bytes, over 65535 once relocated
    with pytest.raises(ClassFormatError, match="65535"):
        relocate_class(class_file([utf8(value)], b""))


# --------------------------------------------------------------------------
# build_shaded_jar
# --------------------------------------------------------------------------

DATABIND_CLASS = class_file(
    [utf8("com/fasterxml/jackson/databind/ObjectMapper"), struct.pack(">BH", CLASS, 1)],
    struct.pack(">HHH", 0x0021, 2, 2),
)

FIRST_JAR: list[tuple[str, bytes]] = [
    ("META-INF/", b""),
    ("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\r\nMulti-Release: true\r\n\r\n"),
    ("META-INF/SIGNER.SF", b"signature"),
    ("META-INF/SIGNER.RSA", b"signature"),
    ("META-INF/other.ec", b"signature"),
    ("module-info.class", b"not parsed"),
    ("META-INF/versions/9/module-info.class", b"not parsed"),
    ("META-INF/versions/11/com/fasterxml/jackson/core/Fast.class", b"not parsed"),
    ("com/fasterxml/jackson/core/", b""),
    ("com/fasterxml/jackson/core/JsonFactory.class", SAMPLE),
    ("com/fasterxml/jackson/core/module-info.class", b"not parsed"),
    ("com/fasterxml/jackson/core/data.properties", b"name=com.fasterxml.jackson.core\n"),
    (
        "META-INF/services/com.fasterxml.jackson.core.JsonFactory",
        b"com.fasterxml.jackson.core.JsonFactory\n",
    ),
    ("META-INF/services/java.sql.Driver", b"# drivers\ncom.fasterxml.jackson.Driver\n"),
    ("META-INF/LICENSE", b"first license"),
    ("META-INF/maven/com.fasterxml.jackson.core/jackson-core/pom.properties", b"v=1\n"),
]
SECOND_JAR: list[tuple[str, bytes]] = [
    ("META-INF/MANIFEST.MF", b"Manifest-Version: 1.0\r\n\r\n"),
    ("META-INF/LICENSE", b"second license"),
    ("com/fasterxml/jackson/databind/ObjectMapper.class", DATABIND_CLASS),
]

EXPECTED_NAMES = [
    "META-INF/MANIFEST.MF",
    f"{SHADED}core/JsonFactory.class",
    f"{SHADED}core/data.properties",
    f"META-INF/services/{SHADED_DOTTED}core.JsonFactory",
    "META-INF/services/java.sql.Driver",
    "META-INF/LICENSE",
    "META-INF/maven/com.fasterxml.jackson.core/jackson-core/pom.properties",
    f"{SHADED}databind/ObjectMapper.class",
]


DateTime = tuple[int, int, int, int, int, int]


def write_jar(
    path: Path, entries: list[tuple[str, bytes]], date: DateTime = (2023, 5, 6, 7, 8, 10)
) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(zipfile.ZipInfo(name, date_time=date), data)
    return path


@pytest.fixture
def sources(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "src"
    folder.mkdir()
    return [
        write_jar(folder / "jackson-core-1.0.jar", FIRST_JAR),
        write_jar(folder / "jackson-databind-1.0.jar", SECOND_JAR),
    ]


def read_jar(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.testzip() is None
        return {name: archive.read(name) for name in archive.namelist()}


def built(sources: list[Path]) -> bytes:
    buffer = io.BytesIO()
    build_shaded_jar(sources, buffer)
    return buffer.getvalue()


def test_build_shaded_jar_relocates_and_filters_entries(sources: list[Path]) -> None:
    data = built(sources)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == EXPECTED_NAMES  # no duplicates, manifest first
        for info in archive.infolist():
            assert info.date_time == (1980, 1, 1, 0, 0, 0)
            assert info.compress_type == zipfile.ZIP_DEFLATED
            assert not info.is_dir()
    content = read_jar(data)

    manifest = content["META-INF/MANIFEST.MF"]
    assert manifest.startswith(b"Manifest-Version: 1.0\r\n")
    assert b"Multi-Release" not in manifest
    assert content[f"{SHADED}core/JsonFactory.class"] == relocate_class(SAMPLE)
    assert parse_class(content[f"{SHADED}databind/ObjectMapper.class"]).class_names() == [
        f"{SHADED}databind/ObjectMapper"
    ]
    # Resources move but keep their content; service files are rewritten.
    assert content[f"{SHADED}core/data.properties"] == b"name=com.fasterxml.jackson.core\n"
    assert content[f"META-INF/services/{SHADED_DOTTED}core.JsonFactory"] == (
        f"{SHADED_DOTTED}core.JsonFactory\n".encode()
    )
    assert content["META-INF/services/java.sql.Driver"] == (
        f"# drivers\n{SHADED_DOTTED}Driver\n".encode()
    )
    assert content["META-INF/LICENSE"] == b"first license"


def test_build_shaded_jar_is_deterministic(sources: list[Path], tmp_path: Path) -> None:
    first = tmp_path / "first.jar"
    second = tmp_path / "second.jar"
    build_shaded_jar(sources, first)
    build_shaded_jar(sources, second)
    assert first.read_bytes() == second.read_bytes() == built(sources)

    # The timestamps of the inputs do not reach the output.
    redated = tmp_path / "redated"
    redated.mkdir()
    later = [
        write_jar(redated / sources[0].name, FIRST_JAR, (2030, 12, 31, 23, 59, 58)),
        write_jar(redated / sources[1].name, SECOND_JAR, (1999, 1, 2, 3, 4, 6)),
    ]
    assert built(later) == first.read_bytes()


def test_build_shaded_jar_fails_on_a_malformed_class(tmp_path: Path) -> None:
    bad = write_jar(tmp_path / "bad.jar", [("com/fasterxml/jackson/Bad.class", b"nope")])
    with pytest.raises(ClassFormatError):
        built([bad])


# --------------------------------------------------------------------------
# shaded_jackson_jar: caching and atomic writes
# --------------------------------------------------------------------------


def test_cache_file_is_named_after_the_inputs_hash(sources: list[Path], tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "nested"
    jar = shaded_jackson_jar(sources, cache)
    digest = inputs_hash(sources)
    assert re.fullmatch(r"[0-9a-f]{16}", digest)
    assert jar == cache / f"iceberg-shaded-jackson-{digest}.jar"
    assert jar.read_bytes() == built(sources)
    assert jar.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in cache.iterdir()) == [jar.name]


def test_second_call_reuses_the_cached_jar(
    sources: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    jar = shaded_jackson_jar(sources, cache)
    old = 1_000_000_000_000_000_000
    os.utime(jar, ns=(old, old))

    def no_build(*_args: object) -> None:
        raise AssertionError("the cached jar was rebuilt")

    monkeypatch.setattr(iceberg_jars, "build_shaded_jar", no_build)
    assert shaded_jackson_jar(sources, cache) == jar
    assert jar.stat().st_mtime_ns == old
    assert sorted(p.name for p in cache.iterdir()) == [jar.name]


def test_changed_inputs_give_a_new_cache_file(sources: list[Path], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    jar = shaded_jackson_jar(sources, cache)
    before = jar.read_bytes()

    write_jar(sources[1], [*SECOND_JAR, ("com/fasterxml/jackson/databind/new.txt", b"x")])
    changed = shaded_jackson_jar(sources, cache)
    assert changed != jar
    assert f"{SHADED}databind/new.txt" in read_jar(changed.read_bytes())

    renamed = sources[1].rename(sources[1].with_name("jackson-databind-2.0.jar"))
    moved = shaded_jackson_jar([sources[0], renamed], cache)
    assert moved not in (jar, changed)

    assert jar.read_bytes() == before
    assert sorted(p.name for p in cache.iterdir()) == sorted(p.name for p in (jar, changed, moved))


def test_a_failed_build_leaves_no_file_behind(
    sources: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    seen: list[str] = []

    def failing_build(_sources: object, target: io.BufferedRandom) -> None:
        seen.extend(p.name for p in cache.iterdir())
        target.write(b"PK partial")
        raise OSError("disk full")

    monkeypatch.setattr(iceberg_jars, "build_shaded_jar", failing_build)
    with pytest.raises(OSError, match="disk full"):
        shaded_jackson_jar(sources, cache)
    # The build went to a temporary name, which is gone again.
    assert len(seen) == 1
    assert seen[0].startswith(".") and seen[0].endswith(".tmp")
    assert list(cache.iterdir()) == []


# --------------------------------------------------------------------------
# Locating pyspark's jars and the Iceberg runtime
# --------------------------------------------------------------------------


def test_spark_scala_versions_from_the_spark_core_jar(tmp_path: Path) -> None:
    (tmp_path / "spark-core_2.13-3.5.1.jar").touch()
    (tmp_path / "spark-corex_2.12-3.4.0.jar").touch()
    assert spark_scala_versions(tmp_path) == ("3.5", "2.13")


def test_spark_scala_versions_without_spark_core(tmp_path: Path) -> None:
    with pytest.raises(IcebergJarsError, match=r"pip install --force-reinstall pyspark"):
        spark_scala_versions(tmp_path)


def test_jackson_jars_picks_the_artifacts_in_order(tmp_path: Path) -> None:
    for name in (
        "jackson-datatype-jsr310-2.15.2.jar",
        "jackson-core-asl-1.9.13.jar",
        "jackson-databind-2.15.2.jar",
        "jackson-core-2.15.2.jar",
        "jackson-annotations-2.15.2.jar",
        "jackson-module-scala_2.12-2.15.2.jar",
    ):
        (tmp_path / name).touch()
    assert [p.name for p in jackson_jars(tmp_path)] == [
        "jackson-annotations-2.15.2.jar",
        "jackson-core-2.15.2.jar",
        "jackson-databind-2.15.2.jar",
        "jackson-datatype-jsr310-2.15.2.jar",
    ]


def test_jackson_jars_names_the_missing_artifacts(tmp_path: Path) -> None:
    (tmp_path / "jackson-core-2.15.2.jar").touch()
    (tmp_path / "jackson-core-asl-1.9.13.jar").touch()
    with pytest.raises(IcebergJarsError) as raised:
        jackson_jars(tmp_path)
    message = str(raised.value)
    assert "jackson-annotations, jackson-databind, jackson-datatype-jsr310" in message
    assert ENV in message


def without_package(monkeypatch: pytest.MonkeyPatch, missing: str, stand_in: Path | None) -> None:
    """Make the module see ``stand_in`` (None: nothing) for package ``missing``."""
    real = iceberg_jars._package_dir

    def package_dir(package: str) -> Path | None:
        return stand_in if package == missing else real(package)

    monkeypatch.setattr(iceberg_jars, "_package_dir", package_dir)


def test_missing_runtime_wheel_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    without_package(monkeypatch, "snowpark_connect_deps_iceberg", None)
    cache = tmp_path / "cache"
    with pytest.raises(IcebergJarsError) as raised:
        spark_jar_conf(cache)
    message = str(raised.value)
    assert "not installed" in message
    assert "pip install snowpark-connect-deps-iceberg" in message
    assert f"{ENV}=org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:<version>" in message
    assert not cache.exists()  # nothing is built when the runtime is missing


def test_runtime_wheel_without_a_matching_jar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "jars").mkdir()
    (tmp_path / "jars" / "iceberg-spark-runtime-3.4_2.12-1.10.2.jar").touch()
    without_package(monkeypatch, "snowpark_connect_deps_iceberg", tmp_path)
    with pytest.raises(IcebergJarsError) as raised:
        runtime_jar("3.5", "2.12")
    message = str(raised.value)
    assert "iceberg-spark-runtime-3.5_2.12-*.jar" in message
    assert str(tmp_path / "jars") in message
    assert "pip install snowpark-connect-deps-iceberg" in message


def test_missing_pyspark_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    without_package(monkeypatch, "pyspark", None)
    with pytest.raises(IcebergJarsError, match=r"pyspark is not installed.*requirements\.txt"):
        pyspark_jars_dir()


# --------------------------------------------------------------------------
# spark_jar_conf
# --------------------------------------------------------------------------


def test_packages_from_the_environment_build_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unexpected(*_args: object) -> None:
        raise AssertionError("jars were looked up although packages were given")

    monkeypatch.setattr(iceberg_jars, "iceberg_jars", unexpected)
    monkeypatch.setattr(iceberg_jars, "shaded_jackson_jar", unexpected)
    coordinate = "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.0"
    cache = tmp_path / "cache"

    monkeypatch.setenv(ENV, coordinate)
    assert spark_jar_conf(cache) == {"spark.jars.packages": coordinate}
    monkeypatch.setenv(ENV, f"  {coordinate}\n")
    assert spark_jar_conf(cache) == {"spark.jars.packages": coordinate}
    assert not cache.exists()


def test_blank_packages_variable_falls_back_to_local_jars(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jars = [tmp_path / "runtime.jar", tmp_path / "shaded.jar"]
    monkeypatch.setattr(iceberg_jars, "iceberg_jars", lambda _cache: jars)
    monkeypatch.setenv(ENV, "   ")
    assert spark_jar_conf(tmp_path) == {"spark.jars": f"{jars[0]},{jars[1]}"}


installed = pytest.mark.skipif(
    importlib.util.find_spec("snowpark_connect_deps_iceberg") is None
    or importlib.util.find_spec("pyspark") is None,
    reason="needs pyspark and snowpark-connect-deps-iceberg (requirements.txt)",
)


@dataclass(frozen=True)
class RealJars:
    runtime: Path
    shaded: Path
    cache: Path


@pytest.fixture(scope="module")
def real_jars(tmp_path_factory: pytest.TempPathFactory) -> RealJars:
    """spark_jar_conf without the environment variable, on the installed wheels."""
    cache = tmp_path_factory.mktemp("iceberg-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(ENV, raising=False)
        conf = spark_jar_conf(cache)
    assert list(conf) == ["spark.jars"]
    runtime, shaded = (Path(p) for p in conf["spark.jars"].split(","))
    return RealJars(runtime, shaded, cache)


def shaded_names(entry_names: Iterable[str]) -> set[str]:
    return {name for name in entry_names if name.startswith(SHADED)}


@installed
def test_local_conf_lists_the_runtime_and_the_shaded_jar(real_jars: RealJars) -> None:
    spec = importlib.util.find_spec("pyspark")
    assert spec is not None and spec.submodule_search_locations
    pyspark_jars = Path(next(iter(spec.submodule_search_locations))) / "jars"
    (core,) = pyspark_jars.glob("spark-core_*.jar")
    match = re.fullmatch(r"spark-core_(\d+\.\d+)-(\d+\.\d+)\.\d+\.jar", core.name)
    assert match is not None
    scala, spark = match.groups()

    assert real_jars.runtime.is_file()
    assert real_jars.runtime.parent.parent.name == "snowpark_connect_deps_iceberg"
    assert real_jars.runtime.name.startswith(f"iceberg-spark-runtime-{spark}_{scala}-")
    assert real_jars.shaded.is_file()
    assert real_jars.shaded.parent == real_jars.cache
    assert re.fullmatch(r"iceberg-shaded-jackson-[0-9a-f]{16}\.jar", real_jars.shaded.name)
    assert [p.name for p in real_jars.cache.iterdir()] == [real_jars.shaded.name]


@installed
def test_real_shaded_jar_holds_only_relocated_classes(real_jars: RealJars) -> None:
    with zipfile.ZipFile(real_jars.shaded) as archive:
        names = archive.namelist()
        classes = {name: archive.read(name) for name in names if name.endswith(".class")}
        services = {
            name: archive.read(name) for name in names if name.startswith("META-INF/services/")
        }

    assert f"{SHADED}databind/ObjectMapper.class" in classes
    assert f"{SHADED}core/JsonFactory.class" in classes
    assert f"{SHADED}datatype/jsr310/JavaTimeModule.class" in classes
    assert f"{SHADED}annotation/JsonProperty.class" in classes
    assert not [name for name in names if name.startswith("com/fasterxml/")]
    assert all(name.startswith(SHADED) for name in classes)
    assert not [name for name in names if name.startswith("META-INF/versions/")]

    mapper = parse_class(classes[f"{SHADED}databind/ObjectMapper.class"])
    assert not [v for v in mapper.utf8_values() if v.startswith(b"com/fasterxml/jackson")]
    assert f"{SHADED}databind/ObjectMapper" in mapper.class_names()

    # No constant anywhere still names Jackson at its original place.
    unshaded = re.compile(rb"(?<!org/apache/iceberg/shaded/)com/fasterxml/jackson/")
    for name, data in classes.items():
        for value in parse_class(data).utf8_values():
            assert not unshaded.search(value), (name, value)
    # Every Jackson class named by a Jackson class is in the jar.
    referenced = {
        ref.lstrip("[").removeprefix("L").removesuffix(";")
        for data in classes.values()
        for ref in parse_class(data).class_names()
    }
    assert {f"{ref}.class" for ref in shaded_names(referenced)} <= set(classes)

    assert services
    for name, content in services.items():
        assert b"com.fasterxml.jackson." not in content.replace(SHADED_DOTTED.encode(), b"")
        assert name.startswith(f"META-INF/services/{SHADED_DOTTED}")


@installed
def test_runtime_finds_every_jackson_class_it_names(real_jars: RealJars) -> None:
    marker = SHADED.encode()
    descriptor_refs = re.compile(rf"L({re.escape(SHADED)}[^;<]+)[;<]")
    referenced: set[str] = set()
    with zipfile.ZipFile(real_jars.runtime) as archive:
        runtime_names = set(archive.namelist())
        for info in archive.infolist():
            if not info.filename.endswith(".class"):
                continue
            data = archive.read(info)
            if marker not in data:
                continue
            parsed = parse_class(data)
            referenced.update(name.lstrip("[").removeprefix("L") for name in parsed.class_names())
            for value in parsed.utf8_values():
                referenced.update(descriptor_refs.findall(value.decode("utf-8", "replace")))
    wanted = {f"{name.removesuffix(';')}.class" for name in shaded_names(referenced)}
    assert f"{SHADED}databind/ObjectMapper.class" in wanted
    with zipfile.ZipFile(real_jars.shaded) as archive:
        available = set(archive.namelist()) | runtime_names
    assert sorted(wanted - available) == []


@installed
def test_real_build_is_reused_and_reproducible(real_jars: RealJars, tmp_path: Path) -> None:
    mtime = real_jars.shaded.stat().st_mtime_ns
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(ENV, raising=False)
        again = spark_jar_conf(real_jars.cache)
    assert again == {"spark.jars": f"{real_jars.runtime},{real_jars.shaded}"}
    assert real_jars.shaded.stat().st_mtime_ns == mtime

    fresh = shaded_jackson_jar(jackson_jars(pyspark_jars_dir()), tmp_path)
    assert fresh.name == real_jars.shaded.name
    assert fresh.read_bytes() == real_jars.shaded.read_bytes()
