import sys, time, shutil, os
from pathlib import Path

sys.path.insert(0, "/work/main")
import pyarrow as pa, pyarrow.parquet as pq
from python_udfs.spark_session import Paths, base_conf, build_session

home = Path("/tmp/s29/af/home")
shutil.rmtree(home, ignore_errors=True)
home.mkdir(parents=True)
spark = build_session(base_conf(Paths(home)))
spark.sql("create database if not exists t")
spark.sql(
    "create table t.raw (chunk_seq bigint, row_kind string, measurement string, tags map<string,string>, fields_float map<string,double>, time_ns bigint) using iceberg partitioned by (row_kind, measurement)"
)
loc = spark.sql("describe extended t.raw").where("col_name = 'Location'").collect()[0][1]
print(loc)
base = loc.replace("file:", "") + "/data/ingest-1"


def part(kind, m):
    d = Path(base) / f"row_kind={kind}" / f"measurement={m}"
    d.mkdir(parents=True, exist_ok=True)
    return d


keys = pa.array(["host", "region"])
tags = pa.MapArray.from_arrays(
    pa.array([0, 2, 4], pa.int32()),
    pa.array(["host", "region", "host", "region"]),
    pa.array(["a", "eu", "b", "us"]),
)
ff = pa.MapArray.from_arrays(pa.array([0, 1, 1], pa.int32()), pa.array(["x"]), pa.array([1.5]))
t = pa.table(
    {
        "chunk_seq": pa.array([1, 1], pa.int64()),
        "tags": tags,
        "fields_float": ff,
        "time_ns": pa.array([10, 20], pa.int64()),
    }
)
pq.write_table(t, part("point", "cpu") / "f1.parquet")
pq.write_table(t, part("point", "we ird`; x") / "f2.parquet")
s = time.monotonic()
print(
    spark.sql(
        f"CALL spark_catalog.system.add_files(table => 't.raw', source_table => '`parquet`.`{base}`')"
    ).collect()
)
print("add_files", time.monotonic() - s)
spark.sql("select * from t.raw").show(truncate=False)
spark.sql("show tblproperties t.raw").show(truncate=False)
print(spark.sql("select file_path, partition from t.raw.files").collect())
