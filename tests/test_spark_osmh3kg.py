"""The OSMH3KG build on Spark writes the DuckDB engine's file byte for byte: a tiny PBF with points,
lines, areas, a multipolygon and elements that cannot be features, closed area ways libosmium makes
no area of among them (quarantine rows equal, in the same order), and hand-made feature rows whose
geometry the builder refuses or repairs. Spark in local mode on one core; skipped where no ``java``
is on the PATH (Spark needs a JVM)."""

from __future__ import annotations

from pathlib import Path

import osmium
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mgqa_platform.kg import osmh3kg_build as build
from mgqa_platform.spark.osmh3kg import (
    CELLS_DATASET,
    FEATURES_DATASET,
    ROWS_DATASET,
    SparkOsmh3kg,
)
from mgqa_platform.spark.session import local_session
from tests import osm_elements as osm

pytestmark = pytest.mark.requires_tool("java")  # Spark needs a JVM

RES = 8
NODES = {
    1: (8.4580, 49.4875),
    2: (8.4650, 49.4870),
    3: (200.0, 10.0),  # outside the lon/lat range: no valid location
    10: (8.4400, 49.4800),
    11: (8.4700, 49.4810),
    12: (8.4900, 49.4950),
    20: (8.4300, 49.4600),
    21: (8.4600, 49.4600),
    22: (8.4600, 49.4800),
    23: (8.4300, 49.4800),
    30: (8.5000, 49.5000),
    31: (8.5100, 49.5100),
    32: (8.5100, 49.5000),
    33: (8.5000, 49.5100),
}


def write_pbf(path):
    """A sorted PBF: two tagged nodes and one with a bad location, a road, a park, a multipolygon,
    an unclosed boundary way, a way with a missing node, a way of one repeated node, a bowtie area,
    closed area ways libosmium assembles no area of (a degenerate ring, a ring with a missing node),
    an incomplete boundary relation and a route relation."""
    header = osmium.io.Header()
    header.set("osmosis_replication_timestamp", "2024-01-01T08:00:00Z")
    w = osmium.SimpleWriter(str(path), header=header, overwrite=True)
    tags = {
        1: {"amenity": "university", "name": "Uni", "source": "survey", "fixme": "f"},
        2: {"man_made": "x_y", "name": "XY"},
        3: {"amenity": "bench"},
    }
    try:
        for nid, loc in NODES.items():
            w.add_node(osm.node(nid, loc, tags.get(nid, {})))
        ways = [
            (100, [10, 11, 12], {"highway": "residential", "name": "B Street"}),
            (101, [20, 21, 22, 23, 20], {"leisure": "park", "name": "Park", "area": "yes"}),
            (102, [30, 32, 31, 33, 30], {}),
            (103, [10, 20], {"boundary": "administrative"}),
            (104, [11, 999], {"highway": "service"}),
            (105, [12, 12], {"highway": "track"}),
            (106, [30, 31, 32, 33, 30], {"landuse": "grass", "name": "Bowtie"}),
            (107, [20, 21, 20], {"building": "yes", "name": "Sliver"}),
            (108, [20, 21, 997, 23, 20], {"amenity": "parking"}),
        ]
        for wid, nodes, wtags in ways:
            w.add_way(osm.way(wid, nodes, wtags))
        relations = [
            (200, [("w", 102, "outer")], {"type": "multipolygon", "landuse": "forest"}),
            (201, [("w", 998, "outer")], {"type": "boundary", "boundary": "administrative"}),
            (202, [("w", 100, "")], {"type": "route", "route": "bus", "name": "Linha 1"}),
        ]
        for rid, members, rtags in relations:
            w.add_relation(osm.relation(rid, members, rtags))
    finally:
        w.close()
    return path


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    session = local_session("local[1]", tmp_path_factory.mktemp("spark-scratch"))
    yield session
    session.stop()


def test_spark_build_writes_the_duckdb_file(spark, tmp_path):
    pbf = write_pbf(tmp_path / "h.osm.pbf")
    stage = SparkOsmh3kg(spark, tmp_path / "datasets", partitions=3)
    duck = build.build_osmh3kg(pbf, tmp_path / "duck.parquet", h3_res=RES)
    spk = build.build_osmh3kg(pbf, tmp_path / "kg.parquet", h3_res=RES, stage=stage)

    assert (tmp_path / "kg.parquet").read_bytes() == (tmp_path / "duck.parquet").read_bytes()
    assert spk.counts == duck.counts
    assert spk.skipped == duck.skipped  # the quarantine rows, in the same order
    assert {s["reason"] for s in spk.skipped} == {
        "invalid_location",
        "boundary_segment",
        "way_geometry_failed",
        "area_geometry_failed",
        "area_not_assembled",
        "relation_incomplete",
        "relation_type_unsupported",
    }
    assert [s["source"] for s in spk.skipped if s["reason"] == "area_not_assembled"] == [
        "way/107",
        "way/108",
    ]
    assert {k: spk.counts[k] for k in ("entities_point", "entities_line", "entities_polygon")} == {
        "entities_point": 2,
        "entities_line": 1,
        "entities_polygon": 2,
    }
    assert spk.counts["rows_hcf:isAdjacentTo"] > 0 and spk.counts["h3_cells"] > 1

    # the datasets: the GDAL-like feature table, the records and cell rows of each Spark task
    features = pq.read_table(stage.folder(FEATURES_DATASET, "kg"))
    assert features.schema == build.ELEMENTS_ARROW
    assert features.column("seq").to_pylist() == list(range(features.num_rows))
    for dataset in (ROWS_DATASET, CELLS_DATASET):
        files = sorted(stage.folder(dataset, "kg").glob("*.parquet"))
        assert files and all(f.name.startswith("part-") for f in files)
        for f in files:
            keys = pq.read_table(f, columns=["seq", "pos", "object"]).to_pylist()
            assert keys == sorted(keys, key=lambda r: (r["seq"], r["pos"], r["object"]))


def element(seq: int, subject: str, wkt: str, **tags: str) -> dict:
    return {
        "seq": seq,
        "subject": subject,
        "tag_keys": sorted(tags),
        "tag_values": [tags[k] for k in sorted(tags)],
        "wkt": wkt,
        "skip_reason": None,
        "skip_detail": None,
    }


def test_refused_and_repaired_geometries_give_the_same_records(spark, tmp_path):
    """Feature rows as another GDAL export could hold them: the records of both engines are equal,
    the refused ones ``skip`` records with the reason and the WKT."""
    rows = [
        element(0, "node/1", "POINT(8.458 49.4875)", amenity="cafe", name="A"),
        element(1, "way/2", "LINESTRING(8.44 49.48, 8.47 49.481", highway="residential"),
        element(2, "way/3", "POLYGON EMPTY", leisure="park"),
        element(3, "node/4", "POINT(190 10)", amenity="bench"),
        element(
            4, "way/5", "POLYGON((8.43 49.46, 8.46 49.48, 8.46 49.46, 8.43 49.48, 8.43 49.46))"
        ),
        element(5, "way/6", "GEOMETRYCOLLECTION(POINT(8.45 49.47))", amenity="cafe"),
    ]
    elements = pa.Table.from_pylist(rows, schema=build.ELEMENTS_ARROW)
    stage = SparkOsmh3kg(spark, tmp_path / "datasets", partitions=2)

    expected = pa.concat_tables(build.in_process_rows(iter([elements]), RES))
    got = pa.concat_tables(stage(iter([elements]), RES, "hand"))
    assert got.to_pylist() == expected.to_pylist()
    skips = {r["subject"]: r["predicate"] for r in got.to_pylist() if r["record"] == build.SKIP}
    assert skips == {
        "way/2": "invalid_wkt",
        "way/3": "empty_geometry",
        "node/4": "out_of_range",
        "way/6": "unsupported_geometry",
    }
    entities = {r["subject"] for r in got.to_pylist() if r["record"] == build.ENTITY}
    assert entities == {"node/1", "way/5"}  # the bowtie repaired

    nothing = pa.concat_tables(stage(iter([]), RES, "empty"))
    assert nothing.num_rows == 0


def test_kg_native_builds_osmh3kg_on_the_configured_engine(spark, tmp_path):
    """``MGQA_ENGINE=spark``: the ``kg_native[osmh3kg]`` asset builds through the Spark stage
    (its datasets appear under ``$MGQA_HOME/datasets``) and records the DuckDB engine's file."""
    import dagster as dg

    from mgqa_dagster import definitions
    from mgqa_dagster.resources.engine import EngineResource
    from mgqa_dagster.resources.paths import PathsResource
    from mgqa_dagster.resources.sources import InputsResource
    from mgqa_platform import warehouse
    from mgqa_platform.snapshots import describe_osm_pbf

    watch = tmp_path / "watch"
    watch.mkdir()
    pbf = write_pbf(watch / "town-2024-01.osm.pbf")
    snapshot_id = describe_osm_pbf(pbf).snapshot_id
    recorded = {}
    for engine in ("duckdb", "spark"):
        home = tmp_path / engine
        paths = PathsResource(home=str(home))
        resources = definitions.build_resources(
            paths=paths,
            inputs=InputsResource(osm_watch_dir=str(watch), osmh3kg_h3_resolution=RES),
            engine=EngineResource(engine=engine, spark_master="local[1]", paths=paths),
        )
        defs = dg.Definitions(
            assets=definitions.ALL_ASSETS, jobs=[definitions.intake_job], resources=resources
        )
        with dg.instance_for_test() as instance:
            instance.add_dynamic_partitions("osm_snapshot", [snapshot_id])
            registered = defs.resolve_job_def("register_osm_snapshot").execute_in_process(
                instance=instance, partition_key=snapshot_id, raise_on_error=False
            )
            assert registered.success
            result = dg.materialize(
                definitions.ALL_ASSETS,
                selection=dg.AssetSelection.assets("kg_native"),
                partition_key="osmh3kg",
                resources=resources,
                instance=instance,
            )
        assert result.success, engine
        with warehouse.session(home / "warehouse.duckdb", read_only=True) as con:
            sha, path = con.execute(
                "SELECT sha256, path FROM kg_files WHERE kg = 'osmh3kg'"
            ).fetchone()
            quarantine = con.execute(
                "SELECT * FROM quarantine WHERE kg = 'osmh3kg' ORDER BY ALL"
            ).fetchall()
        recorded[engine] = (sha, Path(path).name, quarantine)
        spark_datasets = sorted(p.name for p in (home / "datasets").glob("*"))
        assert spark_datasets == (
            [] if engine == "duckdb" else sorted((FEATURES_DATASET, ROWS_DATASET, CELLS_DATASET))
        )
    assert recorded["spark"] == recorded["duckdb"]
