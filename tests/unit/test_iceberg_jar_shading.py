"""Building the relocated Jackson jar that the Iceberg runtime from PyPI needs."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

from python_udfs import iceberg_jars
from python_udfs.iceberg_jars import (
    ClassFormatError,
    IcebergJarsError,
    build_shaded_jar,
    relocate_class,
    shaded_jackson_jar,
    spark_jar_conf,
)

SHADED = "org/apache/iceberg/shaded/com/fasterxml/jackson/"


def utf8(value: str) -> bytes:
    data = value.encode()
    return struct.pack(">BH", 1, len(data)) + data


def class_file(entries: list[bytes], slots: int, tail: bytes = b"\x00\x21tail") -> bytes:
    return struct.pack(">IHHH", 0xCAFEBABE, 0, 52, slots + 1) + b"".join(entries) + tail


def read_pool(data: bytes) -> tuple[list[tuple[int, object]], bytes]:
    """An independent constant-pool reader: [(tag, value or raw payload)], tail."""
    assert struct.unpack_from(">I", data)[0] == 0xCAFEBABE
    count = struct.unpack_from(">H", data, 8)[0]
    sizes = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 18: 4}
    pos, index, pool = 10, 1, []
    while index < count:
        tag = data[pos]
        if tag == 1:
            length = struct.unpack_from(">H", data, pos + 1)[0]
            pool.append((1, data[pos + 3 : pos + 3 + length].decode()))
            pos += 3 + length
        else:
            pool.append((tag, data[pos + 1 : pos + 1 + sizes[tag]]))
            pos += 1 + sizes[tag]
        index += 2 if tag in (5, 6) else 1
    return pool, data[pos:]


ENTRIES = [
    utf8("com/fasterxml/jackson/core/JsonFactory"),
    utf8("Lcom/fasterxml/jackson/core/JsonFactory;"),
    utf8("com.fasterxml.jackson.core"),
    utf8("java/lang/Object"),
    struct.pack(">Bi", 3, -7),  # Integer
    struct.pack(">Bq", 5, 2**40),  # Long: two slots
    struct.pack(">BH", 7, 1),  # Class
    struct.pack(">BH", 8, 4),  # String
    struct.pack(">BHH", 12, 1, 2),  # NameAndType
    struct.pack(">BBH", 15, 6, 9),  # MethodHandle
    utf8(SHADED + "already/Shaded"),
]


def test_relocates_utf8_constants_and_copies_everything_else() -> None:
    original = class_file(ENTRIES, slots=len(ENTRIES) + 1)
    relocated = relocate_class(original)
    before, tail_before = read_pool(original)
    after, tail_after = read_pool(relocated)
    assert tail_after == tail_before == b"\x00\x21tail"
    assert len(after) == len(before)
    assert relocated[8:10] == original[8:10]  # constant pool count unchanged
    assert [v for t, v in after if t == 1] == [
        SHADED + "core/JsonFactory",
        "L" + SHADED + "core/JsonFactory;",
        "org.apache.iceberg.shaded.com.fasterxml.jackson.core",
        "java/lang/Object",
        SHADED + "already/Shaded",  # not relocated twice
    ]
    assert [(t, v) for t, v in after if t != 1] == [(t, v) for t, v in before if t != 1]


@pytest.mark.parametrize(
    "data",
    [
        b"PK\x03\x04 not a class",
        class_file([b"\x63\x00"], slots=1),
        class_file([utf8("x")[:2]], 1, b""),
    ],
)
def test_broken_class_files_are_refused(data: bytes) -> None:
    with pytest.raises(ClassFormatError):
        relocate_class(data)


def make_jar(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


def source_jars(tmp_path: Path) -> list[Path]:
    core = make_jar(
        tmp_path / "jackson-core-2.15.2.jar",
        {
            "META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n",
            "META-INF/JACKSON.SF": b"signature",
            "META-INF/services/com.fasterxml.jackson.core.JsonFactory": (
                b"com.fasterxml.jackson.core.JsonFactory\n"
            ),
            "com/fasterxml/jackson/core/": b"",
            "com/fasterxml/jackson/core/JsonFactory.class": class_file(ENTRIES, len(ENTRIES) + 1),
            "META-INF/versions/9/module-info.class": b"\xca\xfe\xba\xbe",
            "META-INF/LICENSE": b"core licence",
        },
    )
    databind = make_jar(
        tmp_path / "jackson-databind-2.15.2.jar",
        {
            "META-INF/LICENSE": b"databind licence",
            "com/fasterxml/jackson/databind/x.properties": b"k=v",
        },
    )
    return [core, databind]


def test_shaded_jar_moves_jackson_and_drops_what_cannot_be_relocated(tmp_path: Path) -> None:
    target = tmp_path / "out.jar"
    build_shaded_jar(source_jars(tmp_path), target)
    with zipfile.ZipFile(target) as archive:
        names = archive.namelist()
        assert sorted(names) == sorted(
            [
                "META-INF/MANIFEST.MF",
                "META-INF/services/org.apache.iceberg.shaded.com.fasterxml.jackson.core.JsonFactory",
                SHADED + "core/JsonFactory.class",
                "META-INF/LICENSE",
                SHADED + "databind/x.properties",
            ]
        )
        service = archive.read(
            "META-INF/services/org.apache.iceberg.shaded.com.fasterxml.jackson.core.JsonFactory"
        )
        assert service == b"org.apache.iceberg.shaded.com.fasterxml.jackson.core.JsonFactory\n"
        assert archive.read("META-INF/LICENSE") == b"core licence"  # first one wins
        pool, _ = read_pool(archive.read(SHADED + "core/JsonFactory.class"))
        assert not any(t == 1 and str(v).startswith("com/fasterxml") for t, v in pool)


def test_build_is_deterministic_and_cached_atomically(tmp_path: Path) -> None:
    sources = source_jars(tmp_path)
    cache = tmp_path / "cache"
    first = shaded_jackson_jar(sources, cache)
    stamp = first.stat().st_mtime_ns
    assert shaded_jackson_jar(sources, cache) == first
    assert first.stat().st_mtime_ns == stamp  # reused, not rebuilt
    assert [p.name for p in cache.iterdir()] == [first.name]  # no temporary files left
    other = tmp_path / "again.jar"
    build_shaded_jar(sources, other)
    assert other.read_bytes() == first.read_bytes()
    make_jar(sources[1], {"com/fasterxml/jackson/databind/y.properties": b"changed"})
    assert shaded_jackson_jar(sources, cache) != first


def test_maven_coordinate_replaces_the_local_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    coordinate = "org.apache.iceberg:iceberg-spark-runtime-3.5_2.12:1.10.0"
    monkeypatch.setenv("TSDEDUP_ICEBERG_PACKAGES", coordinate)
    assert spark_jar_conf(tmp_path / "jars") == {"spark.jars.packages": coordinate}
    assert not (tmp_path / "jars").exists()


def test_installed_runtime_and_real_shaded_jar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TSDEDUP_ICEBERG_PACKAGES", raising=False)
    jars = spark_jar_conf(tmp_path)["spark.jars"].split(",")
    runtime, shaded = (Path(j) for j in jars)
    assert runtime.name.startswith("iceberg-spark-runtime-3.5_2.12-") and runtime.is_file()
    with zipfile.ZipFile(shaded) as archive:
        names = set(archive.namelist())
        assert SHADED + "databind/ObjectMapper.class" in names
        assert not any(n.startswith("com/fasterxml/") for n in names)
        pool, _ = read_pool(archive.read(SHADED + "databind/ObjectMapper.class"))
    dotted = SHADED.replace("/", ".")
    texts = [str(v).replace(SHADED, "").replace(dotted, "") for t, v in pool if t == 1]
    assert any("ObjectMapper" in text for text in texts)
    assert not any("com/fasterxml/jackson" in t or "com.fasterxml.jackson" in t for t in texts)


def test_missing_runtime_wheel_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(iceberg_jars, "_package_dir", lambda package: None)
    with pytest.raises(IcebergJarsError, match="pip install snowpark-connect-deps-iceberg"):
        iceberg_jars.runtime_jar("3.5", "2.12")
