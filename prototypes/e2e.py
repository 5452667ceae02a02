import sys, time, shutil, os, glob
from pathlib import Path

sys.path.insert(0, "/work/main")
sys.path.insert(0, "/tmp/s29/af")
from python_udfs.spark_session import Paths, base_conf, build_session

home = Path("/tmp/s29/af/home2")
shutil.rmtree(home, ignore_errors=True)
home.mkdir(parents=True)
conf = base_conf(Paths(home))
conf["spark.sql.files.openCostInBytes"] = str(64 * 1024)
spark = build_session(conf)
spark.sparkContext.addPyFile("/tmp/s29/af/proto_writer.py")
from pyspark.sql.functions import udtf
import proto_writer

spark.udtf.register(
    "write_chunks",
    udtf(proto_writer.WriteChunks, returnType="path string, rows bigint", useArrow=True),
)
spark.sql("create database if not exists t")
spark.sql("""create table t.raw (position bigint, measurement string, tags map<string,string>, fields_float map<string,double>,
 fields_int map<string,bigint>, fields_uint map<string,decimal(20,0)>, fields_string map<string,string>, fields_bool map<string,boolean>,
 time_ns bigint, time_from_ingest boolean, row_kind string) using iceberg partitioned by (row_kind, measurement)""")
loc = (
    spark.sql("describe extended t.raw")
    .where("col_name = 'Location'")
    .collect()[0][1]
    .replace("file:", "")
)
src = sys.argv[1]
for run in (1, 2):
    out = f"{loc}/data/ingest-{run}"
    s = time.monotonic()
    files = spark.sql(
        f"""select w.* from (select path from binaryFile.`file:{src}` ) b, lateral write_chunks(b.path, '{out}') w"""
    )
    files = spark.sql(
        f"""select w.* from (select path, length from binaryFile.`file:{src}`) b, lateral write_chunks(b.path, '{out}') w"""
    ).collect()
    t1 = time.monotonic()
    spark.sql(
        f"CALL spark_catalog.system.add_files(table => 't.raw', source_table => '`parquet`.`{out}`', check_duplicate_files => false)"
    ).collect()
    t2 = time.monotonic()
    print(
        f"run {run}: files {len(files)} rows {sum(f.rows for f in files)} write {t1 - s:.1f}s add_files {t2 - t1:.1f}s",
        flush=True,
    )
print(spark.sql("select count(*), count(distinct measurement) from t.raw").collect())
