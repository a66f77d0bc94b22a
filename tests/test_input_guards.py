"""Input guards (issue 21, item 2): countries not in degrees refused, degenerate country polygons
and missing World Bank rows reported with counts, the minimum shares of entities with a country and
with a stratum as blocking checks, entity geometry inside lon/lat degrees."""

from __future__ import annotations

import json
from pathlib import Path

import h3
import pytest

from mgqa_dagster.data_quality import input_guards as guards
from mgqa_dagster.data_quality.checks import bound
from mgqa_platform import input_guards
from mgqa_platform.strata import countries, income, strata
from tests.test_strata import POINTS, _entities

WB_CSV = Path("data/sample/worldbank/wb_income_fy2026.csv")


def _square(x: float, y: float, d: float) -> list:
    return [[[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]]]


def _geojson(path: Path, features: list[tuple[str, list]]) -> Path:
    doc = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "properties": {
                    "ISO_A3": iso3,
                    "ISO_A3_EH": iso3,
                    "ADM0_A3": iso3,
                    "NAME": iso3,
                    "NAME_LONG": iso3,
                    "CONTINENT": "Europe",
                },
                "geometry": {"type": "Polygon", "coordinates": rings},
            }
            for iso3, rings in features
        ],
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_countries_in_web_mercator_metres_declared_crs84_are_refused(tmp_path):
    path = _geojson(
        tmp_path / "countries_3857.geojson",
        [
            ("FIN", _square(2_700_000.0, 8_400_000.0, 200_000.0)),
            ("AND", _square(160_000, 5e6, 1e4)),
        ],
    )
    with pytest.raises(input_guards.NotDegreesError) as e:
        countries.load_countries(path)
    msg = str(e.value)
    assert "countries_3857.geojson" in msg and "look like metres" in msg and "EPSG:4326" in msg
    degrees = _geojson(tmp_path / "ok.geojson", [("FIN", _square(20.0, 60.0, 5.0))])
    assert list(countries.load_countries(degrees)["iso3"]) == ["FIN"]


def _check(con, checks, partition=None, **kwargs):
    (check,) = bound(checks, **kwargs) if kwargs else checks
    return check.run(con, partition)


def test_a_degenerate_country_polygon_is_reported_not_dropped_silently(con, tmp_path):
    path = _geojson(
        tmp_path / "c.geojson",
        [
            ("FIN", _square(20.0, 60.0, 5.0)),
            ("AND", [[[1.4, 42.4], [1.5, 42.5], [1.6, 42.6], [1.4, 42.4]]]),  # no area
        ],
    )
    gdf = countries.load_countries(path)
    assert list(gdf["iso3"]) == ["FIN"] and gdf.attrs["degenerate_features"] == ["AND"]
    countries.write_countries(con, gdf, income.load_income(WB_CSV))
    failed = _check(
        con, guards.COUNTRY_GUARDS, degenerate_features=gdf.attrs["degenerate_features"]
    )
    assert not failed.passed and failed.metadata["degenerate_features"].value == 1
    assert "1 degenerate features left out (AND)" in failed.description
    assert _check(con, guards.COUNTRY_GUARDS, degenerate_features=[]).passed


def _world(con, income_csv: Path) -> None:
    """The six points of tests/test_strata.py with real countries and every cell dense enough."""
    _entities(con)
    countries.write_countries(con, countries.load_countries(), income.load_income(income_csv))
    countries.assign_countries(con, 25.0, kg="t")
    for _, lon, lat in POINTS:
        con.execute(
            "INSERT OR REPLACE INTO density_cells VALUES (?, 100, 1, 1.0, 100, 'medium')",
            [h3.latlng_to_cell(lat, lon, 3)],
        )
    strata.assign_density(con, "t")
    strata.assign_strata(con, "t")


def test_missing_world_bank_rows_fail_the_stratum_share_with_counts(con, tmp_path):
    lines = WB_CSV.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = tmp_path / "wb_income_fy2026.csv"  # Finland, Brazil and Djibouti are missing
    cut.write_text(
        "".join(ln for ln in lines if not ln.startswith(("FIN,", "BRA,", "DJI,"))),
        encoding="utf-8",
    )
    _world(con, cut)
    r = _check(con, guards.STRATUM_SHARE_GUARDS, "t")
    assert not r.passed
    assert r.metadata["with_stratum"].value == 2 and r.metadata["entities"].value == 6
    assert r.metadata["without_stratum_by_reason"].value["not a World Bank economy"] == 3
    polygons = _check(con, guards.COUNTRY_GUARDS)
    assert polygons.metadata["countries_without_world_bank_row"].value >= 3
    assert {"FIN", "BRA", "DJI"} <= set(polygons.metadata["iso3_without_world_bank_row"].value)


def test_share_minimums_are_configurable(con):
    _world(con, WB_CSV)
    country = _check(con, guards.COUNTRY_SHARE_GUARDS, "t")  # 5 of 6: the Atlantic point
    assert country.passed and country.metadata["share"].value == round(5 / 6, 4)
    assert not _check(con, guards.COUNTRY_SHARE_GUARDS, "t", minimum=0.9).passed
    assert _check(con, guards.STRATUM_SHARE_GUARDS, "t").passed
    assert not _check(con, guards.STRATUM_SHARE_GUARDS, "nothing").passed  # no entities: no pass


def test_every_entity_unassigned_fails_the_country_share(con, tmp_path):
    _entities(con)
    far = _geojson(tmp_path / "far.geojson", [("ATA", _square(0.0, -85.0, 5.0))])
    countries.write_countries(con, countries.load_countries(far), income.load_income(WB_CSV))
    countries.assign_countries(con, 25.0, kg="t")
    r = _check(con, guards.COUNTRY_SHARE_GUARDS, "t")
    assert not r.passed and r.metadata["share"].value == 0.0
    assert r.metadata["without_country_by_reason"].value == {"no country within 25 km (...)": 6}


def test_entity_geometry_outside_degrees_fails_the_bounds_guard(con):
    _entities(con)
    assert _check(con, guards.ENTITY_GUARDS, "t").passed
    con.execute("UPDATE entities SET geometry = ST_Point(200, 95) WHERE entity_id = 't:sea'")
    r = _check(con, guards.ENTITY_GUARDS, "t")
    assert not r.passed and "max_lon" in r.description
