"""Read the selected target of the project's dbt profile, rendered like dbt does
(``env_var`` is the only function profiles use here)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import jinja2
import yaml

PROFILE_NAME = "tsdedup"


class ProfileError(RuntimeError):
    """The profile or the requested target cannot be used."""


def _env_var(name: str, default: str | None = None) -> str:
    if name in os.environ:
        return os.environ[name]
    if default is None:
        raise ProfileError(f"the profile needs environment variable {name}, which is not set")
    return default


def _render(value: Any) -> Any:
    if isinstance(value, str) and "{{" in value:
        return (
            jinja2.Environment(undefined=jinja2.StrictUndefined)
            .from_string(value)
            .render(env_var=_env_var)
        )
    if isinstance(value, dict):
        return {key: _render(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_render(item) for item in value]
    return value


def read_target(profiles_dir: Path, target: str | None) -> tuple[str, dict[str, Any]]:
    """Return (target name, rendered target settings)."""
    path = profiles_dir / "profiles.yml"
    if not path.is_file():
        raise ProfileError(f"no profiles.yml in {profiles_dir}")
    document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    profile = document.get(PROFILE_NAME)
    if not isinstance(profile, dict):
        raise ProfileError(f"{path} has no '{PROFILE_NAME}' profile")
    name = target or _render(profile.get("target", "local"))
    outputs = profile.get("outputs", {})
    if name not in outputs:
        choices = ", ".join(sorted(outputs))
        raise ProfileError(f"target '{name}' is not in {path}; choose one of: {choices}")
    return name, _render(outputs[name])


def spark_parameters(settings: dict[str, Any]) -> dict[str, str]:
    """The target's Spark settings as strings."""
    params = settings.get("server_side_parameters") or {}
    return {str(key): str(value) for key, value in params.items()}
