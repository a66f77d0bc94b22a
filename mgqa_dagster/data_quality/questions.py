"""Data-quality checks of the template catalog and the English questions (GX suites over computed
columns).

The Python-level facts (does this gold validate against its format? does the stored query still give
the same gold?) are computed per row first and judged by the suite, so a failure lists example rows.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from collections.abc import Iterable

import dagster as dg
import pandas as pd
import shapely

from mgqa_dagster.data_quality import gx_runner as gx
from mgqa_dagster.data_quality.checks import Check, result
from mgqa_platform import lexicon
from mgqa_platform.kg import names, whole
from mgqa_platform.questions import (
    coverage,
    formats,
    readings,
    role_rules,
    roles,
    stated,
    triviality,
)
from mgqa_platform.questions.catalog import SFIDS, default_catalog
from mgqa_platform.questions.generate import covered_centre, replay
from mgqa_platform.questions.multimodal import COMMONS_FILE_PATH, IMAGE_EXTENSIONS, IMAGE_PHRASE
from mgqa_platform.questions.multimodal import KGS as MULTIMODAL_KGS
from mgqa_platform.questions.splits import SMALL_PER_CELL

EXPECTED_TIDS = 65
REPLAYS_PER_SUB_TEMPLATE = 2
#: What a question text must never show: a coordinate pair in parentheses (lat, lon as the old
#: display names had it: "Joe (6.4471, -10.8097)", "Café (Rua B, -30.0350, -51.2100)") or a KG id
#: ("#node/5148502368", "#road.U101.174"). Either would hand over the answer of a distance,
#: direction or proximity question (docs/questions.md, "Display names").
LEAKED_LOCATION = r"\([^()]*-?\d+\.\d+, -?\d+\.\d+[^()]*\)|#node/|#way/|#relation/|#road\."
#: A placeholder where a name should be (mgqa_platform/kg/names.py, rule ``placeholder``): "POINT"
#: in capitals, "UNNAMED (1985)", "unnamed road", "fixme", "no name", "n/a", "#node/" ids above.
PLACEHOLDER_NAME = r"\bPOINT\b|(?i:\bunnamed\b|\bfixme\b|\bno name\b|\bn/a\b)"


def _catalog_complete(con, _):
    df = con.execute(
        "SELECT sfid, count(DISTINCT tid) AS tids, "
        "count(DISTINCT sub_template_id) AS subs, count(*) AS variants "
        "FROM templates "
        "GROUP BY sfid"
    ).df()
    total = int(df["tids"].sum()) if len(df) else 0
    outcome = gx.run_suite(
        df,
        "template_catalog",
        gx.in_set("sfid", SFIDS)
        + gx.values_between("tids", 1, None)
        + gx.row_count_between(len(SFIDS), len(SFIDS)),
    )
    ok = outcome.success and total == EXPECTED_TIDS
    r = result(
        outcome,
        extra={
            "tids": total,
            "sub_templates": int(df["subs"].sum()) if len(df) else 0,
            "variants": int(df["variants"].sum()) if len(df) else 0,
        },
    )
    if ok:
        return r
    return dg.AssetCheckResult(
        passed=False,
        severity=r.severity,
        description=f"{total} top-level templates, expected {EXPECTED_TIDS}; "
        + (r.description or ""),
        metadata=r.metadata,
    )


def _conventions_stated(con, _):
    """Every stored English variant states its sub-template's deciding conventions, renders no
    filter that removes nothing, and counts no country where that is excluded
    (questions/stated.py, re-run on the ``templates`` rows)."""
    catalog = default_catalog()
    df = con.execute("SELECT sub_template_id, variant_id, text FROM templates").df()
    found = []
    for row in df.itertuples():
        sub = catalog.sub_template(row.sub_template_id)
        found.append(
            not (
                stated.problems(sub.conventions, sub.parameters, sub.stated, [row.text])
                + stated.country_problems(sub.executor, sub.roles, sub.conventions, sub.stated)
                + stated.vacuous_problems(sub.extras, [row.text])
            )
        )
    df["states_conventions"] = found
    return result(
        gx.run_suite(df, "template_conventions_stated", gx.in_set("states_conventions", [True]))
    )


def _gold_valid(row) -> bool:
    try:
        gold = json.loads(row.gold)
        return formats.canonical(row.answer_format, gold) == gold
    except (formats.GoldError, ValueError, TypeError, KeyError):
        return False


def _golds_validate(con, _):
    df = con.execute("SELECT question_id, answer_format, gold FROM questions_en").df()
    df["gold_valid"] = [_gold_valid(r) for r in df.itertuples()]
    exps = (
        gx.unique_ids("question_id")
        + gx.in_set("answer_format", formats.FORMATS)
        + gx.in_set("gold_valid", [True])
    )
    return result(gx.run_suite(df, "questions_gold_valid", exps))


def _no_duplicates(con, _):
    df = con.execute(
        "SELECT text || ' ⟶ ' || CAST(gold AS VARCHAR) AS question_and_gold FROM questions_en"
    ).df()
    return result(gx.run_suite(df, "questions_unique", gx.unique_ids("question_and_gold")))


#: What a question text must never show of an administrative region: its category word in
#: brackets, where a local names it by its designation (mgqa_platform/kg/designations.py).
ADMIN_TAG = "(administrative region)"


def coded_stop_names(display_names: Iterable[str]) -> set[str]:
    """The display names of transit stops that still carry a stop number or direction code
    (:func:`mgqa_platform.kg.names.stop_name` would strip one)."""
    return {d for d in display_names if names.stop_name(d) is not None}


def locally_named(text: str, coded: set[str]) -> bool:
    """The question text names its places as a local would: no "(administrative region)" tag and
    none of the ``coded`` stop names (:func:`coded_stop_names`)."""
    return ADMIN_TAG not in text and not any(c in text for c in coded)


def _regions_by_designation(con, _):
    stops = ", ".join(f"'{c}'" for c in sorted(names.STOP_CATEGORIES))
    coded = coded_stop_names(
        r[0]
        for r in con.execute(
            f"SELECT DISTINCT display_name FROM entities WHERE category IN ({stops})"
        ).fetchall()
    )
    df = con.execute("SELECT question_id, text FROM questions_en").df()
    df["locally_named"] = [locally_named(t, coded) for t in df["text"]]
    return _every_question(df, "locally_named", "questions_regions_by_designation")


def _every_question(df, column: str, suite: str):
    """The result of GX suite ``suite``: every question of ``df`` has ``column`` true (the failing
    questions by id in the metadata)."""
    return result(gx.run_suite(df[["question_id", column]], suite, gx.in_set(column, [True])))


def _no_leaked_locations(con, _):
    df = con.execute(
        """
        SELECT
            question_id,
            NOT (regexp_matches(text, ?) OR regexp_matches(text, ?)) AS text_clean
        FROM questions_en
        """,
        [LEAKED_LOCATION, PLACEHOLDER_NAME],
    ).df()
    return result(gx.run_suite(df, "questions_no_leaked_location", gx.in_set("text_clean", [True])))


def _bindable_categories(sub_template_id: str, bindings: str) -> bool:
    """Every category role of the row's sub-template is bound to a bindable lexicon category (so the
    plural rendered into the text is a reviewed lexicon word); False for a missing binding."""
    sub = default_catalog().sub_template(sub_template_id)
    values = json.loads(bindings)
    return all(
        lexicon.bindable(values.get(role, ""))
        for role, rtype in sub.roles.items()
        if roles.is_category(rtype)
    )


def _category_words(con, _):
    df = con.execute(
        """
        SELECT question_id, sub_template_id, CAST(bindings AS VARCHAR) AS bindings
        FROM questions_en
        """
    ).df()
    df["categories_bindable"] = [
        _bindable_categories(r.sub_template_id, r.bindings) for r in df.itertuples()
    ]
    return _every_question(df, "categories_bindable", "questions_category_words")


def _provenance(con, _):
    df = con.execute(
        "SELECT question_id, query, executor, "
        "json_array_length(gold_triples) AS gold_triples, len(snapshot_ids) AS snapshots, "
        "json_array_length(json_keys(bindings)) AS bindings FROM questions_en"
    ).df()
    exps = (
        gx.non_empty_strings(["query", "executor"])
        + gx.values_between("gold_triples", 1, None)
        + gx.values_between("snapshots", 1, None)
    )
    exps += gx.values_between("bindings", 1, None)
    return result(gx.run_suite(df, "questions_provenance", exps))


def _replays(con, _):
    """Re-run the stored query of a seeded sample of questions (per sub-template) and compare the
    gold."""
    cur = con.execute("SELECT * FROM questions_en ORDER BY question_id")
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
    by_sub: dict[str, list[dict]] = {}
    for r in rows:
        by_sub.setdefault(r["sub_template_id"], []).append(r)
    rng = random.Random(0)
    picked = [
        q
        for sub in sorted(by_sub)
        for q in rng.sample(by_sub[sub], min(REPLAYS_PER_SUB_TEMPLATE, len(by_sub[sub])))
    ]
    catalog = default_catalog()
    out = []
    for q in picked:
        try:
            same = replay(con, catalog, q) == json.loads(q["gold"])
        except Exception as exc:  # a replay that fails is a failed check row, with the error kept
            same, q = (
                False,
                {**q, "question_id": f"{q['question_id']} ({type(exc).__name__}: {exc})"[:200]},
            )
        out.append(
            {
                "question_id": q["question_id"],
                "sub_template_id": q["sub_template_id"],
                "reproduces": same,
            }
        )
    df = pd.DataFrame(out, columns=["question_id", "sub_template_id", "reproduces"])
    return result(
        gx.run_suite(df, "questions_replay", gx.in_set("reproduces", [True])),
        extra={"replayed": len(df)},
    )


def _rows(con, where: str) -> list[dict]:
    cur = con.execute(f"SELECT * FROM questions_en WHERE {where} ORDER BY question_id")
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


def _false_premises_are_false(con, _):
    """Every false-premise question: its stored premise query, re-run, shows the premise failing."""
    catalog = default_catalog()
    out = []
    for q in _rows(con, "false_premise"):
        try:
            ok = replay(con, catalog, q) == formats.REJECTION and q["perturbation"] is not None
        except Exception:  # a premise that holds again, or a query that fails
            ok = False
        out.append({"question_id": q["question_id"], "premise_is_false": ok})
    df = pd.DataFrame(out, columns=["question_id", "premise_is_false"])
    return result(
        gx.run_suite(df, "false_premises", gx.in_set("premise_is_false", [True])),
        extra={"false_premise_questions": len(df)},
    )


def _false_premise_share(con, _):
    n, fp = con.execute(
        "SELECT count(*) FILTER (WHERE NOT multimodal), "
        "count(*) FILTER (WHERE false_premise) "
        "FROM questions_en"
    ).fetchone()
    df = pd.DataFrame({"share": [fp / n if n else 0.0]})
    return result(
        gx.run_suite(df, "false_premise_share", gx.values_between("share", 0.05, 0.10)),
        warn=True,
        extra={"false_premise": int(fp), "text_questions": int(n)},
    )


IMAGE_EXTENSION_RE = "|".join(e.lstrip(".") for e in IMAGE_EXTENSIONS)


def _multimodal_rows(con, _):
    df = con.execute(
        f"""
        SELECT question_id, kg, image_url, contains(lower(text), '{IMAGE_PHRASE}') AS
            names_the_image,
               image_url LIKE '{COMMONS_FILE_PATH}%'
                   OR regexp_matches(lower(image_url), '^https?://.+\\.({IMAGE_EXTENSION_RE})$')
                   AS image_file,
               NOT false_premise AS true_premise,
               coalesce(json_exists(bindings, '$.' || image_role), FALSE) AS image_role_bound
        FROM questions_en
        WHERE multimodal
        """
    ).df()
    exps = (
        gx.not_null("image_url")
        + gx.in_set("kg", MULTIMODAL_KGS)
        + gx.in_set("names_the_image", [True])
        + gx.in_set("image_file", [True])
        + gx.in_set("true_premise", [True])
    )
    exps += gx.in_set("image_role_bound", [True])
    return result(
        gx.run_suite(df, "multimodal_slice", exps), extra={"multimodal_questions": len(df)}
    )


def _small_split(con, _):
    df = con.execute(
        "SELECT s.kg, s.sfid, count(*) AS n, count(q.question_id) AS in_large FROM split_small s "
        "LEFT JOIN questions_en q USING (question_id) GROUP BY 1, 2"
    ).df()
    df["all_in_large"] = df["n"] == df["in_large"]
    exps = gx.values_between("n", 1, SMALL_PER_CELL) + gx.in_set("all_in_large", [True])
    return result(
        gx.run_suite(df, "small_split", exps),
        extra={"small_split": int(df["n"].sum()) if len(df) else 0},
    )


def _every_implemented_template_yields(con, _):
    implemented = {s.tid for s in default_catalog().sub_templates if s.executor}
    have = dict(con.execute("SELECT tid, count(*) FROM questions_en GROUP BY tid").fetchall())
    df = pd.DataFrame(
        {
            "tid": sorted(implemented),
            "questions": [int(have.get(t, 0)) for t in sorted(implemented)],
        }
    )
    missing = [t for t, n in zip(df["tid"], df["questions"], strict=True) if n == 0]
    return result(
        gx.run_suite(
            df, "templates_yield", gx.values_between("questions", 1, None), id_columns=("tid",)
        ),
        warn=True,
        extra={"templates_without_questions": ", ".join(missing) or "none"},
    )


# ------------------------------------------------------------------ the validity gate (issue 16)
def _values(q: dict) -> dict:
    """The executor values of a stored question: its KG, bindings and parameters."""
    return {"kg": q["kg"], **json.loads(q["bindings"]), **json.loads(q["parameters"] or "{}")}


def _evidence(q: dict) -> tuple[str, ...]:
    """The cited entities beyond the bindings (``entity_subjects`` minus the bound ids)."""
    bound = set(json.loads(q["bindings"]).values())
    return tuple(sorted(set(json.loads(q["entity_subjects"] or "{}")) - bound))


def validity_problems(con, catalog) -> list[dict]:
    """The questions of ``questions_en`` that fail a validity rule, re-verified from the stored
    records (docs/questions.md): ``beyond_coverage`` (the support of the answer, or of a false
    premise, leaves the KG's coverage), ``trivial`` (zero or the covered centre hits the gold, or
    one gold value holds more than triviality.MAX_SHARE of a boolean, count or predefined
    sub-template), ``reading_dependent`` (a sub-template with listed readings whose stored query no
    longer gives the gold under all of them), ``convention_unstated`` and ``country_counted``
    (questions/stated.py), ``premise_not_refusable`` (a false premise of an answerable kind, or
    without its kind and reason) and ``pieces_of_one_whole`` (two cited members that conversion
    would merge into one whole feature, :mod:`mgqa_platform.kg.whole`). Rows: question_id,
    sub_template_id, rule."""
    rows = _rows(con, "NOT multimodal")
    areas = {kg: coverage.kg_coverage(con, kg) for kg in sorted({q["kg"] for q in rows})}
    centres = {kg: covered_centre(con, kg) for kg in areas}
    by_sub: dict[str, list[dict]] = defaultdict(list)
    for q in rows:
        by_sub[q["sub_template_id"]].append(q)
    out = []

    def bad(q: dict, rule: str) -> None:
        out.append(
            {"question_id": q["question_id"], "sub_template_id": q["sub_template_id"], "rule": rule}
        )

    for sid, qs in sorted(by_sub.items()):
        sub = catalog.sub_template(sid)
        for premise in (False, True):
            for kg, area in areas.items():
                mine = [q for q in qs if q["kg"] == kg and bool(q["false_premise"]) == premise]
                flags = coverage.covered(
                    con, area, sub, [(_values(q), _evidence(q)) for q in mine], premise=premise
                )
                for q, ok in zip(mine, flags, strict=True):
                    if not ok:
                        bad(q, coverage.REASON)
        true_qs = [q for q in qs if not q["false_premise"]]
        for q in true_qs:
            constants = triviality.fixed_predictors(sub.answer_format, centres[q["kg"]])
            if triviality.is_trivial(sub.answer_format, json.loads(q["gold"]), constants):
                bad(q, triviality.REASON)
        if sub.answer_format in triviality.CAPPED_FORMATS and len(true_qs) > 1:
            top, n = Counter(q["gold"] for q in true_qs).most_common(1)[0]
            if n / len(true_qs) > triviality.MAX_SHARE:
                for q in true_qs:
                    if q["gold"] == top:
                        bad(q, triviality.REASON)
        if sub.conventions.get("readings"):
            for q in true_qs:
                try:
                    same = replay(con, catalog, q) == json.loads(q["gold"])
                except RuntimeError:  # the execution is now discarded (reading_dependent ...)
                    same = False
                if not same:
                    bad(q, readings.READING_DEPENDENT)
        for q in qs:
            if q["false_premise"]:
                p = json.loads(q["perturbation"] or "{}")
                if not (
                    sub.refusable and p.get("premise_kind") == sub.premise_kind and p.get("why")
                ):
                    bad(q, "premise_not_refusable")
    for q in _split_wholes(con, rows):
        bad(q, whole.PIECES_OF_ONE_WHOLE)
    return out + _stated_problems(con, catalog, rows) + role_problems(con, catalog, rows)


def _stated_problems(con, catalog, rows: list[dict]) -> list[dict]:
    """The questions whose text lacks a stated convention's words, or that count or list a country
    where the sub-template excludes countries (questions/stated.py: ``record_problems``)."""
    countries = {
        r[0]
        for r in con.execute(
            f"""
            SELECT entity_id
            FROM entities e
            WHERE {roles.admin_level_sql("e")} = ?
            """,
            [roles.COUNTRY_ADMIN_LEVEL],
        ).fetchall()
    }
    out = []
    for q in rows:
        sub = catalog.sub_template(q["sub_template_id"])
        cited = set(_evidence(q))
        for rule in stated.record_problems(
            sub.stated, sub.conventions, q["text"], cited, countries
        ):
            out.append({"question_id": q["question_id"], "sub_template_id": sub.id, "rule": rule})
    return out


ROLE_TYPE = "role_type"


def role_problems(con, catalog, rows: list[dict]) -> list[dict]:
    """``role_type``: a bound entity that does not satisfy its role's predicate
    (``roles.predicate``: kind, category, a unique name that identifies it); and the role rules
    ``incomparable_features`` / ``whole_kg_country`` (questions/role_rules.py) of a true question.
    Rows: question_id, sub_template_id, rule."""
    need: dict[str, set[str]] = defaultdict(set)  # role type -> bound ids
    for q in rows:
        sub, values = catalog.sub_template(q["sub_template_id"]), json.loads(q["bindings"])
        for r in sub.entity_roles:
            need[sub.roles[r]].add(values[r])
    fits = {rtype: _fitting(con, rtype, ids) for rtype, ids in need.items()}
    kinds = role_rules.entity_kinds(con, set().union(*need.values()) if need else ())
    out = []
    for q in rows:
        sub, values = catalog.sub_template(q["sub_template_id"]), json.loads(q["bindings"])
        rule = next(
            (ROLE_TYPE for r in sub.entity_roles if values[r] not in fits[sub.roles[r]]), None
        )
        if rule is None and not q["false_premise"]:
            rule = role_rules.violation(sub, values, kinds, json.loads(q["gold"]))
        if rule:
            out.append({"question_id": q["question_id"], "sub_template_id": sub.id, "rule": rule})
    return out


def _split_wholes(con, rows: list[dict]) -> list[dict]:
    """The questions of ``rows`` that cite two members conversion would merge into one whole
    feature (:func:`whole.pieces_of_one_whole`, on the members' stored name, category, geometry
    kind and EPSG:4326 geometry; events, entities with a time, are never merged)."""
    cited = {q["question_id"]: _evidence(q) for q in rows}
    ids = sorted({e for ev in cited.values() if len(ev) > 1 for e in ev})
    if not ids:
        return []
    members = {
        eid: (eid, name, category, kind, shapely.from_wkb(wkb))
        for eid, name, category, kind, wkb in con.execute(
            """
            SELECT entity_id, name, category, geom_kind, ST_AsWKB(geometry)
            FROM entities
            WHERE entity_id IN (SELECT unnest(?::VARCHAR[]))
                AND valid_from IS NULL
                AND valid_to IS NULL
            """,
            [ids],
        ).fetchall()
    }
    return [
        q
        for q in rows
        if len(ev := cited[q["question_id"]]) > 1
        and whole.pieces_of_one_whole([members[e] for e in ev if e in members])
    ]


def _fitting(con, rtype: str, ids: set[str]) -> set[str]:
    """The ``ids`` whose entity rows satisfy role type ``rtype``."""
    found = con.execute(
        f"""
        SELECT e.entity_id
        FROM entities e
        WHERE e.entity_id IN (SELECT unnest($ids))
          AND {roles.predicate(rtype, "e")}
        """,
        {"ids": sorted(ids)},
    ).fetchall()
    return {r[0] for r in found}


def _questions_valid(con, _):
    problems = validity_problems(con, default_catalog())
    df = pd.DataFrame(problems, columns=["question_id", "sub_template_id", "rule"])
    n = con.execute("SELECT count(*) FROM questions_en WHERE NOT multimodal").fetchone()[0]
    outcome = gx.run_suite(df, "questions_valid", gx.row_count_between(0, 0))
    return result(
        outcome,
        extra={
            "questions": int(n),
            "invalid_by_rule": dg.MetadataValue.json(dict(Counter(df["rule"]).most_common())),
            "first_invalid": dg.MetadataValue.json(problems[:20]),
        },
    )


TEMPLATE_CHECKS = (
    Check(
        "catalog_complete",
        True,
        "all 14 SFIDs and 65 top-level templates are in the catalog",
        _catalog_complete,
    ),
    Check(
        "conventions_stated",
        True,
        "every variant states the conventions that decide its gold (shape score, pass-by buffer, "
        "border source, simplification, boundary rule), renders no filter that removes nothing, "
        "and no polygon-category count includes the country (questions/stated.py)",
        _conventions_stated,
    ),
)
QUESTION_CHECKS = (
    Check(
        "gold_validates",
        True,
        "every gold is canonical for its answer format (formats.canonical); ids unique",
        _golds_validate,
    ),
    Check(
        "no_duplicate_question_gold",
        True,
        "no two rows share (question text, gold)",
        _no_duplicates,
    ),
    Check(
        "no_coordinates_or_ids_in_text",
        True,
        "no question text shows a coordinate pair in parentheses, a KG id (#node/, #way/, "
        "#relation/, #road.) or a placeholder name (POINT, UNNAMED, fixme, no name, n/a)",
        _no_leaked_locations,
    ),
    Check(
        "regions_by_designation",
        True,
        'no question text shows "(administrative region)" (a region is named by its designation, '
        '"the parish of La Massana") or a transit stop name with its stop number or direction '
        'code ("166 Roc de Sant Miquel", "Getúlio Vargas - 2 C/B")',
        _regions_by_designation,
    ),
    Check(
        "category_words_in_lexicon",
        True,
        "every category role is bound to a bindable category of the lexicon "
        "(mgqa_platform/data/category_lexicon.csv), so its rendered plural is a reviewed word",
        _category_words,
    ),
    Check(
        "query_and_gold_triples",
        True,
        "every question has a query, an executor, bindings, >= 1 gold triple and a snapshot id",
        _provenance,
    ),
    Check(
        "gold_replays",
        True,
        f"re-running the stored query of {REPLAYS_PER_SUB_TEMPLATE} seeded questions per "
        "sub-template reproduces the gold",
        _replays,
    ),
    Check(
        "templates_yield_questions",
        False,
        "every template with an executor yields at least one question on these inputs",
        _every_implemented_template_yields,
    ),
    Check(
        "questions_valid",
        True,
        "re-verified from the stored records: every answer's support and every false "
        "premise's lies "
        "inside the KG's coverage, no gold is hit by zero or the covered centre, "
        "no gold value holds "
        "more than 60% of a boolean, count or predefined sub-template, golds of sub-templates with "
        "listed readings replay, and every false premise is of a refusable kind with its reason",
        _questions_valid,
        # its rows are the invalid questions; an empty questions_en fails gold_validates
        allow_empty=True,
    ),
    Check(
        "false_premises_are_false",
        True,
        "re-running each false-premise question's premise query shows the premise failing",
        _false_premises_are_false,
        # its rows are the false premises; how many there are: false_premise_share
        allow_empty=True,
    ),
    Check(
        "false_premise_share",
        False,
        "false-premise questions are 5-10% of the text questions (paper: 7.8%)",
        _false_premise_share,
    ),
    Check(
        "multimodal_slice_valid",
        True,
        "multimodal rows: WorldKG/OSMH3KG, an image file link "
        "(Commons Special:FilePath or a direct image), "
        "the entity named by the image phrase and its role stored, true premise",
        _multimodal_rows,
        allow_empty=True,  # a KG without entity images has no multimodal slice
    ),
)
SPLIT_CHECKS = (
    Check(
        "small_split_cells",
        True,
        f"1..{SMALL_PER_CELL} questions per (KG, SFID) cell, all of them in the large split",
        _small_split,
    ),
)
