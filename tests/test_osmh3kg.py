"""OSMH3KG in its published form: exact rows for a point, a line, a polygon and the grid cells, the
DE-9IM relations against shapely's predicates one by one, the snapshot date, GDAL's ignored keys,
and the converter reading the published table (bare ids) from Parquet, part files, Delta and CSV
parts."""

from __future__ import annotations

import csv
import json

import deltalake
import h3
import osmium
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import shapely

from mgqa_platform.kg import native, osmh3kg_table
from mgqa_platform.kg.convert import convert_kg
from mgqa_platform.kg.osmh3kg_build import build_osmh3kg, de9im_predicates, snapshot_date
from mgqa_platform.kg.worldkg_build import BuildReport
from mgqa_platform.warehouse import fetch_dicts
from tests import osm_elements as osm
from tests.test_whole import write_triples

RES = 8
DATE = "2024-01-01"
POINT = (8.4580, 49.4875)  # lon, lat
LINE = [(8.4400, 49.4800), (8.4700, 49.4810), (8.4900, 49.4950)]
SQUARE = [(8.4300, 49.4600), (8.4600, 49.4600), (8.4600, 49.4800), (8.4300, 49.4800)]
IGNORED = {
    "source": "survey",
    "ele": "112",
    "note": "n",
    "fixme": "f",
    "FIXME": "F",
    "created_by": "JOSM",
    "openGeoDB:name": "x",
}
PREDICATES = {
    "geo:sfIntersects": shapely.intersects,
    "geo:sfContains": shapely.contains,
    "geo:sfWithin": shapely.within,
    "geo:sfOverlaps": shapely.overlaps,
    "geo:sfCrosses": shapely.crosses,
    "geo:sfTouches": shapely.touches,
    "geo:sfEquals": shapely.equals,
    "geo:ehCovers": shapely.covers,
    "geo:ehCoveredBy": shapely.covered_by,
}


def write_pbf(path, *, timestamp: str | None = "2024-01-01T08:00:00Z"):
    header = osmium.io.Header()
    if timestamp:
        header.set("osmosis_replication_timestamp", timestamp)
    w = osmium.SimpleWriter(str(path), header=header, overwrite=True)
    try:
        w.add_node(osm.node(1, POINT, {"amenity": "university", "name": "Uni, B6", **IGNORED}))
        w.add_node(osm.node(2, (8.4650, 49.4870), {"man_made": "x_y", "name": "XY"}))
        for i, loc in enumerate(LINE + SQUARE, start=100):
            w.add_node(osm.node(i, loc))
        w.add_way(
            osm.way(
                10,
                [100, 101, 102],
                {"highway": "residential", "name": "B Street", "source": "bing"},
            )
        )
        w.add_way(
            osm.way(
                11,
                [103, 104, 105, 106, 103],
                {"leisure": "park", "name": "Park", "area": "yes", "ele": "100"},
            )
        )
    finally:
        w.close()
    return path


@pytest.fixture
def built(tmp_path):
    pbf = write_pbf(tmp_path / "h.osm.pbf")
    out = tmp_path / "h.parquet"
    report = build_osmh3kg(pbf, out, h3_res=RES)
    return out, report


def triples(path) -> list[tuple[str, str, str]]:
    return [(r["subject"], r["predicate"], r["object"]) for r in pq.read_table(path).to_pylist()]


def cell_wkt(cell: str) -> str:
    poly = shapely.Polygon([(lng, lat) for lat, lng in h3.cell_to_boundary(cell)])
    return shapely.to_wkt(poly, rounding_precision=7, trim=True)


def expected_links(subject: str, g) -> set[tuple[str, str, str]]:
    """Every cell near ``g`` (a wide disk around its vertices' cells), each predicate on its own."""
    near = set()
    for lon, lat in shapely.get_coordinates(g):
        near |= set(h3.grid_disk(h3.latlng_to_cell(lat, lon, RES), 4))
    out = set()
    for c in near:
        cell = shapely.Polygon([(lng, lat) for lat, lng in h3.cell_to_boundary(c)])
        out |= {(c, p, subject) for p, f in PREDICATES.items() if f(cell, g)}
    return out


def links_of(rows, subject: str) -> set[tuple[str, str, str]]:
    return {t for t in rows if t[2] == subject and t[1] in PREDICATES}


def test_point_rows_exact(built):
    rows = triples(built[0])
    cell = h3.latlng_to_cell(POINT[1], POINT[0], RES)
    assert {t for t in rows if "node/1" in (t[0], t[2]) or t[0] == "geonode/1"} == {
        ("node/1", "rdf:type", "university"),
        ("node/1", "name", "Uni, B6"),
        ("node/1", "geo:hasGeometry", "geonode/1"),
        ("geonode/1", "geo:asWKT", "POINT (8.458 49.4875)"),
        (cell, "geo:sfIntersects", "node/1"),
        (cell, "geo:sfContains", "node/1"),
        (cell, "geo:ehCovers", "node/1"),
    }
    assert ("university", "rdfs:subClassOf", "amenity") in rows
    assert ("node/1", "amenity", "university") not in rows  # the main tag is only a type


def test_unlisted_main_value_is_a_raw_triple_only(built):
    rows = triples(built[0])
    own = {(p, o) for s, p, o in rows if s == "node/2"}
    assert ("man_made", "x_y") in own
    assert not any(p == "rdf:type" for p, _ in own)
    assert not any(s == "x_y" or o in ("man_made", "manMade", "ManMade") for s, _, o in rows)


def test_line_and_polygon_rows_and_de9im(built):
    rows = triples(built[0])
    line = shapely.LineString(LINE)
    square = shapely.Polygon(SQUARE)
    assert {(p, o) for s, p, o in rows if s == "way/10"} == {
        ("rdf:type", "residential"),
        ("name", "B Street"),
        ("geo:hasGeometry", "geoway/10"),
    }
    assert {(p, o) for s, p, o in rows if s == "way/11"} == {
        ("rdf:type", "park"),
        ("name", "Park"),
        ("geo:hasGeometry", "geoway/11"),
    }
    wkt = {s: o for s, p, o in rows if p == "geo:asWKT"}
    assert shapely.from_wkt(wkt["geoway/10"]).equals(line)
    assert shapely.from_wkt(wkt["geoway/11"]).equals(square)
    point = shapely.Point(POINT)
    for subject, g in (
        ("node/1", point),
        ("way/10", line),
        ("way/11", shapely.from_wkt(wkt["geoway/11"])),
    ):
        assert links_of(rows, subject) == expected_links(subject, g)
    kinds = {p for _, p, o in rows if o == "way/11" and p in PREDICATES}
    assert {
        "geo:sfWithin",
        "geo:ehCoveredBy",
        "geo:sfOverlaps",
    } <= kinds  # cells in and on the park
    assert "geo:sfCrosses" in {p for _, p, o in rows if o == "way/10"}


def test_de9im_matches_shapely_on_touching_and_equal_cells():
    c = h3.latlng_to_cell(POINT[1], POINT[0], RES)
    n = sorted(h3.grid_ring(c, 1))[0]
    cell, other = (
        shapely.Polygon([(lng, lat) for lat, lng in h3.cell_to_boundary(x)]) for x in (c, n)
    )
    for g in (cell, other, cell.exterior, shapely.Point(cell.exterior.coords[0])):
        masks = de9im_predicates([shapely.relate(cell, g)], int(shapely.get_dimensions(g)))
        assert {p for p, m in masks.items() if m[0]} == {
            p for p, f in PREDICATES.items() if f(cell, g)
        }


def test_grid_cells_and_adjacency_exact(built):
    rows = triples(built[0])
    grid = {s for s, p, _ in rows if p == "geo:sfIntersects"}
    a = h3.latlng_to_cell(POINT[1], POINT[0], RES)
    b = next(c for c in sorted(h3.grid_ring(a, 1)) if c in grid)
    for c in (a, b):
        assert h3.is_valid_cell(c) and h3.get_resolution(c) == RES
        assert (c, "geo:hasGeometry", "geoH3" + c) in rows
        assert ("geoH3" + c, "geo:asWKT", cell_wkt(c)) in rows
    assert {(a, "hcf:isAdjacentTo", b), (b, "hcf:isAdjacentTo", a)} <= set(rows)
    adjacency = {(s, o) for s, p, o in rows if p == "hcf:isAdjacentTo"}
    assert adjacency == {(x, y) for x in grid for y in h3.grid_ring(x, 1) if y in grid}
    assert {s for s, p, _ in rows if p == "geo:hasGeometry" and s in grid} == grid


def test_date_on_every_row_and_ignored_keys_dropped(built):
    out, report = built
    t = pq.read_table(out)
    assert set(t.column("date").to_pylist()) == {DATE}
    predicates = set(t.column("predicate").to_pylist())
    assert not predicates & (set(IGNORED) | {"area"})
    assert report.counts["triples"] == t.num_rows


def test_deterministic_bytes(tmp_path):
    pbf = write_pbf(tmp_path / "h.osm.pbf")
    build_osmh3kg(pbf, tmp_path / "a.parquet", h3_res=RES)
    build_osmh3kg(pbf, tmp_path / "b.parquet", h3_res=RES)
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_snapshot_date_header_then_fallback_then_error(tmp_path):
    dated = write_pbf(tmp_path / "d.osm.pbf")
    undated = write_pbf(tmp_path / "u.osm.pbf", timestamp=None)
    assert snapshot_date(dated, "2020-05-05") == DATE  # the header wins
    assert snapshot_date(undated, "2020-05-05") == "2020-05-05"
    with pytest.raises(ValueError, match="no osmosis_replication_timestamp"):
        build_osmh3kg(undated, tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()
    with pytest.raises(ValueError, match="not a YYYY-MM-DD date"):
        snapshot_date(undated, "June 2020")


# ----------------------------------------------------------------------- reading the published form
def published(rows: list[dict]) -> list[dict]:
    """Our rows with the published ids: bare element ids, ``geo<id>`` geometry nodes."""

    def bare(x: str) -> str:
        for prefix in ("geonode/", "geoway/", "georelation/"):
            if x.startswith(prefix):
                return "geo" + x[len(prefix) :]
        for prefix in ("node/", "way/", "relation/"):
            if x.startswith(prefix):
                return x[len(prefix) :]
        return x

    return [{**r, "subject": bare(r["subject"]), "object": bare(r["object"])} for r in rows]


def write_csv_parts(rows: list[dict], folder) -> None:
    """Spark-like CSV parts: a header per part, quotes where needed, a ``_SUCCESS`` marker."""
    folder.mkdir()
    half = len(rows) // 2
    for i, part in enumerate((rows[:half], rows[half:])):
        with open(folder / f"part-0000{i}-x-c000.csv", "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(osmh3kg_table.COLUMNS))
            w.writeheader()
            w.writerows(part)
        (folder / f".part-0000{i}-x-c000.csv.crc").write_bytes(b"crc")
    (folder / "_SUCCESS").write_text("")


def entity_rows(con) -> list[dict]:
    return fetch_dicts(
        con,
        """
        SELECT * EXCLUDE (entity_id, iri, geometry, snapshot_id),
            ST_AsText(geometry) AS wkt
        FROM entities
        WHERE kg = 'osmh3kg'
        ORDER BY name, category
        """,
    )


def test_published_table_reads_as_our_build(con, built, tmp_path):
    ours = pq.read_table(built[0]).to_pylist()
    convert_kg(con, "osmh3kg", built[0], "ours")
    expected = entity_rows(con)
    assert {e["name"] for e in expected} >= {"Uni, B6", "XY", "B Street", "Park"}
    ids = {
        r["entity_id"]: r["iri"] for r in fetch_dicts(con, "SELECT entity_id, iri FROM entities")
    }
    assert ids["osmh3kg:node/1"] == "https://www.openstreetmap.org/node/1"

    bare = published(ours)
    table = pa.Table.from_pylist(bare, schema=pq.read_schema(built[0]))
    single = tmp_path / "published.parquet"
    pq.write_table(table, single)
    parts = tmp_path / "parts"
    parts.mkdir()
    pq.write_table(table.slice(0, 40), parts / "part-00000.parquet")
    pq.write_table(table.slice(40), parts / "part-00001.parquet")
    delta = tmp_path / "delta"
    deltalake.write_deltalake(str(delta), table.slice(0, 30))
    deltalake.write_deltalake(str(delta), table.slice(30), mode="append")
    csv_parts = tmp_path / "csv"
    write_csv_parts(bare, csv_parts)

    for source in (single, parts, delta, csv_parts):
        convert_kg(con, "osmh3kg", source, "published")
        assert entity_rows(con) == expected, source
        got = {
            r["entity_id"]: r["iri"]
            for r in fetch_dicts(con, "SELECT entity_id, iri FROM entities")
        }
        assert got["osmh3kg:1"] == "1" and "osmh3kg:10" in got and "osmh3kg:11" in got
        assert not any(h3.is_valid_cell(e.split(":", 1)[1]) for e in got)


def test_main_key_from_the_files_own_subclass_rows(con, tmp_path):
    """A value under two keys takes the first in MAIN_KEYS order (shop before craft), among the keys
    no other type of the entity needs as its only key (tram_stop needs railway: platform is not
    railway=platform, which would give the stop two railway values)."""
    rows = [
        ("7", "rdf:type", "bakery"),
        ("bakery", "rdfs:subClassOf", "craft"),
        ("bakery", "rdfs:subClassOf", "shop"),
        ("7", "name", "Forn"),
        ("7", "geo:hasGeometry", "geo7"),
        ("geo7", "geo:asWKT", "POINT (1.52 42.51)"),
        ("8", "rdf:type", "university"),
        ("university", "rdfs:subClassOf", "amenity"),
        ("8", "name", "Uni"),
        ("8", "geo:hasGeometry", "geo8"),
        ("geo8", "geo:asWKT", "POINT (1.53 42.52)"),
        ("9", "rdf:type", "platform"),
        ("9", "rdf:type", "tram_stop"),
        ("platform", "rdfs:subClassOf", "highway"),
        ("platform", "rdfs:subClassOf", "public_transport"),
        ("platform", "rdfs:subClassOf", "railway"),
        ("tram_stop", "rdfs:subClassOf", "railway"),
        ("9", "name", "Lasipalatsi"),
        ("9", "geo:hasGeometry", "geo9"),
        ("geo9", "geo:asWKT", "POINT (1.54 42.53)"),
    ]
    p = write_triples(tmp_path / "kg.parquet", rows, DATE)
    convert_kg(con, "osmh3kg", p, "s")
    got = {
        r["entity_id"]: r
        for r in fetch_dicts(con, "SELECT entity_id, category, attributes FROM entities")
    }
    assert set(got) == {"osmh3kg:7", "osmh3kg:8", "osmh3kg:9"}
    assert got["osmh3kg:7"]["category"] == "bakery"
    assert json.loads(got["osmh3kg:7"]["attributes"])["osm_shop"] == "bakery"
    assert got["osmh3kg:8"]["category"] == "university"
    assert got["osmh3kg:9"]["category"] == "tram_stop"
    assert json.loads(got["osmh3kg:9"]["attributes"])["osm_railway"] == "tram_stop"


def test_table_errors_and_fingerprint(con, tmp_path):
    with pytest.raises(ValueError, match="no such OSMH3KG table"):
        osmh3kg_table.table_files(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no .parquet or .csv part files"):
        osmh3kg_table.table_files(empty)
    folder = tmp_path / "t"
    write_csv_parts(
        [{"subject": "1", "predicate": "name", "object": "a", "date": DATE}] * 2, folder
    )
    sha, size = osmh3kg_table.fingerprint(folder)
    (folder / "_SUCCESS").write_text("changed")  # not a data file: same content
    assert osmh3kg_table.fingerprint(folder) == (sha, size)
    info = native.record(con, "osmh3kg", folder, None, BuildReport(), "run")
    assert info == {"snapshot_id": f"t-{sha[:12]}", "sha256": sha, "bytes": size}
    (folder / "part-00000-x-c000.csv").write_text("subject,predicate,object,date\n2,name,b,x\n")
    assert osmh3kg_table.fingerprint(folder)[0] != sha


def test_kg_native_registers_a_real_table_then_converts(built, tmp_path):
    """MGQA_OSMH3KG_TABLE: the Dagster assets register the table (no build) and convert it."""
    import dagster as dg

    from mgqa_dagster import definitions
    from mgqa_dagster.resources.paths import PathsResource
    from mgqa_dagster.resources.sources import InputsResource
    from mgqa_platform import warehouse

    table = tmp_path / "kg_data"
    write_csv_parts(published(pq.read_table(built[0]).to_pylist()), table)
    resources = definitions.build_resources(
        paths=PathsResource(home=str(tmp_path), warehouse=str(tmp_path / "wh.duckdb")),
        inputs=InputsResource(osmh3kg_table=str(table)),
    )
    selection = dg.AssetSelection.assets("kg_native") | dg.AssetSelection.groups("kg_conversion")
    result = dg.materialize(
        definitions.ALL_ASSETS, selection=selection, partition_key="osmh3kg", resources=resources
    )
    assert result.success
    meta = result.asset_materializations_for_node("kg_native")[0].metadata
    sha, _ = osmh3kg_table.fingerprint(table)
    # the table lies under MGQA_HOME here, so the metadata names it relative to the home
    assert meta["path"].value == "$MGQA_HOME/kg_data" and meta["sha256"].text == sha
    assert not (tmp_path / "kg").exists() or not any((tmp_path / "kg").rglob("*.parquet"))
    with warehouse.session(tmp_path / "wh.duckdb", read_only=True) as con:
        names = {
            r[0] for r in con.execute("SELECT name FROM entities WHERE kg = 'osmh3kg'").fetchall()
        }
        (method,) = con.execute(
            "SELECT DISTINCT method FROM coverage WHERE kg = 'osmh3kg'"
        ).fetchone()
    assert {"Uni, B6", "B Street", "Park"} <= names
    assert method == "entity_hull"
