"""The end-to-end layer: one `mgqa build` of the bundled sample per test session, shared by every
e2e test.

The build runs in a subprocess, in a temporary MGQA_HOME. The test process only ever opens the
warehouse read-only (``warehouse.session(..., read_only=True)``); every step that writes to it (a
partition materialized again, `mgqa evaluate`) runs in a subprocess of its own, after which the test
reads again. Each read-only session is closed before a writer starts, so DuckDB's file lock never
meets a read-only and a read-write connection to the same file in one process.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from mgqa_platform import warehouse

REPO_ROOT = Path(__file__).resolve().parents[2]
MATERIALIZE = Path(__file__).with_name("materialize.py")
#: A full sample build takes about 5.5 minutes on 2 idle cores; this leaves room for a busy machine.
BUILD_TIMEOUT_S = 1800
STEP_TIMEOUT_S = 900


def home_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a subprocess on ``home``: no MGQA_* setting of the caller's shell leaks
    in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MGQA_")}
    env.update(MGQA_HOME=str(home), DAGSTER_HOME=str(home / "dagster"), **extra)
    return env


def run(
    args: list[str], env: dict[str, str], timeout: int = STEP_TIMEOUT_S
) -> subprocess.CompletedProcess:
    return subprocess.run(
        args, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


#: The tables the engine writes (MGQA_ENGINE: KG conversion and the strata; docs/spark.md) and the
#: columns left out of their comparison: paths inside the home (the files' checksums stay) and the
#: Dagster run ids.
ENGINE_TABLES = {
    "countries": (),
    "density_cells": (),
    "density_breaks": ("raster",),
    "entities": (),
    "entity_labels": (),
    "entity_triples": (),
    "entity_parts": (),
    "quarantine": (),
    "coverage": (),
    "entity_country": (),
    "entity_density": (),
    "entity_strata": (),
    "kg_files": ("path", "run_id", "conversion_run_id"),
}
#: The row count and an order-free content hash of a table: the sums of the two 64-bit halves of
#: each row's MD5 (every column as text, a geometry as hex WKB, which is exact).
TABLE_DIGEST = """
    SELECT count(*), sum(md5_number_upper(row)::HUGEINT), sum(md5_number_lower(row)::HUGEINT)
    FROM (SELECT CAST(t AS VARCHAR) AS row FROM (SELECT {columns} FROM {table}) t)
"""


def table_digests(home: Path) -> dict[str, list]:
    """:data:`TABLE_DIGEST` of every table of :data:`ENGINE_TABLES` in the warehouse of ``home``,
    as ``[rows, upper sum, lower sum]`` (the sums as text)."""
    out = {}
    with warehouse.session(home / "warehouse.duckdb", read_only=True) as con:
        for table, excluded in ENGINE_TABLES.items():
            columns = [
                f"ST_AsHEXWKB({name}) AS {name}" if kind == "GEOMETRY" else name
                for name, kind in con.execute(
                    "SELECT column_name, data_type FROM duckdb_columns() "
                    "WHERE table_name = ? AND schema_name = 'main' ORDER BY column_index",
                    [table],
                ).fetchall()
                if name not in excluded
            ]
            rows, upper, lower = con.execute(
                TABLE_DIGEST.format(columns=", ".join(columns), table=table)
            ).fetchone()
            out[table] = [rows, str(upper), str(lower)]
    return out


def kg_file_digests(home: Path) -> dict[str, str]:
    """The SHA-256 of every file under ``home``/kg (the native KG files), by path under it."""
    kg = home / "kg"
    return {
        str(p.relative_to(kg)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(kg.rglob("*"))
        if p.is_file()
    }


def engine_record(home: Path) -> dict:
    """What the engine made in ``home``: :func:`table_digests` and :func:`kg_file_digests`."""
    return {"tables": table_digests(home), "kg_files": kg_file_digests(home)}


def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's temporary folder that every pytest-xdist worker of the run sees (the parent
    of the workers' own); the session's own one without xdist."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def build_once(root: Path, name: str, args: list[str], env: dict[str, str], then=None) -> Path:
    """The MGQA_HOME ``root``/``name`` after one `mgqa build ARGS` in it (settings ``env``), made by
    whichever pytest-xdist worker asks first while it holds a file lock; a later caller, in any
    worker, waits for the lock and reuses the outcome. ``then(home)`` runs right after a build
    that succeeded, under the lock. Fails the caller when the build failed."""
    home, outcome = root / name, root / f"{name}.outcome.json"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not outcome.exists():
            home.mkdir()
            proc = run(
                [sys.executable, "-m", "mgqa_dagster.cli", "build", *args],
                home_env(home, **env),
                timeout=BUILD_TIMEOUT_S,
            )
            if proc.returncode == 0 and then is not None:
                then(home)
            log = proc.stdout[-3000:] + proc.stderr[-3000:]
            outcome.write_text(json.dumps({"returncode": proc.returncode, "log": log}))
        result = json.loads(outcome.read_text())
    assert result["returncode"] == 0, result["log"]
    return home


def record_path(home: Path) -> Path:
    """Where :func:`engine_record` of the build in ``home`` is kept: next to the home."""
    return home.with_name(home.name + ".record.json")


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Path:
    """MGQA_HOME of one `mgqa build` on the bundled sample: all KGs, questions, evaluation,
    17 languages and the release, one per run (:func:`build_once`). Right after the build, before
    any test writes to the home, :func:`engine_record` of it is stored (``build_record``)."""

    def record(home: Path) -> None:
        record_path(home).write_text(json.dumps(engine_record(home)))

    return build_once(shared_root(tmp_path_factory), "mgqa-home", [], {}, then=record)


@pytest.fixture(scope="session")
def build_record(built) -> dict:
    """:func:`engine_record` of the shared build, taken right after it."""
    return json.loads(record_path(built).read_text())


@pytest.fixture(scope="session")
def query(built) -> Callable[..., list[tuple]]:
    """``query(sql, *params)``: the rows of one statement on the built warehouse, opened
    read-only."""

    def _query(sql: str, *params) -> list[tuple]:
        with warehouse.session(built / "warehouse.duckdb", read_only=True) as con:
            return con.execute(sql, list(params)).fetchall()

    return _query


@pytest.fixture(scope="session")
def golden_sums() -> Path:
    """The committed release checksums: tests/golden/release_SHA256SUMS, ``<sha256>  <path>``
    lines."""
    return REPO_ROOT / "tests" / "golden" / "release_SHA256SUMS"


@pytest.fixture(scope="session")
def on_home(built) -> Callable[..., subprocess.CompletedProcess]:
    """``on_home(args, **env)``: a command in a subprocess on the built home, run from the
    repository root; ``env`` adds MGQA_* settings for that command."""

    def _on_home(args: list[str], **env: str) -> subprocess.CompletedProcess:
        return run(args, home_env(built, **env))

    return _on_home


@pytest.fixture(scope="session")
def mgqa(on_home) -> Callable[..., subprocess.CompletedProcess]:
    """``mgqa(*args)``: the `mgqa` command line on the built home, in a subprocess."""

    def _mgqa(*args: str) -> subprocess.CompletedProcess:
        return on_home([sys.executable, "-m", "mgqa_dagster.cli", *args])

    return _mgqa


@pytest.fixture(scope="session")
def materialize(on_home) -> Callable[..., dict]:
    """``materialize(selection, partition, **env)``: one selection of ``mgqa_dagster.definitions``
    (a name such as ``"PER_KG"``) for one partition, in a subprocess on the built home
    (tests/e2e/materialize.py). Returns ``{"success", "checks"}``, each asset check's name mapped
    to whether it passed."""

    def _materialize(selection: str, partition: str, **env: str) -> dict:
        proc = on_home([sys.executable, str(MATERIALIZE), selection, partition], **env)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return json.loads(proc.stdout.splitlines()[-1])

    return _materialize
