"""False-premise questions (paper §3.4): satisfiable tuples perturbed so that the template's premise
is false.

A sub-template takes part when its catalog entry has a ``premise`` of a refusable ``premise_kind``
(:data:`catalog.REFUSABLE_KINDS`: with the premise false, a refusal is the only correct answer under
every reading), a ``perturb_role``, and its executor implements ``premise_sql`` / ``premise_holds``.
Sub-templates whose premise kind is ``answerable`` (a count that becomes 0, a boolean that becomes
false, a distance that stays defined, a hidden cap) are never perturbed; the questions the draw
picks there are counted as ``answerable``.

For a seeded share of the eligible true questions, the binding of ``perturb_role`` is replaced by
one of the :data:`NEAREST` candidates of the same role type in the KG nearest to the original (an
entity: nearest to the original's representative point; a category: nearest member to the anchor
entity's representative point), none farther than :data:`MAX_REPLACEMENT_KM`, so that distance does
not give the perturbation away. The premise query runs once per sub-template for all trials, and the
nearest replacement for which the premise is **false** makes a false-premise question. Its gold is
:data:`formats.REJECTION`, its ``query`` is the premise query bound to that tuple (re-running it
shows the premise failing), and ``perturbation`` records the role, the original and the replacement
binding, the premise kind, why the premise is false and the replacement distance.

The share is :data:`SHARE` of the whole English set (the paper has 3,589 of 46,060 = 7.8 %), drawn
from the eligible sub-templates: a seeded ``SHARE / (1 - SHARE) * N_true / N_eligible`` of their
questions is perturbed, and later rounds over the questions not picked yet top up the perturbations
whose premise stayed true. When the eligible questions are too few, the share falls short (reported
as asset metadata).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import duckdb
import pyarrow as pa
from pyproj import Geod
from shapely.geometry.base import BaseGeometry

from mgqa_platform import lexicon
from mgqa_platform.questions import coverage, formats, roles
from mgqa_platform.questions.catalog import Catalog, SubTemplate
from mgqa_platform.questions.execution import (
    LANG,
    POOL_ROWS_SQL,
    Execution,
    arrow_column,
    create_bindable_categories,
    entity_info,
    entity_subjects,
    gold_triples,
    render,
)
from mgqa_platform.questions.executor import Outcome, Pool, replay_sql, stable_hash, t_columns
from mgqa_platform.questions.executors import EXECUTORS
from mgqa_platform.warehouse import registered

SHARE = 0.078
NEAREST = 30  # replacements tried per question, nearest first (none false: premise_still_holds)
MAX_REPLACEMENT_KM = 100.0  # farther candidates are never tried (none nearer: no_replacement)
EARTH_RADIUS_KM = 6371.0088  # mean radius, for ranking candidates by great-circle distance
WGS84 = Geod(ellps="WGS84")
#: Category gates (:func:`category_gate`): a category is "well mapped around the anchor" with at
#: least MIN_NEAR_MEMBERS members within SPARSE_RADIUS_KM (great-circle km) of the anchor's point
#: and at least MIN_NAMED_SHARE of its KG members named.
SPARSE_RADIUS_KM = 30.0
MIN_NEAR_MEMBERS = 5
MIN_NAMED_SHARE = 0.5
#: Categories OSM maps mostly without names or far from completely: a KG without one near the
#: anchor says nothing about the world (trees, car parks, apartments, benches, squares ...).
UNDERNAMED_CATEGORIES = frozenset(
    {
        "tree",
        "tree_row",
        "parking",
        "bicycle_parking",
        "motorcycle_parking",
        "apartments",
        "building_residential",
        "bench",
        "square",
        "waste_basket",
        "street_lamp",
        "utility_pole",
        "shelter",
        "drinking_water",
        "toilets",
        "pitch",
        "playground",
    }
)
#: At most this share of all false premises comes from one template (:func:`cap_per_template`).
MAX_TEMPLATE_SHARE = 0.35
ROUNDS = 5  # draws per build: the first, then top-ups over the questions not picked yet
PLACEHOLDER_RE = re.compile(r"\{(\w+)\}|\b((?:entity|category|event)_[A-Z])\b")


def perturbable(catalog: Catalog) -> list[SubTemplate]:
    """Sub-templates with a premise, a perturb role and an executor that can test the premise."""
    return [
        s
        for s in catalog.sub_templates
        if s.premise
        and s.perturb_role
        and s.executor in EXECUTORS
        and EXECUTORS[s.executor].premise_sql(s)
    ]


def eligible(catalog: Catalog) -> list[SubTemplate]:
    """The perturbable sub-templates whose premise kind is refusable: they make false premises."""
    return [s for s in perturbable(catalog) if s.refusable]


def _selected(questions: list[dict], rate: float, seed: int) -> list[dict]:
    """A seeded ``rate`` share of ``questions``: those whose hash falls below the rate."""
    return [
        q
        for q in questions
        if int(stable_hash(seed, "false-premise", q["question_id"]), 16) / 16**16 < rate
    ]


def _haversine_km_sql(a: str, b: str) -> str:
    """SQL: great-circle km between the lon/lat columns of aliases ``a`` and ``b`` (WGS84 degrees,
    sphere of :data:`EARTH_RADIUS_KM`); used to rank candidates, cheaper than the spheroid and
    ordered alike."""
    return (
        f"(2 * {EARTH_RADIUS_KM} * asin(sqrt(pow(sin(radians({b}.lat - {a}.lat) / 2), 2) "
        f"+ cos(radians({a}.lat)) * cos(radians({b}.lat)) * "
        f"pow(sin(radians({b}.lon - {a}.lon) / 2), 2))))"
    )


def anchor_role(sub: SubTemplate) -> str:
    """The binding a replacement must lie near: the perturbed entity itself, or for a category role
    the first entity role (the region, road or place the category is asked about)."""
    if roles.is_category(sub.roles[sub.perturb_role]):
        return sub.entity_roles[0]
    return sub.perturb_role


def lat_reach_deg(km: float) -> float:
    """Degrees of latitude a point can differ by from another within ``km`` of great-circle
    distance (sphere of :data:`EARTH_RADIUS_KM`), with a margin for rounding: a meridian arc is the
    shortest path between two parallels, so ``km`` spans at most ``km / R`` radians of latitude."""
    return math.degrees(km / EARTH_RADIUS_KM) * (1 + 1e-9) + 1e-9


def create_neighbourhood_pool(
    con: duckdb.DuckDBPyConnection, kg: str, anchors: list[str], km: float = MAX_REPLACEMENT_KM
) -> int:
    """(Re)create the temp table ``pool`` (columns of :func:`execution.create_pool`) holding the
    stratified entities of ``kg``, of every stratum, whose representative point lies within ``km``
    (plus a rounding margin) of the representative point of one of the ``anchors`` (entity ids):
    the neighbourhood :func:`nearest_replacements` searches for these anchors. Returns its rows.

    Exact for the replacements: they are ranked by the same great-circle distance and never
    farther than ``km``, so every replacement the KG's whole pool gives lies in this one (the
    members farther than ``km`` never win a category's minimum either). The entity rows are
    read through a latitude band per anchor (:func:`lat_reach_deg`), then filtered by the
    distance itself."""
    create_bindable_categories(con)
    reach = lat_reach_deg(km)
    near = _haversine_km_sql("a", "e")
    ids = pa.table({"entity_id": pa.array(sorted(set(anchors)), pa.string())})
    with registered(con, _anchor_ids=ids):
        con.execute(
            f"""
            CREATE OR REPLACE TEMP TABLE pool AS
            WITH a AS (
                SELECT DISTINCT e.lon, e.lat
                FROM _anchor_ids i
                JOIN entities e USING (entity_id)
            )
            {POOL_ROWS_SQL}
              AND EXISTS (
                SELECT 1
                FROM a
                WHERE e.lat BETWEEN a.lat - $reach AND a.lat + $reach
                  AND {near} <= $km
              )
            """,
            {"kg": kg, "reach": reach, "km": km + 1e-6},
        )
    return con.execute("SELECT count(*) FROM pool").fetchone()[0]


def _replacement_members_sql(rtype) -> str:
    """The SQL of the candidate replacements of a role of type ``rtype``, one row per (question,
    candidate) with its distance from the anchor ``a``: for a category, its member nearest to the
    anchor, among the bindable categories with enough stratified members, with the count of its
    members within :data:`SPARSE_RADIUS_KM` of the anchor and the share of its KG members whose
    name identifies them (:func:`_named_share_sql`); for an entity, itself."""
    km_sql = _haversine_km_sql("a", "p")
    if roles.is_category(rtype):
        return f"""
            SELECT a.question_id, p.category AS value, arg_min(p.lon, {km_sql}) AS lon,
                   arg_min(p.lat, {km_sql}) AS lat, min({km_sql}) AS km, a.lon AS anchor_lon,
                   a.lat AS anchor_lat,
                   count(*) FILTER (WHERE {km_sql} <= {SPARSE_RADIUS_KM}) AS near_members,
                   any_value(ns.named_share) AS named_share
            FROM a
            CROSS JOIN pool p
            JOIN ({_named_share_sql(rtype)}) ns ON ns.category = p.category
            WHERE {roles.candidate_predicate(rtype, "p")}
            GROUP BY a.question_id, p.category, a.lon, a.lat
            """
    return f"""
            SELECT a.question_id, p.entity_id AS value, p.lon, p.lat, {km_sql} AS km,
                   a.lon AS anchor_lon, a.lat AS anchor_lat, NULL AS near_members,
                   NULL AS named_share
            FROM a
            CROSS JOIN pool p
            WHERE {roles.predicate(rtype, "p")}
            """


def _named_share_sql(rtype) -> str:
    """SQL: per category of role type ``rtype`` with at least ``roles.MIN_CATEGORY_MEMBERS``
    stratified members in the KG ``$kg``, the share of them whose display name identifies them
    (``name_unique``: not a placeholder, a code or the category word)."""
    return f"""
                SELECT p.category, avg(CASE WHEN p.name_unique THEN 1.0 ELSE 0.0 END) AS named_share
                FROM entities p
                    JOIN entity_strata s ON s.entity_id = p.entity_id
                WHERE p.kg = $kg AND s.kg = $kg AND s.stratum IS NOT NULL
                  AND {roles.candidate_predicate(rtype, "p")}
                GROUP BY p.category
                HAVING count(*) >= {roles.MIN_CATEGORY_MEMBERS}
                """


def category_gate(cand: Mapping[str, Any], own: set[str]) -> str | None:
    """The gate a category replacement ``cand`` fails, or None (docs/questions.md, "False
    premises"): ``own_category`` (a category a bound entity belongs to, ``own``: "no park contains
    the park B" is not false in the world), ``mostly_unnamed_category`` (OSM maps it mostly
    without names or barely: :data:`UNDERNAMED_CATEGORIES`, or under :data:`MIN_NAMED_SHARE` of its
    KG members named), ``sparse_category`` (fewer than :data:`MIN_NEAR_MEMBERS` members within
    :data:`SPARSE_RADIUS_KM` of the anchor: its absence says little about the world)."""
    if cand.get("named_share") is None:
        return None
    if cand["value"] in own:
        return "own_category"
    if cand["value"] in UNDERNAMED_CATEGORIES or cand["named_share"] < MIN_NAMED_SHARE:
        return "mostly_unnamed_category"
    if cand["near_members"] < MIN_NEAR_MEMBERS:
        return "sparse_category"
    return None


def nearest_replacements(
    con: duckdb.DuckDBPyConnection,
    sub: SubTemplate,
    questions: list[dict],
    k: int = NEAREST,
    km: float = MAX_REPLACEMENT_KM,
) -> dict[str, list[dict]]:
    """Question id -> up to ``k`` replacement bindings for ``sub.perturb_role``, nearest first.

    Candidates are the rows of the temp table ``pool`` of the role type (categories: bindable ones
    with at least ``roles.MIN_CATEGORY_MEMBERS`` members among the stratified entities of the
    question's KG, counted over the KG's entity table, other than the anchor's own category, since
    "the regions in region B" is a question about coverage, not a false premise), other than the
    question's own bindings, within ``km`` (:data:`MAX_REPLACEMENT_KM`). The pool is the KG's
    (``create_pool``) or the neighbourhood of the questions' anchors
    (:func:`create_neighbourhood_pool`, same result). An entity is ranked by the distance of its
    representative point from the anchor's (:func:`anchor_role`), a category by its member nearest
    to the anchor. Each item is ``{"value", "lon", "lat", "anchor_lon", "anchor_lat"}``: the
    replacement, the point measured (WGS84 lon/lat degrees) and the anchor's point.
    """
    if not questions:
        return {}
    rtype = sub.roles[sub.perturb_role]
    anchor = anchor_role(sub)
    bound = {q["question_id"]: set(json.loads(q["bindings"]).values()) for q in questions}
    anchors = pa.table(
        {
            "question_id": pa.array(list(bound), pa.string()),
            "anchor": pa.array([json.loads(q["bindings"])[anchor] for q in questions], pa.string()),
        }
    )
    members = _replacement_members_sql(rtype)
    keep = k + len(sub.roles)
    sql = f"""
        WITH a AS (
            SELECT q.question_id, e.lon, e.lat
            FROM _anchors q
            JOIN entities e ON e.entity_id = q.anchor
        ), d AS ({members})
        SELECT question_id, value, lon, lat, anchor_lon, anchor_lat, near_members, named_share
        FROM d
        WHERE km <= {float(km)!r}
        QUALIFY row_number() OVER (PARTITION BY question_id ORDER BY km, value) <= {keep}
        ORDER BY question_id, km, value
        """
    params = {"kg": questions[0]["kg"]} if roles.is_category(rtype) else {}
    out: dict[str, list[dict]] = defaultdict(list)
    with registered(con, _anchors=anchors):
        cur = con.execute(sql, params)
        names = [d[0] for d in cur.description]
        for row in cur.fetchall():
            item = dict(zip(names, row, strict=True))
            qid = item.pop("question_id")
            if item["value"] not in bound[qid] and len(out[qid]) < k:
                out[qid].append(item)
    return out


def stratum_replacements(
    con: duckdb.DuckDBPyConnection,
    kg: str,
    subs: Mapping[str, SubTemplate],
    questions: list[dict],
    km: float = MAX_REPLACEMENT_KM,
) -> dict[str, list[dict]]:
    """Question id -> its :func:`nearest_replacements` within ``km``, for ``questions`` of ``kg``
    (of the sub-templates in ``subs``), one stratum at a time: each stratum's questions are searched
    in the neighbourhood pool of their anchors (:func:`create_neighbourhood_pool`), so no pool of
    the whole KG is built and the largest pool is the neighbourhood of one stratum's anchors. The
    neighbourhood reaches at least :data:`SPARSE_RADIUS_KM`, where the category gates count
    members."""
    by_stratum: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for q in questions:
        by_stratum[q["stratum"]][q["sub_template_id"]].append(q)
    out: dict[str, list[dict]] = {}
    for stratum in sorted(by_stratum):
        groups = by_stratum[stratum]
        anchors = [
            json.loads(q["bindings"])[anchor_role(subs[sub_id])]
            for sub_id, qs in groups.items()
            for q in qs
        ]
        create_neighbourhood_pool(con, kg, anchors, max(km, SPARSE_RADIUS_KM))
        for sub_id in sorted(groups):
            out.update(nearest_replacements(con, subs[sub_id], groups[sub_id], km=km))
    return out


def geodesic_km(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    """WGS84 geodesic distance in km between two lon/lat points (degrees)."""
    return WGS84.inv(lon1, lat1, lon2, lat2)[2] / 1000.0


def why(sub: SubTemplate, values: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """The broken premise in words: the catalog's premise with the perturbed tuple's names,
    categories (plural labels, the singular noun after "one") and parameters filled in, e.g. "it is
    false that Rua A traverses at least one park"."""

    def fill(m: re.Match) -> str:
        key = m.group(1) or m.group(2)
        if key not in sub.roles:
            return str(values[key]) if key in values else m.group(0)
        v = values[key]
        if not roles.is_category(sub.roles[key]):
            return names[v]
        return lexicon.noun(v) if m.string[: m.start()].endswith("one ") else lexicon.label(v)

    return "it is false that " + PLACEHOLDER_RE.sub(fill, sub.premise)


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
    reserve: Iterable[dict] = (),
) -> tuple[list[dict], Counter]:
    """False-premise questions derived from the true ``questions`` (rows of ``questions_en``) and,
    from the second round on, from the ``reserve``: rows of valid true tuples that the cell cap left
    out of the benchmark (:func:`mgqa_platform.questions.generate.generate`).

    Returns the new rows and a Counter of failures keyed (kg, sub_template_id, stratum, reason).
    ``seen`` holds the (text, gold) pairs already used and is updated.
    """
    subs = {s.id: s for s in eligible(catalog)}
    answerable = {s.id for s in perturbable(catalog)} - set(subs)
    pool_questions = [q for q in questions if q["sub_template_id"] in subs]
    spare = [q for q in reserve if q["sub_template_id"] in subs]
    failures: Counter = Counter()
    target = round(share / (1 - share) * len(questions))
    skipped = [q for q in questions if q["sub_template_id"] in answerable]
    for q in _selected(skipped, min(1.0, target / max(1, len(pool_questions))), seed):
        failures[(q["kg"], q["sub_template_id"], q["stratum"], "answerable")] += 1
    if not pool_questions and not spare:
        return [], failures
    out: list[dict] = []
    picked: set[str] = set()
    quota = max(1, math.floor(MAX_TEMPLATE_SHARE * target))
    for round_ in range(1, ROUNDS + 1):  # later rounds top up what the premises still true cost
        made = Counter(subs[q["sub_template_id"]].tid for q in out)
        rest = [
            q
            for q in (pool_questions if round_ == 1 and pool_questions else pool_questions + spare)
            if q["question_id"] not in picked and made[subs[q["sub_template_id"]].tid] < quota
        ]
        if len(out) >= target or not rest:
            break
        success = len(out) / len(picked) if picked else 1.0
        batch = _draw(rest, subs, target - len(out), made, quota, success, seed + round_ - 1)
        picked.update(q["question_id"] for q in batch)
        out += _perturb_batch(con, subs, batch, kgs, seed, seen, failures, run_id, code_version)
    out, capped = cap_per_template(out, subs, quota)
    failures.update(capped)
    out.sort(key=lambda q: q["question_id"])
    return out, failures


def _draw(rest, subs, need, made, quota, success, seed) -> list[dict]:
    """A seeded draw from ``rest`` spread over the templates: each template with room under its
    ``quota`` (``made`` so far) asks for an equal part of the ``need``, scaled by the ``success``
    rate of the perturbations so far."""
    by_tid: dict[str, list[dict]] = defaultdict(list)
    for q in rest:
        by_tid[subs[q["sub_template_id"]].tid].append(q)
    part = math.ceil(need / len(by_tid))
    batch = []
    for tid, qs in sorted(by_tid.items()):
        want = min(quota - made[tid], part)
        batch += _selected(qs, min(1.0, want / len(qs) / max(success, 0.25)), seed)
    return batch


def cap_per_template(
    questions: list[dict], subs: Mapping[str, SubTemplate], quota: int
) -> tuple[list[dict], Counter]:
    """At most ``quota`` false premises per template (the first by question id); the others
    counted ``template_cap`` keyed (kg, sub_template_id, stratum, reason)."""
    kept, dropped, per_tid = [], Counter(), Counter()
    for q in sorted(questions, key=lambda q: q["question_id"]):
        tid = subs[q["sub_template_id"]].tid
        per_tid[tid] += 1
        if per_tid[tid] > quota:
            dropped[(q["kg"], q["sub_template_id"], q["stratum"], "template_cap")] += 1
        else:
            kept.append(q)
    return kept, dropped


def _perturb_batch(con, subs, batch, kgs, seed, seen, failures, run_id, code_version) -> list[dict]:
    out = []
    for kg in kgs:
        mine = [q for q in batch if q["kg"] == kg]
        if not mine:
            continue
        pool = Pool(kg, seed)
        area = coverage.kg_coverage(con, kg)
        replacements = stratum_replacements(con, kg, subs, mine)
        by_sub: dict[str, list[dict]] = defaultdict(list)
        for q in mine:
            by_sub[q["sub_template_id"]].append(q)
        made: list[tuple[Execution, dict, dict]] = []  # execution, question, perturbation
        for sub_id in sorted(by_sub):
            made += _perturb_sub(
                con, subs[sub_id], pool, by_sub[sub_id], replacements, failures, area
            )
        out += _rows(con, made, seen, failures, kg, run_id, code_version)
    return out


def _perturb_sub(
    con,
    sub: SubTemplate,
    pool: Pool,
    questions: list[dict],
    replacements: Mapping[str, list[dict]],
    failures: Counter,
    area: BaseGeometry | None = None,
) -> list[tuple[Execution, dict, dict]]:
    """Try the :data:`NEAREST` ``replacements`` per question (:func:`stratum_replacements`), nearest
    first; keep the first whose premise is
    false and whose support (the sub-template's ``premise_support`` or ``support``) lies inside
    ``area``, the KG's coverage (questions/coverage.py): a premise is false only where the KG holds
    every feature."""
    role = sub.perturb_role
    trials: list[tuple[dict, dict, dict]] = []  # (question, t row, candidate)
    for q in questions:
        bindings, params = json.loads(q["bindings"]), json.loads(q["parameters"])
        for cand in replacements.get(q["question_id"], []):
            values = {
                "kg": pool.kg,
                **bindings,
                **{p: params[p] for p in sub.parameters},
                role: cand["value"],
            }
            trials.append((q, {"row_id": len(trials), **values}, cand))
    if not trials:
        for q in questions:
            failures[(pool.kg, sub.id, q["stratum"], "no_replacement")] += 1
        return []
    executor = EXECUTORS[sub.executor]
    results = _premise_rows(con, sub, [t for _, t, _ in trials])
    inside = coverage.covered(con, area, sub, [(t, ()) for _, t, _ in trials], premise=True)
    own = bound_categories(con, questions)
    done: dict[str, tuple[Execution, dict, dict]] = {}
    beyond: set[str] = set()
    gated: dict[str, str] = {}
    for (q, t, cand), ok in zip(trials, inside, strict=True):
        res = results.get(t["row_id"])
        if q["question_id"] in done or res is None or executor.premise_holds(sub, res):
            continue
        if gate := category_gate(cand, own.get(q["question_id"], set())):
            gated.setdefault(q["question_id"], gate)
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
            "premise_kind": sub.premise_kind,
            "anchor_role": anchor_role(sub),
            "replacement_km": round(
                geodesic_km(cand["anchor_lon"], cand["anchor_lat"], cand["lon"], cand["lat"]), 3
            ),
            "derived_from": q["question_id"],
        }
        done[q["question_id"]] = (ex, q, perturbation)
    for q in questions:
        if q["question_id"] not in done:
            reason = coverage.REASON if q["question_id"] in beyond else "premise_still_holds"
            reason = gated.get(q["question_id"], reason)
            failures[(pool.kg, sub.id, q["stratum"], reason)] += 1
    return [done[k] for k in sorted(done)]


def bound_categories(con: duckdb.DuckDBPyConnection, questions: list[dict]) -> dict[str, set]:
    """Question id -> the categories of the entities its bindings name."""
    bound = {q["question_id"]: set(json.loads(q["bindings"]).values()) for q in questions}
    ids = sorted(set().union(*bound.values())) if bound else []
    if not ids:
        return {}
    cats = dict(
        con.execute(
            "SELECT entity_id, category FROM entities WHERE entity_id IN (SELECT unnest($ids))",
            {"ids": ids},
        ).fetchall()
    )
    return {qid: {cats[i] for i in vals if i in cats} for qid, vals in bound.items()}


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
        pert = {**pert, "why": why(sub, e.values, names)}
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
    """Re-run a false-premise question's stored premise query: True when the premise (still)
    holds."""
    row = stored_query_row(con, question, "premise query")
    return EXECUTORS[sub.executor].premise_holds(sub, row)


def stored_query_row(
    con: duckdb.DuckDBPyConnection, question: Mapping[str, Any], what: str = "query"
) -> dict[str, Any]:
    """The one row of ``question``'s stored query, by column name; RuntimeError naming ``what``
    and the question when it returns another number of rows."""
    cur = con.execute(question["query"])
    names = [d[0] for d in cur.description]
    rows = cur.fetchall()
    if len(rows) != 1:
        raise RuntimeError(
            f"{what} of {question['question_id']} returned {len(rows)} rows, expected 1"
        )
    return dict(zip(names, rows[0], strict=True))
