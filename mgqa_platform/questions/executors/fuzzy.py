"""Executors for SFID L: uncertainty and fuzzy spatial reasoning (templates L01-L05).

Every vague notion is a crisp rule with numeric thresholds taken from the sub-template's
``conventions`` (the catalog text states the same rule); tuples in a vague band between "yes" and
"no" are discarded. d(X, Y) is the WGS84 geodesic distance in km between representative points
(DuckDB ``ST_Distance_Spheroid`` on POINT(lat lon), :func:`geodesic_km_sql`).

* near (L01): yes when d <= near_km, no when d >= not_near_km, discarded in between
  (:func:`band_answer`).
* far (L02): yes when d >= far_km, no when d <= not_far_km, discarded in between.
* more likely near (L03): membership mu(d) = 1 for d <= near_full_km, 0 for d >= near_zero_km,
  linear in between (:func:`near_membership`); yes when mu(AB) - mu(AC) >= margin, no when mu(AC) -
  mu(AB) >= margin.
* roughly closest (L04): members of the category within search_radius_km of B (B excluded) whose
  distance is <= max(d_min * (1 + tie_tolerance_rel), d_min + tie_tolerance_abs_km)
  (:func:`roughly_closest`).
* plausibly within (L05, ternary boolean): a point is ``true`` when B covers it (boundary included),
  ``plausibly`` when outside but within boundary_buffer_km of B's boundary, ``false`` beyond. The
  boundary distance is the one of A09 (:mod:`distance`): nearest boundary point found in a local
  equirectangular frame centred on the point, then the geodesic km to it. A polygon A uses the
  EPSG:6933 area share of A inside B: ``true`` when >= inside_share_yes, ``false`` when <=
  inside_share_no, ``plausibly`` between.

Candidates put partners near the anchor (the anchor's H3 cell at the resolutions listed in the
conventions' ``candidate_h3_res``; 0 = any entity of the stratum) and are balanced on the expected
answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mgqa_platform.questions import formats, roles
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import Executor, Outcome, Pool, bound_join, geodesic_km_sql
from mgqa_platform.questions.executors.containment import approx_km_sql, box_columns_sql, in_box_sql
from mgqa_platform.questions.executors.distance import (
    CellTuplesExecutor,
    PairDistance,
    frame_to_km_sql,
    local_tuples,
    local_tuples_samples,
    nearest_point_sql,
    pair_km_sql,
)
from mgqa_platform.questions.executors.shape import area_km2_sql

# : L04: larger "roughly closest" sets are discarded (default of the conventions' ``max_set``)
MAX_SET = 15
NEGATIVE_REACH_KM = 50.0  #: L05: outside partners are drawn within this many km of B's bounding box
KM_PER_DEG = (
    110.574  #: shortest degree of latitude; degree boxes built from it err on the large side
)
FAR_PER_REGION = 20  #: L05: seeded far (outside the near ring) partners judged per region
NEAR_PER_REGION = (
    200  #: L05: near-ring partners judged per region (those in the bare bbox first, then seeded)
)


# ---------------------------------------------------------------- pure rules
def band_answer(d: float, yes_max: float, no_min: float) -> bool | None:
    """True when d <= yes_max, False when d >= no_min, None (vague band) in between; yes_max <
    no_min."""
    if d <= yes_max:
        return True
    if d >= no_min:
        return False
    return None


def near_membership(d: float, full_km: float, zero_km: float) -> float:
    """Membership of "near" at distance d km: 1 for d <= full_km, 0 for d >= zero_km, linear in
    between."""
    if d <= full_km:
        return 1.0
    if d >= zero_km:
        return 0.0
    return (zero_km - d) / (zero_km - full_km)


def roughly_closest(
    members: list[Mapping[str, Any]], tol_rel: float, tol_abs_km: float
) -> list[Mapping[str, Any]]:
    """Members (dicts with ``km``) with km <= max(d_min * (1 + tol_rel), d_min + tol_abs_km), d_min
    the smallest km; empty input -> empty list."""
    if not members:
        return []
    d_min = min(m["km"] for m in members)
    cut = max(d_min * (1.0 + tol_rel), d_min + tol_abs_km)
    return [m for m in members if m["km"] <= cut]


def point_within_answer(covered: bool, boundary_km: float, buffer_km: float) -> bool | str:
    """Ternary containment of a point: True if covered, 'plausibly' if boundary_km <= buffer_km,
    else False."""
    if covered:
        return True
    return "plausibly" if boundary_km <= buffer_km else False


def share_within_answer(share: float, yes_min: float, no_max: float) -> bool | str:
    """Ternary containment of a polygon by its area share inside B: True if share >= yes_min, False
    if share <= no_max, 'plausibly' in between."""
    if share >= yes_min:
        return True
    if share <= no_max:
        return False
    return "plausibly"


def _c(sub: SubTemplate, key: str) -> float:
    return float(sub.conventions[key])


def _balanced(judged: str, label: str, pool: Pool, salt: str, n_labels: int) -> str:
    """SQL: rows of ``judged`` (columns stratum, the roles, ``label``; NULL label = vague, dropped)
    keeping per stratum up to per_stratum / n_labels rows of each label, seeded."""
    k = max(pool.per_stratum // n_labels, 1)
    return (
        "SELECT * EXCLUDE (rk) "
        f"FROM (SELECT *, row_number() OVER (PARTITION BY stratum, {label} ORDER BY "
        f"{pool.order_key(salt, 'h')}) AS rk "
        f"FROM {judged} "
        f"WHERE {label} IS NOT NULL) "
        f"WHERE rk <= {k}"
    )


def _pair_sources(sub: SubTemplate, pool: Pool) -> str:
    """SQL: union of candidate pairs, one source per entry of ``candidate_h3_res`` (an H3
    resolution: the partner shares the anchor's cell; 0: any entity of the anchor's stratum)."""
    parts = [
        local_tuples(sub, pool, r) if r else PairDistance().candidates(sub, pool)
        for r in sub.conventions["candidate_h3_res"]
    ]
    return " UNION ".join(f"SELECT * FROM ({p})" for p in parts)


# ---------------------------------------------------------------- L01 / L02
class _DistanceBand(Executor):
    """Boolean from one geodesic distance with a vague band; subclasses give the (yes, no)
    thresholds."""

    cell_local = True

    def cell_samples(self, sub: SubTemplate) -> tuple[tuple[str, str], ...]:
        """The anchors :func:`local_tuples` samples in every stratum."""
        return local_tuples_samples(sub)

    def rule(self, sub: SubTemplate, d: float) -> bool | None:
        raise NotImplementedError

    def rule_sql(self, sub: SubTemplate, d: str) -> str:
        raise NotImplementedError

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a, b = sub.entity_roles[:2]
        km = approx_km_sql("ea", "eb")
        return (
            f"WITH c AS ({_pair_sources(sub, pool)}), j "
            f"AS (SELECT c.*, {self.rule_sql(sub, km)} AS label, "
            f"c.{a} || '|' || c.{b} AS h "
            "FROM c "
            f"JOIN pool ea ON ea.entity_id = c.{a} "
            f"JOIN pool eb ON eb.entity_id = c.{b}) "
            f"SELECT stratum, {a}, {b} FROM ({_balanced('j', 'label', pool, sub.id, 2)})"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        return pair_km_sql(sub)

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        km = row["km"]
        if km is None or km <= 0.0005:
            return Outcome.discard("coincident_points")
        answer = self.rule(sub, km)
        if answer is None:
            return Outcome.discard("vague_band")
        return Outcome(formats.boolean(answer))


class Near(_DistanceBand):
    """L01: is A approximately near B? yes when d <= near_km, no when d >= not_near_km."""

    name = "fuzzy.near"
    gold_bound_only = True

    def rule(self, sub: SubTemplate, d: float) -> bool | None:
        return band_answer(d, _c(sub, "near_km"), _c(sub, "not_near_km"))

    def rule_sql(self, sub: SubTemplate, d: str) -> str:
        return (
            f"CASE WHEN {d} <= {_c(sub, 'near_km')} THEN TRUE "
            f"WHEN {d} >= {_c(sub, 'not_near_km')} THEN FALSE END"
        )


class Far(_DistanceBand):
    """L02: is A far from B? yes when d >= far_km, no when d <= not_far_km."""

    name = "fuzzy.far"
    gold_bound_only = True

    def rule(self, sub: SubTemplate, d: float) -> bool | None:
        close = band_answer(d, _c(sub, "not_far_km"), _c(sub, "far_km"))
        return None if close is None else not close

    def rule_sql(self, sub: SubTemplate, d: str) -> str:
        return (
            f"CASE WHEN {d} >= {_c(sub, 'far_km')} THEN TRUE "
            f"WHEN {d} <= {_c(sub, 'not_far_km')} THEN FALSE END"
        )


# ---------------------------------------------------------------- L03
class LikelierNear(CellTuplesExecutor):
    """L03: is A more plausibly near B than near C? Compares the near memberships of d(A, B) and
    d(A, C) (:func:`near_membership`); differences below ``margin`` are discarded. Candidates: B and
    C from A's H3 cell at ``candidate_h3_res[0]``."""

    name = "fuzzy.likelier_near"

    def h3_res(self, sub: SubTemplate) -> int:
        return sub.conventions["candidate_h3_res"][0]

    def gold_sql(self, sub: SubTemplate) -> str:
        a, b, c = sub.entity_roles[:3]
        return (
            f"SELECT t.row_id, {geodesic_km_sql('a', 'b')} AS km_b, "
            f"{geodesic_km_sql('a', 'c')} AS km_c "
            "FROM t "
            f"JOIN entities a ON a.entity_id = t.{a} "
            f"JOIN entities b ON b.entity_id = t.{b} "
            f"JOIN entities c ON c.entity_id = t.{c}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if min(row["km_b"], row["km_c"]) <= 0.0005:
            return Outcome.discard("coincident_points")
        full, zero = _c(sub, "near_full_km"), _c(sub, "near_zero_km")
        diff = near_membership(row["km_b"], full, zero) - near_membership(row["km_c"], full, zero)
        if abs(diff) < _c(sub, "margin"):
            return Outcome.discard("too_close_to_call")
        return Outcome(formats.boolean(diff > 0))


# ---------------------------------------------------------------- L04
class RoughlyClosest(Executor):
    """L04: the members of ``category_A`` (B excluded) roughly closest to B
    (:func:`roughly_closest`), among those within ``search_radius_km``. Evidence: the answer set.
    Discards: no member in the radius (the premise fails), a set above :data:`MAX_SET`. Candidates:
    B sampled per stratum among entities sharing their H3 cell (``candidate_h3_res[0]``) with a
    member of some category that has >= MIN_CATEGORY_MEMBERS members in the pool; one seeded such
    category per B."""

    name = "fuzzy.roughly_closest"
    evidence = ("geometry", "type")

    def _roles(self, sub: SubTemplate) -> tuple[str, str]:
        return next(r for r, t in sub.roles.items() if roles.is_category(t)), sub.entity_roles[0]

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        cat, b = self._roles(sub)
        i = {3: 1, 5: 2, 7: 3, 9: 4}[sub.conventions["candidate_h3_res"][0]]
        pred = roles.candidate_predicate(sub.roles[cat], "p")
        in_cells = f"p.h3[{i}] IN (SELECT cell FROM cc)"
        return (
            "WITH big AS (SELECT category "
            "FROM pool p "
            f"WHERE {pred} "
            "GROUP BY category "
            f"HAVING count(*) >= {roles.MIN_CATEGORY_MEMBERS}), "
            f"cc AS (SELECT p.h3[{i}] AS cell, p.category, count(*) AS n "
            "FROM pool p "
            f"WHERE {pred} AND p.category IN (SELECT category "
            "FROM big) "
            "GROUP BY ALL), "
            f"bs AS ({pool.sample(sub.roles[b], f'{sub.id}|{b}', where=in_cells)}) "
            f"SELECT bs.stratum, bs.entity_id AS {b}, cc.category AS {cat} "
            "FROM bs "
            f"JOIN cc ON cc.cell = bs.h3[{i}] "
            f"WHERE cc.n > CASE WHEN cc.category = bs.category THEN 1 ELSE 0 END "
            "QUALIFY row_number() OVER (PARTITION BY bs.entity_id ORDER BY "
            f"{pool.order_key(f'{sub.id}|{cat}', 'bs.entity_id', 'cc.category')}) = 1"
        )

    def _max_set(self, sub: SubTemplate) -> int:
        return int(sub.conventions.get("max_set", MAX_SET))

    def gold_boxes(self, sub: SubTemplate) -> str:
        """The boxes of :meth:`members_sql`'s member join (:func:`box_columns_sql` around B, the
        search radius): no member outside them is read."""
        _, b = self._roles(sub)
        r = _c(sub, "search_radius_km")
        return (
            f"SELECT {box_columns_sql('b', str(r))} "
            "FROM t "
            f"JOIN main.entities b ON b.entity_id = t.{b}"
        )

    def members_sql(self, sub: SubTemplate) -> str:
        """SQL CTEs ``q, m``: m = (row_id, entity_id, display_name, km) of the members within the
        radius."""
        cat, b = self._roles(sub)
        r = _c(sub, "search_radius_km")
        return (
            f"q AS (SELECT t.row_id, t.kg, t.{cat} AS category, b.entity_id AS b_id, "
            f"b.lon, b.lat, {box_columns_sql('b', str(r))} "
            f"{bound_join(b=b)}), "
            "m AS (SELECT * "
            "FROM (SELECT q.row_id, e.entity_id, e.display_name, "
            f"{geodesic_km_sql('q', 'e')} AS km "
            "FROM q "
            "JOIN entities e ON e.kg = q.kg AND e.category = q.category "
            f"AND {roles.predicate(sub.roles[cat], 'e')} "
            f"AND e.entity_id <> q.b_id AND {in_box_sql('q', 'e')}) WHERE km <= {r})"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        rel, ab = _c(sub, "tie_tolerance_rel"), _c(sub, "tie_tolerance_abs_km")
        return (
            f"WITH {self.members_sql(sub)}, "
            "cut AS (SELECT row_id, count(*) AS n_in_radius, "
            f"greatest(min(km) * (1 + {rel}), min(km) + {ab}) AS cut_km "
            "FROM m "
            "GROUP BY row_id), "
            "near AS (SELECT m.row_id, list(struct_pack(id := m.entity_id, "
            "name := m.display_name, km := m.km) ORDER BY m.km, m.entity_id) AS members "
            "FROM m "
            "JOIN cut ON cut.row_id = m.row_id AND m.km <= 2 * cut.cut_km "
            "GROUP BY m.row_id) "
            "SELECT t.row_id, coalesce(cut.n_in_radius, 0) AS n_in_radius, "
            f"near.members[1:{self._max_set(sub) + 5}] AS members "
            "FROM t "
            "LEFT JOIN cut ON cut.row_id = t.row_id "
            "LEFT JOIN near ON near.row_id = t.row_id"
        )

    def premise_sql(self, sub: SubTemplate) -> str:
        """SQL over ``t``: (row_id, holds) — does at least one member lie within search_radius_km of
        B?"""
        return (
            f"WITH {self.members_sql(sub)} SELECT t.row_id, count(m.entity_id) > 0 AS holds "
            f"FROM t LEFT JOIN m ON m.row_id = t.row_id GROUP BY t.row_id"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if not row["n_in_radius"]:
            return Outcome.discard("no_member_in_radius")
        chosen = roughly_closest(
            row["members"], _c(sub, "tie_tolerance_rel"), _c(sub, "tie_tolerance_abs_km")
        )
        if len(chosen) > self._max_set(sub):
            return Outcome.discard("set_too_large")
        ids = [m["id"] for m in chosen]
        return Outcome(formats.entity_set(ids, [m["name"] for m in chosen]), evidence=tuple(ids))


# ---------------------------------------------------------------- L05
class PlausiblyWithin(Executor):
    """L05: ternary "is A plausibly within region B?" (true / 'plausibly' / false).

    A point A: :func:`point_within_answer` with ``boundary_buffer_km``; a polygon A
    (``inside_share_yes`` in the conventions): :func:`share_within_answer` on the EPSG:6933 area
    share of A inside B. Candidates: every A of the role in B's bbox grown by ``2 *
    boundary_buffer_km`` (polygon A: meeting that bbox), plus :data:`FAR_PER_REGION` seeded A within
    :data:`NEGATIVE_REACH_KM` of the bbox; judged with the gold rule and balanced over the three
    answers per stratum of A."""

    name = "fuzzy.plausibly_within"
    gold_bound_only = True
    evidence = ("geometry", "topology")

    def _is_area(self, sub: SubTemplate) -> bool:
        return "inside_share_yes" in sub.conventions

    def _judge_sql(self, sub: SubTemplate) -> str:
        """SQL select-list items over the columns ``ga, gb`` (geometries), ``lon, lat`` (A's
        representative point) and ``ep`` (nearest point of B's boundary in A's frame,
        :func:`_g_sql`): the measured values and the ``label`` ('true' | 'plausibly' | 'false') of
        the rule."""
        if self._is_area(sub):
            inter = area_km2_sql("ST_Intersection(ga, gb)")
            share = (
                f"CASE WHEN NOT (ST_IsValid(ga) AND ST_IsValid(gb)) THEN NULL "
                f"WHEN ST_Intersects(ga, gb) THEN {inter} / {area_km2_sql('ga')} ELSE 0 END"
            )
            yes, no = _c(sub, "inside_share_yes"), _c(sub, "inside_share_no")
            return (
                f"{share} AS share, ST_Equals(ga, gb) AS same, "
                f"CASE WHEN share >= {yes} THEN 'true' WHEN share <= {no} THEN 'false' "
                "ELSE 'plausibly' END AS label"
            )
        _, _, km = frame_to_km_sql("lon", "lat", "ep")
        return (
            f"ST_Covers(gb, ST_Point(lon, lat)) AS covered, {km} AS boundary_km, CASE "
            "WHEN covered THEN 'true' "
            f"WHEN boundary_km <= {_c(sub, 'boundary_buffer_km')} THEN 'plausibly' "
            "ELSE 'false' END AS label"
        )

    def _g_sql(self, sub: SubTemplate, ids: str) -> str:
        """SQL: per row of ``ids`` (columns ea, eb + pass-through columns ``*``) the judged
        inputs."""
        ep = (
            ""
            if self._is_area(sub)
            else f", {nearest_point_sql('ea.lon', 'ea.lat', 'ST_Boundary(eb.geometry)')} AS ep"
        )
        return (
            "SELECT i.*, ea.lon, ea.lat, ea.geometry AS ga, eb.geometry AS gb, "
            f"eb.geom_kind AS b_kind{ep} "
            f"FROM {ids} i "
            f"JOIN entities ea ON ea.entity_id = i.ea JOIN entities eb ON eb.entity_id = i.eb"
        )

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a, b = sub.entity_roles[:2]
        ring = 0.0 if self._is_area(sub) else 2 * _c(sub, "boundary_buffer_km")

        def grow(km):
            return (
                f"ST_YMin(geometry) - {km / KM_PER_DEG} AS y0, "
                f"ST_YMax(geometry) + {km / KM_PER_DEG} AS y1, "
                f"ST_XMin(geometry) - {km / KM_PER_DEG} / "
                "cos(radians(least(abs(lat) + 1, 89))) AS x0, "
                f"ST_XMax(geometry) + {km / KM_PER_DEG} / "
                "cos(radians(least(abs(lat) + 1, 89))) AS x1"
            )

        if self._is_area(sub):
            ax = (
                "ST_XMin(geometry) AS ax0, ST_XMax(geometry) AS ax1, ST_YMin(geometry) AS ay0, "
                "ST_YMax(geometry) AS ay1"
            )

            def meets(r):
                return (
                    f"x.ax0 <= {r}.x1 AND x.ax1 >= {r}.x0 AND x.ay0 <= {r}.y1 AND x.ay1 >= {r}.y0"
                )
        else:
            ax = "lon AS ax0, lon AS ax1, lat AS ay0, lat AS ay1"

            def meets(r):
                return f"x.ax0 BETWEEN {r}.x0 AND {r}.x1 AND x.ay0 BETWEEN {r}.y0 AND {r}.y1"

        regions = f"FROM pool p WHERE {roles.predicate(sub.roles[b], 'p')}"
        return (
            f"WITH r AS (SELECT entity_id, {grow(ring)}, ST_XMin(geometry) AS bx0, "
            "ST_XMax(geometry) AS bx1, "
            f"ST_YMin(geometry) AS by0, ST_YMax(geometry) AS by1 {regions}), rf "
            f"AS (SELECT entity_id, {grow(NEGATIVE_REACH_KM)} {regions}), "
            f"x AS (SELECT entity_id, stratum, {ax} "
            "FROM pool p "
            f"WHERE {roles.predicate(sub.roles[a], 'p')}), "
            "near AS (SELECT x.stratum, x.entity_id AS ea, r.entity_id AS eb "
            "FROM x "
            f"JOIN r ON {meets('r')} "
            "QUALIFY row_number() OVER (PARTITION BY r.entity_id ORDER BY x.ax0 >= r.bx0 "
            "AND x.ax1 <= r.bx1 AND x.ay0 >= r.by0 "
            "AND x.ay1 <= r.by1 DESC, "
            f"{pool.order_key(sub.id + '|near', 'x.entity_id', 'r.entity_id')}) <= "
            f"{NEAR_PER_REGION}), "
            "far AS (SELECT x.stratum, x.entity_id AS ea, rf.entity_id AS eb "
            "FROM x "
            f"JOIN rf ON {meets('rf')} "
            "QUALIFY row_number() OVER (PARTITION BY rf.entity_id ORDER BY "
            f"{pool.order_key(sub.id + '|far', 'x.entity_id', 'rf.entity_id')}) <= "
            f"{FAR_PER_REGION}), "
            "pairs AS (SELECT DISTINCT stratum, ea, eb, ea || '|' || eb AS h "
            "FROM (SELECT * "
            "FROM near "
            "UNION ALL SELECT * "
            "FROM far) "
            "WHERE ea <> eb), "
            f"j AS (SELECT stratum, ea AS {a}, eb AS {b}, h, {self._judge_sql(sub)} "
            f"FROM ({self._g_sql(sub, 'pairs')})) "
            f"SELECT stratum, {a}, {b} FROM ({_balanced('j', 'label', pool, sub.id, 3)})"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        a, b = sub.entity_roles[:2]
        return (
            f"WITH ids AS (SELECT row_id, {a} AS ea, {b} AS eb FROM t) "
            "SELECT row_id, ST_IsValid(ga) AND ST_IsValid(gb) AS valid, b_kind, "
            f"{self._judge_sql(sub)} "
            f"FROM ({self._g_sql(sub, 'ids')})"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if not row["valid"]:
            return Outcome.discard("invalid_geometry")
        if row["b_kind"] != "polygon":
            return Outcome.discard("not_a_polygon")
        if self._is_area(sub):
            if row["same"]:
                return Outcome.discard("identical_geometries")
            answer = share_within_answer(
                row["share"], _c(sub, "inside_share_yes"), _c(sub, "inside_share_no")
            )
        else:
            if row["boundary_km"] is None:
                return Outcome.discard("no_distance")
            answer = point_within_answer(
                bool(row["covered"]), row["boundary_km"], _c(sub, "boundary_buffer_km")
            )
        return Outcome(formats.boolean(answer))
