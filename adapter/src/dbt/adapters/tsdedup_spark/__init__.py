"""The ``tsdedup_spark`` adapter: dbt-spark, whose session method runs in the
Spark session tsdedup builds (its settings and its registered functions), so
plain ``dbt`` does what ``tsdedup`` does. Everything else is dbt-spark's."""

from dbt.adapters.base import AdapterPlugin
from dbt.adapters.tsdedup_spark.connections import (
    TsdedupSparkConnectionManager,
    TsdedupSparkCredentials,
)
from dbt.adapters.tsdedup_spark.impl import TsdedupSparkAdapter
from dbt.include import tsdedup_spark

__all__ = ["Plugin", "TsdedupSparkConnectionManager"]

Plugin = AdapterPlugin(
    adapter=TsdedupSparkAdapter,  # type: ignore[arg-type]
    credentials=TsdedupSparkCredentials,
    include_path=tsdedup_spark.PACKAGE_PATH,
    dependencies=["spark"],
)
