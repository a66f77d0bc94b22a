"""Readings: the ways a careful person may take a convention that a question leaves unstated.

A sub-template lists, in its catalog ``conventions``, the readings its gold is checked under::

    readings: {direction: [quadrant, sector8, half_plane]}

The executor computes the gold under every listed reading and keeps the question only when they all
agree (discard reason :data:`READING_DEPENDENT` otherwise). A convention the variant text states
needs no readings (questions/stated.py); K02, K03 and F02.2 state their score by name and keep
their readings as well, so a reader who brings another score still gets the same gold.
:data:`READINGS` names every dimension and its readings; the catalog loader rejects any other name.

Direction words. A bearing is in degrees clockwise from true north, in [0, 360): in this project the
forward geodesic azimuth on WGS84 from ``pyproj.Geod.inv``. Under every reading a direction word
holds on an arc centred on its own bearing (north 0, northeast 45, east 90, ... northwest 315),
half-open [centre - h, centre + h), whose half-width h depends on the reading:

==============  =========================  =========================================================
reading         cardinal words (N/E/S/W)   intercardinal words (NE/SE/SW/NW)
==============  =========================  =========================================================
``sector8``     h = 22.5: the 45-degree    h = 22.5: the 45-degree octant of the 8-point compass
                octant of the 8-point
                compass
``quadrant``    h = 45: a 90-degree cone   h = 45: the quadrant between the two axes ("northeast" =
                centred on the axis        [0, 90))
``half_plane``  h = 90: the half-plane     h = 45: both half-planes at once ("north of and east of":
                whose component along the  the north and east components both positive, [0, 90))
                direction is positive
==============  =========================  =========================================================

Compactness (K02). "More compact" and "closer to a circle" do not name a score. ``polsby_popper``:
4 pi A / P^2 (A the EPSG:6933 area, P the geodesic perimeter), which punishes a ragged outline;
``reock``: A over the area of the smallest circle that encloses the shape (planar, in an
azimuthal-equidistant projection centred on the shape's representative point), which punishes a
stretched one. Both are 1 for a disc. (The convex-hull ratio is no reading of it: every convex shape
scores 1.)

Elongation (K03). "More elongated" and "longer and narrower" do not name a score either.
``rotated_rectangle``: 1 - minor/major side of the minimum-area rotated rectangle; ``inertia``: 1 -
the axis ratio of the ellipse with the shape's second moments of area (the square root of the
smaller over the larger principal moment), which weighs where the area lies (a dumbbell is more
elongated by it than its rectangle says). Both planar in the local azimuthal-equidistant projection,
0 for a square or a disc, equal for a rectangle.

Grid origin (G03 scale shift). A square grid of side s in a projected CRS has its cell edges at
x0 + i s, y0 + j s; the question names s but not (x0, y0). ``projection_origin``: (0, 0) of the
projection; ``half_cell``: (s / 2, s / 2), the grid farthest from it.
"""

from __future__ import annotations

READING_DEPENDENT = "reading_dependent"  #: discard reason: the listed readings disagree on the gold

DIRECTION_READINGS = ("quadrant", "sector8", "half_plane")
GRID_ORIGIN_READINGS = ("projection_origin", "half_cell")
COMPACTNESS_READINGS = ("polsby_popper", "reock")
ELONGATION_READINGS = ("rotated_rectangle", "inertia")

#: dimension -> the readings a catalog ``readings`` entry may list for it
READINGS: dict[str, tuple[str, ...]] = {
    "direction": DIRECTION_READINGS,
    "grid_origin": GRID_ORIGIN_READINGS,
    "compactness": COMPACTNESS_READINGS,
    "elongation": ELONGATION_READINGS,
}

#: bearing (degrees clockwise from true north) at the centre of each direction word's arc
WORD_BEARINGS: dict[str, float] = {
    "north": 0.0,
    "northeast": 45.0,
    "east": 90.0,
    "southeast": 135.0,
    "south": 180.0,
    "southwest": 225.0,
    "west": 270.0,
    "northwest": 315.0,
}

_HALF_WIDTH_DEG = {  # (reading, word is cardinal) -> half-width of the word's arc, degrees
    ("sector8", True): 22.5,
    ("sector8", False): 22.5,
    ("quadrant", True): 45.0,
    ("quadrant", False): 45.0,
    ("half_plane", True): 90.0,
    ("half_plane", False): 45.0,
}


def half_width_deg(word: str, reading: str) -> float:
    """Half-width in degrees of the arc on which ``word`` holds under direction ``reading``."""
    if reading not in DIRECTION_READINGS:
        raise ValueError(f"unknown direction reading {reading!r}")
    return _HALF_WIDTH_DEG[(reading, WORD_BEARINGS[word] % 90.0 == 0.0)]


def offset_deg(bearing_deg: float, word: str) -> float:
    """Signed angle in degrees from ``word``'s centre bearing to ``bearing_deg``, in [-180, 180)."""
    return (bearing_deg - WORD_BEARINGS[word] + 180.0) % 360.0 - 180.0


def holds(bearing_deg: float, word: str, reading: str) -> bool:
    """Does ``word`` describe ``bearing_deg`` (degrees clockwise from true north) under
    ``reading``?"""
    h = half_width_deg(word, reading)
    return -h <= offset_deg(bearing_deg, word) < h


def edge_distance_deg(bearing_deg: float, word: str, reading: str) -> float:
    """Degrees from ``bearing_deg`` to the nearest edge of ``word``'s arc under ``reading`` (>=
    0)."""
    return abs(half_width_deg(word, reading) - abs(offset_deg(bearing_deg, word)))


def cardinal(bearing_deg: float, reading: str) -> frozenset[str]:
    """Every direction word that holds for ``bearing_deg`` (degrees clockwise from true north, e.g.
    a ``pyproj.Geod.inv`` forward azimuth) under ``reading``: one word under ``sector8``, two (a
    cardinal and an intercardinal word) under ``quadrant``, two or three under ``half_plane``."""
    return frozenset(w for w in WORD_BEARINGS if holds(bearing_deg, w, reading))


def direction_verdicts(
    bearing_deg: float, word: str, readings: tuple[str, ...] | list[str]
) -> set[bool]:
    """The distinct answers to "is the bearing ``word``?" over ``readings``: one value when they
    agree."""
    return {holds(bearing_deg, word, r) for r in readings}


def grid_origin_m(reading: str, size_m: float) -> tuple[float, float]:
    """(x0, y0) in metres of the projected CRS: where a grid of cell side ``size_m`` has a cell
    corner under grid-origin ``reading``."""
    if reading == "projection_origin":
        return 0.0, 0.0
    if reading == "half_cell":
        return size_m / 2.0, size_m / 2.0
    raise ValueError(f"unknown grid origin reading {reading!r}")
