"""Measure the grammar errors of issue 18 (item 1) in questions rendered from a translation memory.

Every English question of a build (``questions_en`` of a warehouse, opened read-only) is re-rendered in each
language through :func:`mgqa_platform.multilingual.instantiate.localize`, with the memory's own templates, once
with the memories of a git revision (before) and once with the working tree's (after); the share of rows each
detector matches is printed per language. Run from the repository root::

    .venv/bin/python scripts/measure_grammar.py [--warehouse .mgqa/warehouse.duckdb] [--before a54e3f5]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

import duckdb

from mgqa_platform.multilingual import instantiate, memory
from mgqa_platform.questions.catalog import default_catalog

_FEM_SPA = (
    r"(?:aldeas|tiendas|carreteras|escuelas|paradas|estaciones|oficinas|farmacias|zonas|casas)"
)
_FEM_POR = r"(?:estradas|lojas|escolas|paradas|estações|farmácias|casas|praças|igrejas|cidades)"
_FEM_ITA = r"(?:strade|scuole|fermate|stazioni|farmacie|piazze|banche|case|città|aree)"
_GLI_ITA = r"(?:ospedali|aeroporti|ostelli|alberghi|edifici|uffici|studi|impianti|stati)"
_FEM_FRA = r"(?:routes|écoles|gares|stations|pharmacies|banques|boutiques|places|villes|zones)"
_VOWEL_FRA = (
    r"(?:hôpitaux|hôtels|écoles|aéroports|arrêts|usines|églises|entreprises|universités|îlots)"
)
#: detector -> the templates it applies to (a lower-case name at the start is not a category's).
ONLY_TEMPLATES = {"lowercase category start": r"^\W*\{category"}
#: language -> detector -> regex (lower bounds, as the issue's table).
DETECTORS = {
    "spa": {
        "los+fem": rf"\b[Ll]os {_FEM_SPA}\b",
        "cuántos+fem": rf"[Cc]uántos {_FEM_SPA}\b",
    },
    "por": {"os+fem": rf"\b[OoDd]os {_FEM_POR}\b"},
    "ita": {
        "i+fem": rf"\b(?:[Ii]|[Dd]ei) {_FEM_ITA}\b",
        "i+gli": rf"\b(?:[Ii]|[Dd]ei) {_GLI_ITA}\b",
    },
    "fra": {"quels+fem": rf"\b[Qq]uels {_FEM_FRA}\b", "de+vowel": rf"\bde {_VOWEL_FRA}\b"},
    "ell": {"frame": r"κατηγορί(?:ας|ών) «", "airport": r"μεγάλων πτήσεων"},
    "rus": {"frame": r"категори[ий] «", "km": r"\bkm\b"},
    "bul": {"frame": r"категорията „", "km": r"\bkm\b"},
    "tur": {"lowercase category start": r"^[a-zçğıöşü]"},
    "kat": {"how many/all + plural": r"(?:რამდენი[ა]?|ყველა) (?:\S+ )?\S+ები\b"},
    "urd": {
        "masculine + feminine plural": r"(?:کتنے|کون سے) (?:(?!ہیں|ملیں)[^\s،؟]+ ){0,3}(?!ہیں|ملیں)[^\s،؟]+(?:یں|اں)(?=[\s،؟]|$)"
    },
    "deu": {
        "dat without -n": r"\b(?:den|allen|vielen|zwei) \S*(?:geschäfte|plätze|häuser|Gebäude)\b"
    },
}


def memories_at(revision: str, directory: Path) -> Path:
    """The bundled memories of a git revision, written under ``directory``."""
    for lang in DETECTORS:
        rel = f"mgqa_platform/data/translations/{lang}.json"
        text = subprocess.run(
            ["git", "show", f"{revision}:{rel}"], capture_output=True, check=True, text=True
        ).stdout
        (directory / f"{lang}.json").write_text(text, encoding="utf-8")
    return directory


def rates(con: duckdb.DuckDBPyConnection, lang: str, tm: memory.TranslationMemory) -> dict:
    """Share of the questions of ``con`` rendered with ``tm`` that each detector of ``lang`` matches."""
    questions = [
        dict(
            zip(
                (
                    "question_id",
                    "sub_template_id",
                    "variant_id",
                    "bindings",
                    "parameters",
                    "image_role",
                ),
                row,
                strict=True,
            )
        )
        for row in con.execute(
            "SELECT question_id, sub_template_id, variant_id, bindings, parameters, image_role "
            "FROM questions_en ORDER BY question_id"
        ).fetchall()
    ]
    labels = dict(
        con.execute(
            "SELECT entity_id, min(label) FROM entity_labels WHERE lang = ? AND NOT is_alias "
            "GROUP BY 1",
            [lang],
        ).fetchall()
    )
    display = dict(con.execute("SELECT entity_id, display_name FROM entities").fetchall())
    templates = {vid: (e["text"], "memory") for vid, e in tm.variants.items()}
    rows, _ = instantiate.localize(
        questions, lang, templates, tm, labels, display, default_catalog()
    )
    n = len(rows)
    return {
        name: round(
            100
            * sum(
                bool(re.search(rx, r["text"]))
                and bool(re.search(ONLY_TEMPLATES.get(name, ""), r["template_text"]))
                for r in rows
            )
            / n,
            2,
        )
        for name, rx in DETECTORS[lang].items()
    } | {"rows": n}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warehouse", default=".mgqa/warehouse.duckdb")
    ap.add_argument("--before", default="a54e3f5")
    args = ap.parse_args()
    con = duckdb.connect(args.warehouse, read_only=True)
    with tempfile.TemporaryDirectory() as tmp:
        before_dir = memories_at(args.before, Path(tmp))
        for lang in DETECTORS:
            before = rates(con, lang, memory.load(lang, before_dir))
            after = rates(con, lang, memory.load(lang))
            print(json.dumps({"lang": lang, "before": before, "after": after}, ensure_ascii=False))


if __name__ == "__main__":
    main()
