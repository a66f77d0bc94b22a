"""Data-quality checks of the entity table (one KG partition at a time), run by KG conversion.

Each check loads exactly the rows of the partition into a DataFrame and runs a Great Expectations
1.x suite over it; the pattern is :mod:`data_quality.checks` (docs/data_quality.md).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import duckdb

from mgqa_dagster.data_quality import gx_runner as gx
from mgqa_dagster.data_quality.checks import Check, check_specs, run_checks
from mgqa_dagster.data_quality.checks import result as _result
from mgqa_platform.kg import osm_features, profiles, whole


def known_categories() -> set[str]:
    """Every category KG conversion can produce: map-feature categories, bare OSM keys, KWG classes,
    and the categories of the WorldKG class table (bare keys that are no OSM main key among
    them)."""
    cats = {fc.category for fc in osm_features.map_features().values()}
    cats |= {k for k in osm_features.MAIN_KEYS}
    cats |= set(profiles.kwg_categories().values())
    cats |= {r["category"] for r in profiles.worldkg_classes()}
    return cats


#: Expected entity counts per KG for the bundled sample; on full-size inputs
#: ``ConversionResource.expected_entity_counts`` (MGQA_EXPECTED_ENTITY_COUNTS) replaces them.
SAMPLE_ENTITY_COUNTS: dict[str, tuple[int, int]] = {
    "worldkg": (20_000, 60_000),
    "osmh3kg": (30_000, 90_000),
    "kwg": (5_000, 12_000),
}


def _frame(con: duckdb.DuckDBPyConnection, kg: str):
    return con.execute(
        """SELECT entity_id, name, display_name, category, lon, lat,
                  ST_IsValid(geometry) AS geometry_valid, ST_IsEmpty(geometry) AS geometry_empty
           FROM entities WHERE kg = ?""",
        [kg],
    ).df()


def _unique_ids(con, kg):
    return _result(
        gx.run_suite(
            _frame(con, kg),
            f"entities_unique_ids_{kg}",
            gx.unique_ids("entity_id") + gx.not_null("entity_id"),
        )
    )


def _valid_geometries(con, kg):
    df = _frame(con, kg)
    exps = gx.in_set("geometry_valid", [True]) + gx.in_set("geometry_empty", [False])
    exps += gx.values_between("lon", -180, 180) + gx.values_between("lat", -90, 90)
    return _result(gx.run_suite(df, f"entities_valid_geometries_{kg}", exps))


def _non_empty_names(con, kg):
    return _result(
        gx.run_suite(
            _frame(con, kg), f"entities_names_{kg}", gx.non_empty_strings(["name", "display_name"])
        )
    )


def _known_categories(con, kg):
    return _result(
        gx.run_suite(
            _frame(con, kg),
            f"entities_categories_{kg}",
            gx.in_set("category", sorted(known_categories())),
        )
    )


def _count_in_range(con, kg, expected: dict[str, tuple[int, int]] = SAMPLE_ENTITY_COUNTS):
    lo, hi = expected.get(kg, (1, 10**10))
    outcome = gx.run_suite(_frame(con, kg), f"entities_count_{kg}", gx.row_count_between(lo, hi))
    return _result(outcome, warn=True, extra={"expected_min": lo, "expected_max": hi})


def _display_names_unique(con, kg):
    df = con.execute(
        """
        SELECT display_name
        FROM entities
        WHERE kg = ? AND name_unique
        """,
        [kg],
    ).df()
    ambiguous = con.execute(
        """
        SELECT count(*)
        FROM entities
        WHERE kg = ? AND NOT name_unique
        """,
        [kg],
    ).fetchone()[0]
    return _result(
        gx.run_suite(df, f"entities_display_names_{kg}", gx.unique_ids("display_name")),
        warn=True,
        extra={"ambiguous_names": int(ambiguous)},
    )


#: The geometry kind of each family's wholes, as SQL over the whole's id (``<kg>:<family>/...``).
_WHOLE_KIND_SQL = (
    "CASE regexp_extract(p.entity_id, '^[^:]*:([^/]*)/', 1) "
    + " ".join(f"WHEN '{k.family}' THEN '{k.geom_kind}'" for k in whole.KINDS)
    + " END"
)


def _whole_parts_resolve(con, kg):
    df = con.execute(
        f"""
        SELECT
            p.part_entity_id,
            r.entity_id IS NOT NULL AND r.geom_kind = {_WHOLE_KIND_SQL} AS whole_exists,
            q.entity_id IS NULL AS part_not_an_entity
        FROM entity_parts p
        LEFT JOIN entities r ON r.kg = p.kg AND r.entity_id = p.entity_id
        LEFT JOIN entities q ON q.kg = p.kg AND q.entity_id = p.part_entity_id
        WHERE p.kg = ?
        """,
        [kg],
    ).df()
    exps = gx.unique_ids("part_entity_id") + gx.in_set("whole_exists", [True])
    exps += gx.in_set("part_not_an_entity", [True])
    return _result(
        gx.run_suite(df, f"entities_whole_parts_{kg}", exps), extra={"whole_parts": len(df)}
    )


ENTITY_CHECKS: tuple[Check, ...] = (
    Check("unique_entity_ids", True, "entity_id is unique and not null within the KG", _unique_ids),
    Check(
        "valid_geometries",
        True,
        "every geometry is valid, non-empty, with lon/lat in range (EPSG:4326)",
        _valid_geometries,
    ),
    Check("non_empty_names", True, "name and display_name are non-empty", _non_empty_names),
    Check(
        "known_categories",
        True,
        "category is one the platform knows (map features, OSM keys, KWG classes)",
        _known_categories,
    ),
    Check(
        "whole_parts_resolve",
        True,
        "every part (entity_parts) belongs to one existing whole feature of its family's "
        "geometry kind (road, waterway, rail: line; stop, point: point) and is no entity itself",
        _whole_parts_resolve,
        allow_empty=True,  # a KG may have no whole feature made of several pieces
    ),
    Check(
        "entity_count_in_range",
        False,
        "entity count of the KG is within the expected range",
        _count_in_range,
    ),
    Check(
        "display_names_unique",
        False,
        "display names flagged name_unique are unique within the KG; the others count as "
        "ambiguous_names",
        _display_names_unique,
    ),
)


def entity_checks(expected: dict[str, tuple[int, int]] | None) -> tuple[Check, ...]:
    """:data:`ENTITY_CHECKS` with the count check judging against ``expected``
    (None: the sample's ranges)."""
    if expected is None:
        return ENTITY_CHECKS
    count = partial(_count_in_range, expected=expected)
    return tuple(replace(c, run=count) if c.run is _count_in_range else c for c in ENTITY_CHECKS)


__all__ = ["ENTITY_CHECKS", "check_specs", "entity_checks", "run_checks", "known_categories"]
