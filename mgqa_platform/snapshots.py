"""Snapshot intake: identify input files by content hash and register them in ``snapshots``; record
the area each KG snapshot covers in ``coverage``; decide which OSM snapshot the OSM-derived KGs are
built from.

Which snapshot wins (:func:`choose_osm_snapshot`): the pinned one, else the newest registered
snapshot that is neither retired, failed nor rejected and whose file is still there. The operator's
states and the platform's verdicts live in ``snapshot_states`` (no row: usable): ``pinned`` and
``retired`` are set by ``mgqa snapshots pin|retire``; ``rejected`` by intake (an unreadable or empty
PBF); ``failed`` when a build from the snapshot failed or its blocking checks did. A removed file
never wedges the home: its snapshot is skipped, and listed as missing.

Coverage is the area (EPSG:4326, lon/lat) inside which a KG snapshot holds its features completely.
An OSM snapshot declares it in a GeoJSON file beside the PBF (:func:`coverage_path`; one feature per
source part, written for the bundled sample by scripts/coverage.py); the KnowWhereGraph crawl covers
its crawl region. A KG with neither gets the convex hull of its entities' representative points, a
weaker fallback: the extract may be sparse near its hull (docs/questions.md, "Coverage").
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

from mgqa_platform.errors import UserError
from mgqa_platform.files import sha256_file, snapshot_id_for
from mgqa_platform.kg.osm_reader import (
    OsmSnapshotError,
    check_pbf_framing,
    first_tagged_object,
    header_timestamp,
)
from mgqa_platform.warehouse import registered, transaction

__all__ = [
    "CoveragePart",
    "OsmSnapshotError",
    "Snapshot",
    "SnapshotLookupError",
    "coverage_path",
    "ensure_coverage",
    "read_coverage",
    "record_coverage",
    "describe_osm_pbf",
    "register",
    "reject",
    "lookup",
    "resolve_osm_snapshot",
    "STATES",
    "SnapshotStatus",
    "set_state",
    "mark_failed",
    "statuses",
    "choose_osm_snapshot",
]


class SnapshotLookupError(UserError, LookupError):
    """No such snapshot, or none usable: the message lists what is registered and in which state."""


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
    """Check a PBF's framing, hash it, read its header and its first tagged object.

    ``OsmSnapshotError`` naming the file for a truncated or corrupt file, and for a valid but empty
    extract (no node, way or relation with a tag: it would build empty KGs)."""
    p = Path(path).resolve()
    check_pbf_framing(p)
    timestamp = header_timestamp(p)
    if first_tagged_object(p) is None:
        raise OsmSnapshotError(f"{p}: no OSM object with tags (an empty extract)")
    sha = sha256_file(p)
    return Snapshot(snapshot_id_for(p, sha), "osm_pbf", str(p), sha, p.stat().st_size, timestamp)


def reject(con: duckdb.DuckDBPyConnection, path: str | Path, reason: str) -> Snapshot:
    """Register the file ``path`` that intake refused, with state ``rejected`` and ``reason``, so
    that ``mgqa snapshots list`` shows it and it never wins; returns its row."""
    p = Path(path).resolve()
    sha = sha256_file(p)
    snap = Snapshot(snapshot_id_for(p, sha), "osm_pbf", str(p), sha, p.stat().st_size)
    register(con, snap)
    set_state(con, snap.snapshot_id, "rejected", reason)
    return snap


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
    (registering it). Raises ``LookupError`` with the ids seen when nothing matches. A candidate
    that intake refuses (:func:`describe_osm_pbf`) is skipped, unless it is the one asked for: then
    it is registered as ``rejected`` and its ``OsmSnapshotError`` raised."""
    rejected = con.execute(
        "SELECT reason FROM snapshot_states WHERE snapshot_id = ? AND state = 'rejected'",
        [snapshot_id],
    ).fetchone()
    if rejected is not None:
        raise OsmSnapshotError(f"snapshot {snapshot_id} was rejected at intake: {rejected[0]}")
    snap = lookup(con, snapshot_id)
    if snap is not None and Path(snap.path).is_file():
        return snap
    seen = []
    for p in candidates:
        try:
            d = describe_osm_pbf(p)
        except OsmSnapshotError as e:
            if snapshot_id_for(p, sha256_file(p)) == snapshot_id:
                reject(con, p, str(e))
                raise
            seen.append(f"{Path(p).name}: refused")
            continue
        seen.append(d.snapshot_id)
        if d.snapshot_id == snapshot_id:
            register(con, d)
            return d
    raise SnapshotLookupError(
        f"OSM snapshot {snapshot_id!r} is neither registered nor in the watched folder "
        f"(found: {seen})"
    )


#: Snapshot states, in the order ``mgqa snapshots list`` explains them; no row means usable.
STATES = ("pinned", "retired", "failed", "rejected")


@dataclass(frozen=True)
class SnapshotStatus:
    """One registered OSM snapshot as ``mgqa snapshots list`` shows it: its state (``usable`` when
    no state is recorded), why, whether its file is still there and whether it is the one that
    wins."""

    snapshot_id: str
    path: str
    state: str
    reason: str | None
    file_present: bool
    chosen: bool


def set_state(
    con: duckdb.DuckDBPyConnection, snapshot_id: str, state: str | None, reason: str | None = None
) -> None:
    """Record ``state`` (one of :data:`STATES`, or None for usable) for a registered snapshot;
    pinning one unpins any other. :class:`SnapshotLookupError` for an unknown id; a ``UserError``
    for pinning a snapshot intake rejected (its file cannot be built)."""
    if state is not None and state not in STATES:
        raise ValueError(f"unknown snapshot state {state!r}; expected one of {', '.join(STATES)}")
    if lookup(con, snapshot_id) is None:
        raise SnapshotLookupError(
            f"no registered snapshot {snapshot_id!r} (see `mgqa snapshots list`)"
        )
    current = con.execute(
        "SELECT state, reason FROM snapshot_states WHERE snapshot_id = ?", [snapshot_id]
    ).fetchone()
    if state == "pinned" and current is not None and current[0] == "rejected":
        raise UserError(f"snapshot {snapshot_id} was rejected at intake ({current[1]}); not pinned")
    with transaction(con):
        if state == "pinned":
            con.execute("DELETE FROM snapshot_states WHERE state = 'pinned'")
        con.execute("DELETE FROM snapshot_states WHERE snapshot_id = ?", [snapshot_id])
        if state is not None:
            con.execute(
                "INSERT INTO snapshot_states VALUES (?, ?, ?)", [snapshot_id, state, reason]
            )


def mark_failed(con: duckdb.DuckDBPyConnection, snapshot_id: str, reason: str) -> None:
    """Record that a build from ``snapshot_id`` failed (``reason``: the error or the failed checks),
    so it no longer wins; a pinned snapshot stays pinned (the operator chose it)."""
    row = con.execute(
        "SELECT state FROM snapshot_states WHERE snapshot_id = ?", [snapshot_id]
    ).fetchone()
    if row is None or row[0] != "pinned":
        set_state(con, snapshot_id, "failed", reason)


def _state_rows(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, str | None]]:
    """(snapshot_id, path, state, reason) of every registered OSM snapshot, in id order."""
    return con.execute(
        """
        SELECT s.snapshot_id, s.path, coalesce(t.state, 'usable'), t.reason
        FROM snapshots s
        LEFT JOIN snapshot_states t USING (snapshot_id)
        WHERE s.kind = 'osm_pbf'
        ORDER BY s.snapshot_id
        """
    ).fetchall()


def choose_osm_snapshot(
    con: duckdb.DuckDBPyConnection, newest_last: list[str], preferred: str | None = None
) -> Snapshot:
    """The OSM snapshot the OSM-derived KGs are built from.

    The pinned snapshot wins; else ``preferred`` (a sensor's new snapshot) when usable; else the
    last of ``newest_last`` (snapshot ids, oldest first) that is usable. Usable: registered, not
    retired, failed or rejected, its file present. Raises ``LookupError`` listing every snapshot and
    its state when none is usable."""
    rows = {sid: (path, state, reason) for sid, path, state, reason in _state_rows(con)}
    pinned = [sid for sid, (_, state, _) in rows.items() if state == "pinned"]
    order = pinned or ([preferred] if preferred else []) + list(reversed(newest_last))
    for sid in order:
        path, state, _ = rows.get(sid, (None, None, None))
        if state in ("pinned", "usable") and Path(path).is_file():
            return lookup(con, sid)
    seen = "; ".join(
        f"{sid}: {state}{f' ({reason})' if reason else ''}"
        + ("" if Path(path).is_file() else ", file missing")
        for sid, (path, state, reason) in rows.items()
    )
    if pinned:
        raise SnapshotLookupError(
            f"the pinned OSM snapshot {pinned[0]!r} has no file at {rows[pinned[0]][0]}; "
            "restore it or `mgqa snapshots retire` it"
        )
    raise SnapshotLookupError(
        "no usable OSM snapshot: add a *.osm.pbf to the watched folder or `mgqa snapshots pin` one "
        f"(snapshots: {seen or 'none registered'})"
    )


def statuses(con: duckdb.DuckDBPyConnection, newest_last: list[str]) -> list[SnapshotStatus]:
    """Every registered OSM snapshot with its state, whether its file is present, and which one
    :func:`choose_osm_snapshot` picks now (none chosen when none is usable)."""
    try:
        chosen = choose_osm_snapshot(con, newest_last).snapshot_id
    except LookupError:
        chosen = None
    return [
        SnapshotStatus(sid, path, state, reason, Path(path).is_file(), sid == chosen)
        for sid, path, state, reason in _state_rows(con)
    ]


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
    """The coverage parts declared beside an OSM PBF (:func:`coverage_path`); [] when there is no
    file.

    Each GeoJSON feature carries ``part``, ``method`` and ``complete_for`` properties and a
    (multi)polygon.
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
    returns the number of rows written (0 clears the KG's coverage until
    :func:`ensure_coverage`)."""
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
    """Give ``kg`` a coverage for ``snapshot_id``: keep the declared rows when there are any, else
    write the convex hull of its entities' representative points (method ``entity_hull``). Returns
    the method in force (``declared`` or ``entity_hull``; ``none`` for a KG without entities)."""
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
