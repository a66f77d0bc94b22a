"""Write-audit-publish: staged writes, audits on the staged rows, an atomic swap; and the guards.

Each test injects real corruption (an all-zero population raster, a KG that lost most of its
entities, an empty table) and asserts that it is caught and the previous good data is still what
readers see.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import duckdb
import h3
import numpy as np
import pytest
import rasterio

from mgqa_dagster.assets.strata import density_cells, entity_density, entity_strata
from mgqa_dagster.data_quality import guards
from mgqa_dagster.data_quality.checks import Check, judged, run_checks
from mgqa_dagster.data_quality.strata import STRATA_CHECKS
from mgqa_dagster.resources.engine import EngineResource
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.sources import StrataInputsResource
from mgqa_dagster.resources.warehouse import WarehouseResource
from mgqa_platform import warehouse
from mgqa_platform.warehouse import Slice, SliceCount, SliceViolation

REPO = Path(__file__).resolve().parent.parent
ACCRA = REPO / "data" / "sample" / "worldpop" / "GHA15adj_040213_accra.tif"


# -------------------------------------------------------------------------------- the library layer
@pytest.fixture
def con():
    c = warehouse.connect(None)
    warehouse.ensure_schema(c)
    c.executemany(
        "INSERT INTO entity_density VALUES (?, ?, 'h', 1.0, 'low', NULL)",
        [[f"{kg}:{i}", kg] for kg in ("worldkg", "kwg") for i in range(3)],
    )
    yield c
    c.close()


def rows(con, kg: str) -> list[str]:
    sql = "SELECT entity_id FROM main.entity_density WHERE kg = ? ORDER BY 1"
    return [r[0] for r in con.execute(sql, [kg]).fetchall()]


def test_staged_rows_are_seen_inside_and_published_only_on_publish(con):
    slices = warehouse.partition_slices("kg", "worldkg", "entity_density")
    with warehouse.staging(con, slices) as staged:
        con.execute("DELETE FROM entity_density WHERE kg = 'worldkg'")
        con.execute(
            "INSERT INTO entity_density VALUES ('worldkg:9', 'worldkg', 'h', 2, 'high', NULL)"
        )
        # unqualified names read the staged slice; the published table is untouched so far
        assert con.execute("SELECT entity_id FROM entity_density").fetchall() == [("worldkg:9",)]
        assert rows(con, "worldkg") == ["worldkg:0", "worldkg:1", "worldkg:2"]
        assert staged.counts() == [SliceCount("entity_density", 3, 1)]
        staged.publish()
    assert rows(con, "worldkg") == ["worldkg:9"]
    assert rows(con, "kwg") == ["kwg:0", "kwg:1", "kwg:2"]  # the other partition is intact
    assert con.execute("SELECT count(*) FROM entity_density").fetchone()[0] == 4
    assert (
        con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'staging' "
            "OR database_name = 'mgqa_staging'"
        ).fetchone()[0]
        == 0
    )


def test_staged_rows_live_in_an_attached_memory_database_not_the_warehouse_file(tmp_path):
    """The staged copy is an in-memory database (nothing staged reaches the file), detached
    after."""
    con = warehouse.connect(tmp_path / "w.duckdb")
    warehouse.ensure_schema(con)
    con.execute("INSERT INTO entity_density VALUES ('kwg:1', 'kwg', 'h', 1.0, 'low', NULL)")
    databases = "SELECT database_name, path FROM duckdb_databases() WHERE NOT internal ORDER BY 1"
    slices = warehouse.partition_slices("kg", "kwg", "entity_density")
    with warehouse.staging(con, slices) as staged:
        assert con.execute(databases).fetchall() == [
            ("mgqa_staging", None),
            ("w", str(tmp_path / "w.duckdb")),
        ]
        homes = con.execute(
            "SELECT database_name, schema_name FROM duckdb_tables() "
            "WHERE table_name = 'entity_density' ORDER BY 1"
        ).fetchall()
        assert homes == [("mgqa_staging", "staging"), ("w", "main")]
        con.execute("INSERT INTO entity_density VALUES ('kwg:2', 'kwg', 'h', 2.0, 'low', NULL)")
        # one transaction writes one database: staged and published tables are never mixed
        with pytest.raises(duckdb.TransactionException), warehouse.transaction(con):
            con.execute("DELETE FROM entity_density")
            con.execute(
                "INSERT INTO main.entity_strata "
                "VALUES ('kwg:1', 'kwg', NULL, NULL, NULL, NULL, NULL, 'x')"
            )
        assert staged.counts() == [SliceCount("entity_density", 1, 2)]
        staged.publish()
    assert con.execute(databases).fetchall() == [("w", str(tmp_path / "w.duckdb"))]
    assert rows(con, "kwg") == ["kwg:1", "kwg:2"]
    assert con.execute("SELECT count(*) FROM entity_strata").fetchone()[0] == 0
    con.close()


def test_unpublished_or_failed_writes_leave_the_published_rows(con):
    slices = warehouse.partition_slices("kg", "worldkg", "entity_density")
    with warehouse.staging(con, slices):
        con.execute("DELETE FROM entity_density")
    assert rows(con, "worldkg") == ["worldkg:0", "worldkg:1", "worldkg:2"]
    with pytest.raises(duckdb.Error), warehouse.staging(con, slices):
        con.execute("DELETE FROM entity_density")
        con.execute("INSERT INTO entity_density VALUES (NULL, 'worldkg', 'h', 1, 'low', NULL)")
    assert rows(con, "worldkg") == ["worldkg:0", "worldkg:1", "worldkg:2"]
    assert (
        con.execute("SELECT count(*) FROM entity_density").fetchone()[0] == 6
    )  # search path restored


def test_a_writer_may_not_publish_outside_its_slice(con):
    slices = warehouse.partition_slices("kg", "worldkg", "entity_density")
    with warehouse.staging(con, slices) as staged:
        con.execute("INSERT INTO entity_density VALUES ('kwg:7', 'kwg', 'h', 1, 'low', NULL)")
        with pytest.raises(SliceViolation, match="entity_density"):
            staged.publish()
    assert rows(con, "kwg") == ["kwg:0", "kwg:1", "kwg:2"]


def test_staging_keeps_constraints_of_the_published_table(con):
    con.execute("INSERT INTO kg_files VALUES ('kwg', 'old', NULL, 'p', 's', 1, NULL, NULL, NULL)")
    with warehouse.staging(con, [Slice("kg_files", "kg = ?", ("kwg",))]) as staged:
        con.execute(
            "INSERT OR REPLACE INTO kg_files VALUES "
            "('kwg', 'new', NULL, 'p', 's', 1, NULL, NULL, NULL)"
        )
        staged.publish()
    assert con.execute("SELECT snapshot_id FROM kg_files").fetchall() == [("new",)]


# ------------------------------------------------------------------------------------------- guards
def test_unguarded_slices_may_shrink(con):
    """Quarantine, discard counts, logs and coverage: fewer rows there is no loss, so no guard
    count."""
    con.execute("INSERT INTO quarantine VALUES ('kwg', 'parse', 'bad', NULL, NULL, NULL)")
    slices = (
        *warehouse.partition_slices("kg", "kwg", "entity_density"),
        Slice("quarantine", "kg = ?", ("kwg",), guarded=False),
    )
    with warehouse.staging(con, slices) as staged:
        con.execute("DELETE FROM quarantine")
        assert staged.counts() == [SliceCount("entity_density", 3, 3)]


def test_shrink_guard_ratio_first_write_and_override():
    counts = [SliceCount("questions_en", 13_489, 2_104), SliceCount("question_discards", 0, 5)]
    failed = guards.rows_not_shrunk(counts, 0.5, "")
    assert not failed.passed and failed.metadata["shrunk"].value == '["questions_en"]'
    assert guards.rows_not_shrunk(counts, 0.1, "").passed  # 2,104 / 13,489 = 0.156
    assert guards.rows_not_shrunk(counts, 0.5, "entity_country, questions_en").passed
    assert guards.rows_not_shrunk(counts, 0.5, "*").passed
    assert guards.rows_not_shrunk([SliceCount("questions_en", 0, 0)], 0.5, "").passed  # nothing yet


def test_no_check_passes_on_zero_rows(con):
    """A check that found nothing wrong in an empty slice fails with that reason, unless
    allowed-empty."""
    (domains,) = [c for c in STRATA_CHECKS if c.name == "strata_domains"]
    r = domains.run(con, "worldkg")
    assert r.passed and r.metadata["row_count"].value == 0
    (out,) = run_checks(con, "worldkg", dg.AssetKey("entity_strata"), [domains])
    assert not out.passed and "0 rows" in out.description and out.metadata["failed_empty"].value
    allowed = Check(domains.name, True, domains.description, domains.run, allow_empty=True)
    assert judged(allowed, r).passed
    con.execute(
        "INSERT INTO entity_strata "
        "VALUES ('worldkg:0', 'worldkg', 'GHA', 'LMC', 'low', 1, 'LMC/low', NULL)"
    )
    assert judged(domains, domains.run(con, "worldkg")).passed


def test_gold_validates_no_longer_passes_on_an_empty_questions_table(con):
    """The issue's case: questions_en replaced by 0 rows made "gold_validates: passed on 0 rows"."""
    from mgqa_dagster.data_quality.questions import QUESTION_CHECKS

    (gold,) = [c for c in QUESTION_CHECKS if c.name == "gold_validates"]
    (out,) = run_checks(con, None, dg.AssetKey("questions_en"), [gold])
    assert not out.passed and "failed on 0 rows" in out.description


# ---------------------------------------------------------------------------------- through Dagster
def write_tif(path: Path, data: np.ndarray, profile: dict) -> Path:
    with rasterio.open(path, "w", **{**profile, "dtype": data.dtype.name}) as dst:
        dst.write(data, 1)
    return path


def events(result) -> dict[str, bool]:
    return {
        e.asset_check_evaluation_data.check_name: e.asset_check_evaluation_data.passed
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }


def accra_entities(db: Path, kg: str, n: int) -> None:
    """``n`` entities of ``kg`` at the centre of the Accra raster (their H3 cell has population)."""
    with rasterio.open(ACCRA) as src:
        lon, lat = (
            (src.bounds.left + src.bounds.right) / 2,
            (src.bounds.bottom + src.bounds.top) / 2,
        )
    cell = h3.latlng_to_cell(lat, lon, 3)
    with warehouse.session(db) as c:
        warehouse.ensure_schema(c)
        c.execute("DELETE FROM entities WHERE kg = ?", [kg])
        c.executemany(
            "INSERT INTO entities VALUES (?, ?, 'iri', 'n', 'n', true, NULL, 'cafe', [], "
            "ST_Point(?, ?), 'point', ?, ?, [?], NULL, NULL, NULL, NULL, NULL, 's', NULL)",
            [[f"{kg}:{i}", kg, lon, lat, lon, lat, cell] for i in range(n)],
        )


@pytest.fixture
def home(tmp_path):
    paths = PathsResource(home=str(tmp_path), warehouse=str(tmp_path / "warehouse.duckdb"))
    return tmp_path, paths


def resources(paths: PathsResource, raster: Path, **warehouse_fields) -> dict:
    return {
        "paths": paths,
        "warehouse": WarehouseResource(paths=paths, **warehouse_fields),
        "strata_inputs": StrataInputsResource(population_raster=str(raster)),
        "engine": EngineResource(paths=paths),
    }


def test_all_zero_raster_fails_its_audit_and_is_never_served(home):
    """An all-zero population raster fails tercile_breaks_increasing on the staged cells:
    density_cells keeps the good cells, and a later entity_density run reads those, not the zero
    ones."""
    tmp, paths = home
    db = Path(paths.warehouse)
    good = resources(paths, ACCRA)
    assert dg.materialize([density_cells], resources=good).success
    with warehouse.session(db, read_only=True) as c:
        before = c.execute("SELECT * FROM density_cells ORDER BY h3").fetchall()
    assert before and max(r[4] for r in before) > 0

    with rasterio.open(ACCRA) as src:
        zeros = np.zeros((src.height, src.width), dtype="float64")
        zero_tif = write_tif(tmp / "zero.tif", zeros, src.profile)
    bad = dg.materialize(
        [density_cells], resources=resources(paths, zero_tif), raise_on_error=False
    )
    assert not bad.success
    assert events(bad)["tercile_breaks_increasing"] is False
    assert not bad.asset_materializations_for_node("density_cells")
    with warehouse.session(db, read_only=True) as c:
        assert c.execute("SELECT * FROM density_cells ORDER BY h3").fetchall() == before

    accra_entities(db, "worldkg", 3)
    later = dg.materialize([entity_density], partition_key="worldkg", resources=good)
    assert later.success and events(later) == {"rows_not_shrunk": True}
    with warehouse.session(db, read_only=True) as c:
        got = c.execute("SELECT DISTINCT density FROM entity_density").fetchall()
        cell = c.execute("SELECT DISTINCT h3[1] FROM entities").fetchone()[0]
        want = c.execute("SELECT density FROM density_cells WHERE h3 = ?", [cell]).fetchall()
    assert got == want and got[0][0] > 0


def test_failed_audit_of_a_partition_keeps_it_and_the_others(home, monkeypatch):
    """A KG that lost most of its entities (an empty snapshot) fails rows_not_shrunk on
    entity_density: its old rows and the other KG's stay published; MGQA_ALLOW_SHRINK lets the
    operator accept it."""
    _tmp, paths = home
    db = Path(paths.warehouse)
    res = resources(paths, ACCRA)
    assert dg.materialize([density_cells], resources=res).success
    for kg in ("worldkg", "kwg"):
        accra_entities(db, kg, 4)
        assert dg.materialize([entity_density], partition_key=kg, resources=res).success

    def published():
        with warehouse.session(db, read_only=True) as c:
            return c.execute("SELECT kg, entity_id FROM entity_density ORDER BY ALL").fetchall()

    before = published()
    accra_entities(db, "worldkg", 1)  # 1 of 4 entities left
    bad = dg.materialize(
        [entity_density], partition_key="worldkg", resources=res, raise_on_error=False
    )
    assert not bad.success and events(bad) == {"rows_not_shrunk": False}
    assert published() == before

    monkeypatch.setenv("MGQA_ALLOW_SHRINK", "entity_density")
    assert dg.materialize([entity_density], partition_key="worldkg", resources=res).success
    assert published() == [r for r in before if r[0] == "kwg"] + [("worldkg", "worldkg:0")]


def test_an_empty_partition_fails_its_checks_and_keeps_the_old_rows(home):
    """entity_strata of a KG left without entities: its blocking checks fail on 0 rows, nothing is
    published, the old strata stay."""
    _tmp, paths = home
    db = Path(paths.warehouse)
    res = resources(paths, ACCRA)
    accra_entities(db, "kwg", 2)
    with warehouse.session(db) as c:
        c.execute(
            "INSERT INTO countries "
            "VALUES ('GHA', 'Ghana', NULL, NULL, 'ISO_A3', 'LMC', NULL, NULL, NULL, "
            "ST_Point(0, 0))"
        )
        c.execute(
            "INSERT INTO entity_country "
            "SELECT entity_id, kg, 'GHA', 'within', 0, NULL "
            "FROM entities"
        )
        c.execute(
            "INSERT INTO entity_density SELECT entity_id, kg, h3[1], 5.0, 'low', NULL FROM entities"
        )
    assert dg.materialize([entity_strata], partition_key="kwg", resources=res).success
    with warehouse.session(db) as c:
        c.execute("DELETE FROM entities")
        before = c.execute("SELECT * FROM entity_strata ORDER BY ALL").fetchall()
    assert len(before) == 2
    bad = dg.materialize([entity_strata], partition_key="kwg", resources=res, raise_on_error=False)
    assert not bad.success
    assert events(bad)["strata_domains"] is False
    with warehouse.session(db, read_only=True) as c:
        assert c.execute("SELECT * FROM entity_strata ORDER BY ALL").fetchall() == before


# -------------------------------------------------------------------------------------- the release
def release_home(tmp_path, monkeypatch) -> tuple[Path, Path, dict]:
    """The tiny release warehouse of test_release (eng, fra) and the resources of the release
    assets."""
    from tests.test_release import build_warehouse

    db = build_warehouse(tmp_path / "wh" / "warehouse.duckdb")
    out = tmp_path / "rel"
    monkeypatch.setenv("MGQA_RELEASE_DIR", str(out))
    paths = PathsResource(home=str(tmp_path), warehouse=str(db))
    return db, out, {"paths": paths, "warehouse": WarehouseResource(paths=paths)}


def release(res: dict, *langs: str, card: bool = True) -> list:
    from mgqa_dagster.assets.release import release_card, release_questions

    runs = [
        dg.materialize([release_questions], partition_key=lang, resources=res, raise_on_error=False)
        for lang in langs
    ]
    if card:
        runs.append(dg.materialize([release_card], resources=res, raise_on_error=False))
    return runs


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_release_is_staged_and_a_tampered_file_is_never_rehashed(tmp_path, monkeypatch):
    db, out, res = release_home(tmp_path, monkeypatch)
    assert all(r.success for r in release(res, "eng", "fra"))
    assert not (out / ".staging").exists()
    with warehouse.session(db, read_only=True) as c:
        recorded = c.execute("SELECT path, rows FROM release_files ORDER BY 1").fetchall()
    assert recorded == [
        ("data/eng/large.parquet", 3),
        ("data/eng/small.parquet", 2),
        ("data/fra/large.parquet", 3),
        ("data/fra/small.parquet", 2),
    ]
    good_sums = (out / "SHA256SUMS").read_bytes()

    # an edited release file, still valid Parquet with the same row count
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    path = out / "data" / "fra" / "large.parquet"
    table = pq.read_table(path)
    texts = pc.utf8_upper(table.column("text"))
    pq.write_table(table.set_column(table.schema.get_field_index("text"), "text", texts), path)
    (card,) = release(res)
    assert not card.success
    assert events(card) == {"release_files_match_warehouse": False}
    assert (out / "SHA256SUMS").read_bytes() == good_sums  # not re-hashed over the tampered file
    (mat,) = [e for e in card.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"]
    assert "data/fra/large.parquet" in mat.asset_check_evaluation_data.metadata["problems"].value

    # re-releasing the language from the warehouse repairs it; the card publishes again
    assert all(r.success for r in release(res, "fra"))
    assert (out / "SHA256SUMS").read_bytes() == good_sums


@pytest.mark.parametrize("corruption", ["tripled", "deleted"])
def test_a_corrupt_language_slice_is_not_released(tmp_path, monkeypatch, corruption):
    """A fra row tripled (or deleted) in the warehouse: release_questions[fra] fails its blocking
    audit, the published fra files stay as they were, and the card refuses a stale language."""
    db, out, res = release_home(tmp_path, monkeypatch)
    assert all(r.success for r in release(res, "eng", "fra"))
    before = snapshot(out)
    with warehouse.session(db) as c:
        if corruption == "tripled":
            for table in ("questions_postedited", "questions_localized"):
                c.execute(
                    f"INSERT INTO {table} "
                    "SELECT * "
                    f"FROM {table} "
                    "WHERE lang = 'fra' AND question_id = 'q1'"
                )
                c.execute(
                    f"INSERT INTO {table} "
                    "SELECT * "
                    f"FROM {table} "
                    "WHERE lang = 'fra' AND question_id = 'q1' "
                    "LIMIT 1"
                )
        else:
            c.execute("DELETE FROM questions_postedited WHERE lang = 'fra' AND question_id = 'q2'")
    (fra,) = release(res, "fra", card=False)
    assert not fra.success
    checks = events(fra)
    assert checks["release_same_questions_as_english"] is False
    (mat,) = [
        e
        for e in fra.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
        and e.asset_check_evaluation_data.check_name == "release_same_questions_as_english"
    ]
    meta = mat.asset_check_evaluation_data.metadata
    assert meta["repeated" if corruption == "tripled" else "missing"].value == 1
    assert snapshot(out) == before  # nothing renamed into place, staging removed
    (card,) = release(res)
    assert not card.success and events(card) == {"release_files_match_warehouse": False}
    assert snapshot(out) == before


def test_a_card_failing_its_audit_leaves_the_published_card(tmp_path, monkeypatch):
    """An entity bound in a question lost from the warehouse: the staged entity sites miss it, the
    blocking entity_sites_cover_bindings fails on the staged card, and the published card, sites and
    SHA256SUMS stay as they were."""
    db, out, res = release_home(tmp_path, monkeypatch)
    assert all(r.success for r in release(res, "eng", "fra"))
    before = snapshot(out)
    with warehouse.session(db) as c:
        (lost,) = c.execute("SELECT entity_id FROM entities ORDER BY 1 LIMIT 1").fetchone()
        c.execute("DELETE FROM entities WHERE entity_id = ?", [lost])
    (card,) = release(res)
    assert not card.success
    checks = events(card)
    assert checks["release_files_match_warehouse"] is True
    assert checks["entity_sites_cover_bindings"] is False
    assert snapshot(out) == before and not (out / ".staging").exists()
