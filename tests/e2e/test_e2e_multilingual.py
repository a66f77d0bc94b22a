"""End to end, the languages: all 17 partitions from the build, one partition again from the
Dagster command line (byte-identical), a broken translation caught by its checks, and the post-edit
ensemble.

The per-language tables are read in their lean shape: ``questions_localized`` and
``questions_postedited`` hold the language's own columns; everything else comes from
``questions_en`` joined on ``question_id`` (with table-qualified columns, so that the joins also run
on the wide shape).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from mgqa_platform.multilingual.names import simplified

pytestmark = pytest.mark.e2e

#: One digest per language over every column a localized question owns.
LOCALIZED_DUMP = """
    SELECT
        lang,
        count(*),
        md5(string_agg(
            question_id || text || text_marked || template_text || fallbacks,
            '|' ORDER BY question_id
        ))
    FROM questions_localized
    WHERE lang = ?
    GROUP BY lang
"""

#: One digest per language over the post-edited text and the ensemble's decision and edits.
POSTEDITED_DUMP = """
    SELECT
        lang,
        count(*),
        md5(string_agg(
            question_id || text || text_marked || text_marked_localized || postedit_decision
                || CAST(postedit_edits AS VARCHAR),
            '|' ORDER BY question_id
        ))
    FROM questions_postedited
    WHERE lang = ?
    GROUP BY lang
"""


#: The assets of one language partition, as the README's `dagster asset materialize` names them.
ONE_LANGUAGE = (
    "template_translations",
    "template_translations_resolved",
    "questions_localized",
    "questions_postedited",
    "release_questions",
)


def test_all_17_languages_materialize_from_the_build(query):
    """`mgqa build` materializes every language partition: templates, resolution, re-instantiated
    questions."""
    from mgqa_platform.languages import CODES, in_script, scripts_of
    from mgqa_platform.multilingual.placeholders import PLACEHOLDER

    n_en = query("SELECT count(*) FROM questions_en")[0][0]
    per_lang = dict(query("SELECT lang, count(*) FROM questions_localized GROUP BY 1"))
    assert per_lang == {lang: n_en for lang in CODES}
    # English through the multilingual path reproduces questions_en exactly (one code path renders
    # every language)
    english_differs = """
        SELECT count(*)
        FROM questions_localized l
        JOIN questions_en e USING (question_id)
        WHERE l.lang = 'eng' AND (l.text <> e.text OR l.text_marked <> e.text_marked)
    """
    assert query(english_differs) == [(0,)]
    # without annotation exports every translation is the bundled draft, flagged unreviewed
    methods = """
        SELECT DISTINCT method, status
        FROM template_translations_resolved
        WHERE lang = 'fra'
    """
    assert query(methods) == [("unreviewed", "unreviewed")]
    first_french_distance = """
        SELECT e.variant_id, l.text
        FROM questions_localized l
        JOIN questions_en e USING (question_id)
        WHERE l.lang = 'fra' AND e.sub_template_id = 'A01.1'
        ORDER BY l.question_id
        LIMIT 1
    """
    ((variant, fr),) = query(first_french_distance)
    # the bundled French draft of its variant ("Quelle est la distance entre {entity_A} et
    # {entity_B} ?", "Combien de kilomètres séparent ..."), with both names filled in
    from mgqa_platform.multilingual.memory import TM_DIR

    draft = json.loads((TM_DIR / "fra.json").read_text(encoding="utf-8"))["variants"][variant][
        "text"
    ]
    pattern = re.escape(draft).replace(r"\{entity_A\}", ".+").replace(r"\{entity_B\}", ".+")
    assert re.fullmatch(pattern, fr) and "{" not in fr, (variant, fr)
    # an entity with a label in the language is named by it (the sample has Finnish-, Swedish- and
    # Arabic-named places, and a few French, German, Russian, Japanese and Chinese labels)
    labelled = """
        SELECT l.lang, l.text_marked, lab.label
        FROM questions_localized l
        JOIN questions_en e USING (question_id)
        JOIN entity_labels lab
            ON lab.lang = l.lang
            AND NOT lab.is_alias
            AND lab.entity_id = json_extract_string(e.bindings, '$.entity_A')
        WHERE l.lang <> 'eng' AND NOT e.multimodal
    """
    rows = query(labelled)

    # Chinese text is Simplified: a label written in Traditional characters is named in its
    # Simplified form; a label another entity of the question also reads as carries its category
    # word in brackets (instantiate.distinct_names: "{Сант-Жулия-де-Лория (небольшой город)}")
    def named(lang: str, text: str, label: str) -> bool:
        label = simplified(label) if lang == "zho" else label
        return "{" + label + "}" in text or "{" + label + " (" in text

    unnamed = [r for r in rows if not named(r[0], r[1], r[2])]
    assert rows and not unnamed, unnamed[:5]
    # the templates themselves are written in each language's script
    template = """
        SELECT text
        FROM template_translations_resolved
        WHERE lang = ? AND sub_template_id = 'A01.1'
    """
    for lang in ("bul", "rus", "ell", "jpn", "zho", "kat", "urd"):
        for (text,) in query(template, lang):
            bare = PLACEHOLDER.sub("", text)
            letters = scripts_of(bare) - {"LATIN"}  # km, H3, S2 may stay Latin
            non_ascii = "".join(c for c in bare if c.isalpha() and not c.isascii())
            assert letters and in_script(non_ascii, lang), (lang, text)


def _release_files(release: Path, lang: str) -> dict[str, str]:
    """SHA-256 of the language's release Parquet files, keyed by their path in SHA256SUMS."""
    return {
        f"data/{lang}/{split}.parquet": hashlib.sha256(
            (release / "data" / lang / f"{split}.parquet").read_bytes()
        ).hexdigest()
        for split in ("large", "small")
    }


def test_one_language_from_the_dagster_cli_is_byte_identical(built, query, on_home, golden_sums):
    """The UI's launch path, `dagster asset materialize --partition ita`, re-materializes the
    Italian partition (templates, post-edits, questions, ensemble, release files) to the very bytes
    the build wrote."""
    localized, postedited = query(LOCALIZED_DUMP, "ita"), query(POSTEDITED_DUMP, "ita")
    dagster = Path(sys.executable).parent / "dagster"
    args = [str(dagster), "asset", "materialize", "-m", "mgqa_dagster.definitions"]
    args += ["--select", ",".join(ONE_LANGUAGE), "--partition", "ita"]
    proc = on_home(args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "RUN_SUCCESS" in proc.stdout + proc.stderr
    assert query(LOCALIZED_DUMP, "ita") == localized
    assert query(POSTEDITED_DUMP, "ita") == postedited
    lines = golden_sums.read_text(encoding="utf-8").splitlines()
    golden_ita = {
        path: digest for digest, path in (line.split("  ", 1) for line in lines) if "/ita/" in path
    }
    assert _release_files(built / "release", "ita") == golden_ita


def test_a_broken_translation_is_caught(query, materialize, tmp_path):
    """A translation memory whose Italian A01.1.v1 lost {entity_B}: flagged at translation, blocked
    at resolution, so the questions are never re-instantiated; the bundled memory then restores the
    partition."""
    from mgqa_platform.multilingual import memory

    localized, postedited = query(LOCALIZED_DUMP, "ita"), query(POSTEDITED_DUMP, "ita")
    broken = tmp_path / "tm"
    shutil.copytree(memory.TM_DIR, broken)
    doc = json.loads((broken / "ita.json").read_text(encoding="utf-8"))
    doc["variants"]["A01.1.v1"]["text"] = doc["variants"]["A01.1.v1"]["text"].replace(
        "{entity_B}", ""
    )
    (broken / "ita.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    result = materialize("MULTILINGUAL", "ita", MGQA_TRANSLATION_MEMORY=str(broken))
    checks = result["checks"]
    assert not result["success"]
    assert checks["placeholders_survive_translation"] is False
    assert checks["resolved_placeholders_intact"] is False
    assert (
        "every_english_question_localized" not in checks
    )  # the blocking check stopped re-instantiation
    # the good memory restores the partition
    assert materialize("MULTILINGUAL", "ita")["success"]
    assert query(LOCALIZED_DUMP, "ita") == localized
    assert query(POSTEDITED_DUMP, "ita") == postedited


def test_post_edit_ensemble_on_the_sample(query):
    """Offline, the rule-based member post-edits every language: French elisions and contractions
    applied, entity names intact, languages without rules untouched, each applied edit in the log.
    Most French elisions before a name are made by construction at re-instantiation
    (``grammar.elide_before_names``); the ensemble takes the rest."""
    from mgqa_platform.languages import CODES

    n_en = query("SELECT count(*) FROM questions_en")[0][0]
    per_lang = dict(query("SELECT lang, count(*) FROM questions_postedited GROUP BY 1"))
    assert per_lang == {lang: n_en for lang in CODES}
    decisions = """
        SELECT lang, count(*) FILTER (WHERE postedit_decision <> 'none')
        FROM questions_postedited
        GROUP BY 1
    """
    edited = dict(query(decisions))
    assert edited["fra"] > 0.02 * n_en and edited["eng"] == 0 and edited["jpn"] == 0
    by_construction = """
        SELECT count(*) FROM questions_localized
        WHERE lang = 'fra' AND regexp_matches(text_marked, '[Dd]''\\{')
    """
    assert query(by_construction)[0][0] > 0.05 * n_en
    first_elision = """
        SELECT text_marked_localized, text_marked
        FROM questions_postedited
        WHERE lang = 'fra' AND postedit_edits::VARCHAR LIKE '%ELIS%' AND text_marked LIKE '%''{%'
        ORDER BY question_id
        LIMIT 1
    """
    ((before, after),) = query(first_elision)
    assert before != after and "'{" in after
    logged = """
        SELECT count(*)
        FROM questions_postedited p
        JOIN ensemble_edit_log l USING (lang, question_id)
        WHERE p.lang = 'fra' AND l.applied AND l.member = 'rules'
    """
    assert query(logged)[0][0] >= edited["fra"]
    stats = dict(query("SELECT lang, stats FROM ensemble_stats"))
    assert json.loads(stats["fra"])["operations"].get("ELIS", 0) > 0
