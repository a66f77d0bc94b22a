"""KWG crawl file built from the bundled KnowWhereGraph sample and the USGS earthquake export."""

from __future__ import annotations

import csv
import hashlib
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pyoxigraph
import shapely

from mgqa_platform.geometry import parse_wkt
from mgqa_platform.kg import vocab
from mgqa_platform.kg.kwg_crawl import COUNTY_IRI, build_kwg_crawl, iri_ref

KWG_DIR = Path("data/sample/kwg")
QUAKES = Path("data/sample/usgs/earthquakes_2015-12.csv")
QUAKE_HEADER = (
    "time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type\n"
)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _quake_rows() -> list[dict[str, str]]:
    with open(QUAKES, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _count_class(store: pyoxigraph.Store, cls: str) -> int:
    q = f"SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE {{ ?s a <{vocab.KWG_ONT}{cls}> }}"
    return int(next(iter(store.query(q)))["n"].value)


def test_report_counts(kwg_crawl):
    _, report = kwg_crawl
    n_quakes = sum(1 for r in _quake_rows() if r["type"] == "earthquake")
    n_other = sum(1 for r in _quake_rows() if r["type"] != "earthquake")
    expected = {
        "MTBSFire": 49,
        "Hospital": 9,
        "School": 227,
        "Park": 143,
        "Airport": 17,
        "Road": 1003,
        "Earthquake": n_quakes,
        "AdministrativeRegion_1": 1,
        "AdministrativeRegion_2": 1,
    }
    assert {k: report.counts.get(k) for k in expected} == expected
    assert report.counts["skipped_not_an_earthquake"] == n_other
    assert len(report.skipped) == n_other
    assert {s["reason"] for s in report.skipped} == {"not_an_earthquake"}


def test_parses_and_holds_the_same_entities(kwg_crawl, kwg_store):
    path, report = kwg_crawl
    n_triples = sum(1 for _ in pyoxigraph.parse(path=path, format=pyoxigraph.RdfFormat.TURTLE))
    assert n_triples == len(kwg_store) > 100_000
    for cls in ("MTBSFire", "Hospital", "School", "Park", "Airport", "Road", "Earthquake"):
        assert _count_class(kwg_store, cls) == report.counts[cls], cls


def test_shapes(kwg_store):
    county = f"<{COUNTY_IRI}>"
    # The county has a polygon and is part of California; California has no geometry (real KWG shape).
    rows = list(
        kwg_store.query(
            f"SELECT ?parent ?wkt WHERE {{ {county} <{vocab.KWG_ONT}administrativePartOf> ?parent ; "
            f"<{vocab.GEO_HAS_GEOMETRY}> / <{vocab.GEO_AS_WKT}> ?wkt }}"
        )
    )
    assert len(rows) == 1
    assert rows[0]["parent"].value == vocab.KWGR + "administrativeRegion.USA.06"
    assert parse_wkt(rows[0]["wkt"].value).geom_type == "MultiPolygon"
    assert not bool(
        kwg_store.query(
            f"ASK {{ <{vocab.KWGR}administrativeRegion.USA.06> <{vocab.GEO_HAS_GEOMETRY}> ?g }}"
        )
    )
    # Fire time scope, hospital bed count through SOSA, GNIS WKT keeps its CRS84 prefix.
    fire = "http://stko-kwg.geog.ucsb.edu/lod/resource/mtbsfire.CA3500411993619940908.SPANISH.1994"
    day = next(
        iter(
            kwg_store.query(
                f"SELECT ?d WHERE {{ <{fire}> <{vocab.KWG_ONT}hasTemporalScope> / <{vocab.TIME}inXSDDate> ?d }}"
            )
        )
    )["d"]
    assert (day.value, day.datatype.value) == ("1994-09-08", vocab.XSD + "date")
    beds = list(
        kwg_store.query(
            f"SELECT ?v WHERE {{ <{vocab.KWGR}hospital.MARIANMEDICALCENTER> <{vocab.SOSA}isFeatureOfInterestOf> / <{vocab.SOSA}hasMember> ?o . "
            f"?o <{vocab.SOSA}observedProperty> <{vocab.KWG_ONT}bedCount> ; <{vocab.SOSA}hasSimpleResult> ?v }}"
        )
    )
    # The file says "321.0"; the store canonicalizes xsd:decimal, so compare values.
    assert [Decimal(b["v"].value) for b in beds] == [Decimal("321.0")]
    assert beds[0]["v"].datatype.value == vocab.XSD + "decimal"
    wkt = next(
        iter(
            kwg_store.query(
                f"SELECT ?w WHERE {{ <http://gnis-ld.org/geometry/point/gnisf.2518383> <{vocab.GEO_AS_WKT}> ?w }}"
            )
        )
    )["w"]
    assert wkt.value == f"<{vocab.CRS84}>POINT(-120.4228847 34.97441)"
    assert wkt.datatype.value == vocab.GEO_WKT_LITERAL
    # Road segments are numbered per sign in file order.
    label = next(
        iter(
            kwg_store.query(
                f"SELECT ?l WHERE {{ <{vocab.KWGR}road.S1.190> <{vocab.RDFS_LABEL}> ?l }}"
            )
        )
    )["l"]
    assert label.value == "S1"
    assert not bool(kwg_store.query(f"ASK {{ <{vocab.KWGR}road.S1.191> ?p ?o }}"))


def test_earthquake_point_is_lon_lat(kwg_store):
    row = next(r for r in _quake_rows() if r["type"] == "earthquake")
    assert abs(float(row["latitude"])) != abs(float(row["longitude"]))
    q = (
        f"SELECT ?wkt ?t ?label WHERE {{ <{vocab.KWGR}earthquake.{row['id']}> <{vocab.GEO_HAS_GEOMETRY}> / <{vocab.GEO_AS_WKT}> ?wkt ; "
        f"<{vocab.KWG_ONT}hasTemporalScope> / <{vocab.TIME}inXSDDateTime> ?t ; <{vocab.RDFS_LABEL}> ?label }}"
    )
    (sol,) = list(kwg_store.query(q))
    point = shapely.from_wkt(sol["wkt"].value)
    assert (point.x, point.y) == (float(row["longitude"]), float(row["latitude"]))
    # The store keeps the value, not the lexical form ("...11.000Z" comes back as "...11Z").
    assert datetime.fromisoformat(sol["t"].value) == datetime.fromisoformat(row["time"])
    assert sol["label"].value == f"M {row['mag']} - {row['place']}"


def test_sfwithin_only_inside_county(kwg_store):
    within = {
        s["s"].value
        for s in kwg_store.query(
            f"SELECT ?s WHERE {{ ?s <{vocab.KWG_ONT}sfWithin> <{COUNTY_IRI}> ; a <{vocab.KWG_ONT}Earthquake> }}"
        )
    }
    # Santa Barbara County is roughly 33.4..35.2 N, 118.9..120.8 W; earthquakes are worldwide.
    assert 0 < len(within) < 50
    for r in _quake_rows():
        iri = f"{vocab.KWGR}earthquake.{r['id']}"
        if iri in within:
            assert (
                33.4 <= float(r["latitude"]) <= 35.2 and -120.8 <= float(r["longitude"]) <= -118.9
            )


def test_deterministic(kwg_crawl, tmp_path):
    again = tmp_path / "again.ttl"
    build_kwg_crawl(KWG_DIR, QUAKES, again)
    assert _sha256(again) == _sha256(kwg_crawl[0])


def test_bad_earthquake_rows_are_reported_not_fatal(tmp_path):
    quakes = tmp_path / "quakes.csv"
    quakes.write_text(
        QUAKE_HEADER
        + '2015-12-22T18:45:11.000Z,,-152.7191,100,3,ml,,,,0.54,ak,bad1,2015-12-22T19:09:29.736Z,"no latitude",earthquake\n'
        + '2015-12-22T18:45:11.000Z,34.4,-119.7,5,,ml,,,,0.54,ci,bad2,2015-12-22T19:09:29.736Z,"no magnitude",earthquake\n'
        + 'yesterday,34.4,-119.7,5,2.1,ml,,,,0.54,ci,bad3,2015-12-22T19:09:29.736Z,"bad time",earthquake\n'
        + '2015-12-22T18:45:11.000Z,134.4,-119.7,5,2.1,ml,,,,0.54,ci,bad4,2015-12-22T19:09:29.736Z,"bad latitude",earthquake\n'
        + '2015-12-21T21:34:48.470Z,33.2,-117.2,-0.62,1.07,ml,,,,0.2,ci,blast,2015-12-22T00:00:00.000Z,"a quarry",quarry blast\n'
        + '2015-12-20T10:00:00.000Z,34.45,-119.75,7.5,2.5,ml,,,,0.2,ci,good1,2015-12-22T00:00:00.000Z,"near Santa Barbara",earthquake\n',
        encoding="utf-8",
    )
    out = tmp_path / "crawl.ttl"
    report = build_kwg_crawl(KWG_DIR, quakes, out)
    assert report.counts["Earthquake"] == 1
    by_id = {s["payload"].split(",")[0]: s for s in report.skipped}
    assert by_id["bad1"]["reason"] == "missing_coordinates"
    assert by_id["bad1"]["source"] == "quakes.csv:2"
    assert by_id["bad2"]["reason"] == "missing_magnitude"
    assert by_id["bad3"]["reason"] == "invalid_time"
    assert by_id["bad4"]["reason"] == "invalid_coordinates"
    assert by_id["blast"]["reason"] == "not_an_earthquake"
    text = out.read_text(encoding="utf-8")
    assert "earthquake.bad" not in text
    good = iri_ref(f"{vocab.KWGR}earthquake.good1")
    assert f"{good} a kwg-ont:Earthquake" in text
    assert '"POINT(-119.75 34.45)"^^geo:wktLiteral' in text
    assert sum(1 for _ in pyoxigraph.parse(path=out, format=pyoxigraph.RdfFormat.TURTLE)) > 0


def test_iri_ref_escapes_forbidden_characters():
    assert iri_ref("http://x.org/a b<c>") == "<http://x.org/a%20b%3Cc%3E>"
    assert iri_ref("http://x.org/Cañada%20X") == "<http://x.org/Cañada%20X>"
