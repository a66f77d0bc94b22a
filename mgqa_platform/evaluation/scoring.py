"""Scoring predictions against released golds: per-question (E, e) and the paper's aggregate
metrics.

Per question (Table 12, :func:`mgqa_platform.questions.formats.score`): ``E`` in {0, 1} and ``e`` in
[0, 1]. A prediction is one line of a run (see :mod:`mgqa_platform.evaluation.runner`) with a
``status``:

============== ===================================================================================
answered        a parseable answer: scored by its format; entity names are resolved through the
alias store refused         the model rejected the premise / abstained (answer ``{"rejected":
true}``) format_error    the reply did not fit the answer type harness_error   the run failed for
this question (transport error, context overflow, missing prediction) budget_exhausted the agent ran
out of steps (not a refusal: excluded from FRR and NRR) skipped         the system did not attempt
the question (excluded from every denominator)
============== ===================================================================================

Aggregates over a group of questions (paper section 4, "Evaluation Metrics"); EM, NE, coverage and
FRR are computed over the *true-premise* questions, refusals and non-answers counting E = 0, e = 1:

* ``em`` = mean E, ``ne`` = mean e (both in percent);
* ``coverage`` = share with a parseable (non-refused) answer; ``em_covered`` = EM over those, so
  EM = coverage x EM_covered;
* ``frr`` (false-refusal rate) = refusals among answerable questions, budget exhaustion excluded;
* ``nrr`` (negative-rejection rate) = correct rejections among false-premise questions, budget
  exhaustion excluded;
* ``frr_premise_templates`` = FRR restricted to answerable questions of the sub-templates that also
  carry false premises (appendix G.7), so that premise detection is compared with abstention on like
  questions.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from mgqa_platform.questions import formats

STATUSES = ("answered", "refused", "format_error", "harness_error", "budget_exhausted", "skipped")


# ---------------------------------------------------------------- alias store
class AliasStore:
    """Entity resolution for name answers: normalised name (NFKC, casefold, whitespace folded) ->
    entity ids.

    Built from the ``gold_aliases`` of released records (``{entity_id: [every accepted name]}``:
    canonical name, display name and every label in every language) or from any ``(entity_id,
    name)`` pairs, e.g. the warehouse's ``entity_labels``. A name shared by several entities
    resolves to all of them.
    """

    def __init__(self, pairs: Iterable[tuple[str, str]] = ()):
        self._ids: dict[str, set[str]] = defaultdict(set)
        for eid, name in pairs:
            self.add(eid, name)

    def add(self, entity_id: str, name: str) -> None:
        if isinstance(name, str) and name.strip():
            self._ids[formats._norm_name(name)].add(entity_id)

    @classmethod
    def of_question(cls, question: Mapping[str, Any]) -> AliasStore:
        """The store of one record: its ``gold_aliases`` plus the names in its gold."""
        store = cls()
        aliases = _json(question.get("gold_aliases")) or {}
        if isinstance(aliases, dict):
            for eid, names in aliases.items():
                for n in names:
                    store.add(eid, n)
        gold = _json(question["gold"])
        for eid, n in zip(gold.get("entity_ids", []), gold.get("names", [])):
            store.add(eid, n)
        return store

    def resolve(self, name: str) -> set[str]:
        """Entity ids a name may denote (empty when unknown)."""
        return set(self._ids.get(formats._norm_name(name), ())) if isinstance(name, str) else set()


def resolve_entities(
    fmt: str, answer: Mapping[str, Any], gold: Mapping[str, Any], store: AliasStore
) -> dict:
    """Turn an entity answer given by ``names`` (and/or ``entity_ids``) into ``{"entity_ids":
    [...]}``.

    entity_name: only the first item counts (Table 12 resolves one answer); it is right when any
    entity it may denote is in the gold-acceptable set G* (ties included). set: each name becomes
    every gold entity it denotes (a name cannot tell apart two gold entities that bear it, so naming
    it once names both), else one entity it denotes, else a distinct unknown item, so Jaccard counts
    it as wrong.
    """
    gold_ids = set(gold.get("entity_ids", []))
    items: list[tuple[str, str]] = [("id", i) for i in answer.get("entity_ids", []) or []]
    items += [("name", n) for n in answer.get("names", []) or []]
    if not items or not all(isinstance(v, str) for _, v in items):
        raise formats.GoldError("malformed_prediction", "no entity ids or names")
    if fmt == "entity_name":
        items = items[:1]
    out: list[str] = []
    for kind, v in items:
        if kind == "id":
            out.append(v.strip())
            continue
        ids = store.resolve(v)
        golds = sorted(ids & gold_ids)
        if golds:
            out.extend(golds)
        else:
            out.append(sorted(ids)[0] if ids else f"unresolved:{formats._norm_name(v)}")
    return {"entity_ids": sorted(set(out))}


# ---------------------------------------------------------------- per question
@dataclass(frozen=True)
class QuestionScore:
    question_id: str
    status: str
    covered: bool  # a parseable, non-refused answer
    refused: bool
    em: float  # E_i
    ne: float  # e_i
    detail: str | None = None


def score_question(
    question: Mapping[str, Any],
    prediction: Mapping[str, Any] | None,
    store: AliasStore | None = None,
) -> QuestionScore:
    """(E, e) and coverage flags of one prediction for one released question; never raises on bad
    predictions."""
    qid = question["question_id"]
    fmt = question["answer_format"]
    gold = _json(question["gold"])
    if prediction is None:
        return QuestionScore(qid, "harness_error", False, False, 0.0, 1.0, "missing_prediction")
    status = prediction.get("status", "answered")
    if status not in STATUSES:
        return QuestionScore(
            qid, "format_error", False, False, 0.0, 1.0, f"unknown_status:{status}"
        )
    answer = prediction.get("answer")
    if status == "answered" and (
        formats.is_rejection(answer) or (fmt == "set" and formats.is_empty_set(answer))
    ):  # "none of them" to a set question rejects its premise that some member exists
        status = "refused"
    if status == "refused":
        ok = formats.is_rejection(gold)
        return QuestionScore(
            qid, "refused", False, True, float(ok), 0.0 if ok else 1.0, prediction.get("detail")
        )
    if status != "answered":
        return QuestionScore(qid, status, False, False, 0.0, 1.0, prediction.get("detail"))
    if not isinstance(answer, dict):
        return QuestionScore(qid, "format_error", False, False, 0.0, 1.0, "answer_not_an_object")
    if formats.is_rejection(gold):  # any answer to a false-premise question is wrong
        return QuestionScore(qid, "answered", True, False, 0.0, 1.0, None)
    try:
        if fmt in ("entity_name", "set"):
            answer = resolve_entities(fmt, answer, gold, store or AliasStore.of_question(question))
        formats.distance(
            fmt, answer, gold
        )  # raises GoldError for an answer that does not fit the format
        E, e = formats.score(fmt, answer, gold)
    except (formats.GoldError, TypeError, ValueError, KeyError, AttributeError) as exc:
        return QuestionScore(qid, "format_error", False, False, 0.0, 1.0, str(exc)[:200])
    return QuestionScore(qid, "answered", True, False, float(E), float(e), None)


# ---------------------------------------------------------------- aggregates
@dataclass(frozen=True)
class Metrics:
    n: int  # true-premise questions counted (skipped excluded)
    n_false_premise: int
    em: float  # percent
    ne: float  # percent
    coverage: float  # percent
    em_covered: float  # percent (nan when nothing is covered)
    frr: float  # percent
    nrr: float  # percent (nan without false-premise questions)
    frr_premise_templates: float  # percent (nan when no such template)

    def as_dict(self) -> dict:
        return {
            k: (
                None
                if isinstance(v, float) and math.isnan(v)
                else (round(v, 4) if isinstance(v, float) else v)
            )
            for k, v in asdict(self).items()
        }


def _pct(num: float, den: float) -> float:
    return 100.0 * num / den if den else float("nan")


def aggregate(rows: Iterable[Mapping[str, Any]]) -> Metrics:
    """Metrics over score rows carrying ``false_premise``, ``status``, ``covered``, ``refused``,
    ``em``, ``ne`` and ``premise_template`` (True when the row's sub-template carries false
    premises)."""
    tp = fp = 0
    em = ne = covered = em_cov = 0.0
    refusals_tp = denom_frr = refusals_fp = denom_nrr = 0
    pt_ref = pt_den = 0
    for r in rows:
        if r["status"] == "skipped":
            continue
        if r["false_premise"]:
            fp += 1
            if r["status"] != "budget_exhausted":
                denom_nrr += 1
                refusals_fp += bool(r["refused"])
            continue
        tp += 1
        em += r["em"]
        ne += r["ne"]
        if r["covered"]:
            covered += 1
            em_cov += r["em"]
        if r["status"] != "budget_exhausted":
            denom_frr += 1
            refusals_tp += bool(r["refused"])
            if r.get("premise_template"):
                pt_den += 1
                pt_ref += bool(r["refused"])
    return Metrics(
        tp,
        fp,
        _pct(em, tp),
        _pct(ne, tp),
        _pct(covered, tp),
        _pct(em_cov, covered),
        _pct(refusals_tp, denom_frr),
        _pct(refusals_fp, denom_nrr),
        _pct(pt_ref, pt_den),
    )


def _json(v: Any) -> Any:
    return json.loads(v) if isinstance(v, str) else v
