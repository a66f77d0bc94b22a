"""IRIs and prefixes of the three native KG formats (docs/data_model.md). Strings only, no logic."""

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
RDFS_LABEL = RDFS + "label"
RDFS_SUBCLASS = RDFS + "subClassOf"
XSD = "http://www.w3.org/2001/XMLSchema#"
GEO = "http://www.opengis.net/ont/geosparql#"
GEO_AS_WKT = GEO + "asWKT"
GEO_HAS_GEOMETRY = GEO + "hasGeometry"
GEO_WKT_LITERAL = GEO + "wktLiteral"
SF = "http://www.opengis.net/ont/sf#"
TIME = "http://www.w3.org/2006/time#"
SOSA = "http://www.w3.org/ns/sosa/"
CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
_W3C_PREFIXES = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": RDFS,
    "xsd": XSD,
    "geo": GEO,
}

# WorldKG
WKG = "http://www.worldkg.org/resource/"
WKGS = "http://www.worldkg.org/schema/"
OSM_NODE = "https://www.openstreetmap.org/node/"  # object of wkgs:osmLink (an IRI)
WIKIDATA_PAGE = "http://www.wikidata.org/wiki/"  # object of wkgs:wikidata (an IRI): page + Q-id
WKG_PREFIXES = {**_W3C_PREFIXES, "sf": SF, "wkg": WKG, "wkgs": WKGS}

# KnowWhereGraph (docs/kg_fidelity.md (KnowWhereGraph))
KWGR = "http://stko-kwg.geog.ucsb.edu/lod/resource/"
KWG_ONT = "http://stko-kwg.geog.ucsb.edu/lod/ontology/"
USGS_ONT = "http://gnis-ld.org/lod/usgs/ontology/"
GNIS = "http://gnis-ld.org/lod/gnis/feature/"
GNIS_GEOM = "http://gnis-ld.org/geometry/point/"
GEO_HAS_DEFAULT_GEOMETRY = GEO + "hasDefaultGeometry"
KWG_S2_CELL = KWGR + "s2.level"
"""IRI prefix of KnowWhereGraph's S2 cells (``kwgr:s2.level13.<id>``): grid cells, never regions."""
TIME_HAS_TIME = TIME + "hasTime"
MGQA_ONT = "urn:mgqa:ontology:"
"""Our own classes and properties, for what the real KnowWhereGraph lacks (docs/decisions.md)."""
MGQA_KWG = "urn:mgqa:kwg:"
"""Our IRIs of KWG-shaped resources whose real KWG IRI the bundled query results do not give."""
USGS_EVENT = "https://earthquake.usgs.gov/earthquakes/eventpage/"
"""USGS ComCat event pages: the IRI of an event of the USGS catalog is its page."""
MGQA_USGS = "urn:mgqa:usgs:"
"""Our IRIs of the nodes (geometry, time, observations) of a USGS catalog event."""
KWG_PREFIXES = {
    **_W3C_PREFIXES,
    "time": TIME,
    "sosa": SOSA,
    "kwgr": KWGR,
    "kwg-ont": KWG_ONT,
    "usgs": USGS_ONT,
    "mgqa": MGQA_ONT,
}
KWG_OBSERVED_ATTRIBUTES = {
    KWGR + "EarthquakeObservableProperty.mag": "magnitude",
    KWGR + "earthquakeObservableProperty.mag": "magnitude",
    KWGR + "EarthquakeObservableProperty.depth": "depthKm",
    KWGR + "earthquakeObservableProperty.depth": "depthKm",
    KWGR + "mtbsFireObservableProperty.NumberOfAcresBurned": "acresBurned",
    KWGR + "nifcFireObservableProperty.calculatedAcres": "acresBurned",
    MGQA_ONT + "magnitude": "magnitude",
    MGQA_ONT + "depthKm": "depthKm",
}
"""Observed-property IRI -> the entity attribute its ``sosa:hasSimpleResult`` becomes (magnitude;
depth in km below sea level, positive down; burned area in acres). Other properties keep their
IRI's local name."""

# OSMH3KG (MartinBoeckling/stkg_construction): CURIE-like strings in a ``subject, predicate, object,
# date`` table, as the published KG writes them. Subjects: OSM features (ours ``node/<id>``;
# published bare ids), bare H3 cell indexes, geometry nodes ``geo<feature>`` / ``geoH3<cell>``,
# class values.
OSMH3_TYPE = "rdf:type"
OSMH3_SUBCLASS = "rdfs:subClassOf"
OSMH3_HAS_GEOMETRY = "geo:hasGeometry"
OSMH3_AS_WKT = "geo:asWKT"
OSMH3_SF_INTERSECTS = "geo:sfIntersects"
OSMH3_SF_CONTAINS = "geo:sfContains"
OSMH3_SF_WITHIN = "geo:sfWithin"
OSMH3_SF_OVERLAPS = "geo:sfOverlaps"
OSMH3_SF_CROSSES = "geo:sfCrosses"
OSMH3_SF_TOUCHES = "geo:sfTouches"
OSMH3_SF_EQUALS = "geo:sfEquals"
OSMH3_EH_COVERS = "geo:ehCovers"
OSMH3_EH_COVERED_BY = "geo:ehCoveredBy"
OSMH3_ADJACENT = "hcf:isAdjacentTo"
OSMH3_GEOMETRY_PREFIX = "geo"  # geometry node of a feature: "geo" + subject
OSMH3_CELL_GEOMETRY_PREFIX = "geoH3"  # geometry node of a cell: "geoH3" + cell index
