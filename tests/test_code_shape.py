"""Functions a screen long: no function or method outside ``tests/`` runs past :data:`MAX_LINES`
lines, from its ``def`` line (decorators aside) to its last line, docstring included.

A longer function is split into named steps: small functions whose names say what they do.
Every Python file under :data:`ROOTS` counts, nested functions included.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROOTS = ("mgqa_platform", "mgqa_dagster", "scripts")
MAX_LINES = 80


def long_functions(source: str, limit: int = MAX_LINES) -> list[tuple[str, int]]:
    """``(name, lines)`` of every function in ``source`` longer than ``limit`` lines."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_no_function_outside_tests_is_longer_than_a_screen():
    found = [
        f"{path.relative_to(ROOT)}: {name} ({n} lines)"
        for root in ROOTS
        for path in sorted((ROOT / root).rglob("*.py"))
        for name, n in long_functions(path.read_text(encoding="utf-8"))
    ]
    assert found == [], f"split these into named steps (at most {MAX_LINES} lines each)"


def test_the_measure_counts_from_def_to_last_line():
    at_limit = "@decorator\ndef f():\n" + "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES - 1))
    over = "class C:\n    async def g(self):\n" + "".join(
        f"        x{i} = {i}\n" for i in range(MAX_LINES)
    )
    assert long_functions(at_limit) == []
    assert long_functions(over) == [("g", MAX_LINES + 1)]
