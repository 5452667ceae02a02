"""The shared catalog's settings, checked before Spark starts (the catalog
itself is exercised in tests/integration/test_team_catalog.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tsdedup import shared_catalog as sc
from tsdedup.profile import read_target

ROOT = Path(__file__).resolve().parents[2]
URL = "jdbc:postgresql://db.example:5432/tsdedup"


def test_only_a_postgresql_metastore_is_a_shared_catalog() -> None:
    assert sc.SharedCatalog.of({}) is None
    derby = {sc.URL_KEY: "jdbc:derby:;databaseName=/x/metastore_db;create=true"}
    assert sc.SharedCatalog.of(derby) is None
    catalog = sc.SharedCatalog.of({sc.URL_KEY: URL, sc.USER_KEY: "team"})
    assert catalog == sc.SharedCatalog(URL, "team")


def test_the_driver_joins_the_class_path_the_session_already_has(tmp_path: Path) -> None:
    jar = tmp_path / "postgresql.jar"
    jar.write_bytes(b"")
    catalog = sc.SharedCatalog(URL, "team")
    environ = {sc.PASSWORD_ENV: "pw", sc.JDBC_JAR_ENV: str(jar)}
    conf = catalog.session_conf({"spark.driver.extraClassPath": "/a.jar"}, environ)
    assert conf["spark.driver.extraClassPath"] == f"/a.jar:{jar}"
    assert catalog.session_conf({}, environ)["spark.driver.extraClassPath"] == str(jar)
    assert "pw" not in str(conf), "the password is set in the JVM, never in the settings"


def test_a_missing_password_or_driver_is_named(tmp_path: Path) -> None:
    catalog = sc.SharedCatalog(URL, "team")
    with pytest.raises(sc.CatalogError, match=r"needs its password in TSDEDUP_CATALOG_PASSWORD"):
        catalog.session_conf({}, {sc.JDBC_JAR_ENV: __file__})
    with pytest.raises(sc.CatalogError, match=r"JDBC driver is not at .*nothing\.jar.*apt-get"):
        catalog.session_conf({}, {sc.PASSWORD_ENV: "pw", sc.JDBC_JAR_ENV: "/nothing.jar"})


def test_a_password_in_the_profile_is_refused() -> None:
    catalog = sc.SharedCatalog(URL, "team")
    conf = {f"spark.hadoop.{sc.PASSWORD_KEY}": "pw"}
    with pytest.raises(sc.CatalogError, match="belongs in no file"):
        catalog.session_conf(conf, {sc.PASSWORD_ENV: "pw", sc.JDBC_JAR_ENV: __file__})


def test_lock_wait_is_seconds_and_defaults_to_none() -> None:
    assert sc.lock_wait_seconds({}) == 0.0
    assert sc.lock_wait_seconds({sc.LOCK_WAIT_ENV: " 90 "}) == 90.0
    for bad in ("soon", "-1"):
        with pytest.raises(sc.CatalogError, match=r"TSDEDUP_LOCK_WAIT=.* is not a number"):
            sc.lock_wait_seconds({sc.LOCK_WAIT_ENV: bad})


def test_each_schema_has_its_own_builder_lock_key() -> None:
    keys = {sc.schema_key(s) for s in ("tsdedup", "team_a", "team_b", "Team_A")}
    assert len(keys) == 3, "a schema's case does not matter, its name does"
    assert all(-(2**31) <= k < 2**31 for k in keys)
    assert sc.SETUP_KEY not in keys


def test_readers_take_no_lock_and_everything_else_is_a_builder() -> None:
    for command in ("sql", "show", "test", "compile", "docs", "generate", "report"):
        assert not sc.writes(command), command
    for command in ("build", "run", "seed", "sample", "retract", "run-operation", "snapshot"):
        assert sc.writes(command), command


def test_the_team_target_names_a_postgresql_catalog_and_locked_commits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TSDEDUP_WAREHOUSE", "/shared/warehouse")
    monkeypatch.setenv("TSDEDUP_CATALOG_URL", URL)
    monkeypatch.delenv("TSDEDUP_CATALOG_USER", raising=False)
    _, target = read_target(ROOT / "profiles", "team")
    params = {k: str(v) for k, v in target["server_side_parameters"].items()}
    catalog = sc.SharedCatalog.of(params)
    assert catalog == sc.SharedCatalog(URL, "tsdedup")
    assert params["spark.hadoop.iceberg.engine.hive.lock-enabled"] == "true"
    assert params["spark.sql.warehouse.dir"] == "/shared/warehouse"
    assert not any("password" in key.lower() for key in params)
