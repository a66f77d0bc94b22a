"""Native KG files: build one KG in its own format and record it in ``kg_files``.

* ``worldkg``: Turtle from the OSM snapshot's nodes with two or more tags (:mod:`worldkg_build`), or a
  real WorldKG dump registered as it is;
* ``osmh3kg``: Parquet triples from the OSM snapshot's features (:mod:`osmh3kg_build`), or a real
  OSMH3KG table registered as it is (a folder: content hash over its data files, :mod:`osmh3kg_table`);
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
    """``<kg_dir>/<kg>-<source id><ext>``: one file per (KG, source snapshot), never overwritten in place."""
    return Path(kg_dir) / f"{kg}-{source_id}{EXTENSIONS[kg]}"


def record(
    con: duckdb.DuckDBPyConnection,
    kg: str,
    path: Path,
    source_snapshot_id: str | None,
    report: BuildReport,
    run_id: str,
) -> dict:
    """Register the built file as the KG's current native file and replace its build quarantine rows."""
    sha, size = osmh3kg_table.fingerprint(path) if path.is_dir() else (sha256_file(path), None)
    size = path.stat().st_size if size is None else size
    snapshot_id = snapshot_id_for(path, sha)
    with transaction(con):
        con.execute(
            "INSERT OR REPLACE INTO kg_files VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            [
                kg,
                snapshot_id,
                source_snapshot_id,
                str(path),
                sha,
                size,
                json.dumps(report.counts, sort_keys=True),
                run_id,
            ],
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
    con.execute("UPDATE kg_files SET conversion_run_id = ? WHERE kg = ?", [run_id, kg])
