"""The generator framework: catalog validation, seeded sampling, caps, de-duplication, replay and
lineage.

Uses the A01 executor (geodesic distance between two points) on a tiny hand-made world; the
distances are recomputed independently with pyproj's Geod.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pyproj import Geod

from mgqa_platform import lexicon, lineage
from mgqa_platform.questions import false_premise
from mgqa_platform.questions.catalog import CATALOG_DIR, CatalogError, load_catalog, placeholders
from mgqa_platform.questions.generate import generate, replay, write_questions, write_templates
from tests import question_world as world

GEOD = Geod(ellps="WGS84")
# (entity id, name, lon, lat, stratum) — POIs in two strata; the Helsinki distances (6-17 km) are
# far from the Porto Alegre ones, so no single distance value dominates the sample
# (questions/triviality.py)
POIS = [
    ("worldkg:1", "Cafe Azul", -51.2200, -30.0300, "UMC/high"),
    ("worldkg:2", "Padaria Sol", -51.2100, -30.0350, "UMC/high"),
    ("worldkg:3", "Farmacia Lua", -51.2050, -30.0250, "UMC/high"),
    ("worldkg:4", "Mercado Mar", -51.1000, -30.1000, "UMC/high"),
    ("worldkg:5", "Kahvila", 24.9400, 60.1700, "HIC/high"),
    ("worldkg:6", "Apteekki", 25.0500, 60.2000, "HIC/high"),
    ("worldkg:7", "Kirjasto", 24.8000, 60.2500, "HIC/high"),
]


@pytest.fixture
def small_world(con):
    for eid, name, lon, lat, stratum in POIS:
        world.add(
            con,
            eid,
            name,
            "shop",
            f"POINT({lon} {lat})",
            stratum=stratum,
            iso3="BRA" if stratum.startswith("UMC") else "FIN",
        )
    return con


def _one_template_catalog(tmp_path: Path) -> Path:
    d = tmp_path / "templates"
    shutil.copytree(CATALOG_DIR, d)
    return d


def test_catalog_rejects_inconsistent_files_listing_every_problem(tmp_path):
    d = _one_template_catalog(tmp_path)
    (d / "B.yaml").write_text(
        "sfid: B\ntemplates:\n  - tid: B01\n    answer_format: kilometres\n    sub_templates:\n"
        "      - id: B01.1\n        executor: x\n        roles: {entity_A: spaceship}\n"
        "        variants: ['How far is {entity_A} from {entity_Z}?', 'a {entity_A}', "
        "'b {entity_A}', 'c {entity_A}', 'd {entity_A}', 'e {entity_A}']\n"
    )
    (d / "N.yaml").unlink()
    with pytest.raises(CatalogError) as exc:
        load_catalog(d)
    msg = str(exc.value)
    for expected in (
        "unknown answer format 'kilometres'",
        "unknown type 'spaceship'",
        "undeclared placeholders ['entity_Z']",
        "6 variants",
        "missing catalog file N.yaml",
    ):
        assert expected in msg


def test_catalog_requires_a_known_premise_kind_with_every_premise(tmp_path):
    d = _one_template_catalog(tmp_path)
    c = d / "C.yaml"
    c.write_text(c.read_text().replace("premise_kind: answerable", "premise_kind: zero_count"))
    g = d / "G.yaml"
    g.write_text(g.read_text().replace("        premise_kind: answerable\n", "", 1))
    with pytest.raises(CatalogError) as exc:
        load_catalog(d)
    msg = str(exc.value)
    assert "C.yaml C03.1: a premise needs a premise_kind" in msg and "'zero_count'" in msg
    assert "G.yaml G02.1: a premise needs a premise_kind and the reverse; premise_kind None" in msg


def test_every_perturbed_premise_is_refusable():
    """Only refusable kinds make false premises; zero counts, defined distances and hidden caps do
    not."""
    catalog = load_catalog()
    made = {s.id for s in false_premise.eligible(catalog)}
    assert made and all(catalog.sub_template(i).refusable for i in made)
    assert {"D01.1", "F01.1", "F03.1", "H02.1", "I02.1", "I03.1"} <= made
    assert not made & {"A09.1", "C03.1", "E02.2", "G02.1", "I05.1", "J03.1", "L04.1"}


def test_catalog_placeholders_and_category_labels():
    assert placeholders("Which {category_A} are within {value} km of {entity_B}?") == [
        "category_A",
        "value",
        "entity_B",
    ]
    assert lexicon.label("pharmacy") == "pharmacies"
    assert lexicon.label("place_of_worship") == "places of worship"
    assert lexicon.label("bus_stop") == "bus stops"
    assert lexicon.noun("church") == "church"
    # OSM values that are not countable nouns read as a person names the place
    assert lexicon.label("convenience") == "convenience stores"
    assert lexicon.label("jewelry") == "jewelry shops"
    assert lexicon.label("supermarket") == "supermarkets"
    assert lexicon.label("fuel") == "fuel stations"
    assert lexicon.label("atm") == "ATMs"


def test_generation_is_seeded_capped_and_verified(small_world):
    con = small_world
    catalog = load_catalog()
    a = generate(con, catalog, ["worldkg"], only={"A01"}, seed=1, cap=2)
    b = generate(con, catalog, ["worldkg"], only={"A01"}, seed=1, cap=2)
    assert a.questions == b.questions  # same seed, same rows
    assert a.questions, "expected questions from two strata"
    per_cell: dict = {}
    for q in a.questions:
        per_cell[(q["tid"], q["kg"], q["stratum"])] = (
            per_cell.get((q["tid"], q["kg"], q["stratum"]), 0) + 1
        )
    assert set(per_cell) == {("A01", "worldkg", "UMC/high"), ("A01", "worldkg", "HIC/high")}
    assert max(per_cell.values()) <= 2
    coords = {eid: (lon, lat) for eid, _, lon, lat, _ in POIS}
    variants = {v.text for v in catalog.sub_template("A01.1").variants}
    for q in a.questions:
        bind = json.loads(q["bindings"])
        (lon1, lat1), (lon2, lat2) = coords[bind["entity_A"]], coords[bind["entity_B"]]
        _, _, metres = GEOD.inv(lon1, lat1, lon2, lat2)
        assert json.loads(q["gold"])["value"] == pytest.approx(
            metres / 1000, abs=1e-3
        )  # independent: pyproj Geod
        assert replay(con, catalog, q) == json.loads(q["gold"])
        assert q["country_iso3"] == ("BRA" if q["stratum"] == "UMC/high" else "FIN")
        assert any(t[1].endswith("asWKT") for t in json.loads(q["gold_triples"]))
        assert "{" + q["text_marked"].split("{")[1].split("}")[0] + "}" in q["text_marked"]
        assert any(q["variant_id"].startswith("A01.1.v") and q["text"] for _ in variants)
    other_seed = generate(con, catalog, ["worldkg"], only={"A01"}, seed=2, cap=2)
    assert {q["question_id"] for q in other_seed.questions} != {
        q["question_id"] for q in a.questions
    }


def test_degenerate_executions_are_counted_not_dropped_silently(con):
    world.add(con, "worldkg:1", "Twin A", "shop", "POINT(10 10)")
    world.add(con, "worldkg:2", "Twin B", "shop", "POINT(10 10)")
    gen = generate(con, load_catalog(), ["worldkg"], only={"A01"})
    assert gen.questions == []
    assert (
        sum(
            n
            for (kg, sub, stratum, reason), n in gen.discards.items()
            if reason == "coincident_points"
        )
        >= 1
    )


def test_write_is_idempotent_and_lineage_reruns_the_query(small_world, tmp_path):
    con = small_world
    catalog = load_catalog()
    write_templates(con, catalog)
    gen = generate(con, catalog, ["worldkg"], only={"A01"}, run_id="run-1")
    write_questions(con, gen)
    first = con.execute("SELECT * FROM questions_en ORDER BY question_id").fetchall()
    write_questions(con, generate(con, catalog, ["worldkg"], only={"A01"}, run_id="run-1"))
    assert con.execute("SELECT * FROM questions_en ORDER BY question_id").fetchall() == first
    qid = first[0][0]
    text = lineage.describe(con, qid)
    assert "re-run    reproduces the stored gold" in text
    assert "A01.1.v" in text and "distance.pair@" in text and "asWKT" in text and "run-1" in text
    # a tampered gold is reported, not hidden
    con.execute(
        'UPDATE questions_en SET gold = \'{"unit": "km", "value": 1.0}\' WHERE question_id = ?',
        [qid],
    )
    assert "DIFFERS from the stored gold" in lineage.describe(con, qid)
    with pytest.raises(KeyError, match="unknown id"):
        lineage.describe(con, "qnot-a-question")


def test_generation_raises_the_memory_budget_only_while_it_runs(small_world):
    con = small_world
    before = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    generate(con, load_catalog(), ["worldkg"], only={"A01"}, memory_limit="2GB")
    assert con.execute("SELECT current_setting('memory_limit')").fetchone()[0] == before
