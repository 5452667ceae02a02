"""dbt-spark's adapter with the ``tsdedup_spark`` connections."""

from __future__ import annotations

from importlib import import_module

from dbt.adapters.base.impl import AdapterTrackingRelationInfo
from dbt.adapters.contracts.relation import RelationConfig
from dbt.adapters.spark.impl import SparkAdapter
from dbt.adapters.tsdedup_spark.__version__ import version
from dbt.adapters.tsdedup_spark.connections import TYPE, TsdedupSparkConnectionManager


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
