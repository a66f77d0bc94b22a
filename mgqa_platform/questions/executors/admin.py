"""Executors for SFID E: containment and administrative hierarchy.

Geometry conventions: EPSG:4326, x = longitude, y = latitude. Areas are planar areas in the
equal-area EPSG:6933 projection (DuckDB ``ST_Transform(g, 'EPSG:4326', 'EPSG:6933', always_xy :=
true)``, which takes lon/lat input; :func:`area_m2_sql`). Lengths are WGS84 geodesic
(:func:`path.geodesic_length_m_sql`). An entity is "in" a region when its representative point
(``lon``/``lat``) intersects the region's polygon (the boundary counts as inside).

Administrative membership first follows the KG's part-of edges (``administrativePartOf`` /
``sfWithin`` triples in ``entity_triples``, subject IRI -> object IRI, transitive up to
:data:`MAX_DEPTH` hops); an entity without such an edge is decided by geometry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mgqa_platform.kg import vocab
from mgqa_platform.questions import formats, roles
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import Executor, LocalExecutor, Outcome, Pool, bound_join
from mgqa_platform.questions.executors.path import (
    anchor_category_candidates_sql,
    category_role,
    geodesic_length_m_sql,
    lower_bound_m_sql,
)
from mgqa_platform.questions.executors.topology import bbox_sql, boxes_meet_sql, pair_candidates_sql

MAX_DEPTH = 8  #: longest chain of part-of edges followed
#: part-of edges; a KnowWhereGraph S2 cell is a grid cell, not a region (docs/kg_fidelity.md
#: (KnowWhereGraph))
PART_OF = (
    "((x.p LIKE '%/administrativePartOf' OR x.p LIKE '%/sfWithin') "
    f"AND x.o NOT LIKE '{vocab.KWG_S2_CELL}%')"
)
SHARE_BAND = (
    0.05  #: contained-share values within this (absolute) band below contain_share are ambiguous
)
MAX_COUNT = 1000  #: E03: larger counts are discarded
MAX_MEMBERS = 150  #: E05: a ranking over more members than this is not computed (discarded)
MIN_PART_SHARE = (
    0.001  #: E02 parts: a part smaller than this share of the whole makes the count ambiguous
)


def area_m2_sql(g: str) -> str:
    """SQL: area in m2 of lon/lat geometry ``g`` in the equal-area EPSG:6933 projection."""
    return f"ST_Area(ST_Transform({g}, 'EPSG:4326', 'EPSG:6933', always_xy := true))"


def share_outside_sql(inner: str, outer: str, kind: str) -> str:
    """SQL: share of ``inner``'s area (kind 'polygon') or geodesic length (kind 'line') lying
    outside ``outer``."""
    if kind == "line":
        whole = geodesic_length_m_sql(inner)
        return f"({geodesic_length_m_sql(f'ST_Difference({inner}, {outer})')} / nullif({whole}, 0))"
    return f"({area_m2_sql(f'ST_Difference({inner}, {outer})')} / nullif({area_m2_sql(inner)}, 0))"


def ancestors_sql(role: str) -> str:
    """SQL CTE body (``WITH RECURSIVE`` needed): ``up(row_id, iri, depth)``: the IRIs reachable from
    the entity bound to ``role`` by part-of edges (depth >= 1), following subject -> object up to
    :data:`MAX_DEPTH` hops."""
    return (
        f"up(row_id, iri, depth) AS (SELECT t.row_id, a.iri, 0 {bound_join(a=role)} "
        "UNION SELECT up.row_id, x.o, up.depth + 1 "
        "FROM up "
        f"JOIN entity_triples x ON x.s = up.iri AND {PART_OF} "
        f"WHERE up.depth < {MAX_DEPTH})"
    )


def _triage(share_out: float | None, sub: SubTemplate) -> tuple[bool | None, str | None]:
    """(contained?, discard reason) from the outside share and the sub-template's tolerances."""
    if share_out is None:
        return None, "zero_measure"
    tol, out_min = float(sub.conventions["inside_tolerance"]), float(sub.conventions["outside_min"])
    if share_out <= tol:
        return True, None
    if share_out >= out_min:
        return False, None
    return None, "containment_ambiguous"


# ---------------------------------------------------------------------------------------------- E01
class Membership(Executor):
    """E01: is entity_A administratively part of entity_B?

    KG route: when entity_A has part-of edges, yes iff entity_B's IRI is among its transitive
    ancestors. Geometry route otherwise: a point (E01.2) is in when it intersects entity_B,
    discarded when a lower bound on its distance to entity_B's boundary is under
    ``boundary_margin_m``; a region (E01.1) is in when entity_B is larger and covers at least
    ``contain_share`` of entity_A's area (EPSG:6933), discarded within :data:`SHARE_BAND` below it.
    Candidates are balanced on the geometric outcome (topology's pair sampler). Evidence (KG route):
    the ancestor entities reached, so the cited part-of triples state the whole chain."""

    name = "admin.membership"
    evidence = ("geometry", "topology")

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return pair_candidates_sql(pool, sub, "ST_Intersects(gb, ST_PointOnSurface(ga))")

    def gold_sql(self, sub: SubTemplate) -> str:
        a, b = sub.entity_roles[:2]
        point = sub.roles[a] in ("poi", "place")
        geo = (
            f"ST_Intersects(gb.geometry, ga.geometry) AS inside, "
            f"{lower_bound_m_sql('ga.geometry', 'ST_Boundary(gb.geometry)', 'ga.lat')} AS "
            "boundary_m, NULL AS share, NULL AS larger"
            if point
            else "NULL AS inside, NULL AS boundary_m, "
            f"{area_m2_sql('ST_Intersection(ga.geometry, gb.geometry)')} / "
            f"nullif({area_m2_sql('ga.geometry')}, 0) AS share, "
            f"{area_m2_sql('gb.geometry')} > {area_m2_sql('ga.geometry')} AS larger"
        )
        return (
            f"WITH RECURSIVE {ancestors_sql(a)}, "
            "anc AS (SELECT row_id, count_if(depth > 0) AS n_edges, "
            "list(DISTINCT iri) AS iris "
            "FROM up "
            "GROUP BY row_id), "
            "ancx AS (SELECT up.row_id, list(DISTINCT x.entity_id ORDER BY x.entity_id) AS "
            "ids "
            "FROM up "
            "JOIN entities x ON x.iri = up.iri WHERE up.depth > 0 GROUP BY up.row_id) "
            "SELECT t.row_id, coalesce(anc.n_edges, 0) AS n_edges, "
            "list_contains(anc.iris, gb.iri) AS kg_yes, "
            f"ancx.ids AS ancestor_ids, {geo} "
            f"{bound_join(ga=a, gb=b)} "
            "LEFT JOIN anc ON anc.row_id = t.row_id LEFT JOIN ancx ON ancx.row_id = t.row_id"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if row["n_edges"]:
            # cite the ancestor entities too: their part-of triples state the chain from entity_A
            # upwards
            return Outcome(
                formats.boolean(bool(row["kg_yes"])), evidence=tuple(row.get("ancestor_ids") or ())
            )
        if row["share"] is None and row["inside"] is None:
            return Outcome.discard("no_geometry_answer")
        if row["inside"] is not None:
            if row["boundary_m"] < float(sub.conventions["boundary_margin_m"]):
                return Outcome.discard("near_boundary")
            return Outcome(formats.boolean(bool(row["inside"])))
        share, need = float(row["share"]), float(sub.conventions["contain_share"])
        if need - SHARE_BAND <= share < need:
            return Outcome.discard("share_ambiguous")
        return Outcome(formats.boolean(bool(share >= need and row["larger"])))


# ---------------------------------------------------------------------------------------------- E02
#: SQL over alias ``e``: the entity's OSM ``admin_level`` as an integer (NULL when absent or not a
#: number)
ADMIN_LEVEL_SQL = roles.ADMIN_LEVEL_SQL


def direct_subdivisions(members: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The members that make up a region directly: when some members carry an admin level deeper
    than the region's own (``level`` > ``b_level``, or any level when the region has none), only
    those at the shallowest such level and those without a level; otherwise every member. Members at
    the region's own level or above (a duplicate outline) are never parts of it when levels are
    known."""
    deeper = [
        m["level"]
        for m in members
        if m["level"] is not None and (m["b_level"] is None or m["level"] > m["b_level"])
    ]
    if not deeper:
        return list(members)
    first = min(deeper)
    return [m for m in members if m["level"] is None or m["level"] == first]


class Components(Executor):
    """E02.1/E02.2: how many members of a category lie (almost) entirely inside entity_B: a polygon
    C with area(C ∩ B) / area(C) >= ``contain_share`` (EPSG:6933), a point or line member whose
    geometry B covers (share 1, else 0). A member within :data:`SHARE_BAND` below the share discards
    the tuple. Members that carry an OSM ``admin_level`` count only at the first level below
    entity_B's (Andorra is made up of its 7 parishes, level 7, not also of the 2 municipalities,
    level 8, inside them): :func:`direct_subdivisions`. Evidence: the counted members."""

    name = "admin.components"
    evidence = ("geometry", "topology")

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        b, cat = sub.entity_roles[0], category_role(sub)
        only = roles.REGION_CATEGORIES if sub.conventions.get("regions_only") else ()
        return anchor_category_candidates_sql(
            pool,
            sub,
            b,
            cat,
            hit="ST_Covers(ae.geometry, ST_PointOnSurface(me.geometry))",
            only=only,
            per_anchor=2,
        )

    def members_sql(self, sub: SubTemplate) -> str:
        b, cat = sub.entity_roles[0], category_role(sub)
        return (
            f"WITH g AS (SELECT t.row_id, t.kg, t.{cat} AS category, e.entity_id AS bid, "
            f"e.geometry, {bbox_sql('e.geometry')}, "
            f"{ADMIN_LEVEL_SQL} AS b_level {bound_join(e=b)}), "
            "c AS (SELECT e.entity_id, e.kg, e.category, e.display_name, e.geometry, "
            f"e.geom_kind, {bbox_sql('e.geometry')}, "
            f"{ADMIN_LEVEL_SQL} AS level FROM entities e "
            f"WHERE {roles.predicate(sub.roles[cat], 'e')} AND e.category IN (SELECT {cat} "
            "FROM t)), "
            "x AS (SELECT g.row_id, c.entity_id, c.display_name, c.level, g.b_level, "
            "CASE WHEN c.geom_kind = 'polygon' THEN "
            f"{area_m2_sql('ST_Intersection(c.geometry, g.geometry)')} / "
            f"nullif({area_m2_sql('c.geometry')}, 0) "
            "ELSE CAST(ST_Covers(g.geometry, c.geometry) AS DOUBLE) END AS share "
            "FROM g "
            "JOIN c ON c.kg = g.kg AND c.category = g.category AND c.entity_id <> g.bid "
            f"AND {boxes_meet_sql('g', 'c')} "
            "WHERE ST_Intersects(c.geometry, g.geometry))"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        return (
            f"{self.members_sql(sub)} "
            "SELECT t.row_id, list(struct_pack(id := x.entity_id, name := x.display_name, "
            "share := x.share, level := x.level, b_level := x.b_level) ORDER BY x.entity_id) "
            "FILTER (WHERE x.entity_id IS NOT NULL) AS members "
            "FROM t LEFT JOIN x ON x.row_id = t.row_id GROUP BY t.row_id"
        )

    def premise_sql(self, sub: SubTemplate) -> str:
        """``row_id, holds``: some member is inside entity_B (counting the ambiguity band, so false
        is certain)."""
        need = float(sub.conventions["contain_share"]) - SHARE_BAND
        return (
            f"{self.members_sql(sub)} "
            f"SELECT t.row_id, coalesce(bool_or(x.share >= {need}), FALSE) AS holds "
            "FROM t LEFT JOIN x ON x.row_id = t.row_id GROUP BY t.row_id"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        need = float(sub.conventions["contain_share"])
        members = [m for m in row["members"] or [] if m["share"] is not None]
        if any(need - SHARE_BAND <= m["share"] < need for m in members):
            return Outcome.discard("member_share_ambiguous")
        inside = direct_subdivisions([m for m in members if m["share"] >= need])
        if not inside:
            return Outcome.discard("no_component")
        return Outcome(formats.count(len(inside)), evidence=tuple(m["id"] for m in inside))


class Parts(LocalExecutor):
    """E02.3/E02.4: of how many separate parts does entity_B's (multi)polygon consist (polygons of
    ST_Dump)?

    Candidates: every multi-part geometry of the role plus as many single-part ones (seeded). A part
    smaller than :data:`MIN_PART_SHARE` of the total area (EPSG:6933) makes the count ambiguous
    (``sliver_part``)."""

    name = "admin.parts"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        b = sub.entity_roles[0]
        return (
            "WITH s AS (SELECT p.stratum, p.entity_id, "
            "ST_NumGeometries(p.geometry) > 1 AS multi "
            "FROM pool p "
            f"WHERE {roles.predicate(sub.roles[b], 'p')}), "
            "r AS (SELECT *, row_number() OVER (PARTITION BY stratum, multi ORDER BY "
            f"{pool.order_key(sub.id, 'entity_id')}) AS rk, count_if(multi) "
            "OVER (PARTITION BY stratum) AS n_multi "
            "FROM s) "
            f"SELECT stratum, entity_id AS {b} "
            "FROM r "
            f"WHERE rk <= {pool.per_stratum} AND (multi OR rk <= n_multi + 2)"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        b = sub.entity_roles[0]
        return (
            "SELECT t.row_id, ST_IsValid(e.geometry) AS valid, "
            f"list_transform(ST_Dump(e.geometry), lambda d: {area_m2_sql('d.geom')}) AS part_m2 "
            f"{bound_join(e=b)}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if not row["valid"]:
            return Outcome.discard("invalid_geometry")
        parts = [float(a) for a in row["part_m2"] or []]
        if not parts or sum(parts) <= 0:
            return Outcome.discard("zero_area")
        if min(parts) < MIN_PART_SHARE * sum(parts):
            return Outcome.discard("sliver_part")
        return Outcome(formats.count(len(parts)))


# ---------------------------------------------------------------------------------------------- E03
def _collections_sql(sub: SubTemplate) -> str:
    """SQL VALUES relation ``coll(name, category)`` of the sub-template's named collections."""
    rows = [(n, c) for n, cats in (sub.conventions.get("collections") or {}).items() for c in cats]
    vals = (
        ", ".join("('{}', '{}')".format(n.replace("'", "''"), c) for n, c in rows) or "(NULL, NULL)"
    )
    return f"(SELECT * FROM (VALUES {vals}) AS v(name, category))"


class CollectionCount(Executor):
    """E03: how many entities of a collection of categories (every non-event member, whatever its
    geometry kind) have their representative point in entity_A?

    The collection is the union of the bound category roles (E03.1/E03.2, pairwise distinct) or of
    the categories listed for the ``collection_of_entity`` parameter (E03.3). Each entity counts
    once; 0 is a valid answer. Evidence: the counted entities."""

    name = "admin.collection_count"

    def _cats(self, sub: SubTemplate) -> list[str]:
        return [r for r, t in sub.roles.items() if roles.is_category(t)]

    def _binds(self, sub: SubTemplate, alias: str) -> str:
        """SQL over alias ``alias``: its category may be bound (the first category role's predicate;
        any category for E03.3, whose collections are listed in the catalog)."""
        cats = self._cats(sub)
        return roles.predicate(sub.roles[cats[0]], alias) if cats else "TRUE"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a, cats = sub.entity_roles[0], self._cats(sub)
        head = (
            f"WITH a AS (SELECT s.stratum, s.entity_id, s.geometry, {bbox_sql('s.geometry')} FROM "
            f"({pool.sample(sub.roles[a], f'{sub.id}|{a}')}) s), "
            "m AS (SELECT p.category, p.category_kind, p.valid_from, p.lon, p.lat "
            "FROM pool p "
            f"WHERE {roles.predicate('category_feature', 'p')}), "
            "big AS (SELECT category "
            "FROM m "
            f"WHERE {self._binds(sub, 'm')} "
            "GROUP BY category "
            "HAVING count(*) >= "
            f"{roles.MIN_CATEGORY_MEMBERS}), "
            "hit AS (SELECT a.stratum, a.entity_id, m.category, count(*) AS n "
            "FROM a "
            "JOIN m ON m.lon BETWEEN a.x0 AND a.x1 "
            "AND m.lat BETWEEN a.y0 AND a.y1 "
            "WHERE ST_Intersects(a.geometry, ST_Point(m.lon, m.lat)) "
            "GROUP BY ALL), "
        )
        if not cats:  # E03.3: every collection with a KG member, per region
            p = next(iter(sub.parameters))
            return (
                f"{head}cs AS (SELECT DISTINCT c.name "
                f"FROM {_collections_sql(sub)} c "
                "SEMI JOIN big USING (category)) "
                f"SELECT a.stratum, a.entity_id AS {a}, cs.name AS {p} FROM a CROSS JOIN cs"
            )
        k = len(cats)
        picks = ", ".join(f"cl[i + {j}] AS {c}" for j, c in enumerate(cats))
        return (
            f"{head}cl AS (SELECT h.stratum, h.entity_id, "
            "list(h.category ORDER BY "
            f"{pool.order_key(sub.id, 'h.entity_id', 'h.category')}) "
            "AS cl "
            "FROM hit h "
            "SEMI JOIN big USING (category) "
            f"WHERE {roles.bindable_sql('h')} "
            "GROUP BY ALL) "
            f"SELECT stratum, entity_id AS {a}, {picks} "
            "FROM cl, range(1, 6) r(i) "
            f"WHERE len(cl) >= i + {k - 1}"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        a, cats = sub.entity_roles[0], self._cats(sub)
        if cats:
            wanted = " UNION ALL ".join(f"SELECT row_id, {c} AS category FROM t" for c in cats)
        else:
            p = next(iter(sub.parameters))
            wanted = (
                "SELECT t.row_id, c.category "
                "FROM t "
                f"JOIN {_collections_sql(sub)} c ON c.name = t.{p}"
            )
        return (
            f"WITH w AS (SELECT DISTINCT row_id, category FROM ({wanted})), "
            "g AS (SELECT t.row_id, t.kg, g.geometry, "
            f"{bbox_sql('g.geometry')} {bound_join(g=a)}), "
            "x AS (SELECT DISTINCT g.row_id, e.entity_id "
            "FROM g "
            "JOIN w ON w.row_id = g.row_id "
            "JOIN entities e ON e.kg = g.kg "
            f"AND e.category = w.category AND {roles.predicate('category_feature', 'e')} "
            "AND e.lon BETWEEN g.x0 AND g.x1 "
            "AND e.lat BETWEEN g.y0 AND g.y1 "
            "WHERE ST_Intersects(g.geometry, ST_Point(e.lon, e.lat))) "
            "SELECT t.row_id, (SELECT count(*) FROM w WHERE w.row_id = t.row_id) AS n_categories, "
            "list(x.entity_id ORDER BY x.entity_id) FILTER (WHERE x.entity_id IS NOT NULL) "
            "AS members "
            "FROM t LEFT JOIN x ON x.row_id = t.row_id GROUP BY t.row_id"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        expected = len(self._cats(sub))
        if expected and row["n_categories"] != expected:
            return Outcome.discard("repeated_category")
        members = row["members"] or []
        if len(members) > MAX_COUNT:
            return Outcome.discard("count_too_large")
        return Outcome(formats.count(len(members)), evidence=tuple(members))


# ---------------------------------------------------------------------------------------------- E04
class FullContainment(Executor):
    """E04: does entity_A's boundary fully contain entity_B's area? Outside share area(B - A) /
    area(B) (EPSG:6933) <= ``inside_tolerance`` -> yes, >= ``outside_min`` -> no, in between ->
    discarded. Candidates: near and random pairs balanced on ST_Covers (topology's pair sampler)."""

    name = "admin.full_containment"
    gold_bound_only = True
    evidence = ("geometry", "topology")

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return pair_candidates_sql(pool, sub, "ST_Covers(ga, gb)")

    def gold_sql(self, sub: SubTemplate) -> str:
        a, b = sub.entity_roles[:2]
        return (
            "SELECT t.row_id, ST_IsValid(ga.geometry) AND ST_IsValid(gb.geometry) AS valid, "
            "CASE WHEN ST_IsValid(ga.geometry) AND ST_IsValid(gb.geometry) "
            f"THEN {share_outside_sql('gb.geometry', 'ga.geometry', 'polygon')} "
            f"END AS share_out {bound_join(ga=a, gb=b)}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if not row["valid"]:
            return Outcome.discard("invalid_geometry")
        inside, reason = _triage(row["share_out"], sub)
        if reason:
            return Outcome.discard(reason)
        return Outcome(formats.boolean(inside))


# ---------------------------------------------------------------------------------------------- E05
class RankedContainment(Executor):
    """E05: does entity_A fully contain the longest/shortest (lines, geodesic length) or
    largest/smallest (polygons, EPSG:6933 area) member of category_B whose representative point lies
    in entity_C (entity_C itself is no member: a region is not "in" itself)?

    Every member must have the measure (a line for length, a polygon for area): a member mapped with
    another geometry kind discards the tuple (``member_without_measure``), candidates avoid such
    (category, entity_C) pairs. The ranked member must beat the runner-up by more than
    ``tie_tolerance_rel``; its outside share (length or area outside entity_A) is triaged as in E04.
    Evidence: the ranked member."""

    name = "admin.ranked_containment"
    evidence = ("geometry", "topology")

    def _kind(self, sub: SubTemplate) -> str:
        return "line" if sub.roles[category_role(sub)] == "category_line" else "polygon"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        a, c = sub.entity_roles[:2]
        cat = category_role(sub)
        return (
            "WITH r AS (SELECT p.entity_id, p.stratum, p.geometry, "
            f"{bbox_sql('p.geometry')} "
            "FROM pool p "
            f"WHERE {roles.predicate(sub.roles[a], 'p')}), "
            "pr AS (SELECT ra.stratum, ra.entity_id AS ea, rc.entity_id AS ec, "
            "rc.geometry AS gc, rc.x0, rc.x1, rc.y0, rc.y1 "
            "FROM r ra "
            "JOIN r rc "
            f"ON {boxes_meet_sql('ra', 'rc')} AND ra.entity_id <> rc.entity_id "
            "WHERE ST_Intersects(ra.geometry, rc.geometry)), "
            "m AS (SELECT p.category, p.geom_kind, p.lon, p.lat "
            "FROM pool p "
            f"WHERE {roles.candidate_predicate(sub.roles[cat], 'p')}), "
            "h AS (SELECT pr.stratum, pr.ea, pr.ec, m.category "
            "FROM pr "
            "JOIN m ON m.lon BETWEEN pr.x0 AND pr.x1 AND m.lat BETWEEN pr.y0 AND pr.y1 "
            "WHERE ST_Intersects(pr.gc, ST_Point(m.lon, m.lat)) "
            "GROUP BY ALL "
            f"HAVING bool_and(m.geom_kind = '{self._kind(sub)}')) "
            f"SELECT stratum, ea AS {a}, category AS {cat}, ec AS {c} "
            "FROM h "
            "QUALIFY row_number() OVER (PARTITION BY stratum "
            f"ORDER BY {pool.order_key(sub.id, 'ea', 'ec', 'category')}) <= {pool.per_stratum}"
        )

    def members_sql(self, sub: SubTemplate) -> str:
        c, cat = sub.entity_roles[1], category_role(sub)
        return (
            f"WITH g AS (SELECT t.row_id, t.kg, t.{cat} AS category, g.entity_id AS c_id, "
            f"g.geometry, {bbox_sql('g.geometry')} "
            "FROM t "
            f"JOIN entities g ON g.entity_id = t.{c}), "
            "x AS (SELECT g.row_id, e.entity_id, e.geometry, e.geom_kind "
            "FROM g "
            "JOIN entities e ON e.kg = g.kg AND e.category = g.category "
            f"AND e.entity_id <> g.c_id AND {roles.predicate(sub.roles[cat], 'e')} "
            "AND e.lon BETWEEN g.x0 AND g.x1 AND e.lat BETWEEN g.y0 AND g.y1 "
            "WHERE ST_Intersects(g.geometry, ST_Point(e.lon, e.lat)))"
        )

    def premise_sql(self, sub: SubTemplate) -> str:
        """``row_id, holds``: entity_C contains (representative point) at least one member of
        category_B."""
        return (
            f"{self.members_sql(sub)} SELECT t.row_id, count(x.entity_id) > 0 AS holds FROM t "
            "LEFT JOIN x ON x.row_id = t.row_id GROUP BY t.row_id"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        a = sub.entity_roles[0]
        kind = self._kind(sub)
        measure = (
            geodesic_length_m_sql("x.geometry") if kind == "line" else area_m2_sql("x.geometry")
        )
        rank = next(iter(sub.parameters))
        return (
            f"{self.members_sql(sub)}, "
            f"n AS (SELECT row_id, count(*) AS n FROM x GROUP BY row_id), "
            f"y AS (SELECT x.row_id, x.entity_id, x.geom_kind, {measure} AS measure, CASE "
            f"WHEN n.n <= {MAX_MEMBERS} THEN "
            f"{share_outside_sql('x.geometry', 'ga.geometry', kind)} END AS share_out "
            "FROM x "
            "JOIN n USING (row_id) "
            f"JOIN t ON t.row_id = x.row_id JOIN entities ga ON ga.entity_id = t.{a}) "
            f"SELECT t.row_id, t.{rank} AS rank_type, "
            "list(struct_pack(id := y.entity_id, kind := y.geom_kind, "
            "measure := y.measure, share_out := y.share_out) "
            "ORDER BY y.entity_id) FILTER (WHERE y.entity_id IS NOT NULL) AS members "
            "FROM t "
            "LEFT JOIN y ON y.row_id = t.row_id "
            f"GROUP BY t.row_id, t.{rank}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        members = row["members"] or []
        if not members:
            return Outcome.discard("no_member")
        if len(members) > MAX_MEMBERS:
            return Outcome.discard("too_many_members")
        if any(m["kind"] != self._kind(sub) for m in members):
            return Outcome.discard("member_without_measure")
        top = row["rank_type"] in ("longest", "largest")
        ranked = sorted(members, key=lambda m: (-m["measure"] if top else m["measure"], m["id"]))
        best = ranked[0]
        if best["measure"] <= 0:
            return Outcome.discard("zero_measure")
        tol = float(sub.conventions["tie_tolerance_rel"])
        if len(ranked) > 1 and abs(ranked[1]["measure"] - best["measure"]) <= tol * best["measure"]:
            return Outcome.discard("ranking_tie")
        inside, reason = _triage(best["share_out"], sub)
        if reason:
            return Outcome.discard(reason)
        return Outcome(formats.boolean(inside), evidence=(best["id"],))
