import sys, time, shutil, os
from pathlib import Path

sys.path.insert(0, "/work/main")
import pyarrow as pa, pyarrow.parquet as pq
from python_udfs.spark_session import Paths, base_conf, build_session

home = Path("/tmp/s29/af/home3")
shutil.rmtree(home, ignore_errors=True)
home.mkdir(parents=True)
spark = build_session(base_conf(Paths(home)))
spark.sql("create database if not exists t")
spark.sql(
    "create table t.raw (position bigint, row_kind string, measurement string) using iceberg partitioned by (row_kind, measurement)"
)
loc = (
    spark.sql("describe extended t.raw")
    .where("col_name = 'Location'")
    .collect()[0][1]
    .replace("file:", "")
)
SPECIAL = set("\"#%'*/:=?\\\x7f{[]^") | {chr(c) for c in range(1, 32)}


def esc(v):
    if v is None or v == "":
        return "__HIVE_DEFAULT_PARTITION__"
    return "".join(f"%{ord(c):02X}" if c in SPECIAL else c for c in v)


names = [
    "007",
    "1e5",
    "true",
    "null",
    "2026-01-01",
    "a/b",
    "a=b",
    "%41",
    "ünï名",
    "x`; drop",
    " lead",
    "tab\there",
    "1.50",
    "-0",
    None,
]
base = f"{loc}/data/ingest-1"
for i, n in enumerate(names):
    d = Path(base) / "row_kind=point" / f"measurement={esc(n)}"
    d.mkdir(parents=True)
    pq.write_table(pa.table({"position": pa.array([i], pa.int64())}), d / "f.parquet")
spark.sql(
    f"CALL spark_catalog.system.add_files(table => 't.raw', source_table => '`parquet`.`{base}`', check_duplicate_files => false)"
).collect()
got = {
    r.position: r.measurement
    for r in spark.sql("select position, measurement from t.raw").collect()
}
for i, n in enumerate(names):
    print(repr(n), "->", repr(got.get(i)), "OK" if got.get(i) == n else "DIFFERENT")
