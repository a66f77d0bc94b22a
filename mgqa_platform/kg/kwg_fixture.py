"""Bundled KnowWhereGraph query results -> a KnowWhereGraph-shaped fixture graph (Turtle).

The fixture holds what the live KnowWhereGraph holds for the bundled Santa Barbara County query
results, in KnowWhereGraph's own vocabulary (docs/kg_fidelity.md (KnowWhereGraph)), so that the
crawl queries meant for the live endpoint can be run against it. Inputs
(``data/sample/kwg/SOURCE.txt``): ``fires.csv``, ``hospitals.csv``, ``schools.csv``, ``parks.csv``,
``airports.csv``, ``roads.csv`` (KnowWhereGraph query results with KnowWhereGraph / GNIS-LD IRIs and
WKT geometries) and ``SB_County.shp`` (the county polygon, EPSG:4269, NAD83 longitude/latitude
degrees: NAD83 and WGS84 differ by about a metre here, so its degrees are used as CRS84 without
transformation).

All coordinates are longitude/latitude degrees (OGC CRS84), longitude first as WKT requires. WKT
without a CRS IRI is CRS84 by GeoSPARQL's default; the GNIS rows keep their explicit
``<http://www.opengis.net/def/crs/OGC/1.3/CRS84>`` prefix as given.

Shapes written (``kwgr:``/``kwg-ont:``/``usgs:`` as in :data:`mgqa_platform.kg.vocab.KWG_PREFIXES`;
``urn:mgqa:kwg:`` IRIs where the query results do not give the real one)::

    kwgr:administrativeRegion.USA.06 a kwg-ont:AdministrativeRegion_1 ; rdfs:label "California" ;
        kwg-ont:hasFIPS "06" .                                   # no polygon in the bundled data
    kwgr:administrativeRegion.USA.06083 a kwg-ont:AdministrativeRegion_2 ;
        rdfs:label "Santa Barbara County" ; kwg-ont:hasFIPS "06083" ;
        kwg-ont:administrativePartOf kwgr:administrativeRegion.USA.06 ;
        geo:hasGeometry kwgr:geometry.Polygon.administrativeRegion.USA.06083 ;
        kwg-ont:sfContains <cell> ... ; kwg-ont:sfOverlaps <cell> ... .
    <fire> a kwg-ont:MTBSFire ; rdfs:label "SPANISH" ; geo:hasGeometry <geometry> ;
        kwg-ont:hasTemporalScope kwgr:time.1994-09-08 ;
        kwg-ont:sfWithin | kwg-ont:sfOverlaps <county> ; S2 links .
    kwgr:time.1994-09-08 a time:Instant ; time:inXSDDate "1994-09-08"^^xsd:date .
    <hospital> a kwg-ont:Hospital ; kwg-ont:hospitalName "..." ;
        kwg-ont:helipadAvailability kwgr:no ; kwg-ont:noHospitalBeds "38.0" ;
        geo:hasDefaultGeometry <urn:mgqa:kwg:geometry.point.hospital.KEY> ; S2 link .
    <gnis feature> a usgs:School | usgs:Park | usgs:Airport ; rdfs:label "..." ;
        geo:hasGeometry <gnis geometry> ; S2 link .
    <urn:mgqa:kwg:roadSegment.U101.1> a kwg-ont:RoadSegment ; kwg-ont:hasRoadSign "U101" ;
        geo:hasGeometry <urn:mgqa:kwg:geometry.line.roadSegment.U101.1> ;
        kwg-ont:sfWithin <county> (when within) ; S2 links .
    <geometry> a geo:Geometry ; geo:asWKT "<WKT>"^^geo:wktLiteral .
    kwgr:s2.level13.<id> a kwg-ont:S2Cell_Level13 ; kwg-ont:cellID "<id>"^^xsd:integer ;
        geo:hasGeometry kwgr:geometry.polygon.s2.level13.<id> .

S2 links (level 13, as KnowWhereGraph's s2-coverings tool materialises them, both directions): a
point is ``sfWithin`` the cell holding it (the cell ``sfContains`` it); a line ``sfCrosses`` each
cell it meets (and the cell it); a polygon ``sfContains`` each cell inside it (the cell is
``sfWithin`` it) and ``sfOverlaps`` each cell its boundary meets (both ways). Only cells that a
feature touches are written; the county ``sfContains`` those of them inside its polygon and
``sfOverlaps`` those that its boundary meets. Cell polygons are the four cell vertices joined by
straight lon/lat edges (a level-13 cell is about 1 km across; the geodesic edges differ from the
straight ones by far less than a metre).

Rows that cannot be represented are never dropped silently: each is recorded with
:meth:`BuildReport.skip` (reason, ``<file>:<line>``, detail, payload). The output is a pure function
of the input bytes: sections in a fixed order, rows in input order, cells in id order.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TextIO

import numpy as np
import pyogrio
import s2sphere
import shapely
from shapely.geometry.base import BaseGeometry

from mgqa_platform import geometry
from mgqa_platform.files import atomic_path
from mgqa_platform.kg import vocab
from mgqa_platform.kg.worldkg_build import BuildReport, turtle_literal

S2_LEVEL = 13
"""KnowWhereGraph's S2 cell level (a cell is about 1.3 km2 at this latitude)."""
STATE_FIPS, COUNTY_FIPS = "06", "06083"
STATE_IRI = vocab.KWGR + f"administrativeRegion.USA.{STATE_FIPS}"
"""KnowWhereGraph IRI of California (FIPS 06)."""
COUNTY_IRI = vocab.KWGR + f"administrativeRegion.USA.{COUNTY_FIPS}"
"""KnowWhereGraph IRI of Santa Barbara County, California (FIPS 06083)."""
COUNTY_GEOMETRY_IRI = vocab.KWGR + f"geometry.Polygon.administrativeRegion.USA.{COUNTY_FIPS}"
COUNTY_WKT_DECIMALS = 7
"""Decimal places of the county polygon's WKT coordinates (1e-7 degree is about 1 cm)."""
CELL_WKT_DECIMALS = 9
"""Decimal places of an S2 cell polygon's WKT coordinates."""

_CSV_FIELD_LIMIT = 1 << 26  # fire polygons are ~100 kB of WKT; the csv default limit is 128 KiB
_IRI_FORBIDDEN = set('<>"{}|^`\\')
_ABSOLUTE_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:\S")
_XSD_DECIMAL = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
_TIME_IRI_DATE = re.compile(r"time\.(\d{4}-\d{2}-\d{2})$")
_HELIPAD = {vocab.KWGR + "yes", vocab.KWGR + "no"}


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
    """A valid ``xsd:decimal`` lexical form of ``text``, or None if it is empty or not a finite
    number.

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


def block(subject: str, pairs: list[tuple[str, str]]) -> str:
    """One Turtle subject block: ``subject p1 o1 ;\\n    p2 o2 .\\n``."""
    body = " ;\n    ".join(f"{p} {o}" for p, o in pairs)
    return f"{subject} {body} .\n"


def _stripped(row: dict[str, str], *columns: str) -> list[str]:
    """The values of ``columns`` in ``row``, stripped of surrounding white space (IRIs and names;
    WKT is read as given)."""
    return [row[c].strip() for c in columns]


def read_csv(path: Path, required: list[str]) -> Iterator[tuple[int, dict[str, str]]]:
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
        self.cells = _Cells()
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

    def claim_feature(self, iri: str, what: str, geom_iri: str, wkt: str, src: str) -> str | None:
        """Claim entity ``iri`` (a ``what``) and its geometry node: the geometry text to write, or
        None after reporting the row at ``src`` as skipped (``duplicate_entity``: the entity was
        written already; ``conflicting_geometry``: the geometry IRI was, with another WKT)."""
        if not self.claim_entity(iri):
            self.report.skip("duplicate_entity", src, f"{what} IRI already written", iri)
            return None
        geom_text = self.claim_node(geom_iri, geometry_block(geom_iri, wkt))
        if geom_text is None:
            self.report.skip(
                "conflicting_geometry",
                src,
                "geometry IRI already written with a different WKT",
                geom_iri,
            )
        return geom_text

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
    exactly the polygon that is written to the fixture.
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


def cell_iri(cell_id: int) -> str:
    """``kwgr:s2.level13.<id>``: KnowWhereGraph's IRI of the S2 cell ``cell_id`` (unsigned
    64-bit)."""
    level = s2sphere.CellId(cell_id).level()
    return vocab.KWGR + f"s2.level{level}.{cell_id}"


def point_cell(lon: float, lat: float, level: int = S2_LEVEL) -> int:
    """Id of the level-``level`` S2 cell holding the point at ``lon``/``lat`` degrees (CRS84)."""
    leaf = s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(lat, lon))
    return leaf.parent(level).id()


def cell_polygon(cell_id: int) -> shapely.Polygon:
    """The cell's four vertices (counter-clockwise) as a lon/lat degree polygon (CRS84)."""
    cell = s2sphere.Cell(s2sphere.CellId(cell_id))
    corners = []
    for i in range(4):
        ll = s2sphere.LatLng.from_point(cell.get_vertex(i))
        corners.append((ll.lng().degrees, ll.lat().degrees))
    return shapely.Polygon(corners)


def candidate_cells(geom: BaseGeometry, level: int = S2_LEVEL) -> list[int]:
    """Ids of the level-``level`` cells covering the lon/lat bounding box of ``geom``, sorted."""
    minx, miny, maxx, maxy = geom.bounds
    rect = s2sphere.LatLngRect.from_point_pair(
        s2sphere.LatLng.from_degrees(miny, minx), s2sphere.LatLng.from_degrees(maxy, maxx)
    )
    coverer = s2sphere.RegionCoverer()
    coverer.min_level = coverer.max_level = level
    coverer.max_cells = 1 << 30
    return sorted(c.id() for c in coverer.get_covering(rect))


def s2_relations(geom: BaseGeometry) -> list[tuple[str, int]]:
    """(KnowWhereGraph predicate local name, cell id) of ``geom`` (lon/lat, CRS84) to the level-13
    cells, the relation read from ``geom`` to the cell: ``sfWithin`` for a point; ``sfCrosses`` for
    each cell a line meets; ``sfContains`` for each cell inside a polygon and ``sfOverlaps`` for
    each cell its boundary meets. Sorted by cell id."""
    kind = geom.geom_type
    if kind == "Point":
        return [("sfWithin", point_cell(geom.x, geom.y))]
    ids = candidate_cells(geom)
    polys = np.array([cell_polygon(c) for c in ids], dtype=object)
    shapely.prepare(geom)
    if kind in ("LineString", "MultiLineString"):
        hit = shapely.intersects(geom, polys)
        return [("sfCrosses", c) for c, h in zip(ids, hit, strict=True) if h]
    if kind in ("Polygon", "MultiPolygon"):
        inside = shapely.contains(geom, polys)
        edge = shapely.intersects(geom.boundary, polys)
        out = []
        for c, i, e in zip(ids, inside, edge, strict=True):
            if e:
                out.append(("sfOverlaps", c))
            elif i:
                out.append(("sfContains", c))
        return out
    raise ValueError(f"no S2 relation for a {kind}")


_INVERSE = {"sfWithin": "sfContains", "sfContains": "sfWithin"}


@dataclass
class _Cells:
    """The S2 cells the features touch, with the feature -> cell links of each feature."""

    links: dict[int, list[tuple[str, str]]] = field(default_factory=dict)  # cell -> (subject, pred)

    def link(self, subject: str, geom: BaseGeometry) -> list[tuple[str, str]]:
        """(predicate CURIE, cell IRIREF) pairs for ``subject``'s block; remembers the inverse."""
        pairs = []
        for pred, cell in s2_relations(geom):
            pairs.append((f"kwg-ont:{pred}", iri_ref(cell_iri(cell))))
            self.links.setdefault(cell, []).append((_INVERSE.get(pred, pred), subject))
        return pairs


def _write_regions(w: _Writer) -> None:
    """California (no polygon in the bundled data) and Santa Barbara County with its polygon. The
    county's links to the S2 cells are written at the end (:func:`_write_cells`)."""
    r = w.report
    w.write(
        block(
            iri_ref(STATE_IRI),
            [
                ("a", "kwg-ont:AdministrativeRegion_1"),
                ("rdfs:label", turtle_literal("California")),
                ("kwg-ont:hasFIPS", turtle_literal(STATE_FIPS)),
            ],
        )
    )
    r.add("AdministrativeRegion_1")
    county_wkt = shapely.to_wkt(w.county, rounding_precision=COUNTY_WKT_DECIMALS, trim=True)
    text = block(
        iri_ref(COUNTY_IRI),
        [
            ("a", "kwg-ont:AdministrativeRegion_2"),
            ("rdfs:label", turtle_literal("Santa Barbara County")),
            ("kwg-ont:hasFIPS", turtle_literal(COUNTY_FIPS)),
            ("kwg-ont:administrativePartOf", iri_ref(STATE_IRI)),
            ("geo:hasGeometry", iri_ref(COUNTY_GEOMETRY_IRI)),
        ],
    )
    w.write(text + geometry_block(COUNTY_GEOMETRY_IRI, county_wkt))
    r.add("AdministrativeRegion_2")
    r.add("Geometry")


def geometry_block(geom_iri: str, wkt: str) -> str:
    """``<geom_iri> a geo:Geometry ; geo:asWKT "<wkt>"^^geo:wktLiteral .``"""
    return block(iri_ref(geom_iri), [("a", "geo:Geometry"), ("geo:asWKT", wkt_literal(wkt))])


def _county_link(w: _Writer, geom: BaseGeometry, kind: str) -> list[tuple[str, str]]:
    """The direct link KnowWhereGraph states from a fire or road segment to the county:
    ``kwg-ont:sfWithin`` when ``geom`` lies within the county polygon, for a fire
    ``kwg-ont:sfOverlaps`` when it only partly does; nothing otherwise. Counted per ``kind``."""
    if w.within_county(geom):
        w.report.add(f"{kind}_sfWithin_county")
        return [("kwg-ont:sfWithin", iri_ref(COUNTY_IRI))]
    if kind == "MTBSFire" and w.intersects_county(geom):
        w.report.add(f"{kind}_sfOverlaps_county")
        return [("kwg-ont:sfOverlaps", iri_ref(COUNTY_IRI))]
    return []


def _write_fires(w: _Writer, path: Path) -> None:
    """MTBS fires: fire, geometry (WKT polygon as given) and ``time:Instant`` day of each row."""
    r = w.report
    for line, row in read_csv(path, ["fire", "temporal_scope", "name", "geom", "wkt"]):
        src = f"{path.name}:{line}"
        fire, time_iri, geom_iri = _stripped(row, "fire", "temporal_scope", "geom")
        wkt = row["wkt"]
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
        geom_text = w.claim_feature(fire, "fire", geom_iri, wkt, src)
        if geom_text is None:
            continue
        pairs = [("a", "kwg-ont:MTBSFire")]
        if name := row["name"].strip():
            pairs.append(("rdfs:label", turtle_literal(name)))
        pairs += [
            ("geo:hasGeometry", iri_ref(geom_iri)),
            ("kwg-ont:hasTemporalScope", iri_ref(time_iri)),
            *_county_link(w, geom, "MTBSFire"),
            *w.cells.link(fire, geom),
        ]
        time_text = w.claim_node(
            time_iri,
            block(
                iri_ref(time_iri), [("a", "time:Instant"), ("time:inXSDDate", f'"{day}"^^xsd:date')]
            ),
        )
        w.write(block(iri_ref(fire), pairs) + geom_text + (time_text or ""))
        r.add("MTBSFire")
        r.add("Geometry", bool(geom_text))
        r.add("Instant", bool(time_text))


def _write_hospitals(w: _Writer, path: Path) -> None:
    """Hospitals: name, helipad IRI, bed count literal, point geometry as the default geometry."""
    r = w.report
    prefix = vocab.KWGR + "hospital."
    for line, row in read_csv(path, ["hospital", "has_helipad", "name", "bed_count", "wkt"]):
        src = f"{path.name}:{line}"
        hosp, helipad, name = _stripped(row, "hospital", "has_helipad", "name")
        wkt = row["wkt"]
        if not _ABSOLUTE_IRI.match(hosp):
            r.skip("invalid_iri", src, "hospital must be an absolute IRI", hosp)
            continue
        if helipad and helipad not in _HELIPAD:
            r.skip("invalid_helipad", src, "has_helipad must be kwgr:yes or kwgr:no", helipad)
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
        geom_iri = vocab.MGQA_KWG + f"geometry.point.hospital.{key}"
        pairs = [("a", "kwg-ont:Hospital")]
        if name:
            pairs.append(("kwg-ont:hospitalName", turtle_literal(name)))
        if helipad:
            pairs.append(("kwg-ont:helipadAvailability", iri_ref(helipad)))
        beds = decimal_lexical(row["bed_count"])
        if beds is not None:
            pairs.append(("kwg-ont:noHospitalBeds", turtle_literal(beds)))
        else:
            r.add("hospital_bed_count_missing")
        pairs += [("geo:hasDefaultGeometry", iri_ref(geom_iri)), *w.cells.link(hosp, geom)]
        w.write(block(iri_ref(hosp), pairs) + geometry_block(geom_iri, wkt))
        r.add("Hospital")
        r.add("Geometry")


def _write_gnis(w: _Writer, path: Path, iri_column: str, cls: str) -> None:
    """Schools, parks or airports: GNIS-LD feature IRI, name, GNIS geometry IRI, CRS84-prefixed
    WKT."""
    r = w.report
    for line, row in read_csv(path, [iri_column, "name", "geom", "wkt"]):
        src = f"{path.name}:{line}"
        feat, geom_iri, name = _stripped(row, iri_column, "geom", "name")
        wkt = row["wkt"]
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
        geom_text = w.claim_feature(feat, iri_column, geom_iri, wkt, src)
        if geom_text is None:
            continue
        pairs = [("a", f"usgs:{cls}")]
        if name:
            pairs.append(("rdfs:label", turtle_literal(name)))
        pairs += [("geo:hasGeometry", iri_ref(geom_iri)), *w.cells.link(feat, geom)]
        w.write(block(iri_ref(feat), pairs) + geom_text)
        r.add(cls)
        r.add("Geometry", bool(geom_text))


def _write_roads(w: _Writer, path: Path) -> None:
    """Road segments ``roadSegment.<sign>.<n>``, n counting that sign's segments from 1 in file
    order."""
    r = w.report
    seen: dict[str, int] = {}
    for line, row in read_csv(path, ["sign", "wkt"]):
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
        road = vocab.MGQA_KWG + f"roadSegment.{sign}.{n}"
        geom_iri = vocab.MGQA_KWG + f"geometry.line.roadSegment.{sign}.{n}"
        pairs = [
            ("a", "kwg-ont:RoadSegment"),
            ("kwg-ont:hasRoadSign", turtle_literal(sign)),
            ("geo:hasGeometry", iri_ref(geom_iri)),
            *_county_link(w, geom, "RoadSegment"),
            *w.cells.link(road, geom),
        ]
        w.write(block(iri_ref(road), pairs) + geometry_block(geom_iri, wkt))
        r.add("RoadSegment")
        r.add("Geometry")


def _write_cells(w: _Writer) -> None:
    """Every S2 cell a feature touches (id order): its type, id, polygon and inverse links, and
    the county's ``sfContains`` / ``sfOverlaps`` link to it where the county polygon holds or
    meets it."""
    r = w.report
    ids = sorted(w.cells.links)
    polys = np.array([cell_polygon(c) for c in ids], dtype=object)
    inside = shapely.contains(w.county, polys)
    edge = shapely.intersects(w.county.boundary, polys)
    county_pairs = []
    for c, poly, i, e in zip(ids, polys, inside, edge, strict=True):
        iri = cell_iri(c)
        geom_iri = vocab.KWGR + f"geometry.polygon.s2.level{S2_LEVEL}.{c}"
        links = sorted(set(w.cells.links[c]))
        pairs = [
            ("a", f"kwg-ont:S2Cell_Level{S2_LEVEL}"),
            ("kwg-ont:cellID", f'"{c}"^^xsd:integer'),
            ("geo:hasGeometry", iri_ref(geom_iri)),
            *((f"kwg-ont:{pred}", iri_ref(s)) for pred, s in links),
        ]
        if e:
            county_pairs.append(("kwg-ont:sfOverlaps", iri_ref(iri)))
        elif i:
            county_pairs.append(("kwg-ont:sfContains", iri_ref(iri)))
        wkt = shapely.to_wkt(poly, rounding_precision=CELL_WKT_DECIMALS, trim=True)
        w.write(block(iri_ref(iri), pairs) + geometry_block(geom_iri, wkt))
        r.add(f"S2Cell_Level{S2_LEVEL}")
        r.add("Geometry")
        r.add("S2_links", len(links))
    if county_pairs:
        w.write(block(iri_ref(COUNTY_IRI), county_pairs))
    r.add("S2Cell_in_county", sum(p == "kwg-ont:sfContains" for p, _ in county_pairs))
    r.add("S2Cell_on_county_boundary", sum(p == "kwg-ont:sfOverlaps" for p, _ in county_pairs))


def write_prefixes(out: TextIO) -> None:
    """The ``@prefix`` lines of :data:`vocab.KWG_PREFIXES` and a blank line."""
    for p, ns in vocab.KWG_PREFIXES.items():
        out.write(f"@prefix {p}: <{ns}> .\n")
    out.write("\n")


def build_kwg_fixture(kwg_dir: Path, out_ttl: Path) -> BuildReport:
    """Write the KnowWhereGraph-shaped fixture ``out_ttl`` (Turtle, UTF-8) from the bundled query
    results in ``kwg_dir`` (fires/hospitals/schools/parks/airports/roads CSVs and
    ``SB_County.shp``).

    The file is written atomically (a failed build leaves any previous file untouched) and its
    bytes depend only on the inputs. Sections, each in input row order: administrative regions,
    fires, hospitals, schools, parks, airports, road segments, then the S2 cells in id order.

    Returns the report: per-class counts (``MTBSFire``, ``Hospital``, ``School``, ``Park``,
    ``Airport``, ``RoadSegment``, ``AdministrativeRegion_1``/``_2``, ``S2Cell_Level13``,
    ``Geometry``, ``Instant``), ``<Class>_sfWithin_county`` / ``MTBSFire_sfOverlaps_county``,
    ``S2_links``, ``S2Cell_in_county`` / ``S2Cell_on_county_boundary``, and one skipped entry per
    row that was not written. Raises ``ValueError`` if a CSV lacks a required column, ``OSError``
    if a file is missing.
    """
    kwg_dir, out_ttl = Path(kwg_dir), Path(out_ttl)
    report = BuildReport()
    county = read_county_polygon(kwg_dir / "SB_County.shp")
    with atomic_path(out_ttl) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as out:
            write_prefixes(out)
            w = _Writer(out, report, county)
            _write_regions(w)
            _write_fires(w, kwg_dir / "fires.csv")
            _write_hospitals(w, kwg_dir / "hospitals.csv")
            _write_gnis(w, kwg_dir / "schools.csv", "school", "School")
            _write_gnis(w, kwg_dir / "parks.csv", "park", "Park")
            _write_gnis(w, kwg_dir / "airports.csv", "airport", "Airport")
            _write_roads(w, kwg_dir / "roads.csv")
            _write_cells(w)
    return report


__all__ = [
    "COUNTY_IRI",
    "S2_LEVEL",
    "STATE_IRI",
    "build_kwg_fixture",
    "cell_iri",
    "cell_polygon",
    "decimal_lexical",
    "iri_ref",
    "point_cell",
    "read_county_polygon",
    "s2_relations",
]
