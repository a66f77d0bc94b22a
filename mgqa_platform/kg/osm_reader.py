"""Reading OSM PBF snapshots with pyosmium, turning libosmium's errors into one clear exception."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import osmium


class OsmSnapshotError(ValueError):
    """The PBF cannot be read completely (truncated, corrupt or not a PBF)."""


def _check(path: str | Path) -> Path:
    p = Path(path)
    if not p.is_file():
        raise OsmSnapshotError(f"{p}: no such OSM snapshot file")
    return p


def open_pbf(path: str | Path, entities=osmium.osm.ALL, with_tags_only: bool = False, areas: bool = False) -> Iterator:
    """Iterate the OSM objects of ``path`` in file order.

    ``areas=True`` adds assembled areas (closed ways and multipolygon/boundary relations) after the
    plain objects. libosmium errors (a truncated PBF: "unexpected EOF") become :class:`OsmSnapshotError`
    naming the file and the number of objects read before the failure.
    """
    p = _check(path)
    fp = osmium.FileProcessor(str(p), entities)
    if with_tags_only:
        fp = fp.with_filter(osmium.filter.EmptyTagFilter())
    if areas:
        fp = fp.with_areas()
    n = 0
    try:
        for obj in fp:
            n += 1
            yield obj
    except RuntimeError as e:
        raise OsmSnapshotError(f"{p}: truncated or corrupt PBF after {n} objects ({e})") from e


def header_timestamp(path: str | Path) -> str | None:
    """The ``osmosis_replication_timestamp`` of the PBF header, if the producer wrote one."""
    p = _check(path)
    try:
        reader = osmium.io.Reader(str(p), osmium.osm.NOTHING)
        try:
            ts = reader.header().get("osmosis_replication_timestamp")
        finally:
            reader.close()
    except RuntimeError as e:
        raise OsmSnapshotError(f"{p}: unreadable PBF header ({e})") from e
    return ts or None
