"""Executors for SFID I: spatio-temporal events (templates I01-I05).

Events are entities with ``valid_from``: ``event_point`` (an epicentre / ignition point) or
``event_area`` (a footprint polygon). Geometries are EPSG:4326 with x = lon, y = lat.

* Dates: the UTC calendar date of ``valid_from`` (:func:`event_date`); a KG value with only a year
  or a month keeps that precision.
* Areas: km2 in the equal-area EPSG:6933 (``ST_Transform(g, 'EPSG:4326', 'EPSG:6933', always_xy :=
  true)``: the input is read lon/lat); the tests cross-check them with
  ``pyproj.Geod.geometry_area_perimeter``.
* "Affects" (:func:`affects_sql`, by the entity's own geometry kind, so members of a category are
  judged by what each is mapped as): a footprint affects a polygon when their intersection has at
  least ``min_overlap_km2`` (EPSG:6933) and a point or line when it contains its representative
  point; a point event affects a point within ``impact_radius_km`` (geodesic) and a polygon that
  contains it or lies within that radius (nearest point of the polygon searched in the local
  equirectangular frame of SFID A, then the WGS84 geodesic length).
* Distances: point to point WGS84 geodesic (``ST_Distance_Spheroid`` on (lat, lon)); point to
  footprint in a local azimuthal-equidistant frame centred on the point (vertices mapped exactly,
  edges straight in the frame: :func:`distance_to_footprint_km`).

Candidate joins carry ids and lon/lat bounding boxes (grown by the reach in km) before any exact
predicate."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from collections.abc import Mapping
from typing import Any

from shapely import ops as shapely_ops
from shapely import wkt as shapely_wkt
from shapely.geometry import Point

from mgqa_platform.lexicon import MONTHS
from mgqa_platform.questions import formats, roles
from mgqa_platform.questions.catalog import SubTemplate
from mgqa_platform.questions.executor import Executor, Outcome, Pool, bound_join, geodesic_km_sql
from mgqa_platform.questions.executors.containment import KM_PER_DEG_MIN, approx_km_sql
from mgqa_platform.questions.executors.direction import aeqd_xy, cap_per_stratum
from mgqa_platform.questions.executors.distance import frame_to_km_sql, nearest_point_sql
from mgqa_platform.questions.executors.topology import boxes_meet_sql

POINT_TYPES = {
    "poi",
    "place",
    "event_point",
    "category_poi",
}  #: role types whose entities are points
MAX_MEMBERS = 150  #: I02: larger affected sets are discarded (too_many_members)
_DAY, _MONTH, _YEAR = (re.compile(p) for p in (r"\d{4}-\d{2}-\d{2}", r"\d{4}-\d{2}", r"\d{4}"))


# ---------------------------------------------------------------- pure helpers
def event_date(valid_from: str | None) -> str | None:
    """UTC calendar date of an ISO ``valid_from``: ``2015-11-22T23:30:00-05:00`` -> ``2015-11-23``;
    ``1999-06-15``, ``1999-06`` and ``1999`` are kept as they are (day, month, year precision). None
    when unparseable."""
    s = (valid_from or "").strip()
    if _DAY.fullmatch(s) or _MONTH.fullmatch(s) or _YEAR.fullmatch(s):
        return s
    try:
        t = _dt.datetime.fromisoformat(s)
    except ValueError:
        return None
    if t.tzinfo is not None:
        t = t.astimezone(_dt.UTC)
    return t.date().isoformat()


def date_stated(name: str, date: str) -> bool:
    """Whether the display name ``name`` states the date ``date`` (``YYYY``, ``YYYY-MM`` or
    ``YYYY-MM-DD``) at that precision, in ISO form or in the English form of event names ("30
    November 2015", "November 2015", the year as a word of its own): "the magnitude 2.1 earthquake
    of 30 November 2015 at 04:30 UTC" states ``2015-11-30``; "the Jesusita Fire of 2009" states
    ``2009`` but not ``2009-05-05``."""
    y, *rest = date.split("-")
    forms = [date]
    if len(rest) == 2:
        forms.append(f"{int(rest[1])} {MONTHS[int(rest[0]) - 1]} {y}")
    elif len(rest) == 1:
        forms.append(f"{MONTHS[int(rest[0]) - 1]} {y}")
    return any(re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", name) for f in forms)


def time_period(date: str | None) -> str | None:
    """The calendar year of an event date as a period: ``2015-11-22`` -> ``2015-01-01 to
    2015-12-31``."""
    return f"{date[:4]}-01-01 to {date[:4]}-12-31" if date else None


def distance_to_footprint_km(wkt: str, lon: float, lat: float) -> float:
    """km from (lon, lat) to the nearest point of polygon ``wkt`` (0 inside), in the WGS84
    azimuthal-equidistant frame centred on the point (exact distances from the centre to every
    vertex; edges straight in the frame)."""

    def project(xs, ys):
        pts = aeqd_xy((lon, lat), list(zip(xs, ys, strict=True)))
        return [p[0] for p in pts], [p[1] for p in pts]

    return shapely_ops.transform(project, shapely_wkt.loads(wkt)).distance(Point(0.0, 0.0)) / 1000.0


# ---------------------------------------------------------------- SQL helpers
def area_km2_sql(g: str) -> str:
    """SQL: area in km2 of lon/lat geometry ``g`` in EPSG:6933 (equal-area cylindrical)."""
    return f"(ST_Area(ST_Transform({g}, 'EPSG:4326', 'EPSG:6933', always_xy := true)) / 1e6)"


def box_sql(g: str, lat: str, km: float) -> str:
    """SQL select-list items ``x0, x1, y0, y1``: bbox of geometry ``g`` grown by ``km`` (longitude
    margin scaled by the cosine of latitude ``lat``, capped near the poles); a superset of
    everything within ``km``."""
    d = float(km) / KM_PER_DEG_MIN
    dx = f"{d} / greatest(cos(radians(least(abs({lat}) + {d}, 89.0))), 0.01)"
    return (
        f"ST_XMin({g}) - {dx} AS x0, ST_XMax({g}) + {dx} AS x1, ST_YMin({g}) - {d} AS y0, "
        f"ST_YMax({g}) + {d} AS y1"
    )


def _is_point(role_type: str) -> bool:
    return role_type in POINT_TYPES


def reach_km(sub: SubTemplate) -> float:
    """How far (km) an event reaches beyond its geometry: ``impact_radius_km`` for point events,
    else 0."""
    return float(sub.conventions.get("impact_radius_km", 0.0))


def affects_sql(ev_type: str, ev: str, ent: str, radius_km: float, min_km2: float) -> str:
    """SQL boolean: the event (alias ``ev``, columns geometry/lon/lat) affects the entity ``ent``
    (module docstring). The rule follows the entity's own ``geom_kind``, so that every member of a
    category is judged by what it is mapped as."""
    pt_ev, pt_ent = f"ST_Point({ev}.lon, {ev}.lat)", f"ST_Point({ent}.lon, {ent}.lat)"
    polygon = f"{ent}.geom_kind = 'polygon'"
    if not _is_point(ev_type):
        inter = f"ST_Intersection({ev}.geometry, {ent}.geometry)"
        overlap = (
            f"ST_Intersects({ev}.geometry, {ent}.geometry) "
            f"AND {area_km2_sql(inter)} >= {float(min_km2)}"
        )
        return f"(CASE WHEN {polygon} THEN {overlap} ELSE ST_Contains({ev}.geometry, {pt_ent}) END)"
    km = frame_to_km_sql(
        f"{ev}.lon", f"{ev}.lat", nearest_point_sql(f"{ev}.lon", f"{ev}.lat", f"{ent}.geometry")
    )[2]
    near_polygon = f"ST_Contains({ent}.geometry, {pt_ev}) OR {km} <= {float(radius_km)}"
    return (
        f"(CASE WHEN {polygon} THEN {near_polygon} "
        f"ELSE {geodesic_km_sql(ev, ent)} <= {float(radius_km)} END)"
    )


def _sub_affects(sub: SubTemplate) -> str:
    """:func:`affects_sql` of the event (first entity role, alias ``ev``) and the entity aliased
    ``en``."""
    ev_role = sub.entity_roles[0]
    c = sub.conventions
    min_km2 = c.get("min_overlap_km2", c.get("min_area_km2", 0.0))
    return affects_sql(sub.roles[ev_role], "ev", "en", reach_km(sub), min_km2)


def _category_pred(sub: SubTemplate, alias: str) -> str:
    """SQL: the conventions' category filter (``categories: region`` = roles.REGION_CATEGORIES,
    ``not_region``)."""
    cats = "(" + ", ".join(f"'{c}'" for c in roles.REGION_CATEGORIES) + ")"
    return {
        "region": f"{alias}.category IN {cats}",
        "not_region": f"{alias}.category NOT IN {cats}",
    }.get(sub.conventions.get("categories"), "TRUE")


#: candidate point events are sampled among those whose point lies in or next to a SAMPLE_CELL_DEG
#: grid cell holding an entity of the partner role (footprints are not prefiltered);
#: EVENTS_PER_STRATUM_FACTOR x per_stratum events per stratum are kept, and each keeps at most
#: PAIRS_PER_EVENT seeded partners before geometries are joined: bounded work on a global event
#: catalog
SAMPLE_CELL_DEG = 0.5
EVENTS_PER_STRATUM_FACTOR = 4
PAIRS_PER_EVENT = 8


def _pairs_sql(
    sub: SubTemplate,
    pool: Pool,
    ent_role: str,
    holds: str,
) -> str:
    """Candidates: per event (first entity role) one seeded entity of ``ent_role`` whose box meets
    the event's box grown by its reach and for which ``holds`` (SQL over aliases ev, en) is true;
    capped per stratum. Events are sampled first (see SAMPLE_CELL_DEG), so the work does not grow
    with the event catalog."""
    ev_role = sub.entity_roles[0]
    r = reach_km(sub)
    cell = (
        f"CAST(floor(p.lat / {SAMPLE_CELL_DEG}) AS BIGINT) AS gy, "
        f"CAST(floor(p.lon / {SAMPLE_CELL_DEG}) AS BIGINT) AS gx"
    )
    return cap_per_stratum(
        f"WITH en AS (SELECT p.entity_id, {cell}, {box_sql('p.geometry', 'p.lat', 0)} "
        "FROM pool p "
        f"WHERE {roles.predicate(sub.roles[ent_role], 'p')} "
        f"AND {_category_pred(sub, 'p')}), "
        "cells AS (SELECT DISTINCT gy + dy AS gy, gx + dx AS gx "
        "FROM en, range(-1, 2) a(dy), range(-1, 2) b(dx)), "
        f"ev AS (SELECT p.entity_id, p.stratum, {box_sql('p.geometry', 'p.lat', r)} FROM pool p "
        f"LEFT JOIN cells c ON c.gy = CAST(floor(p.lat / {SAMPLE_CELL_DEG}) AS BIGINT) "
        f"AND c.gx = CAST(floor(p.lon / {SAMPLE_CELL_DEG}) AS BIGINT) "
        f"WHERE {roles.predicate(sub.roles[ev_role], 'p')} "
        "AND (c.gy IS NOT NULL OR p.geom_kind <> 'point') "
        "QUALIFY row_number() OVER (PARTITION BY p.stratum ORDER BY "
        f"{pool.order_key(f'{sub.id}|events', 'p.entity_id')}) <= "
        f"{EVENTS_PER_STRATUM_FACTOR * pool.per_stratum}), "
        "near AS (SELECT ev.stratum, ev.entity_id AS ev_id, en.entity_id AS en_id "
        "FROM ev "
        f"JOIN en ON {boxes_meet_sql('ev', 'en')} "
        f"WHERE ev.entity_id <> en.entity_id "
        "QUALIFY row_number() OVER (PARTITION BY ev.entity_id ORDER BY "
        f"{pool.order_key(f'{sub.id}|near', 'ev.entity_id', 'en.entity_id')}) <= "
        f"{PAIRS_PER_EVENT}) "
        f"SELECT n.stratum, n.ev_id AS {ev_role}, n.en_id AS {ent_role} "
        "FROM near n "
        "JOIN pool ev ON ev.entity_id = n.ev_id "
        f"JOIN pool en ON en.entity_id = n.en_id WHERE {holds} "
        "QUALIFY row_number() OVER (PARTITION BY n.ev_id ORDER BY "
        f"{pool.order_key(f'{sub.id}|{ent_role}', 'n.ev_id', 'n.en_id')}) = 1",
        pool,
        f"{sub.id}|{ev_role}",
        ev_role,
    )


# ---------------------------------------------------------------- I01 event distance
class EventDistance(Executor):
    """I01: km from an event to entity B; ``time_period`` (extra) is the calendar year of the
    event's date.

    Candidates: per event one seeded B whose point lies within ``candidate_radius_km`` (box, then
    equirectangular km from the event's representative point; footprints: box grown by the radius, B
    outside the footprint)."""

    name = "event.distance"
    gold_bound_only = True
    evidence = ("geometry", "time")

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        ev_role, b = sub.entity_roles[:2]
        radius = float(sub.conventions["candidate_radius_km"])
        near = (
            f"{approx_km_sql('ev', 'en')} <= {radius}"
            if _is_point(sub.roles[ev_role])
            else "NOT ST_Contains(ev.geometry, ST_Point(en.lon, en.lat))"
        )  # inside: distance 0
        wide = dataclasses.replace(sub, conventions={**sub.conventions, "impact_radius_km": radius})
        return _pairs_sql(wide, pool, b, near)

    def gold_sql(self, sub: SubTemplate) -> str:
        ev_role, b = sub.entity_roles[:2]
        dist = geodesic_km_sql("ev", "en") if _is_point(sub.roles[ev_role]) else "NULL"
        return (
            f"SELECT t.row_id, ev.valid_from, {dist} AS km, "
            "ST_AsText(ev.geometry) AS event_wkt, en.lon, en.lat "
            f"{bound_join(ev=ev_role, en=b)}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        date = event_date(row["valid_from"])
        if date is None:
            return Outcome.discard("no_event_date")
        km = (
            row["km"]
            if row["km"] is not None
            else distance_to_footprint_km(row["event_wkt"], row["lon"], row["lat"])
        )
        if km <= 0.0:
            return Outcome.discard("inside_footprint")
        if km < float(sub.conventions.get("min_km", 0.0005)):
            return Outcome.discard("coincident_points")
        if km > formats.HALF_CIRCUMFERENCE_KM:
            return Outcome.discard("distance_out_of_range")
        return Outcome(formats.distance_km(km), extras={"time_period": time_period(date)})


# ---------------------------------------------------------------- I02 affected members
class Affected(Executor):
    """I02: the members of ``category_A`` (in the event's KG) that the event affects
    (:func:`affects_sql`).

    Candidates: per event one seeded category (>= MIN_CATEGORY_MEMBERS members in the KG,
    conventions' category filter) with 1..MAX_MEMBERS affected members. ``premise_sql``: at least
    one member is affected."""

    name = "event.affected"
    evidence = ("geometry", "type", "time")

    def _cat(self, sub: SubTemplate) -> str:
        return next(r for r, t in sub.roles.items() if roles.is_category(t))

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        ev_role, cat = sub.entity_roles[0], self._cat(sub)
        r = reach_km(sub)
        return cap_per_stratum(
            "WITH cats AS (SELECT p.category "
            "FROM pool p "
            f"WHERE {roles.candidate_predicate(sub.roles[cat], 'p')} "
            f"AND {_category_pred(sub, 'p')} "
            f"GROUP BY 1 HAVING count(*) >= {roles.MIN_CATEGORY_MEMBERS}), "
            f"ev AS (SELECT p.entity_id, p.stratum, {box_sql('p.geometry', 'p.lat', r)} "
            "FROM pool p "
            f"WHERE {roles.predicate(sub.roles[ev_role], 'p')}), "
            f"en AS (SELECT p.entity_id, p.category, {box_sql('p.geometry', 'p.lat', 0)} "
            "FROM pool p "
            "SEMI JOIN cats USING (category) "
            f"WHERE {roles.predicate(sub.roles[cat], 'p')}), "
            "near AS (SELECT ev.stratum, ev.entity_id AS ev_id, en.entity_id AS en_id, "
            "en.category "
            "FROM ev "
            f"JOIN en ON {boxes_meet_sql('ev', 'en')}), "
            "hit AS (SELECT n.stratum, n.ev_id, n.category "
            "FROM near n "
            "JOIN pool ev ON ev.entity_id = n.ev_id "
            "JOIN pool en ON en.entity_id = n.en_id "
            f"WHERE {_sub_affects(sub)} GROUP BY ALL HAVING count(*) <= {MAX_MEMBERS}) "
            f"SELECT stratum, ev_id AS {ev_role}, category AS {cat} FROM hit "
            "QUALIFY row_number() OVER (PARTITION BY ev_id ORDER BY "
            f"{pool.order_key(f'{sub.id}|{cat}', 'ev_id', 'category')}) = 1",
            pool,
            f"{sub.id}|{ev_role}",
            ev_role,
        )

    def _members(self, sub: SubTemplate) -> str:
        """SQL CTEs ``ev`` (t's events with boxes) and ``hit`` (row_id, entity_id, display_name of
        affected members)."""
        ev_role, cat = sub.entity_roles[0], self._cat(sub)
        return (
            f"WITH ev AS (SELECT t.row_id, t.kg, t.{cat} AS category, e.geometry, e.lon, "
            f"e.lat, {box_sql('e.geometry', 'e.lat', reach_km(sub))} "
            f"{bound_join(e=ev_role)}), "
            "mb AS (SELECT m.entity_id, m.kg, m.category, "
            f"{box_sql('m.geometry', 'm.lat', 0)} "
            "FROM entities m "
            "WHERE m.kg IN (SELECT kg "
            f"FROM t) AND m.category IN (SELECT {cat} "
            f"FROM t) AND {roles.predicate(sub.roles[cat], 'm')}), "
            "hit AS (SELECT ev.row_id, en.entity_id, en.display_name "
            "FROM ev "
            "JOIN mb ON mb.kg = ev.kg AND mb.category = ev.category "
            f"AND {boxes_meet_sql('ev', 'mb')} "
            "JOIN entities en ON en.entity_id = mb.entity_id "
            f"WHERE {_sub_affects(sub)}) "
        )

    def gold_sql(self, sub: SubTemplate) -> str:
        return (
            f"{self._members(sub)}SELECT t.row_id, "
            "list(struct_pack(id := hit.entity_id, name := hit.display_name) "
            "ORDER BY hit.entity_id) FILTER (WHERE hit.entity_id IS NOT NULL) AS members "
            "FROM t "
            "LEFT JOIN hit ON hit.row_id = t.row_id "
            "GROUP BY t.row_id"
        )

    def premise_sql(self, sub: SubTemplate) -> str:
        return (
            f"{self._members(sub)}SELECT t.row_id, count(hit.entity_id) > 0 AS holds "
            "FROM t "
            "LEFT JOIN hit ON hit.row_id = t.row_id "
            "GROUP BY t.row_id"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        members = row["members"] or []
        if not members:
            return Outcome.discard("no_affected_member")
        if len(members) > MAX_MEMBERS:
            return Outcome.discard("too_many_members")
        ids = [m["id"] for m in members]
        return Outcome(formats.entity_set(ids, [m["name"] for m in members]), evidence=tuple(ids))


# ---------------------------------------------------------------- I03 hit date
class _PairPremise(Executor):
    """Shared by I03/I05: the event (first entity role) and entity A; the premise is
    :func:`affects_sql`."""

    def _join(self, sub: SubTemplate) -> str:
        ev_role, a = sub.entity_roles[:2]
        return f"{bound_join(ev=ev_role, en=a)}"

    def premise_sql(self, sub: SubTemplate) -> str | None:
        if len(sub.entity_roles) < 2:  # I04: nothing presupposed
            return None
        return f"SELECT t.row_id, coalesce({_sub_affects(sub)}, FALSE) AS holds {self._join(sub)}"


class HitDate(_PairPremise):
    """I03: the UTC date of the event's ``valid_from`` (:func:`event_date`), asked for an entity it
    affected.

    Candidates: per event one seeded affected entity of role entity_A; the gold query re-checks the
    hit. An event whose display name states the gold (:func:`date_stated`: an earthquake is named by
    its day) is discarded as ``date_in_name``: the question would hand its answer to the reader."""

    name = "event.hit_date"
    gold_bound_only = True
    evidence = ("geometry", "time")

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        return _pairs_sql(sub, pool, sub.entity_roles[1], _sub_affects(sub))

    def gold_sql(self, sub: SubTemplate) -> str:
        return (
            f"SELECT t.row_id, ev.valid_from, ev.display_name AS event_name, "
            f"{_sub_affects(sub)} AS hit {self._join(sub)}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if not row["hit"]:
            return Outcome.discard("not_affected")
        date = event_date(row["valid_from"])
        if date is None:
            return Outcome.discard("no_event_date")
        if date_stated(row["event_name"] or "", date):
            return Outcome.discard("date_in_name")
        return Outcome(formats.date(date))


# ---------------------------------------------------------------- I04 / I05 affected area
class AffectedArea(_PairPremise):
    """I04: EPSG:6933 area (km2) of the footprint; I05 (a second entity role): of footprint
    intersect entity_A.

    Candidates: I04 footprints sampled per stratum; I05 per footprint one seeded entity overlapping
    it by at least ``min_area_km2``. ``premise_sql`` (I05): that overlap."""

    name = "event.area"
    gold_bound_only = True
    evidence = ("geometry", "time")

    def candidates(self, sub: SubTemplate, pool: Pool) -> str:
        ev_role = sub.entity_roles[0]
        if len(sub.entity_roles) == 1:
            return (
                f"SELECT s.stratum, s.entity_id AS {ev_role} "
                f"FROM ({pool.sample(sub.roles[ev_role], f'{sub.id}|{ev_role}')}) s"
            )
        return _pairs_sql(sub, pool, sub.entity_roles[1], _sub_affects(sub))

    def gold_sql(self, sub: SubTemplate) -> str:
        ev_role = sub.entity_roles[0]
        if len(sub.entity_roles) == 1:
            return (
                "SELECT t.row_id, ST_IsValid(ev.geometry) AS valid, "
                f"{area_km2_sql('ev.geometry')} AS km2 {bound_join(ev=ev_role)}"
            )
        return (
            f"SELECT t.row_id, ST_IsValid(ev.geometry) AND ST_IsValid(en.geometry) AS valid, "
            "CASE WHEN ST_Intersects(ev.geometry, en.geometry) "
            f"THEN {area_km2_sql('ST_Intersection(ev.geometry, en.geometry)')} "
            "ELSE 0.0 END AS km2 "
            f"{self._join(sub)}"
        )

    def finish(self, sub: SubTemplate, row: Mapping[str, Any]) -> Outcome:
        if not row["valid"]:
            return Outcome.discard("invalid_geometry")
        if row["km2"] is None or row["km2"] < float(sub.conventions["min_area_km2"]):
            return Outcome.discard("no_overlap" if len(sub.entity_roles) > 1 else "negligible_area")
        if row["km2"] > formats.EARTH_AREA_KM2:
            return Outcome.discard("area_out_of_range")
        return Outcome(formats.area_km2(row["km2"]))
