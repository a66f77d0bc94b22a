"""File helpers: content hashes and atomic writes (an interrupted write never leaves a partial file)."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
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
