"""The warehouse's writer lock: connections of different processes take turns on the DuckDB file
(:func:`mgqa_platform.files.writer_lock`, held by ``WarehouseResource.get_connection``). DuckDB
itself refuses a second process outright ("Could not set lock"); with the lock the second one
waits."""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from pathlib import Path

import duckdb
import pytest

from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.warehouse import WarehouseResource
from mgqa_platform import files

HOLD_S = 1.0


def _hold_lock(lock: str, ready, go, out) -> None:
    """Say ready, wait for ``go``, take the lock, hold it HOLD_S s; report the window."""
    ready.put(1)
    go.wait(60)
    waits: list[str] = []
    with files.writer_lock(lock, timeout_s=30, on_wait=waits.append):
        t0 = time.time()
        time.sleep(HOLD_S)
        t1 = time.time()
    out.put((t0, t1, waits))


def _write_row(home: str, tag: str, ready, go, out) -> None:
    """Say ready, wait for ``go``, then write one row through the warehouse resource and keep the
    connection open HOLD_S s; report the window in which the connection was open."""
    paths = PathsResource(home=home, warehouse=str(Path(home) / "wh.duckdb"))
    wh = WarehouseResource(paths=paths).resolved()
    ready.put(1)
    go.wait(60)
    with wh.get_connection() as con:
        t0 = time.time()
        con.execute("CREATE TABLE IF NOT EXISTS marks (tag VARCHAR)")
        con.execute("INSERT INTO marks VALUES (?)", [tag])
        time.sleep(HOLD_S)
        t1 = time.time()
    out.put((t0, t1, tag))


def _run_together(target, args_per_proc) -> list:
    """Start one process per argument tuple; once all are ready (imports done), let them go at
    once; return their reports sorted."""
    ctx = mp.get_context("spawn")
    ready, go, out = ctx.Queue(), ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=target, args=(*a, ready, go, out)) for a in args_per_proc]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=120)
    go.set()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    return sorted(results)


def test_two_processes_take_turns(tmp_path):
    lock = str(tmp_path / "x.lock")
    (a0, a1, a_waits), (b0, b1, b_waits) = _run_together(_hold_lock, [(lock,)] * 2)
    assert b0 >= a1  # the second began after the first had ended
    assert a_waits == []
    assert len(b_waits) == 1 and "held by pid" in b_waits[0]


def test_warehouse_connections_of_two_processes_take_turns(tmp_path):
    results = _run_together(_write_row, [(str(tmp_path), "a"), (str(tmp_path), "b")])
    (_, first_end, _), (second_start, _, _) = results
    assert second_start >= first_end
    with duckdb.connect(str(tmp_path / "wh.duckdb"), read_only=True) as con:
        assert sorted(con.execute("SELECT tag FROM marks").fetchall()) == [("a",), ("b",)]


def test_a_process_gives_up_after_the_timeout_naming_the_holder(tmp_path):
    lock = str(tmp_path / "x.lock")
    ctx = mp.get_context("spawn")
    ready, go, out = ctx.Queue(), ctx.Event(), ctx.Queue()
    go.set()
    holder = ctx.Process(target=_hold_lock, args=(lock, ready, go, out))
    holder.start()
    deadline = time.time() + 30
    while not (Path(lock).exists() and Path(lock).read_text() == str(holder.pid)):
        assert time.time() < deadline
        time.sleep(0.02)
    with pytest.raises(files.LockTimeout, match=f"held by pid {holder.pid}"):
        with files.writer_lock(lock, timeout_s=0.2):
            pass
    out.get(timeout=30)
    holder.join(timeout=30)


def test_the_lock_is_reentrant_in_a_process_and_released_after_the_outer_block(tmp_path):
    lock = str(tmp_path / "x.lock")
    with files.writer_lock(lock, timeout_s=1):
        with files.writer_lock(lock, timeout_s=0.1):  # would time out if not re-entrant
            pass
        assert Path(lock).read_text() == str(os.getpid())
    assert Path(lock).read_text() == ""
    # released: another process takes it at once
    ((t0, _, waits),) = _run_together(_hold_lock, [(lock,)])
    assert waits == []
