"""``helpers.require_package``: a missing optional package is skipped locally, naming its
extra; under ``CI=true`` it fails, unless ``CLAUDE_SYNC_TEST_EXTRAS`` names the extras this
run installed and none of them has it (the README's ``.[test]``-only run)."""

from __future__ import annotations

import configparser
from pathlib import Path

import helpers
import pytest
from helpers import EXTRAS_ENV, extras_of, require_package

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def nothing_installed(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setattr(helpers, "is_installed", lambda name: False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(helpers, "RUN_EXTRAS", "")
    return monkeypatch


def outcome(name: str) -> str:
    try:
        require_package(name, import_it=False)
    except pytest.skip.Exception as skipped:
        return f"skip: {skipped.msg}"
    except pytest.fail.Exception as failed:
        return f"fail: {failed.msg}"
    return "ran"


def test_locally_a_missing_package_is_skipped_naming_its_extra(nothing_installed: pytest.MonkeyPatch) -> None:
    assert outcome("pydantic") == (
        "skip: the optional package 'pydantic' is not installed (extra test-integrations): "
        "pip install -e '.[test,test-integrations]'"
    )
    assert outcome("psycopg").startswith("skip: the optional package 'psycopg' is not installed "
                                         "(extra postgres or test-integrations): pip install -e '.[test,postgres]'")  # fmt: skip


def test_under_ci_every_extra_is_expected_unless_the_run_names_its_extras(nothing_installed: pytest.MonkeyPatch) -> None:
    nothing_installed.setenv("CI", "true")
    assert outcome("pydantic").startswith("fail: ") and f"{EXTRAS_ENV} unset: every extra" in outcome("pydantic")
    nothing_installed.setattr(helpers, "RUN_EXTRAS", "test")
    assert outcome("pydantic").startswith("skip: ")
    assert outcome("sphinx").startswith("skip: ")
    nothing_installed.setattr(helpers, "RUN_EXTRAS", "test, postgres")
    assert outcome("psycopg").startswith("fail: ") and f"{EXTRAS_ENV}=postgres,test" in outcome("psycopg")
    assert outcome("pydantic").startswith("skip: ")
    nothing_installed.setattr(helpers, "RUN_EXTRAS", "test,test-integrations,docs")
    assert [outcome(name)[:5] for name in ("pydantic", "psycopg", "sphinx", "distributed")] == ["fail:"] * 4


def test_a_package_no_extra_installs_is_the_tests_own_bug(nothing_installed: pytest.MonkeyPatch) -> None:
    assert outcome("no_such_package_anywhere") == "fail: no extra of setup.cfg installs 'no_such_package_anywhere'"


def test_every_package_of_the_integration_extra_maps_back_to_it() -> None:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    modules = {"gevent", "distributed", "mcp", "flask", "pydantic", "markdown_it", "IPython", "ipykernel",
               "nbclient", "nbformat", "mypy", "psycopg", "psycopg_pool", "kombu", "celery", "redis", "websocket"}  # fmt: skip
    assert all("test-integrations" in extras_of(name) for name in modules), {name: extras_of(name) for name in modules}
    assert extras_of("sphinx") == ("docs",) and extras_of("distributed") == ("dask", "test-integrations")
    assert extras_of("opentelemetry.sdk.trace") == ("test-integrations",) and extras_of("opentelemetry") == ("otel",)
    listed = [line.split(">")[0].split("[")[0].strip() for line in
              config.get("options.extras_require", "test-integrations").splitlines() if line.strip()]  # fmt: skip
    reachable = {helpers._normalized(helpers.distribution_of(module)) for module in modules}
    reachable |= {"opentelemetry-sdk", "opentelemetry-proto"}  # require_distribution: never imported
    assert {helpers._normalized(name) for name in listed} <= reachable  # a new package: add its module above


def test_a_distribution_is_checked_without_importing_it(nothing_installed: pytest.MonkeyPatch) -> None:
    nothing_installed.setenv("CI", "true")
    nothing_installed.setattr(helpers, "RUN_EXTRAS", "test")
    with pytest.raises(pytest.skip.Exception, match="'no-such-dist-x' is not installed .extra otel."):
        helpers.extras_table.cache_clear()
        nothing_installed.setattr(helpers, "extras_table", lambda: {"no-such-dist-x": ("otel",)})
        helpers.require_distribution("no-such-dist-x")
    nothing_installed.setattr(helpers, "RUN_EXTRAS", "test,otel")
    with pytest.raises(pytest.fail.Exception):
        helpers.require_distribution("no-such-dist-x")
    helpers.require_distribution("pytest")  # installed: nothing raised


def test_an_installed_package_runs_whatever_the_extras_say(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.setattr(helpers, "RUN_EXTRAS", "test")
    assert outcome("pytest") == "ran"


def test_the_extras_are_those_the_run_started_with(monkeypatch: pytest.MonkeyPatch) -> None:
    """The e2e fixtures scrub ``CLAUDE_*`` variables before a test body asks for a package:
    the extras named when the run started still hold (the .[test]-only run failed the mcp
    e2e test instead of skipping it)."""
    monkeypatch.setattr(helpers, "is_installed", lambda name: False)
    monkeypatch.setenv("CI", "true")
    monkeypatch.setattr(helpers, "RUN_EXTRAS", "test")
    monkeypatch.delenv(EXTRAS_ENV, raising=False)
    assert outcome("mcp").startswith("skip: ")
