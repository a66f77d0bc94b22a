"""Role rules over executed tuples: bindings that fit their role types but not the question.

* ``incomparable_features``: a shape comparison (:data:`SHAPE_TIDS`) between two features that are
  neither of the same kind (same category and the same OSM ``admin_level``) nor in the same country
  (the country-level region of the KG covering both representative points) is discarded: "Is
  Andorra la Vella more compact than the comarca of Alt Urgell?" compares unlike things.
* ``whole_kg_country``: a containment question (:data:`CONTAINMENT_TIDS`) that binds a
  country-level region (category ``country`` or ``admin_level`` 2) and whose gold is yes is
  discarded: the containing country is the one the whole area lies in ("Is Casa X administratively
  a part of Andorra?"). A "no" stays: the feature lies across or beyond the border.
* ``container_category``: a count of categories in a container (:data:`CATEGORY_COUNT_TIDS`) that
  asks for the container's own category ("How many pubs and universities are in Topelia
  (university)?") is discarded: whether the container counts itself is a reading, not a fact.

All are counted in ``question_discards`` under their names (docs/questions.md, "Role types").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import duckdb
import pyarrow as pa

from mgqa_platform.questions import roles
from mgqa_platform.warehouse import registered

INCOMPARABLE = "incomparable_features"
WHOLE_KG_COUNTRY = "whole_kg_country"
SHAPE_TIDS = ("K01", "K02", "K03")
CONTAINMENT_TIDS = ("E01", "E04", "E05", "L05")
CONTAINER_CATEGORY = "container_category"
CATEGORY_COUNT_TIDS = ("E03",)
RULE_TIDS = SHAPE_TIDS + CONTAINMENT_TIDS + CATEGORY_COUNT_TIDS

#: SQL over alias ``e``: the entity is a country-level region.
COUNTRY_SQL = f"(e.category = 'country' OR coalesce({roles.ADMIN_LEVEL_SQL}, 99) = 2)"


def entity_kinds(con: duckdb.DuckDBPyConnection, ids: Iterable[str]) -> dict[str, dict]:
    """Entity id -> ``{"category", "admin_level", "is_country", "country"}``: ``country`` is the id
    of the KG's country-level polygon covering the entity's representative point (WGS84), or
    None."""
    ids = sorted(set(ids))
    if not ids:
        return {}
    table = pa.table({"entity_id": pa.array(ids, pa.string())})
    with registered(con, _kind_ids=table):
        rows = con.execute(
            f"""
            SELECT e.entity_id, e.category, {roles.ADMIN_LEVEL_SQL} AS admin_level,
                   {COUNTRY_SQL} AS is_country,
                   (SELECT min(c.entity_id)
                    FROM entities c
                    WHERE c.kg = e.kg AND c.geom_kind = 'polygon'
                      AND {COUNTRY_SQL.replace("e.", "c.")}
                      AND ST_Covers(c.geometry, ST_Point(e.lon, e.lat))) AS country
            FROM _kind_ids i
            JOIN entities e USING (entity_id)
            """
        ).fetchall()
    keys = ("category", "admin_level", "is_country", "country")
    return {r[0]: dict(zip(keys, r[1:], strict=True)) for r in rows}


def comparable(a: dict, b: dict) -> bool:
    """Two features (:func:`entity_kinds` rows) are comparable when of the same kind (category and
    admin level) or in the same known country."""
    same_kind = a["category"] == b["category"] and a["admin_level"] == b["admin_level"]
    return same_kind or (a["country"] is not None and a["country"] == b["country"])


def violation(sub, values: dict, kinds: dict[str, dict], gold: dict | None = None) -> str | None:
    """The role rule a tuple (``values``: role -> bound id; ``gold``: its canonical gold) of
    ``sub`` breaks, or None."""
    ids = [values[r] for r in sub.entity_roles if values.get(r) in kinds]
    if sub.tid in SHAPE_TIDS and len(ids) == 2 and not comparable(*(kinds[i] for i in ids)):
        return INCOMPARABLE
    if sub.tid in CATEGORY_COUNT_TIDS:
        asked = {values[r] for r, t in sub.roles.items() if roles.is_category(t)}
        if any(kinds[i]["category"] in asked for i in ids):
            return CONTAINER_CATEGORY
    yes = (gold or {}).get("value") is True
    if sub.tid in CONTAINMENT_TIDS and yes and any(kinds[i]["is_country"] for i in ids):
        return WHOLE_KG_COUNTRY
    return None


def keep_role_fit(con: duckdb.DuckDBPyConnection, sub, execs: list) -> tuple[list, Counter]:
    """The executions of ``sub`` that break no role rule, and the others counted
    ``(stratum, rule)``."""
    if sub.tid not in RULE_TIDS or not execs:
        return execs, Counter()
    kinds = entity_kinds(con, (e.values[r] for e in execs for r in sub.entity_roles))
    kept, dropped = [], Counter()
    for e in execs:
        rule = violation(sub, e.values, kinds, e.outcome.gold)
        if rule:
            dropped[(e.stratum, rule)] += 1
        else:
            kept.append(e)
    return kept, dropped
