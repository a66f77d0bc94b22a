"""Reference systems that need no model: the gold itself, the majority-class baseline, the reference
solver.

Each returns predictions in the run-file shape (``{question_id: {"status", "answer", "detail"}}``),
so the scorer treats them exactly like a model's run.

* ``gold``: every gold answer predicted as is. Scoring it must give EM 100, NE 0 and NRR 100: a
  standing test of the scorer and of the golds' validity.
* ``majority``: per sub-template, the most frequent gold among its true-premise questions in the
  evaluated set (ties broken by the smallest canonical JSON), predicted for every question of that
  sub-template, false premises included (so its NRR is 0 and its coverage 100, as in the paper's
  Table 4).
* ``reference_solver``: :mod:`mgqa_platform.evaluation.solver` on the true-premise questions;
  false-premise questions are ``skipped`` (the solver recomputes answers, it does not judge
  premises).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from mgqa_platform.evaluation import solver
from mgqa_platform.questions import formats

SYSTEMS = ("gold", "majority", "reference_solver")


def gold_predictions(questions: Iterable[Mapping[str, Any]]) -> dict[str, dict]:
    return {
        q["question_id"]: {"status": "answered", "answer": json.loads(q["gold"]), "detail": None}
        for q in questions
    }


def majority_answers(questions: Iterable[Mapping[str, Any]]) -> dict[str, dict]:
    """Sub-template id -> its most frequent true-premise gold (ties: smallest canonical JSON)."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for q in questions:
        if not q["false_premise"]:
            g = formats.canonical(q["answer_format"], json.loads(q["gold"]), allow_empty=True)
            counts[q["sub_template_id"]][json.dumps(g, sort_keys=True, ensure_ascii=False)] += 1
    return {
        sub: json.loads(min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0])
        for sub, c in counts.items()
    }


def majority_predictions(questions: Iterable[Mapping[str, Any]]) -> dict[str, dict]:
    questions = list(questions)
    best = majority_answers(questions)
    out = {}
    for q in questions:
        answer = best.get(q["sub_template_id"])
        out[q["question_id"]] = (
            {"status": "answered", "answer": answer, "detail": None}
            if answer is not None
            else {"status": "skipped", "answer": None, "detail": "no_true_premise_question"}
        )
    return out


def solver_predictions(questions: Iterable[Mapping[str, Any]]) -> dict[str, dict]:
    out = {}
    for q in questions:
        if q["false_premise"]:
            out[q["question_id"]] = {"status": "skipped", "answer": None, "detail": "false_premise"}
            continue
        s = solver.solve(q)
        out[q["question_id"]] = (
            {"status": "answered", "answer": s.answer, "detail": None}
            if s.answer is not None
            else {"status": "harness_error", "answer": None, "detail": s.reason}
        )
    return out


def predictions_for(system: str, questions: list[Mapping[str, Any]]) -> dict[str, dict]:
    if system == "gold":
        return gold_predictions(questions)
    if system == "majority":
        return majority_predictions(questions)
    if system == "reference_solver":
        return solver_predictions(questions)
    raise ValueError(f"unknown system {system!r}; expected one of {SYSTEMS} or a predictions file")
