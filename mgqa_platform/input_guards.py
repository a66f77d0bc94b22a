"""Input guards: refuse input whose coordinates are not lon/lat degrees, and report what a country
file or an income table leaves out instead of dropping it silently (issue 21, item 2).

Plain functions; the blocking asset checks built on them are in
``mgqa_dagster/data_quality/input_guards.py`` (docs/data_quality.md, "Input guards").
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from mgqa_platform.errors import InputError

#: lon/lat degrees: (min lon, min lat, max lon, max lat).
DEGREES = (-180.0, -90.0, 180.0, 90.0)


class NotDegreesError(InputError):
    """A file that declares lon/lat degrees but holds other coordinates (typically metres)."""


def within_degrees(bounds: Iterable[float]) -> bool:
    """True when ``(minx, miny, maxx, maxy)`` lies inside :data:`DEGREES` (NaN bounds: False)."""
    minx, miny, maxx, maxy = (float(b) for b in bounds)
    return DEGREES[0] <= minx <= maxx <= DEGREES[2] and DEGREES[1] <= miny <= maxy <= DEGREES[3]


def require_degrees(path: str | Path, bounds: Iterable[float], declared: str) -> None:
    """Raise :class:`NotDegreesError` naming ``path`` when its features' ``bounds`` are not inside
    lon/lat degrees although the file declares ``declared`` (e.g. ``EPSG:4326`` or CRS84)."""
    b = tuple(float(v) for v in bounds)
    if within_degrees(b):
        return
    metres = max(abs(v) for v in b) > 1_000
    raise NotDegreesError(
        f"{path}: declares {declared} (lon/lat degrees) but its coordinates span "
        f"x {b[0]:.6g}..{b[2]:.6g}, y {b[1]:.6g}..{b[3]:.6g}"
        + (", which look like metres (EPSG:3857?)" if metres else "")
        + "; reproject it to EPSG:4326 or declare its real CRS"
    )


def degenerate(geometry) -> bool:
    """A country geometry that cannot hold a point: missing, empty or without area."""
    return geometry is None or geometry.is_empty or geometry.area <= 0


def share(part: int, whole: int) -> float:
    """``part / whole``; 0.0 for nothing (no entities is no share, never a pass)."""
    return part / whole if whole else 0.0
