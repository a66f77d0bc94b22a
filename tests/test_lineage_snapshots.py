"""Lineage after a second OSM snapshot: an entity converted from the first snapshot's native file
names that file, its runs and that snapshot, not the KG's newest file; and the source triples it
counts are printed (issue 19, item 6)."""

from __future__ import annotations

from mgqa_platform import lineage, snapshots
from mgqa_platform.kg import native
from mgqa_platform.kg.convert import convert_kg
from mgqa_platform.kg.worldkg_build import build_worldkg
from tests.conftest import write_tiny_pbf


def _build(con, pbf, tmp_path, run_id: str) -> dict:
    """Register ``pbf``, build its WorldKG file and record it as the KG's current native file."""
    snap = snapshots.describe_osm_pbf(pbf)
    snapshots.register(con, snap)
    ttl = native.native_path(tmp_path / "kg", "worldkg", snap.snapshot_id)
    ttl.parent.mkdir(parents=True, exist_ok=True)
    report = build_worldkg(pbf, ttl)
    return {**native.record(con, "worldkg", ttl, snap.snapshot_id, report, run_id), "osm": snap}


def test_lineage_follows_the_entitys_own_snapshot(con, tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    first = _build(con, write_tiny_pbf(tmp_path / "a" / "town.osm.pbf"), tmp_path, "build-1")
    convert_kg(con, "worldkg", native.current(con, "worldkg")["path"], first["snapshot_id"])
    native.mark_converted(con, "worldkg", "convert-1")
    # a second snapshot lands: its KG file is built, its conversion has not run yet
    second_pbf = write_tiny_pbf(tmp_path / "b" / "town.osm.pbf", incomplete_relation=False)
    second = _build(con, second_pbf, tmp_path, "build-2")
    assert second["snapshot_id"] != first["snapshot_id"]
    assert native.current(con, "worldkg")["snapshot_id"] == second["snapshot_id"]

    eid = con.execute("SELECT min(entity_id) FROM entities WHERE kg = 'worldkg'").fetchone()[0]
    text = lineage.describe(con, eid)
    assert f"snapshot id {first['snapshot_id']}" in text
    assert "built by Dagster run build-1; converted by run convert-1" in text
    assert f"OSM snapshot  {first['osm'].snapshot_id}" in text
    assert f"  file      {first['osm'].path}" in text
    assert f"newest native file is {second['snapshot_id']}" in text
    assert "build-2" not in text and str(second["osm"].path) not in text
    # every triple it counts is printed
    total = con.execute("SELECT count(*) FROM entity_triples WHERE entity_id = ?", [eid]).fetchone()
    assert f"source triples ({total[0]})" in text
    listed = [line for line in text.splitlines() if line.startswith("  <")]
    assert len(listed) == total[0] > 0

    # once the new file is converted, the same entity names the new file and no note
    convert_kg(con, "worldkg", native.current(con, "worldkg")["path"], second["snapshot_id"])
    native.mark_converted(con, "worldkg", "convert-2")
    again = lineage.describe(con, eid)
    assert "converted by run convert-2" in again and "newest native file" not in again
    history = con.execute(
        "SELECT snapshot_id, conversion_run_id FROM kg_file_history ORDER BY run_id"
    ).fetchall()
    assert history == [(first["snapshot_id"], "convert-1"), (second["snapshot_id"], "convert-2")]
