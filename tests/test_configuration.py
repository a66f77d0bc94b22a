"""Configuration through resources: environment variables bound to resource fields are read when a
run initializes the resource, never when the code location is imported; an unset variable means the
field's declared default; docs/configuration.md lists every bound variable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from mgqa_dagster import cli, definitions
from mgqa_dagster.assets import questions
from mgqa_dagster.resources.env import EnvConfigurableResource, bound_variable
from mgqa_dagster.resources.llm import PostEditEnsembleResource
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.sources import ConversionResource
from mgqa_dagster.resources.translator import TranslatorResource
from mgqa_dagster.resources.warehouse import WarehouseResource
from mgqa_platform.settings import REPO_ROOT

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_HOME = REPO_ROOT / ".mgqa"


@pytest.fixture
def clean_env(monkeypatch):
    """No MGQA_* variable set."""
    for name in [n for n in os.environ if n.startswith("MGQA_")]:
        monkeypatch.delenv(name)
    return monkeypatch


def _bound_fields() -> dict[str, tuple[str, str]]:
    """variable -> (resource class, field) over every resource of the code location."""
    out = {}
    for resource in definitions.build_resources().values():
        cls = type(resource)
        for field in cls.model_fields:
            variable = bound_variable(cls, field)
            if variable:
                out[variable] = (cls.__name__, field)
    return out


def test_the_code_location_loads_without_reading_the_environment(tmp_path):
    """Values that cannot be parsed do not stop the import: they are read when a run starts, and
    then they fail it with the field's name."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MGQA_")}
    env |= {"MGQA_PARSE_WORKERS": "many", "MGQA_ENSEMBLE_ENDPOINTS": "not json"}
    env["DAGSTER_HOME"] = str(tmp_path)
    code = (
        "from mgqa_dagster import definitions as d\n"
        "assert d.defs.resolve_asset_graph().get_all_asset_keys()\n"
        "for key in ('conversion', 'ensemble'):\n"
        "    try:\n"
        "        d.build_resources()[key].resolved()\n"
        "    except ValueError as e:\n"
        "        print(key, 'rejected:', str(e).splitlines()[1])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "conversion rejected: parse_workers" in proc.stdout
    assert "ensemble rejected: endpoints" in proc.stdout


def test_unset_variables_mean_the_declared_defaults(clean_env):
    resources = {k: r.resolved() for k, r in definitions.build_resources().items()}
    paths = resources["paths"]
    assert paths.home_path == DEFAULT_HOME
    assert paths.warehouse_path == DEFAULT_HOME / "warehouse.duckdb"
    assert paths.release_path == DEFAULT_HOME / "release"
    assert resources["warehouse"].database == str(DEFAULT_HOME / "warehouse.duckdb")
    assert resources["ensemble"].endpoints == [] and resources["ensemble"].concurrency == 4
    assert resources["translator"].mode == "memory" and resources["translator"].location == "global"
    assert resources["conversion"].parse_workers == 0
    assert resources["conversion"].entity_count_ranges() is None
    assert resources["kwg"].mode == "bundled"
    assert resources["inputs"].osm_watch_dir.endswith("data/sample/osm")


def test_a_variable_set_after_import_is_what_a_run_uses(clean_env, tmp_path):
    """The resources are built (and the code location imported) before the variables are set; the
    run reads them when it initializes its resources: the templates land under the new home."""
    resources = definitions.build_resources()
    home = tmp_path / "home"
    endpoints = '[{"name": "q", "base_url": "http://127.0.0.1:9/v1", "model": "m"}]'
    clean_env.setenv("MGQA_HOME", str(home))
    clean_env.setenv("MGQA_RELEASE_DIR", str(tmp_path / "rel"))
    clean_env.setenv("MGQA_ENSEMBLE_ENDPOINTS", endpoints)
    clean_env.setenv("MGQA_ENSEMBLE_WITH_RULES", "yes")
    clean_env.setenv("MGQA_ENSEMBLE_CONCURRENCY", "8")
    clean_env.setenv("MGQA_TRANSLATOR", "google")
    seen = {}

    @dg.asset
    def probe(
        paths: PathsResource,
        warehouse: WarehouseResource,
        ensemble: PostEditEnsembleResource,
        translator: TranslatorResource,
        conversion: ConversionResource,
    ) -> None:
        seen.update(
            home=paths.home_path,
            release=paths.release_path,
            database=warehouse.database,
            ensemble_home=ensemble.paths.home_path,
            endpoints=[e.name for e in ensemble.endpoints],
            with_rules=ensemble.with_rules,
            concurrency=ensemble.concurrency,
            mode=translator.mode,
            workers=conversion.parse_workers,
        )

    assert dg.materialize([probe], resources=resources).success
    assert seen == {
        "home": home,
        "release": tmp_path / "rel",
        "database": str(home / "warehouse.duckdb"),
        "ensemble_home": home,
        "endpoints": ["q"],
        "with_rules": True,
        "concurrency": 8,
        "mode": "google",
        "workers": 0,
    }
    templates = [questions.TEMPLATES]
    r = dg.materialize(definitions.ALL_ASSETS, selection=templates, resources=resources)
    assert r.success and (home / "warehouse.duckdb").is_file()
    assert resources["paths"].home == str(DEFAULT_HOME)  # the definitions' resources are unchanged


def test_a_value_given_in_code_or_run_config_wins_over_the_variable(clean_env, tmp_path):
    clean_env.setenv("MGQA_HOME", str(tmp_path / "from-env"))
    clean_env.setenv("MGQA_GOOGLE_LOCATION", "")  # empty: the declared default
    in_code = PathsResource(home=str(tmp_path / "in-code"))
    assert in_code.resolved().home_path == tmp_path / "in-code"
    assert TranslatorResource().resolved().location == "global"
    seen = {}

    @dg.asset
    def probe(paths: PathsResource) -> None:
        seen["home"] = paths.home_path

    resources = {"paths": PathsResource()}
    run_config = {"resources": {"paths": {"config": {"home": str(tmp_path / "launchpad")}}}}
    assert dg.materialize([probe], resources=resources, run_config=run_config).success
    assert seen["home"] == tmp_path / "launchpad"
    assert dg.materialize([probe], resources=resources).success
    assert seen["home"] == tmp_path / "from-env"


def test_every_resource_field_bound_to_a_variable_is_documented():
    resources = definitions.build_resources().values()
    assert all(isinstance(r, EnvConfigurableResource) for r in resources)
    bound = _bound_fields()
    assert len(bound) == 39
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    rows = [line for line in doc.splitlines() if line.startswith("| `MGQA_")]
    for variable, (cls, field) in bound.items():
        row = next((r for r in rows if r.startswith(f"| `{variable}`")), None)
        assert row is not None, f"{variable} is not in docs/configuration.md"
        assert f"`{cls}.{field}`" in row, f"docs/configuration.md: {variable} names {cls}.{field}"


def test_the_cli_finds_the_warehouse_through_the_same_resolution(clean_env, tmp_path, capsys):
    clean_env.setenv("MGQA_HOME", str(tmp_path))
    assert cli.main(["summary"]) == 2
    assert f"no warehouse at {tmp_path / 'warehouse.duckdb'}" in capsys.readouterr().err
    clean_env.setenv("MGQA_WAREHOUSE", str(tmp_path / "elsewhere.duckdb"))
    assert cli.main(["evaluate"]) == 2
    assert f"no warehouse at {tmp_path / 'elsewhere.duckdb'}" in capsys.readouterr().err


def test_expected_entity_counts_reach_the_count_check(tmp_path):
    """MGQA_EXPECTED_ENTITY_COUNTS (ConversionResource.expected_entity_counts) replaces the sample's
    ranges in the entity_count_in_range check: an empty KG passes [0, 0] and fails the sample's."""
    from mgqa_dagster.data_quality import entities
    from mgqa_platform import warehouse

    conversion = ConversionResource(expected_entity_counts='{"kwg": [0, 0]}')
    assert conversion.entity_count_ranges() == {"kwg": (0, 0)}
    with warehouse.session(tmp_path / "wh.duckdb") as con:
        warehouse.ensure_schema(con)
        for checks, passed in (
            (entities.entity_checks(None), False),
            (entities.entity_checks(conversion.entity_count_ranges()), True),
        ):
            (count,) = [c for c in checks if c.name == "entity_count_in_range"]
            assert count.run(con, "kwg").passed is passed
