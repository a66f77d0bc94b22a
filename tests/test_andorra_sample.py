"""Andorra in the bundled sample: its country and parish boundaries become region polygons.

The Andorra boundary relations (``ISO3166-1=AD``, admin_level 2; ``ISO3166-2=AD-*``, admin_level 7)
are cut from the bundled PBF with their member ways and nodes, built into OSMH3KG triples and
converted into entities, the path every OSM snapshot takes. Geometries are EPSG:4326, lon/lat. Areas
are in km2: the executors' DuckDB measure (EPSG:6933 equal-area) is checked against pyproj's WGS84
geodesic area, which shares no code with it.
"""

from __future__ import annotations

import json
from pathlib import Path

import osmium
import pytest
import shapely
from osmium.osm import mutable
from pyproj import Geod

from mgqa_platform.kg.convert import convert_kg
from mgqa_platform.kg.osmh3kg_build import build_osmh3kg
from mgqa_platform.questions import roles
from mgqa_platform.questions.executors.shape import area_km2_sql
from mgqa_platform.settings import SAMPLE_DIR
from mgqa_platform.warehouse import fetch_dicts
from tests import osm_elements as osm

SAMPLE_PBF = SAMPLE_DIR / "osm" / "mgqa-sample.osm.pbf"
PARISHES = {
    "Andorra la Vella",
    "Canillo",
    "Encamp",
    "Escaldes-Engordany",
    "La Massana",
    "Ordino",
    "Sant Julià de Lòria",
}


def _is_andorra_boundary(tags: dict[str, str]) -> bool:
    if tags.get("boundary") != "administrative":
        return False
    country = tags.get("admin_level") == "2" and tags.get("ISO3166-1") == "AD"
    parish = tags.get("admin_level") == "7" and tags.get("ISO3166-2", "").startswith("AD-")
    return country or parish


def cut_andorra_boundaries(src: Path, dst: Path) -> None:
    """Write to ``dst`` the Andorra boundary relations of ``src`` with their member ways and nodes
    (untagged, locations copied as they are: EPSG:4326 lon/lat)."""
    rels = [
        mutable.Relation(
            id=r.id,
            version=r.version or 1,
            members=[(m.type, m.ref, m.role) for m in r.members],
            tags={t.k: t.v for t in r.tags},
        )
        for r in osmium.FileProcessor(str(src), osmium.osm.RELATION)
        if _is_andorra_boundary({t.k: t.v for t in r.tags})
    ]
    way_ids = {ref for r in rels for kind, ref, _ in r.members if kind == "w"}
    ways = [
        mutable.Way(id=w.id, version=w.version or 1, nodes=[n.ref for n in w.nodes], tags={})
        for w in osmium.FileProcessor(str(src), osmium.osm.WAY)
        if w.id in way_ids
    ]
    node_ids = {ref for w in ways for ref in w.nodes}
    writer = osmium.SimpleWriter(str(dst))
    try:
        for n in osmium.FileProcessor(str(src), osmium.osm.NODE):
            if n.id in node_ids:
                writer.add_node(osm.node(n.id, (n.location.lon, n.location.lat)))
        for w in sorted(ways, key=lambda w: w.id):
            writer.add_way(w)
        for r in sorted(rels, key=lambda r: r.id):
            writer.add_relation(r)
    finally:
        writer.close()


@pytest.fixture(scope="module")
def andorra_triples(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("andorra")
    cut = root / "andorra-admin.osm.pbf"
    cut_andorra_boundaries(SAMPLE_PBF, cut)
    out = root / "andorra-admin.parquet"
    report = build_osmh3kg(cut, out, fallback_date="2021-06-22")
    assert not report.skipped, report.skipped  # every relation assembles: none is cut at the edge
    return out


def test_andorra_country_and_parishes_are_region_polygons(con, andorra_triples):
    convert_kg(con, "osmh3kg", andorra_triples, "andorra")
    ents = fetch_dicts(
        con,
        f"""
        SELECT name, category, geom_kind, attributes, ST_IsValid(geometry) AS valid,
            {area_km2_sql("geometry")} AS area_km2, ST_AsText(geometry) AS wkt
        FROM entities
        WHERE kg = 'osmh3kg'
        """,
    )
    by_name = {e["name"]: e for e in ents}
    assert set(by_name) == PARISHES | {"Andorra"}
    for e in ents:
        assert e["category"] == "administrative_region" and e["geom_kind"] == "polygon"
        assert e["category"] in roles.REGION_CATEGORIES and e["valid"]
    assert json.loads(by_name["Andorra"]["attributes"])["admin_level"] == 2
    country = shapely.from_wkt(by_name["Andorra"]["wkt"])
    parishes = [shapely.from_wkt(by_name[p]["wkt"]) for p in sorted(PARISHES)]
    for name in PARISHES:
        assert json.loads(by_name[name]["attributes"])["admin_level"] == 7
    for p in parishes:
        assert country.covers(p)
    # the parishes tile the country: no gap, no overlap (shared border ways give identical edges)
    union = shapely.union_all(parishes)
    assert shapely.symmetric_difference(union, country).area < 1e-9 * country.area
    assert sum(p.area for p in parishes) == pytest.approx(country.area, rel=1e-9)


def test_parish_area_agrees_with_a_geodesic_computation(con, andorra_triples):
    convert_kg(con, "osmh3kg", andorra_triples, "andorra")
    (row,) = fetch_dicts(
        con,
        f"""
        SELECT {area_km2_sql("geometry")} AS area_km2, ST_AsText(geometry) AS wkt
        FROM entities
        WHERE name = ?
        """,
        ["Ordino"],
    )
    geodesic_m2, _ = Geod(ellps="WGS84").geometry_area_perimeter(shapely.from_wkt(row["wkt"]))
    assert abs(geodesic_m2) / 1e6 == pytest.approx(row["area_km2"], rel=1e-4)
    assert 80 < row["area_km2"] < 90  # Ordino: about 85 km2 of Andorra's 468
