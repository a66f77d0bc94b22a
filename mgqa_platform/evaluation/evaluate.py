"""Evaluate one system on one split and language: load the released records, score, store,
aggregate.

The records come from ``questions_en``; for the other 16 languages the text is that of
``questions_postedited`` (the released, post-edited text; same ids, golds and triples). Records are
restricted to the split: ``large`` is every question, ``small`` the ``split_small`` subset. Scores
go to the ``scores`` table, replacing that (system, split, lang) slice in one transaction, so
re-evaluating is idempotent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import duckdb
import pyarrow as pa

from mgqa_platform.evaluation.scoring import AliasStore, aggregate, score_question
from mgqa_platform.questions.catalog import Catalog, default_catalog

SPLITS = ("large", "small")
#: Record columns the scorer and the reports need (``gold_triples`` only for the solver).
RECORD_COLUMNS = (
    "question_id",
    "lang",
    "kg",
    "sfid",
    "tid",
    "sub_template_id",
    "answer_format",
    "text",
    "gold",
    "gold_aliases",
    "bindings",
    "parameters",
    "executor",
    "gold_triples",
    "entity_subjects",
    "false_premise",
    "multimodal",
    "income_tier",
    "density_tier",
    "country_iso3",
)
SCORE_COLUMNS = (
    "system",
    "split",
    "lang",
    "question_id",
    "kg",
    "sfid",
    "sub_template_id",
    "answer_format",
    "false_premise",
    "income_tier",
    "density_tier",
    "status",
    "covered",
    "refused",
    "em",
    "ne",
    "prediction",
    "detail",
)


def load_questions(
    con: duckdb.DuckDBPyConnection, split: str = "large", lang: str = "eng"
) -> list[dict]:
    """Released records of one split and language, in question-id order: English from
    ``questions_en``, every other language the ``questions_en`` record with ``lang`` and ``text``
    from ``questions_postedited`` (localized, post-edited text)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {SPLITS}")
    small = "JOIN split_small s ON s.question_id = q.question_id" if split == "small" else ""
    if lang == "eng":
        source, text = "", "q"
    else:
        source = "JOIN questions_postedited p ON p.question_id = q.question_id AND p.lang = ?"
        text = "p"
    cols = ", ".join(f"{text}.{c}" if c in ("lang", "text") else f"q.{c}" for c in RECORD_COLUMNS)
    sql = f"""
        SELECT {cols}
        FROM questions_en q
        {source}
        {small}
        WHERE {text}.lang = ?
        ORDER BY q.question_id
        """
    params = [lang] if lang == "eng" else [lang, lang]
    cur = con.execute(sql, params)
    return [dict(zip(RECORD_COLUMNS, r, strict=True)) for r in cur.fetchall()]


def premise_templates(catalog: Catalog | None = None) -> set[str]:
    """Sub-templates that carry false premises (their answerable questions form the G.7 FRR
    comparison set)."""
    return {s.id for s in (catalog or default_catalog()).sub_templates if s.perturb_role}


def score_rows(
    system: str,
    split: str,
    lang: str,
    questions: list[Mapping[str, Any]],
    predictions: Mapping[str, Mapping],
    catalog: Catalog | None = None,
) -> list[dict]:
    """One score row per question (a question without a prediction is a ``harness_error``)."""
    premise = premise_templates(catalog)
    rows = []
    for q in questions:
        pred = predictions.get(q["question_id"])
        s = score_question(q, pred, AliasStore.of_question(q))
        rows.append(
            {
                "system": system,
                "split": split,
                "lang": lang,
                "question_id": q["question_id"],
                "kg": q["kg"],
                "sfid": q["sfid"],
                "sub_template_id": q["sub_template_id"],
                "answer_format": q["answer_format"],
                "false_premise": bool(q["false_premise"]),
                "income_tier": q["income_tier"],
                "density_tier": q["density_tier"],
                "status": s.status,
                "covered": s.covered,
                "refused": s.refused,
                "em": s.em,
                "ne": s.ne,
                "prediction": None
                if pred is None
                else json.dumps(pred.get("answer"), sort_keys=True, ensure_ascii=False),
                "detail": s.detail,
                "premise_template": q["sub_template_id"] in premise,
            }
        )
    return rows


def write_scores(
    con: duckdb.DuckDBPyConnection, rows: list[dict], system: str, split: str, lang: str
) -> int:
    """Replace the (system, split, lang) slice of ``scores`` by ``rows`` in one transaction."""
    from mgqa_platform.warehouse import transaction

    types = {
        "false_premise": pa.bool_(),
        "covered": pa.bool_(),
        "refused": pa.bool_(),
        "em": pa.float64(),
        "ne": pa.float64(),
    }
    table = pa.table(
        {c: pa.array([r[c] for r in rows], types.get(c, pa.string())) for c in SCORE_COLUMNS}
    )
    con.register("_scores", table)
    try:
        with transaction(con):
            con.execute(
                "DELETE FROM scores WHERE system = ? AND split = ? AND lang = ?",
                [system, split, lang],
            )
            con.execute(
                "INSERT INTO scores BY NAME "
                f"SELECT {', '.join(SCORE_COLUMNS)} "
                "FROM _scores "
                "ORDER BY question_id"
            )
    finally:
        con.unregister("_scores")
    return len(rows)


def read_scores(
    con: duckdb.DuckDBPyConnection, system: str, split: str, lang: str | None = None
) -> list[dict]:
    """Score rows of a system and split (all languages unless ``lang``), with ``premise_template``
    restored."""
    premise = premise_templates()
    where, args = "system = ? AND split = ?", [system, split]
    if lang:
        where, args = where + " AND lang = ?", [*args, lang]
    cur = con.execute(
        f"SELECT {', '.join(SCORE_COLUMNS)} FROM scores WHERE {where} ORDER BY lang, question_id",
        args,
    )
    return [
        {**dict(zip(SCORE_COLUMNS, r, strict=True)), "premise_template": r[6] in premise}
        for r in cur.fetchall()
    ]


def summary(rows: list[Mapping[str, Any]]) -> dict:
    """Overall metrics plus status counts, for metadata and the CLI."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return {**aggregate(rows).as_dict(), "status_counts": dict(sorted(counts.items()))}
