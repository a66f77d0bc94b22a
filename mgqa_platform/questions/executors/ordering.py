"""Executors for SFID F: spatial comparison and ordering (templates F01-F04).

Membership: an entity is "in" region B when its representative point (``entities.lon``/``lat``,
EPSG:4326, x = longitude, y = latitude) lies inside B's polygon (lon/lat bbox prefilter, then
``ST_Contains``); B itself is never a member. The gold query lists every member once with the
measures the ranking needs; ``finish`` ranks them in Python and applies the tie rules of the
sub-template's ``conventions``.

Measures (SQL, per member geometry, never clipped to B):

* area: EPSG:6933 (equal-area cylindrical) area in km2; DuckDB ``ST_Transform(g, 'EPSG:4326',
  'EPSG:6933', always_xy := true)`` keeps lon/lat input order (checked against pyproj in the tests).
* perimeter / length: WGS84 geodesic length in km of every ring / part (``ST_Perimeter_Spheroid``
  and ``ST_Length_Spheroid``, which read (lat, lon) points, so the geometry is flipped first).
* compactness: Polsby-Popper ``4 pi A / P^2`` (A km2 in EPSG:6933, P geodesic km).
* elongation: ``1 - minor/major`` of the minimum rotated rectangle in a local azimuthal-equidistant
  projection centred on the member's representative point (pyproj + shapely, in ``finish``).
* population: ``attributes.population`` as recorded in the KG.

F04 (compound filter) measures geodesic km between representative points and the forward geodesic
azimuth at C towards each member (pyproj ``Geod.inv``), read as a direction word under every
direction reading the sub-template lists (``questions/readings.py``); the SQL candidates and
``premise_sql`` use the spherical initial bearing, which differs from the ellipsoidal one by far
less than the 2-degree sector margin."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np
import shapely
from pyproj import Geod, Transformer
from shapely import wkt as shapely_wkt
from shapely.geometry.base import BaseGeometry

from mgqa_platform.questions import formats, readings, roles
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import Executor, Outcome, Pool, bound_join, geodesic_km_sql
from mgqa_platform.questions.executors import shape
from mgqa_platform.questions.executors.containment import (
    BOUNDARY_BAND,
    approx_km_sql,
    box_columns_sql,
    in_box_sql,
    members_in_radius,
    seeded_choice_sql,
)
from mgqa_platform.questions.executors.distance import (
    bbox_cols,
    contains_sql,
    inside_sql,
    members_sql,
)
from mgqa_platform.questions.executors.topology import big_categories_sql

GEOD = Geod(ellps="WGS84")
MAX_MEMBERS = (
    1000  #: regions with more members of a category are not proposed (linear work; evidence size)
)
PER_REGION = 4  #: categories proposed per region
MAX_TIED = 3  #: F01: more tied extremes than this make the question unhelpful -> discarded
MAX_SET = 15  #: F04: largest answer set kept
RANK_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
MAXIMISE = {"largest", "highest", "longest", "most"}  #: rank words that sort descending


# ---------------------------------------------------------------------------------- geometry (pure)
@lru_cache(maxsize=4096)
def aeqd(lon: float, lat: float) -> Transformer:
    """Transformer from EPSG:4326 (lon, lat) to a WGS84 azimuthal-equidistant frame centred on (lon,
    lat), metres."""
    return Transformer.from_crs(
        "EPSG:4326",
        f"+proj=aeqd +lat_0={lat!r} +lon_0={lon!r} +datum=WGS84 +units=m",
        always_xy=True,
    )


def to_local(geom: BaseGeometry, lon: float, lat: float) -> BaseGeometry:
    """``geom`` (lon/lat) projected into the azimuthal-equidistant frame centred on (lon, lat),
    metres."""
    return shapely.transform(
        geom, lambda xy: np.column_stack(aeqd(lon, lat).transform(xy[:, 0], xy[:, 1]))
    )


def elongation(geom_xy: BaseGeometry) -> float | None:
    """``1 - minor/major`` of the minimum rotated rectangle of a projected geometry (0 square, -> 1
    thin); None for a degenerate (zero-extent) geometry."""
    rect = shapely.minimum_rotated_rectangle(geom_xy)
    if rect.geom_type != "Polygon" or rect.area <= 0:
        return None
    (x0, y0), (x1, y1), (x2, y2) = list(rect.exterior.coords)[:3]
    a, b = math.hypot(x1 - x0, y1 - y0), math.hypot(x2 - x1, y2 - y1)
    return 1.0 - min(a, b) / max(a, b)


def member_elongation(wkt: str, lon: float, lat: float) -> float | None:
    """Elongation of a lon/lat WKT geometry in the local frame centred on its representative point
    (lon, lat)."""
    return elongation(to_local(shapely_wkt.loads(wkt), lon, lat))


def directional_score(direction: str, lon: float, lat: float, origin: tuple[float, float]) -> float:
    """How far (lon, lat) reaches towards ``direction``: degrees of latitude/longitude for the four
    cardinal words (F01.1/F01.2), metres along the bearing's unit vector in the
    azimuthal-equidistant frame centred on ``origin`` (lon, lat) for the diagonal words (F01.3)."""
    cardinal = {"north": lat, "south": -lat, "east": lon, "west": -lon}
    if direction in cardinal:
        return cardinal[direction]
    x, y = aeqd(*origin).transform(lon, lat)
    az = math.radians(readings.WORD_BEARINGS[direction])
    return x * math.sin(az) + y * math.cos(az)


def degree_score(direction: str, lon: float, lat: float) -> float:
    """How far (lon, lat) reaches towards ``direction`` on a plain longitude/latitude map: degrees
    along the word's bearing with one degree of longitude drawn as long as one of latitude (F01.3's
    second reading; "furthest northeast" = largest longitude + latitude)."""
    az = math.radians(readings.WORD_BEARINGS[direction])
    return lon * math.sin(az) + lat * math.cos(az)


def extreme_members(
    members: Sequence[Mapping[str, Any]], score: Callable[[Mapping[str, Any]], float], tol: float
) -> list:
    """Members whose score is within ``tol`` of the highest score, best first (ties by id)."""
    scored = sorted(((score(m), m["id"], m) for m in members), key=lambda s: (-s[0], s[1]))
    best = scored[0][0]
    return [m for s, _, m in scored if best - s <= tol]


# -------------------------------------------------------------------------------------- SQL helpers
def category_role(sub: SubTemplate) -> str:
    return next(r for r, t in sub.roles.items() if roles.is_category(t))


def bearing_sql(lon1: str, lat1: str, lon2: str, lat2: str) -> str:
    """SQL: spherical initial bearing in degrees [0, 360) from (lon1, lat1) to (lon2, lat2) (degree
    expressions)."""
    p1, p2, dl = f"radians({lat1})", f"radians({lat2})", f"radians(({lon2}) - ({lon1}))"
    return (
        f"((degrees(atan2(sin({dl}) * cos({p2}), "
        f"cos({p1}) * sin({p2}) - sin({p1}) * cos({p2}) * cos({dl}))) + 360) % 360)"
    )


def word_case_sql(word_col: str, values: Mapping[str, float]) -> str:
    """SQL: the number ``values`` gives the direction word in the VARCHAR column ``word_col``."""
    cases = " ".join(f"WHEN '{w}' THEN {v!r}" for w, v in values.items())
    return f"(CASE {word_col} {cases} END)"


def offset_sql(az: str, word_col: str, words: Sequence[str]) -> str:
    """SQL: degrees in [0, 180] between azimuth expression ``az`` (degrees clockwise from north) and
    the centre bearing of the direction word in ``word_col`` (one of ``words``)."""
    centre = word_case_sql(word_col, {w: readings.WORD_BEARINGS[w] for w in words})
    return f"abs(((({az}) - {centre}) % 360 + 540) % 360 - 180)"


AREA_KM2_SQL = "(ST_Area(ST_Transform({g}, 'EPSG:4326', 'EPSG:6933', always_xy := true)) / 1e6)"
MEASURES_SQL = {
    "area": AREA_KM2_SQL,
    "perimeter": "(ST_Perimeter_Spheroid(ST_FlipCoordinates({g})) / 1000.0)",
    "length": "(ST_Length_Spheroid(ST_FlipCoordinates({g})) / 1000.0)",
    "compactness": "(4 * pi() * "
    + AREA_KM2_SQL
    + " / pow(ST_Perimeter_Spheroid(ST_FlipCoordinates({g})) / 1000.0, 2))",
    "elongation": "ST_AsText({g})",  # the measure itself is computed in finish (local projection)
    "population": "TRY_CAST(json_extract_string({a}, '$.population') AS DOUBLE)",
}


#: The geometry kind a member needs for a size or shape measure: rankings by these measures never
#: rank a member mapped with another kind (a point has no area, a polygon no length).
MEASURE_KINDS = {
    "area": "polygon",
    "perimeter": "polygon",
    "compactness": "polygon",
    "elongation": "polygon",
    "length": "line",
}


def measure_sql(name: str, alias: str) -> str:
    """SQL for measure ``name`` (see :data:`MEASURES_SQL`) of the entities row aliased ``alias``."""
    return MEASURES_SQL[name].format(g=f"{alias}.geometry", a=f"{alias}.attributes")


def region_members_candidates(
    sub: SubTemplate,
    pool: Pool,
    *,
    min_members: int,
    member_where: str = "TRUE",
    expand: str | None = None,
    kind: str | None = None,
) -> str:
    """Candidates (stratum, region, category[, expanded parameter]): regions of the anchor role
    sampled per stratum (names without coordinates), joined with the pool members of the category
    role whose representative point lies inside; up to :data:`PER_REGION` seeded categories per
    region having ``min_members`` .. :data:`MAX_MEMBERS` members there (and >=
    ``roles.MIN_CATEGORY_MEMBERS`` in the KG). ``member_where`` filters members (alias ``p``);
    ``expand`` names a parameter whose every value becomes its own candidate; with ``kind``, a
    (region, category) pair qualifies only when every member there has that geometry kind."""
    cat, b = category_role(sub), sub.entity_roles[0]
    values = ", ".join(f"'{v}'" for v in sub.parameters.get(expand, [])) if expand else ""
    spread = f" CROSS JOIN (SELECT unnest([{values}]) AS {expand}) w" if values else ""
    same_kind = f"bool_and(p.geom_kind = '{kind}')" if kind else "TRUE"
    return (
        f"WITH b AS (SELECT s.stratum, s.entity_id, s.geometry, {bbox_cols('s.geometry')} "
        f"FROM ({pool.sample(sub.roles[b], f'{sub.id}|{b}')}) s), "
        f"m AS (SELECT b.stratum, b.entity_id AS {b}, p.category AS {cat} "
        "FROM b "
        f"JOIN pool p ON {inside_sql('b', 'p')} "
        "AND p.entity_id <> b.entity_id "
        f"AND {roles.candidate_predicate(sub.roles[cat], 'p')} AND ({member_where}) "
        f"WHERE {contains_sql('b', 'p')} "
        "GROUP BY ALL "
        f"HAVING count(*) BETWEEN {int(min_members)} AND {MAX_MEMBERS} "
        f"AND {same_kind}), "
        f"big AS ({big_categories_sql(sub.roles[cat])}), "
        "k AS (SELECT m.* "
        "FROM m "
        f"SEMI JOIN big ON big.category = m.{cat} "
        f"QUALIFY row_number() OVER (PARTITION BY m.{b} "
        f"ORDER BY {pool.order_key(f'{sub.id}|{cat}', f'm.{b}', f'm.{cat}')}) <= {PER_REGION}) "
        f"SELECT k.*{', w.' + expand if values else ''} FROM k{spread}"
    )


def region_members_gold_sql(
    sub: SubTemplate, measures: Sequence[str], member_where: str = "TRUE"
) -> str:
    """Gold SQL: the ``t`` row, region B's representative point (``b_lon``, ``b_lat``) and bbox
    width (``b_xspan``, degrees), and ``members``: list of structs (id, name, lon, lat, <measures>)
    of the KG entities of the category role inside B (B excluded), ordered by id; ``member_where``
    filters alias ``m``."""
    cat, b = category_role(sub), sub.entity_roles[0]
    extra = "".join(f", {n} := {measure_sql(n, 'e')}" for n in measures)
    extra += ", kind := e.geom_kind"
    pred = f"{roles.predicate(sub.roles[cat], 'm')} AND m.entity_id <> g.b_id AND ({member_where})"
    return (
        f"WITH g AS (SELECT t.row_id, t.kg, t.{cat}, t.{b} AS b_id, e.geometry, "
        "e.lon AS b_lon, e.lat AS b_lat, "
        f"{bbox_cols('e.geometry')} {bound_join(e=b)}), "
        f"m AS ({members_sql('g', pred, cat)}), "
        "x AS (SELECT m.row_id, list(struct_pack(id := m.entity_id, "
        "name := m.display_name, lon := m.lon, lat := m.lat"
        f"{extra}) "
        "ORDER BY m.entity_id) AS members "
        "FROM m "
        "JOIN entities e ON e.entity_id = m.entity_id "
        "GROUP BY m.row_id) "
        "SELECT t.*, g.b_lon, g.b_lat, g.x1 - g.x0 AS b_xspan, x.members "
        "FROM t "
        "JOIN g ON g.row_id = t.row_id "
        "LEFT JOIN x ON x.row_id = t.row_id"
    )


def _ids(members: Sequence[Mapping[str, Any]]) -> set[str]:
    return {m["id"] for m in members}


def _names(members: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    return [m["id"] for m in members], [m["name"] for m in members]


# ------------------------------------------------------------------------------------------ F01-F03
class _RegionRanking(Executor):
    """Shared by F01-F03: members of ``category_A`` inside region ``entity_B`` (see the module
    docstring).

    ``premise_sql``: B holds at least :meth:`needed` members (the premise of the sub-template).
    Evidence of every answer: all members (the ranking depends on each of them)."""

    evidence = ("geometry", "type")
    min_members: ClassVar[int] = 2
    expand: ClassVar[str | None] = None

    def member_where(self, sub: SubTemplate, alias: str) -> str:
        """Extra SQL filter on member rows (alias ``alias``); settlement/population filter for
        populations."""
        if "population" in sub.parameters.get("attribute_A", []):
            return (
                f"{alias}.category IN {roles.sql_in(roles.SETTLEMENT_CATEGORIES)} AND "
                f"{measure_sql('population', alias)} IS NOT NULL"
            )
        return "TRUE"

    def measures(self, sub: SubTemplate) -> list[str]:
        return []

    def needed_sql(self, sub: SubTemplate) -> str:
        """SQL (over gold columns) for the number of members the premise needs: one, since a single
        member is still the answer to "which of the X lies furthest north" (only none leaves a
        refusal)."""
        return "1"

    def member_kind(self, sub: SubTemplate) -> str | None:
        """The geometry kind every member needs for the sub-template's measures
        (:data:`MEASURE_KINDS`)."""
        kinds = {MEASURE_KINDS.get(m) for m in self.measures(sub)} - {None}
        return kinds.pop() if kinds else None

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return region_members_candidates(
            sub,
            pool,
            min_members=self.min_members,
            member_where=self.member_where(sub, "p"),
            expand=self.expand,
            kind=self.member_kind(sub),
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        return region_members_gold_sql(sub, self.measures(sub), self.member_where(sub, "m"))

    def premise_sql(self, sub: SubTemplate) -> str:
        """``row_id, holds``: B holds the members the premise needs, counted as the gold counts
        them or, whichever is more, as the members whose whole geometry meets B's, boundary
        included (``ST_Intersects``): a premise called false is false for every part of a
        member."""
        return f"""
            SELECT q.row_id,
                   greatest(coalesce(len(q.members), 0), coalesce(w.n, 0))
                   >= {self.needed_sql(sub)} AS holds
            FROM ({self.gold_sql(sub)}) AS q
            LEFT JOIN ({self.touching_sql(sub)}) AS w ON w.row_id = q.row_id
            """

    def touching_sql(self, sub: SubTemplate) -> str:
        """SQL ``row_id, n``: the members of the category role (B excluded) whose whole geometry
        intersects B's (EPSG:4326, boundary included)."""
        cat, b = category_role(sub), sub.entity_roles[0]
        return f"""
            SELECT t.row_id, count(*) AS n
            FROM t
            JOIN entities g ON g.entity_id = t.{b}
            JOIN entities m ON m.kg = t.kg AND m.category = t.{cat} AND m.entity_id <> g.entity_id
            WHERE {roles.predicate(sub.roles[cat], "m")} AND ({self.member_where(sub, "m")})
              AND ST_Intersects_Extent(m.geometry, g.geometry)
              AND ST_Intersects(m.geometry, g.geometry)
            GROUP BY t.row_id
            """

    def problem(self, row: Mapping[str, Any]) -> str | None:
        if row["b_xspan"] is not None and float(row["b_xspan"]) > 180.0:
            return "crosses_antimeridian"
        if len(row["members"] or []) < self.min_members:
            return "too_few_members"
        return None


class Extreme(_RegionRanking):
    """F01: the member of ``category_A`` in B lying furthest in ``cardinal_direction``.

    Cardinal words compare the representative point's latitude/longitude (ties within
    ``conventions.tie_tolerance_deg``); diagonal words project members into the
    azimuthal-equidistant frame centred on B's representative point and maximise the dot product
    with the bearing's unit vector (ties within ``conventions.tie_tolerance_m``). A diagonal word is
    also read on a plain longitude/latitude map (:func:`degree_score`, ties within
    ``tie_tolerance_deg``); when the two readings pick different members the question is discarded
    ``reading_dependent``. Tied members are all accepted; more than :data:`MAX_TIED` -> discarded.
    Candidates: every direction of the sub-template for each (region, category)."""

    name = "ordering.extreme"
    expand = "cardinal_direction"

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        reason = self.problem(row)
        if reason:
            return Outcome.discard(reason)
        members, direction = row["members"], row["cardinal_direction"]
        diagonal = direction not in ("north", "south", "east", "west")
        tol = float(sub.conventions["tie_tolerance_m" if diagonal else "tie_tolerance_deg"])
        origin = (float(row["b_lon"]), float(row["b_lat"]))
        best = extreme_members(
            members,
            lambda m: directional_score(direction, float(m["lon"]), float(m["lat"]), origin),
            tol,
        )
        if diagonal and _ids(best) != _ids(
            extreme_members(
                members,
                lambda m: degree_score(direction, float(m["lon"]), float(m["lat"])),
                float(sub.conventions["tie_tolerance_deg"]),
            )
        ):
            return Outcome.discard(readings.READING_DEPENDENT)
        if len(best) > MAX_TIED:
            return Outcome.discard("too_many_tied")
        if len(best) == len(members):
            return Outcome.discard("all_members_tied")
        return Outcome(formats.entity_name(*_names(best)), evidence=tuple(m["id"] for m in members))


def member_values(
    sub: SubTemplate, members: Sequence[Mapping[str, Any]], measure: str
) -> tuple[list | None, str | None]:
    """([(value, member)], None) for ``measure`` of every member, or (None, reason) when one is
    mapped with a geometry kind that lacks the measure (:data:`MEASURE_KINDS`), undefined or, for a
    size measure, not positive."""
    out = []
    for m in members:
        if MEASURE_KINDS.get(measure, m["kind"]) != m["kind"]:
            return None, "member_without_measure"
        v = (
            member_elongation(m["elongation"], float(m["lon"]), float(m["lat"]))
            if measure == "elongation"
            else m[measure]
        )
        if v is None or not math.isfinite(float(v)):
            return None, "undefined_measure"
        if measure in ("area", "perimeter", "length") and float(v) <= 0:
            return None, "degenerate_member"
        out.append((float(v), m))
    return out, None


def is_tie(v1: float, v2: float, conventions: Mapping[str, Any]) -> bool:
    """Two decisive values tie under the conventions' ``tie_tolerance_rel`` (relative to the larger
    magnitude) or ``tie_tolerance_abs``."""
    if "tie_tolerance_abs" in conventions:
        return abs(v1 - v2) <= float(conventions["tie_tolerance_abs"])
    return abs(v1 - v2) <= float(conventions["tie_tolerance_rel"]) * max(abs(v1), abs(v2))


def ranked(
    values: list[tuple[float, Mapping[str, Any]]], word: str
) -> list[tuple[float, Mapping[str, Any]]]:
    """Members sorted by value, descending for :data:`MAXIMISE` words, else ascending (ties by
    id)."""
    sign = -1.0 if word in MAXIMISE else 1.0
    return sorted(values, key=lambda vm: (sign * vm[0], vm[1]["id"]))


def shape_reading(reading: str, m: Mapping[str, Any]) -> float | None:
    """A member's compactness or elongation under ``reading``
    (:mod:`mgqa_platform.questions.readings`), planar ones in the local frame centred on its
    representative point. The member's ``elongation`` field is its WKT (:data:`MEASURES_SQL`);
    ``compactness`` its Polsby-Popper score."""
    if reading == "polsby_popper":
        return m["compactness"]
    local = to_local(shapely_wkt.loads(m["elongation"]), float(m["lon"]), float(m["lat"]))
    if reading == "reock":
        return shape.reock(local)
    if reading == "rotated_rectangle":
        return elongation(local)
    return shape.inertia_elongation(local)


def same_winner_under_readings(sub: SubTemplate, row: Mapping[str, Any], winner: str) -> bool:
    """Whether every reading of the ranked measure that ``conventions.readings`` lists (F02.2:
    compactness, elongation) puts member ``winner`` first, clear of the runner-up (:func:`is_tie`);
    True when the measure lists none."""
    listed = sub.conventions.get("readings", {}).get(row["attribute_A"], ())
    for reading in listed:
        values = [(shape_reading(reading, m), m) for m in row["members"]]
        if any(v is None for v, _ in values):
            return False
        order = ranked(values, row["rank_type"])
        if order[0][1]["id"] != winner or is_tie(order[0][0], order[1][0], sub.conventions):
            return False
    return True


class Rank(_RegionRanking):
    """F02: the member of ``category_A`` in B that ranks first by ``attribute_A`` (``rank_type``
    largest / highest sorts descending, smallest / lowest ascending). Discarded when the runner-up
    ties with the winner (``conventions.tie_tolerance_rel`` or ``tie_tolerance_abs``)."""

    name = "ordering.rank"
    expand = "rank_type"
    evidence = (
        "geometry",
        "type",
        "attribute",
    )  # attribute: the population the F02.3 ranking reads

    def measures(self, sub: SubTemplate) -> list[str]:
        return list(sub.parameters["attribute_A"])

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        reason = self.problem(row)
        if reason:
            return Outcome.discard(reason)
        values, reason = member_values(sub, row["members"], row["attribute_A"])
        if reason:
            return Outcome.discard(reason)
        order = ranked(values, row["rank_type"])
        if is_tie(order[0][0], order[1][0], sub.conventions):
            return Outcome.discard("near_tie")
        if not same_winner_under_readings(sub, row, order[0][1]["id"]):
            return Outcome.discard(readings.READING_DEPENDENT)
        return Outcome(
            formats.entity_name(*_names([order[0][1]])),
            evidence=tuple(m["id"] for m in row["members"]),
        )


class RankPosition(_RegionRanking):
    """F03: the member of ``category_A`` in B at position ``rank_position`` (second, third) when
    sorted by ``conventions.measure`` (``attribute`` longest / largest descending, shortest /
    smallest ascending). Needs rank + 1 members; discarded when the member ties with its neighbour
    above or below."""

    name = "ordering.rank_position"
    min_members = 3
    expand = "rank_position"

    def measures(self, sub: SubTemplate) -> list[str]:
        return [sub.conventions["measure"]]

    def needed_sql(self, sub: SubTemplate) -> str:
        cases = " ".join(f"WHEN '{w}' THEN {n + 1}" for w, n in RANK_WORDS.items())
        return f"(CASE q.rank_position {cases} END)"

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        reason = self.problem(row)
        if reason:
            return Outcome.discard(reason)
        k = RANK_WORDS[row["rank_position"]]
        if len(row["members"]) < k + 1:
            return Outcome.discard("too_few_members")
        values, reason = member_values(sub, row["members"], sub.conventions["measure"])
        if reason:
            return Outcome.discard(reason)
        order = ranked(values, row["attribute"])
        v = order[k - 1][0]
        if is_tie(v, order[k - 2][0], sub.conventions) or is_tie(v, order[k][0], sub.conventions):
            return Outcome.discard("near_tie")
        return Outcome(
            formats.entity_name(*_names([order[k - 1][1]])),
            evidence=tuple(m["id"] for m in row["members"]),
        )


# ---------------------------------------------------------------------------------------------- F04
def checked_readings(sub: SubTemplate) -> list[str]:
    """The direction readings (``conventions.readings.direction``) F04's member set must agree
    under."""
    return list(sub.conventions["readings"]["direction"])


def arc_half_widths(word: str, checked: Sequence[str]) -> list[float]:
    """Half-widths in degrees of ``word``'s arc under each reading of ``checked``: a bearing within
    the smallest of them from the word's centre is the word under every reading, one beyond the
    largest under none, one in between is reading-dependent."""
    return [readings.half_width_deg(word, r) for r in checked]


class Compound(Executor):
    """F04: the members of ``category_A`` within ``value`` km (geodesic, representative points) of B
    whose forward geodesic azimuth at C (degrees clockwise from true north) is
    ``cardinal_direction``.

    The direction is decided under every reading of ``conventions.readings.direction``
    (:mod:`mgqa_platform.questions.readings`): a member within the radius on which they disagree
    makes the member set reading-dependent (``reading_dependent``). B and C are never members; C
    must lie within ``value`` km of B. Other discards: a member within ``BOUNDARY_BAND`` of the
    radius (``member_near_radius``), a member within ``conventions.sector_margin_deg`` of the word's
    arc edge under a reading (``member_near_sector_edge``), an empty or too large (>
    :data:`MAX_SET`) answer. Evidence: every member within the radius. Candidates: per stratum,
    anchors B with a seeded radius, one C within 0.9 radius, and one seeded (category, direction)
    giving 1..:data:`MAX_SET` members inside the word's narrowest arc and none between it and the
    widest (estimated with equirectangular km and spherical bearings)."""

    name = "ordering.compound"
    evidence = ("geometry", "type")

    @staticmethod
    def anchors(pool: Pool) -> int:
        """Anchors B sampled per stratum: about two in three survive the discards, the cap is 30 per
        cell."""
        return max(pool.per_stratum // 2, 1)

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        cat = category_role(sub)
        b, c = sub.entity_roles[:2]
        words = sub.parameters["cardinal_direction"]
        off = offset_sql(bearing_sql("ac.clon", "ac.clat", "m.lon", "m.lat"), "w.dir", words)
        core, wide = (
            word_case_sql("w.dir", {w: f(arc_half_widths(w, checked_readings(sub))) for w in words})
            for f in (min, max)
        )
        return (
            "WITH a0 "
            "AS "
            "(SELECT *, "
            f"{seeded_choice_sql(pool, sub.parameters['value'], sub.id + '|value', 'entity_id')} "
            "AS value "
            f"FROM ({pool.sample(sub.roles[b], f'{sub.id}|{b}', self.anchors(pool))})), "
            "a AS (SELECT a0.stratum, a0.entity_id, a0.lon, a0.lat, a0.value, "
            f"{box_columns_sql('a0', 'a0.value')} "
            "FROM a0), "
            "c AS (SELECT p.entity_id, p.lon, p.lat "
            "FROM pool p "
            f"WHERE {roles.predicate(sub.roles[c], 'p')}), "
            "ac AS (SELECT a.*, c.entity_id AS ec, c.lon AS clon, c.lat AS clat FROM a JOIN c ON "
            f"{in_box_sql('a', 'c')} AND c.entity_id <> a.entity_id "
            f"WHERE {approx_km_sql('a', 'c')} <= 0.9 * a.value "
            "QUALIFY row_number() OVER (PARTITION BY a.entity_id ORDER BY "
            f"{pool.order_key(f'{sub.id}|{c}', 'a.entity_id', 'c.entity_id')}) = 1), "
            "m AS (SELECT p.entity_id, p.category, p.lon, p.lat "
            "FROM pool p "
            f"WHERE {roles.candidate_predicate(sub.roles[cat], 'p')}), "
            f"big AS ({big_categories_sql(sub.roles[cat])}), "
            f"w AS (SELECT unnest([{', '.join(repr(w) for w in words)}]) AS dir), "
            f"hits AS (SELECT ac.stratum, ac.entity_id AS eb, ac.ec, ac.value, m.category, w.dir, "
            f"count(*) FILTER (WHERE {off} < {core}) AS n, "
            f"count(*) FILTER (WHERE {off} >= {core} AND {off} <= {wide}) AS n_split "
            "FROM ac "
            f"JOIN m ON {in_box_sql('ac', 'm')} AND m.entity_id <> ac.entity_id "
            "AND m.entity_id <> ac.ec "
            f"CROSS JOIN w WHERE {approx_km_sql('ac', 'm')} <= ac.value GROUP BY ALL "
            f"HAVING n BETWEEN 1 AND {MAX_SET} AND n_split = 0) "
            f"SELECT stratum, eb AS {b}, ec AS {c}, category AS {cat}, value, "
            "dir AS cardinal_direction "
            "FROM hits "
            "SEMI JOIN big USING (category) "
            "QUALIFY row_number() OVER (PARTITION BY eb ORDER BY "
            f"{pool.order_key(sub.id, 'eb', 'category', 'dir')}) = 1"
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        cat = category_role(sub)
        b, c = sub.entity_roles[:2]
        reach = f"bx.value * {1 + BOUNDARY_BAND}"
        return (
            f"WITH bc AS (SELECT t.row_id, t.kg, t.{cat} AS category, t.value, "
            "b.entity_id AS b_id, b.lon, b.lat, "
            "x.entity_id AS c_id, x.lon AS c_lon, x.lat AS c_lat, "
            f"{geodesic_km_sql('b', 'x')} AS bc_km "
            "FROM t "
            f"JOIN entities b ON b.entity_id = t.{b} JOIN entities x ON x.entity_id = t.{c}), "
            f"bx AS (SELECT bc.*, {box_columns_sql('bc', 'bc.value * 1.01')} FROM bc), "
            "m AS (SELECT bx.row_id, e.entity_id, e.display_name, e.lon, e.lat, "
            f"{geodesic_km_sql('bx', 'e')} AS km, "
            f"{bearing_sql('bx.c_lon', 'bx.c_lat', 'e.lon', 'e.lat')} AS brg "
            "FROM bx "
            "JOIN entities e ON e.kg = bx.kg "
            f"AND e.category = bx.category AND {roles.predicate(sub.roles[cat], 'e')} "
            "AND e.entity_id <> bx.b_id "
            f"AND e.entity_id <> bx.c_id AND {in_box_sql('bx', 'e')}), "
            "x AS (SELECT m.row_id, list(struct_pack(id := m.entity_id, "
            "name := m.display_name, lon := m.lon, lat := m.lat, "
            "km := m.km, brg := m.brg) "
            "ORDER BY m.entity_id) AS members "
            "FROM m "
            "JOIN bx ON bx.row_id = m.row_id "
            f"WHERE m.km <= {reach} GROUP BY m.row_id) "
            "SELECT t.*, bc.c_lon, bc.c_lat, bc.bc_km, x.members "
            "FROM t "
            "JOIN bc ON bc.row_id = t.row_id "
            "LEFT JOIN x ON x.row_id = t.row_id"
        )

    def premise_sql(self, sub: SubTemplate) -> str:
        """Premise: at least one member within ``value`` km of B lies in the direction from C under
        its widest reading, the half-plane within 90 degrees of the word's bearing
        (``readings.WORD_BEARINGS``; spherical bearing from C, degrees): a false premise is then
        false under the quadrant and 8-sector readings as well."""
        off = offset_sql("x.brg", "q.cardinal_direction", sub.parameters["cardinal_direction"])
        within = f"x.km <= q.value AND {off} <= 90"
        return f"""
            SELECT q.row_id,
                   coalesce(len(list_filter(q.members, x -> {within})), 0) > 0
                   AS holds
            FROM ({self.gold_sql(sub)}) AS q
            """

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        radius = float(row["value"])
        if not 0 < radius < formats.HALF_CIRCUMFERENCE_KM:
            return Outcome.discard("radius_out_of_range")
        if float(row["bc_km"]) > radius:
            return Outcome.discard("entity_c_outside_radius")
        inside, ambiguous = members_in_radius(row["members"], radius)
        if ambiguous:
            return Outcome.discard("member_near_radius")
        direction, checked = row["cardinal_direction"], checked_readings(sub)
        margin = float(sub.conventions["sector_margin_deg"])
        chosen = []
        for m in inside:
            az, _, dist = GEOD.inv(
                float(row["c_lon"]), float(row["c_lat"]), float(m["lon"]), float(m["lat"])
            )
            if dist <= 0:
                return Outcome.discard("member_at_entity_c")
            verdicts = readings.direction_verdicts(az % 360.0, direction, checked)
            if len(verdicts) > 1:
                return Outcome.discard(readings.READING_DEPENDENT)
            if min(readings.edge_distance_deg(az % 360.0, direction, r) for r in checked) < margin:
                return Outcome.discard("member_near_sector_edge")
            if verdicts.pop():
                chosen.append(m)
        if not chosen:
            return Outcome.discard("empty_set")
        if len(chosen) > MAX_SET:
            return Outcome.discard("set_too_large")
        return Outcome(formats.entity_set(*_names(chosen)), evidence=tuple(m["id"] for m in inside))
