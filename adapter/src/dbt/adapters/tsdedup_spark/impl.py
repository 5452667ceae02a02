"""dbt-spark's adapter with the ``tsdedup_spark`` connections."""

from __future__ import annotations

from importlib import import_module

from dbt.adapters.base.impl import AdapterTrackingRelationInfo, available
from dbt.adapters.base.relation import BaseRelation
from dbt.adapters.contracts.relation import RelationConfig
from dbt.adapters.spark.impl import SparkAdapter
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
