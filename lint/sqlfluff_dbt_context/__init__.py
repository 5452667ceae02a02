"""The parts of dbt's Jinja context that sqlfluff's jinja templater lacks.

`.sqlfluff` loads this package as its `library_path`: every name defined here
becomes a Jinja global while sqlfluff renders a model (the helpers with a
leading underscore too; no template uses those names). sqlfluff itself supplies
`ref`, `source`, `config`, `is_incremental`, `this` and `return`
(`apply_dbt_builtins`) and the project's macros (`load_macros_from_path`). This
adds the rest of what the models and the macros they call use: the `tsdedup.`
macro namespace, `adapter.dispatch`, `var` with the values of dbt_project.yml,
`env_var`, `run_started_at`, `invocation_id`, `exceptions`, `log`, `modules`.

As while dbt parses a project, `execute` is false: no macro queries the
warehouse, and the macros that would (measurement_columns, read_measurement_state,
...) return what they return at parse time.
"""

from __future__ import annotations

import datetime as _datetime
import os as _os
import re as _re
import weakref as _weakref
from pathlib import Path as _Path
from types import SimpleNamespace as _SimpleNamespace

import jinja2 as _jinja2
import yaml as _yaml
from jinja2.runtime import Macro as _Macro
from sqlfluff.core.templaters.builtins.dbt import RelationEmulator as _RelationEmulator

_PROJECT_DIR = _Path(__file__).resolve().parents[2]
_MACRO_DIR = _PROJECT_DIR / "macros"
_PROJECT = _yaml.safe_load((_PROJECT_DIR / "dbt_project.yml").read_text(encoding="utf-8"))

# Per Jinja environment (sqlfluff makes one per file): the macros whose names
# start with `_`, compiled on first use.
_PRIVATE_MACROS: _weakref.WeakKeyDictionary = _weakref.WeakKeyDictionary()
_PRIVATE_MACRO_DEFINITION = _re.compile(r"\{%-?\s*macro\s+_")


class CompilationError(_jinja2.TemplateError):
    """What dbt's exceptions.raise_compiler_error raises, and an unknown macro;
    sqlfluff reports it as a templating error (TMP) of the file being linted."""


def _private_macros(context) -> dict:
    """Macros whose names start with `_`. Jinja does not export such names from
    a template, so load_macros_from_path never sees them; they are compiled
    here, with the globals of the macros sqlfluff loaded."""
    environment = context.environment
    macros = _PRIVATE_MACROS.get(environment)
    if macros is None:
        macros = {}
        for path in sorted(_MACRO_DIR.rglob("*.sql")):
            source = path.read_text(encoding="utf-8")
            if not _PRIVATE_MACRO_DEFINITION.search(source):
                continue
            template = environment.from_string(source, globals=dict(context.parent))
            module_context = template.new_context()
            for _ in template.root_render_func(module_context):
                pass
            for name, value in module_context.vars.items():
                if isinstance(value, _Macro) and name.startswith("_"):
                    macros[name] = value
        _PRIVATE_MACROS[environment] = macros
    return macros


def _find_macro(context, name: str):
    macro = context.parent.get(name)
    if macro is None:
        macro = _private_macros(context).get(name)
    if macro is None:
        raise CompilationError(f"no macro named {name!r} in {_MACRO_DIR.name}/")
    return macro


def _macro_caller(name: str):
    @_jinja2.pass_context
    def call(context, *args, **kwargs):
        return context.environment.call(context, _find_macro(context, name), *args, **kwargs)

    return call


class _MacroNamespace:
    """`tsdedup.<macro>`: the project's macros by name. Jinja's sandbox looks up
    an attribute that an object lacks with `[]`, so private macros
    (`tsdedup._descending`) work too, as in dbt."""

    def __getitem__(self, name: str):
        return _macro_caller(name)


class _Adapter:
    """dbt's `adapter` of the spark adapter, before anything is built."""

    def dispatch(self, macro_name: str, macro_namespace: str | None = None):
        @_jinja2.pass_context
        def call(context, *args, **kwargs):
            for prefix in ("spark__", "default__"):
                macro = context.parent.get(prefix + macro_name)
                if macro is None:
                    macro = _private_macros(context).get(prefix + macro_name)
                if macro is not None:
                    return context.environment.call(context, macro, *args, **kwargs)
            raise CompilationError(f"no spark__ or default__ implementation of {macro_name!r}")

        return call

    def get_columns_in_relation(self, relation) -> list:
        return []

    def get_relation(self, database=None, schema=None, identifier=None):
        return None


def _raise_compiler_error(message: str) -> None:
    raise CompilationError(message)


tsdedup = _MacroNamespace()
adapter = _Adapter()
execute = False
project_name = _PROJECT["name"]
run_started_at = _datetime.datetime(2026, 1, 1, tzinfo=_datetime.UTC)
invocation_id = "00000000-0000-0000-0000-000000000000"
target = _SimpleNamespace(
    name="local", type="tsdedup_spark", schema="tsdedup", database=None, threads=1
)
model = _SimpleNamespace(name="this_model", compiled_code="", config={})
graph = {"nodes": {}, "sources": {}}
modules = _SimpleNamespace(datetime=_datetime, re=_re)
exceptions = _SimpleNamespace(raise_compiler_error=_raise_compiler_error)
api = _SimpleNamespace(Relation=_SimpleNamespace(create=lambda **kwargs: _RelationEmulator()))


def var(name: str, default=None):
    """The project's value of a var (dbt_project.yml), else the default."""
    return (_PROJECT.get("vars") or {}).get(name, default)


def env_var(name: str, default: str | None = None) -> str:
    return _os.environ.get(name, "" if default is None else default)


def log(message, info: bool = False) -> str:
    return ""


def should_full_refresh() -> bool:
    return False
