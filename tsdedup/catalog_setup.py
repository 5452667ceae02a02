"""What a shared catalog's database lacks on its first use (decision 0029): the
lock tables of Hive 2.3's transaction schema, which Iceberg's table locks use
and the metastore expects without creating them, and the metastore's own
tables, which it creates on first use and several first processes would race
to create. ``prepare`` runs at every session start, one process at a time.
"""

from __future__ import annotations

import os
from typing import Any

from py4j.protocol import Py4JError
from pyspark.errors import PySparkException

from tsdedup.shared_catalog import (
    LOCK_CLASS,
    SETUP_KEY,
    CatalogError,
    SharedCatalog,
    execute,
    reason,
    rows,
)

# Written last by the first start: the metastore's tables exist.
READY_TABLE = "tsdedup_catalog_ready"
# A table lock older than this is a dead writer's (the metastore's own timeout).
MIN_STALE_MS = 300_000

# The tables the metastore's lock API uses (Hive 2.3's transaction schema): the
# metastore creates its other tables itself, these it only expects. Names are
# unquoted, as its SQL writes them.
LOCK_TABLES = (
    "create table if not exists txns (txn_id bigint primary key, txn_state char(1) not null,"
    " txn_started bigint not null, txn_last_heartbeat bigint not null,"
    " txn_user varchar(128) not null, txn_host varchar(128) not null,"
    " txn_agent_info varchar(128), txn_meta_info varchar(128), txn_heartbeat_count integer)",
    "create table if not exists txn_components (tc_txnid bigint references txns (txn_id),"
    " tc_database varchar(128) not null, tc_table varchar(128), tc_partition varchar(767),"
    " tc_operation_type char(1) not null)",
    "create table if not exists completed_txn_components (ctc_txnid bigint,"
    " ctc_database varchar(128) not null, ctc_table varchar(256), ctc_partition varchar(767))",
    "create table if not exists next_txn_id (ntxn_next bigint not null)",
    "insert into next_txn_id select 1 where not exists (select 1 from next_txn_id)",
    "create table if not exists hive_locks (hl_lock_ext_id bigint not null,"
    " hl_lock_int_id bigint not null, hl_txnid bigint, hl_db varchar(128) not null,"
    " hl_table varchar(128), hl_partition varchar(767), hl_lock_state char(1) not null,"
    " hl_lock_type char(1) not null, hl_last_heartbeat bigint not null, hl_acquired_at bigint,"
    " hl_user varchar(128) not null, hl_host varchar(128) not null, hl_heartbeat_count integer,"
    " hl_agent_info varchar(128), hl_blockedby_ext_id bigint, hl_blockedby_int_id bigint,"
    " primary key (hl_lock_ext_id, hl_lock_int_id))",
    "create table if not exists next_lock_id (nl_next bigint not null)",
    "insert into next_lock_id select 1 where not exists (select 1 from next_lock_id)",
    "create table if not exists aux_table (mt_key1 varchar(128) not null,"
    " mt_key2 bigint not null, mt_comment varchar(255), primary key (mt_key1, mt_key2))",
    "create table if not exists write_set (ws_database varchar(128) not null,"
    " ws_table varchar(128) not null, ws_partition varchar(767), ws_txnid bigint not null,"
    " ws_commit_id bigint not null, ws_operation_type char(1) not null)",
    "create table if not exists compaction_queue (cq_id bigint primary key,"
    " cq_database varchar(128) not null, cq_table varchar(128) not null,"
    " cq_partition varchar(767), cq_state char(1) not null, cq_type char(1) not null,"
    " cq_tblproperties varchar(2048), cq_worker_id varchar(128), cq_start bigint,"
    " cq_run_as varchar(128), cq_highest_txn_id bigint, cq_meta_info bytea,"
    " cq_hadoop_job_id varchar(32))",
    "create table if not exists next_compaction_queue_id (ncq_next bigint not null)",
    "insert into next_compaction_queue_id select 1"
    " where not exists (select 1 from next_compaction_queue_id)",
    "create table if not exists completed_compactions (cc_id bigint primary key,"
    " cc_database varchar(128) not null, cc_table varchar(128) not null,"
    " cc_partition varchar(767), cc_state char(1) not null, cc_type char(1) not null,"
    " cc_tblproperties varchar(2048), cc_worker_id varchar(128), cc_start bigint,"
    " cc_end bigint, cc_run_as varchar(128), cc_highest_txn_id bigint, cc_meta_info bytea,"
    " cc_hadoop_job_id varchar(32))",
)


def prepare(catalog: SharedCatalog, spark: Any, heartbeat_ms: int) -> None:
    """Create the lock tables when missing and, on a database no start has
    finished setting up, the metastore's tables; drop the table locks of writers
    that died (no heartbeat for five intervals, and at least MIN_STALE_MS, by the
    database's clock). One process at a time, under the set-up advisory lock."""
    with catalog.connection(spark, f"tsdedup set-up (process {os.getpid()})") as connection:
        execute(connection, f"select pg_advisory_lock({LOCK_CLASS}, {SETUP_KEY})")
        try:
            for statement in LOCK_TABLES:
                execute(connection, statement)
            ready = rows(
                connection,
                f"select 1 from information_schema.tables where table_name = '{READY_TABLE}'",
            )
            if not ready:
                create_metastore_tables(spark)
                execute(connection, f"create table {READY_TABLE} (at timestamptz default now())")
            stale = max(5 * heartbeat_ms, MIN_STALE_MS)
            execute(
                connection,
                "delete from hive_locks where hl_last_heartbeat <"
                f" (extract(epoch from clock_timestamp()) * 1000)::bigint - {stale}",
            )
        finally:
            execute(connection, f"select pg_advisory_unlock({LOCK_CLASS}, {SETUP_KEY})")


def create_metastore_tables(spark: Any) -> None:
    """Have the metastore create the tables a project's statements use, in one
    process, before several can race to create them: a database, an Iceberg
    table with properties, a view replaced, then all dropped again (each step
    may be left over from a start that died)."""
    statements = (
        "create database if not exists tsdedup_catalog_setup",
        "drop view if exists tsdedup_catalog_setup.v",
        "drop table if exists tsdedup_catalog_setup.t purge",
        "create table tsdedup_catalog_setup.t (a int) using iceberg",
        "alter table tsdedup_catalog_setup.t set tblproperties ('tsdedup.setup' = '1')",
        "create view tsdedup_catalog_setup.v as select a from tsdedup_catalog_setup.t",
        "create or replace view tsdedup_catalog_setup.v as select a + 1 as a"
        " from tsdedup_catalog_setup.t",
        "drop view tsdedup_catalog_setup.v",
        "drop table tsdedup_catalog_setup.t purge",
        "drop database tsdedup_catalog_setup",
    )
    for statement in statements:
        try:
            spark.sql(statement).collect()
        except (Py4JError, PySparkException) as exc:
            raise CatalogError(
                f"setting up the catalog failed at `{statement}`: {reason(exc)}"
            ) from None
