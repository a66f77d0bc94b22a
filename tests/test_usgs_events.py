"""The USGS ComCat catalog as its own event source: USGS IRIs, our vocabulary, declared
properties."""

from __future__ import annotations

import csv
import hashlib
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pyoxigraph
import shapely

from mgqa_platform.kg import vocab
from mgqa_platform.kg.kwg_fixture import iri_ref
from mgqa_platform.kg.usgs_events import build_usgs_events, event_iri

QUAKES = Path("data/sample/usgs/earthquakes_2015-12.csv")
QUAKE_HEADER = (
    "time,latitude,longitude,depth,mag,magType,nst,gap,dmin,rms,net,id,updated,place,type\n"
)
S, T, G, M = vocab.SOSA, vocab.TIME, vocab.GEO, vocab.MGQA_ONT


def _quake_rows() -> list[dict[str, str]]:
    with open(QUAKES, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _store(path: Path) -> pyoxigraph.Store:
    store = pyoxigraph.Store()
    store.bulk_load(path=str(path), format=pyoxigraph.RdfFormat.TURTLE)
    return store


def _values(store: pyoxigraph.Store, query: str) -> list[dict[str, str]]:
    res = store.query(query)
    names = [v.value for v in res.variables]
    return [{n: sol[n].value for n in names} for sol in res]


def test_report_counts(usgs_events):
    _, report = usgs_events
    rows = _quake_rows()
    n_quakes = sum(1 for r in rows if r["type"] == "earthquake")
    assert report.counts["Earthquake"] == n_quakes
    assert report.counts["Observation"] == 2 * n_quakes  # magnitude and depth of each
    assert report.counts["ObservableProperty"] == 2
    assert report.counts["skipped_not_an_earthquake"] == len(rows) - n_quakes
    assert {s["reason"] for s in report.skipped} == {"not_an_earthquake"}


def test_iris_name_usgs_and_nothing_is_kwg(usgs_events):
    path, report = usgs_events
    store = _store(path)
    events = [r["e"] for r in _values(store, f"SELECT ?e WHERE {{ ?e a <{M}Earthquake> }}")]
    assert len(events) == report.counts["Earthquake"]
    assert all(e.startswith(vocab.USGS_EVENT) for e in events)
    kwg = (vocab.KWGR, vocab.KWG_ONT)
    for quad in store:
        for term in (quad.subject, quad.predicate, quad.object):
            if isinstance(term, pyoxigraph.NamedNode):
                assert not term.value.startswith(kwg), quad


def test_observable_properties_are_declared(usgs_events):
    store = _store(usgs_events[0])
    used = {
        r["p"]
        for r in _values(store, f"SELECT DISTINCT ?p WHERE {{ ?o <{S}observedProperty> ?p }}")
    }
    declared = {
        r["p"] for r in _values(store, f"SELECT ?p WHERE {{ ?p a <{S}ObservableProperty> }}")
    }
    assert used == declared == {M + "magnitude", M + "depthKm"}


def test_one_event_in_full(usgs_events):
    store = _store(usgs_events[0])
    row = next(r for r in _quake_rows() if r["type"] == "earthquake")
    assert abs(float(row["latitude"])) != abs(float(row["longitude"]))
    e = event_iri(row["id"])
    (sol,) = _values(
        store,
        f"SELECT ?wkt ?t ?label ?pt WHERE {{ <{e}> <{G}hasGeometry> / <{G}asWKT> ?wkt ; "
        f"<{T}hasTime> / <{T}inXSDDateTime> ?t ; <{vocab.RDFS_LABEL}> ?label ; "
        f"<{S}isFeatureOfInterestOf> ?c . ?c <{S}phenomenonTime> / <{T}inXSDDateTime> ?pt ; "
        f"<{S}hasFeatureOfInterest> <{e}> }}",
    )
    point = shapely.from_wkt(sol["wkt"])  # lon lat
    assert (point.x, point.y) == (float(row["longitude"]), float(row["latitude"]))
    # The store keeps the value, not the lexical form ("...11.000Z" comes back as "...11Z").
    assert datetime.fromisoformat(sol["t"]) == datetime.fromisoformat(row["time"])
    assert sol["pt"] == sol["t"]
    assert sol["label"] == f"M {row['mag']} - {row['place']}"
    obs = {
        r["p"]: Decimal(r["v"])
        for r in _values(
            store,
            f"SELECT ?p ?v WHERE {{ <{e}> <{S}isFeatureOfInterestOf> / <{S}hasMember> ?o . "
            f"?o <{S}observedProperty> ?p ; <{S}hasSimpleResult> ?v }}",
        )
    }
    assert obs == {M + "magnitude": Decimal(row["mag"]), M + "depthKm": Decimal(row["depth"])}


def test_deterministic(usgs_events, tmp_path):
    again = tmp_path / "again.ttl"
    build_usgs_events(QUAKES, again)
    sha = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (again, usgs_events[0])]
    assert sha[0] == sha[1]


def test_bad_rows_are_reported_not_fatal(tmp_path):
    quakes = tmp_path / "quakes.csv"
    quakes.write_text(
        QUAKE_HEADER + "2015-12-22T18:45:11.000Z,,-152.7191,100,3,ml,,,,0.54,ak,bad1,"
        '2015-12-22T19:09:29.736Z,"no latitude",earthquake\n'
        + "2015-12-22T18:45:11.000Z,34.4,-119.7,5,,ml,,,,0.54,ci,bad2,"
        '2015-12-22T19:09:29.736Z,"no magnitude",earthquake\n'
        + "yesterday,34.4,-119.7,5,2.1,ml,,,,0.54,ci,bad3,"
        '2015-12-22T19:09:29.736Z,"bad time",earthquake\n'
        + "2015-12-22T18:45:11.000Z,134.4,-119.7,5,2.1,ml,,,,0.54,ci,bad4,"
        '2015-12-22T19:09:29.736Z,"bad latitude",earthquake\n'
        + "2015-12-21T21:34:48.470Z,33.2,-117.2,-0.62,1.07,ml,,,,0.2,ci,blast,"
        '2015-12-22T00:00:00.000Z,"a quarry",quarry blast\n'
        + "2015-12-20T10:00:00.000Z,34.45,-119.75,,2.5,ml,,,,0.2,ci,good1,"
        '2015-12-22T00:00:00.000Z,"near Santa Barbara",earthquake\n'
        + "2015-12-20T10:00:00.000Z,34.45,-119.75,7.5,2.5,ml,,,,0.2,ci,good1,"
        '2015-12-22T00:00:00.000Z,"again",earthquake\n',
        encoding="utf-8",
    )
    out = tmp_path / "events.ttl"
    report = build_usgs_events(quakes, out)
    assert report.counts["Earthquake"] == 1
    assert report.counts["earthquake_depth_missing"] == 1
    by_source = {s["source"]: s for s in report.skipped}
    assert {k: s["reason"] for k, s in by_source.items()} == {
        "quakes.csv:2": "missing_coordinates",
        "quakes.csv:3": "missing_magnitude",
        "quakes.csv:4": "invalid_time",
        "quakes.csv:5": "invalid_coordinates",
        "quakes.csv:6": "not_an_earthquake",
        "quakes.csv:8": "duplicate_entity",
    }
    assert by_source["quakes.csv:2"]["payload"].split(",")[0] == "bad1"
    text = out.read_text(encoding="utf-8")
    assert "bad1" not in text and "eventpage/bad" not in text
    assert f"{iri_ref(event_iri('good1'))} a mgqa:Earthquake" in text
    assert '"POINT(-119.75 34.45)"^^geo:wktLiteral' in text
    store = _store(out)
    assert not store.query(f"ASK {{ ?o <{S}observedProperty> <{M}depthKm> }}")
