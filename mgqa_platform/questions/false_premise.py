"""False-premise questions (paper §3.4): satisfiable tuples perturbed so that the template's premise is false.

A sub-template takes part when its catalog entry has a ``premise`` and a ``perturb_role`` and its executor
implements ``premise_sql`` / ``premise_holds``. For a seeded share of its true questions, the binding of
``perturb_role`` is replaced by another entity (or category) of the same role type from the same KG and
stratum, tried in seeded order; the premise query then runs once for the whole batch, and the first
replacement for which the premise is **false** makes a false-premise question. Its gold is
:data:`formats.REJECTION`, its ``query`` is the premise query bound to that tuple (re-running it shows the
premise failing), and ``perturbation`` records the role, the original and the replacement binding.

The share is :data:`SHARE` of the whole English set (the paper has 3,589 of 46,060 = 7.8 %), drawn from the
sub-templates where a premise exists: a seeded ``SHARE / (1 - SHARE) * N_true / N_eligible`` of their questions
is perturbed, and a second round over the questions not picked yet tops up the perturbations whose premise
stayed true. When the eligible questions are too few, the share falls short (reported as asset metadata).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import duckdb
import pyarrow as pa
from shapely.geometry.base import BaseGeometry

from mgqa_platform.questions import coverage, formats, roles
from mgqa_platform.questions.catalog import Catalog, SubTemplate
from mgqa_platform.questions.execution import (
    LANG,
    Execution,
    arrow_column,
    create_pool,
    entity_info,
    entity_subjects,
    gold_triples,
    render,
)
from mgqa_platform.questions.executor import Outcome, Pool, replay_sql, stable_hash, t_columns
from mgqa_platform.questions.executors import EXECUTORS

SHARE = 0.078
TRIES = 4  # replacements tried per question before giving up (counted as premise_still_holds)
REPLACEMENTS_PER_STRATUM = 60


def eligible(catalog: Catalog) -> list[SubTemplate]:
    """Sub-templates with a premise, a perturb role and an executor that can test the premise."""
    return [
        s
        for s in catalog.sub_templates
        if s.premise
        and s.perturb_role
        and s.executor in EXECUTORS
        and EXECUTORS[s.executor].premise_sql(s)
    ]


def _selected(questions: list[dict], rate: float, seed: int) -> list[dict]:
    """A seeded ``rate`` share of ``questions``: those whose hash falls below the rate."""
    return [
        q
        for q in questions
        if int(stable_hash(seed, "false-premise", q["question_id"]), 16) / 16**16 < rate
    ]


def _replacement_pool(
    con: duckdb.DuckDBPyConnection, sub: SubTemplate, pool: Pool
) -> dict[str, list[str]]:
    """Seeded replacement bindings per stratum for ``sub.perturb_role`` (entity ids or category names)."""
    rtype = sub.roles[sub.perturb_role]
    salt = f"{sub.id}|perturb"
    if roles.is_category(rtype):
        sql = f"SELECT stratum, category AS v, rn FROM ({pool.sample_categories(rtype, salt, REPLACEMENTS_PER_STRATUM)})"
    else:
        sql = f"SELECT stratum, entity_id AS v, rn FROM ({pool.sample(rtype, salt, REPLACEMENTS_PER_STRATUM)})"
    out: dict[str, list[str]] = defaultdict(list)
    for stratum, v, _ in con.execute(sql + " ORDER BY stratum, rn").fetchall():
        out[stratum].append(v)
    return out


def _premise_rows(con, sub: SubTemplate, rows: list[dict]) -> dict[int, dict]:
    executor = EXECUTORS[sub.executor]
    cols = t_columns(sub)
    con.register("t", pa.table({c: arrow_column([r[c] for r in rows]) for c in cols}))
    try:
        cur = con.execute(f"SELECT * FROM ({executor.premise_sql(sub)}) AS q")
        names = [d[0] for d in cur.description]
        return {r[0]: dict(zip(names, r, strict=True)) for r in cur.fetchall()}
    finally:
        con.unregister("t")


def perturb(
    con: duckdb.DuckDBPyConnection,
    catalog: Catalog,
    questions: list[dict],
    kgs: Iterable[str],
    *,
    seed: int,
    seen: set[tuple[str, str]],
    run_id: str = "",
    code_version: str = "",
    share: float = SHARE,
) -> tuple[list[dict], Counter]:
    """False-premise questions derived from the true ``questions`` (rows of ``questions_en``).

    Returns the new rows and a Counter of failures keyed (kg, sub_template_id, stratum, reason).
    ``seen`` holds the (text, gold) pairs already used and is updated.
    """
    subs = {s.id: s for s in eligible(catalog)}
    pool_questions = [q for q in questions if q["sub_template_id"] in subs]
    if not pool_questions:
        return [], Counter()
    target = round(share / (1 - share) * len(questions))
    failures: Counter = Counter()
    out: list[dict] = []
    picked: set[str] = set()
    for round_ in (
        1,
        2,
        3,
    ):  # later rounds top up what perturbations that kept the premise true cost
        rest = [q for q in pool_questions if q["question_id"] not in picked]
        if len(out) >= target or not rest:
            break
        success = len(out) / len(picked) if picked else 1.0
        rate = min(1.0, (target - len(out)) / len(rest) / max(success, 0.25))
        batch = _selected(rest, rate, seed + round_ - 1)
        picked.update(q["question_id"] for q in batch)
        out += _perturb_batch(con, subs, batch, kgs, seed, seen, failures, run_id, code_version)
    out.sort(key=lambda q: q["question_id"])
    return out, failures


def _perturb_batch(con, subs, batch, kgs, seed, seen, failures, run_id, code_version) -> list[dict]:
    out = []
    for kg in kgs:
        mine = [q for q in batch if q["kg"] == kg]
        if not mine:
            continue
        create_pool(con, kg)
        pool = Pool(kg, seed)
        area = coverage.kg_coverage(con, kg)
        by_sub: dict[str, list[dict]] = defaultdict(list)
        for q in mine:
            by_sub[q["sub_template_id"]].append(q)
        made: list[tuple[Execution, dict, dict]] = []  # execution, question, perturbation
        for sub_id in sorted(by_sub):
            made += _perturb_sub(con, subs[sub_id], pool, by_sub[sub_id], failures, area)
        out += _rows(con, made, seen, failures, kg, run_id, code_version)
    return out


def _perturb_sub(
    con,
    sub: SubTemplate,
    pool: Pool,
    questions: list[dict],
    failures: Counter,
    area: BaseGeometry | None = None,
) -> list[tuple[Execution, dict, dict]]:
    """Try up to TRIES replacements per question; keep the first whose premise is false and whose
    support (the sub-template's ``premise_support`` or ``support``) lies inside ``area``, the KG's
    coverage (questions/coverage.py): a premise is false only where the KG holds every feature."""
    replacements = _replacement_pool(con, sub, pool)
    role = sub.perturb_role
    trials: list[tuple[dict, dict]] = []  # (question, t row)
    for q in questions:
        bindings, params = json.loads(q["bindings"]), json.loads(q["parameters"])
        candidates = [v for v in replacements.get(q["stratum"], []) if v not in bindings.values()]
        start = int(stable_hash(pool.seed, q["question_id"], "start"), 16) % max(1, len(candidates))
        for v in (candidates[start:] + candidates[:start])[:TRIES]:
            values = {"kg": pool.kg, **bindings, **{p: params[p] for p in sub.parameters}, role: v}
            trials.append((q, {"row_id": len(trials), **values}))
    if not trials:
        for q in questions:
            failures[(pool.kg, sub.id, q["stratum"], "no_replacement")] += 1
        return []
    executor = EXECUTORS[sub.executor]
    results = _premise_rows(con, sub, [t for _, t in trials])
    inside = coverage.covered(con, area, sub, [(t, ()) for _, t in trials], premise=True)
    done: dict[str, tuple[Execution, dict, dict]] = {}
    beyond: set[str] = set()
    for (q, t), ok in zip(trials, inside, strict=True):
        res = results.get(t["row_id"])
        if q["question_id"] in done or res is None or executor.premise_holds(sub, res):
            continue
        if not ok:
            beyond.add(q["question_id"])
            continue
        values = {k: v for k, v in t.items() if k != "row_id"}
        ex = Execution(
            sub,
            pool.kg,
            q["stratum"],
            values,
            Outcome(dict(formats.REJECTION), extras=json.loads(q["parameters"])),
            q["question_id"],
        )
        perturbation = {
            "role": role,
            "original": json.loads(q["bindings"])[role],
            "replacement": t[role],
            "premise": sub.premise,
            "derived_from": q["question_id"],
        }
        done[q["question_id"]] = (ex, q, perturbation)
    for q in questions:
        if q["question_id"] not in done:
            reason = coverage.REASON if q["question_id"] in beyond else "premise_still_holds"
            failures[(pool.kg, sub.id, q["stratum"], reason)] += 1
    return [done[k] for k in sorted(done)]


def _rows(con, made, seen, failures, kg, run_id, code_version) -> list[dict]:
    if not made:
        return []
    ids = sorted(
        {e.values[r] for e, _, _ in made for r in e.sub.entity_roles}
        | {i for e, _, _ in made for i in e.outcome.evidence}
    )
    info = entity_info(con, ids)
    keep = []
    for e, q, pert in made:
        sub = e.sub
        _, variant = _variant(sub, q["variant_id"])
        names = {i: info[i]["display_name"] for i in (e.values[r] for r in sub.entity_roles)}
        text = render(variant.text, sub, e.values, names, e.outcome.extras, marked=False)
        key = (text, json.dumps(formats.REJECTION, sort_keys=True))
        if key in seen:
            failures[(kg, sub.id, e.stratum, "duplicate_question")] += 1
            continue
        seen.add(key)
        keep.append((e, q, pert, variant, names, text))
    triples = gold_triples(con, [k[0] for k in keep])
    rows = []
    for (e, q, pert, variant, names, text), cited in zip(keep, triples, strict=True):
        sub, executor = e.sub, EXECUTORS[e.sub.executor]
        bindings = {r: e.values[r] for r in sub.roles}
        params = {p: e.values[p] for p in sub.parameters}
        rows.append(
            {
                **q,
                "question_id": "q"
                + stable_hash(
                    variant.id,
                    kg,
                    json.dumps(bindings, sort_keys=True),
                    json.dumps(params, sort_keys=True),
                    LANG,
                    "false_premise",
                ),
                "text": text,
                "text_marked": render(variant.text, sub, e.values, names, e.outcome.extras, True),
                "gold": json.dumps(formats.REJECTION, sort_keys=True),
                "gold_aliases": "{}",
                "unit": None,
                "bindings": json.dumps(bindings, sort_keys=True, ensure_ascii=False),
                "query": replay_sql(
                    executor, sub, {"row_id": 0, **e.values}, sql=executor.premise_sql(sub)
                ),
                "gold_triples": json.dumps(cited, ensure_ascii=False),
                "entity_subjects": json.dumps(
                    entity_subjects(e, info), sort_keys=True, ensure_ascii=False
                ),
                "false_premise": True,
                "perturbation": json.dumps(pert, sort_keys=True, ensure_ascii=False),
                "snapshot_ids": sorted({info[i]["snapshot_id"] for i in names}),
                "code_version": code_version,
                "run_id": run_id,
            }
        )
    return rows


def _variant(sub: SubTemplate, variant_id: str):
    for v in sub.variants:
        if v.id == variant_id:
            return sub, v
    raise KeyError(variant_id)


def premise_replay(
    con: duckdb.DuckDBPyConnection, sub: SubTemplate, question: Mapping[str, Any]
) -> bool:
    """Re-run a false-premise question's stored premise query: True when the premise (still) holds."""
    cur = con.execute(question["query"])
    names = [d[0] for d in cur.description]
    rows = cur.fetchall()
    if len(rows) != 1:
        raise RuntimeError(
            f"premise query of {question['question_id']} returned {len(rows)} rows, expected 1"
        )
    return EXECUTORS[sub.executor].premise_holds(sub, dict(zip(names, rows[0], strict=True)))
