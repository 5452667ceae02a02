"""The Python code split by where it runs: ``python_udfs`` (executors) and
``tsdedup`` (the command line), without import cycles or hidden imports."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from tsdedup import spark_session
from tsdedup.packages import EXECUTOR_PACKAGE, python_sources

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("python_udfs", "tsdedup")


def module_name(path: Path) -> str:
    return f"{path.parent.name}.{path.stem}"


def imports(path: Path) -> Iterator[tuple[str, bool]]:
    """The project modules ``path`` imports, each with whether the import sits
    inside a function (``from tsdedup import cli`` names ``tsdedup.cli``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nested = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
    }
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        for name in names:
            module = (ROOT / name.replace(".", "/")).with_suffix(".py")
            if name.split(".")[0] in PACKAGES and name.count(".") == 1 and module.is_file():
                yield name, id(node) in nested


def graph() -> dict[str, set[str]]:
    return {
        module_name(path): {name for name, _ in imports(path)} - {module_name(path)}
        for path in python_sources()
    }


def test_the_executors_package_imports_nothing_of_the_command_lines() -> None:
    wrong = {
        module_name(path): name
        for path in EXECUTOR_PACKAGE.glob("*.py")
        for name, _ in imports(path)
        if name.startswith("tsdedup.")
    }
    assert wrong == {}


def test_the_modules_import_each_other_without_a_cycle() -> None:
    edges = graph()
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        if module in path:
            cycle = " -> ".join((*path[path.index(module) :], module))
            pytest.fail(f"import cycle: {cycle}")
        if module in done:
            return
        for imported in sorted(edges.get(module, ())):
            visit(imported, (*path, module))
        done.add(module)

    for module in sorted(edges):
        visit(module, ())
    assert "tsdedup.cli" in done and "python_udfs.udtf" in done


# Imported inside a function on purpose: Spark registers the UDFs once the JVM
# is up, while a thread has been loading them (tsdedup/spark_session.py).
LATE_IMPORTS = {
    ("tsdedup.spark_session", "python_udfs.sort_key"),
    ("tsdedup.spark_session", "python_udfs.udtf"),
}


def test_project_modules_are_imported_at_the_top_of_a_module() -> None:
    hidden = sorted(
        (module_name(path), name)
        for path in python_sources()
        for name, nested in imports(path)
        if nested and (module_name(path), name) not in LATE_IMPORTS
    )
    assert hidden == []


def references(tree: ast.AST) -> set[str]:
    """The names code refers to: variables, attributes and imported names
    (never a word in a docstring or a comment)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            names.update(alias.name for alias in node.names)
    return names


# Used by tests alone, on purpose: the grammar's one-line entry and its inverse,
# which the conformance corpus and the round-trip properties hold the parser to.
GRAMMAR_API = {"python_udfs.line_protocol.parse_line", "python_udfs.line_protocol.format_line"}


def test_every_definition_of_the_packages_is_used_by_the_project() -> None:
    """A function or class only tests or benchmarks use lives with them."""
    code = [*python_sources(), *ROOT.glob("adapter/src/**/*.py")]
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in code}
    used = set().union(*(references(tree) for tree in trees.values()))
    # Entry points and `python -m` name modules and functions in text.
    entry_points = (ROOT / "pyproject.toml").read_text() + (ROOT / "Makefile").read_text()
    used |= set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", entry_points))
    unused = [
        f"{module_name(path)}.{node.name}"
        for path in python_sources()
        for node in trees[path].body
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name not in used
    ]
    assert sorted(set(unused) - GRAMMAR_API) == []


def test_a_cluster_gets_the_executors_package_alone_and_it_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    added: list[str] = []
    session = SimpleNamespace(sparkContext=SimpleNamespace(addPyFile=added.append))
    archive = spark_session.ship_udfs(session, tmp_path)
    assert archive.parent == tmp_path
    assert added == [str(archive)]
    with zipfile.ZipFile(archive) as opened:
        shipped = sorted(opened.namelist())
    assert shipped == sorted(f"python_udfs/{p.name}" for p in EXECUTOR_PACKAGE.glob("*.py"))
    modules = [f"python_udfs.{p.stem}" for p in EXECUTOR_PACKAGE.glob("*.py")]
    # An executor's Python: the archive first on the path, tsdedup absent.
    script = (
        "import importlib, sys\n"
        f"sys.path.insert(0, {str(archive)!r})\n"
        "sys.modules['tsdedup'] = None\n"
        f"for name in {modules!r}:\n"
        "    module = importlib.import_module(name)\n"
        f"    assert module.__file__.startswith({str(archive)!r}), module.__file__\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
