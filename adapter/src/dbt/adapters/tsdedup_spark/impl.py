"""dbt-spark's adapter with the ``tsdedup_spark`` connections."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from dbt.adapters.base.impl import AdapterTrackingRelationInfo, available
from dbt.adapters.base.relation import BaseRelation
from dbt.adapters.contracts.relation import RelationConfig
from dbt.adapters.spark.column import SparkColumn
from dbt.adapters.spark.impl import TABLE_OR_VIEW_NOT_FOUND_MESSAGES, SparkAdapter
from dbt.adapters.tsdedup_spark.__version__ import version
from dbt.adapters.tsdedup_spark.connections import TYPE, TsdedupSparkConnectionManager
from dbt_common.exceptions import DbtRuntimeError


class TsdedupSparkAdapter(SparkAdapter):
    ConnectionManager = TsdedupSparkConnectionManager

    @classmethod
    def get_adapter_run_info(cls, config: RelationConfig) -> AdapterTrackingRelationInfo:
        # dbt derives the module from the class name ("tsdedupspark"): name it.
        return AdapterTrackingRelationInfo(
            adapter_name=TYPE,
            base_adapter_version=import_module("dbt.adapters.__about__").version,
            adapter_version=version,
            model_adapter_details=cls._get_adapter_specific_run_info(config),
        )

    @available
    def tsdedup_set_view_text(self, relation: BaseRelation, sql: str) -> bool:
        """After `create or replace view`: the metastore's text of the view becomes
        ``sql``, which Iceberg's replace leaves as it was (tsdedup/hive_views.py)."""
        from tsdedup.hive_views import ViewTextError, set_view_text
        from tsdedup.spark_session import registered_session

        spark = registered_session()
        if spark is None:
            raise DbtRuntimeError(
                "tsdedup_set_view_text: this process has no tsdedup Spark session"
            )
        try:
            return set_view_text(spark, str(relation.schema), str(relation.identifier), sql)
        except ViewTextError as exc:
            raise DbtRuntimeError(f"tsdedup: {exc}") from None

    def _tsdedup_session(self) -> Any:
        """The Spark session this thread's connection runs its statements in."""
        handle = self.connections.get_thread_connection().handle
        return handle.handle.session()

    @available
    def tsdedup_spark_setting(self, key: str) -> str | None:
        """The session's value of a Spark setting, read without a statement: what
        `set <key>` shows when Spark's SQL configuration defines the key (set, or
        a registered default); none otherwise, where `set` would go on to look in
        the Hadoop configuration (macros/utils/spark_setting.sql does that)."""
        found = self._tsdedup_session()._jsparkSession.conf().getOption(key)
        return str(found.get()) if found.isDefined() else None

    @available
    def tsdedup_set_spark_setting(self, key: str, value: str) -> None:
        """`set <key> = <value>` without a statement: the same change, and the same
        error for a setting Spark does not let a session change."""
        from py4j.protocol import Py4JJavaError
        from pyspark.errors import PySparkException

        try:
            self._tsdedup_session().conf.set(key, value)
        except (PySparkException, Py4JJavaError) as exc:
            raise DbtRuntimeError(f"tsdedup: cannot set {key} = {value}: {exc}") from None

    @available
    def tsdedup_snapshot_summary(self, relation: BaseRelation) -> dict[str, str]:
        """The summary Iceberg wrote with the table's newest snapshot (the
        `summary` column of its `snapshots` table: `added-records`,
        `added-position-deletes`, ...), read without a dbt statement; {} for a
        table without a snapshot."""
        from pyspark.errors import PySparkException

        try:
            rows = (
                self._tsdedup_session()
                .table(f"{relation}.snapshots")
                .orderBy("committed_at", ascending=False)
                .select("summary")
                .limit(1)
                .collect()
            )
        except PySparkException as exc:
            message = f"tsdedup: cannot read the snapshots of {relation}: {exc}"
            raise DbtRuntimeError(message) from None
        if not rows:
            return {}
        return {str(key): str(value) for key, value in (rows[0]["summary"] or {}).items()}

    @available
    def tsdedup_columns(self, relation: BaseRelation) -> list[SparkColumn]:
        """The columns of a table or view, by name and type as `describe` lists
        them, read from the session's catalog without a statement; [] when the
        relation does not exist (as dbt-spark's get_columns_in_relation). Only
        names and types: the owner and statistics `describe extended` adds are
        left out (dbt's own get_columns_in_relation keeps them, for the docs)."""
        from pyspark.errors import AnalysisException

        try:
            schema = self._tsdedup_session().table(str(relation)).schema
        except AnalysisException as exc:
            if any(message in str(exc) for message in TABLE_OR_VIEW_NOT_FOUND_MESSAGES):
                return []
            message = f"tsdedup: cannot read the columns of {relation}: {exc}"
            raise DbtRuntimeError(message) from None
        return [
            SparkColumn(
                table_database=None,
                table_schema=relation.schema,
                table_name=relation.name,
                table_type=relation.type,
                table_owner=None,
                table_stats=None,
                column=field.name,
                column_index=index,
                dtype=field.dataType.simpleString(),
            )
            for index, field in enumerate(schema.fields)
        ]
