"""Reference solvers for SFID B (metric containment: what lies within a radius), from the gold
triples alone.

Units and frames: coordinates are EPSG:4326 degrees, **x = longitude, y = latitude**; radii and
distances are km. "Within r km" is a WGS84 geodesic (``pyproj.Geod``) between representative points
of at most r km (closed disc); the anchor itself is never a member. Candidates are the cited
evidence entities (:meth:`Facts.others`), filtered by category when their ``rdf:type`` triples are
cited. The generator cites the members inside the radius only, so a member it missed cannot be
recovered from the record.

B03 sums the pixels of the population raster that the record cites as ``urn:mgqa:raster:...`` facts
(centre ``asWKT`` and ``population``), with the pixel-centre rule: a pixel counts in full when the
geodesic from the anchor to its centre is at most the radius.
"""

from __future__ import annotations

import math

from mgqa_platform.evaluation.facts import Entity
from mgqa_platform.evaluation.solver import Problem, Unsolvable, solves
from mgqa_platform.evaluation.solver.distance import category_of, label, members
from mgqa_platform.evaluation.solver.geo import geodesic_km
from mgqa_platform.questions import formats


def within(p: Problem) -> list[Entity]:
    """Cited category members (anchor excluded) whose geodesic km to the anchor is <= the ``value``
    radius."""
    anchor = p.facts.bound(p.sub.entity_roles[0])
    radius = float(p.param("value"))
    if radius <= 0:
        raise Unsolvable("radius_out_of_range", str(radius))
    return [
        e
        for e in members(p, category_of(p))
        if e.entity_id != anchor.entity_id and geodesic_km(anchor.lonlat, e.lonlat) <= radius
    ]


@solves("containment.count_within")
def count_within(p: Problem) -> dict:
    """B01: how many category members lie within ``value`` km of the anchor (0 allowed)."""
    return formats.count(len(within(p)))


@solves("containment.list_within")
def list_within(p: Problem) -> dict:
    """B02: the set of category members within ``value`` km of the anchor."""
    ms = within(p)
    return formats.entity_set([e.entity_id for e in ms], [label(e) for e in ms], allow_empty=True)


@solves("containment.population_within")
def population_within(p: Problem) -> dict:
    """B03: population within ``value`` km of the anchor, summed over the cited raster pixels whose
    centre lies within the radius (geodesic), rounded half up to whole people."""
    anchor = p.facts.bound(p.sub.entity_roles[0]).lonlat
    radius = float(p.param("value"))
    pixels = p.facts.about("urn:mgqa:raster:")
    if not pixels:
        raise Unsolvable("not_in_triples", "no raster pixels cited")
    total = 0.0
    for facts in pixels.values():
        lon, lat = (
            float(v) for v in facts["asWKT"].removeprefix("POINT (").removesuffix(")").split()
        )
        if geodesic_km(anchor, (lon, lat)) <= radius:
            total += float(facts["population"])
    return formats.count(int(math.floor(total + 0.5)))
