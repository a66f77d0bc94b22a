"""Snapshots the operator controls (issue 21, item 3) and clean recovery after a killed build
(item 8): which OSM snapshot wins, `mgqa snapshots list | retire | pin | unpin`, an empty or
corrupt PBF that never wins, a removed file that never wedges the home, stale runs and scratch."""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg
import osmium
import pytest
from osmium.osm import mutable

from mgqa_dagster import cli, definitions, recovery
from mgqa_dagster.assets.intake import osm_snapshot_partitions
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.sources import InputsResource
from mgqa_platform import snapshots, warehouse
from mgqa_platform.errors import UserError
from mgqa_platform.files import sha256_file, snapshot_id_for
from tests.conftest import write_tiny_pbf
from tests.test_snapshot_sensor import _tick


def _pbf(path: Path, nodes: list[dict], compressed: bool = True) -> Path:
    """A PBF of tagged nodes near Andorra, one per dict of tags."""
    fmt = "pbf" if compressed else "pbf,pbf_compression=none"
    w = osmium.SimpleWriter(osmium.io.File(str(path), fmt))
    for i, tags in enumerate(nodes, start=1):
        w.add_node(mutable.Node(id=i, version=1, location=(1.5 + i / 100, 42.5), tags=tags))
    w.close()
    return path


def _corrupt_late(path: Path) -> Path:
    """A PBF whose first tagged node reads fine and whose second holds a name that is not UTF-8:
    it passes intake and fails its build."""
    raw = _pbf(
        path,
        [
            {"amenity": "cafe", "name": "Cafe Central"},
            {"amenity": "pharmacy", "name": "QQQQQQQQ"},
        ],
        compressed=False,
    ).read_bytes()
    path.write_bytes(raw.replace(b"QQQQQQQQ", b"\xff\xfe\xff\xfeQQQQ"))
    return path


def _registered(con, *pbfs: Path) -> list[str]:
    ids = []
    for p in pbfs:
        snap = snapshots.describe_osm_pbf(p)
        snapshots.register(con, snap)
        ids.append(snap.snapshot_id)
    return ids


def test_newest_usable_snapshot_wins_and_states_change_it(con, tmp_path):
    a, b = (write_tiny_pbf(tmp_path / f"{n}.osm.pbf") for n in ("a", "b"))
    b.write_bytes(a.read_bytes() + b"")  # same bytes, other name: another snapshot id
    ids = _registered(con, a, b)
    assert snapshots.choose_osm_snapshot(con, ids).snapshot_id == ids[1]
    snapshots.set_state(con, ids[1], "retired", "bad tags")
    assert snapshots.choose_osm_snapshot(con, ids).snapshot_id == ids[0]
    snapshots.set_state(con, ids[1], "pinned")
    assert snapshots.choose_osm_snapshot(con, ids).snapshot_id == ids[1]
    snapshots.set_state(con, ids[0], "pinned")  # one pin at a time
    assert [s.state for s in snapshots.statuses(con, ids)] == ["pinned", "usable"]
    snapshots.mark_failed(con, ids[0], "checks")  # a pinned snapshot stays pinned
    assert snapshots.choose_osm_snapshot(con, ids).snapshot_id == ids[0]
    snapshots.set_state(con, ids[0], None)
    snapshots.mark_failed(con, ids[1], "entities[worldkg] failed valid_geometries")
    assert snapshots.choose_osm_snapshot(con, ids).snapshot_id == ids[0]
    assert snapshots.choose_osm_snapshot(con, ids, preferred=ids[1]).snapshot_id == ids[0]
    with pytest.raises(snapshots.SnapshotLookupError, match="no registered snapshot 'nope'"):
        snapshots.set_state(con, "nope", "retired")


def test_a_removed_file_never_wedges_the_home(con, tmp_path):
    a = write_tiny_pbf(tmp_path / "a.osm.pbf")
    z = tmp_path / "zz-new.osm.pbf"
    z.write_bytes(a.read_bytes())
    ids = _registered(con, a, z)
    assert snapshots.choose_osm_snapshot(con, ids).snapshot_id == ids[1]
    z.unlink()
    assert snapshots.choose_osm_snapshot(con, ids).snapshot_id == ids[0]
    (listed,) = [s for s in snapshots.statuses(con, ids) if s.snapshot_id == ids[1]]
    assert not listed.file_present and not listed.chosen
    a.unlink()
    with pytest.raises(snapshots.SnapshotLookupError) as e:
        snapshots.choose_osm_snapshot(con, ids)
    assert "no usable OSM snapshot" in str(e.value) and "file missing" in str(e.value)


def test_an_empty_pbf_is_rejected_at_intake_and_never_becomes_the_latest(con, tmp_path):
    good = write_tiny_pbf(tmp_path / "a.osm.pbf")
    empty = _pbf(tmp_path / "zz-empty.osm.pbf", [{}])  # one node, no tag
    with pytest.raises(snapshots.OsmSnapshotError, match=r"zz-empty\.osm\.pbf: no OSM object"):
        snapshots.describe_osm_pbf(empty)
    (gid,) = _registered(con, good)
    # asked for by id (a sensor run), the empty file is registered as rejected with its reason
    eid = snapshot_id_for(empty, sha256_file(empty))
    with pytest.raises(snapshots.OsmSnapshotError, match="no OSM object with tags"):
        snapshots.resolve_osm_snapshot(con, eid, [good, empty])
    with pytest.raises(snapshots.OsmSnapshotError, match="rejected at intake"):
        snapshots.resolve_osm_snapshot(con, eid, [good, empty])
    # asking for the good one is not blocked by the empty file beside it
    assert snapshots.resolve_osm_snapshot(con, gid, [empty, good]).snapshot_id == gid
    rows = {s.snapshot_id: s for s in snapshots.statuses(con, [gid, eid])}
    assert rows[eid].state == "rejected" and "no OSM object with tags" in rows[eid].reason
    assert rows[gid].chosen and not rows[eid].chosen


def _resources(home: Path, watch: Path) -> dict:
    return definitions.build_resources(
        paths=PathsResource(home=str(home), warehouse=str(home / "wh.duckdb")),
        inputs=InputsResource(osm_watch_dir=str(watch)),
    )


def test_a_snapshot_whose_build_fails_never_wins_and_the_good_one_is_rebuilt(tmp_path):
    watch, home = tmp_path / "watch", tmp_path / "home"
    watch.mkdir()
    good = write_tiny_pbf(watch / "a-good.osm.pbf")
    bad = _corrupt_late(watch / "zz-corrupt.osm.pbf")
    resources = _resources(home, watch)
    with dg.instance_for_test() as instance:
        with warehouse.session(home / "wh.duckdb") as con:
            warehouse.ensure_schema(con)
            ids = _registered(con, good, bad)  # the corrupt file passes intake
        instance.add_dynamic_partitions(osm_snapshot_partitions.name, ids)

        def build():
            return dg.materialize(
                definitions.ALL_ASSETS,
                selection=dg.AssetSelection.assets("kg_native"),
                partition_key="worldkg",
                instance=instance,
                resources=resources,
                raise_on_error=False,
            )

        first = build()
        assert not first.success
        ((step, message),) = cli._step_errors(first)  # what `mgqa build` prints: one line
        assert step == "kg_native" and "zz-corrupt.osm.pbf" in message and "\n" not in message
        second = build()
        assert second.success
        meta = second.asset_materializations_for_node("kg_native")[0].metadata
        assert meta["source_osm_snapshot"].text == ids[0]
        with warehouse.session(home / "wh.duckdb", read_only=True) as con:
            states = {s.snapshot_id: s for s in snapshots.statuses(con, ids)}
            (source,) = con.execute(
                "SELECT source_snapshot_id FROM kg_files WHERE kg = 'worldkg'"
            ).fetchone()
        assert states[ids[1]].state == "failed" and "not valid UTF-8" in states[ids[1]].reason
        assert states[ids[0]].chosen and source == ids[0]


def test_the_sensor_never_makes_an_empty_pbf_a_partition(tmp_path):
    watch = tmp_path / "watch"
    watch.mkdir()
    good = write_tiny_pbf(watch / "a.osm.pbf")
    _pbf(watch / "zz-empty.osm.pbf", [{}])
    with dg.instance_for_test() as instance:
        result = _tick(instance, watch)
        (add,) = result.dynamic_partitions_requests
        assert list(add.partition_keys) == [snapshots.describe_osm_pbf(good).snapshot_id]
        assert {r.tags.get("mgqa/osm_snapshot") for r in result.run_requests} == {
            None,
            snapshots.describe_osm_pbf(good).snapshot_id,
        }


def test_build_intake_rejects_an_empty_pbf_and_registers_the_good_one(con, tmp_path, capsys):
    good = write_tiny_pbf(tmp_path / "a.osm.pbf")
    empty = _pbf(tmp_path / "zz-empty.osm.pbf", [{}])
    described = cli._intake(con, [good, empty])
    assert [d.path for d in described] == [str(good.resolve())]
    err = capsys.readouterr().err
    assert "rejected OSM snapshot zz-empty-" in err and "no OSM object with tags" in err
    rows = {s.path: s for s in snapshots.statuses(con, [d.snapshot_id for d in described])}
    assert rows[str(empty.resolve())].state == "rejected"
    assert rows[str(good.resolve())].chosen
    rejected = rows[str(empty.resolve())].snapshot_id
    with pytest.raises(UserError, match="rejected at intake"):
        snapshots.set_state(con, rejected, "pinned")


@pytest.fixture
def home_env(monkeypatch, tmp_path):
    """MGQA_HOME, DAGSTER_HOME and the watched folder in tmp_path; no other MGQA_* variable."""
    for name in [n for n in os.environ if n.startswith("MGQA_")]:
        monkeypatch.delenv(name)
    watch = tmp_path / "watch"
    watch.mkdir()
    monkeypatch.setenv("MGQA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MGQA_OSM_WATCH_DIR", str(watch))
    (tmp_path / "dagster").mkdir()
    (tmp_path / "dagster" / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    return tmp_path


def test_snapshots_commands_list_retire_pin_unpin(home_env, capsys):
    a = write_tiny_pbf(home_env / "watch" / "a.osm.pbf")
    b = home_env / "watch" / "b.osm.pbf"
    b.write_bytes(a.read_bytes())
    with warehouse.session(home_env / "home" / "warehouse.duckdb") as con:
        warehouse.ensure_schema(con)
        ids = _registered(con, a, b)
    with dg.DagsterInstance.get() as instance:
        instance.add_dynamic_partitions(osm_snapshot_partitions.name, ids)

    assert cli.main(["snapshots", "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("  usable") and ids[0] in out[0]
    assert out[1].startswith("* usable") and ids[1] in out[1]

    assert cli.main(["snapshots", "retire", ids[1], "--reason", "wrong region"]) == 0
    out = capsys.readouterr().out
    assert f"* usable   {ids[0]}" in out and f"  retired  {ids[1]}" in out and "wrong region" in out

    assert cli.main(["snapshots", "pin", ids[1]]) == 0
    assert f"* pinned   {ids[1]}" in capsys.readouterr().out
    assert cli.main(["snapshots", "unpin"]) == 0
    assert f"* usable   {ids[1]}" in capsys.readouterr().out


def test_an_expected_error_is_one_line_and_debug_shows_the_traceback(home_env, capsys, monkeypatch):
    assert cli.main(["snapshots", "pin", "nope"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[0] == (
        "mgqa: no registered snapshot 'nope' (see `mgqa snapshots list`)"
    )
    assert "--debug" in err
    with pytest.raises(snapshots.SnapshotLookupError):
        cli.main(["--debug", "snapshots", "pin", "nope"])
    monkeypatch.setenv("MGQA_DEBUG", "1")
    with pytest.raises(snapshots.SnapshotLookupError):
        cli.main(["snapshots", "pin", "nope"])


def test_build_lock_refuses_a_second_build(tmp_path):
    with recovery.build_lock(tmp_path):
        with pytest.raises(recovery.BuildRunning, match=f"pid {os.getpid()}"):
            with recovery.build_lock(tmp_path):
                pass
    with recovery.build_lock(tmp_path):  # released when the first build ends
        pass


def test_runs_left_started_by_a_killed_build_are_marked_failed(tmp_path):
    with dg.instance_for_test() as instance:

        def run(run_id: str, tags: dict) -> None:
            instance.add_run(
                dg.DagsterRun(
                    job_name="__ASSET_JOB",
                    run_id=run_id,
                    status=dg.DagsterRunStatus.STARTED,
                    tags=tags,
                )
            )

        run("killed-build-run", recovery.LAUNCHED_BY)
        run("ui-run", {})
        assert recovery.fail_stale_runs(instance) == ["killed-build-run"]
        assert instance.get_run_by_id("killed-build-run").status == dg.DagsterRunStatus.FAILURE
        assert instance.get_run_by_id("ui-run").status == dg.DagsterRunStatus.STARTED
        assert recovery.fail_stale_runs(instance) == []


def test_scratch_left_by_a_killed_build_is_removed(tmp_path):
    scratch = tmp_path / "home" / "scratch"
    (scratch / "mgqa-convert-worldkg-x" / "parsed").mkdir(parents=True)
    (scratch / "mgqa-convert-worldkg-x" / "parsed" / "part-000.parquet").write_bytes(b"x")
    (scratch / "stray.tmp").write_text("x")
    assert recovery.reset_scratch(scratch) == 2
    assert scratch.is_dir() and not any(scratch.iterdir())
    assert recovery.reset_scratch(tmp_path / "new" / "scratch") == 0
