"""One ``tsdedup`` command line, parsed once: the command, the dbt options it
carries and the folders they select. Every command receives this object."""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tsdedup.packages import INSTALL_ROOT
from tsdedup.profile import read_target

# tsdedup's own commands, run in the Spark session of the profile's default
# target; `sample` hands the rest of its line to `dbt build`.
OWN_COMMANDS = ("sample", "sql", "report")


@dataclass(frozen=True)
class Invocation:
    """``args``: the command line after ``tsdedup``. The rest is what it
    selects, with dbt's options, the environment and the defaults applied."""

    args: tuple[str, ...]
    project_dir: Path
    profiles_dir: Path
    # --target / -t; None: the profile's default (TSDEDUP_TARGET, else local).
    target: str | None
    # Where dbt writes its artifacts: --target-path, DBT_TARGET_PATH, else target/.
    target_path: Path
    # The state folder (metastore, warehouse, records): TSDEDUP_HOME.
    home: Path
    # The landing folder: a local path, or a URL (s3://, hdfs://...).
    landing: str

    @classmethod
    def parse(cls, argv: Sequence[str], environ: Mapping[str, str] | None = None) -> Invocation:
        """Parse ``argv`` with the environment's defaults (``os.environ`` if None)."""
        environ = os.environ if environ is None else environ
        args = tuple(argv)
        options = dbt_options(args)
        project_dir = _project_dir(options, environ)
        profiles_dir = Path(
            option(options, "--profiles-dir")
            or environ.get("DBT_PROFILES_DIR")
            or project_dir / "profiles"
        )
        target_path = Path(
            option(options, "--target-path") or environ.get("DBT_TARGET_PATH") or "target"
        )
        landing = environ.get("TSDEDUP_LANDING") or str(project_dir / "landing")
        return cls(
            args=args,
            project_dir=project_dir,
            profiles_dir=profiles_dir,
            target=option(options, "--target", "-t"),
            target_path=target_path if target_path.is_absolute() else project_dir / target_path,
            home=Path(environ.get("TSDEDUP_HOME") or project_dir / ".tsdedup").resolve(),
            landing=landing if "://" in landing else str(Path(landing).resolve()),
        )

    @property
    def command(self) -> str:
        """The first word: a dbt command or one of tsdedup's own ("" when none)."""
        return self.args[0] if self.args else ""

    def with_args(self, args: Sequence[str]) -> Invocation:
        """The same selection for another command line (``retract`` runs an operation)."""
        return replace(self, args=tuple(args))

    def export(self, environ: MutableMapping[str, str] | None = None) -> None:
        """Put the selection where dbt and the profile read it (``os.environ`` if
        None) and make a local landing folder."""
        environ = os.environ if environ is None else environ
        if "://" not in self.landing:
            Path(self.landing).mkdir(parents=True, exist_ok=True)
        environ["DBT_PROJECT_DIR"] = str(self.project_dir)
        environ["TSDEDUP_HOME"] = str(self.home)
        environ["TSDEDUP_LANDING"] = self.landing
        environ.setdefault("DBT_PROFILES_DIR", str(self.profiles_dir))
        environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")

    def profile_target(self) -> tuple[str, dict[str, Any]]:
        """The selected target's name and settings, rendered with the environment."""
        return read_target(self.profiles_dir, self.target)

    def schema(self) -> str:
        """The schema of the selected target."""
        return str(self.profile_target()[1].get("schema", "tsdedup"))


def dbt_options(args: Sequence[str]) -> Sequence[str]:
    """The part of a command line that holds dbt's options: all of a dbt
    command's; what follows `sample` and `engine start`; none of `sql`'s and
    `report`'s (their arguments are their own)."""
    if not args:
        return ()
    if args[0] == "sample":
        return args[1:]
    if args[0] == "engine":
        return args[2:]
    if args[0] in OWN_COMMANDS:
        return ()
    return args


def option(args: Sequence[str], *names: str) -> str | None:
    """The value of the first of ``names`` in ``args`` (``--name value`` or ``--name=value``)."""
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                return args[i + 1]
            if arg.startswith(name + "="):
                return arg.split("=", 1)[1]
    return None


def _project_dir(options: Sequence[str], environ: Mapping[str, str]) -> Path:
    """--project-dir, DBT_PROJECT_DIR, the current folder or one above it that
    holds a dbt_project.yml, else the folder tsdedup was installed from."""
    chosen = option(options, "--project-dir") or environ.get("DBT_PROJECT_DIR")
    if chosen:
        return Path(chosen).resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "dbt_project.yml").is_file():
            return folder
    return INSTALL_ROOT
