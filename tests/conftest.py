"""Shared fixtures: tiny real OSM files written with pyosmium, and throwaway warehouses."""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path

import osmium
import pyoxigraph
import pytest

from mgqa_platform import warehouse
from mgqa_platform.kg.kwg_fixture import build_kwg_fixture
from mgqa_platform.kg.usgs_events import build_usgs_events
from mgqa_platform.kg.worldkg_build import BuildReport
from mgqa_platform.settings import SAMPLE_DIR
from tests import osm_elements as osm

pytest_plugins = ["pytester"]

#: The system tools the product runs, each with the command that installs it (Debian, Ubuntu).
#: A test marked ``requires_tool(NAME)`` is skipped where NAME is not on the PATH.
SYSTEM_TOOLS = {
    "bwrap": "apt-get install bubblewrap",  # the T3 sandbox (mgqa_platform/evaluation/sandbox.py)
    "java": "apt-get install openjdk-17-jre-headless",  # the Spark engine (mgqa_platform/spark/)
}
#: Set to 1 (as ``.ci/run`` does), a missing system tool fails its tests instead of skipping them.
REQUIRE_TOOLS_ENV = "MGQA_REQUIRE_SYSTEM_TOOLS"


def missing_tool_reason(tool: str) -> str | None:
    """Why a test marked ``requires_tool(tool)`` cannot run here: ``None`` when ``tool`` is on
    the PATH, else a sentence naming the tool and the command that installs it."""
    if shutil.which(tool) is not None:
        return None
    return f"needs `{tool}`, not on the PATH; install it with `{SYSTEM_TOOLS[tool]}`"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "requires_tool(name): needs the system tool `name` (a key of SYSTEM_TOOLS in"
        f" tests/conftest.py); skipped without it, failed without it when {REQUIRE_TOOLS_ENV}=1",
    )


#: The worker groups of the end-to-end layer: the tests on the shared build (which write to it in
#: subprocesses, one at a time), and each test of the Spark module, the Spark build and the
#: comparison of the two builds (tests/e2e/conftest.py, tests/e2e/test_spark_equality_e2e.py).
E2E_GROUP = "e2e"
SPARK_MODULE = "tests/e2e/test_spark_equality_e2e.py"
SPARK_BUILD_TEST = SPARK_MODULE + "::test_spark_builds_the_engine_jobs"
SPARK_COMPARE_TEST = SPARK_MODULE + "::test_spark_build_equals_the_duckdb_build"
#: The unit modules that take longest (a real Dagster instance, several processes, or a JVM), given
#: to the workers first so that no long module starts last and runs alone at the end.
LONG_MODULES = (
    "tests/test_rebuild_chain.py",
    "tests/test_concurrency.py",
    "tests/test_spark_engine.py",
    "tests/test_spark_osmh3kg.py",
    "tests/test_cli_build.py",
    "tests/test_exec_distance.py",
    "tests/test_exec_containment.py",
    "tests/test_snapshot_sensor.py",
)


def worker_group(nodeid: str) -> str:
    """The group of tests one pytest-xdist worker runs together, in order: each test of
    :data:`SPARK_MODULE` on its own, :data:`E2E_GROUP` for the other tests under tests/e2e/, else
    the test's module (a module runs in one worker, so its module-scoped fixtures are built
    once)."""
    module = nodeid.split("::", 1)[0]
    if module == SPARK_MODULE:
        return nodeid
    if module.startswith("tests/e2e/"):
        return E2E_GROUP
    return module


def group_rank(group: str) -> int:
    """Where a group goes in the order the workers take groups: the two builds first (both start at
    once), then :data:`LONG_MODULES` in their order, then the other modules, and the comparison of
    the two builds last (when both are done)."""
    if group == E2E_GROUP:
        return 0
    if group == SPARK_BUILD_TEST:
        return 1
    if group in LONG_MODULES:
        return 2 + LONG_MODULES.index(group)
    if group == SPARK_COMPARE_TEST:
        return 4 + len(LONG_MODULES)
    return 3 + len(LONG_MODULES)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Order the groups by :func:`group_rank` (the workers take them in this order); within a
    group, and among the other modules, the collection order is kept."""
    items.sort(key=lambda item: group_rank(worker_group(item.nodeid)))


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """pytest-xdist's ``loadscope`` scheduling with :func:`worker_group` as the scope: a worker
    takes a whole group at a time, the groups in collection order (``--no-loadscope-reorder``)."""
    from xdist.scheduler import LoadScopeScheduling

    class WorkerGroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return worker_group(nodeid)

    return WorkerGroupScheduling(config, log)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip (or, with ``MGQA_REQUIRE_SYSTEM_TOOLS=1``, fail) a test whose ``requires_tool``
    marker names a tool missing from the PATH."""
    for marker in item.iter_markers("requires_tool"):
        (tool,) = marker.args
        if tool not in SYSTEM_TOOLS:
            raise ValueError(
                f"requires_tool({tool!r}): not in SYSTEM_TOOLS ({sorted(SYSTEM_TOOLS)})"
            )
        reason = missing_tool_reason(tool)
        if reason is None:
            continue
        if os.environ.get(REQUIRE_TOOLS_ENV) == "1":
            pytest.fail(f"{REQUIRE_TOOLS_ENV}=1 and this test {reason}", pytrace=False)
        pytest.skip(reason)


#: Numbers the in-memory catalogs of the ``con`` fixture.
_CATALOGS = itertools.count()

# A tiny town near Porto Alegre. Coordinates are (lon, lat) in EPSG:4326.
CAFE = (
    1,
    (-51.2200, -30.0300),
    {
        "amenity": "cafe",
        "name": "Café Central",
        "name:en": "Central Cafe",
        "name:pt": "Café Central",
        "addr:street": "Rua A",
        "wikidata": "Q1",
        "image": "https://example.org/cafe.jpg",
    },
)
CAFE_TWIN = (
    2,
    (-51.2100, -30.0350),
    {"amenity": "cafe", "name": "Café Central", "addr:street": "Rua B"},
)
CAFE_TRIPLET = (
    3,
    (-51.2150, -30.0400),
    {"amenity": "cafe", "name": "Café Central", "addr:street": "Rua B"},
)
PHARMACY = (
    4,
    (-51.2050, -30.0250),
    {"amenity": "pharmacy", "name": "Farmácia Popular", "alt_name": "Popular"},
)
UNNAMED = (5, (-51.2000, -30.0200), {"amenity": "bench"})
PLAIN = (6, (-51.1990, -30.0190), {"created_by": "JOSM"})
SQUARE = [
    (10, (-51.23, -30.05)),
    (11, (-51.22, -30.05)),
    (12, (-51.22, -30.04)),
    (13, (-51.23, -30.04)),
]
ROAD_NODES = [(20, (-51.24, -30.03)), (21, (-51.20, -30.03)), (22, (-51.18, -30.02))]


def write_tiny_pbf(path: Path, *, incomplete_relation: bool = True) -> Path:
    """Write a small, valid, sorted PBF: 5 tagged POIs, a road, a park polygon, a multipolygon
    relation and (optionally) a boundary relation whose member way is missing from the file."""
    if path.exists():
        path.unlink()
    w = osmium.SimpleWriter(str(path))
    try:
        for nid, loc, tags in (CAFE, CAFE_TWIN, CAFE_TRIPLET, PHARMACY, UNNAMED, PLAIN):
            w.add_node(osm.node(nid, loc, tags))
        for nid, loc in SQUARE + ROAD_NODES:
            w.add_node(osm.node(nid, loc))
        w.add_way(
            osm.way(
                100,
                [20, 21, 22],
                {
                    "highway": "primary",
                    "name": "Avenida Ipiranga",
                    "name:en": "Ipiranga Avenue",
                    "oneway": "yes",
                },
            )
        )
        w.add_way(osm.way(101, [10, 11, 12, 13, 10], {"leisure": "park", "name": "Parque Pequeno"}))
        w.add_way(osm.way(102, [10, 11, 12, 13, 10]))
        w.add_relation(
            osm.relation(
                200,
                [("w", 102, "outer")],
                {"type": "multipolygon", "landuse": "forest", "name": "Mata"},
            )
        )
        if incomplete_relation:
            w.add_relation(
                osm.relation(
                    201,
                    [("w", 999, "outer")],
                    {
                        "type": "boundary",
                        "boundary": "administrative",
                        "admin_level": "8",
                        "name": "Cidade",
                    },
                )
            )
        w.add_relation(
            osm.relation(
                202, [("w", 100, "")], {"type": "route", "route": "bus", "name": "Linha 1"}
            )
        )
    finally:
        w.close()
    return path


@pytest.fixture
def tiny_pbf(tmp_path: Path) -> Path:
    return write_tiny_pbf(tmp_path / "tiny.osm.pbf")


@pytest.fixture(scope="session")
def spatial_db():
    """One in-memory DuckDB database for the session, opened by ``warehouse.connect`` (spatial
    loaded, the shared connection config). Loading the spatial extension takes a few tenths of a
    second per database, so the tests share this one instead of opening a database each."""
    base = warehouse.connect(None)
    yield base
    base.close()


@pytest.fixture
def con(spatial_db):
    """A fresh, empty in-memory warehouse for one test, with spatial loaded and the schema created.

    It is a catalog of its own, attached to the session's database for this test, the connection's
    default catalog, and detached after the test: no table, view or macro outlives the test or is
    seen by another one."""
    name = f"test_{next(_CATALOGS)}"
    spatial_db.execute(f"ATTACH ':memory:' AS {name}")
    c = spatial_db.cursor()
    c.execute(f"USE {name}")
    warehouse.ensure_schema(c)
    yield c
    c.close()
    spatial_db.execute(f"DETACH {name}")


@pytest.fixture(scope="session")
def world_template(spatial_db):
    """``world_template(key, build)``: the name of a catalog, attached to the session database and
    filled once per session by ``build(cursor)`` on a fresh warehouse schema. Tests never write to
    it; a test copies it into its own ``con`` with ``question_world.copy_catalog``, so a world
    that costs seconds to insert row by row is inserted once and each test still gets its own
    tables."""
    built: dict[str, str] = {}

    def _template(key: str, build) -> str:
        if key not in built:
            name = f"world_{len(built)}"
            spatial_db.execute(f"ATTACH ':memory:' AS {name}")
            c = spatial_db.cursor()
            c.execute(f"USE {name}")
            warehouse.ensure_schema(c)
            build(c)
            c.close()
            built[key] = name
        return built[key]

    return _template


@pytest.fixture(scope="session")
def kwg_fixture(tmp_path_factory) -> tuple[Path, BuildReport]:
    """The KnowWhereGraph-shaped fixture built from the bundled query results (data/sample/kwg)
    and its build report, built once for the session; tests only read it."""
    out = tmp_path_factory.mktemp("kwg") / "kwg-fixture.ttl"
    return out, build_kwg_fixture(SAMPLE_DIR / "kwg", out)


@pytest.fixture(scope="session")
def usgs_events(tmp_path_factory) -> tuple[Path, BuildReport]:
    """The USGS event graph built from the bundled ComCat export and its build report."""
    out = tmp_path_factory.mktemp("usgs") / "usgs-events.ttl"
    return out, build_usgs_events(SAMPLE_DIR / "usgs" / "earthquakes_2015-12.csv", out)


@pytest.fixture(scope="session")
def kwg_store(kwg_fixture, usgs_events) -> pyoxigraph.Store:
    """An in-memory RDF store loaded with the KWG fixture and the USGS events (what the bundled
    build's native file holds); tests only query it."""
    store = pyoxigraph.Store()
    for path, _ in (kwg_fixture, usgs_events):
        store.bulk_load(path=str(path), format=pyoxigraph.RdfFormat.TURTLE)
    return store
