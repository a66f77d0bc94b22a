"""Input guards as blocking asset checks (issue 21, item 2): geometry inside lon/lat degrees, sound
country polygons, and the minimum shares of entities with a country and with a stratum.

A bad input that empties a stage (every entity ``unassigned`` because the countries are in metres,
a World Bank table missing rows, a country polygon without area) fails one of these checks at the
stage where it happens, with counts in the metadata, instead of a misleading check a stage later.
The shares are configurable (``StrataInputsResource.min_country_share`` / ``min_stratum_share``,
``MGQA_MIN_COUNTRY_SHARE`` / ``MGQA_MIN_STRATUM_SHARE``); docs/data_quality.md, "Input guards".
"""

from __future__ import annotations

import re

import dagster as dg
import pandas as pd

from mgqa_dagster.data_quality import gx_runner as gx
from mgqa_dagster.data_quality.checks import Check, result
from mgqa_platform.input_guards import DEGREES, share
from mgqa_platform.strata.countries import NOT_A_WB_ECONOMY

_BOUNDS_SQL = """
    SELECT {key} AS id, ST_XMin(geometry) AS min_lon, ST_XMax(geometry) AS max_lon,
           ST_YMin(geometry) AS min_lat, ST_YMax(geometry) AS max_lat
    FROM {table} {where}
"""


def _bounds_suite(df: pd.DataFrame, suite: str) -> gx.SuiteOutcome:
    exps = gx.not_null(["min_lon", "max_lon", "min_lat", "max_lat"])
    for col in ("min_lon", "max_lon"):
        exps += gx.values_between(col, DEGREES[0], DEGREES[2])
    for col in ("min_lat", "max_lat"):
        exps += gx.values_between(col, DEGREES[1], DEGREES[3])
    return gx.run_suite(df, suite, exps)


def _entity_bounds(con, kg):
    df = con.execute(
        _BOUNDS_SQL.format(key="entity_id", table="entities", where="WHERE kg = ?"), [kg]
    ).df()
    return result(_bounds_suite(df, f"entity_geometry_bounds_{kg}"))


def _country_polygons(con, _, degenerate_features=()):
    df = con.execute(
        """
        SELECT iso3, ST_XMin(geometry) AS min_lon, ST_XMax(geometry) AS max_lon,
               ST_YMin(geometry) AS min_lat, ST_YMax(geometry) AS max_lat,
               NOT ST_IsEmpty(geometry) AND ST_Area(geometry) > 0 AS has_area
        FROM countries
        """
    ).df()
    outcome = _bounds_suite(df, "country_polygons")
    without_wb = [
        r[0]
        for r in con.execute(
            "SELECT iso3 FROM countries WHERE income_note = ? ORDER BY iso3", [NOT_A_WB_ECONOMY]
        ).fetchall()
    ]
    area = gx.run_suite(df, "country_polygons_area", gx.in_set("has_area", [True]))
    passed = outcome.success and area.success and not degenerate_features and len(df) > 0
    return dg.AssetCheckResult(
        passed=passed,
        description=(
            f"{len(df)} countries; {len(degenerate_features)} degenerate features left out"
            + (f" ({', '.join(degenerate_features[:10])})" if degenerate_features else "")
            + f"; {len(without_wb)} countries without a World Bank row"
        ),
        metadata={
            **outcome.metadata(),
            "countries": len(df),
            "degenerate_features": len(degenerate_features),
            "degenerate_feature_names": dg.MetadataValue.json(list(degenerate_features)),
            "countries_without_world_bank_row": len(without_wb),
            "iso3_without_world_bank_row": dg.MetadataValue.json(without_wb),
        },
    )


def _reason_kind(reason: str | None) -> str:
    """A reason without its numbers and ids, to count reasons by kind."""
    return re.sub(r"\([^)]*\)|\b[0-9a-f]{15}\b", "(...)", reason or "none").split(";")[0].strip()


def _share_check(con, kg, *, column: str, table: str, minimum: float, label: str):
    rows = con.execute(
        f"SELECT {column} IS NOT NULL AS has, reason FROM {table} WHERE kg = ?", [kg]
    ).fetchall()
    have = sum(1 for has, _ in rows if has)
    value = share(have, len(rows))
    missing: dict[str, int] = {}
    for has, reason in rows:
        if not has:
            kind = _reason_kind(reason)
            missing[kind] = missing.get(kind, 0) + 1
    df = pd.DataFrame({"share": [value]})
    outcome = gx.run_suite(df, f"{label}_share_{kg}", gx.values_between("share", minimum, 1.0))
    return result(
        outcome,
        extra={
            "share": round(value, 4),
            "minimum": minimum,
            "entities": len(rows),
            f"with_{label}": have,
            f"without_{label}_by_reason": dg.MetadataValue.json(
                dict(sorted(missing.items(), key=lambda kv: -kv[1]))
            ),
        },
    )


def _country_share(con, kg, minimum=0.8):
    return _share_check(
        con, kg, column="iso3", table="entity_country", minimum=minimum, label="country"
    )


def _stratum_share(con, kg, minimum=0.8):
    return _share_check(
        con, kg, column="stratum", table="entity_strata", minimum=minimum, label="stratum"
    )


ENTITY_GUARDS = (
    Check(
        "geometry_bounds",
        True,
        "every entity geometry's bounding box lies inside lon [-180, 180] and lat [-90, 90]",
        _entity_bounds,
    ),
)
COUNTRY_GUARDS = (
    Check(
        "country_polygons_sound",
        True,
        "at least one country; every country polygon has area and lies inside lon/lat degrees; no "
        "feature was left out as degenerate (metadata: those left out and the countries without "
        "a World Bank row, with counts)",
        _country_polygons,
    ),
)
COUNTRY_SHARE_GUARDS = (
    Check(
        "country_share",
        True,
        "the share of the KG's entities with a country is at least MGQA_MIN_COUNTRY_SHARE "
        "(default 0.8; metadata: the entities without one, by reason)",
        _country_share,
    ),
)
STRATUM_SHARE_GUARDS = (
    Check(
        "stratum_share",
        True,
        "the share of the KG's entities with a stratum is at least MGQA_MIN_STRATUM_SHARE "
        "(default 0.8; metadata: the entities without one, by reason, e.g. 'not a World Bank "
        "economy')",
        _stratum_share,
    ),
)

__all__ = ["COUNTRY_GUARDS", "COUNTRY_SHARE_GUARDS", "ENTITY_GUARDS", "STRATUM_SHARE_GUARDS"]
