"""End to end, the English questions: every template populated, caps and uniqueness, golds
reproduced by their printed queries, false premises, the multimodal slice and the small split."""

from __future__ import annotations

import json

import pytest

from mgqa_platform import warehouse

pytestmark = pytest.mark.e2e

#: Templates the sample cannot populate (docs/questions.md says which data is missing). None since
#: Andorra's nested country and parish polygons give E05 its two intersecting regions.
#: Templates the sample cannot populate, with why (docs/questions.md, "What the sample cannot
#: populate"): B03 needs a real population raster (the sample has the proxy surface only); G03's
#: golds all move with the grid origin or are trivial on the sample's small polygons.
NOT_ON_SAMPLE: set[str] = {"B03", "G03"}


def test_questions_on_the_sample(built, query):
    from mgqa_platform.questions import executors  # noqa: F401
    from mgqa_platform.questions.catalog import default_catalog
    from mgqa_platform.questions.generate import replay

    catalog = default_catalog()
    assert len(catalog.templates) == 65 and {t.sfid for t in catalog.templates} == set(
        "ABCDEFGHIJKLMN"
    )
    built_tids = {s.tid for s in catalog.sub_templates if s.executor}
    assert {t[0] for t in built_tids} == set("ABCDEFGHIJKLMN") and len(built_tids) == 65
    per_template = """
        SELECT tid, count(*)
        FROM questions_en
        WHERE NOT false_premise
        GROUP BY 1
    """
    have = dict(query(per_template))
    # every template yields verified questions, except those docs/questions.md lists with the data
    # they lack
    missing = sorted(built_tids - NOT_ON_SAMPLE - set(have))
    assert not missing, f"templates without questions: {missing}"
    assert not NOT_ON_SAMPLE & set(have), (
        "a template listed as impossible on the sample now has questions: update the list"
    )
    # more than one stratum per KG where the data has several, and the three KGs all contribute
    assert {kg for (kg,) in query("SELECT DISTINCT kg FROM questions_en")} == {
        "worldkg",
        "kwg",
        "osmh3kg",
    }
    assert query("SELECT count(DISTINCT stratum) FROM questions_en WHERE kg = 'worldkg'")[0][0] >= 4
    # at most 30 tuples per (template, KG, stratum) cell; false premises and multimodal twins come
    # on top of it
    cell_max = """
        SELECT max(n)
        FROM (
            SELECT count(*) AS n
            FROM questions_en
            WHERE NOT false_premise AND NOT multimodal
            GROUP BY tid, kg, stratum
        )
    """
    assert query(cell_max)[0][0] <= 30
    # no duplicate (question, gold)
    assert query("SELECT count(*) - count(DISTINCT (text, gold::VARCHAR)) FROM questions_en") == [
        (0,)
    ]
    # one question per sub-template: its printed query, re-run, reproduces the gold
    first_per_sub_template = """
        SELECT *
        FROM questions_en
        QUALIFY row_number() OVER (PARTITION BY sub_template_id ORDER BY question_id) = 1
    """
    with warehouse.session(built / "warehouse.duckdb", read_only=True) as con:
        for q in warehouse.fetch_dicts(con, first_per_sub_template):
            assert replay(con, catalog, q) == json.loads(q["gold"]), q["question_id"]


def test_false_premises_multimodal_and_small_split(built, query):
    from mgqa_platform.questions import formats

    shares = """
        SELECT
            count(*) FILTER (WHERE NOT multimodal),
            count(*) FILTER (WHERE false_premise),
            count(*) FILTER (WHERE multimodal)
        FROM questions_en
    """
    n, fp, mm = query(shares)[0]
    assert 0.05 <= fp / n <= 0.10  # the paper: 7.8 %
    rejected = query("SELECT DISTINCT CAST(gold AS VARCHAR) FROM questions_en WHERE false_premise")
    assert rejected == [('{"rejected": true}',)]
    assert formats.REJECTION == {"rejected": True}
    no_image = """
        SELECT count(*)
        FROM questions_en
        WHERE multimodal AND (image_url IS NULL OR kg = 'kwg')
    """
    # the sample links no image file of a salient entity (only Wikidata items, whose image needs a
    # network): the slice may be empty, but then every lost twin is counted with its reason
    lost = """
        SELECT coalesce(sum(n), 0)
        FROM question_discards
        WHERE reason LIKE 'multimodal:%'
    """
    assert (mm > 0 or query(lost)[0][0] > 0) and query(no_image) == [(0,)]
    cells = query("SELECT kg, sfid, count(*) FROM split_small GROUP BY 1, 2")
    assert cells and max(c[2] for c in cells) <= 200
    big = {
        (k, s): c for k, s, c in query("SELECT kg, sfid, count(*) FROM questions_en GROUP BY 1, 2")
    }
    assert all(c == min(200, big[(k, s)]) for k, s, c in cells) and len(cells) == len(big)
    report = (built / "reports" / "question_distribution.md").read_text()
    assert "Table 2 layout" in report and "False-premise questions" in report


def test_question_texts_name_entities_without_coordinates_or_ids(query):
    """No text shows a coordinate pair, a KG id, a placeholder or an earthquake's source title,
    every name rule occurs in the sample, and every entity bound by an entity role has a display
    name unique within its KG (docs/questions.md, "Display names")."""
    from mgqa_dagster.data_quality.questions import LEAKED_LOCATION, PLACEHOLDER_NAME
    from mgqa_platform.kg.names import RULES

    leaked = """
        SELECT count(*)
        FROM questions_en
        WHERE regexp_matches(text, ?)
    """
    assert query(leaked, LEAKED_LOCATION) == [(0,)]
    assert query(leaked, PLACEHOLDER_NAME) == [(0,)]
    assert query(leaked, r"M -?\d+(\.\d+)? - \d+ ?km") == [(0,)]  # "M 4.9 - 26km N of Tarakan"
    rules = """
        SELECT DISTINCT name_rule
        FROM entities
        WHERE name_rule IS NOT NULL
    """
    assert {r[0] for r in query(rules)} == set(RULES)
    bound = """
        SELECT count(*), count(*) FILTER (WHERE NOT e.name_unique)
        FROM (
            SELECT bindings, unnest(json_keys(bindings)) AS role
            FROM questions_en
        ) b
        JOIN entities e ON e.entity_id = json_extract_string(b.bindings, '$.' || b.role)
        WHERE b.role LIKE 'entity%'
    """
    n, ambiguous = query(bound)[0]
    assert n > 10_000 and ambiguous == 0
    # the sample has ambiguous entities, and they are still cited as evidence (category members
    # counted, listed or ranked)
    cited = """
        SELECT count(DISTINCT e.entity_id)
        FROM (
            SELECT unnest(json_keys(entity_subjects)) AS entity_id
            FROM questions_en
        ) c
        JOIN entities e USING (entity_id)
        WHERE NOT e.name_unique
    """
    assert query("SELECT count(*) FROM entities WHERE NOT name_unique")[0][0] > 0
    assert query(cited)[0][0] > 0
