"""Reference solvers for SFID F (spatial comparison and ordering), from the gold triples alone.

Positions are representative points (:attr:`Entity.lonlat`, lon/lat degrees, EPSG:4326 with x =
longitude). The candidates are the cited members (``Facts.others()``): the generator cites every
member of category_A in entity_B (F01-F03) and every member within the radius (F04), so the ranking
can be redone on them.

Measures, recomputed independently of the generator's SQL:

* area: km2 in EPSG:6933 (pyproj vertex projection + shapely area; :func:`geo.area_km2`);
* perimeter / length: WGS84 geodesic km of every ring / part (``pyproj.Geod.line_length``);
* compactness: Polsby-Popper ``4 pi A / P^2`` (A km2, P km);
* elongation: ``1 - short/long`` side of the minimum-area enclosing rectangle (own rotating-calipers
  search over the convex hull, :func:`geo.min_area_rectangle_sides`) of the member projected into an
  azimuthal-equidistant frame centred on its representative point, built from geodesic azimuths and
  distances (:func:`geo.local_xy`: x = d sin az, y = d cos az, metres; not PROJ's aeqd of shape.py);
* population: the cited ``population`` attribute;
* directions: latitude / longitude degrees (cardinal words); for diagonal words the projection of
  the member on the bearing's unit vector in the same azimuthal-equidistant frame centred on
  entity_B, i.e. ``d cos(az - bearing)`` metres; F04 uses the forward geodesic azimuth at entity_C
  (degrees clockwise from north) and the geodesic km from entity_B.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from mgqa_platform.evaluation.facts import Entity
from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.geo import (
    GEOD,
    area_km2,
    geodesic_km,
    geodesic_length_m,
    local_xy,
    min_area_rectangle_sides,
)
from mgqa_platform.questions import formats

MAXIMISE = {"largest", "highest", "longest", "most"}
RANKS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
BEARING = {"northeast": 45.0, "southeast": 135.0, "southwest": 225.0, "northwest": 315.0}
#: F04 sectors [lo, hi) in degrees clockwise from north (wrapping at 360), as the sub-templates
#: state them
SECTOR = {
    "north": (315.0, 45.0),
    "east": (45.0, 135.0),
    "south": (135.0, 225.0),
    "west": (225.0, 315.0),
    "northeast": (0.0, 90.0),
    "southeast": (90.0, 180.0),
    "southwest": (180.0, 270.0),
    "northwest": (270.0, 360.0),
}


def _answer(members: list[Entity]) -> dict:
    return formats.entity_name(
        [m.entity_id for m in members], [m.name or m.entity_id for m in members]
    )


def _members(p: Problem) -> list[Entity]:
    out = [e for e in p.facts.others() if e.geometry is not None]
    if not out:
        raise Unsolvable("not_in_triples", "no member cited")
    return out


# ----------------------------------------------------------------------------------------- measures
def vertices(g: BaseGeometry) -> np.ndarray:
    return shapely.get_coordinates(g)


def elongation(e: Entity) -> float | None:
    """1 - short/long side of the minimum-area rectangle of the member in its local frame (0 for a
    square)."""
    lon0, lat0 = e.lonlat
    xy = vertices(e.geometry)
    x, y = local_xy(lon0, lat0, xy[:, 0], xy[:, 1])
    sides = min_area_rectangle_sides(np.column_stack([x, y]))
    if sides is None or sides[1] <= 0:
        return None
    return 1.0 - sides[0] / sides[1]


def measure(e: Entity, name: str) -> float:
    """The named measure of one member (see the module docstring); raises Unsolvable when
    undefined."""
    g = e.geometry
    if name == "area":
        v = area_km2(g)
    elif name in ("perimeter", "length"):
        v = geodesic_length_m(g) / 1000.0
    elif name == "compactness":
        per = geodesic_length_m(g) / 1000.0
        if per <= 0:
            raise Unsolvable("degenerate_member", e.entity_id)
        v = 4.0 * math.pi * area_km2(g) / per**2
    elif name == "elongation":
        v = elongation(e)
        if v is None:
            raise Unsolvable("degenerate_member", e.entity_id)
    elif name == "population":
        try:
            v = e.number("population")
        except LookupError as exc:
            raise Unsolvable("not_in_triples", str(exc)) from exc
    else:
        raise Unsolvable("unknown_measure", name)
    return float(v)


def ranked(members: list[Entity], name: str, word: str) -> list[tuple[float, Entity]]:
    """Members with their measure, sorted best first (descending for MAXIMISE words), ties by id."""
    sign = -1.0 if word in MAXIMISE else 1.0
    vals = [(measure(m, name), m) for m in members]
    return sorted(vals, key=lambda vm: (sign * vm[0], vm[1].entity_id))


# ------------------------------------------------------------------------------------------ F01-F03
@solves("ordering.extreme")
def extreme(p: Problem) -> dict:
    """F01: the cited member lying furthest in cardinal_direction within entity_B (ties all
    accepted)."""
    members = _members(p)
    direction = str(p.param("cardinal_direction"))
    if direction in BEARING:
        lon0, lat0 = p.facts.bound(p.sub.entity_roles[0]).lonlat
        brg = math.radians(BEARING[direction])
        ux, uy = math.sin(brg), math.cos(brg)
        tol = float(p.conventions["tie_tolerance_m"])

        def score(m: Entity) -> float:
            x, y = local_xy(lon0, lat0, [m.lonlat[0]], [m.lonlat[1]])
            return float(x[0] * ux + y[0] * uy)
    else:
        axis = {"north": (1, 1.0), "south": (1, -1.0), "east": (0, 1.0), "west": (0, -1.0)}[
            direction
        ]
        tol = float(p.conventions["tie_tolerance_deg"])

        def score(m: Entity) -> float:
            return axis[1] * m.lonlat[axis[0]]

    scores = {m.entity_id: score(m) for m in members}
    top = max(scores.values())
    return _answer([m for m in members if top - scores[m.entity_id] <= tol])


@solves("ordering.rank")
def rank(p: Problem) -> dict:
    """F02: the cited member ranking first by attribute_A (largest/highest descending, else
    ascending)."""
    order = ranked(_members(p), str(p.param("attribute_A")), str(p.param("rank_type")))
    return _answer([order[0][1]])


@solves("ordering.rank_position")
def rank_position(p: Problem) -> dict:
    """F03: the cited member at rank_position when sorted by the convention's measure (attribute
    word sets the order)."""
    k = RANKS[str(p.param("rank_position"))]
    order = ranked(_members(p), str(p.conventions["measure"]), str(p.param("attribute")))
    if len(order) < k:
        raise Unsolvable("not_in_triples", f"{len(order)} members cited, rank {k} asked")
    return _answer([order[k - 1][1]])


# ---------------------------------------------------------------------------------------------- F04
def in_sector(az: float, direction: str) -> bool:
    lo, hi = SECTOR[direction]
    a = az % 360.0
    return lo <= a < hi if lo < hi else (a >= lo or a < hi)


@solves("ordering.compound")
def compound(p: Problem) -> dict:
    """F04: cited members within value km of entity_B and in the cardinal_direction sector seen from
    entity_C."""
    rb, rc = p.sub.entity_roles[:2]
    b, c = p.facts.bound(rb).lonlat, p.facts.bound(rc).lonlat
    radius = float(p.param("value"))
    direction = str(p.param("cardinal_direction"))
    chosen = []
    for m in p.facts.others():
        if m.geometry is None:
            continue
        lon, lat = m.lonlat
        if geodesic_km(b, (lon, lat)) > radius:
            continue
        az, _, d = GEOD.inv(c[0], c[1], lon, lat)
        if d > 0 and in_sector(az, direction):
            chosen.append(m)
    ids = [m.entity_id for m in chosen]
    return formats.entity_set(ids, [m.name or m.entity_id for m in chosen], allow_empty=True)
