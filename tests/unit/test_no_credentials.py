"""No credentials in the repository: cluster addresses and secrets come from
environment variables only (see the README, "Running on a Spark cluster")."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_DIRS = {".git", ".venv", "target", "logs", ".tsdedup", "landing", "__pycache__"}
SKIPPED_SUFFIXES = {".parquet", ".gz", ".jar", ".png", ".pyc"}

# Patterns are assembled from pieces so that this file does not match itself.
PATTERNS = {
    "AWS access key id": re.compile("AKIA" + r"[0-9A-Z]{16}"),
    "private key": re.compile("-----BEGIN " + r"[A-Z ]*PRIVATE KEY-----"),
    "GitHub token": re.compile("gh" + r"[pousr]_[A-Za-z0-9]{36}"),
    "Slack token": re.compile("xox" + r"[abprs]-[A-Za-z0-9-]{10,}"),
    "credentials in a URL": re.compile(r"[a-z][a-z0-9+.-]*://[^/\s:@'\"]+:[^/\s:@'\"]+@"),
    "assigned secret": re.compile(
        r"(?i)\b(pass" + r"word|secret|api[_-]?key|access[_-]?key|token)\b['\"]?\s*[:=]\s*"
        r"['\"]?(?!\{\{|\$\{|\$[A-Z_]|os\.environ|<|None\b|null\b|$)[^\s'\",()]{6,}"
        r"(?=['\"\s,)]|$)"
    ),
}
SECRET_SETTING = re.compile(r"(?i)(pass" + r"word|secret|token|key|credential|user)")


def tracked_files() -> list[Path]:
    """The repository's files (git's list when there is one, else a walk)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout.decode("utf-8", "surrogateescape")
        files = [ROOT / name for name in listed.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        files = [p for p in ROOT.rglob("*") if not SKIPPED_DIRS & set(p.relative_to(ROOT).parts)]
    return [p for p in files if p.is_file() and p.suffix not in SKIPPED_SUFFIXES]


def test_no_file_holds_a_credential() -> None:
    found = []
    files = tracked_files()
    assert len(files) > 50, "the repository's files were not found"
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for what, pattern in PATTERNS.items():
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(ROOT)}:{line}: {what}: {match.group()[:40]}")
    assert not found, "\n".join(found)


def test_the_patterns_catch_what_they_are_for() -> None:
    samples = {
        "AWS access key id": "aws_key = " + "AKIA" + "ABCDEFGHIJKLMNOP",
        "private key": "-----BEGIN " + "RSA PRIVATE KEY-----",
        "credentials in a URL": "spark://" + "admin:hunter22@10.0.0.5:7077",
        "assigned secret": "pass" + "word: hunter22x",
    }
    for what, sample in samples.items():
        assert PATTERNS[what].search(sample), what
    for harmless in (
        "pass" + "word: \"{{ env_var('TSDEDUP_PASSWORD') }}\"",
        "token = os.environ['TOKEN']",
        "secret: ${SPARK_SECRET}",
    ):
        assert not PATTERNS["assigned secret"].search(harmless), harmless


def test_profile_settings_that_look_secret_come_from_the_environment() -> None:
    document = yaml.safe_load((ROOT / "profiles" / "profiles.yml").read_text(encoding="utf-8"))
    outputs = document["tsdedup"]["outputs"]
    assert set(outputs) >= {"local", "cluster"}
    cluster = outputs["cluster"]["server_side_parameters"]
    assert "env_var('TSDEDUP_SPARK_MASTER'" in cluster["spark.master"]

    def walk(value: object, path: str) -> list[str]:
        if isinstance(value, dict):
            return [bad for k, v in value.items() for bad in walk(v, f"{path}.{k}")]
        if SECRET_SETTING.search(path.rsplit(".", 1)[-1]) and "env_var(" not in str(value):
            return [f"{path} = {value!r}"]
        return []

    assert walk(outputs, "outputs") == []
