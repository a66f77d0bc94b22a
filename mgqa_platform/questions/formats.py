"""The 15 MGQA answer formats: gold validation/canonicalisation, rendering, and per-answer scoring.

Every gold answer is a small typed JSON dict.  ``canonical(fmt, gold)`` validates it and returns a
normal form (rounded floats, sorted ids, lowercase hex cells, fixed keys) whose
``json.dumps(..., sort_keys=True)`` is byte-stable and idempotent.  The evaluator scores a
prediction with ``score(fmt, pred, gold) -> (E, e)`` following the paper's Table 12: ``E = 1[d <
tau]`` and ``e = min(1, d / tau)``, with the documented exceptions (set, bbox, polar, composite, H3
ancestors).

Conventions: coordinates are WGS84 (EPSG:4326) degrees, **longitude first** in every dict and
signature (h3-py takes ``(lat, lng)``: callers swap before calling it); distances are kilometres,
areas square kilometres; geodesics use ``pyproj.Geod(ellps="WGS84")``; box overlap is measured in
the equal-area EPSG:6933 projection.  No Dagster import: the generator and the evaluator share it.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import unicodedata
from typing import Any

import h3
import s2sphere
from pyproj import Geod, Transformer
from shapely.geometry import box as _shapely_box

FORMATS = (
    "boolean",
    "entity_name",
    "predefined",
    "set",
    "grid_cell",
    "geohash",
    "composite_cell",
    "distance",
    "area",
    "count",
    "ratio",
    "point",
    "polar",
    "bbox",
    "date",
)


def _info(family: str, unit: str | None, description: str) -> dict:
    return {"family": family, "unit": unit, "description": description}


FORMAT_INFO: dict[str, dict] = {
    "boolean": _info(
        "discrete", None, "Yes or no, or 'plausibly' when the facts do not settle it."
    ),
    "entity_name": _info("discrete", None, "One entity; tied entities are all acceptable."),
    "predefined": _info(
        "discrete", None, "One label from a fixed option list (compass point, left/right...)."
    ),
    "set": _info("discrete", None, "Every entity that satisfies the question, order irrelevant."),
    "grid_cell": _info(
        "discrete", None, "A discrete global grid cell: an H3 index or an S2 token."
    ),
    "geohash": _info("discrete", None, "A base-32 geohash string of 1 to 12 characters."),
    "composite_cell": _info("discrete", None, "An H3 cell and an S2 cell for the same place."),
    "distance": _info("numeric", "km", "A non-negative length in kilometres."),
    "area": _info("numeric", "km2", "A non-negative surface area in square kilometres."),
    "count": _info("numeric", None, "A non-negative whole number of things."),
    "ratio": _info(
        "numeric", None, "A dimensionless real number (quotient, share, ratio of densities)."
    ),
    "point": _info("geometric", "deg", "A WGS84 position as longitude/latitude degrees."),
    "polar": _info("geometric", "deg,km", "A bearing clockwise from north plus a distance in km."),
    "bbox": _info(
        "geometric", "deg", "A lon/lat bounding box that does not cross the antimeridian."
    ),
    "date": _info("temporal", None, "A calendar date at day, month or year precision."),
}

#: Option lists for ``predefined`` answers, in their natural order.
OPTION_SETS = {
    "cardinal4": ("N", "E", "S", "W"),
    "cardinal8": ("N", "NE", "E", "SE", "S", "SW", "W", "NW"),
    "left_right": ("left", "right"),
    "upstream_downstream": ("upstream", "downstream"),
}

HALF_CIRCUMFERENCE_KM = round(math.pi * 6378.137, 3)  #: half the WGS84 equatorial circumference
EARTH_AREA_KM2 = 510_065_621.7242  #: surface area of the WGS84 ellipsoid
ALPHA = 0.05  #: relative part of every numeric tolerance
RATIO_EPS = 1e-9  #: tau for a ratio whose gold is exactly 0 (only an exact hit counts)
POLAR_ANGLE_TOL_DEG = 5.0
POINT_TAU_KM = max(5.0, ALPHA * 200.0)  #: max(delta = 5 km, alpha * d_scale = 200 km) = 10 km
DATE_TAU_DAYS = {"day": 1, "month": 15, "year": 365}
DISTANCE_BANDS = ((50.0, 500.0), (0.5, 5.0, 10.0))  #: |y| band edges (km), delta per band (km)
AREA_BANDS = (
    (2500.0, 250000.0),
    (0.25, 25.0, 100.0),
)  #: |y| band edges (km2), delta per band (km2)

_GEOD = Geod(ellps="WGS84")
_TO_6933 = Transformer.from_crs("EPSG:4326", "EPSG:6933", always_xy=True)
_GEOHASH_RE = re.compile(r"[0123456789bcdefghjkmnpqrstuvwxyz]{1,12}")
_HEX_RE = re.compile(r"[0-9a-f]{1,16}")
_DATE_RE = {
    "day": re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}"),
    "month": re.compile(r"[0-9]{4}-[0-9]{2}"),
    "year": re.compile(r"[0-9]{4}"),
}


class GoldError(ValueError):
    """An answer that does not fit its format; ``reason`` is a short snake_case code."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def _need(ok: Any, reason: str, detail: Any = "") -> None:
    if not ok:
        raise GoldError(reason, detail if isinstance(detail, str) else repr(detail)[:120])


def _num(v: Any, what: str = "value") -> float:
    """A finite float from an int or float (bools refused)."""
    _need(isinstance(v, (int, float)) and not isinstance(v, bool), "not_a_number", f"{what}={v!r}")
    _need(math.isfinite(v), "not_finite", f"{what}={v!r}")
    return float(v)


def _rnd(v: float, nd: int) -> float:
    """Round to ``nd`` decimals and turn -0.0 into 0.0 (keeps the JSON bytes stable)."""
    return round(v, nd) + 0.0


def _get(d: Any, key: str) -> Any:
    _need(isinstance(d, dict), "not_a_dict", d)
    _need(key in d, "missing_key", key)
    return d[key]


def _norm_name(s: str) -> str:
    """Name key for matching: NFKC, casefold, whitespace runs collapsed to one space, stripped."""
    return " ".join(unicodedata.normalize("NFKC", s).casefold().split())


# ---------------------------------------------------------------- constructors (canonical dicts)
def boolean(v: bool | str) -> dict:
    """``True``/``False`` or the third value ``"plausibly"`` (case-insensitive)."""
    if isinstance(v, str) and v.strip().casefold() == "plausibly":
        return {"value": "plausibly"}
    _need(isinstance(v, bool), "invalid_boolean", v)
    return {"value": v}


def _ids_names(ids: Any, names: Any, allow_empty: bool, empty_reason: str) -> dict:
    _need(
        isinstance(ids, (list, tuple)) and isinstance(names, (list, tuple)),
        "not_a_list",
        (ids, names),
    )
    _need(len(ids) == len(names), "length_mismatch", f"{len(ids)} ids vs {len(names)} names")
    pairs: dict[str, str] = {}
    for i, n in zip(ids, names):
        _need(isinstance(i, str) and i.strip(), "invalid_entity_id", i)
        _need(isinstance(n, str), "invalid_name", n)
        _need(pairs.setdefault(i.strip(), n.strip()) == n.strip(), "conflicting_names", i)
    _need(pairs or allow_empty, empty_reason)
    keys = sorted(pairs)
    return {"entity_ids": keys, "names": [pairs[k] for k in keys]}


def entity_name(ids: list[str], names: list[str]) -> dict:
    """Acceptable answer set G* (one entity, or several tied ones); ids sorted, names aligned."""
    return _ids_names(ids, names, False, "empty_entity_name")


def entity_set(ids: list[str], names: list[str], allow_empty: bool = False) -> dict:
    """An unordered entity set; duplicates merged, ids sorted, names aligned; empty only if
    allowed."""
    return _ids_names(ids, names, allow_empty, "empty_set")


def predefined(value: str, options: list[str] | tuple[str, ...]) -> dict:
    """A label from ``options`` (order kept, no duplicates); ``value`` must be one of them."""
    _need(
        isinstance(options, (list, tuple)) and options and all(isinstance(o, str) for o in options),
        "invalid_options",
        options,
    )
    _need(len(set(options)) == len(options), "duplicate_options", options)
    _need(
        isinstance(value, str) and value in options,
        "value_not_in_options",
        f"{value!r} not in {list(options)}",
    )
    return {"value": value, "options": list(options)}


def h3_cell(cell: str | int) -> dict:
    """An H3 v4 cell as a lowercase hex string (an int index is converted); resolution from h3."""
    if isinstance(cell, int) and not isinstance(cell, bool):
        cell = h3.int_to_str(cell) if 0 < cell < 2**64 else ""
    _need(isinstance(cell, str) and h3.is_valid_cell(cell.strip().lower()), "invalid_h3_cell", cell)
    cell = cell.strip().lower()
    return {"system": "h3", "cell": cell, "resolution": h3.get_resolution(cell)}


def s2_cell(token: str | int | s2sphere.CellId) -> dict:
    """An S2 cell as its token (hex id, trailing zeros stripped); level 0..30 as ``resolution``.

    Ids are unsigned 64-bit and often exceed 2**63, so they are never stored as ints: an int or a
    ``CellId`` input is turned into its token.  A token must be 1-16 hex digits naming a valid cell
    (face < 6, level marker bit in place); it is stored as ``CellId.from_token(t).to_token()``.
    """
    if isinstance(token, s2sphere.CellId):
        token = token.to_token()
    elif isinstance(token, int) and not isinstance(token, bool):
        token = format(token, "016x").rstrip("0") if 0 < token < 2**64 else ""
    _need(
        isinstance(token, str) and _HEX_RE.fullmatch(token.strip().lower()),
        "invalid_s2_token",
        token,
    )
    cid = s2sphere.CellId.from_token(token.strip().lower())
    _need(cid.is_valid(), "invalid_s2_token", token)
    return {"system": "s2", "cell": cid.to_token(), "resolution": cid.level()}


def geohash(code: str) -> dict:
    """A geohash (base-32 alphabet without a, i, l, o), lowercased; precision = length 1..12."""
    _need(
        isinstance(code, str) and _GEOHASH_RE.fullmatch(code.strip().lower()),
        "invalid_geohash",
        code,
    )
    return {"geohash": code.strip().lower(), "precision": len(code.strip())}


def composite_cell(h3_cell_str: str, s2_token: str) -> dict:
    """An H3 cell and an S2 cell for the same place (see ``h3_cell`` / ``s2_cell``)."""
    return {"h3": h3_cell(h3_cell_str), "s2": s2_cell(s2_token)}


def distance_km(v: float) -> dict:
    """A length in km, rounded to 3 decimals, within [0, half the WGS84 equatorial
    circumference]."""
    v = _rnd(_num(v), 3)
    _need(0.0 <= v <= HALF_CIRCUMFERENCE_KM, "distance_out_of_range", f"{v} km")
    return {"value": v, "unit": "km"}


def area_km2(v: float) -> dict:
    """An area in km2, rounded to 4 decimals, within [0, surface area of the WGS84 ellipsoid]."""
    v = _rnd(_num(v), 4)
    _need(0.0 <= v <= EARTH_AREA_KM2, "area_out_of_range", f"{v} km2")
    return {"value": v, "unit": "km2"}


def count(n: int) -> dict:
    """A whole number >= 0 (an integral float such as 3.0 is accepted and stored as int)."""
    f = _num(n)
    _need(f.is_integer(), "count_not_integer", n)
    _need(f >= 0, "negative_count", n)
    return {"value": int(f)}


def ratio(v: float) -> dict:
    """A finite dimensionless number, rounded to 6 decimals."""
    return {"value": _rnd(_num(v), 6)}


def point(lon: float, lat: float) -> dict:
    """A WGS84 (EPSG:4326) position, **lon first**, degrees rounded to 6 decimals (~0.1 m)."""
    lon, lat = _rnd(_num(lon, "lon"), 6), _rnd(_num(lat, "lat"), 6)
    _need(-180.0 <= lon <= 180.0, "lon_out_of_range", lon)
    _need(-90.0 <= lat <= 90.0, "lat_out_of_range", lat)
    return {"lon": lon, "lat": lat}


def polar(angle_deg: float, distance_km: float) -> dict:
    """Azimuth in degrees clockwise from true north, wrapped into [0, 360) and rounded to 2 decimals
    (pyproj's (-180, 180] azimuths are accepted), plus a distance in km rounded to 3 decimals."""
    a = _rnd(_num(angle_deg, "angle_deg") % 360.0, 2)
    r = _rnd(_num(distance_km, "distance_km"), 3)
    _need(0.0 <= r <= HALF_CIRCUMFERENCE_KM, "distance_out_of_range", f"{r} km")
    return {"angle_deg": 0.0 if a >= 360.0 else a, "distance_km": r}


def bbox(min_lon: float, min_lat: float, max_lon: float, max_lat: float) -> dict:
    """A lon/lat box in WGS84 degrees (6 decimals); min <= max on both axes (no antimeridian
    wrap)."""
    lo, hi = point(min_lon, min_lat), point(max_lon, max_lat)
    _need(lo["lon"] <= hi["lon"] and lo["lat"] <= hi["lat"], "bbox_inverted", f"{lo} > {hi}")
    return {"min_lon": lo["lon"], "min_lat": lo["lat"], "max_lon": hi["lon"], "max_lat": hi["lat"]}


def date(value: str | _dt.date) -> dict:
    """A proleptic Gregorian date ``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY`` (years 0001-9999); the
    precision (day/month/year) is read from the string's shape."""
    if isinstance(value, _dt.date):
        value = value.isoformat()[:10]
    for prec, rx in _DATE_RE.items():
        if isinstance(value, str) and rx.fullmatch(value.strip()):
            _first_day(value.strip())
            return {"value": value.strip(), "precision": prec}
    raise GoldError("invalid_date", repr(value))


def _first_day(s: str) -> _dt.date:
    """First day of the period ``YYYY[-MM[-DD]]`` names; raises GoldError("invalid_date")."""
    y, m, d = ([int(p) for p in s.split("-")] + [1, 1])[:3]
    try:
        return _dt.date(y, m, d)
    except ValueError as exc:
        raise GoldError("invalid_date", f"{s!r}: {exc}") from None


# ---------------------------------------------------------------- canonical / validate
def _grid(d: dict, system: str | None = None) -> dict:
    sys_ = _get(d, "system")
    _need(sys_ in ("h3", "s2"), "unknown_grid_system", sys_)
    _need(system in (None, sys_), "wrong_grid_system", f"{sys_} where {system} expected")
    return _same((h3_cell if sys_ == "h3" else s2_cell)(_get(d, "cell")), d, "resolution")


def _same(out: dict, d: dict, key: str, reason: str | None = None) -> dict:
    """``out``, after checking that a redundant ``key`` given in the input agrees with it."""
    _need(
        key not in d or d[key] == out[key],
        reason or f"{key}_mismatch",
        f"{d.get(key)!r} != {out[key]!r}",
    )
    return out


def _unit(d: dict, unit: str) -> dict:
    _need(d.get("unit", unit) == unit, "wrong_unit", f"{d.get('unit')!r}, expected {unit!r}")
    return d


_BBOX_KEYS = ("min_lon", "min_lat", "max_lon", "max_lat")
_CANON = {  # format -> (allowed keys, builder(dict, allow_empty))
    "boolean": ({"value"}, lambda d, e: boolean(_get(d, "value"))),
    "entity_name": (
        {"entity_ids", "names"},
        lambda d, e: entity_name(_get(d, "entity_ids"), _get(d, "names")),
    ),
    "predefined": (
        {"value", "options"},
        lambda d, e: predefined(_get(d, "value"), _get(d, "options")),
    ),
    "set": (
        {"entity_ids", "names"},
        lambda d, e: entity_set(_get(d, "entity_ids"), _get(d, "names"), e),
    ),
    "grid_cell": ({"system", "cell", "resolution"}, lambda d, e: _grid(d)),
    "geohash": (
        {"geohash", "precision"},
        lambda d, e: _same(geohash(_get(d, "geohash")), d, "precision"),
    ),
    "composite_cell": ({"h3", "s2"}, lambda d, e: {k: _grid(_get(d, k), k) for k in ("h3", "s2")}),
    "distance": ({"value", "unit"}, lambda d, e: distance_km(_get(_unit(d, "km"), "value"))),
    "area": ({"value", "unit"}, lambda d, e: area_km2(_get(_unit(d, "km2"), "value"))),
    "count": ({"value"}, lambda d, e: count(_get(d, "value"))),
    "ratio": ({"value"}, lambda d, e: ratio(_get(d, "value"))),
    "point": ({"lon", "lat"}, lambda d, e: point(_get(d, "lon"), _get(d, "lat"))),
    "polar": (
        {"angle_deg", "distance_km"},
        lambda d, e: polar(_get(d, "angle_deg"), _get(d, "distance_km")),
    ),
    "bbox": (set(_BBOX_KEYS), lambda d, e: bbox(*(_get(d, k) for k in _BBOX_KEYS))),
    "date": (
        {"value", "precision"},
        lambda d, e: _same(date(_get(d, "value")), d, "precision", "date_precision_mismatch"),
    ),
}


#: The gold of a false-premise question, whatever the template's format: the right answer is to
#: reject the question's premise (paper §3.4). A prediction rejects with the same dict.
REJECTION = {"rejected": True}


def is_rejection(answer: Any) -> bool:
    return isinstance(answer, dict) and answer == REJECTION


def is_empty_set(answer: Any) -> bool:
    """An entity set with no member (``{"entity_ids": [], "names": []}``, either key alone too):
    "there are none". Every false premise of a set template says some member exists ("which peaks
    lie within 2 km of X?" when none does), so this answer rejects the premise as :data:`REJECTION`
    does."""
    return (
        isinstance(answer, dict)
        and bool(answer)
        and set(answer) <= {"entity_ids", "names"}
        and all(v == [] for v in answer.values())
    )


def canonical(fmt: str, gold: dict, *, allow_empty: bool = False) -> dict:
    """Validate ``gold`` for format ``fmt`` and return its canonical dict (idempotent).  Keys the
    format does not define are refused (``unexpected_key``); ``allow_empty`` only matters for sets.
    :data:`REJECTION` is valid for every format (false-premise golds). Raises GoldError."""
    _need(fmt in _CANON, "unknown_format", fmt)
    _need(isinstance(gold, dict), "not_a_dict", gold)
    if is_rejection(gold):
        return dict(REJECTION)
    keys, build = _CANON[fmt]
    _need(set(gold) <= keys, "unexpected_key", ",".join(sorted(set(gold) - keys)))
    return build(gold, allow_empty)


def validate(fmt: str, gold: dict) -> None:
    """Raise GoldError if ``gold`` is not a valid gold answer of format ``fmt``."""
    canonical(fmt, gold)


# ---------------------------------------------------------------- rendering
def _g(v: float, nd: int) -> str:
    return f"{v:.{nd}f}".rstrip("0").rstrip(".")


def _cell_text(c: dict) -> str:
    return (
        f"{c['cell']} ({'H3 resolution' if c['system'] == 'h3' else 'S2 level'} {c['resolution']})"
    )


def render(fmt: str, gold: dict) -> str:
    """Short English text for a gold answer, e.g. ``"12.345 km"``, ``"yes"`` or ``"plausibly"``."""
    g = canonical(fmt, gold, allow_empty=True)
    if is_rejection(g):
        return "the question's premise does not hold"
    text = {
        "boolean": lambda: {True: "yes", False: "no"}.get(g["value"], "plausibly"),
        "entity_name": lambda: ", ".join(n or i for i, n in zip(g["entity_ids"], g["names"])),
        "set": lambda: ", ".join(n or i for i, n in zip(g["entity_ids"], g["names"])) or "none",
        "grid_cell": lambda: _cell_text(g),
        "composite_cell": lambda: f"{_cell_text(g['h3'])}; {_cell_text(g['s2'])}",
        "geohash": lambda: f"{g['geohash']} (geohash precision {g['precision']})",
        "distance": lambda: f"{_g(g['value'], 3)} km",
        "area": lambda: f"{_g(g['value'], 4)} km²",
        "ratio": lambda: _g(g["value"], 6),
        "point": lambda: f"lon {_g(g['lon'], 6)}, lat {_g(g['lat'], 6)}",
        "polar": lambda: f"{_g(g['distance_km'], 3)} km at bearing {_g(g['angle_deg'], 2)}°",
        "bbox": lambda: (
            f"lon {_g(g['min_lon'], 6)} to {_g(g['max_lon'], 6)}, "
            f"lat {_g(g['min_lat'], 6)} to {_g(g['max_lat'], 6)}"
        ),
    }.get(fmt, lambda: str(g["value"]))  # predefined, count, date
    return text()


# ---------------------------------------------------------------- scoring (Table 12)
def _band_tau(y: float, bands: tuple) -> float:
    """max(delta, ALPHA*|y|), delta chosen by the magnitude band of |y| (see
    DISTANCE/AREA_BANDS)."""
    (lo, hi), deltas = bands
    return max(
        deltas[0] if abs(y) < lo else deltas[1] if abs(y) < hi else deltas[2], ALPHA * abs(y)
    )


def _pc(fmt: str, pred: dict) -> dict:
    """Canonical form of a prediction, ignoring keys the format does not define."""
    return canonical(fmt, {k: v for k, v in pred.items() if k in _CANON[fmt][0]}, allow_empty=True)


def _pred_entities(pred: dict) -> tuple[set[str], set[str]]:
    """(ids, normalised names) of a prediction giving ``entity_ids`` and/or ``names`` lists."""
    ids, names = pred.get("entity_ids", []), pred.get("names", [])
    _need(
        ("entity_ids" in pred or "names" in pred)
        and isinstance(ids, list)
        and isinstance(names, list)
        and all(isinstance(x, str) for x in ids + names),
        "malformed_prediction",
        pred,
    )
    return {i.strip() for i in ids}, {_norm_name(n) for n in names}


def _cell_match(p: dict, g: dict) -> bool:
    """Same cell; for H3 also a finer predicted cell whose ancestor at the gold resolution is the
    gold."""
    if p["system"] != g["system"] or p["cell"] == g["cell"]:
        return p["system"] == g["system"]
    return (
        g["system"] == "h3"
        and p["resolution"] > g["resolution"]
        and h3.cell_to_parent(p["cell"], g["resolution"]) == g["cell"]
    )


def _bbox_iou(p: dict, g: dict) -> float:
    """IoU of two lon/lat boxes with areas in EPSG:6933 (equal-area cylindrical, so a lon/lat box
    stays an axis-aligned rectangle).  Two identical zero-area boxes have IoU 1."""

    def proj(b: dict):
        (x0, x1), (y0, y1) = _TO_6933.transform(
            [b["min_lon"], b["max_lon"]], [b["min_lat"], b["max_lat"]]
        )
        return _shapely_box(x0, y0, x1, y1)

    a, b = proj(p), proj(g)
    union = a.union(b).area
    return a.intersection(b).area / union if union > 0.0 else float(p == g)


def _polar_errs(p: dict, g: dict) -> tuple[float, float, float]:
    """(angular error deg, wrapped at 360; radial error km; distance tau of the gold distance
    km)."""
    diff = abs(p["angle_deg"] - g["angle_deg"]) % 360.0
    return (
        min(diff, 360.0 - diff),
        abs(p["distance_km"] - g["distance_km"]),
        _band_tau(g["distance_km"], DISTANCE_BANDS),
    )


def _dist(fmt: str, pred: Any, g: dict) -> float:
    """d_i against a canonical gold ``g``; raises GoldError when ``pred`` is malformed."""
    _need(isinstance(pred, dict), "not_a_dict", pred)
    if fmt in ("distance", "area", "count", "ratio"):  # range-free: a wrong number is not malformed
        _unit(pred, g.get("unit", pred.get("unit")))
        return abs(_num(_get(pred, "value")) - g["value"])
    if fmt == "predefined":
        v = _get(pred, "value")
        _need(isinstance(v, str), "malformed_prediction", v)
        return float(v.strip().casefold() != g["value"].casefold())
    if fmt in ("entity_name", "set"):
        ids, names = _pred_entities(pred)
        gold_ids, gold_names = set(g["entity_ids"]), {_norm_name(n) for n in g["names"]}
        if fmt == "entity_name":  # right iff any predicted id or normalised name is in G*
            return float(not (ids & gold_ids or names & gold_names))
        mine, gold = (
            (ids, gold_ids) if "entity_ids" in pred else (names, gold_names)
        )  # ids win over names
        union = mine | gold
        return 1.0 - (len(mine & gold) / len(union) if union else 1.0)
    p = _pc(fmt, pred)
    if fmt == "grid_cell":
        return float(not _cell_match(p, g))
    if fmt == "composite_cell":
        return sum(not _cell_match(p[k], g[k]) for k in ("h3", "s2")) / 2.0
    if fmt == "point":
        return _GEOD.inv(p["lon"], p["lat"], g["lon"], g["lat"])[2] / 1000.0
    if fmt == "polar":
        ang, rad, tau_r = _polar_errs(p, g)
        return max(ang / POLAR_ANGLE_TOL_DEG, rad / tau_r)
    if fmt == "bbox":
        return 1.0 - _bbox_iou(p, g)
    if fmt == "date":  # both truncated to the gold precision (first of month / 1 January), in days
        return float(abs((_first_day(p["value"][: len(g["value"])]) - _first_day(g["value"])).days))
    return float(p != g)  # boolean, geohash


def tolerance(fmt: str, gold: dict) -> float:
    """tau_i.  distance: max(delta, 0.05|y|) with delta 0.5/5/10 km for |y| < 50, 50-500, >= 500 km;
    area: delta 0.25/25/100 km2 for < 2500, 2500-250000, >= 250000 km2; count: max(1, 0.05|y|);
    ratio: 0.05|y| (1e-9 when y == 0); point: 10 km; date: 1/15/365 days for day/month/year.
    Every other format (exact ones, set, bbox, composite, polar, whose d is normalised): 1."""
    g = canonical(fmt, gold, allow_empty=True)
    return {
        "distance": lambda: _band_tau(g["value"], DISTANCE_BANDS),
        "area": lambda: _band_tau(g["value"], AREA_BANDS),
        "count": lambda: max(1.0, ALPHA * abs(g["value"])),
        "ratio": lambda: ALPHA * abs(g["value"]) or RATIO_EPS,
        "point": lambda: POINT_TAU_KM,
        "date": lambda: float(DATE_TAU_DAYS[g["precision"]]),
    }.get(fmt, lambda: 1.0)()


def distance(fmt: str, pred: dict, gold: dict) -> float:
    """d_i: km for distance/point, km2 for area, days for date, |difference| for count/ratio,
    1[pred != gold] for exact formats, 1 - Jaccard for set, 1 - IoU (EPSG:6933) for bbox, the
    fraction of wrong components for composite_cell, max(angle_err/5 deg, radial_err/tau_distance)
    for polar.  Raises GoldError if the gold or the prediction is invalid."""
    _need(fmt in _CANON, "unknown_format", fmt)
    return _dist(fmt, pred, canonical(fmt, gold, allow_empty=True))


def score(fmt: str, pred: dict, gold: dict) -> tuple[int, float]:
    """(E_i, e_i) with E_i = 1[d_i < tau_i] and e_i = min(1, d_i / tau_i), except:
    set: E = 1 only for exact set equality (e = 1 - Jaccard); bbox: E = 1[IoU >= 0.5] (e = 1 - IoU);
    composite_cell: E = 1 only if both cells match (e = fraction wrong); polar: E = 1 iff the
    angular error (wrapped at 360) is <= 5 deg and the radial error < the distance tau of the gold
    distance, e = min(1, max(angle_err / 5, radial_err / tau_distance)).  A malformed prediction
    scores (0, 1.0); an invalid gold raises GoldError (an empty gold set is accepted here)."""
    _need(fmt in _CANON, "unknown_format", fmt)
    if is_rejection(gold) or is_rejection(
        pred
    ):  # false premise: only a rejection is right, and only there
        return (1, 0.0) if is_rejection(gold) and is_rejection(pred) else (0, 1.0)
    g = canonical(fmt, gold, allow_empty=True)
    tau = tolerance(fmt, g)
    try:
        d = _dist(fmt, pred, g)
        if fmt == "polar":
            ang, rad, tau_r = _polar_errs(_pc(fmt, pred), g)
            return int(ang <= POLAR_ANGLE_TOL_DEG and rad < tau_r), min(1.0, d)
    except (
        TypeError,
        ValueError,
        KeyError,
        AttributeError,
        ArithmeticError,
    ):  # GoldError is a ValueError
        return 0, 1.0
    e = min(1.0, d / tau)
    if fmt in ("set", "composite_cell"):
        return int(d == 0.0), e
    if fmt == "bbox":
        return int(d <= 0.5), e
    return int(d < tau), e
