"""Native KG files: build one KG in its own format and record it in ``kg_files``.

* ``worldkg``: Turtle from the OSM snapshot's nodes with two or more tags (:mod:`worldkg_build`), or
  a real WorldKG dump registered as it is;
* ``osmh3kg``: Parquet triples from the OSM snapshot's features (:mod:`osmh3kg_build`), or a real
  OSMH3KG table registered as it is (a folder: content hash over its data files,
  :mod:`osmh3kg_table`);
* ``kwg``: a KnowWhereGraph crawl file from a live SPARQL endpoint (:mod:`sparql`), or in bundled
  mode the KWG-shaped fixture of the bundled query results (:mod:`kwg_fixture`) with the USGS
  catalog's own event graph (:mod:`usgs_events`).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from mgqa_platform.files import sha256_file, snapshot_id_for
from mgqa_platform.kg import osmh3kg_table
from mgqa_platform.kg.worldkg_build import BuildReport
from mgqa_platform.warehouse import fetch_dicts, transaction

EXTENSIONS = {"worldkg": ".ttl", "osmh3kg": ".parquet", "kwg": ".nt"}


def native_path(kg_dir: str | Path, kg: str, source_id: str) -> Path:
    """``<kg_dir>/<kg>-<source id><ext>``: one file per (KG, source snapshot), never overwritten in
    place."""
    return Path(kg_dir) / f"{kg}-{source_id}{EXTENSIONS[kg]}"


def record(
    con: duckdb.DuckDBPyConnection,
    kg: str,
    path: Path,
    source_snapshot_id: str | None,
    report: BuildReport,
    run_id: str,
) -> dict:
    """Register the built file as the KG's current native file (``kg_files``) and in its history
    (``kg_file_history``, where lineage finds the file an older entity row came from), and
    replace its build quarantine rows."""
    sha, size = osmh3kg_table.fingerprint(path) if path.is_dir() else (sha256_file(path), None)
    size = path.stat().st_size if size is None else size
    snapshot_id = snapshot_id_for(path, sha)
    row = [
        kg,
        snapshot_id,
        source_snapshot_id,
        str(path),
        sha,
        size,
        json.dumps(report.counts, sort_keys=True),
        run_id,
    ]
    with transaction(con):
        for table in ("kg_files", "kg_file_history"):
            con.execute(
                f"INSERT OR REPLACE INTO {table} VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)", row
            )
        con.execute("DELETE FROM quarantine WHERE kg = ? AND stage = 'kg_build'", [kg])
        if report.skipped:
            con.executemany(
                "INSERT INTO quarantine VALUES (?, 'kg_build', ?, ?, ?, ?)",
                [[kg, s["reason"], s["detail"], s["source"], s["payload"]] for s in report.skipped],
            )
    return {"snapshot_id": snapshot_id, "sha256": sha, "bytes": size}


def current(con: duckdb.DuckDBPyConnection, kg: str) -> dict | None:
    """The KG's current native file as a dict (``kg_files`` row), or None if never built."""
    rows = fetch_dicts(con, "SELECT * FROM kg_files WHERE kg = ?", [kg])
    return rows[0] if rows else None


def mark_converted(con: duckdb.DuckDBPyConnection, kg: str, run_id: str) -> None:
    """Record the run that converted the KG's current native file, in both tables."""
    con.execute("UPDATE kg_files SET conversion_run_id = ? WHERE kg = ?", [run_id, kg])
    con.execute(
        """
        UPDATE kg_file_history
        SET conversion_run_id = ?
        WHERE kg = ? AND snapshot_id = (SELECT snapshot_id FROM kg_files WHERE kg = ?)
        """,
        [run_id, kg, kg],
    )


def file_of(con: duckdb.DuckDBPyConnection, kg: str, snapshot_id: str) -> dict | None:
    """The native file ``snapshot_id`` of ``kg`` (a ``kg_file_history`` row, else the
    ``kg_files`` row when it is that file), or None when the warehouse never recorded it."""
    for table in ("kg_file_history", "kg_files"):
        rows = fetch_dicts(
            con, f"SELECT * FROM {table} WHERE kg = ? AND snapshot_id = ?", [kg, snapshot_id]
        )
        if rows:
            return rows[0]
    return None
