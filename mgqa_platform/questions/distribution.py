"""The distribution report of the English questions, in the layouts of the paper's Table 2, Table 7
and Fig. 6.

* questions and countries per strata cell (income tier x density tier), with row and column totals
  (Table 2);
* questions per (KG, SFID) cell (Table 7), with the small split's count in the same cell;
* questions per answer format (Fig. 6);
* false-premise and multimodal counts and shares;
* names by rule (mgqa_platform/kg/names.py): per KG and rule, the entities it renamed or excluded
  and the English questions that name one of them.
* discarded executions by reason (``question_discards``), and why B03 is absent when the population
  raster is the GeoNames proxy surface (the density tiers are then labelled as proxy).

``report`` returns the numbers (for asset metadata and checks); ``markdown`` renders them.
"""

from __future__ import annotations

import duckdb

from mgqa_platform import markdown as md

INCOME = ("HIC", "UMC", "LMC", "LIC")
DENSITY = ("low", "medium", "high")


#: The queries of :func:`report`, by name: each reads the questions, the small split, the
#: discards or the density breaks.
_REPORT_QUERIES = {
    "totals": """
        SELECT count(*), count(DISTINCT country_iso3)
        FROM questions_en
    """,
    "cells": """
        SELECT income_tier, density_tier, count(*)
        FROM questions_en
        GROUP BY 1, 2
    """,
    "countries": """
        SELECT income_tier, count(DISTINCT country_iso3)
        FROM questions_en
        WHERE country_iso3 IS NOT NULL
        GROUP BY 1
    """,
    "kg_sfid": """
        SELECT kg, sfid, count(*)
        FROM questions_en
        GROUP BY 1, 2
    """,
    "small": """
        SELECT kg, sfid, count(*)
        FROM split_small
        GROUP BY 1, 2
    """,
    "formats": """
        SELECT answer_format, count(*)
        FROM questions_en
        GROUP BY 1
        ORDER BY 2 DESC, 1
    """,
    "flags": """
        SELECT count(*) FILTER (WHERE false_premise), count(*) FILTER (WHERE multimodal)
        FROM questions_en
    """,
    "per_kg": """
        SELECT kg, count(*)
        FROM questions_en
        GROUP BY 1
        ORDER BY 1
    """,
    "discards": """
        SELECT reason, sum(n)::BIGINT
        FROM question_discards
        GROUP BY 1
        ORDER BY 2 DESC, 1
    """,
    "raster": """
        SELECT label, is_proxy
        FROM density_breaks
        ORDER BY raster
        LIMIT 1
    """,
}

#: (KG, name rule, questions): the questions that bind an entity named by each rule.
_QUESTIONS_BY_RULE = """
        WITH bound AS (
            SELECT DISTINCT
                question_id,
                json_extract_string(bindings, '$."' || role || '"') AS entity_id
            FROM (
                SELECT question_id, bindings, unnest(json_keys(bindings)) AS role
                FROM questions_en
            )
        )
        SELECT e.kg, e.name_rule, count(DISTINCT b.question_id)
        FROM bound b
        JOIN entities e USING (entity_id)
        WHERE e.name_rule IS NOT NULL
        GROUP BY 1, 2
    """

#: (KG, name rule, entities, excluded): the entities named by each rule.
_NAMES_BY_RULE = """
        SELECT kg, name_rule, count(*), count(*) FILTER (WHERE NOT name_unique)
        FROM entities
        WHERE name_rule IS NOT NULL
        GROUP BY 1, 2
        ORDER BY 1, 2
    """


def report(con: duckdb.DuckDBPyConnection) -> dict:
    """The distribution of the English questions (:data:`_REPORT_QUERIES`) as one dict: totals,
    strata cells, countries, (KG, SFID) cells of both splits, formats, flags, discards, the
    population raster and the names by rule."""
    r = {k: con.execute(sql).fetchall() for k, sql in _REPORT_QUERIES.items()}
    (total, n_countries), (false_premise, multimodal) = r["totals"][0], r["flags"][0]
    small_cells = {(k, s): n for k, s, n in r["small"]}
    questions_by_rule = {(k, rule): n for k, rule, n in con.execute(_QUESTIONS_BY_RULE).fetchall()}
    names_by_rule = [
        (k, rule, n, excluded, questions_by_rule.get((k, rule), 0))
        for k, rule, n, excluded in con.execute(_NAMES_BY_RULE).fetchall()
    ]
    raster = r["raster"]
    return {
        "total": total,
        "strata": {(i, d): n for i, d, n in r["cells"]},
        "countries_per_income": dict(r["countries"]),
        "countries": n_countries,
        "kg_sfid": {(k, s): n for k, s, n in r["kg_sfid"]},
        "small": small_cells,
        "small_total": sum(small_cells.values()),
        "formats": dict(r["formats"]),
        "false_premise": false_premise,
        "multimodal": multimodal,
        "per_kg": dict(r["per_kg"]),
        "names_by_rule": names_by_rule,
        "discards": dict(r["discards"]),
        "population_raster": {"label": raster[0][0], "is_proxy": raster[0][1]} if raster else None,
    }


def _pct(n: int, total: int) -> str:
    return f"{n:,} ({100 * n / total:.0f}%)" if total else "0"


def markdown(r: dict) -> str:
    total = r["total"] or 1
    out = ["### Questions per strata cell (income tier x density tier; Table 2 layout)", ""]
    rows = []
    for inc in INCOME:
        row = [r["strata"].get((inc, d), 0) for d in DENSITY]
        share = _pct(sum(row), total)
        rows.append([inc, *(f"{n:,}" for n in row), share, r["countries_per_income"].get(inc, 0)])
    cols = [sum(r["strata"].get((i, d), 0) for i in INCOME) for d in DENSITY]
    rows.append(["total", *(_pct(n, total) for n in cols), f"{r['total']:,}", r["countries"]])
    header = ["income \\ density", *DENSITY, "questions", "countries"]
    out += md.table(header, rows, "lrrrrr")

    kgs = sorted({k for k, _ in r["kg_sfid"]})
    sfids = sorted({s for _, s in r["kg_sfid"]})
    out += ["", "### Questions per (KG, SFID) cell, small split in brackets (Table 7 layout)", ""]
    rows = []
    for s in sfids:
        cells = [
            f"{r['kg_sfid'][(k, s)]:,} ({r['small'].get((k, s), 0):,})"
            if r["kg_sfid"].get((k, s))
            else "–"
            for k in kgs
        ]
        rows.append([s, *cells, f"{sum(r['kg_sfid'].get((k, s), 0) for k in kgs):,}"])
    per_kg = [f"{r['per_kg'].get(k, 0):,}" for k in kgs]
    rows.append(["total", *per_kg, f"{r['total']:,} (small {r['small_total']:,})"])
    out += md.table(["SFID", *kgs, "total"], rows, "l" + "r" * (len(kgs) + 1))

    out += ["", "### Questions per answer format (Fig. 6)", ""]
    formats = [(f, _pct(n, total)) for f, n in r["formats"].items()]
    out += md.table(["answer format", "questions"], formats, "lr")
    fp, mm = _pct(r["false_premise"], total), _pct(r["multimodal"], total)
    out += ["", f"False-premise questions: {fp}. Multimodal slice: {mm}."]

    out += ["", "### Names by rule (docs/questions.md, Display names)", ""]
    header = [
        "KG",
        "rule",
        "entities",
        "excluded from entity roles",
        "English questions naming one",
    ]
    rows = [[k, rule, f"{n:,}", f"{x:,}", f"{qn:,}"] for k, rule, n, x, qn in r["names_by_rule"]]
    out += md.table(header, rows, "llrrr")
    out += [
        "",
        "Questions a rule cost cannot be counted within one build (the generator binds other "
        "entities instead); docs/questions.md gives a build before and after the rules.",
    ]
    raster = r["population_raster"]
    if raster and raster["is_proxy"]:
        out += [
            "",
            f"Density tiers from a PROXY surface ({raster['label']}), "
            "not WorldPop. B03 (population within "
            "a radius) is not generated: a people count needs a real population raster "
            "(discard reason `no_population_raster`; configure `MGQA_POPULATION_RASTER`).",
        ]
    out += ["", "### Discarded executions by reason", ""]
    out += md.table(
        ["reason", "executions"], [(k, f"{n:,}") for k, n in r["discards"].items()], "lr"
    )
    return "\n".join(out)
