"""Executors for SFID C: topological relationships between geometries.

Predicates follow the OGC Simple Features / DE-9IM definitions as implemented by GEOS (DuckDB
spatial ``ST_*``), evaluated on the stored EPSG:4326 coordinates (x = longitude, y = latitude; edges
are straight segments in lon/lat). Matrix patterns are written for (A, B) in the order I, B, E of A
by I, B, E of B:

- intersects(A, B): not FF*FF**** (the closures share at least one point).
- disjoint(A, B): FF*FF**** (the negation of intersects).
- overlaps(A, B): same dimension, T*T***T** (areas, points) or 1*T***T** (lines): the interiors meet
  and each has a part outside the other. Nested or equal pairs are discarded (everyday "overlap"
  would say yes).
- touches the boundary of B: A meets the boundary of B, *T******* or ****T****, i.e. A ∩ ∂B ≠ ∅,
  with ∂B the rings of B's polygons (holes included); A may also reach into B's interior.
- adjacent(A, B): interiors disjoint and the boundaries share a piece one dimension below the parts:
  two areas share a boundary segment of positive length (F***1****; a single common corner is not
  enough); two lines touch (FT*******, F**T***** or F***T****: they meet only at an endpoint of at
  least one).
- encloses(A, B): B lies in the interior of fill(A), the polygons bounded by A's exterior rings
  (holes filled): T*****FF* for (fill(A), B) with B off fill(A)'s boundary (ST_ContainsProperly). B
  inside a hole of A is enclosed; B touching A's outer boundary is not.

Candidates: every bbox test uses plain lon/lat columns (xmin, xmax, ymin, ymax) so that DuckDB runs
it as an inequality join; exact predicates only run on the pairs that pass it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pyproj import Geod
from shapely import wkt as shapely_wkt

from mgqa_platform.questions import formats, roles
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import Executor, Outcome, Pool, bound_join

GEOD = Geod(ellps="WGS84")
NEAR_MARGIN_DEG = (
    0.002  #: bbox margin (~200 m) that turns close but disjoint pairs into near-miss candidates
)
NEAR_PER_ANCHOR = 40  #: near pairs judged per anchor (seeded subset) ...
NEAR_PER_STRATUM = 2000  #: ... or more when a stratum has few anchors (a single county polygon)
MIN_POINT_SEPARATION_M = 1.0  #: C03: intersection points closer than this make the count ambiguous
MAX_COUNT = 100  #: C04: counts above this are not proposed (and discarded)
MAX_SET = 15  #: C05/C06: largest answer set kept


# -------------------------------------------------------------------------------------- SQL helpers
def fill_sql(g: str) -> str:
    """SQL: the union of the polygons bounded by the exterior rings of polygonal geometry ``g``
    (holes filled)."""
    return (
        f"list_reduce(list_transform(ST_Dump({g}), "
        "lambda d: ST_MakePolygon(ST_ExteriorRing(d.geom))), "
        "lambda x, y: ST_Union(x, y))"
    )


#: Predicates that are one spatial function of ``a`` and (a part of) ``b``: the function, and
#: what it takes of ``b``.
_SIMPLE_PREDICATES = {
    "intersects": ("ST_Intersects", "{}"),
    "disjoint": ("ST_Disjoint", "{}"),
    "overlaps": ("ST_Overlaps", "{}"),
    "touches_boundary": ("ST_Intersects", "ST_Boundary({})"),
}


def predicate_sql(name: str, a: str, b: str) -> str:
    """SQL boolean for predicate ``name`` (see the module docstring) over geometry expressions
    ``a``, ``b``."""
    if name in _SIMPLE_PREDICATES:
        function, b_part = _SIMPLE_PREDICATES[name]
        return f"{function}({a}, {b_part.format(b)})"
    if name == "adjacent":
        shared = f"ST_Length(ST_CollectionExtract(ST_Intersection({a}, {b}), 2)) > 0"
        return (
            f"(ST_Touches({a}, {b}) AND (ST_Dimension({a}) < 2 OR ST_Dimension({b}) < 2 "
            f"OR {shared}))"
        )
    if name == "encloses":
        return f"ST_ContainsProperly({fill_sql(a)}, {b})"
    raise KeyError(f"unknown predicate {name!r}")


def bbox_sql(g: str, margin: float = 0.0) -> str:
    """SQL select-list items ``x0, x1, y0, y1``: lon/lat bounding box of ``g`` grown by ``margin``
    degrees."""
    lo, hi = (f" - {margin}", f" + {margin}") if margin else ("", "")
    return (
        f"ST_XMin({g}){lo} AS x0, ST_XMax({g}){hi} AS x1, ST_YMin({g}){lo} AS y0, "
        f"ST_YMax({g}){hi} AS y1"
    )


def boxes_meet_sql(a: str, b: str) -> str:
    """SQL: the bbox columns of relations ``a`` and ``b`` overlap (closed intervals)."""
    return f"{b}.x0 <= {a}.x1 AND {b}.x1 >= {a}.x0 AND {b}.y0 <= {a}.y1 AND {b}.y1 >= {a}.y0"


def big_categories_sql(role_type: str) -> str:
    """SQL: categories of ``role_type`` with at least ``roles.MIN_CATEGORY_MEMBERS`` members in the
    pool."""
    return (
        "SELECT category "
        "FROM pool p "
        f"WHERE {roles.candidate_predicate(role_type, 'p')} "
        "GROUP BY category "
        f"HAVING count(*) >= {roles.MIN_CATEGORY_MEMBERS}"
    )


def _role_rows(pool: Pool, role_type: str, margin: float = 0.0) -> str:
    """SQL: pool rows of ``role_type`` with their (grown) bbox columns."""
    return (
        "SELECT p.entity_id, p.stratum, p.name, p.category, p.geometry, "
        f"{bbox_sql('p.geometry', margin)} "
        f"FROM pool p WHERE {roles.predicate(role_type, 'p')}"
    )


def _sample_rows(pool: Pool, role_type: str, salt: str, k: int, margin: float = 0.0) -> str:
    """SQL: ``pool.sample`` of ``role_type`` (k per stratum, with ``rn``) plus (grown) bbox
    columns."""
    return (
        f"SELECT s.*, {bbox_sql('s.geometry', margin)} FROM ({pool.sample(role_type, salt, k)}) s"
    )


def pair_candidates_sql(
    pool: Pool,
    sub: SubTemplate,
    holds: str,
    *,
    only_true: bool = False,
    symmetric: bool = False,
    prefer: str = "0",
    anchor_geom: str = "geometry",
) -> str:
    """Candidates for a predicate over the first two entity roles (A = anchor, B), balanced on its
    outcome.

    Per stratum: up to 2k random anchors plus up to 2k anchors near a sample of 2k B entities (so a
    sparse B role, e.g. polygons among thousands of roads, still meets its anchors). Their near
    pairs (bboxes within :data:`NEAR_MARGIN_DEG`; per anchor a seeded subset of
    max(:data:`NEAR_PER_ANCHOR`, :data:`NEAR_PER_STRATUM` / anchors) pairs) plus one random far pair
    each are judged with ``holds`` (SQL over geometries ``ga``, ``gb``); CTEs carry ids only,
    geometries are joined in for judging. Kept per stratum: up to k/2 true and
    k/2 false pairs, the larger side capped at 3x the smaller + 2 (or up to k true pairs with
    ``only_true``); ordered by ``prefer`` (SQL over ``ga``, ``gb``, larger first), then spread over
    anchors, near pairs and pairs of differently named entities first. ``symmetric`` keeps one of
    (A, B) and (B, A). ``anchor_geom`` (SQL over the anchor's ``geometry``) is what ``ga`` holds,
    computed once per anchor.
    """
    ra, rb = sub.entity_roles[:2]
    k = pool.per_stratum
    half = max(k // 2, 1)
    key = pool.order_key(sub.id, "ea", "eb")
    pair = "least(ea, eb), greatest(ea, eb)" if symmetric else "ea, eb"
    keep = (
        f"holds AND rk <= {k}"
        if only_true
        else f"rk <= least({half}, 3 * least({half}, CASE WHEN holds THEN n_false "
        "ELSE n_true END) + 2)"
    )
    return (
        _pair_anchor_ctes(pool, sub)
        + "near AS (SELECT a.stratum, a.entity_id AS ea, b.entity_id AS eb, "
        "a.name = b.name AS same_name, 0 AS far "
        "FROM a "
        f"JOIN b ON {boxes_meet_sql('a', 'b')} "
        "WHERE a.entity_id <> b.entity_id "
        "QUALIFY row_number() OVER (PARTITION BY a.entity_id ORDER BY "
        f"{pool.order_key(sub.id + '|near', 'a.entity_id', 'b.entity_id')}) "
        f"<= greatest({NEAR_PER_ANCHOR}, {NEAR_PER_STRATUM} // a.n_anchors)), "
        "far AS (SELECT a.stratum, a.entity_id AS ea, r.entity_id AS eb, "
        "a.name = r.name AS same_name, 1 AS far "
        "FROM a JOIN r ON r.stratum = a.stratum AND r.rn = a.rn WHERE a.entity_id <> r.entity_id), "
        "pairs AS (SELECT * FROM (SELECT * FROM near UNION ALL SELECT * FROM far) "
        f"QUALIFY row_number() OVER (PARTITION BY {pair} ORDER BY far, ea) = 1), "
        f"ax AS (SELECT entity_id, {anchor_geom} AS gx "
        "FROM entities "
        "WHERE entity_id IN (SELECT ea "
        "FROM pairs)), "
        f"judged AS (SELECT p.*, coalesce({holds}, FALSE) AS holds, {prefer} AS prefer FROM "
        "(SELECT p.*, ax.gx AS ga, e.geometry AS gb "
        "FROM pairs p "
        "JOIN ax ON ax.entity_id = p.ea "
        "JOIN entities e ON e.entity_id = p.eb) p), "
        "ranked AS (SELECT stratum, ea, eb, same_name, far, holds, prefer, row_number() "
        "OVER (PARTITION BY ea, holds "
        f"ORDER BY prefer DESC, far, same_name, {key}) AS per_anchor FROM judged), "
        "ordered AS (SELECT *, row_number() OVER "
        "(PARTITION BY stratum, holds ORDER BY prefer DESC, per_anchor, far, same_name, "
        f"{key}) AS rk, count_if(holds) OVER (PARTITION BY stratum) AS n_true, "
        "count_if(NOT holds) OVER (PARTITION BY stratum) AS n_false FROM ranked) "
        f"SELECT stratum, ea AS {ra}, eb AS {rb} FROM ordered WHERE {keep}"
    )


def _pair_anchor_ctes(pool: Pool, sub: SubTemplate) -> str:
    """The CTEs of :func:`pair_candidates_sql` up to its anchors: role rows ``ab`` (A) and ``b``
    (B), random anchors ``ar``, anchors ``an`` near a sample ``bs`` of B, the numbered anchors
    ``a`` and the random far partners ``r`` (each CTE followed by a comma)."""
    ra, rb = sub.entity_roles[:2]
    k = pool.per_stratum
    return (
        "WITH ab AS (SELECT entity_id, stratum, name, x0, x1, y0, y1 "
        f"FROM ({_role_rows(pool, sub.roles[ra], NEAR_MARGIN_DEG)})), "
        f"b AS (SELECT entity_id, name, x0, x1, y0, y1 FROM ({_role_rows(pool, sub.roles[rb])})), "
        f"ar AS (SELECT entity_id FROM ({pool.sample(sub.roles[ra], f'{sub.id}|{ra}', 2 * k)})), "
        "bs AS (SELECT entity_id, x0, x1, y0, y1 "
        f"FROM ({_sample_rows(pool, sub.roles[rb], f'{sub.id}|{rb}|seed', 2 * k)})), "
        "an AS (SELECT ab.entity_id "
        "FROM ab "
        f"JOIN bs ON {boxes_meet_sql('ab', 'bs')} AND ab.entity_id <> bs.entity_id "
        "GROUP BY ab.entity_id, ab.stratum "
        "QUALIFY row_number() OVER (PARTITION BY ab.stratum ORDER BY "
        f"{pool.order_key(sub.id + '|an', 'ab.entity_id')}) <= {2 * k}), "
        "a AS (SELECT ab.*, row_number() OVER "
        f"(PARTITION BY stratum ORDER BY {pool.order_key(sub.id + '|a', 'entity_id')}) AS "
        "rn, "
        "count(*) OVER (PARTITION BY stratum) AS n_anchors FROM ab "
        "WHERE entity_id IN (SELECT entity_id FROM ar UNION SELECT entity_id FROM an)), "
        "r AS (SELECT entity_id, stratum, name, rn "
        f"FROM ({pool.sample(sub.roles[rb], f'{sub.id}|{rb}', 2 * k)})), "
    )


def _pair_join(sub: SubTemplate) -> str:
    ra, rb = sub.entity_roles[:2]
    return f"{bound_join(a=ra, b=rb)}"


# ----------------------------------------------------------------------------------------- booleans
class _PairPredicate(Executor):
    """Boolean predicate(A, B) between two bound entities (C01, C02, C07-C11).

    gold_sql returns ``holds`` plus the checks ``valid`` (both geometries valid) and ``same`` (equal
    point sets); invalid or identical pairs are discarded."""

    evidence = ("geometry", "topology")
    predicate: ClassVar[str] = ""
    symmetric: ClassVar[bool] = False

    def holds_sql(self, a: str, b: str) -> str:
        return predicate_sql(self.predicate, a, b)

    def extra_sql(self, a: str, b: str) -> str:
        """Extra gold columns (SQL select-list items, leading comma) for subclass discards."""
        return ""

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return pair_candidates_sql(pool, sub, self.holds_sql("ga", "gb"), symmetric=self.symmetric)

    def gold_sql(self, sub: SubTemplate) -> str:
        ok = "ST_IsValid(a.geometry) AND ST_IsValid(b.geometry)"
        return (
            f"SELECT t.row_id, {ok} AS valid, CASE WHEN {ok} "
            "THEN ST_Equals(a.geometry, b.geometry) END AS same, "
            f"CASE WHEN {ok} THEN {self.holds_sql('a.geometry', 'b.geometry')} END AS holds"
            f"{self.extra_sql('a.geometry', 'b.geometry')} {_pair_join(sub)}"
        )

    def problem(self, row: Mapping[str, Any]) -> str | None:
        if not row["valid"]:
            return "invalid_geometry"
        if row["same"]:
            return "identical_geometries"
        return None

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        reason = self.problem(row)
        if reason:
            return Outcome.discard(reason)
        return Outcome(formats.boolean(bool(row["holds"])))


class Intersects(_PairPredicate):
    """C01/C02: do A and B share at least one point (ST_Intersects)?"""

    name = "topology.intersects"
    gold_bound_only = True
    predicate = "intersects"
    symmetric = True


class Overlaps(_PairPredicate):
    """C07: do A and B overlap in the DE-9IM sense (ST_Overlaps)? Nested or equal pairs are
    discarded."""

    name = "topology.overlaps"
    gold_bound_only = True
    predicate = "overlaps"
    symmetric = True

    def extra_sql(self, a: str, b: str) -> str:
        return (
            f", CASE WHEN ST_IsValid({a}) AND ST_IsValid({b}) THEN ST_Covers({a}, {b}) "
            f"OR ST_Covers({b}, {a}) END AS nested"
        )

    def problem(self, row: Mapping[str, Any]) -> str | None:
        return super().problem(row) or ("nested_geometries" if row["nested"] else None)


class TouchesBoundary(_PairPredicate):
    """C08: does A meet the boundary of B (A ∩ ∂B non-empty)?"""

    name = "topology.touches_boundary"
    gold_bound_only = True
    predicate = "touches_boundary"


class Adjacent(_PairPredicate):
    """C09: are A and B adjacent (interiors disjoint; areas share a boundary segment, lines
    touch)?"""

    name = "topology.adjacent"
    gold_bound_only = True
    predicate = "adjacent"
    symmetric = True


class Disjoint(_PairPredicate):
    """C10: are A and B disjoint (no common point, ST_Disjoint)?"""

    name = "topology.disjoint"
    gold_bound_only = True
    predicate = "disjoint"
    symmetric = True


class Encloses(_PairPredicate):
    """C11: does A completely surround B (B in the interior of A with its holes filled)?"""

    name = "topology.encloses"
    gold_bound_only = True
    predicate = "encloses"

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        # fill(A) once per anchor; the gold query computes the same predicate in full
        return pair_candidates_sql(
            pool, sub, "ST_ContainsProperly(ga, gb)", anchor_geom=fill_sql("geometry")
        )


# ---------------------------------------------------------------------------------------------- C03
def intersection_points(wkt: str | None) -> tuple[list[tuple[float, float]] | None, str | None]:
    """(distinct lon/lat intersection points, discard reason) from the WKT of A ∩ B.

    Empty -> ``no_intersection``; any part of dimension > 0 -> ``shared_segment``; two points closer
    than :data:`MIN_POINT_SEPARATION_M` (geodesic) -> ``near_coincident_points``."""
    geom = shapely_wkt.loads(wkt) if wkt else None
    if geom is None or geom.is_empty:
        return None, "no_intersection"
    parts = list(getattr(geom, "geoms", [geom]))
    if any(p.geom_type not in ("Point", "MultiPoint") for p in parts):
        return None, "shared_segment"
    points = sorted({(q.x, q.y) for p in parts for q in getattr(p, "geoms", [p])})
    for i, (x0, y0) in enumerate(points):
        for x1, y1 in points[i + 1 :]:
            if GEOD.inv(x0, y0, x1, y1)[2] < MIN_POINT_SEPARATION_M:
                return None, "near_coincident_points"
    return points, None


class CrossingPoints(Executor):
    """C03: in how many points do two lines intersect (distinct points of ST_Intersection)?

    Only intersecting pairs are proposed, those meeting in several points first; pairs sharing a
    segment (collinear overlap) are discarded."""

    name = "topology.crossing_points"
    gold_bound_only = True
    evidence = ("geometry", "topology")

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        pts = "ST_Intersection(ga, gb)"
        prefer = f"CASE WHEN ST_Dimension({pts}) = 0 THEN least(ST_NPoints({pts}), 2) ELSE 0 END"
        return pair_candidates_sql(
            pool,
            sub,
            predicate_sql("intersects", "ga", "gb"),
            only_true=True,
            symmetric=True,
            prefer=prefer,
        )

    def premise_sql(self, sub: SubTemplate) -> str:
        """Premise: the two lines intersect at all."""
        return f"SELECT t.row_id, ST_Intersects(a.geometry, b.geometry) AS holds {_pair_join(sub)}"

    def gold_sql(self, sub: SubTemplate) -> str:
        ok = "ST_IsValid(a.geometry) AND ST_IsValid(b.geometry)"
        return (
            f"SELECT t.row_id, {ok} AS valid, CASE WHEN {ok} "
            "THEN ST_AsText(ST_Intersection(a.geometry, b.geometry)) END "
            f"AS intersection_wkt {_pair_join(sub)}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if not row["valid"]:
            return Outcome.discard("invalid_geometry")
        points, reason = intersection_points(row["intersection_wkt"])
        if reason:
            return Outcome.discard(reason)
        return Outcome(formats.count(len(points)))


# ------------------------------------------------------------------------------------------ C04-C06
def _category_role(sub: SubTemplate) -> str:
    return next(r for r, t in sub.roles.items() if roles.is_category(t))


def category_members_sql(sub: SubTemplate, target: str, exclude: list[str]) -> str:
    """Gold SQL prefix (``WITH ... m AS (...)``): relation ``m(row_id, entity_id, display_name,
    geometry, geom_kind)`` of
    the KG entities of the category role that intersect the entity bound to ``target``, excluding
    the entities bound to ``exclude`` (and countries where the conventions say
    ``countries_excluded``: :func:`roles.not_country_sql`); a bbox join (plain columns) comes before
    ``ST_Intersects``."""
    cat = _category_role(sub)
    not_in = " AND ".join(f"e.entity_id <> b.{r}" for r in exclude)
    return (
        "WITH b AS (SELECT t.*, g.geometry AS tg, "
        f"{bbox_sql('g.geometry')} {bound_join(g=target)}), "
        "e AS (SELECT e.entity_id, e.kg, e.category, e.display_name, e.geometry, "
        f"e.geom_kind, {bbox_sql('e.geometry')} "
        "FROM entities e "
        f"WHERE {roles.predicate(sub.roles[cat], 'e')} "
        f"AND {roles.not_country_sql(sub.conventions, 'e')} AND e.kg IN (SELECT kg "
        f"FROM t) AND e.category IN (SELECT {cat} "
        "FROM t)), "
        "m AS (SELECT b.row_id, e.entity_id, e.display_name, e.geometry, e.geom_kind "
        "FROM b "
        f"JOIN e ON e.kg = b.kg AND e.category = b.{cat} "
        f"AND {boxes_meet_sql('b', 'e')} AND {not_in} WHERE ST_Intersects(e.geometry, b.tg))"
    )


class _CategoryIntersect(Executor):
    """Members of a category (``category_*`` role) that intersect the anchor entity B (C04, C05).

    Candidates: per stratum k anchors; per anchor one category (seeded) among those whose members
    intersect it between ``min_hits`` and ``max_hits`` times. With ``zero_every = n``, one anchor in
    n asks for a near miss (a category with bbox-near but no intersecting members), the others for a
    category with members; anchors without such a category are skipped."""

    evidence = ("geometry", "topology", "type")  # members' rdf:type states their category
    min_hits: ClassVar[int] = 1
    max_hits: ClassVar[int] = MAX_SET
    zero_every: ClassVar[int] = 0

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        cat, b = _category_role(sub), sub.entity_roles[0]
        want = (
            f"md5_number('{pool.seed}|{pool.kg}|{sub.id}|zero|' || b.entity_id) % "
            f"{self.zero_every} <> 0"
            if self.zero_every
            else "TRUE"
        )
        return (
            f"WITH b AS ({_sample_rows(pool, sub.roles[b], f'{sub.id}|{b}', pool.per_stratum)}), "
            f"m AS ({_role_rows(pool, sub.roles[cat])} "
            f"AND {roles.not_country_sql(sub.conventions, 'p')}), "
            f"big AS ({big_categories_sql(sub.roles[cat])}), "
            f"near AS (SELECT b.stratum, b.entity_id AS eb, {want} AS want, m.category, "
            "count_if(ST_Intersects(m.geometry, b.geometry)) AS hits "
            "FROM b "
            f"JOIN m ON {boxes_meet_sql('b', 'm')} AND m.entity_id <> b.entity_id "
            "GROUP BY ALL "
            f"HAVING hits BETWEEN {self.min_hits} AND {self.max_hits}) "
            f"SELECT stratum, eb AS {b}, category AS {cat} "
            "FROM near "
            "SEMI JOIN big USING (category) "
            "QUALIFY row_number() OVER (PARTITION BY eb ORDER BY (hits > 0) = want DESC, "
            f"{pool.order_key(sub.id, 'eb', 'category')}) = 1 "
            "AND (hits > 0) = want"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        b = sub.entity_roles[0]
        return (
            f"{category_members_sql(sub, b, [b])} "
            "SELECT t.row_id, list(struct_pack(id := m.entity_id, name := m.display_name) "
            "ORDER BY m.entity_id) "
            "FILTER (WHERE m.entity_id IS NOT NULL) AS members "
            "FROM t "
            "LEFT JOIN m ON m.row_id = t.row_id "
            "GROUP BY t.row_id"
        )


class CountIntersecting(_CategoryIntersect):
    """C04: how many members of a category intersect B (ST_Intersects; B itself not counted)? 0
    allowed."""

    name = "topology.count_intersecting"
    min_hits = 0
    max_hits = MAX_COUNT
    zero_every = 5

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        members = row["members"] or []
        if len(members) > MAX_COUNT:
            return Outcome.discard("count_too_large")
        return Outcome(formats.count(len(members)), evidence=tuple(m["id"] for m in members))


class ListIntersecting(_CategoryIntersect):
    """C05: which members of a category intersect B? Sets of 1 to :data:`MAX_SET` members are
    kept."""

    name = "topology.list_intersecting"

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        members = row["members"] or []
        if not members:
            return Outcome.discard("empty_set")
        if len(members) > MAX_SET:
            return Outcome.discard("set_too_large")
        ids = [m["id"] for m in members]
        return Outcome(formats.entity_set(ids, [m["name"] for m in members]), evidence=tuple(ids))


class ListIntersectingExcept(Executor):
    """C06: which members of a category intersect B but not C?

    Kept when the answer has 1 to :data:`MAX_SET` members and at least one member intersects both B
    and C (otherwise "but not C" would exclude nothing). B and C themselves are never members.
    Evidence: every member intersecting B (the excluded ones decide the answer too)."""

    name = "topology.list_intersecting_except"
    evidence = ("geometry", "topology", "type")  # members' rdf:type states their category

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        cat = _category_role(sub)
        b, c = sub.entity_roles[:2]
        b_rows = _sample_rows(
            pool, sub.roles[b], f"{sub.id}|{b}", pool.per_stratum, NEAR_MARGIN_DEG
        )
        return (
            f"WITH b AS ({b_rows}), "
            f"c AS ({_role_rows(pool, sub.roles[c])}), "
            "bc AS (SELECT b.stratum, b.entity_id AS eb, c.entity_id AS ec, "
            "b.geometry AS gb, c.geometry AS gc, "
            "ST_XMin(b.geometry) AS x0, ST_XMax(b.geometry) AS x1, "
            "ST_YMin(b.geometry) AS y0, ST_YMax(b.geometry) AS y1 "
            f"FROM b JOIN c ON {boxes_meet_sql('b', 'c')} AND b.entity_id <> c.entity_id "
            "QUALIFY row_number() OVER (PARTITION BY b.entity_id "
            f"ORDER BY {pool.order_key(sub.id + '|c', 'b.entity_id', 'c.entity_id')}) <= 5), "
            f"m AS ({_role_rows(pool, sub.roles[cat])} "
            f"AND {roles.not_country_sql(sub.conventions, 'p')}), "
            f"big AS ({big_categories_sql(sub.roles[cat])}), "
            "hit AS (SELECT bc.stratum, bc.eb, bc.ec, m.category, "
            "ST_Intersects(m.geometry, bc.gc) AS hc "
            "FROM bc "
            "JOIN m "
            f"ON {boxes_meet_sql('bc', 'm')} AND m.entity_id <> bc.eb "
            "AND m.entity_id <> bc.ec "
            "WHERE ST_Intersects(m.geometry, bc.gb)), "
            "near AS (SELECT stratum, eb, ec, category FROM hit GROUP BY ALL "
            f"HAVING count_if(NOT hc) BETWEEN 1 AND {MAX_SET} AND count_if(hc) > 0) "
            f"SELECT stratum, eb AS {b}, ec AS {c}, category AS {cat} "
            "FROM near "
            "SEMI JOIN big USING (category) "
            "QUALIFY row_number() OVER (PARTITION BY eb ORDER BY "
            f"{pool.order_key(sub.id, 'eb', 'ec', 'category')}) = 1"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        b, c = sub.entity_roles[:2]
        return (
            f"{category_members_sql(sub, b, [b, c])}, "
            "mc AS (SELECT m.row_id, m.entity_id, m.display_name, "
            "ST_Intersects(m.geometry, g.geometry) AS hits_c "
            f"FROM m JOIN t ON t.row_id = m.row_id JOIN entities g ON g.entity_id = t.{c}) "
            "SELECT t.row_id, list(struct_pack(id := mc.entity_id, "
            "name := mc.display_name, hits_c := mc.hits_c) "
            "ORDER BY mc.entity_id) FILTER (WHERE mc.entity_id IS NOT NULL) AS members "
            "FROM t LEFT JOIN mc ON mc.row_id = t.row_id GROUP BY t.row_id"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        members = row["members"] or []
        only_b = [m for m in members if not m["hits_c"]]
        if not only_b:
            return Outcome.discard("empty_set")
        if len(only_b) == len(members):
            return Outcome.discard("vacuous_exclusion")
        if len(only_b) > MAX_SET:
            return Outcome.discard("set_too_large")
        return Outcome(
            formats.entity_set([m["id"] for m in only_b], [m["name"] for m in only_b]),
            evidence=tuple(m["id"] for m in members),
        )
