"""USGS ComCat earthquake catalog (CSV export) -> its own event graph (Turtle).

The USGS catalog is not KnowWhereGraph data: its events keep USGS's own identity, the event page
``https://earthquake.usgs.gov/earthquakes/eventpage/<id>``, and are typed and measured in our
namespace (``mgqa:`` = ``urn:mgqa:ontology:``, docs/decisions.md), never in ``kwg-ont:``/``kwgr:``.
Nodes that USGS does not name (geometry, time, observations) get ``urn:mgqa:usgs:<id>:...`` IRIs.

Shapes written (input row order; the two observable properties declared once, first)::

    mgqa:magnitude a sosa:ObservableProperty ; rdfs:label "earthquake magnitude" .
    mgqa:depthKm a sosa:ObservableProperty ; rdfs:label "hypocentre depth (km below sea level)" .
    <eventpage/ID> a mgqa:Earthquake ; rdfs:label "M <mag> - <place>" ;
        geo:hasGeometry <urn:mgqa:usgs:ID:geometry> ; time:hasTime <urn:mgqa:usgs:ID:time> ;
        sosa:isFeatureOfInterestOf <urn:mgqa:usgs:ID:observations> .
    <urn:mgqa:usgs:ID:geometry> a geo:Geometry ; geo:asWKT "POINT(<lon> <lat>)"^^geo:wktLiteral .
    <urn:mgqa:usgs:ID:time> a time:Instant ; time:inXSDDateTime "<ISO time>"^^xsd:dateTime .
    <urn:mgqa:usgs:ID:observations> a sosa:ObservationCollection ;
        sosa:hasFeatureOfInterest <eventpage/ID> ; sosa:phenomenonTime <urn:mgqa:usgs:ID:time> ;
        sosa:hasMember <urn:mgqa:usgs:ID:magnitude>, <urn:mgqa:usgs:ID:depth> .
    <urn:mgqa:usgs:ID:magnitude> a sosa:Observation ; sosa:hasFeatureOfInterest <eventpage/ID> ;
        sosa:phenomenonTime <urn:mgqa:usgs:ID:time> ; sosa:observedProperty mgqa:magnitude ;
        sosa:hasSimpleResult "<mag>"^^xsd:decimal .          # and the same for depth (km)

Each observation also names its feature of interest and its time, which KnowWhereGraph puts on the
collection only: this graph is ours, so it satisfies every SOSA shape of the ``kwg_shacl`` check.

Coordinates are longitude/latitude degrees (CRS84, the WKT default), longitude first; depth is in
km below sea level, positive down, as ComCat gives it. Rows that cannot be represented are
skipped with a reason (:meth:`BuildReport.skip`): not an earthquake, no id, missing or invalid
coordinates, magnitude or time, a repeated id.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from pathlib import Path

from mgqa_platform.files import atomic_path
from mgqa_platform.kg import vocab
from mgqa_platform.kg.kwg_fixture import (
    block,
    decimal_lexical,
    geometry_block,
    iri_ref,
    read_csv,
    write_prefixes,
)
from mgqa_platform.kg.worldkg_build import BuildReport, turtle_literal

_XSD_DATETIME = re.compile(r"^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$")
_COLUMNS = ["time", "latitude", "longitude", "depth", "mag", "id", "place", "type"]
OBSERVABLE_PROPERTIES = {
    "magnitude": "earthquake magnitude",
    "depthKm": "hypocentre depth (km below sea level)",
}
"""Our observable properties (``mgqa:<name>``) and their labels."""


def event_iri(event_id: str) -> str:
    """The USGS event page of ``event_id`` (e.g. ``ci37502751``), the event's IRI."""
    return vocab.USGS_EVENT + event_id


def _coordinate(text: str, limit: float) -> str | None:
    """Validated longitude/latitude text (as given if plain decimal), or None if invalid."""
    lex = decimal_lexical(text)
    if lex is None:
        return None
    value = float(lex)
    if not math.isfinite(value) or abs(value) > limit:
        return None
    return lex


def _valid_time(text: str) -> bool:
    """True if ``text`` is an ``xsd:dateTime`` lexical form that is a real date and time."""
    if not _XSD_DATETIME.match(text):
        return False
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _row_problem(row: dict[str, str]) -> tuple[str, str] | None:
    """(reason, detail) why a ComCat row cannot be represented, or None."""
    if (kind := row["type"].strip()) != "earthquake":
        return "not_an_earthquake", f"type is {kind!r}"
    if not row["id"].strip():
        return "missing_id", "no USGS event id"
    if not row["latitude"].strip() or not row["longitude"].strip():
        return "missing_coordinates", "latitude or longitude is empty"
    if _coordinate(row["latitude"], 90.0) is None or _coordinate(row["longitude"], 180.0) is None:
        return (
            "invalid_coordinates",
            "latitude must be in [-90, 90] and longitude in [-180, 180] degrees",
        )
    if not row["mag"].strip():
        return "missing_magnitude", "mag is empty"
    if decimal_lexical(row["mag"]) is None:
        return "invalid_magnitude", "mag is not a finite decimal number"
    if not row["time"].strip():
        return "missing_time", "time is empty"
    if not _valid_time(row["time"].strip()):
        return "invalid_time", "time is not an xsd:dateTime (YYYY-MM-DDThh:mm:ss[.s][Z|+hh:mm])"
    return None


def event_turtle(row: dict[str, str]) -> tuple[str, int]:
    """Turtle of one valid ComCat row (see the module docstring) and its number of observations."""
    eid = row["id"].strip()
    node = vocab.MGQA_USGS + eid + ":"
    lat, lon = _coordinate(row["latitude"], 90.0), _coordinate(row["longitude"], 180.0)
    mag, depth = decimal_lexical(row["mag"]), decimal_lexical(row["depth"])
    place = row["place"].strip()
    facts = [("magnitude", "magnitude", mag)]
    if depth is not None:
        facts.append(("depth", "depthKm", depth))
    event = iri_ref(event_iri(eid))
    text = block(
        event,
        [
            ("a", "mgqa:Earthquake"),
            ("rdfs:label", turtle_literal(f"M {mag} - {place}" if place else f"M {mag}")),
            ("geo:hasGeometry", iri_ref(node + "geometry")),
            ("time:hasTime", iri_ref(node + "time")),
            ("sosa:isFeatureOfInterestOf", iri_ref(node + "observations")),
        ],
    )
    text += geometry_block(node + "geometry", f"POINT({lon} {lat})")
    text += block(
        iri_ref(node + "time"),
        [
            ("a", "time:Instant"),
            ("time:inXSDDateTime", f"{turtle_literal(row['time'].strip())}^^xsd:dateTime"),
        ],
    )
    text += block(
        iri_ref(node + "observations"),
        [
            ("a", "sosa:ObservationCollection"),
            ("sosa:hasFeatureOfInterest", event),
            ("sosa:phenomenonTime", iri_ref(node + "time")),
            ("sosa:hasMember", ", ".join(iri_ref(node + suffix) for suffix, _, _ in facts)),
        ],
    )
    for suffix, prop, value in facts:
        text += block(
            iri_ref(node + suffix),
            [
                ("a", "sosa:Observation"),
                ("sosa:hasFeatureOfInterest", event),
                ("sosa:phenomenonTime", iri_ref(node + "time")),
                ("sosa:observedProperty", f"mgqa:{prop}"),
                ("sosa:hasSimpleResult", f"{turtle_literal(value)}^^xsd:decimal"),
            ],
        )
    return text, len(facts)


def build_usgs_events(earthquakes_csv: Path, out_ttl: Path) -> BuildReport:
    """Write the USGS event graph ``out_ttl`` (Turtle, UTF-8, atomically; bytes depend only on
    the input) from a ComCat CSV export.

    Returns the report: ``Earthquake`` (events written), ``Observation``, ``ObservableProperty``,
    ``earthquake_depth_missing``, and one skipped entry per row that was not written (reasons
    ``not_an_earthquake``, ``missing_id``, ``missing_coordinates``, ``invalid_coordinates``,
    ``missing_magnitude``, ``invalid_magnitude``, ``missing_time``, ``invalid_time``,
    ``duplicate_entity``). Raises ``ValueError`` if a required column is missing.
    """
    earthquakes_csv, out_ttl = Path(earthquakes_csv), Path(out_ttl)
    report = BuildReport()
    seen: set[str] = set()
    with atomic_path(out_ttl) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as out:
            write_prefixes(out)
            for name, label in OBSERVABLE_PROPERTIES.items():
                out.write(
                    block(
                        f"mgqa:{name}",
                        [("a", "sosa:ObservableProperty"), ("rdfs:label", turtle_literal(label))],
                    )
                )
                report.add("ObservableProperty")
            out.write("\n")
            for line, row in read_csv(earthquakes_csv, _COLUMNS):
                src = f"{earthquakes_csv.name}:{line}"
                payload = ",".join(
                    row.get(c, "")
                    for c in ("id", "time", "latitude", "longitude", "depth", "mag", "type")
                )
                if problem := _row_problem(row):
                    report.skip(problem[0], src, problem[1], payload)
                    continue
                eid = row["id"].strip()
                if eid in seen:
                    report.skip("duplicate_entity", src, "USGS event id already written", payload)
                    continue
                seen.add(eid)
                text, n_obs = event_turtle(row)
                out.write(text + "\n")
                report.add("Earthquake")
                report.add("Observation", n_obs)
                report.add("earthquake_depth_missing", n_obs == 1)
    return report


__all__ = ["OBSERVABLE_PROPERTIES", "build_usgs_events", "event_iri", "event_turtle"]
