"""Compute-grounded reference solver: recompute each gold answer from the released record alone.

Given a question record (text, template, bindings, parameters) and its cited ``gold_triples`` --
never the warehouse -- a solver function parses the facts it needs
(:class:`~mgqa_platform.evaluation.facts.Facts`) and computes the answer with independent code
(shapely, pyproj, h3, s2sphere, pygeohash), not the generator's SQL. Scoring its answers against the
golds (Table 12) measures whether every gold is reproducible from what the benchmark releases: the
target is EM 100 % on true-premise questions, and every miss names a question whose gold or whose
cited triples are wrong or insufficient.

One module per spatial-function family mirrors ``questions/executors`` (distance.py for A, ...);
each registers one function per executor name with :func:`solves`. A solver returns a gold dict
(built with :mod:`mgqa_platform.questions.formats` constructors) or raises :class:`Unsolvable` with
a reason.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mgqa_platform.evaluation.facts import Facts
from mgqa_platform.questions import formats
from mgqa_platform.questions.catalog import Catalog, SubTemplate, default_catalog

SolverFn = Callable[["Problem"], dict]
SOLVERS: dict[str, SolverFn] = {}

#: Modules that register solvers, one per spatial-function family.
MODULES = (
    "distance",
    "containment",
    "topology",
    "path",
    "admin",
    "ordering",
    "centrality",
    "grid",
    "events",
    "direction",
    "shape",
    "fuzzy",
    "transform",
    "coords",
)


class Unsolvable(Exception):
    """The record does not state enough to compute the answer; ``reason`` is a short snake_case
    code."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass
class Problem:
    """What a solver may see: the record's public fields, its sub-template and the parsed facts."""

    question: Mapping[str, Any]
    sub: SubTemplate
    facts: Facts
    parameters: dict[str, Any]
    bindings: dict[str, str]

    @property
    def conventions(self) -> dict[str, Any]:
        return dict(self.sub.conventions or {})

    def param(self, name: str) -> Any:
        if name not in self.parameters:
            raise Unsolvable("missing_parameter", name)
        return self.parameters[name]


def solves(*executor_names: str) -> Callable[[SolverFn], SolverFn]:
    """Register ``fn`` as the solver of the given executor names (``distance.pair`` ...)."""

    def deco(fn: SolverFn) -> SolverFn:
        for name in executor_names:
            if name in SOLVERS:
                raise ValueError(f"two solvers for executor {name!r}")
            SOLVERS[name] = fn
        return fn

    return deco


def load_all() -> dict[str, SolverFn]:
    """Import every solver module (registration happens on import); missing modules are skipped."""
    for m in MODULES:
        try:
            importlib.import_module(f"{__name__}.{m}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{m}":
                raise
    return SOLVERS


@dataclass(frozen=True)
class Solution:
    question_id: str
    answer: dict | None  # the solver's gold-format answer, None when unsolved
    reason: str | None  # why unsolved (no_solver, Unsolvable reason, error:<type>)


def solve(question: Mapping[str, Any], catalog: Catalog | None = None) -> Solution:
    """Recompute one question's answer from its record. Never raises for a bad record: the reason is
    kept."""
    load_all()
    catalog = catalog or default_catalog()
    qid = question["question_id"]
    executor = str(question["executor"]).split("@", 1)[0]
    fn = SOLVERS.get(executor)
    if fn is None:
        return Solution(qid, None, "no_solver")
    try:
        sub = catalog.sub_template(question["sub_template_id"])
        problem = Problem(
            question,
            sub,
            Facts.of(question),
            _json(question.get("parameters")) or {},
            _json(question["bindings"]),
        )
        answer = fn(problem)
        return Solution(
            qid, formats.canonical(question["answer_format"], answer, allow_empty=True), None
        )
    except Unsolvable as exc:
        return Solution(qid, None, exc.reason)
    except (
        LookupError,
        ValueError,
        TypeError,
        ArithmeticError,
    ) as exc:  # a record the solver cannot read
        return Solution(qid, None, f"error:{type(exc).__name__}:{str(exc)[:160]}")


def solve_all(
    questions: Iterable[Mapping[str, Any]], catalog: Catalog | None = None
) -> list[Solution]:
    catalog = catalog or default_catalog()
    return [solve(q, catalog) for q in questions]


def _json(v: Any) -> Any:
    return json.loads(v) if isinstance(v, str) else v
