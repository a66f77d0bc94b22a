"""Snapshot intake: identify input files by content hash and register them in ``snapshots``."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import duckdb

from mgqa_platform.files import sha256_file, snapshot_id_for
from mgqa_platform.kg.osm_reader import OsmSnapshotError, check_pbf_framing, header_timestamp

__all__ = [
    "OsmSnapshotError",
    "Snapshot",
    "describe_osm_pbf",
    "register",
    "lookup",
    "resolve_osm_snapshot",
]


@dataclass(frozen=True)
class Snapshot:
    snapshot_id: str
    kind: str
    path: str
    sha256: str
    bytes: int
    osm_timestamp: str | None = None

    def as_metadata(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


def describe_osm_pbf(path: str | Path) -> Snapshot:
    """Check a PBF's framing, hash it and read its header; ``OsmSnapshotError`` for a truncated file."""
    p = Path(path).resolve()
    check_pbf_framing(p)
    sha = sha256_file(p)
    return Snapshot(
        snapshot_id_for(p, sha), "osm_pbf", str(p), sha, p.stat().st_size, header_timestamp(p)
    )


def register(con: duckdb.DuckDBPyConnection, snap: Snapshot) -> None:
    """Idempotent upsert of a snapshot row (same id = same bytes, so re-registering is a no-op)."""
    con.execute(
        "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?, ?, ?)",
        [snap.snapshot_id, snap.kind, snap.path, snap.sha256, snap.bytes, snap.osm_timestamp],
    )


def lookup(con: duckdb.DuckDBPyConnection, snapshot_id: str) -> Snapshot | None:
    row = con.execute("SELECT * FROM snapshots WHERE snapshot_id = ?", [snapshot_id]).fetchone()
    return Snapshot(*row) if row else None


def resolve_osm_snapshot(
    con: duckdb.DuckDBPyConnection, snapshot_id: str, candidates: list[Path]
) -> Snapshot:
    """The registered snapshot ``snapshot_id``, or the file among ``candidates`` whose id matches
    (registering it). Raises ``LookupError`` with the ids seen when nothing matches."""
    snap = lookup(con, snapshot_id)
    if snap is not None and Path(snap.path).is_file():
        return snap
    seen = []
    for p in candidates:
        d = describe_osm_pbf(p)
        seen.append(d.snapshot_id)
        if d.snapshot_id == snapshot_id:
            register(con, d)
            return d
    raise LookupError(
        f"OSM snapshot {snapshot_id!r} is neither registered nor in the watched folder (found: {seen})"
    )
