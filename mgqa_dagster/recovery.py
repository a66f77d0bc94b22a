"""Clean recovery after ``mgqa build`` was killed (issue 21, item 8).

A build holds ``<home>/build.lock`` (an advisory ``flock``, released by the kernel when the process
dies, however it dies) for its whole length; a second build is refused with a clear message. Holding
it, the build knows no other ``mgqa build`` is running, so on start it

* marks failed every run it launched earlier (tag :data:`LAUNCHED_BY`) that the instance still shows
  as queued, starting or started: a killed process cannot report its own end;
* empties its scratch folder ``<home>/scratch`` (conversion's intermediate Parquet files), which a
  killed build leaves behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import dagster as dg

from mgqa_platform.errors import UserError

#: Tag on every run ``mgqa build`` launches.
LAUNCHED_BY = {"mgqa/launched_by": "mgqa build"}
#: Run states of a run that has not ended.
_UNFINISHED = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
]


class BuildRunning(UserError):
    """Another ``mgqa build`` holds the home's build lock."""


@contextlib.contextmanager
def build_lock(home: Path) -> Iterator[None]:
    """Hold ``<home>/build.lock`` while the block runs; :class:`BuildRunning` when another process
    holds it (its pid is in the message)."""
    home.mkdir(parents=True, exist_ok=True)
    path = home / "build.lock"
    with open(path, "a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            holder = f.read().strip() or "?"
            raise BuildRunning(
                f"another `mgqa build` is running on {home} (pid {holder}; lock {path})"
            ) from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        try:
            yield
        finally:
            f.seek(0)
            f.truncate()
            fcntl.flock(f, fcntl.LOCK_UN)


def fail_stale_runs(instance: dg.DagsterInstance) -> list[str]:
    """Mark failed the unfinished runs an earlier ``mgqa build`` launched; returns their run ids.
    Call it only while holding :func:`build_lock`."""
    key, value = next(iter(LAUNCHED_BY.items()))
    stale = instance.get_runs(
        filters=dg.RunsFilter(statuses=_UNFINISHED, tags={key: value}), ascending=True
    )
    for run in stale:
        instance.report_run_failed(
            run, message="left unfinished by an mgqa build that was killed; marked failed"
        )
    return [run.run_id for run in stale]


def reset_scratch(scratch: Path) -> int:
    """Empty the scratch folder (create it when missing); returns the entries removed."""
    removed = 0
    if scratch.is_dir():
        for entry in scratch.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed += 1
    scratch.mkdir(parents=True, exist_ok=True)
    return removed
