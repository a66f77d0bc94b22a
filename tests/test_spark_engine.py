"""The Spark engine gives the rows of the DuckDB engine: KG conversion (entities, labels, source
triples, quarantine) and the strata join (country, density tier, stratum), on tiny fixtures, with
Spark in local mode on one core. Skipped where no ``java`` is on the PATH (Spark needs a JVM)."""

from __future__ import annotations

import h3
import pyarrow.parquet as pq
import pytest

from mgqa_platform import warehouse
from mgqa_platform.kg.convert import convert_kg
from mgqa_platform.kg.osmh3kg_build import build_osmh3kg
from mgqa_platform.kg.worldkg_build import build_worldkg
from mgqa_platform.settings import SAMPLE_DIR
from mgqa_platform.spark import geoparquet
from mgqa_platform.spark.convert import ENTITIES_DATASET, SparkConversion
from mgqa_platform.spark.session import local_session
from mgqa_platform.spark.strata import SparkStrata
from mgqa_platform.strata import countries, income, strata
from tests.conftest import write_tiny_pbf

pytestmark = pytest.mark.requires_tool("java")  # Spark needs a JVM

#: A WorldKG file with every kind of rejection next to good rows, and points at sea: near a coast
#: (nearest country), far from any (unassigned), on a border (the smallest iso3).
EXTRA_TTL = """@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix geo: <http://www.opengis.net/ont/geosparql#> .
@prefix wkg: <http://www.worldkg.org/resource/> .
@prefix wkgs: <http://www.worldkg.org/schema/> .
wkg:11 a wkgs:Pharmacy ; rdfs:label "Off Dakar" ; wkgs:spatialObject wkg:geo11 .
wkg:geo11 geo:asWKT "POINT(-17.55 14.69)"^^geo:wktLiteral .
wkg:12 a wkgs:Cafe ; rdfs:label "Mid Atlantic" ; wkgs:spatialObject wkg:geo12 .
wkg:geo12 geo:asWKT "POINT(-30 30)"^^geo:wktLiteral .
wkg:13 a wkgs:Park ; rdfs:label "Bowtie" ; wkgs:spatialObject wkg:geo13 .
wkg:geo13 geo:asWKT "POLYGON((2 48, 3 49, 3 48, 2 49, 2 48))"^^geo:wktLiteral .
wkg:14 a wkgs:Cafe ; wkgs:spatialObject wkg:geo14 .
wkg:geo14 geo:asWKT "POINT(2.35 48.86)"^^geo:wktLiteral .
wkg:15 a wkgs:Cafe ; rdfs:label "Nowhere" .
wkg:16 a wkgs:Cafe ; rdfs:label "Far out" ; wkgs:spatialObject wkg:geo16 .
wkg:geo16 geo:asWKT "POINT(200 95)"^^geo:wktLiteral .
wkg:17 a wkgs:Cafe ; rdfs:label "Twice" ; wkgs:spatialObject wkg:geo17 , wkg:geo17b .
wkg:geo17 geo:asWKT "POINT(1 1)"^^geo:wktLiteral .
wkg:geo17b geo:asWKT "POINT(2 2)"^^geo:wktLiteral .
wkg:18 a wkgs:Museum ; rdfs:label "Helsinki museum" ; wkgs:spatialObject wkg:geo18 .
wkg:geo18 geo:asWKT "LINESTRING(24.90 60.16, 24.95 60.18)"^^geo:wktLiteral .
wkg:19 a wkgs:Cafe ; rdfs:label "Paris" ; wkgs:spatialObject wkg:geo19 .
wkg:geo19 geo:asWKT "MULTIPOINT((2.35 48.86), (2.36 48.87))"^^geo:wktLiteral .
"""
TABLES = {
    "entities": "SELECT * EXCLUDE (geometry), ST_AsWKB(geometry) AS wkb FROM entities",
    "entity_labels": "SELECT * FROM entity_labels",
    "entity_triples": "SELECT * FROM entity_triples",
    "entity_parts": "SELECT * FROM entity_parts",
    "quarantine": "SELECT * FROM quarantine",
}


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    session = local_session("local[1]", tmp_path_factory.mktemp("spark-scratch"))
    yield session
    session.stop()


@pytest.fixture(scope="module")
def kg_files(tmp_path_factory) -> dict[str, list]:
    """Native files per KG: WorldKG and OSMH3KG built from a tiny PBF, and the hand-made WorldKG
    file of :data:`EXTRA_TTL`."""
    d = tmp_path_factory.mktemp("kgs")
    pbf = write_tiny_pbf(d / "tiny.osm.pbf")
    build_worldkg(pbf, d / "wkg.ttl")
    build_osmh3kg(pbf, d / "osmh3kg.parquet", fallback_date="2026-11-01")
    (d / "extra.ttl").write_text(EXTRA_TTL, encoding="utf-8")
    return {"worldkg": [d / "wkg.ttl", d / "extra.ttl"], "osmh3kg": [d / "osmh3kg.parquet"]}


@pytest.fixture(scope="module")
def reference():
    """Countries with income tiers (Natural Earth 1:50m, World Bank FY2026)."""
    return countries.load_countries(), income.load_income(
        SAMPLE_DIR / "worldbank" / "wb_income_fy2026.csv"
    )


def fresh(reference):
    c = warehouse.connect(None)
    warehouse.ensure_schema(c)
    countries.write_countries(c, *reference, "previous", None)
    return c


def dump(con, sql: str) -> list[tuple]:
    """The rows of ``sql``, sorted (NULLs first) so that row order does not matter."""
    return sorted(con.execute(sql).fetchall(), key=lambda r: tuple((v is not None, v) for v in r))


def density_cells(con) -> None:
    """Density tiers for the resolution-3 cells of half the entities (the rest have none)."""
    cells = [r[0] for r in con.execute("SELECT DISTINCT h3[1] FROM entities ORDER BY 1").fetchall()]
    for i, cell in enumerate(cells[::2]):
        con.execute(
            "INSERT INTO density_cells VALUES (?, ?, 1, 10.0, ?, ?)",
            [cell, 100.0 * i, 10.0 * i, ("low", "medium", "high")[i % 3]],
        )


def test_spark_conversion_and_strata_give_the_duckdb_rows(spark, kg_files, reference, tmp_path):
    cons = {"duckdb": fresh(reference), "spark": fresh(reference)}
    stage = SparkConversion(spark, tmp_path / "datasets", partitions=3)
    for kg, paths in kg_files.items():
        for path in paths:
            for engine, con in cons.items():
                convert_kg(
                    con,
                    kg,
                    path,
                    f"snap-{path.stem}",
                    scratch_dir=tmp_path / "scratch",
                    accept=stage if engine == "spark" else None,
                )
            for table, sql in TABLES.items():
                duck, spk = (dump(c, sql) for c in cons.values())
                assert duck == spk, f"{kg} {path.name}: {table} differs"
    rejected = {r[0] for r in cons["spark"].execute("SELECT reason FROM quarantine").fetchall()}
    assert {"missing_name", "missing_geometry", "duplicate_id"} <= rejected

    # the dataset: Hive partitions kg= / h3_r0=, GeoParquet metadata, read back by DuckDB
    root = stage.root
    assert root == tmp_path / "datasets" / ENTITIES_DATASET
    files = geoparquet.files(root, "kg", "osmh3kg")
    assert files and all(f.parent.name.startswith("h3_r0=") for f in files)
    for f in files:
        cell = f.parent.name.split("=", 1)[1]
        assert h3.get_resolution(cell) == 0
        geo = pq.read_schema(f).metadata[b"geo"]
        assert b'"primary_column": "wkb"' in geo and b'"encoding": "WKB"' in geo
        lat = pq.read_table(f, columns=["lat"]).column("lat").to_pylist()
        assert lat and all(-90 <= v <= 90 for v in lat)

    # the strata join on both engines
    strata_spark = SparkStrata(spark, tmp_path / "datasets", tmp_path / "scratch", partitions=3)
    for con in cons.values():
        density_cells(con)
    for kg in kg_files:
        duck, spk = cons["duckdb"], cons["spark"]
        expected = (
            countries.assign_countries(duck, 25.0, kg=kg),
            strata.assign_density(duck, kg),
            strata.assign_strata(duck, kg),
        )
        got = (
            strata_spark.assign_countries(spk, 25.0, kg),
            strata_spark.assign_density(spk, kg),
            strata_spark.assign_strata(spk, kg),
        )
        assert got == expected, kg
    for table in ("entity_country", "entity_density", "entity_strata"):
        duck, spk = (dump(c, f"SELECT * FROM {table}") for c in cons.values())
        assert duck == spk, f"{table} differs"
    methods = {r[0] for r in cons["spark"].execute("SELECT method FROM entity_country").fetchall()}
    assert methods == {"within", "nearest", "unassigned"}
    tiers = cons["spark"].execute(
        "SELECT count(DISTINCT coalesce(stratum, '-')) FROM entity_strata"
    )
    assert tiers.fetchone()[0] > 1
