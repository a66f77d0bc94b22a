"""File helpers: content hashes, atomic writes (an interrupted write never leaves a partial file)
and the cross-process writer lock of a file."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def snapshot_id_for(path: str | Path, sha256: str) -> str:
    """Stable snapshot id ``<stem>-<sha256[:12]>``; valid as a Dagster partition key."""
    stem = Path(path).name
    for suffix in (".osm.pbf", ".pbf", ".ttl", ".nt", ".parquet"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in stem)
    return f"{safe}-{sha256[:12]}"


@contextlib.contextmanager
def atomic_path(target: str | Path) -> Iterator[Path]:
    """Yield a temporary sibling path; on success it replaces ``target`` atomically."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def portable_path(path: str | Path, home: str | Path, repo_root: str | Path) -> str:
    """``path`` as it reads on any machine: ``$MGQA_HOME/<relative>`` under ``home``, the
    repository-relative path under ``repo_root`` (bundled inputs), else the absolute path (a
    folder the deployment configured)."""
    p, home, repo_root = Path(path).resolve(), Path(home).resolve(), Path(repo_root).resolve()
    if p.is_relative_to(home):
        rel = p.relative_to(home).as_posix()
        return "$MGQA_HOME" if rel == "." else f"$MGQA_HOME/{rel}"
    if p.is_relative_to(repo_root):
        return p.relative_to(repo_root).as_posix()
    return str(p)


class LockTimeout(TimeoutError):
    """:func:`writer_lock` waited ``timeout_s`` for another process to release the lock."""


#: Locks this process holds: resolved lock path -> [open lock file, depth].
_HELD: dict[str, list] = {}
_HELD_GUARD = threading.Lock()


@contextlib.contextmanager
def writer_lock(
    path: str | Path,
    timeout_s: float,
    on_wait: Callable[[str], None] | None = None,
    poll_s: float = 0.05,
) -> Iterator[None]:
    """Hold the exclusive advisory lock ``path`` (an ``flock`` on a file created when missing) while
    the block runs: processes that take the same lock run their blocks one after another.

    Re-entrant within a process (a nested block, or another thread of this process, shares the
    hold: one process may open several DuckDB connections to one file, other processes may not).
    A process waits up to ``timeout_s`` seconds, calling ``on_wait(message)`` once when it has to
    wait (the message names the holder's pid), then raises :class:`LockTimeout`. The kernel
    releases the lock when its holder exits, however it exits.
    """
    key = str(Path(path).resolve())
    with _HELD_GUARD:
        held = _HELD.get(key)
        if held is not None:
            held[1] += 1
    if held is None:
        Path(key).parent.mkdir(parents=True, exist_ok=True)
        f = open(key, "a+")  # closed in the finally below, after the block
        try:
            _acquire(f, key, timeout_s, on_wait, poll_s)
        except BaseException:
            f.close()
            raise
        with _HELD_GUARD:
            held = _HELD[key] = [f, 1]
    try:
        yield
    finally:
        with _HELD_GUARD:
            held[1] -= 1
            last = held[1] == 0
            if last:
                del _HELD[key]
        if last:
            held[0].seek(0)
            held[0].truncate()
            fcntl.flock(held[0], fcntl.LOCK_UN)
            held[0].close()


def _acquire(f, key: str, timeout_s: float, on_wait, poll_s: float) -> None:
    """Take the ``flock`` of the open file ``f`` (lock path ``key``), polling every ``poll_s`` s."""
    deadline = time.monotonic() + timeout_s
    waited = False
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            f.seek(0)
            holder = f.read().strip() or "?"
            if time.monotonic() >= deadline:
                raise LockTimeout(
                    f"waited {timeout_s:g} s for the lock {key}, held by pid {holder}"
                ) from None
            if not waited and on_wait is not None:
                on_wait(f"waiting for the lock {key}, held by pid {holder}")
            waited = True
            time.sleep(poll_s)
    f.seek(0)
    f.truncate()
    f.write(str(os.getpid()))
    f.flush()
