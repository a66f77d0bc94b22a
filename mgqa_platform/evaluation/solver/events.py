"""Reference solvers for SFID I (spatio-temporal events), from the gold triples alone.

Events are cited entities with a temporal scope (``Entity.times``: xsd date / dateTime literals) and
a point (epicentre) or footprint polygon; geometries are EPSG:4326 lon/lat (x = longitude).

* dates: the UTC calendar date of the scope's earliest value (an interval's beginning); values with
  only a date, a month or a year keep their precision;
* areas: km2 in EPSG:6933 (pyproj vertex projection, shapely area; :func:`geo.area_km2`);
* distances: km; point to point the WGS84 geodesic (``pyproj.Geod.inv``); point to footprint the
  shapely distance to the footprint in an azimuthal-equidistant frame around the point built from
  geodesic azimuth/distance of every vertex (x = d sin az, y = d cos az), i.e. vertices exact, edges
  straight;
* "affects": a footprint affects a polygon when the intersection has at least ``min_overlap_km2``
  and a point when it covers the point's representative point; a point event affects a point within
  ``impact_radius_km`` and a polygon that contains it or lies within that radius.
"""

from __future__ import annotations

import datetime as _dt
import re

from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from mgqa_platform.evaluation.facts import Entity
from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.geo import (
    area_km2,
    geodesic_km,
    geometry_of,
    is_polygonal,
    project_local,
)
from mgqa_platform.questions import formats

_PARTIAL = re.compile(r"\d{4}(-\d{2}(-\d{2})?)?")


# ------------------------------------------------------------------------------------------ helpers
def utc_date(value: str) -> str:
    """``2015-12-06T16:37:05.270Z`` -> ``2015-12-06``; ``2015-11-22T23:30:00-05:00`` ->
    ``2015-11-23``; ``2006-07-22`` / ``2006-07`` / ``2006`` unchanged. Raises Unsolvable for other
    text."""
    s = value.strip()
    if _PARTIAL.fullmatch(s):
        return s
    if re.fullmatch(
        r"\d{4}-\d{2}-\d{2}(Z|[+-]\d{2}:\d{2})", s
    ):  # xsd:date with a zone: the day itself
        return s[:10]
    try:
        t = _dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError as exc:
        raise Unsolvable("unparseable_time", s) from exc
    if t.tzinfo is not None:
        t = t.astimezone(_dt.UTC)
    return t.date().isoformat()


def event_date(e: Entity) -> str:
    """UTC calendar date of the start of the event's temporal scope."""
    if not e.times:
        raise Unsolvable("not_in_triples", f"{e.entity_id}: no temporal scope cited")
    return min(utc_date(t) for t in e.times)


def is_point(g: BaseGeometry) -> bool:
    return g.geom_type in ("Point", "MultiPoint")


def km_to_polygon(lon: float, lat: float, poly: BaseGeometry) -> float:
    """km from (lon, lat) to ``poly`` (0 inside) in the geodesic azimuthal-equidistant frame of the
    point (:func:`geo.local_xy`)."""
    return float(project_local(poly, lon, lat).distance(Point(0.0, 0.0))) / 1000.0


def affects(p: Problem, ev: Entity, ent: Entity) -> bool:
    """The event affects the entity under the sub-template's conventions (module docstring)."""
    c = p.conventions
    gev, gen = geometry_of(ev), geometry_of(ent)
    if not is_point(gev):
        if is_polygonal(gen):
            min_km2 = float(c.get("min_overlap_km2", c.get("min_area_km2", 0.0)))
            return bool(gev.intersects(gen)) and area_km2(gev.intersection(gen)) >= min_km2
        return bool(gev.intersects(Point(*ent.lonlat)))
    radius = float(c.get("impact_radius_km", 0.0))
    if is_polygonal(gen):
        return bool(gen.intersects(Point(*ev.lonlat))) or km_to_polygon(*ev.lonlat, gen) <= radius
    return geodesic_km(ev.lonlat, ent.lonlat) <= radius


# ---------------------------------------------------------------------------------------------- I01
@solves("event.distance")
def distance(p: Problem) -> dict:
    """I01: km from the event (point or footprint) to entity_B's representative point."""
    rev, rb = p.sub.entity_roles[:2]
    ev, b = p.facts.bound(rev), p.facts.bound(rb)
    event_date(ev)  # the time period is part of the question: the scope must be cited
    g = geometry_of(ev)
    km = geodesic_km(ev.lonlat, b.lonlat) if is_point(g) else km_to_polygon(*b.lonlat, g)
    if km <= 0:
        raise Unsolvable("inside_footprint")
    return formats.distance_km(km)


# ---------------------------------------------------------------------------------------------- I02
@solves("event.affected")
def affected(p: Problem) -> dict:
    """I02: the cited members of category_A that the event affects."""
    ev = p.facts.bound(p.sub.entity_roles[0])
    hit = [m for m in p.facts.others() if m.geometry is not None and affects(p, ev, m)]
    return formats.entity_set(
        [m.entity_id for m in hit], [m.name or m.entity_id for m in hit], allow_empty=True
    )


# ---------------------------------------------------------------------------------------------- I03
@solves("event.hit_date")
def hit_date(p: Problem) -> dict:
    """I03: the UTC date of the event that hit entity_A (the hit itself is re-checked)."""
    rev, ra = p.sub.entity_roles[:2]
    ev, a = p.facts.bound(rev), p.facts.bound(ra)
    if not affects(p, ev, a):
        raise Unsolvable("not_affected", "the cited geometries do not show the hit")
    return formats.date(event_date(ev))


# ---------------------------------------------------------------------------------------- I04 / I05
@solves("event.area")
def area(p: Problem) -> dict:
    """I04: EPSG:6933 km2 of the footprint; I05: of footprint n entity_A."""
    roles = p.sub.entity_roles
    g = geometry_of(p.facts.bound(roles[0]))
    if len(roles) > 1:
        other = geometry_of(p.facts.bound(roles[1]))
        g = g.intersection(other) if g.intersects(other) else None
    return formats.area_km2(area_km2(g))
