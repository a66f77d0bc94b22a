"""Bundled KnowWhereGraph query results + USGS earthquakes -> a KWG-shaped crawl file (Turtle).

The crawl file stands in for what :class:`mgqa_platform.kg.sparql.SparqlCrawler` would fetch from a
live KnowWhereGraph endpoint for Santa Barbara County (FIPS 06083). Inputs (see
``data/sample/kwg/SOURCE.txt`` and ``data/sample/usgs/SOURCE.txt``):

* ``fires.csv``, ``hospitals.csv``, ``schools.csv``, ``parks.csv``, ``airports.csv``, ``roads.csv``:
  KnowWhereGraph query results with KWG / GNIS-LD IRIs and WKT geometries;
* ``SB_County.shp``: the county polygon, EPSG:4269 (NAD83 geographic). NAD83 and WGS84 differ by
  about a metre here, so its longitude/latitude degrees are used as CRS84 without transformation;
* ``earthquakes_2015-12.csv``: a USGS ComCat CSV export (worldwide, one row per event).

All coordinates in the output are longitude/latitude degrees (OGC CRS84), written longitude first,
as WKT requires. WKT literals without a CRS IRI are CRS84 by GeoSPARQL's default; the GNIS rows keep
their explicit ``<http://www.opengis.net/def/crs/OGC/1.3/CRS84>`` prefix exactly as given.

Shapes written (instance resources as full IRIs ``<...>``; vocabulary terms as prefixed names from
:data:`mgqa_platform.kg.vocab.KWG_PREFIXES`)::

    <fire> a kwg-ont:MTBSFire ; rdfs:label "<NAME> (<year>)" ;
        geo:hasGeometry <geometry> ; kwg-ont:hasTemporalScope <time.YYYY-MM-DD> ;
        kwg-ont:sfWithin <administrativeRegion.USA.06083> .      # only if it intersects the county
    <geometry> a geo:Geometry ; geo:asWKT "<WKT>"^^geo:wktLiteral .
    <time.YYYY-MM-DD> a time:Instant ; time:inXSDDate "YYYY-MM-DD"^^xsd:date .

    <hospital.NAME> a kwg-ont:Hospital ; rdfs:label "<name>" ; kwg-ont:hasHelipad <yes|no> ;
        geo:hasGeometry <geometry.point.hospital.NAME> ;
        sosa:isFeatureOfInterestOf <observationCollection.hospital.NAME> .
    <observationCollection.hospital.NAME> a sosa:ObservationCollection ;
        sosa:hasMember <observation.hospital.NAME.bedCount> .
    <observation.hospital.NAME.bedCount> a sosa:Observation ;
        sosa:observedProperty kwg-ont:bedCount ; sosa:hasSimpleResult "38.0"^^xsd:decimal .

    <gnis feature> a kwg-ont:School | kwg-ont:Park | kwg-ont:Airport ; rdfs:label "<name>" ;
        geo:hasGeometry <gnis geometry> .

    <road.U101.1> a kwg-ont:Road ; rdfs:label "U101" ; geo:hasGeometry <geometry.line.road.U101.1> .

    <earthquake.ID> a kwg-ont:Earthquake ; rdfs:label "M <mag> - <place>" ;
        geo:hasGeometry <geometry.point.earthquake.ID> ; kwg-ont:hasTemporalScope <time.instant.ID> ;
        sosa:isFeatureOfInterestOf <observationCollection.earthquake.ID> .
    <time.instant.ID> a time:Instant ; time:inXSDDateTime "<ISO time>"^^xsd:dateTime .
    (observations <observation.earthquake.ID.magnitude> / <...ID.depth> with observed properties
     kwg-ont:magnitude / kwg-ont:depthKm, simple results as xsd:decimal; depth in km, positive down)

    <administrativeRegion.USA.06083> a kwg-ont:AdministrativeRegion_2 ;
        rdfs:label "Santa Barbara County" ; kwg-ont:administrativePartOf <administrativeRegion.USA.06> ;
        geo:hasGeometry <geometry.polygon.administrativeRegion.USA.06083> .
    <administrativeRegion.USA.06> a kwg-ont:AdministrativeRegion_1 ; rdfs:label "California" .

Every hospital, school, park, airport, road segment and earthquake whose geometry lies within the
county polygon (shapely ``within``, i.e. DE-9IM sfWithin) also gets
``kwg-ont:sfWithin <administrativeRegion.USA.06083>``. Fires get it when their polygon merely
intersects the county (they were selected that way by the KWG query that produced fires.csv).

Rows that cannot be represented are never dropped silently: each is recorded with
:meth:`BuildReport.skip` (reason, ``<file>:<line>``, detail, payload). The output is a pure function
of the input bytes: entities are written section by section in input row order.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterator
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TextIO

import pyogrio
import shapely
from shapely.geometry.base import BaseGeometry

from mgqa_platform import geometry
from mgqa_platform.files import atomic_path
from mgqa_platform.kg import vocab
from mgqa_platform.kg.worldkg_build import BuildReport, turtle_literal

COUNTY_IRI = vocab.KWGR + "administrativeRegion.USA.06083"
"""KnowWhereGraph IRI of Santa Barbara County, California (FIPS 06083)."""
STATE_IRI = vocab.KWGR + "administrativeRegion.USA.06"
"""KnowWhereGraph IRI of California (FIPS 06)."""
COUNTY_GEOMETRY_IRI = vocab.KWGR + "geometry.polygon.administrativeRegion.USA.06083"
COUNTY_WKT_DECIMALS = 7
"""Decimal places of the county polygon's WKT coordinates (1e-7 degree is about 1 cm)."""

_CSV_FIELD_LIMIT = 1 << 26  # fire polygons are ~100 kB of WKT; the csv default limit is 128 KiB
_IRI_FORBIDDEN = set('<>"{}|^`\\')
_ABSOLUTE_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:\S")
_XSD_DECIMAL = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
_XSD_DATETIME = re.compile(r"^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$")
_TIME_IRI_DATE = re.compile(r"time\.(\d{4}-\d{2}-\d{2})$")

_PREFIXES = dict(vocab.KWG_PREFIXES)


def iri_ref(iri: str) -> str:
    """``iri`` as a Turtle IRIREF ``<...>``.

    Characters that an IRIREF may not contain (controls, space, ``<>"{}|^`\\``) are percent-encoded
    as UTF-8 bytes; other non-ASCII characters are legal in IRIs and kept. ``%`` is kept as is, so
    an IRI that is already percent-encoded is not encoded twice.
    """
    out = []
    for ch in iri:
        if ord(ch) <= 0x20 or ch in _IRI_FORBIDDEN:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8"))
        else:
            out.append(ch)
    return "<" + "".join(out) + ">"


def name_key(name: str) -> str:
    """Local-name key minted from a display name: upper case, letters and digits only.

    ``"COTTAGE REHABILITATION HOSPITAL"`` -> ``"COTTAGEREHABILITATIONHOSPITAL"`` (the form KWG uses
    in its hospital IRIs). Non-ASCII letters are kept (legal in IRIs).
    """
    return "".join(c for c in name.upper() if c.isalnum())


def decimal_lexical(text: str) -> str | None:
    """A valid ``xsd:decimal`` lexical form of ``text``, or None if it is empty or not a finite number.

    Plain decimals are returned unchanged (``"3"``, ``"-0.52"``, ``"38.0"``); scientific notation is
    expanded (``"1.5e2"`` -> ``"150"``).
    """
    text = text.strip()
    if not text:
        return None
    if _XSD_DECIMAL.match(text):
        return text
    try:
        d = Decimal(text)
    except InvalidOperation:
        return None
    if not d.is_finite():
        return None
    return format(d, "f")


def wkt_literal(wkt: str) -> str:
    """``wkt`` as a ``geo:wktLiteral`` typed Turtle literal."""
    return f"{turtle_literal(wkt)}^^geo:wktLiteral"


def _block(subject: str, pairs: list[tuple[str, str]]) -> str:
    """One Turtle subject block: ``subject p1 o1 ;\\n    p2 o2 .\\n``."""
    body = " ;\n    ".join(f"{p} {o}" for p, o in pairs)
    return f"{subject} {body} .\n"


def _read_csv(path: Path, required: list[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line number, row) of a UTF-8 CSV with a header line; the header is line 1.

    The line number is the physical line on which the record ends. Raises ``ValueError`` if a
    required column is missing from the header.
    """
    csv.field_size_limit(max(csv.field_size_limit(), _CSV_FIELD_LIMIT))
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(
                f"{path.name}: missing column(s) {missing}; header is {reader.fieldnames}"
            )
        for row in reader:
            yield reader.line_num, {k: (v or "") for k, v in row.items() if k is not None}


class _Writer:
    """Turtle output that writes each shared node (geometry, time instant) and entity only once."""

    def __init__(self, out: TextIO, report: BuildReport, county: BaseGeometry) -> None:
        self.out = out
        self.report = report
        self.county = county
        self._nodes: dict[str, str] = {}
        self._entities: set[str] = set()

    def claim_node(self, iri: str, block: str) -> str | None:
        """Text to write for the shared node ``iri``: ``block`` the first time, ``""`` when the same
        block was already claimed, None when ``iri`` was claimed with a *different* block."""
        prev = self._nodes.get(iri)
        if prev is None:
            self._nodes[iri] = block
            return block
        return "" if prev == block else None

    def claim_entity(self, iri: str) -> bool:
        """False if entity ``iri`` was already written (a duplicate input row)."""
        if iri in self._entities:
            return False
        self._entities.add(iri)
        return True

    def write(self, text: str) -> None:
        """Write one entity group followed by a blank line."""
        self.out.write(text)
        self.out.write("\n")

    def parse_geometry(self, wkt: str, src: str) -> BaseGeometry | None:
        """The lon/lat geometry of ``wkt`` (:func:`geometry.parse_wkt`), or None after reporting
        the row at ``src`` as skipped with the reason ``invalid_wkt``."""
        try:
            return geometry.parse_wkt(wkt)
        except ValueError as e:
            self.report.skip("invalid_wkt", src, str(e), wkt)
            return None

    def within_county(self, geom: BaseGeometry) -> bool:
        """True if ``geom`` lies within the county polygon (DE-9IM within)."""
        return bool(shapely.contains(self.county, geom))

    def intersects_county(self, geom: BaseGeometry) -> bool:
        """True if ``geom`` shares at least one point with the county polygon."""
        return bool(shapely.intersects(self.county, geom))


def read_county_polygon(shp: Path) -> BaseGeometry:
    """Union of all polygons in the county shapefile, coordinates rounded to 7 decimals.

    The shapefile is EPSG:4269 (NAD83, longitude/latitude degrees); the result is treated as CRS84.
    The returned geometry is the one parsed back from the emitted WKT, so containment tests use
    exactly the polygon that is written to the crawl file.
    """
    df = pyogrio.read_dataframe(shp)
    if len(df) == 0:
        raise ValueError(f"{shp}: no features")
    union = shapely.union_all(df.geometry.values)
    rounded = shapely.from_wkt(
        shapely.to_wkt(union, rounding_precision=COUNTY_WKT_DECIMALS, trim=True)
    )
    if not rounded.is_valid:
        rounded = shapely.make_valid(rounded)
    shapely.prepare(rounded)
    return rounded


def _write_regions(w: _Writer) -> None:
    """California (no geometry, as in KWG) and Santa Barbara County with its CRS84 polygon."""
    r = w.report
    w.write(
        _block(
            iri_ref(STATE_IRI),
            [("a", "kwg-ont:AdministrativeRegion_1"), ("rdfs:label", turtle_literal("California"))],
        )
    )
    r.add("AdministrativeRegion_1")
    county_wkt = shapely.to_wkt(w.county, rounding_precision=COUNTY_WKT_DECIMALS, trim=True)
    block = _block(
        iri_ref(COUNTY_IRI),
        [
            ("a", "kwg-ont:AdministrativeRegion_2"),
            ("rdfs:label", turtle_literal("Santa Barbara County")),
            ("kwg-ont:administrativePartOf", iri_ref(STATE_IRI)),
            ("geo:hasGeometry", iri_ref(COUNTY_GEOMETRY_IRI)),
        ],
    )
    block += _block(
        iri_ref(COUNTY_GEOMETRY_IRI),
        [("a", "geo:Geometry"), ("geo:asWKT", wkt_literal(county_wkt))],
    )
    w.write(block)
    r.add("AdministrativeRegion_2")
    r.add("Geometry")


def _geometry_block(geom_iri: str, wkt: str) -> str:
    """``<geom_iri> a geo:Geometry ; geo:asWKT "<wkt>"^^geo:wktLiteral .``"""
    return _block(iri_ref(geom_iri), [("a", "geo:Geometry"), ("geo:asWKT", wkt_literal(wkt))])


def _observations(
    feature_kind: str, key: str, facts: list[tuple[str, str, str]]
) -> tuple[tuple[str, str], str]:
    """SOSA numeric facts of one feature.

    ``facts`` are (observation suffix, observed property CURIE, xsd:decimal lexical). Returns the
    (predicate, object) pair to add to the feature and the Turtle of the collection + observations.
    """
    coll = vocab.KWGR + f"observationCollection.{feature_kind}.{key}"
    obs_iris = [vocab.KWGR + f"observation.{feature_kind}.{key}.{suffix}" for suffix, _, _ in facts]
    text = _block(
        iri_ref(coll),
        [
            ("a", "sosa:ObservationCollection"),
            ("sosa:hasMember", ", ".join(iri_ref(o) for o in obs_iris)),
        ],
    )
    for o, (_, prop, value) in zip(obs_iris, facts):
        text += _block(
            iri_ref(o),
            [
                ("a", "sosa:Observation"),
                ("sosa:observedProperty", prop),
                ("sosa:hasSimpleResult", f"{turtle_literal(value)}^^xsd:decimal"),
            ],
        )
    return ("sosa:isFeatureOfInterestOf", iri_ref(coll)), text


def _write_fires(w: _Writer, path: Path) -> None:
    """MTBS fires: fire, geometry (WKT polygon as given) and ``time:Instant`` day of each row."""
    r = w.report
    for line, row in _read_csv(path, ["fire", "temporal_scope", "name", "geom", "wkt", "year"]):
        src = f"{path.name}:{line}"
        fire, time_iri, geom_iri, wkt = (
            row["fire"].strip(),
            row["temporal_scope"].strip(),
            row["geom"].strip(),
            row["wkt"],
        )
        if not all(_ABSOLUTE_IRI.match(x) for x in (fire, time_iri, geom_iri)):
            r.skip(
                "invalid_iri",
                src,
                "fire, temporal_scope and geom must be absolute IRIs",
                f"{fire} {time_iri} {geom_iri}",
            )
            continue
        m = _TIME_IRI_DATE.search(time_iri)
        try:
            day = date.fromisoformat(m.group(1)).isoformat() if m else None
        except ValueError:
            day = None
        if day is None:
            r.skip(
                "invalid_temporal_scope",
                src,
                "temporal_scope IRI does not end in time.YYYY-MM-DD",
                time_iri,
            )
            continue
        geom = w.parse_geometry(wkt, src)
        if geom is None:
            continue
        name, year = row["name"].strip(), row["year"].strip()
        label = f"{name} ({year})" if year else name
        pairs = [("a", "kwg-ont:MTBSFire")]
        if label:
            pairs.append(("rdfs:label", turtle_literal(label)))
        pairs += [
            ("geo:hasGeometry", iri_ref(geom_iri)),
            ("kwg-ont:hasTemporalScope", iri_ref(time_iri)),
        ]
        if w.intersects_county(geom):
            pairs.append(("kwg-ont:sfWithin", iri_ref(COUNTY_IRI)))
            r.add("MTBSFire_sfWithin_county")
        if not w.claim_entity(fire):
            r.skip("duplicate_entity", src, "fire IRI already written", fire)
            continue
        geom_text = w.claim_node(geom_iri, _geometry_block(geom_iri, wkt))
        if geom_text is None:
            r.skip(
                "conflicting_geometry",
                src,
                "geometry IRI already written with a different WKT",
                geom_iri,
            )
            continue
        time_text = w.claim_node(
            time_iri,
            _block(
                iri_ref(time_iri), [("a", "time:Instant"), ("time:inXSDDate", f'"{day}"^^xsd:date')]
            ),
        )
        w.write(_block(iri_ref(fire), pairs) + geom_text + (time_text or ""))
        r.add("MTBSFire")
        r.add("Geometry", bool(geom_text))
        r.add("Instant", bool(time_text))


def _write_hospitals(w: _Writer, path: Path) -> None:
    """Hospitals: label, helipad IRI, minted point geometry, bed count as a SOSA observation."""
    r = w.report
    prefix = vocab.KWGR + "hospital."
    for line, row in _read_csv(path, ["hospital", "has_helipad", "name", "bed_count", "wkt"]):
        src = f"{path.name}:{line}"
        hosp, helipad, name, wkt = (
            row["hospital"].strip(),
            row["has_helipad"].strip(),
            row["name"].strip(),
            row["wkt"],
        )
        if not _ABSOLUTE_IRI.match(hosp):
            r.skip("invalid_iri", src, "hospital must be an absolute IRI", hosp)
            continue
        key = hosp[len(prefix) :] if hosp.startswith(prefix) else name_key(name)
        if not key:
            r.skip("unmintable_name", src, "no local name for the minted geometry IRI", name)
            continue
        geom = w.parse_geometry(wkt, src)
        if geom is None:
            continue
        if not w.claim_entity(hosp):
            r.skip("duplicate_entity", src, "hospital IRI already written", hosp)
            continue
        geom_iri = vocab.KWGR + f"geometry.point.hospital.{key}"
        pairs = [("a", "kwg-ont:Hospital")]
        if name:
            pairs.append(("rdfs:label", turtle_literal(name)))
        if _ABSOLUTE_IRI.match(helipad):
            pairs.append(("kwg-ont:hasHelipad", iri_ref(helipad)))
        elif helipad:
            r.add("hospital_helipad_not_an_iri")
        pairs.append(("geo:hasGeometry", iri_ref(geom_iri)))
        extra = ""
        beds = decimal_lexical(row["bed_count"])
        if beds is not None:
            link, extra = _observations("hospital", key, [("bedCount", "kwg-ont:bedCount", beds)])
            pairs.append(link)
            r.add("Observation")
        else:
            r.add("hospital_bed_count_missing")
        if w.within_county(geom):
            pairs.append(("kwg-ont:sfWithin", iri_ref(COUNTY_IRI)))
            r.add("Hospital_sfWithin_county")
        w.write(_block(iri_ref(hosp), pairs) + _geometry_block(geom_iri, wkt) + extra)
        r.add("Hospital")
        r.add("Geometry")


def _write_gnis(w: _Writer, path: Path, iri_column: str, cls: str) -> None:
    """Schools, parks or airports: GNIS-LD feature IRI, name, GNIS geometry IRI, CRS84-prefixed WKT."""
    r = w.report
    for line, row in _read_csv(path, [iri_column, "name", "geom", "wkt"]):
        src = f"{path.name}:{line}"
        feat, geom_iri, wkt, name = (
            row[iri_column].strip(),
            row["geom"].strip(),
            row["wkt"],
            row["name"].strip(),
        )
        if not (_ABSOLUTE_IRI.match(feat) and _ABSOLUTE_IRI.match(geom_iri)):
            r.skip(
                "invalid_iri",
                src,
                f"{iri_column} and geom must be absolute IRIs",
                f"{feat} {geom_iri}",
            )
            continue
        geom = w.parse_geometry(wkt, src)
        if geom is None:
            continue
        if not w.claim_entity(feat):
            r.skip("duplicate_entity", src, f"{iri_column} IRI already written", feat)
            continue
        geom_text = w.claim_node(geom_iri, _geometry_block(geom_iri, wkt))
        if geom_text is None:
            r.skip(
                "conflicting_geometry",
                src,
                "geometry IRI already written with a different WKT",
                geom_iri,
            )
            continue
        pairs = [("a", f"kwg-ont:{cls}")]
        if name:
            pairs.append(("rdfs:label", turtle_literal(name)))
        pairs.append(("geo:hasGeometry", iri_ref(geom_iri)))
        if w.within_county(geom):
            pairs.append(("kwg-ont:sfWithin", iri_ref(COUNTY_IRI)))
            r.add(f"{cls}_sfWithin_county")
        w.write(_block(iri_ref(feat), pairs) + geom_text)
        r.add(cls)
        r.add("Geometry", bool(geom_text))


def _write_roads(w: _Writer, path: Path) -> None:
    """Road segments ``road.<sign>.<n>``, n counting that sign's segments from 1 in file order."""
    r = w.report
    seen: dict[str, int] = {}
    for line, row in _read_csv(path, ["sign", "wkt"]):
        src = f"{path.name}:{line}"
        sign, wkt = row["sign"].strip(), row["wkt"]
        if not sign:
            r.skip("missing_sign", src, "road segment without a route sign", wkt)
            continue
        geom = w.parse_geometry(wkt, src)
        if geom is None:
            continue
        n = seen.get(sign, 0) + 1
        seen[sign] = n
        road = vocab.KWGR + f"road.{sign}.{n}"
        geom_iri = vocab.KWGR + f"geometry.line.road.{sign}.{n}"
        pairs = [
            ("a", "kwg-ont:Road"),
            ("rdfs:label", turtle_literal(sign)),
            ("geo:hasGeometry", iri_ref(geom_iri)),
        ]
        if w.within_county(geom):
            pairs.append(("kwg-ont:sfWithin", iri_ref(COUNTY_IRI)))
            r.add("Road_sfWithin_county")
        w.write(_block(iri_ref(road), pairs) + _geometry_block(geom_iri, wkt))
        r.add("Road")
        r.add("Geometry")


def _coordinate(text: str, limit: float) -> str | None:
    """Validated longitude/latitude text (as given if plain decimal), or None if invalid."""
    lex = decimal_lexical(text)
    if lex is None:
        return None
    value = float(lex)
    if not math.isfinite(value) or abs(value) > limit:
        return None
    return lex


def _write_earthquakes(w: _Writer, path: Path) -> None:
    """USGS rows of type ``earthquake``: point (lon lat), instant, magnitude and depth (km) observations."""
    r = w.report
    for line, row in _read_csv(
        path, ["time", "latitude", "longitude", "depth", "mag", "id", "place", "type"]
    ):
        src = f"{path.name}:{line}"
        payload = ",".join(
            row.get(c, "") for c in ("id", "time", "latitude", "longitude", "depth", "mag", "type")
        )
        kind = row["type"].strip()
        if kind != "earthquake":
            r.skip("not_an_earthquake", src, f"type is {kind!r}", payload)
            continue
        eid = row["id"].strip()
        if not eid:
            r.skip("missing_id", src, "no USGS event id", payload)
            continue
        if not row["latitude"].strip() or not row["longitude"].strip():
            r.skip("missing_coordinates", src, "latitude or longitude is empty", payload)
            continue
        lat, lon = _coordinate(row["latitude"], 90.0), _coordinate(row["longitude"], 180.0)
        if lat is None or lon is None:
            r.skip(
                "invalid_coordinates",
                src,
                "latitude must be in [-90, 90] and longitude in [-180, 180] degrees",
                payload,
            )
            continue
        if not row["mag"].strip():
            r.skip("missing_magnitude", src, "mag is empty", payload)
            continue
        mag = decimal_lexical(row["mag"])
        if mag is None:
            r.skip("invalid_magnitude", src, "mag is not a finite decimal number", payload)
            continue
        when = row["time"].strip()
        if not when:
            r.skip("missing_time", src, "time is empty", payload)
            continue
        try:
            valid_time = (
                bool(_XSD_DATETIME.match(when)) and datetime.fromisoformat(when) is not None
            )
        except ValueError:
            valid_time = False
        if not valid_time:
            r.skip(
                "invalid_time",
                src,
                "time is not an xsd:dateTime (YYYY-MM-DDThh:mm:ss[.s][Z|+hh:mm])",
                payload,
            )
            continue
        depth = decimal_lexical(row["depth"])
        place = row["place"].strip()
        label = f"M {mag} - {place}" if place else f"M {mag}"
        entity = vocab.KWGR + f"earthquake.{eid}"
        if not w.claim_entity(entity):
            r.skip("duplicate_entity", src, "USGS event id already written", payload)
            continue
        geom_iri = vocab.KWGR + f"geometry.point.earthquake.{eid}"
        time_iri = vocab.KWGR + f"time.instant.{eid}"
        wkt = f"POINT({lon} {lat})"
        facts = [("magnitude", "kwg-ont:magnitude", mag)]
        if depth is not None:
            facts.append(("depth", "kwg-ont:depthKm", depth))
        else:
            r.add("earthquake_depth_missing")
        link, obs = _observations("earthquake", eid, facts)
        pairs = [
            ("a", "kwg-ont:Earthquake"),
            ("rdfs:label", turtle_literal(label)),
            ("geo:hasGeometry", iri_ref(geom_iri)),
            ("kwg-ont:hasTemporalScope", iri_ref(time_iri)),
            link,
        ]
        if w.within_county(shapely.Point(float(lon), float(lat))):
            pairs.append(("kwg-ont:sfWithin", iri_ref(COUNTY_IRI)))
            r.add("Earthquake_sfWithin_county")
        block = _block(iri_ref(entity), pairs) + _geometry_block(geom_iri, wkt)
        block += _block(
            iri_ref(time_iri),
            [
                ("a", "time:Instant"),
                ("time:inXSDDateTime", f"{turtle_literal(when)}^^xsd:dateTime"),
            ],
        )
        w.write(block + obs)
        r.add("Earthquake")
        r.add("Geometry")
        r.add("Instant")
        r.add("Observation", len(facts))


def build_kwg_crawl(kwg_dir: Path, earthquakes_csv: Path, out_ttl: Path) -> BuildReport:
    """Write the KWG-shaped crawl file ``out_ttl`` (Turtle, UTF-8) from the bundled inputs.

    ``kwg_dir`` holds fires/hospitals/schools/parks/airports/roads CSVs and ``SB_County.shp``;
    ``earthquakes_csv`` is a USGS ComCat CSV export. The file is written atomically (a failed build
    leaves any previous file untouched) and its bytes depend only on the inputs. Sections are
    written in this order, each in input row order: administrative regions, fires, hospitals,
    schools, parks, airports, road segments, earthquakes.

    Returns the report: per-class entity counts (``MTBSFire``, ``Hospital``, ``School``, ``Park``,
    ``Airport``, ``Road``, ``Earthquake``, ``AdministrativeRegion_1``/``_2``), ``<Class>_sfWithin_county``
    counts, and one skipped entry per row that was not written (e.g. ``not_an_earthquake``).
    Raises ``ValueError`` if an input CSV lacks a required column, ``OSError`` if a file is missing.
    """
    kwg_dir, earthquakes_csv, out_ttl = Path(kwg_dir), Path(earthquakes_csv), Path(out_ttl)
    report = BuildReport()
    county = read_county_polygon(kwg_dir / "SB_County.shp")
    with atomic_path(out_ttl) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as out:
            for p, ns in _PREFIXES.items():
                out.write(f"@prefix {p}: <{ns}> .\n")
            out.write("\n")
            w = _Writer(out, report, county)
            _write_regions(w)
            _write_fires(w, kwg_dir / "fires.csv")
            _write_hospitals(w, kwg_dir / "hospitals.csv")
            _write_gnis(w, kwg_dir / "schools.csv", "school", "School")
            _write_gnis(w, kwg_dir / "parks.csv", "park", "Park")
            _write_gnis(w, kwg_dir / "airports.csv", "airport", "Airport")
            _write_roads(w, kwg_dir / "roads.csv")
            _write_earthquakes(w, earthquakes_csv)
    return report


__all__ = [
    "COUNTY_IRI",
    "STATE_IRI",
    "build_kwg_crawl",
    "decimal_lexical",
    "iri_ref",
    "name_key",
    "read_county_polygon",
]
