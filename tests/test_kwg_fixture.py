"""The KnowWhereGraph-shaped fixture built from the bundled KnowWhereGraph query results."""

from __future__ import annotations

import hashlib
import shutil
from decimal import Decimal
from pathlib import Path

import pyoxigraph
import s2sphere
import shapely

from mgqa_platform.geometry import parse_wkt
from mgqa_platform.kg import vocab
from mgqa_platform.kg.kwg_fixture import (
    COUNTY_IRI,
    STATE_IRI,
    build_kwg_fixture,
    cell_polygon,
    iri_ref,
    point_cell,
    s2_relations,
)

KWG_DIR = Path("data/sample/kwg")
K, R, G = vocab.KWG_ONT, vocab.KWGR, vocab.GEO
S_IS_FOI = vocab.SOSA + "isFeatureOfInterestOf"

#: every kwg-ont: term the fixture may use: each one is in the real KnowWhereGraph
#: (docs/kg_fidelity.md (KnowWhereGraph) gives the source of each)
REAL_KWG_TERMS = {
    "AdministrativeRegion_1",
    "AdministrativeRegion_2",
    "hasFIPS",
    "administrativePartOf",
    "MTBSFire",
    "hasTemporalScope",
    "Hospital",
    "hospitalName",
    "helipadAvailability",
    "noHospitalBeds",
    "RoadSegment",
    "hasRoadSign",
    "S2Cell_Level13",
    "cellID",
    "sfWithin",
    "sfContains",
    "sfOverlaps",
    "sfCrosses",
}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rows(store: pyoxigraph.Store, query: str) -> list[dict[str, str]]:
    res = store.query(query)
    names = [v.value for v in res.variables]
    return [{n: sol[n].value for n in names if sol[n] is not None} for sol in res]


def _count_class(store: pyoxigraph.Store, cls: str) -> int:
    q = f"SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {{ ?s a <{cls}> }}"
    return int(next(iter(store.query(q)))["n"].value)


def _cell_id(iri: str) -> int:
    prefix = R + "s2.level13."
    assert iri.startswith(prefix), iri
    return int(iri[len(prefix) :])


def test_report_counts(kwg_fixture):
    _, report = kwg_fixture
    expected = {
        "MTBSFire": 49,
        "Hospital": 9,
        "School": 227,
        "Park": 143,
        "Airport": 17,
        "RoadSegment": 1003,
        "AdministrativeRegion_1": 1,
        "AdministrativeRegion_2": 1,
    }
    assert {k: report.counts.get(k) for k in expected} == expected
    assert report.skipped == []
    assert report.counts["S2Cell_Level13"] > 1000
    assert (
        report.counts["S2Cell_in_county"] + report.counts["S2Cell_on_county_boundary"]
        == (report.counts["S2Cell_Level13"])
    )


def test_parses_and_holds_the_same_entities(kwg_fixture):
    path, report = kwg_fixture
    store = pyoxigraph.Store()
    store.bulk_load(path=str(path), format=pyoxigraph.RdfFormat.TURTLE)
    n_triples = sum(1 for _ in pyoxigraph.parse(path=path, format=pyoxigraph.RdfFormat.TURTLE))
    assert n_triples == len(store) > 20_000
    classes = {
        "MTBSFire": K + "MTBSFire",
        "Hospital": K + "Hospital",
        "School": vocab.USGS_ONT + "School",
        "Park": vocab.USGS_ONT + "Park",
        "Airport": vocab.USGS_ONT + "Airport",
        "RoadSegment": K + "RoadSegment",
        "S2Cell_Level13": K + "S2Cell_Level13",
    }
    for key, cls in classes.items():
        assert _count_class(store, cls) == report.counts[key], key


def test_only_real_kwg_terms(kwg_store):
    """Nothing is invented in kwg-ont:; no USGS event is a KnowWhereGraph resource."""
    used = set()
    for row in _rows(kwg_store, "SELECT DISTINCT ?p WHERE { ?s ?p ?o }"):
        used.add(row["p"])
    for row in _rows(kwg_store, "SELECT DISTINCT ?c WHERE { ?s a ?c }"):
        used.add(row["c"])
    kwg_terms = {t[len(K) :] for t in used if t.startswith(K)}
    assert kwg_terms == REAL_KWG_TERMS
    kwgr_subjects = _rows(
        kwg_store,
        "SELECT ?s "
        f'WHERE {{ ?s a <{vocab.MGQA_ONT}Earthquake> FILTER(STRSTARTS(STR(?s), "{R}")) }}',
    )
    assert kwgr_subjects == []


def test_regions(kwg_store):
    rows = _rows(
        kwg_store,
        f"SELECT ?parent ?fips ?wkt WHERE {{ <{COUNTY_IRI}> a <{K}AdministrativeRegion_2> ; "
        f"<{K}administrativePartOf> ?parent ; <{K}hasFIPS> ?fips ; "
        f"<{G}hasGeometry> / <{G}asWKT> ?wkt }}",
    )
    assert len(rows) == 1
    assert rows[0]["parent"] == STATE_IRI
    assert rows[0]["fips"] == "06083"
    assert parse_wkt(rows[0]["wkt"]).geom_type == "MultiPolygon"
    state = _rows(
        kwg_store,
        "SELECT ?fips "
        f"WHERE {{ <{STATE_IRI}> a <{K}AdministrativeRegion_1> ; <{K}hasFIPS> ?fips }}",
    )
    assert state == [{"fips": "06"}]
    # The bundled data has no California polygon: the state has no geometry.
    assert not kwg_store.query(f"ASK {{ <{STATE_IRI}> <{G}hasGeometry> ?g }}")


def test_fire_shape(kwg_store):
    fire = R + "mtbsfire.CA3500411993619940908.SPANISH.1994"
    rows = _rows(
        kwg_store,
        f"SELECT ?label ?d ?county WHERE {{ <{fire}> a <{K}MTBSFire> ; "
        f"<{vocab.RDFS_LABEL}> ?label ; <{K}hasTemporalScope> ?t ; <{K}sfWithin> ?county . "
        f"?t a <{vocab.TIME}Instant> ; <{vocab.TIME}inXSDDate> ?d }}",
    )
    assert rows == [{"label": "SPANISH", "d": "1994-09-08", "county": COUNTY_IRI}]


def test_hospital_shape(kwg_store):
    h = R + "hospital.MARIANMEDICALCENTER"
    rows = _rows(
        kwg_store,
        f"SELECT ?name ?heli ?beds ?wkt WHERE {{ <{h}> a <{K}Hospital> ; <{K}hospitalName> ?name ; "
        f"<{K}helipadAvailability> ?heli ; <{K}noHospitalBeds> ?beds ; "
        f"<{vocab.GEO_HAS_DEFAULT_GEOMETRY}> / <{G}asWKT> ?wkt }}",
    )
    assert len(rows) == 1
    assert rows[0]["name"] == "MARIAN MEDICAL CENTER"
    assert rows[0]["heli"] == R + "yes"
    assert Decimal(rows[0]["beds"]) == Decimal("321.0")
    assert shapely.from_wkt(rows[0]["wkt"]).equals(shapely.Point(-120.41313, 34.95120))
    assert not kwg_store.query(f"ASK {{ <{h}> <{vocab.RDFS_LABEL}> ?l }}")


def test_gnis_and_road_shapes(kwg_store):
    school = "http://gnis-ld.org/lod/gnis/feature/2518383"
    rows = _rows(
        kwg_store,
        f"SELECT ?label ?wkt WHERE {{ <{school}> a <{vocab.USGS_ONT}School> ; "
        f"<{vocab.RDFS_LABEL}> ?label ; <{G}hasGeometry> / <{G}asWKT> ?wkt }}",
    )
    assert rows == [
        {
            "label": "Taylor Elementary School",
            "wkt": f"<{vocab.CRS84}>POINT(-120.4228847 34.97441)",
        }
    ]
    # Road segments are numbered per sign in file order and carry the sign, not a label.
    road = vocab.MGQA_KWG + "roadSegment.S1.190"
    rows = _rows(
        kwg_store, f"SELECT ?sign WHERE {{ <{road}> a <{K}RoadSegment> ; <{K}hasRoadSign> ?sign }}"
    )
    assert rows == [{"sign": "S1"}]
    assert not kwg_store.query(f"ASK {{ <{road}> <{vocab.RDFS_LABEL}> ?l }}")
    assert not kwg_store.query(f"ASK {{ <{vocab.MGQA_KWG}roadSegment.S1.191> ?p ?o }}")


def test_point_cells_match_the_cells_own_bounds(kwg_store):
    """Each point feature is sfWithin one level-13 cell whose own lat/lng bounds hold the point,
    the cell sfContains it back, and the county links the cell."""
    rows = _rows(
        kwg_store,
        f"SELECT ?f ?cell ?wkt WHERE {{ ?f <{K}sfWithin> ?cell ; "
        f"(<{G}hasGeometry>|<{vocab.GEO_HAS_DEFAULT_GEOMETRY}>) / <{G}asWKT> ?wkt . "
        f"?cell a <{K}S2Cell_Level13> }}",
    )
    assert len(rows) == 9 + 227 + 143 + 17
    for row in rows:
        pt = parse_wkt(row["wkt"])
        cid = s2sphere.CellId(_cell_id(row["cell"]))
        assert cid.level() == 13
        bound = s2sphere.Cell(cid).get_rect_bound()
        assert bound.lat_lo().degrees <= pt.y <= bound.lat_hi().degrees, row
        assert bound.lng_lo().degrees <= pt.x <= bound.lng_hi().degrees, row
        assert kwg_store.query(f"ASK {{ <{row['cell']}> <{K}sfContains> <{row['f']}> }}")
        assert kwg_store.query(
            f"ASK {{ <{COUNTY_IRI}> (<{K}sfContains>|<{K}sfOverlaps>) <{row['cell']}> }}"
        )


def test_point_cell_against_known_bounds():
    """The cell of a point, from the library, holds the point in its own bounds and polygon."""
    lon, lat = -119.72274, 34.43297
    cid = point_cell(lon, lat)
    bound = s2sphere.Cell(s2sphere.CellId(cid)).get_rect_bound()
    assert bound.lat_lo().degrees < lat < bound.lat_hi().degrees
    assert bound.lng_lo().degrees < lon < bound.lng_hi().degrees
    assert cell_polygon(cid).contains(shapely.Point(lon, lat))
    assert s2_relations(shapely.Point(lon, lat)) == [("sfWithin", cid)]


def test_fire_cells_cover_the_fire(kwg_store):
    """A fire sfContains the cells inside it and sfOverlaps the cells on its boundary; together
    they cover it."""
    fire = R + "mtbsfire.CA3500411993619940908.SPANISH.1994"
    (row,) = _rows(
        kwg_store, f"SELECT ?wkt WHERE {{ <{fire}> <{G}hasGeometry> / <{G}asWKT> ?wkt }}"
    )
    geom = parse_wkt(row["wkt"])
    links = _rows(
        kwg_store,
        f"SELECT ?p ?cell WHERE {{ <{fire}> ?p ?cell . ?cell a <{K}S2Cell_Level13> }}",
    )
    inside = [_cell_id(r["cell"]) for r in links if r["p"] == K + "sfContains"]
    edge = [_cell_id(r["cell"]) for r in links if r["p"] == K + "sfOverlaps"]
    assert edge and len(inside) + len(edge) == len(links)
    for c in inside:
        assert geom.contains(cell_polygon(c))
        assert kwg_store.query(f"ASK {{ <{R}s2.level13.{c}> <{K}sfWithin> <{fire}> }}")
    for c in edge:
        assert geom.boundary.intersects(cell_polygon(c))
        assert kwg_store.query(f"ASK {{ <{R}s2.level13.{c}> <{K}sfOverlaps> <{fire}> }}")
    cover = shapely.union_all([cell_polygon(c) for c in inside + edge])
    assert cover.buffer(1e-9).contains(geom)


def test_road_cells_cover_the_segment(kwg_store):
    road = vocab.MGQA_KWG + "roadSegment.U101.2"
    (row,) = _rows(
        kwg_store, f"SELECT ?wkt WHERE {{ <{road}> <{G}hasGeometry> / <{G}asWKT> ?wkt }}"
    )
    line = parse_wkt(row["wkt"])
    cells = [
        _cell_id(r["cell"])
        for r in _rows(kwg_store, f"SELECT ?cell WHERE {{ <{road}> <{K}sfCrosses> ?cell }}")
    ]
    assert cells
    assert shapely.union_all([cell_polygon(c) for c in cells]).buffer(1e-9).contains(line)
    assert kwg_store.query(f"ASK {{ <{road}> <{K}sfWithin> <{COUNTY_IRI}> }}")


def test_deterministic(kwg_fixture, tmp_path):
    again = tmp_path / "again.ttl"
    build_kwg_fixture(KWG_DIR, again)
    assert _sha256(again) == _sha256(kwg_fixture[0])


def _small_kwg_dir(tmp: Path) -> Path:
    """The county shapefile with one-row-or-two CSVs, some rows broken."""
    d = tmp / "kwg"
    d.mkdir()
    for f in KWG_DIR.glob("SB_County.*"):
        shutil.copy(f, d / f.name)
    (d / "fires.csv").write_text(
        "fire,temporal_scope,name,geom,wkt,year\n"
        f"{R}mtbsfire.A,{R}time.2001-13-40,A,{R}geometry.polygon.A,"
        '"POLYGON ((-119.8 34.5, -119.79 34.5, -119.79 34.51, -119.8 34.5))",2001\n'
        f"{R}mtbsfire.B,{R}time.2001-07-04,B,{R}geometry.polygon.B,"
        '"POLYGON ((-119.8 34.5, -119.79 34.5, -119.79 34.51, -119.8 34.5))",2001\n',
        encoding="utf-8",
    )
    (d / "hospitals.csv").write_text(
        "hospital,has_helipad,name,bed_count,wkt\n"
        f"{R}hospital.X,{R}maybe,X,1.0,POINT (-119.7 34.4)\n"
        f"{R}hospital.Y,{R}no,Y HOSPITAL,,POINT (-119.7 34.4)\n",
        encoding="utf-8",
    )
    gnis = "http://gnis-ld.org/lod/gnis/feature/"
    (d / "schools.csv").write_text(
        "school,name,geom,wkt\n"
        f"{gnis}1,Bad School,{vocab.GNIS_GEOM}gnisf.1,POINT(oops)\n"
        f"{gnis}2,Good School,{vocab.GNIS_GEOM}gnisf.2,<{vocab.CRS84}>POINT(-119.7 34.42)\n",
        encoding="utf-8",
    )
    for name, col in (("parks.csv", "park"), ("airports.csv", "airport")):
        (d / name).write_text(f"{col},name,geom,wkt\n", encoding="utf-8")
    (d / "roads.csv").write_text(
        'sign,wkt\n,"LINESTRING (-119.7 34.4, -119.69 34.4)"\n'
        'U101,"LINESTRING (-119.7 34.4, -119.69 34.4)"\n',
        encoding="utf-8",
    )
    return d


def test_bad_rows_are_reported_not_fatal(tmp_path):
    out = tmp_path / "fixture.ttl"
    report = build_kwg_fixture(_small_kwg_dir(tmp_path), out)
    reasons = {s["source"]: s["reason"] for s in report.skipped}
    assert reasons == {
        "fires.csv:2": "invalid_temporal_scope",
        "hospitals.csv:2": "invalid_helipad",
        "schools.csv:2": "invalid_wkt",
        "roads.csv:2": "missing_sign",
    }
    assert report.counts["hospital_bed_count_missing"] == 1
    text = out.read_text(encoding="utf-8")
    assert f"{iri_ref(R + 'hospital.Y')} a kwg-ont:Hospital" in text
    assert "kwg-ont:noHospitalBeds" not in text
    store = pyoxigraph.Store()
    store.bulk_load(path=str(out), format=pyoxigraph.RdfFormat.TURTLE)
    assert _count_class(store, K + "MTBSFire") == 1
    assert _count_class(store, vocab.USGS_ONT + "School") == 1
    assert _count_class(store, K + "RoadSegment") == 1
    # The small fire lies in one or a few cells: it overlaps them, contains none.
    assert store.query(f"ASK {{ <{R}mtbsfire.B> <{K}sfOverlaps> ?c . ?c a <{K}S2Cell_Level13> }}")
    assert not store.query(f"ASK {{ <{R}mtbsfire.B> <{K}sfContains> ?c }}")


def test_iri_ref_escapes_forbidden_characters():
    assert iri_ref("http://x.org/a b<c>") == "<http://x.org/a%20b%3Cc%3E>"
    assert iri_ref("http://x.org/Cañada%20X") == "<http://x.org/Cañada%20X>"


def _triples_from(store: pyoxigraph.Store, subject: str, hops: int = 3) -> list[list[str]]:
    """The triples of ``subject`` and of the IRIs it reaches within ``hops`` (no S2 cells)."""
    out, todo, seen = [], [subject], set()
    for _ in range(hops):
        nxt = []
        for s in todo:
            if s in seen or s.startswith(vocab.KWG_S2_CELL):
                continue
            seen.add(s)
            for q in store.quads_for_pattern(pyoxigraph.NamedNode(s), None, None):
                out.append([s, q.predicate.value, q.object.value])
                if isinstance(q.object, pyoxigraph.NamedNode):
                    nxt.append(q.object.value)
        todo = nxt
    return out


def test_solver_facts_read_the_real_shapes(kwg_store):
    """The reference solver's reading of gold triples: a hospital's name and default geometry,
    a USGS event's time and magnitude, a KnowWhereGraph magnitude property."""
    from mgqa_platform.evaluation.facts import Facts
    from mgqa_platform.evaluation.solver.distance import in_category

    hosp = R + "hospital.MARIANMEDICALCENTER"
    (event,) = [
        r["e"]
        for r in _rows(
            kwg_store,
            f"SELECT ?e WHERE {{ ?e a <{vocab.MGQA_ONT}Earthquake> ; <{vocab.RDFS_LABEL}> ?l "
            f'FILTER(STRSTARTS(?l, "M 4.9 - 26km N of Tarakan")) }}',
        )
    ]
    road = vocab.MGQA_KWG + "roadSegment.U101.2"
    triples = _triples_from(kwg_store, hosp) + _triples_from(kwg_store, event)
    triples += _triples_from(kwg_store, road) + [[road, vocab.RDFS_LABEL, "a segment label"]]
    triples.append([R + "Earthquake.x", S_IS_FOI, R + "c.x"])
    triples += [
        [R + "c.x", vocab.SOSA + "hasMember", R + "o.x"],
        [R + "o.x", vocab.SOSA + "observedProperty", R + "EarthquakeObservableProperty.mag"],
        [R + "o.x", vocab.SOSA + "hasSimpleResult", "3.3"],
    ]
    facts = Facts(
        triples,
        {"kwg:h": hosp, "kwg:e": event, "kwg:x": R + "Earthquake.x", "kwg:r": road},
        {"entity_A": "kwg:h", "entity_B": "kwg:e"},
    )
    h = facts.bound("entity_A")
    assert h.name == "MARIAN MEDICAL CENTER"
    assert h.lonlat == (-120.41313, 34.9512)
    e = facts.bound("entity_B")
    assert e.dates == ["2015-12-22"] and e.number("magnitude") == 4.9
    assert facts.entities["kwg:x"].number("magnitude") == 3.3
    assert facts.entities["kwg:r"].name == "U101"  # the sign before a label, as the converter
    # the solver's category test reads the class table's CURIEs by local name
    assert in_category(h, "hospital") and in_category(e, "earthquake")
    assert not in_category(e, "hospital")


def test_gold_citation_classes():
    """Labels and default geometries of KnowWhereGraph hospitals are cited; links to S2 cells
    are not cited as topology."""
    import duckdb

    from mgqa_platform.questions.execution import PREDICATE_CLASSES

    cell = R + "s2.level13.9288978710273196032"
    rows = [
        (K + "hospitalName", "X"),
        (vocab.GEO_HAS_DEFAULT_GEOMETRY, R + "g"),
        (K + "sfWithin", cell),
        (K + "sfWithin", COUNTY_IRI),
        (K + "sfContains", cell),
        (vocab.TIME_HAS_TIME, R + "t"),
    ]
    con = duckdb.connect()
    con.execute("CREATE TABLE t (p VARCHAR, o VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", rows)

    def cited(cls: str) -> set[tuple[str, str]]:
        sql = f"SELECT p, o FROM t WHERE {PREDICATE_CLASSES[cls]}"
        return set(con.execute(sql).fetchall())

    assert cited("label") == {(K + "hospitalName", "X")}
    assert cited("geometry") == {(vocab.GEO_HAS_DEFAULT_GEOMETRY, R + "g")}
    assert cited("topology") == {(K + "sfWithin", COUNTY_IRI)}
    assert cited("time") == {(vocab.TIME_HAS_TIME, R + "t")}
