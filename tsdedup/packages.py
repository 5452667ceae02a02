"""Where the project's Python code lives: ``python_udfs`` (what Spark's
executors run, shipped to a cluster) and ``tsdedup`` (the command line)."""

from __future__ import annotations

from pathlib import Path

import python_udfs

# The executors' package: registered in the session, zipped for a cluster.
EXECUTOR_PACKAGE = Path(python_udfs.__file__).resolve().parent
# The command line's package (this one).
COMMAND_PACKAGE = Path(__file__).resolve().parent
# The folder both were installed from: the dbt project when run from a checkout.
INSTALL_ROOT = COMMAND_PACKAGE.parent


def python_sources() -> list[Path]:
    """Every Python file of both packages, in a stable order: what a change of
    the code is seen in (the engine's and the skipped run's fingerprints)."""
    return sorted(
        source
        for package in (EXECUTOR_PACKAGE, COMMAND_PACKAGE)
        for source in package.rglob("*.py")
    )
