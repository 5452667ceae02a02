"""Where the project's Python code lives: ``python_udfs`` (what Spark's
executors run, shipped to a cluster) and ``tsdedup`` (the command line)."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

import python_udfs

# The executors' package: registered in the session, zipped for a cluster.
EXECUTOR_PACKAGE = Path(python_udfs.__file__).resolve().parent
# The command line's package (this one).
COMMAND_PACKAGE = Path(__file__).resolve().parent
# The folder both were installed from: the dbt project when run from a checkout.
INSTALL_ROOT = COMMAND_PACKAGE.parent


def python_sources() -> list[Path]:
    """Every Python file of both packages, in a stable order."""
    return sorted(
        source
        for package in (EXECUTOR_PACKAGE, COMMAND_PACKAGE)
        for source in package.rglob("*.py")
    )


# The dbt adapter `tsdedup_spark` (adapter/), as installed: dbt runs these files.
ADAPTER_MODULE = "dbt.adapters.tsdedup_spark"


def adapter_sources() -> list[Path]:
    """The installed adapter's Python files (none when it is not installed)."""
    spec = find_spec(ADAPTER_MODULE)
    if spec is None or not spec.submodule_search_locations:
        return []
    return sorted(
        source
        for folder in spec.submodule_search_locations
        for source in Path(folder).rglob("*.py")
    )


def code_sources() -> list[Path]:
    """The code a command runs: both packages and the adapter (what the engine's
    and the skipped run's fingerprints hash)."""
    return [*python_sources(), *adapter_sources()]
