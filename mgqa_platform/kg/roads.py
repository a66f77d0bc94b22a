"""Whole roads: the pieces of one road in a KG become one road entity (a step of KG conversion).

A KG stores a road in pieces: OSM ways (WorldKG, OSMH3KG) or KnowWhereGraph road segments
(``kwg-ont:RoadSegment``). Conversion merges two line entities of a road category
(:data:`mgqa_platform.lexicon.ROAD_CATEGORIES`) when both hold:

* **same road identity**: a common normalized name (:func:`identity`: case-folded, whitespace
  collapsed) among each piece's names (its entity name, its ``name`` label and its ``name:<lang>``
  labels, e.g. a bilingual ``name`` on one piece and the same ``name:fr`` on the next), or the same
  normalized ``ref`` (the OSM ``ref`` tag; in KnowWhereGraph the segment's ``kwg-ont:hasRoadSign``,
  :data:`mgqa_platform.kg.profiles.KWG`);
* **connected**: their geometries come within :data:`TOLERANCE_M` metres of each other (they share
  an endpoint, touch or cross).

Each connected component of two or more pieces becomes one road; a piece with no such neighbour
stays the entity it was, so two same-name roads far apart stay two roads. In a KG that names its
roads by US route signs (:attr:`mgqa_platform.kg.profiles.Profile.route_signs`, KnowWhereGraph)
the pieces of one route are one road whether they connect or not: a route sign names one road
("State Route 166"), and gaps between the crawled segments are gaps in the data. A road:

* ``entity_id`` ``<kg>:road/<smallest part local id>`` (sorted as strings), stable across runs;
* ``iri`` ``urn:mgqa:road:<entity_id>``: the road is not a resource of the KG; its derived
  statements (:func:`road_triples`) use that subject;
* geometry: the union of the parts, line-merged where they join (a LineString, else a
  MultiLineString; EPSG:4326, x = lon, y = lat); representative point, H3 cells and ``geom_kind``
  from :func:`mgqa_platform.kg.convert.geometry_columns`, as for any converted line;
* ``name`` and ``category``: those carrying the longest share of WGS84 geodesic length (ties: the
  smaller string); ``types``: the union of the parts' types; subject, context, image, wikidata and
  attributes from the *main part* (the longest part carrying the road's name, ties: the smaller id),
  plus the attribute ``road_parts`` (number of parts).

The parts stop being entities. ``new_parts(entity_id, part_entity_id, part_subject)`` lists them
(the warehouse table ``entity_parts``); conversion cites every part's source triples for the road.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa
import shapely
from pyproj import Geod

from mgqa_platform.columns import arrow_schema
from mgqa_platform.lexicon import ROAD_CATEGORIES
from mgqa_platform.warehouse import registered

#: Two pieces are connected when their geometries are at most this many metres apart. Tested in
#: degrees as ``TOLERANCE_M / METRES_PER_DEGREE`` (one metre of latitude); east-west the same angle
#: spans cos(lat) times fewer metres, so the tolerance is never more than 1 m.
TOLERANCE_M = 1.0
METRES_PER_DEGREE = 111_320.0
ROAD_IRI_PREFIX = "urn:mgqa:road:"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
GEO_AS_WKT = "http://www.opengis.net/ont/geosparql#asWKT"
DCT_HAS_PART = "http://purl.org/dc/terms/hasPart"
_GEOD = Geod(ellps="WGS84")

PARTS_ARROW = arrow_schema("entity_id VARCHAR, part_entity_id VARCHAR, part_subject VARCHAR")
ROAD_FACTS_ARROW = arrow_schema("entity_id VARCHAR, s VARCHAR, p VARCHAR, o VARCHAR")


@dataclass(frozen=True)
class Part:
    """One road piece: entity id, subject, name, ``ref`` (or None), category, types, geometry
    (shapely, EPSG:4326, x = lon, y = lat), attributes (JSON text or None) and its other names
    (``name`` and ``name:<lang>`` labels)."""

    entity_id: str
    subject: str
    name: str
    ref: str | None
    category: str
    types: tuple[str, ...]
    geom: shapely.Geometry
    attributes: str | None = None
    other_names: tuple[str, ...] = ()

    def identities(self) -> set[str]:
        """The normalized forms of all the piece's names."""
        return {n for n in map(identity, (self.name, *self.other_names)) if n}


@dataclass(frozen=True)
class Road:
    """A merged road: its id, main part id, name, category, types, merged geometry (EPSG:4326,
    x = lon, y = lat), attributes (JSON text) and parts (sorted by entity id)."""

    entity_id: str
    main_part: str
    name: str
    category: str
    types: tuple[str, ...]
    geom: shapely.Geometry
    attributes: str
    parts: tuple[Part, ...]


def identity(text: str | None) -> str | None:
    """Normalized road identity of a name or ref: case-folded, inner whitespace collapsed; None if
    empty."""
    if text is None:
        return None
    norm = " ".join(text.split()).casefold()
    return norm or None


def geodesic_length_m(g: shapely.Geometry) -> float:
    """WGS84 geodesic length in metres of a lon/lat (EPSG:4326) line or multi-line."""
    return float(_GEOD.geometry_length(g))


def components(
    parts: list[Part], tolerance_m: float = TOLERANCE_M, route_signs: bool = False
) -> list[list[int]]:
    """Connected components (lists of indices into ``parts``, each of two or more, sorted) of the
    relation "a common name or the same ref, and at most ``tolerance_m`` metres apart"; with
    ``route_signs``, pieces with the same ref are one road at any distance."""
    if len(parts) < 2:
        return []
    parent = list(range(len(parts)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    names = [p.identities() for p in parts]
    refs = [identity(p.ref) for p in parts]
    geoms = np.array([p.geom for p in parts], dtype=object)
    tree = shapely.STRtree(geoms)
    left, right = tree.query(geoms, predicate="dwithin", distance=tolerance_m / METRES_PER_DEGREE)
    for i, j in zip(left.tolist(), right.tolist(), strict=True):
        same = bool(names[i] & names[j]) or (refs[i] is not None and refs[i] == refs[j])
        if i < j and same:
            parent[root(j)] = root(i)
    if route_signs:
        first_of_ref: dict[str, int] = {}
        for i, ref in enumerate(refs):
            if ref is not None:
                parent[root(i)] = root(first_of_ref.setdefault(ref, i))
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(parts)):
        groups[root(i)].append(i)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


def _longest_share(values: list[str], lengths: list[float]) -> str:
    total: dict[str, float] = defaultdict(float)
    for v, n in zip(values, lengths, strict=True):
        total[v] += n
    return min(total, key=lambda v: (-total[v], v))


def assemble(kg: str, parts: list[Part]) -> Road:
    """The road made of ``parts`` (one connected component), by the rules of the module
    docstring."""
    lengths = [geodesic_length_m(p.geom) for p in parts]
    name = _longest_share([p.name for p in parts], lengths)
    category = _longest_share([p.category for p in parts], lengths)
    main = min(
        ((-n, p.entity_id, p) for p, n in zip(parts, lengths, strict=True) if p.name == name),
        key=lambda x: x[:2],
    )[2]
    attributes = json.loads(main.attributes or "{}") | {"road_parts": len(parts)}
    smallest = min(p.entity_id.split(":", 1)[1] for p in parts)
    merged = shapely.line_merge(shapely.union_all([p.geom for p in parts]))
    return Road(
        entity_id=f"{kg}:road/{smallest}",
        main_part=main.entity_id,
        name=name,
        category=category,
        types=tuple(sorted({t for p in parts for t in p.types})),
        geom=merged,
        attributes=json.dumps(attributes, sort_keys=True, ensure_ascii=False),
        parts=tuple(sorted(parts, key=lambda p: p.entity_id)),
    )


def road_triples(road: Road) -> list[tuple[str, str, str]]:
    """Derived statements of a road under its own subject (``urn:mgqa:road:<entity_id>``): its name
    (``rdfs:label``), its merged geometry (``geo:asWKT``, lon/lat EPSG:4326) and its parts
    (``dcterms:hasPart`` -> each part's subject). The parts' type and part-of triples are added
    in SQL (:data:`SHARED_PART_TRIPLES_SQL`)."""
    s = ROAD_IRI_PREFIX + road.entity_id
    return [
        (s, RDFS_LABEL, road.name),
        (s, GEO_AS_WKT, shapely.to_wkt(road.geom, rounding_precision=-1)),
        *((s, DCT_HAS_PART, p.subject) for p in road.parts),
    ]


#: Type triples of any part, and part-of triples (``sfWithin`` / ``administrativePartOf``) that
#: every part states, restated for the road's subject: the road is of its parts' types, and lies
#: within a region when each of its parts does.
SHARED_PART_TRIPLES_SQL = f"""
WITH part_triples AS (
    SELECT
        p.entity_id,
        t.p,
        t.o,
        count(DISTINCT p.part_subject) AS n_parts_stating
    FROM new_parts p
    JOIN stage t ON t.s = p.part_subject
    WHERE t.p LIKE '%rdf-syntax-ns#type'
        OR t.p = 'rdf:type'
        OR t.p LIKE '%/sfWithin'
        OR t.p LIKE '%/administrativePartOf'
    GROUP BY p.entity_id, t.p, t.o
),
sizes AS (
    SELECT
        entity_id,
        count(*) AS n_parts
    FROM new_parts
    GROUP BY entity_id
)
SELECT
    t.entity_id,
    '{ROAD_IRI_PREFIX}' || t.entity_id AS s,
    t.p,
    t.o
FROM part_triples t
JOIN sizes USING (entity_id)
WHERE t.p LIKE '%rdf-syntax-ns#type'
    OR t.p = 'rdf:type'
    OR t.n_parts_stating = sizes.n_parts
"""

_PARTS_SQL = f"""
SELECT
    e.entity_id,
    e.subject,
    e.name,
    f.ref,
    f.names,
    e.category,
    e.types,
    e.wkb,
    e.attributes
FROM new_entities e
LEFT JOIN (
    SELECT
        s,
        min(v) FILTER (WHERE k = 'ref') AS ref,
        list(v ORDER BY k, v) FILTER (WHERE k <> 'ref') AS names
    FROM facts
    WHERE k = 'ref'
        OR k = 'name'
        OR regexp_full_match(k, 'name:[a-z]{{2,3}}')
    GROUP BY s
) f ON f.s = e.subject
WHERE e.geom_kind = 'line'
    AND e.category IN ({", ".join(f"'{c}'" for c in ROAD_CATEGORIES)})
ORDER BY e.entity_id
"""


def read_parts(con: duckdb.DuckDBPyConnection) -> list[Part]:
    """The road pieces of the conversion temp table ``new_entities`` (with ``facts`` for ``ref`` and
    the ``name`` / ``name:<lang>`` labels)."""
    out = []
    for eid, subject, name, ref, names, category, types, wkb, attrs in con.execute(
        _PARTS_SQL
    ).fetchall():
        geom = shapely.from_wkb(wkb)
        others = tuple(names or ())
        out.append(Part(eid, subject, name, ref, category, tuple(types or ()), geom, attrs, others))
    return out


def merge_roads(
    con: duckdb.DuckDBPyConnection,
    kg: str,
    geometry_columns: Callable[[np.ndarray], dict[str, pa.Array]],
    route_signs: bool = False,
) -> None:
    """Replace, in the conversion temp table ``new_entities``, each connected road's pieces by one
    road row; create the temp tables ``new_parts`` (road -> parts) and ``new_road_triples`` (the
    roads' derived statements). Needs the conversion temp tables ``facts`` and ``stage``.

    ``geometry_columns`` computes the geometry columns of entity rows from shapely geometries
    (:func:`mgqa_platform.kg.convert.geometry_columns`); ``route_signs``: the KG names roads by
    route signs, whose pieces are one road at any distance (:func:`components`)."""
    parts = read_parts(con)
    groups = components(parts, route_signs=route_signs)
    roads = [assemble(kg, [parts[i] for i in group]) for group in groups]
    roads.sort(key=lambda r: r.entity_id)
    part_rows = [(r.entity_id, p.entity_id, p.subject) for r in roads for p in r.parts]
    new_parts = pa.Table.from_pylist(
        [dict(zip(PARTS_ARROW.names, row, strict=True)) for row in part_rows], schema=PARTS_ARROW
    )
    own = [(r.entity_id, *t) for r in roads for t in road_triples(r)]
    road_facts = pa.Table.from_pylist(
        [dict(zip(ROAD_FACTS_ARROW.names, row, strict=True)) for row in own],
        schema=ROAD_FACTS_ARROW,
    )
    merged = pa.table(
        {
            "entity_id": pa.array([r.entity_id for r in roads], pa.string()),
            "main_part": pa.array([r.main_part for r in roads], pa.string()),
            "iri": pa.array([ROAD_IRI_PREFIX + r.entity_id for r in roads], pa.string()),
            "name": pa.array([r.name for r in roads], pa.string()),
            "category": pa.array([r.category for r in roads], pa.string()),
            "types": pa.array([list(r.types) for r in roads], pa.list_(pa.string())),
            "attributes": pa.array([r.attributes for r in roads], pa.string()),
            **geometry_columns(np.array([r.geom for r in roads], dtype=object)),
        }
    )
    with registered(con, _parts=new_parts, _road_facts=road_facts, _merged=merged):
        con.execute(
            """
            CREATE OR REPLACE TEMP TABLE new_parts AS
            SELECT *
            FROM _parts
            ORDER BY entity_id, part_entity_id
            """
        )
        con.execute(
            """
            INSERT INTO new_entities BY NAME
            SELECT
                m.* EXCLUDE (
                    entity_id, iri, name, category, types, wkb, geom_kind, lon, lat, h3, attributes
                ),
                r.* EXCLUDE (main_part)
            FROM _merged r
            JOIN new_entities m ON m.entity_id = r.main_part
            """
        )
        con.execute(
            f"""
            CREATE OR REPLACE TEMP TABLE new_road_triples AS
            SELECT *
            FROM _road_facts
            UNION ALL
            SELECT *
            FROM ({SHARED_PART_TRIPLES_SQL})
            """
        )
    con.execute(
        """
        DELETE FROM new_entities
        WHERE entity_id IN (
            SELECT part_entity_id
            FROM new_parts
        )
        """
    )


__all__ = [
    "TOLERANCE_M",
    "Part",
    "Road",
    "assemble",
    "components",
    "geodesic_length_m",
    "identity",
    "merge_roads",
    "road_triples",
]
