"""dbt-spark's connections, opened in tsdedup's Spark session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dbt.adapters.contracts.connection import Connection, ConnectionState
from dbt.adapters.spark.connections import (
    SparkConnectionManager,
    SparkConnectionMethod,
    SparkCredentials,
)
from dbt_common.exceptions import DbtRuntimeError

TYPE = "tsdedup_spark"


@dataclass
class TsdedupSparkCredentials(SparkCredentials):
    """dbt-spark's settings; only ``method: session`` runs tsdedup's session."""

    @property
    def type(self) -> str:
        return TYPE


def project_root_of(profile: Any) -> str | None:
    """The dbt project's folder: the configuration's, else (`dbt debug` passes a
    bare profile) the command's --project-dir."""
    root = getattr(profile, "project_root", None)
    if root:
        return str(root)
    from dbt.flags import get_flags

    chosen = getattr(get_flags(), "PROJECT_DIR", None)
    return str(chosen) if chosen else None


class TsdedupSparkConnectionManager(SparkConnectionManager):
    TYPE = TYPE
    # The dbt project's folder, from the adapter's configuration.
    project_root: str | None = None

    def __init__(self, profile: Any, mp_context: Any) -> None:
        super().__init__(profile, mp_context)
        TsdedupSparkConnectionManager.project_root = project_root_of(profile)

    @classmethod
    def open(cls, connection: Connection) -> Connection:
        if connection.state == ConnectionState.OPEN:
            return super().open(connection)
        credentials = connection.credentials
        if credentials.method != SparkConnectionMethod.SESSION:
            raise DbtRuntimeError(
                f"type {TYPE} runs dbt in tsdedup's Spark session: use `method: session` "
                f"(the profile says `method: {credentials.method}`)"
            )
        try:
            from tsdedup.plain_dbt import SessionError, ensure_session
        except ImportError as exc:
            raise DbtRuntimeError(
                f"type {TYPE} needs the tsdedup package in this Python ({exc}); "
                "run `make setup` in the project, then use its .venv"
            ) from exc
        try:
            ensure_session(cls.project_root, credentials.server_side_parameters, credentials.schema)
        except SessionError as exc:
            raise DbtRuntimeError(f"tsdedup: {exc}") from None
        # dbt-spark's session connection, asking for the session once (session.py).
        from dbt.adapters.spark.session import SessionConnectionWrapper
        from dbt.adapters.tsdedup_spark.session import SessionConnection

        connection.handle = SessionConnectionWrapper(
            SessionConnection(server_side_parameters=credentials.server_side_parameters)
        )
        connection.state = ConnectionState.OPEN
        return connection

    def cleanup_all(self) -> None:
        """dbt's command is done with its connections: release the shared
        catalog's builder lock it held (tsdedup/plain_dbt.py)."""
        super().cleanup_all()
        try:
            from tsdedup.plain_dbt import release_builder_lock
        except ImportError:  # open() said why
            return
        release_builder_lock()
