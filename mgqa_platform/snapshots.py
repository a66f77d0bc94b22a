"""Snapshot intake: identify input files by content hash and register them in ``snapshots``; record the
area each KG snapshot covers in ``coverage``.

Coverage is the area (EPSG:4326, lon/lat) inside which a KG snapshot holds its features completely. An OSM
snapshot declares it in a GeoJSON file beside the PBF (:func:`coverage_path`; one feature per source part,
written for the bundled sample by scripts/coverage.py); the KnowWhereGraph crawl covers its crawl region.
A KG with neither gets the convex hull of its entities' representative points, a weaker fallback: the
extract may be sparse near its hull (docs/questions.md, "Coverage").
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import shapely
from shapely.geometry import shape
from shapely.geometry.base import BaseGeometry

from mgqa_platform.files import sha256_file, snapshot_id_for
from mgqa_platform.kg.osm_reader import OsmSnapshotError, check_pbf_framing, header_timestamp
from mgqa_platform.warehouse import registered, transaction

__all__ = [
    "CoveragePart",
    "OsmSnapshotError",
    "Snapshot",
    "coverage_path",
    "ensure_coverage",
    "read_coverage",
    "record_coverage",
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


@dataclass(frozen=True)
class CoveragePart:
    """One part of a snapshot's coverage: its source name, how the area was made, which features it
    holds completely there, and the area (lon/lat, EPSG:4326)."""

    part: str
    method: str
    complete_for: str
    geometry: BaseGeometry


def coverage_path(pbf: str | Path) -> Path:
    """``<name>.coverage.geojson`` beside ``<name>.osm.pbf`` (or ``<name>.pbf``)."""
    p = Path(pbf)
    stem = p.name.removesuffix(".pbf").removesuffix(".osm")
    return p.with_name(f"{stem}.coverage.geojson")


def read_coverage(pbf: str | Path) -> list[CoveragePart]:
    """The coverage parts declared beside an OSM PBF (:func:`coverage_path`); [] when there is no file.

    Each GeoJSON feature carries ``part``, ``method`` and ``complete_for`` properties and a (multi)polygon.
    """
    path = coverage_path(pbf)
    if not path.is_file():
        return []
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [
        CoveragePart(
            f["properties"]["part"],
            f["properties"]["method"],
            f["properties"]["complete_for"],
            shape(f["geometry"]),
        )
        for f in doc["features"]
    ]


def record_coverage(
    con: duckdb.DuckDBPyConnection, kg: str, snapshot_id: str, parts: list[CoveragePart]
) -> int:
    """Replace ``kg``'s rows of ``coverage`` by ``parts`` for its native snapshot ``snapshot_id``;
    returns the number of rows written (0 clears the KG's coverage until :func:`ensure_coverage`)."""
    t = pa.table(
        {
            "part": pa.array([p.part for p in parts], pa.string()),
            "method": pa.array([p.method for p in parts], pa.string()),
            "complete_for": pa.array([p.complete_for for p in parts], pa.string()),
            "wkb": pa.array([shapely.to_wkb(p.geometry) for p in parts], pa.binary()),
        }
    )
    with registered(con, _cov=t), transaction(con):
        con.execute("DELETE FROM coverage WHERE kg = ?", [kg])
        con.execute(
            """
            INSERT INTO coverage
            SELECT ?, ?, part, method, complete_for, ST_GeomFromWKB(wkb)
            FROM _cov
            ORDER BY part
            """,
            [kg, snapshot_id],
        )
    return len(parts)


def ensure_coverage(con: duckdb.DuckDBPyConnection, kg: str, snapshot_id: str) -> str:
    """Give ``kg`` a coverage for ``snapshot_id``: keep the declared rows when there are any, else write
    the convex hull of its entities' representative points (method ``entity_hull``). Returns the method
    in force (``declared`` or ``entity_hull``; ``none`` for a KG without entities)."""
    declared = con.execute(
        """
        SELECT count(*)
        FROM coverage
        WHERE kg = ?
          AND snapshot_id = ?
        """,
        [kg, snapshot_id],
    ).fetchone()[0]
    if declared:
        return "declared"
    hull = con.execute(
        """
        SELECT ST_AsWKB(ST_ConvexHull(ST_Collect(list(ST_Point(lon, lat)))))
        FROM entities
        WHERE kg = ?
        """,
        [kg],
    ).fetchone()[0]
    if hull is None:
        record_coverage(con, kg, snapshot_id, [])
        return "none"
    part = CoveragePart("entities", "entity_hull", "unknown", shapely.from_wkb(bytes(hull)))
    record_coverage(con, kg, snapshot_id, [part])
    return "entity_hull"
