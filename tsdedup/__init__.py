"""The ``tsdedup`` command and what runs on the driver around dbt: the Spark
session, the resident engine, discovery of measurements, the run summary, the
report and the state folder. The functions Spark runs live in ``python_udfs``."""
