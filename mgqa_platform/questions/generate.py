"""Question instantiation with execution-based ground truth (paper §3.3; docs/questions.md).

For every sub-template with a built executor and every KG, SQL proposes candidate tuples (per group
of strata, on the group's cell neighbourhood, built once and shared, for the executors whose
candidates stay in their stratum or whose partners share the anchors' H3 cells; for all strata at
once on the KG's pool for the others), one batch of SQL computes their raw results (on
the entity rows it can read, ``executor.gold_query``), and the executor's pure ``finish`` turns
each into a typed gold answer or a counted
discard reason; tuples whose support area reaches past the KG's coverage are dropped as
``beyond_coverage`` (questions/coverage.py), golds a constant predictor hits as ``trivial``
(questions/triviality.py). Per (template, KG, stratum) cell the generator then keeps at most
:data:`CAP` tuples (round-robin over the template's sub-templates, each in seeded order), drops
duplicate (question, gold) pairs, draws one English variant per tuple with a seeded RNG, renders the
text, and cites the gold triples. Over all KGs, the most common gold value of a sub-template keeps
at most 60% of its questions (surplus ``trivial``); the multimodal slice is derived from the kept
questions, false premises from the kept questions and the reserve (valid tuples of the refusable
sub-templates past the cap). Same inputs and seed -> byte-identical rows.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import duckdb
import pyarrow as pa

from mgqa_platform.question_schema import QUESTION_SCHEMA, arrow_table
from mgqa_platform.questions import (
    coverage,
    false_premise,
    formats,
    multimodal,
    role_rules,
    triviality,
)
from mgqa_platform.questions.catalog import Catalog, SubTemplate, catalog_rows
from mgqa_platform.questions.execution import (
    LANG,
    Execution,
    arrow_column,
    create_cell_pool,
    create_gold_rows,
    create_pool,
    create_pool_samples,
    entity_info,
    entity_subjects,
    gold_triples,
    render,
)
from mgqa_platform.questions.executor import (
    Executor,
    Outcome,
    Pool,
    gold_query,
    replay_sql,
    stable_hash,
    t_columns,
)
from mgqa_platform.questions.executors import EXECUTORS
from mgqa_platform.warehouse import CONNECTION_CONFIG, registered, transaction

CAP = 30
DEFAULT_SEED = 20260101
#: DuckDB memory budget while generating (the warehouse default is 1 GB, sized for streaming
#: conversion): the candidate joins of the polygon and event templates hold more at once on large
#: entity tables
MEMORY_LIMIT = "4GB"
#: Stratum rows one candidate pool of the bounded executors takes at most (``pooled_candidates``):
#: smaller strata share a pool, so that each pool is built and queried once for many of them; a
#: larger stratum has a pool of its own (its cell neighbourhood, bounded by the stratum, not the KG)
POOL_ROWS = 25_000


@dataclass
class Generation:
    questions: list[dict] = field(default_factory=list)
    discards: Counter = field(
        default_factory=Counter
    )  # (kg, sub_template_id, stratum, reason) -> n


def _draw_parameters(sub: SubTemplate, pool: Pool, row: dict) -> None:
    key = [row[r] for r in sub.roles]
    for name, choices in sub.parameters.items():
        if name not in row or row[name] is None:
            rng = random.Random(stable_hash(pool.seed, sub.id, pool.kg, name, *key))
            row[name] = rng.choice(choices)


def candidate_rows(
    con: duckdb.DuckDBPyConnection, sub: SubTemplate, pool: Pool, executor: Executor | None = None
) -> list[dict]:
    """The candidate tuples of ``sub`` over the current ``pool`` table (see :func:`create_pool`) of
    the strata ``pool`` keeps (:meth:`Pool.kept`), as dicts."""
    executor = executor or EXECUTORS[sub.executor]
    cur = con.execute(
        f"SELECT * FROM ({executor.candidates(sub, pool)}) AS c WHERE {pool.kept('c')}"
    )
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def kg_strata(con: duckdb.DuckDBPyConnection, kg: str) -> list[str]:
    """The strata that ``kg``'s entities fall in, sorted (entities without a stratum are in no
    pool)."""
    return sorted(stratum_sizes(con, kg))


def stratum_sizes(con: duckdb.DuckDBPyConnection, kg: str) -> dict[str, int]:
    """Stratum -> how many of ``kg``'s entities fall in it (entities without a stratum are in
    none)."""
    rows = con.execute(
        """
        SELECT stratum, count(*)
        FROM entity_strata
        WHERE kg = ? AND stratum IS NOT NULL
        GROUP BY stratum
        """,
        [kg],
    ).fetchall()
    return dict(rows)


def stratum_groups(sizes: Mapping[str, int], max_rows: int) -> list[tuple[str, ...]]:
    """The strata of ``sizes`` (stratum -> rows) packed into groups of at most ``max_rows`` rows,
    first fit in decreasing size (ties by name), each group sorted; a stratum larger than
    ``max_rows`` is a group of its own. Every stratum is in exactly one group; same sizes -> same
    groups."""
    groups: list[list[str]] = []
    totals: list[int] = []
    for stratum in sorted(sizes, key=lambda s: (-sizes[s], s)):
        fit = next((i for i, t in enumerate(totals) if t + sizes[stratum] <= max_rows), None)
        if fit is None:
            groups.append([stratum])
            totals.append(sizes[stratum])
        else:
            groups[fit].append(stratum)
            totals[fit] += sizes[stratum]
    return [tuple(sorted(g)) for g in groups]


def is_bounded(executor: Executor) -> bool:
    """Whether the generator draws ``executor``'s candidates without the pool of the whole KG."""
    return executor.stratum_local or executor.cell_local


def pooled_candidates(
    con: duckdb.DuckDBPyConnection,
    subs: list[SubTemplate],
    pool: Pool,
    pool_rows: int = POOL_ROWS,
) -> dict[str, list[dict]]:
    """Sub-template id -> its candidate tuples in ``pool.kg``, each drawn from the smallest pool
    that gives the same tuples. The executors that are :attr:`Executor.stratum_local` or
    :attr:`Executor.cell_local` run once per group of strata (:func:`stratum_groups`, at most
    ``pool_rows`` stratum rows a group unless one stratum has more) on that group's cell
    neighbourhood (:func:`create_cell_pool`), built once per group and shared by all of them, with
    the rows of every sample they name (:func:`create_pool_samples`, once per KG); each keeps the
    tuples of the group's strata (:attr:`Pool.strata`). The others run once on the pool of the whole
    KG, built only when one of ``subs`` needs it (docs/questions.md, "Bounded candidate pools")."""
    bounded = [s for s in subs if is_bounded(EXECUTORS[s.executor])]
    cross = [s for s in subs if not is_bounded(EXECUTORS[s.executor])]
    out: dict[str, list[dict]] = {s.id: [] for s in subs}
    if bounded:
        samples = {x for s in bounded for x in EXECUTORS[s.executor].cell_samples(s)}
        sampled = create_pool_samples(con, pool, tuple(sorted(samples)))
        for group in stratum_groups(stratum_sizes(con, pool.kg), pool_rows):
            create_cell_pool(con, pool.kg, group, sampled)
            kept = replace(pool, strata=group)
            for sub in bounded:
                out[sub.id] += candidate_rows(con, sub, kept)
    if cross:
        create_pool(con, pool.kg)
        for sub in cross:
            out[sub.id] = candidate_rows(con, sub, pool)
    return out


def bound_ids(subs: list[SubTemplate], cands: Mapping[str, list[dict]]) -> set[str]:
    """The entity ids bound in the candidate tuples ``cands`` (sub-template id -> tuples) of the
    ``subs`` whose executor is :attr:`Executor.gold_bound_only`: the rows their gold batches
    read."""
    return {
        c[role]
        for sub in subs
        if EXECUTORS[sub.executor].gold_bound_only
        for c in cands.get(sub.id, [])
        for role in sub.entity_roles
    }


def execute_sub_template(
    con: duckdb.DuckDBPyConnection,
    sub: SubTemplate,
    pool: Pool,
    executor: Executor | None = None,
    cand: list[dict] | None = None,
    gold_rows: str | None = None,
) -> tuple[list[Execution], Counter]:
    """Run one sub-template for all strata at once: on the candidate tuples ``cand``
    (:func:`pooled_candidates`), or when None on those of the current ``pool``
    (:func:`create_pool`); the gold query reads the bound rows from the table ``gold_rows`` when
    given (:func:`gold_query`).

    Returns the verified executions and a Counter of discard reasons keyed (stratum, reason).
    """
    executor = executor or EXECUTORS[sub.executor]
    if cand is None:
        cand = candidate_rows(con, sub, pool, executor)
    discards: Counter = Counter()
    if not cand:
        return [], discards
    cols = t_columns(sub)
    rows = []
    for i, c in enumerate(cand):
        row = {
            "row_id": i,
            "kg": pool.kg,
            **{r: c[r] for r in sub.roles},
            **{p: c.get(p) for p in sub.parameters},
        }
        _draw_parameters(sub, pool, row)
        rows.append(row)
    t = pa.table({c: arrow_column([r[c] for r in rows]) for c in cols})
    with registered(con, t=t):
        cur = con.execute(f"SELECT * FROM ({gold_query(executor, sub, gold_rows)}) AS q")
        rnames = [d[0] for d in cur.description]
        results = {}
        for r in cur.fetchall():
            d = dict(zip(rnames, r, strict=True))
            if d["row_id"] in results:
                raise RuntimeError(
                    f"{executor.name}: gold_sql returned several rows for row_id {d['row_id']}"
                )
            results[d["row_id"]] = d
    out = []
    for row, c in zip(rows, cand, strict=True):
        stratum = c["stratum"]
        res = results.get(row["row_id"])
        if res is None:
            discards[(stratum, "no_result")] += 1
            continue
        outcome = executor.finish(sub, res)
        if outcome.gold is None:
            discards[(stratum, outcome.reason or "degenerate")] += 1
            continue
        try:
            gold = formats.canonical(sub.answer_format, outcome.gold)
        except formats.GoldError as exc:
            discards[(stratum, f"invalid_gold:{exc.reason}")] += 1
            continue
        outcome = Outcome(
            gold,
            None,
            tuple(sorted(set(outcome.evidence))),
            dict(outcome.extras),
            tuple(outcome.facts),
        )
        values = {k: v for k, v in row.items() if k != "row_id"}
        order = stable_hash(pool.seed, sub.id, pool.kg, stratum, *[values[k] for k in cols[1:]])
        out.append(Execution(sub, pool.kg, stratum, values, outcome, order))
    return out, discards


def replay(con: duckdb.DuckDBPyConnection, catalog: Catalog, question: Mapping[str, Any]) -> dict:
    """Re-run a question's stored query and its executor's ``finish``: returns the canonical gold.
    For a false-premise question the query is the premise query: the gold is REJECTION while the
    premise is false.

    Raises ``RuntimeError`` when the query does not return exactly one row or the execution is now
    degenerate.
    """
    sub = catalog.sub_template(question["sub_template_id"])
    executor = EXECUTORS[question["executor"].split("@")[0]]
    if question.get("false_premise"):
        if false_premise.premise_replay(con, sub, question):
            raise RuntimeError(
                f"the premise of false-premise question {question['question_id']} holds now"
            )
        return dict(formats.REJECTION)
    outcome = executor.finish(sub, false_premise.stored_query_row(con, question))
    if outcome.gold is None:
        raise RuntimeError(
            f"replay of {question['question_id']} is degenerate now: {outcome.reason}"
        )
    return formats.canonical(sub.answer_format, outcome.gold)


def _round_robin(groups: list[list[Execution]]) -> Iterable[Execution]:
    groups = [sorted(g, key=lambda e: e.order) for g in groups]
    for i in range(max((len(g) for g in groups), default=0)):
        for g in groups:
            if i < len(g):
                yield g[i]


def generate(
    con: duckdb.DuckDBPyConnection,
    catalog: Catalog,
    kgs: Iterable[str],
    *,
    seed: int = DEFAULT_SEED,
    run_id: str = "",
    code_version: str = "",
    cap: int = CAP,
    only: set[str] | None = None,
    false_premises: bool = True,
    multimodal_slice: bool = True,
    memory_limit: str = MEMORY_LIMIT,
    non_trivial: bool = True,
) -> Generation:
    """Instantiate every sub-template that has an executor (or those in ``only``) for each KG, then
    derive the false-premise questions (questions/false_premise.py) and the multimodal slice
    (questions/multimodal.py).

    ``only`` filters by SFID, TID or sub-template id. ``non_trivial`` applies the rules of
    questions/triviality.py (the platform always does; an executor test on a hand-made world of a
    few entities, whose golds are naturally alike, switches them off to see every tuple). Rows come
    back sorted by ``question_id``. DuckDB's memory limit is raised to ``memory_limit`` for the
    duration, then set back to the platform's connection budget (``warehouse.CONNECTION_CONFIG``).
    """
    kgs = list(kgs)
    gen = Generation()
    seen: set[tuple[str, str]] = (
        set()
    )  # (text, gold) over all KGs: worldkg and osmh3kg share OSM nodes
    subs = [
        sub
        for tpl in catalog.templates
        for sub in tpl.sub_templates
        if sub.executor in EXECUTORS and (not only or {sub.sfid, sub.tid, sub.id} & only)
    ]
    spare_subs = {s.id for s in false_premise.eligible(catalog)} if false_premises else set()
    reserve: list[dict] = []
    with _memory_limit(con, memory_limit):
        for kg in kgs:
            by_cell = _executions_by_cell(con, catalog, subs, kg, seed, non_trivial, gen.discards)
            rows, spare = _instantiate(
                con, by_cell, gen.discards, seen, kg, seed, run_id, code_version, cap, spare_subs
            )
            gen.questions += rows
            reserve += spare
        if non_trivial:
            gen.questions = _cap_gold_values(gen.questions, gen.discards, seed)
        if false_premises:  # derived from valid true tuples: kept questions first, then the reserve
            fp, failed = false_premise.perturb(
                con,
                catalog,
                gen.questions,
                kgs,
                seed=seed,
                seen=seen,
                run_id=run_id,
                code_version=code_version,
                reserve=reserve,
            )
            for (kg, sub_id, stratum, reason), n in failed.items():
                gen.discards[(kg, sub_id, stratum, f"false_premise:{reason}")] += n
            gen.questions += fp
        if multimodal_slice:
            mm, lost = multimodal.twins(con, gen.questions, seen)
            gen.discards.update(lost)
            gen.questions += mm
    gen.questions.sort(key=lambda q: q["question_id"])
    return gen


@contextlib.contextmanager
def _memory_limit(con: duckdb.DuckDBPyConnection, limit: str) -> Iterator[None]:
    """DuckDB's memory limit at ``limit`` for the block, then back to the platform's connection
    budget (DuckDB reports limits rounded, so no read-back)."""
    con.execute(f"SET memory_limit = '{limit}'")
    try:
        yield
    finally:
        con.execute(f"SET memory_limit = '{CONNECTION_CONFIG['memory_limit']}'")


def _executions_by_cell(
    con: duckdb.DuckDBPyConnection,
    catalog: Catalog,
    subs: list,
    kg: str,
    seed: int,
    non_trivial: bool,
    discards: Counter,
) -> dict[tuple[str, str], list[list[Execution]]]:
    """The kept executions of ``kg`` per (template, stratum) cell, one group per sub-template:
    candidates executed, those outside the KG's coverage and (``non_trivial``) the trivial ones
    counted in ``discards`` and dropped."""
    pool = Pool(kg, seed)
    cands = pooled_candidates(con, subs, pool)
    gold_rows = create_gold_rows(con, bound_ids(subs, cands))
    centre = covered_centre(con, kg)
    area = coverage.kg_coverage(con, kg)
    by_cell: dict[tuple[str, str], list[list[Execution]]] = defaultdict(list)
    for tpl in catalog.templates:
        for sub in tpl.sub_templates:
            if sub.id not in cands:
                continue
            execs, dis = execute_sub_template(
                con, sub, pool, cand=cands[sub.id], gold_rows=gold_rows
            )
            execs, beyond = coverage.keep_covered(con, area, sub, execs)
            dis.update(beyond)
            execs, unfit = role_rules.keep_role_fit(con, sub, execs)
            dis.update(unfit)
            if non_trivial:
                execs, trivial = _non_trivial(sub, execs, centre)
                dis.update(trivial)
            for (stratum, reason), n in dis.items():
                discards[(kg, sub.id, stratum, reason)] += n
            per_stratum: dict[str, list[Execution]] = defaultdict(list)
            for e in execs:
                per_stratum[e.stratum].append(e)
            for stratum, group in per_stratum.items():
                by_cell[(tpl.tid, stratum)].append(group)
    return by_cell


def covered_centre(con: duckdb.DuckDBPyConnection, kg: str) -> tuple[float, float] | None:
    """Centre ``(lon, lat)`` (WGS84 degrees) of the bounding box of ``kg``'s entity points: the
    "centre of the covered area" a lazy model answers for point questions. None for a KG without
    entities."""
    row = con.execute(
        """
        SELECT (min(lon) + max(lon)) / 2, (min(lat) + max(lat)) / 2
        FROM entities
        WHERE kg = ?
        """,
        [kg],
    ).fetchone()
    return None if row is None or row[0] is None else (float(row[0]), float(row[1]))


def _non_trivial(
    sub: SubTemplate, execs: list[Execution], centre: tuple[float, float] | None
) -> tuple[list[Execution], Counter]:
    """The executions of one (sub-template, KG) whose gold no fixed constant hits, with the most
    common gold value capped in this pool already when the pool holds other values too, so that the
    cells fill from a balanced pool (questions/triviality.py); the dropped ones counted ``(stratum,
    "trivial")``. The cap over all KGs (:func:`_cap_gold_values`) still decides the sub-template's
    final shares."""
    constants = triviality.fixed_predictors(sub.answer_format, centre)
    kept, dropped = [], Counter()
    for e in execs:
        if triviality.is_trivial(sub.answer_format, e.outcome.gold, constants):
            dropped[(e.stratum, triviality.REASON)] += 1
        else:
            kept.append(e)
    key = triviality.cap_key(sub.answer_format, [e.outcome.gold for e in kept])
    if (
        key is not None and len({key(i) for i in range(len(kept))}) > 1
    ):  # one value: the final cap decides
        idx, surplus = triviality.capped(list(range(len(kept))), key, lambda i: kept[i].order)
        for i in surplus:
            dropped[(kept[i].stratum, triviality.REASON)] += 1
        kept = [kept[i] for i in idx]
    return kept, dropped


def _cap_gold_values(questions: list[dict], discards: Counter, seed: int) -> list[dict]:
    """Cap the most common gold value of each sub-template at ``triviality.MAX_SHARE`` of its true
    questions over all KGs (:func:`triviality.cap_key`); the surplus (seeded order) is counted as
    ``trivial``."""
    by_sub: dict[str, list[dict]] = defaultdict(list)
    for q in questions:
        by_sub[q["sub_template_id"]].append(q)
    dropped_ids: set[str] = set()
    for sub_id, group in sorted(by_sub.items()):
        key = triviality.cap_key(group[0]["answer_format"], [json.loads(q["gold"]) for q in group])
        if key is None:
            continue
        _, dropped = triviality.capped(
            list(range(len(group))),
            value=key,
            order=lambda i, group=group: stable_hash(
                seed, triviality.REASON, group[i]["question_id"]
            ),
        )
        for i in dropped:
            q = group[i]
            discards[(q["kg"], sub_id, q["stratum"], triviality.REASON)] += 1
            dropped_ids.add(q["question_id"])
    return [q for q in questions if q["question_id"] not in dropped_ids]


def _instantiate(
    con, by_cell, discards, seen, kg, seed, run_id, code_version, cap, spare_subs=frozenset()
) -> tuple[list[dict], list[dict]]:
    """Per (template, stratum) cell: draw variants, render, drop duplicate (text, gold), keep
    ``cap``; build rows. Also returns the reserve: rows of up to ``cap`` more valid tuples per cell
    of the ``spare_subs`` sub-templates, which only false premises may be derived from."""
    all_execs = [e for groups in by_cell.values() for g in groups for e in g]
    if not all_execs:
        return [], []
    ids = {e.values[r] for e in all_execs for r in e.sub.entity_roles}
    ids.update(i for e in all_execs for i in e.outcome.evidence)
    info = entity_info(con, sorted(ids))
    chosen, spare = _choose(by_cell, info, discards, seen, kg, seed, cap, spare_subs)
    triples = gold_triples(con, [c[0] for c in chosen + spare])
    rows = [
        _question_row(e, vid, vtext, text, gold_json, cited, info, kg, code_version, run_id)
        for (e, vid, vtext, text, gold_json), cited in zip(chosen + spare, triples, strict=True)
    ]
    return rows[: len(chosen)], rows[len(chosen) :]


def _choose(
    by_cell, info, discards, seen, kg, seed, cap, spare_subs=frozenset()
) -> tuple[list[tuple[Execution, str, str, str, str]], list[tuple[Execution, str, str, str, str]]]:
    """Per (template, stratum) cell in order, executions taken round-robin over their groups: a
    seeded variant each, rendered; a (text, gold) already ``seen`` is counted in ``discards`` and
    dropped; at most ``cap`` per cell. Past the cap, up to ``cap`` more executions of the
    ``spare_subs`` sub-templates are the cell's spares (never questions, never ``seen``). Returns
    the chosen and the spare (execution, variant id, variant text, text, gold JSON) tuples."""
    chosen, spare = [], []
    for (tid, stratum), groups in sorted(by_cell.items()):
        kept = spared = 0
        for e in _round_robin(groups):
            full = kept >= cap
            if full and (spared >= cap or not spare_subs):
                break
            if full and e.sub.id not in spare_subs:
                continue
            variant = random.Random(stable_hash(seed, tid, kg, stratum, e.order)).choice(
                e.sub.variants
            )
            names = {i: info[i]["display_name"] for i in (e.values[r] for r in e.sub.entity_roles)}
            text = render(variant.text, e.sub, e.values, names, e.outcome.extras, marked=False)
            gold_json = json.dumps(e.outcome.gold, sort_keys=True, ensure_ascii=False)
            if (text, gold_json) in seen:
                if not full:
                    discards[(kg, e.sub.id, stratum, "duplicate_question")] += 1
                continue
            if full:
                spare.append((e, variant.id, variant.text, text, gold_json))
                spared += 1
                continue
            seen.add((text, gold_json))
            chosen.append((e, variant.id, variant.text, text, gold_json))
            kept += 1
    return chosen, spare


def _question_row(
    e: Execution,
    vid: str,
    vtext: str,
    text: str,
    gold_json: str,
    cited: list,
    info: Mapping[str, dict],
    kg: str,
    code_version: str,
    run_id: str,
) -> dict:
    """The ``questions_en`` record of one chosen execution: ids, text, gold and its aliases, the
    replayable query, the cited triples, the strata of its first bound entity, provenance."""
    sub = e.sub
    bound_ids = [e.values[r] for r in sub.entity_roles]
    names = {i: info[i]["display_name"] for i in bound_ids}
    anchor = info[bound_ids[0]]
    bindings = {r: e.values[r] for r in sub.roles}
    params = {p: e.values[p] for p in sub.parameters}
    executor = EXECUTORS[sub.executor]
    question_key = (json.dumps(bindings, sort_keys=True), json.dumps(params, sort_keys=True))
    return {
        "question_id": "q" + stable_hash(vid, kg, *question_key, LANG),
        "lang": LANG,
        "kg": kg,
        "sfid": sub.sfid,
        "tid": sub.tid,
        "sub_template_id": sub.id,
        "variant_id": vid,
        "text": text,
        "text_marked": render(vtext, sub, e.values, names, e.outcome.extras, marked=True),
        "answer_format": sub.answer_format,
        "gold": gold_json,
        "gold_aliases": json.dumps(_aliases(e.outcome.gold, info), ensure_ascii=False),
        "unit": formats.FORMAT_INFO[sub.answer_format].get("unit"),
        "bindings": json.dumps(bindings, sort_keys=True, ensure_ascii=False),
        "parameters": json.dumps(
            {**params, **{k: e.outcome.extras[k] for k in sub.extras}},
            sort_keys=True,
            ensure_ascii=False,
        ),
        "executor": executor.ref,
        "query": replay_sql(executor, sub, {"row_id": 0, **e.values}),
        "gold_triples": json.dumps(cited, ensure_ascii=False),
        "entity_subjects": json.dumps(entity_subjects(e, info), sort_keys=True, ensure_ascii=False),
        "false_premise": False,
        "perturbation": None,
        "multimodal": False,
        "image_url": None,
        "image_role": None,
        "stratum": e.stratum,
        "income_tier": anchor["income_tier"],
        "density_tier": anchor["density_tier"],
        "country_iso3": anchor["iso3"],
        "snapshot_ids": sorted({info[i]["snapshot_id"] for i in bound_ids}),
        "code_version": code_version,
        "run_id": run_id,
    }


def _aliases(gold: dict, info: Mapping[str, dict]) -> dict[str, list[str]]:
    """Alias store of an entity-valued gold (for scoring): entity id -> every accepted name
    (canonical name, display name, all labels in every language), sorted. Empty for other
    formats."""
    return {
        eid: sorted({info[eid]["name"], info[eid]["display_name"], *info[eid].get("labels", [])})
        for eid in gold.get("entity_ids", [])
    }


def template_rows(catalog: Catalog) -> list[dict]:
    return catalog_rows(catalog, set(EXECUTORS))


def write_questions(con: duckdb.DuckDBPyConnection, gen: Generation) -> int:
    """Replace ``questions_en`` and ``question_discards`` in one transaction; rows in question_id
    order."""
    table = arrow_table(QUESTION_SCHEMA, gen.questions)
    dis = sorted(gen.discards.items(), key=lambda kv: tuple(str(x) for x in kv[0]))
    dtable = pa.table(
        {
            "kg": pa.array([k[0] for k, _ in dis], pa.string()),
            "sub_template_id": pa.array([k[1] for k, _ in dis], pa.string()),
            "stratum": pa.array([k[2] for k, _ in dis], pa.string()),
            "reason": pa.array([k[3] for k, _ in dis], pa.string()),
            "n": pa.array([n for _, n in dis], pa.int64()),
        }
    )
    with registered(con, _q=table, _d=dtable), transaction(con):
        con.execute("DELETE FROM questions_en")
        con.execute(
            """
            INSERT INTO questions_en BY NAME
            SELECT *
            FROM _q
            ORDER BY question_id
            """
        )
        con.execute("DELETE FROM question_discards")
        con.execute(
            """
            INSERT INTO question_discards
            SELECT *
            FROM _d
            ORDER BY kg, sub_template_id, stratum, reason
            """
        )
    return len(gen.questions)


def write_templates(con: duckdb.DuckDBPyConnection, catalog: Catalog) -> int:
    """Replace the ``templates`` table with one row per English variant of the catalog."""
    rows = template_rows(catalog)
    cols = list(rows[0])
    table = pa.table({c: [r[c] for r in rows] for c in cols})
    with registered(con, _t=table):
        with transaction(con):
            con.execute("DELETE FROM templates")
            con.execute(
                f"INSERT INTO templates ({', '.join(cols)}) SELECT {', '.join(cols)} FROM _t"
            )
    return len(rows)
