"""The end-to-end layer: one `mgqa build` of the bundled sample per test session, shared by every
e2e test.

The build runs in a subprocess, in a temporary MGQA_HOME. The test process only ever opens the
warehouse read-only (``warehouse.session(..., read_only=True)``); every step that writes to it (a
partition materialized again, `mgqa evaluate`) runs in a subprocess of its own, after which the test
reads again. Each read-only session is closed before a writer starts, so DuckDB's file lock never
meets a read-only and a read-write connection to the same file in one process.
"""

from __future__ import annotations

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


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Path:
    """MGQA_HOME of one `mgqa build` on the bundled sample: all KGs, questions, evaluation,
    17 languages and the release."""
    home = tmp_path_factory.mktemp("mgqa-home")
    proc = run(
        [sys.executable, "-m", "mgqa_dagster.cli", "build"], home_env(home), timeout=BUILD_TIMEOUT_S
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return home


@pytest.fixture(scope="session")
def query(built) -> Callable[..., list[tuple]]:
    """``query(sql, *params)``: the rows of one statement on the built warehouse, opened read-only."""

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
