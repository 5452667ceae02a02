"""A copy of the dbt project's own files in another folder.

The benchmark and the end-to-end tests each run the project in a private
folder with its own state; they copy exactly the files a dbt run reads.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

# What `dbt build` reads from the project (the state and landing folders are not copied).
DBT_PROJECT_PARTS = ("dbt_project.yml", "models", "macros", "profiles", "seeds", "tests/singular")


def copy_dbt_project(source: Path, target: Path, parts: Iterable[str] = DBT_PROJECT_PARTS) -> None:
    """Copy the given files and folders of the project at ``source`` into ``target``.

    A part the project does not have is skipped; ``__pycache__`` folders and the
    generated models of discovered measurements (``discovered``) are not copied.
    """
    target.mkdir(parents=True, exist_ok=True)
    for part in parts:
        source_part, target_part = source / part, target / part
        if source_part.is_dir():
            shutil.copytree(
                source_part, target_part, ignore=shutil.ignore_patterns("__pycache__", "discovered")
            )
        elif source_part.exists():
            target_part.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source_part, target_part)
