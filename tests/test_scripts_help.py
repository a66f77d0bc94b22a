"""Every script in scripts/ answers `--help` with its usage and exit status 0, without working.

The scripts are the tools an engineer runs again (benchmarks, comparisons, the sample's rebuild);
a script that crashes on `--help`, or ignores it and starts working, fails here. All scripts run
at once, each in its own subprocess, so the test costs about the slowest script's imports.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((REPO / "scripts").glob("*.py"))
TIMEOUT_S = 300


def test_there_are_scripts():
    assert SCRIPTS, "scripts/ holds no script"


def test_every_script_answers_help():
    procs = {
        path.name: subprocess.Popen(
            [sys.executable, str(path), "--help"],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for path in SCRIPTS
    }
    failures = []
    for name, proc in procs.items():
        out, _ = proc.communicate(timeout=TIMEOUT_S)
        if proc.returncode != 0 or "usage:" not in out:
            failures.append(f"{name}: exit {proc.returncode}\n{out[-2000:]}")
    assert not failures, "\n\n".join(failures)
