"""The warehouse side of the multilingual stages: one language slice at a time, each replaced in one
transaction.

``template_translations`` (machine translation of every catalog variant) ->
``template_translations_resolved`` (human post-edits resolved, or the MT passed through as
unreviewed) -> ``questions_localized`` (every English question re-rendered) ->
``questions_postedited`` (grammar around the inserted names fixed by the ensemble). English is a
partition like the others: its "translation" is the catalog text itself (engine ``source``) and its
localized slice copies the text of ``questions_en``, so that every language, English included, is
read from the same tables downstream. The language tables hold only the text and how it was made
(:mod:`mgqa_platform.question_schema`); readers join ``questions_en`` by ``question_id`` for the
rest.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from mgqa_platform.languages import SOURCE, language
from mgqa_platform.multilingual import ensemble, events, instantiate, memory, names
from mgqa_platform.multilingual.agreement import agreement
from mgqa_platform.multilingual.annotations import load_annotations
from mgqa_platform.multilingual.names_in_context import span_classes
from mgqa_platform.multilingual.resolution import Resolution, report_markdown, resolve
from mgqa_platform.multilingual.translate import Translation, Translator, translate_catalog
from mgqa_platform.question_schema import LOCALIZED_SCHEMA, arrow_table
from mgqa_platform.questions.catalog import Catalog
from mgqa_platform.questions.multimodal import IMAGE_PHRASE
from mgqa_platform.warehouse import fetch_dicts, registered, replace_partition, transaction


def english_variants(catalog: Catalog) -> dict[str, tuple[str, str]]:
    """Variant id -> (sub-template id, English text), for every variant of the catalog."""
    return {v.id: (s.id, v.text) for s in catalog.sub_templates for v in s.variants}


def _replace(
    con: duckdb.DuckDBPyConnection,
    table: str,
    lang: str,
    rows: Sequence[Mapping[str, Any]],
    types: Mapping[str, pa.DataType] | None = None,
) -> int:
    """Replace the ``lang`` slice of ``table`` by ``rows`` (columns by name) in one transaction."""
    if not rows:
        with transaction(con):
            con.execute(f"DELETE FROM {table} WHERE lang = ?", [lang])
        return 0
    types = types or {}
    with registered(
        con,
        _slice=pa.table(
            {c: pa.array([r[c] for r in rows], types.get(c, pa.string())) for c in rows[0]}
        ),
    ):
        return replace_partition(con, table, "lang", lang, "BY NAME SELECT * FROM _slice")


# ---------------------------------------------------------------- 1. machine translation
def translate_language(
    con: duckdb.DuckDBPyConnection, catalog: Catalog, lang: str, translator: Translator
) -> list[Translation]:
    """Translate every catalog variant into ``lang`` (English: the catalog text, engine ``source``)
    and store it."""
    language(lang)
    variants = english_variants(catalog)
    if lang == SOURCE:
        done = [
            Translation(vid, lang, text, text, "source", "source", ())
            for vid, (_, text) in sorted(variants.items())
        ]
    else:
        done = translate_catalog(translator, catalog, lang)
    rows = [
        {
            "lang": lang,
            "variant_id": t.variant_id,
            "sub_template_id": variants[t.variant_id][0],
            "source": t.source,
            "text": t.text,
            "engine": t.engine,
            "status": t.status,
            "problems": json.dumps(list(t.problems)),
            "needs_post_edit": t.needs_post_edit,
        }
        for t in done
    ]
    _replace(con, "template_translations", lang, rows, {"needs_post_edit": pa.bool_()})
    return done


# ---------------------------------------------------------------- 2. post-edit resolution
def resolve_language(
    con: duckdb.DuckDBPyConnection, lang: str, annotations: Path | None, judge: Any
) -> dict[str, Any]:
    """Resolve the stored MT of ``lang`` against its annotation export (if any) and store the
    result.

    A variant whose MT is missing (absent from the memory, or a failed request) is resolved from the
    English text, flagged ``untranslated``, so that re-instantiation never lacks a template; a
    blocking check then reports it."""
    rows = con.execute(
        "SELECT variant_id, sub_template_id, source, text "
        "FROM template_translations "
        "WHERE lang = ? "
        "ORDER BY variant_id",
        [lang],
    ).fetchall()
    if not rows:
        raise RuntimeError(
            f"no template_translations for {lang}: materialize template_translations[{lang}] first"
        )
    english = {vid: src for vid, _, src, _ in rows}
    subs = {vid: sub for vid, sub, _, _ in rows}
    mt = {vid: (text if text is not None else src) for vid, _, src, text in rows}
    untranslated = {vid for vid, _, _, text in rows if text is None}
    if lang == SOURCE:
        resolutions = [
            Resolution(lang, vid, english[vid], "source", "source", (), None)
            for vid in sorted(english)
        ]
        anns, rejected = [], []
    else:
        anns, rejected = (
            load_annotations(annotations, lang, set(english), mt=mt) if annotations else ([], [])
        )
        resolutions = resolve(lang, english, mt, anns, judge=judge)
    stats = (
        agreement(lang, anns, mt, resolutions)
        if anns
        else {"n_items": len(resolutions), "annotated": False}
    )
    out = []
    for r in resolutions:
        status = (
            "untranslated"
            if r.variant_id in untranslated and r.method in ("unreviewed", "keep_original")
            else r.status
        )
        out.append(
            {
                "lang": lang,
                "variant_id": r.variant_id,
                "sub_template_id": subs[r.variant_id],
                "source": english[r.variant_id],
                "text": r.text,
                "method": r.method,
                "status": status,
                "labels": json.dumps(list(r.labels)),
                "detail": r.detail,
            }
        )
    _replace(con, "template_translations_resolved", lang, out)
    with transaction(con):
        con.execute("DELETE FROM annotation_agreement WHERE lang = ?", [lang])
        con.execute(
            "INSERT INTO annotation_agreement VALUES (?, ?, ?)",
            [lang, json.dumps(stats, sort_keys=True), len(rejected)],
        )
    methods = Counter(r["method"] for r in out)
    statuses = Counter(r["status"] for r in out)
    report = report_markdown(lang, resolutions, stats, rejected) if lang != SOURCE else ""
    return {
        "n": len(out),
        "methods": dict(sorted(methods.items())),
        "statuses": dict(sorted(statuses.items())),
        "stats": stats,
        "rejected": len(rejected),
        "report": report,
        "annotations": str(annotations) if annotations else None,
    }


# ---------------------------------------------------------------- 3. re-instantiation
def localize_language(
    con: duckdb.DuckDBPyConnection, catalog: Catalog, lang: str
) -> dict[str, Any]:
    """Store the ``lang`` slice of ``questions_localized``: every English question re-rendered from
    the resolved templates; for English, the text of ``questions_en`` itself (copied in SQL, not
    re-rendered)."""
    statuses = _template_statuses(con, lang)
    if lang == SOURCE:
        return _copy_english(con, statuses)
    questions = fetch_dicts(
        con,
        """
        SELECT question_id, sub_template_id, variant_id, bindings, parameters, image_role
        FROM questions_en
        ORDER BY question_id
        """,
    )
    entities, kg_labels = _bound_entities(con, questions, lang)
    display = {e["entity_id"]: e["display_name"] for e in entities}
    labels, sources = names.localized_names(entities, lang, kg_labels)
    named_events = events.entity_events(entities)
    if named_events:
        sources["event"] = len(named_events)
    rows, fallbacks = instantiate.localize(
        questions,
        lang,
        _resolved_templates(con, lang),
        memory.load(lang),
        labels,
        display,
        catalog,
        named_events,
        names.display_qualifiers(entities),
    )
    with registered(con, _slice=arrow_table(LOCALIZED_SCHEMA, rows)):
        n = replace_partition(
            con, "questions_localized", "lang", lang, "BY NAME SELECT * FROM _slice"
        )
    return {
        "n": n,
        "fallbacks": dict(sorted(fallbacks.items())),
        "localized_labels": len(labels),
        "label_sources": dict(sorted(sources.items())),
        "names_localized": names.name_stats(rows, instantiate.IMAGE_PHRASES[lang]),
        "template_statuses": statuses,
    }


def _template_statuses(con: duckdb.DuckDBPyConnection, lang: str) -> dict[str, int]:
    """Resolved template status -> count, for ``lang``; RuntimeError when there is none."""
    statuses = dict(
        con.execute(
            """
            SELECT status, count(*)
            FROM template_translations_resolved
            WHERE lang = ?
            GROUP BY status
            ORDER BY status
            """,
            [lang],
        ).fetchall()
    )
    if not statuses:
        raise RuntimeError(
            f"no resolved templates for {lang}: "
            f"materialize template_translations_resolved[{lang}] first"
        )
    return statuses


def _copy_english(con: duckdb.DuckDBPyConnection, statuses: dict[str, int]) -> dict[str, Any]:
    """The English slice of ``questions_localized``: the text of ``questions_en`` copied in SQL."""
    n = replace_partition(
        con,
        "questions_localized",
        "lang",
        SOURCE,
        """
        BY NAME
        SELECT q.lang, q.question_id, q.text, q.text_marked, r.text AS template_text,
               r.status AS template_status, '[]'::JSON AS fallbacks
        FROM questions_en q
        JOIN template_translations_resolved r ON r.lang = q.lang AND r.variant_id = q.variant_id
        ORDER BY q.question_id
        """,
    )
    return {
        "n": n,
        "fallbacks": {},
        "localized_labels": 0,
        "label_sources": {},
        "names_localized": {},
        "template_statuses": statuses,
    }


def _resolved_templates(con: duckdb.DuckDBPyConnection, lang: str) -> dict[str, tuple[str, str]]:
    """Variant id -> (resolved text, status) of the templates of ``lang``."""
    rows = con.execute(
        """
        SELECT variant_id, text, status
        FROM template_translations_resolved
        WHERE lang = ?
        """,
        [lang],
    ).fetchall()
    return {vid: (text, status) for vid, text, status in rows}


def _bound_entities(
    con: duckdb.DuckDBPyConnection, questions: list[dict], lang: str
) -> tuple[list[dict], dict[str, str]]:
    """The entities bound by ``questions`` (with their country) and, per entity, its smallest
    non-alias KG label in ``lang``."""
    ids = sorted({e for q in questions for e in json.loads(q["bindings"]).values() if ":" in e})
    with registered(con, _ids=pa.table({"entity_id": pa.array(ids, pa.string())})):
        entities = fetch_dicts(
            con,
            """
            SELECT e.entity_id, e.display_name, e.name, e.category, e.lon, e.lat, e.wikidata,
                   e.attributes, e.valid_from, c.iso3
            FROM _ids
            JOIN entities e USING (entity_id)
            LEFT JOIN entity_country c USING (entity_id)
            """,
        )
        kg_labels = con.execute(
            """
            SELECT l.entity_id, min(l.label)
            FROM _ids
            JOIN entity_labels l USING (entity_id)
            WHERE l.lang = ? AND NOT l.is_alias
            GROUP BY 1
            """,
            [lang],
        ).fetchall()
    return entities, dict(kg_labels)


def names_localized(con: duckdb.DuckDBPyConnection, lang: str) -> dict[str, Any]:
    """The entity names inserted into the ``lang`` slice of ``questions_localized``, localized vs
    fallen back to English (:func:`names.name_stats`); for English every name is its own."""
    rows = fetch_dicts(
        con,
        "SELECT text_marked, fallbacks FROM questions_localized WHERE lang = ?",
        [lang],
    )
    phrase = IMAGE_PHRASE if lang == SOURCE else instantiate.IMAGE_PHRASES[lang]
    return names.name_stats(rows, phrase)


# ---------------------------------------------------------------- 4. post-edit ensemble
def postedit_language(
    con: duckdb.DuckDBPyConnection,
    lang: str,
    members: Sequence[Any],
    primary: str,
    *,
    concurrency: int = 1,
) -> dict[str, Any]:
    """Run the post-edit ensemble (:mod:`mgqa_platform.multilingual.ensemble`) over every localized
    question of ``lang`` and store three slices: ``questions_postedited`` (the edited ``text`` and
    ``text_marked``, the text before the edits in ``text_marked_localized``, the vote's decision and
    the applied edits), ``ensemble_edit_log`` (one row per proposed edit per member, plus one row
    per rejected or failed reply) and ``ensemble_stats``. Questions are processed in question-id
    order; ``concurrency`` > 1 runs questions on a thread pool (for LLM members), with results kept
    in that order."""
    names = _ensemble_names(lang, members, primary, concurrency)
    questions = _questions_to_postedit(con, lang)
    results = _run_ensemble(questions, members, primary, concurrency)
    log = _edit_log(lang, questions, results)
    n = _write_postedited(con, lang, questions, results)
    _replace(con, "ensemble_edit_log", lang, log, {"applied": pa.bool_()})
    summary = ensemble.stats(results)
    _write_ensemble_stats(con, lang, dict(zip(names, members, strict=True)), primary, summary)
    return {
        "n": n,
        "stats": summary,
        "log_rows": len(log),
        "members": names,
        "primary": primary,
        "examples": [
            {
                "question_id": q["question_id"],
                "before": q["text_marked"],
                "after": r["text_marked"],
                "edits": r["applied"],
                "decision": r["decision"],
            }
            for q, r in zip(questions, results, strict=True)
            if r["applied"]
        ][:25],
    }


def _ensemble_names(lang: str, members: Sequence[Any], primary: str, concurrency: int) -> list[str]:
    """The names of the ensemble's ``members`` (``name``, else the class name), in order; raises
    ValueError on an unknown language, a ``concurrency`` below 1, no member, two members of one
    name or a ``primary`` that is not a member."""
    language(lang)
    if concurrency < 1:
        raise ValueError("concurrency must be >= 1")
    if not members:
        raise ValueError("the ensemble needs at least one member")
    names = [getattr(m, "name", type(m).__name__) for m in members]
    if len(set(names)) != len(names):
        raise ValueError(f"member names must be unique: {names}")
    if primary not in names:
        raise ValueError(f"primary member {primary!r} is not one of {names}")
    return names


def _questions_to_postedit(con: duckdb.DuckDBPyConnection, lang: str) -> list[dict]:
    """The localized questions of ``lang`` in question-id order, with their English and resolved
    templates and ``classes``: the class of each named entity, for the rules on names in context.
    Raises RuntimeError when ``questions_localized`` has none."""
    questions = fetch_dicts(
        con,
        """
        SELECT q.question_id, q.lang, q.text_marked, q.template_text, r.source AS template_en,
               en.bindings, en.image_role
        FROM questions_localized q
        JOIN questions_en en USING (question_id)
        LEFT JOIN template_translations_resolved r
            ON r.lang = q.lang AND r.variant_id = en.variant_id
        WHERE q.lang = ?
        ORDER BY q.question_id
        """,
        [lang],
    )
    if not questions:
        raise RuntimeError(
            f"no questions_localized for {lang}: materialize questions_localized[{lang}] first"
        )
    categories = dict(con.execute("SELECT entity_id, category FROM entities").fetchall())
    for q in questions:
        bindings = q.pop("bindings")
        bindings = json.loads(bindings) if isinstance(bindings, str) else dict(bindings or {})
        q["classes"] = span_classes(q["template_text"], bindings, categories, q.pop("image_role"))
    return questions


def _run_ensemble(
    questions: list[dict], members: Sequence[Any], primary: str, concurrency: int
) -> list[dict]:
    """The ensemble's result for each question, in the questions' order; ``concurrency`` > 1 runs
    them on a thread pool."""

    def one(q: dict) -> dict:
        return ensemble.postedit(q, members, primary)

    if concurrency == 1:
        return [one(q) for q in questions]
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="mgqa-postedit") as pool:
        return list(pool.map(one, questions))


def _edit_log(lang: str, questions: list[dict], results: list[dict]) -> list[dict]:
    """The ``ensemble_edit_log`` rows: per question, one row per proposed edit of each member, then
    one row per member whose reply was rejected or failed without an edit."""
    log = []
    for q, r in zip(questions, results, strict=True):
        row = {"lang": lang, "question_id": q["question_id"]}
        for e in r["edits"]:
            m = r["members"][e["member"]]
            log.append(
                {
                    **row,
                    "member": e["member"],
                    "status": m["status"],
                    "op": e["op"],
                    "original": e["original"],
                    "fix": e["fix"],
                    "applied": e["applied"],
                    "detail": m["detail"],
                }
            )
        for name, m in r["members"].items():
            if m["status"] != "ok" and not m["n_edits"]:
                log.append(
                    {
                        **row,
                        "member": name,
                        "status": m["status"],
                        "op": None,
                        "original": None,
                        "fix": None,
                        "applied": False,
                        "detail": m["detail"],
                    }
                )
    return log


def _write_postedited(
    con: duckdb.DuckDBPyConnection, lang: str, questions: list[dict], results: list[dict]
) -> int:
    """Replace the ``questions_postedited`` partition of ``lang`` with the edited texts; the text
    before the edits is copied inside DuckDB, only the edited fields come from Python. Returns the
    number of rows."""
    edited = pa.table(
        {
            "question_id": [q["question_id"] for q in questions],
            "new_text": [r["text"] for r in results],
            "new_text_marked": [r["text_marked"] for r in results],
            "postedit_decision": [r["decision"] for r in results],
            "postedit_edits": [json.dumps(r["applied"], ensure_ascii=False) for r in results],
        }
    )
    with registered(con, _edited=edited):
        return replace_partition(
            con,
            "questions_postedited",
            "lang",
            lang,
            """
            BY NAME
            SELECT q.lang, q.question_id, e.new_text AS text, e.new_text_marked AS text_marked,
                   q.text_marked AS text_marked_localized, e.postedit_decision,
                   e.postedit_edits::JSON AS postedit_edits
            FROM questions_localized q
            JOIN _edited e USING (question_id)
            WHERE q.lang = ?
            ORDER BY q.question_id
            """,
            [lang],
        )


def _write_ensemble_stats(
    con: duckdb.DuckDBPyConnection,
    lang: str,
    members: Mapping[str, Any],
    primary: str,
    summary: dict,
) -> None:
    """Replace the ``ensemble_stats`` row of ``lang``: the members by name (described), the primary
    and the ensemble's statistics, as sorted JSON."""
    described = {name: ensemble.describe(m) for name, m in members.items()}
    setup = {"members": list(members), "primary": primary, "describe": described}
    with transaction(con):
        con.execute("DELETE FROM ensemble_stats WHERE lang = ?", [lang])
        con.execute(
            "INSERT INTO ensemble_stats VALUES (?, ?, ?)",
            [lang, json.dumps(setup, sort_keys=True), json.dumps(summary, sort_keys=True)],
        )
