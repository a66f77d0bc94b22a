"""Reference solvers for SFID A (metric distance), from the gold triples alone.

Units and frames: coordinates are EPSG:4326 degrees with **x = longitude, y = latitude** (shapely /
WKT order); distances are km. Point-to-point distances are WGS84 geodesics computed with
``pyproj.Geod`` between representative points (:attr:`Entity.lonlat`), independently of the
generator's DuckDB ``ST_Distance_Spheroid``. Point-to-geometry distances follow the catalog
convention ``nearest_point: local_equirectangular``: the nearest point of the target is searched
with shapely in the frame x = cos(lat0) * (lon - lon0), y = lat - lat0 centred on the query point,
then measured with ``Geod``.

Candidates of the selection / aggregation questions (A06-A08) are the cited evidence entities
(:meth:`Facts.others`); category membership is read from their ``rdf:type`` triples
(:func:`in_category`). A05 needs the Natural Earth country polygons, which are no KG triples: it is
unsolvable from the record.
"""

from __future__ import annotations

import csv
import itertools
import math
import re
from functools import lru_cache

from shapely import ops as shapely_ops
from shapely import transform as shapely_transform
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry

from mgqa_platform.evaluation.facts import Entity
from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.geo import cited_geometry, geodesic_km
from mgqa_platform.questions import formats
from mgqa_platform.settings import PACKAGE_DATA

WGS84_A_KM = 6378.137
WGS84_F = 1 / 298.257223563
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)


# ------------------------------------------------------------------------------------------ helpers
def label(e: Entity) -> str:
    """Display name of an entity for answers (its English label, else its id)."""
    return e.name or e.entity_id


def nearest_point_km(lonlat: tuple[float, float], target: BaseGeometry) -> float:
    """Geodesic km from (lon, lat) to the nearest point of ``target``, the nearest point being found
    in the local equirectangular frame centred on the query point (0 when the point lies on/in the
    target).

    The frame is the catalog's ``nearest_point: local_equirectangular`` convention, on purpose not
    the azimuthal-equidistant frames of :mod:`.geo`."""
    lon0, lat0 = lonlat
    k = math.cos(math.radians(lat0))
    framed = shapely_transform(target, lambda xy: (xy - (lon0, lat0)) * (k, 1.0))
    near = shapely_ops.nearest_points(Point(0.0, 0.0), framed)[1]
    return geodesic_km((lon0, lat0), (lon0 + near.x / k, lat0 + near.y))


def _snake(s: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", s).lower()


@lru_cache(maxsize=1)
def _class_categories() -> dict[str, set[str]]:
    """Type local name -> categories, from the package's public OSM map-features, KWG class and
    WorldKG class tables."""
    out: dict[str, set[str]] = {}
    with open(PACKAGE_DATA / "osm_map_features.csv", newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            for t in (r["value"], r["value_class"]):
                out.setdefault(t, set()).add(r["category"])
    with open(PACKAGE_DATA / "kwg_categories.csv", newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):  # classes are CURIEs (kwg-ont:MTBSFire, usgs:School)
            out.setdefault(r["class"].split(":", 1)[1], set()).add(r["category"])
    with open(PACKAGE_DATA / "worldkg_class_categories.csv", newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            out.setdefault(r["worldkg_class"], set()).add(r["category"])
    return out


def entity_categories(e: Entity) -> set[str]:
    """Every category name the entity's cited ``rdf:type`` values can stand for."""
    out: set[str] = set()
    for t in e.types:
        out |= {t, t.lower(), _snake(t)} | _class_categories().get(t, set())
    return out


def in_category(e: Entity, category: str) -> bool | None:
    """Whether ``e`` belongs to ``category`` by its cited types; None when no type was cited."""
    if not e.types:
        return None
    return category in entity_categories(e)


def category_of(p: Problem, role: str | None = None) -> str:
    """The category bound to ``role`` (default: the first category role of the sub-template)."""
    role = role or next(r for r in p.sub.roles if r not in p.sub.entity_roles)
    if role not in p.bindings:
        raise Unsolvable("missing_binding", role)
    return p.bindings[role]


def members(p: Problem, category: str, *, require_types: bool = False) -> list[Entity]:
    """Cited evidence entities in ``category``: by their types when cited; without types every
    evidence entity is taken as a member (the generator cites members only), unless
    ``require_types``."""
    out = []
    for e in p.facts.others():
        m = in_category(e, category)
        if m is None and require_types:
            raise Unsolvable("not_in_triples", f"rdf:type of {e.entity_id}")
        if m is None or m:
            out.append(e)
    return out


def inside(poly: Entity, e: Entity, boundary: bool = False) -> bool:
    """The representative point of ``e`` lies in the polygon of ``poly`` (shapely ``contains``; with
    ``boundary``, ``covers``: a point on the boundary counts as in it)."""
    shape, pt = cited_geometry(poly), Point(*e.lonlat)
    return bool(shape.covers(pt) if boundary else shape.contains(pt))


def is_country(e: Entity) -> bool:
    """Whether a cited entity is a country: its ``admin_level`` attribute is 2."""
    return any(v.strip() == "2" for v in e.attributes.get("admin_level", []))


def counted_members(p: Problem, category: str) -> list[Entity]:
    """:func:`members`, without countries when the conventions say ``countries_excluded``."""
    ms = members(p, category)
    if p.conventions.get("countries_excluded"):
        return [e for e in ms if not is_country(e)]
    return ms


def _km_gold(km: float, zero_reason: str = "coincident_points") -> dict:
    if km <= 0.0005:
        raise Unsolvable(zero_reason)
    return formats.distance_km(km)


# ---------------------------------------------------------------------------------------------- A01
@solves("distance.pair")
def pair(p: Problem) -> dict:
    """A01: km between the representative points of the two bound entities."""
    roles = p.sub.entity_roles
    km = geodesic_km(p.facts.bound(roles[0]).lonlat, p.facts.bound(roles[1]).lonlat)
    if km <= 0:
        raise Unsolvable("coincident_points")
    return formats.distance_km(km)


def _to_target(p: Problem, boundary: bool) -> dict:
    ra, rb = p.sub.entity_roles[:2]
    a, b = p.facts.bound(ra), p.facts.bound(rb)
    cited_geometry(b)
    if boundary:
        if not b.geometry.geom_type.endswith("Polygon"):
            raise Unsolvable("not_a_polygon")
        if p.conventions.get("position") == "inside" and not inside(b, a):
            raise Unsolvable("outside_polygon")
    target = b.geometry.boundary if boundary else b.geometry
    return _km_gold(nearest_point_km(a.lonlat, target), "on_geometry")


@solves("distance.to_geometry")
def to_geometry(p: Problem) -> dict:
    """A01.3: km from A's representative point to the nearest point of B's whole geometry (local
    equirectangular frame for the nearest point, then the geodesic)."""
    return _to_target(p, boundary=False)


@solves("distance.to_boundary")
def to_boundary(p: Problem) -> dict:
    """A09: km from A's representative point to the nearest point of B's boundary (every ring);
    A09.1 requires A inside B."""
    return _to_target(p, boundary=True)


# ---------------------------------------------------------------------------------------------- A02
def meridian_arc_km(lat1: float, lat2: float, lon: float = 0.0) -> float:
    """WGS84 meridian arc length in km between two latitudes (geodesic along a meridian)."""
    return geodesic_km((lon, lat1), (lon, lat2))


def parallel_arc_km(dlon_deg: float, lat_deg: float) -> float:
    """Signed km along the parallel at ``lat_deg`` for ``dlon_deg``: dlon * N(phi) * cos(phi)."""
    phi = math.radians(lat_deg)
    e2 = WGS84_F * (2 - WGS84_F)
    n = WGS84_A_KM / math.sqrt(1 - e2 * math.sin(phi) ** 2)
    return math.radians(dlon_deg) * n * math.cos(phi)


@solves("distance.directional")
def directional(p: Problem) -> dict:
    """A02: the {direction} component of A's offset from B: meridian arc between the latitudes
    (north / south) or arc of the parallel at the mean latitude (east / west)."""
    ra, rb = p.sub.entity_roles[:2]
    (alon, alat), (blon, blat) = p.facts.bound(ra).lonlat, p.facts.bound(rb).lonlat
    d = str(p.param("direction")).lower()
    dlon = (alon - blon + 180.0) % 360.0 - 180.0
    ew = parallel_arc_km(dlon, (alat + blat) / 2.0)
    holds = {"north": alat > blat, "south": alat < blat, "east": ew > 0, "west": ew < 0}
    if d not in holds:
        raise Unsolvable("unknown_direction", d)
    if not holds[d]:
        raise Unsolvable("direction_does_not_hold", d)
    km = meridian_arc_km(alat, blat, blon) if d in ("north", "south") else abs(ew)
    return _km_gold(km, "negligible_offset")


# ---------------------------------------------------------------------------------------------- A03
def _period_of(date: str, kind: str) -> str:
    year, month = date[:4], int(date[5:7])
    return year if kind == "year" else f"{MONTHS[month - 1]} {year}"


@solves("distance.event_location")
def event_location(p: Problem) -> dict:
    """A03: km from the event's point to B; the stated time period must be the event's year /
    month."""
    ev, rb = p.sub.entity_roles[:2]
    event = p.facts.bound(ev)
    period = p.parameters.get("time_period")
    if period is not None:
        if not event.times:
            raise Unsolvable("not_in_triples", f"temporal scope of {event.entity_id}")
        kind = p.conventions.get("time_period", "year")
        if str(period).strip().lower() != _period_of(event.times[0], kind):
            raise Unsolvable("period_mismatch", f"{period} vs {event.times[0]}")
    return _km_gold(geodesic_km(event.lonlat, p.facts.bound(rb).lonlat))


# ---------------------------------------------------------------------------------------- A04 / A05
def _wants_min(rank_type: str) -> bool:
    word = rank_type.split()[0].lower()
    if word in ("closer", "nearer"):
        return True
    if word in ("farther", "further"):
        return False
    raise Unsolvable("unknown_rank_type", rank_type)


@solves("distance.compare")
def compare(p: Problem) -> dict:
    """A04: which of A and B is closer to / farther from C (representative points)."""
    ra, rb, rc = p.sub.entity_roles[:3]
    a, b, c = p.facts.bound(ra), p.facts.bound(rb), p.facts.bound(rc)
    da, db = geodesic_km(a.lonlat, c.lonlat), geodesic_km(b.lonlat, c.lonlat)
    if da == db:
        raise Unsolvable("tie")
    win = a if (da < db) == _wants_min(str(p.param("rank_type"))) else b
    return formats.entity_name([win.entity_id], [label(win)])


@solves("distance.neighbour_country")
def neighbour_country(p: Problem) -> dict:
    """A05: needs the home country of A and its land neighbours (Natural Earth polygons)."""
    raise Unsolvable(
        "not_in_triples", "country polygons (Natural Earth admin-0) are not KG triples"
    )


# ---------------------------------------------------------------------------------------- A06 / A07
@solves("distance.aggregate")
def aggregate(p: Problem) -> dict:
    """A06: minimum / maximum / average km over the unordered pairs of category members inside
    polygon B."""
    poly = p.facts.bound(p.sub.entity_roles[0])
    covers = p.conventions.get("boundary") == "covers"
    ms = [e for e in members(p, category_of(p)) if inside(poly, e, covers)]
    if len(ms) < 2:
        raise Unsolvable("too_few_members", str(len(ms)))
    kms = [geodesic_km(x.lonlat, y.lonlat) for x, y in itertools.combinations(ms, 2)]
    agg = p.parameters.get("aggregation") or p.conventions.get("aggregation")
    value = {"minimum": min, "maximum": max, "average": lambda v: math.fsum(v) / len(v)}[agg](kms)
    return _km_gold(value, "coincident_members")


@solves("distance.min_total")
def min_total(p: Problem) -> dict:
    """A07: the category_A member in B with the smallest summed km to every category_C member in B;
    every member within tie_rel of the best total is accepted."""
    cat_roles = [r for r in p.sub.roles if r not in p.sub.entity_roles]
    poly = p.facts.bound(p.sub.entity_roles[0])
    cands = [e for e in members(p, p.bindings[cat_roles[0]], require_types=True) if inside(poly, e)]
    targets = [
        e for e in members(p, p.bindings[cat_roles[1]], require_types=True) if inside(poly, e)
    ]
    if not cands or not targets:
        raise Unsolvable("too_few_members")
    totals = {
        x.entity_id: math.fsum(
            geodesic_km(x.lonlat, y.lonlat) for y in targets if y.entity_id != x.entity_id
        )
        for x in cands
    }
    best = min(totals.values())
    tol = float(p.conventions.get("tie_rel", 0.0)) * best
    tied = [x for x in cands if totals[x.entity_id] - best <= tol]
    return formats.entity_name([x.entity_id for x in tied], [label(x) for x in tied])


# ---------------------------------------------------------------------------------------------- A08
@solves("distance.kth_nearest")
def kth_nearest(p: Problem) -> dict:
    """A08: km from the k-th nearest category member to B (B excluded; k from the rank word's
    position in the catalog list) to C. Ranked: the cited members (C too when its types make it a
    member)."""
    rb, rc = p.sub.entity_roles[:2]
    b, c = p.facts.bound(rb), p.facts.bound(rc)
    cat = category_of(p)
    k = list(p.sub.parameters["rank"]).index(p.param("rank")) + 1
    ranked = members(p, cat)
    if in_category(c, cat) and c.entity_id != b.entity_id:
        ranked.append(c)
    ranked.sort(key=lambda e: (geodesic_km(b.lonlat, e.lonlat), e.entity_id))
    if len(ranked) < k:
        raise Unsolvable("too_few_members", f"{len(ranked)} cited members, rank {k}")
    return _km_gold(geodesic_km(ranked[k - 1].lonlat, c.lonlat))
