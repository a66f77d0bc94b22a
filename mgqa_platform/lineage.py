"""Provenance chains read from the warehouse (``mgqa lineage``)."""

from __future__ import annotations

import duckdb


def describe(con: duckdb.DuckDBPyConnection, entity_id: str, max_triples: int = 40) -> str:
    """Entity -> its source triples -> native KG file (path, hash, build and conversion runs) -> OSM snapshot.

    Raises ``KeyError`` if the id is unknown.
    """
    cur = con.execute(
        "SELECT entity_id, kg, iri, name, display_name, category, geom_kind, lon, lat, snapshot_id FROM entities WHERE entity_id = ?",
        [entity_id],
    )
    row = cur.fetchone()
    if row is None:
        raise KeyError(f"unknown id {entity_id!r} (expected an entity id such as 'worldkg:12345')")
    e = dict(zip([d[0] for d in cur.description], row, strict=True))
    lines = [
        f"entity      {e['entity_id']}  ({e['category']}, {e['geom_kind']})",
        f"  name      {e['name']}   display: {e['display_name']}",
        f"  iri       {e['iri']}",
        f"  point     lon {e['lon']:.6f}, lat {e['lat']:.6f} (EPSG:4326)",
    ]
    triples = con.execute(
        "SELECT s, p, o FROM entity_triples WHERE entity_id = ? ORDER BY s, p, o LIMIT ?", [entity_id, max_triples]
    ).fetchall()
    total = con.execute("SELECT count(*) FROM entity_triples WHERE entity_id = ?", [entity_id]).fetchone()[0]
    lines.append(f"source triples ({total})")
    lines += [f"  <{s}> <{p}> {o!r}" for s, p, o in triples]
    if total > max_triples:
        lines.append(f"  ... {total - max_triples} more")
    f = con.execute("SELECT * FROM kg_files WHERE kg = ?", [e["kg"]])
    frow = f.fetchone()
    if frow:
        k = dict(zip([d[0] for d in f.description], frow, strict=True))
        lines += [
            f"native KG file  {k['path']}",
            f"  sha256    {k['sha256']}  (snapshot id {k['snapshot_id']})",
            f"  built by Dagster run {k['run_id']}; converted by run {k['conversion_run_id']}",
        ]
        if k["source_snapshot_id"]:
            s = con.execute("SELECT path, sha256, osm_timestamp FROM snapshots WHERE snapshot_id = ?", [k["source_snapshot_id"]]).fetchone()
            if s:
                lines += [f"OSM snapshot  {k['source_snapshot_id']}", f"  file      {s[0]}", f"  sha256    {s[1]}  (header timestamp {s[2] or 'n/a'})"]
    if e["snapshot_id"] != (frow and frow[1]):
        lines.append(f"warning: the entity row was converted from {e['snapshot_id']}, the current native file differs")
    return "\n".join(lines)
