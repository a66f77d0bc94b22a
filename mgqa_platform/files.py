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
