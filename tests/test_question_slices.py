"""False premises, the multimodal slice, the small split and the distribution report, on tiny
worlds."""

from __future__ import annotations

import json
from collections import Counter

import h3
import pytest
from pyproj import Geod
from shapely import wkt as shapely_wkt

from mgqa_platform.questions import distribution, false_premise, formats, multimodal, splits
from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.executor import replay_sql
from mgqa_platform.questions.executors import EXECUTORS
from mgqa_platform.questions.generate import generate, replay, write_questions
from tests import question_world as world

SQUARE = "POLYGON((-51.30 -30.10, -51.20 -30.10, -51.20 -30.00, -51.30 -30.00, -51.30 -30.10))"
FAR_SQUARE = "POLYGON((-51.00 -30.10, -50.90 -30.10, -50.90 -30.00, -51.00 -30.00, -51.00 -30.10))"
#: lon, lat: just east of SQUARE; five, so that the category is well mapped around the park
PHARMACIES = [
    (-51.18, -30.05),
    (-51.17, -30.06),
    (-51.16, -30.04),
    (-51.15, -30.05),
    (-51.14, -30.03),
]


@pytest.fixture
def parks(con):
    """Kiosks inside one park polygon, a second park far away, five pharmacies just east of the
    first park and three cafes by the second (osmh3kg, one stratum)."""
    world.add(con, "osmh3kg:way/1", "Parque Um", "park", SQUARE)
    world.add(con, "osmh3kg:way/2", "Parque Dois", "park", FAR_SQUARE)
    for i, (lon, lat) in enumerate(
        [(-51.25, -30.05), (-51.22, -30.02), (-51.28, -30.08), (-51.24, -30.03)], 1
    ):
        world.add(con, f"osmh3kg:node/{i}", f"Banca {i}", "kiosk", f"POINT({lon} {lat})")
    for i, (lon, lat) in enumerate(PHARMACIES, 11):
        world.add(con, f"osmh3kg:node/{i}", f"Farmacia {i}", "pharmacy", f"POINT({lon} {lat})")
    for i, (lon, lat) in enumerate([(-50.95, -30.05), (-50.94, -30.06), (-50.93, -30.04)], 21):
        world.add(con, f"osmh3kg:node/{i}", f"Cafe {i}", "cafe", f"POINT({lon} {lat})")
    return con


def true_questions(con, catalog, sub_id: str) -> list[dict]:
    return generate(
        con, catalog, ["osmh3kg"], only={sub_id}, false_premises=False, multimodal_slice=False
    ).questions


def test_false_premise_takes_the_nearest_category_whose_premise_is_false(parks):
    """A06.1 "pairs of kiosks in Parque Um": the pharmacies just outside the park replace the kiosks
    (the cafes lie 20 km away); the recorded distance is the WGS84 geodesic from the park's point to
    the nearest pharmacy."""
    con, catalog = parks, load_catalog()
    true = [
        q
        for q in true_questions(con, catalog, "A06.1")
        if json.loads(q["bindings"])["entity_B"] == "osmh3kg:way/1"
    ]
    assert true
    fp, failed = false_premise.perturb(
        con, catalog, true, ["osmh3kg"], seed=1, seen=set(), share=0.5
    )
    assert fp, failed
    park = con.execute("SELECT lon, lat FROM entities WHERE entity_id = 'osmh3kg:way/1'").fetchone()
    nearest_km = min(Geod(ellps="WGS84").inv(*park, lon, lat)[2] for lon, lat in PHARMACIES) / 1000
    for q in fp:
        pert = json.loads(q["perturbation"])
        assert q["false_premise"] and json.loads(q["gold"]) == formats.REJECTION
        assert (pert["role"], pert["original"], pert["replacement"]) == (
            "category_A",
            "kiosk",
            "pharmacy",
        )
        assert pert["premise_kind"] == "presupposed_rank" and pert["anchor_role"] == "entity_B"
        assert pert["why"] == "it is false that at least two pharmacies lie within Parque Um"
        assert pert["replacement_km"] == pytest.approx(nearest_km, abs=0.001) and nearest_km < 8
        assert "pharmacies" in q["text"] and q["question_id"] not in {
            t["question_id"] for t in true
        }
        assert (
            replay(con, catalog, q) == formats.REJECTION
        )  # the stored premise query shows the premise failing
        assert "holds" in q["query"] and "'pharmacy'" in q["query"]
    # if pharmacies came to lie in the park, replay says so instead of returning a stale rejection
    con.execute(
        """
        UPDATE entities
        SET geometry = ST_Point(-51.26, -30.06), lon = -51.26, lat = -30.06
        WHERE category = 'pharmacy'
        """
    )
    with pytest.raises(RuntimeError, match="holds now"):
        replay(con, catalog, fp[0])


def test_answerable_premises_are_never_perturbed(parks):
    """A09.1 "how far is the kiosk from the edge of Parque Dois" stays answerable with the kiosk
    outside (the distance is defined); like zero counts (C03.1, E02.2) and hidden caps (L04) it is
    counted, not made."""
    con, catalog = parks, load_catalog()
    kinds = {s.id: s.premise_kind for s in catalog.sub_templates}
    assert {kinds[i] for i in ("A09.1", "C03.1", "E02.1", "E02.2", "L04.1", "L04.2")} == {
        "answerable"
    }
    assert not {"A09.1", "C03.1", "E02.2", "L04.1"} & {
        s.id for s in false_premise.eligible(catalog)
    }
    true = true_questions(con, catalog, "A09.1")
    assert true
    fp, failed = false_premise.perturb(
        con, catalog, true, ["osmh3kg"], seed=1, seen=set(), share=0.5
    )
    assert fp == [] and failed and {k[3] for k in failed} == {"answerable"}


def test_no_replacement_is_counted(con):
    world.add(con, "osmh3kg:way/1", "Parque Um", "park", SQUARE)
    for i, (lon, lat) in enumerate([(-51.25, -30.05), (-51.22, -30.02), (-51.28, -30.08)], 1):
        world.add(con, f"osmh3kg:node/{i}", f"Banca {i}", "kiosk", f"POINT({lon} {lat})")
    catalog = load_catalog()
    true = true_questions(con, catalog, "A06.1")
    fp, failed = false_premise.perturb(
        con, catalog, true, ["osmh3kg"], seed=1, seen=set(), share=0.5
    )
    assert true and fp == []
    assert sum(n for k, n in failed.items() if k[3] == "no_replacement") == sum(failed.values())


def test_multimodal_twin_names_the_image_and_keeps_the_gold(con):
    """A museum whose Commons tag names a file: its twins link the file (Special:FilePath), never
    the name; the image phrase starting a sentence is capitalised."""
    world.add(
        con,
        "worldkg:1",
        "Museu Azul",
        "museum",
        "POINT(-51.22 -30.03)",
        image_url="https://commons.wikimedia.org/wiki/File%3AMuseu%20Azul%20(fachada).jpg",
    )
    con.execute("UPDATE entities SET wikidata = 'Q42' WHERE entity_id = 'worldkg:1'")
    world.add(con, "worldkg:2", "Padaria", "bakery", "POINT(-51.21 -30.04)")
    world.add(con, "worldkg:3", "Mercado", "marketplace", "POINT(-51.10 -30.02)")
    world.add(con, "worldkg:5", "Escola", "school", "POINT(-51.22 -30.20)")
    catalog = load_catalog()
    gen = generate(con, catalog, ["worldkg"], only={"A01.1"}, false_premises=False)
    twins = [q for q in gen.questions if q["multimodal"]]
    originals = {q["question_id"]: q for q in gen.questions if not q["multimodal"]}
    assert twins and all(
        "Museu Azul" in q["text"] for q in originals.values() if "worldkg:1" in q["bindings"]
    )
    for q in twins:
        assert multimodal.IMAGE_PHRASE in q["text"].lower() and "Museu Azul" not in q["text"]
        assert q["image_url"] == (
            "https://commons.wikimedia.org/wiki/Special:FilePath/Museu_Azul_%28fachada%29.jpg"
        )
        # the role shown as the image, stored
        assert json.loads(q["bindings"])[q["image_role"]] == "worldkg:1"
        assert replay(con, catalog, q) == json.loads(q["gold"])
        assert not q["text"].startswith(multimodal.IMAGE_PHRASE)
    assert all(q["image_role"] is None for q in originals.values())


def test_image_file_urls():
    url = multimodal.image_file_url
    assert url("File:Torre Nova.JPG") == (
        "https://commons.wikimedia.org/wiki/Special:FilePath/Torre_Nova.JPG"
    )
    assert url("https://commons.wikimedia.org/wiki/File:Torre_Nova.png").endswith("/Torre_Nova.png")
    assert url("https://example.org/photos/torre.jpeg") == "https://example.org/photos/torre.jpeg"
    for page in (
        "https://commons.wikimedia.org/wiki/Category%3ATorre%20Nova",  # a category, not a file
        "https://commons.wikimedia.org/wiki/File:Torre_Nova.pdf",  # a file, not an image
        "https://www.wikidata.org/wiki/Q42#P18",
        "https://www.flickr.com/photos/someone/123",
        None,
    ):
        assert url(page) is None, page


def test_sentence_case_capitalises_only_at_a_sentence_start():
    p = multimodal.IMAGE_PHRASE
    text = f"{{{p}}} is north of {p}. {p} is old? ¿{p}"
    assert multimodal.sentence_case(text, p) == (
        "{The place shown in the image} is north of the place shown in the image. "
        "The place shown in the image is old? ¿The place shown in the image"
    )
    assert multimodal.sentence_case("画像に写っている場所はどこ", "画像に写っている場所") == (
        "画像に写っている場所はどこ"
    )


def test_wikidata_only_and_shared_images_make_no_twin(con):
    """A museum with only a Wikidata id, and a cathedral and its crypt sharing one Commons file: no
    twin, each lost twin counted by reason; a museum with its own file still gets its twins."""
    shared = "https://commons.wikimedia.org/wiki/File%3ASe%20Catedral.jpg"
    world.add(con, "worldkg:1", "Museu Azul", "museum", "POINT(-51.22 -30.03)")
    con.execute("UPDATE entities SET wikidata = 'Q42' WHERE entity_id = 'worldkg:1'")
    world.add(con, "worldkg:2", "Catedral", "church", "POINT(-51.21 -30.04)", image_url=shared)
    world.add(con, "worldkg:3", "Cripta", "crypt", "POINT(-51.2101 -30.0401)", image_url=shared)
    world.add(
        con,
        "worldkg:4",
        "Museu Verde",
        "museum",
        "POINT(-51.20 -30.02)",
        image_url="File:Museu Verde.jpg",
    )
    world.add(con, "worldkg:5", "Escola", "school", "POINT(-51.22 -30.20)")
    world.add(con, "worldkg:6", "Mercado", "marketplace", "POINT(-51.05 -30.02)")
    images, refused = multimodal.salient_images(con)
    assert images == {
        "worldkg:4": "https://commons.wikimedia.org/wiki/Special:FilePath/Museu_Verde.jpg"
    }
    assert refused == {"worldkg:1": "wikidata_only", "worldkg:2": "shared_image"}
    gen = generate(con, load_catalog(), ["worldkg"], only={"A01.1"}, false_premises=False)
    twins = [q for q in gen.questions if q["multimodal"]]
    assert twins and {q["image_url"] for q in twins} == set(images.values())
    lost = Counter()
    for (_, _, _, reason), n in gen.discards.items():
        if reason.startswith("multimodal:"):
            lost[reason] += n
    assert set(lost) == {"multimodal:wikidata_only", "multimodal:shared_image"}
    # the blocking check passes on these twins and fails on a twin that links a Wikidata item page
    check = world.question_check("multimodal_slice_valid")
    write_questions(con, gen)
    assert check.run(con, None).passed is True
    con.execute(
        """
        UPDATE questions_en
        SET image_url = 'https://www.wikidata.org/wiki/Q42#P18'
        WHERE question_id = (SELECT min(question_id) FROM questions_en WHERE multimodal)
        """
    )
    assert check.run(con, None).passed is False


def test_small_split_and_distribution(con):
    for i in range(8):
        world.add(
            con,
            f"worldkg:{i}",
            f"Loja {i}",
            "shop",
            f"POINT({-51.2 - i / 100} {-30.0 - i / 100})",
            name_rule="other_script" if i == 0 else None,
        )
        world.add(
            con,
            f"worldkg:h{i}",
            f"Kauppa {i}",
            "shop",
            f"POINT({24.9 + i / 100} {60.1 + i / 100})",
            stratum="HIC/high",
            iso3="FIN",
        )
    catalog = load_catalog()
    write_questions(con, generate(con, catalog, ["worldkg"], only={"A01", "M02"}))
    assert splits.write_small_split(con, seed=3, per_cell=5) == 10  # two (KG, SFID) cells
    first = con.execute("SELECT * FROM split_small ORDER BY question_id").fetchall()
    assert splits.write_small_split(con, seed=3, per_cell=5) == 10
    assert con.execute("SELECT * FROM split_small ORDER BY question_id").fetchall() == first
    assert con.execute(
        "SELECT count(*) FROM split_small ANTI JOIN questions_en USING (question_id)"
    ).fetchone() == (0,)
    r = distribution.report(con)
    assert r["total"] == sum(r["kg_sfid"].values()) == sum(r["strata"].values())
    assert r["countries_per_income"] == {"UMC": 1, "HIC": 1} and r["small_total"] == 10
    text = distribution.markdown(r)
    assert "| UMC |" in text and "| A | " in text and "(5)" in text and "distance" in text
    naming_loja_0 = con.execute(
        """
        SELECT count(*)
        FROM questions_en
        WHERE bindings LIKE '%"worldkg:0"%'
        """
    ).fetchone()[0]
    assert naming_loja_0 > 0
    assert r["names_by_rule"] == [("worldkg", "other_script", 1, 0, naming_loja_0)]
    assert f"| worldkg | other_script | 1 | 0 | {naming_loja_0} |" in text


def test_false_premises_draw_on_the_reserve_when_the_benchmark_has_too_few(parks):
    """A06.1's true tuple is not a question of the benchmark (the cell cap left it out), yet it is
    a valid tuple: the draw takes it from the reserve from the second round on, and the false
    premise copies its record."""
    con, catalog = parks, load_catalog()
    spare = [
        q
        for q in true_questions(con, catalog, "A06.1")
        if json.loads(q["bindings"])["entity_B"] == "osmh3kg:way/1"
    ]
    other = [{"question_id": "q-other", "sub_template_id": "A01.1"}]  # not perturbable
    none, _ = false_premise.perturb(con, catalog, other, ["osmh3kg"], seed=1, seen=set(), share=0.5)
    assert none == []
    fp, failed = false_premise.perturb(
        con, catalog, other, ["osmh3kg"], seed=1, seen=set(), share=0.5, reserve=spare
    )
    assert len(fp) == 1, failed
    assert json.loads(fp[0]["perturbation"])["replacement"] == "pharmacy"
    assert (
        fp[0]["stratum"] == spare[0]["stratum"] and fp[0]["question_id"] != spare[0]["question_id"]
    )


def test_lineage_of_a_false_premise_question(parks):
    from mgqa_platform import lineage
    from mgqa_platform.questions.generate import write_templates

    con, catalog = parks, load_catalog()
    write_templates(con, catalog)
    gen = generate(
        con, catalog, ["osmh3kg"], only={"A06.1"}, false_premises=False, multimodal_slice=False
    )
    fp, _ = false_premise.perturb(
        con, catalog, gen.questions, ["osmh3kg"], seed=1, seen=set(), share=0.5
    )
    gen.questions += fp
    write_questions(con, gen)
    text = lineage.describe(con, fp[0]["question_id"])
    assert (
        "false premise:" in text
        and "re-run    reproduces the stored gold" in text
        and "presupposed_rank" in text
    )


def test_a_zero_count_is_no_false_premise(con):
    """C03.1 "in how many points do Rua Curva and Rua Reta intersect?" (3; Rua Torta crosses Rua
    Reta twice, so the golds differ and pass the triviality gate): swapping Rua Reta for the
    parallel Rua Longe breaks "they intersect", yet the question then has the answer 0, so C03.1 is
    declared answerable and the draw only counts it."""
    world.add(
        con, "osmh3kg:way/1", "Rua Reta", "residential", "LINESTRING(-51.30 -30.05, -51.20 -30.05)"
    )
    world.add(
        con,
        "osmh3kg:way/2",
        "Rua Curva",
        "residential",
        "LINESTRING(-51.28 -30.06, -51.26 -30.04, -51.24 -30.06, -51.22 -30.04)",
    )
    world.add(
        con,
        "osmh3kg:way/4",
        "Rua Torta",
        "residential",
        "LINESTRING(-51.29 -30.07, -51.285 -30.03, -51.28 -30.07)",
    )
    world.add(
        con, "osmh3kg:way/3", "Rua Longe", "residential", "LINESTRING(-51.28 -30.02, -51.22 -30.02)"
    )
    catalog = load_catalog()
    sub = catalog.sub_template("C03.1")
    executor = EXECUTORS[sub.executor]
    swapped = {
        "row_id": 0,
        "kg": "osmh3kg",
        "entity_A": "osmh3kg:way/2",
        "entity_B": "osmh3kg:way/3",
    }
    assert (
        con.execute(replay_sql(executor, sub, swapped, executor.premise_sql(sub))).fetchone()[1]
        is False
    )
    cur = con.execute(replay_sql(executor, sub, swapped))
    row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    assert shapely_wkt.loads(row["intersection_wkt"]).is_empty  # zero points: "0" answers it
    assert sub.premise_kind == "answerable" and not sub.refusable
    true = true_questions(con, catalog, "C03.1")
    assert true
    fp, failed = false_premise.perturb(
        con, catalog, true, ["osmh3kg"], seed=1, seen=set(), share=0.5
    )
    assert fp == [] and set(failed) == {
        (q["kg"], "C03.1", q["stratum"], "answerable") for q in true
    }


def test_an_entity_is_replaced_by_the_nearest_one_that_breaks_the_premise(con):
    """H02.1 "which H3 cell holds both Loja A and Loja B?": Loja B is replaced by the point nearest
    to it whose cell differs from Loja A's at the question's resolution, not by one far away."""
    points = {
        "osmh3kg:node/1": (-51.2300, -30.0300),
        "osmh3kg:node/2": (-51.2304, -30.0302),
        "osmh3kg:node/3": (-51.2100, -30.0200),
        "osmh3kg:node/4": (-51.6000, -30.2000),
        "osmh3kg:node/5": (-51.6003, -30.2002),
    }
    for i, (eid, (lon, lat)) in enumerate(points.items(), 1):
        world.add(con, eid, f"Loja {i}", "shop", f"POINT({lon} {lat})")
    catalog = load_catalog()
    true = true_questions(con, catalog, "H02.1")
    assert true
    fp, failed = false_premise.perturb(
        con, catalog, true, ["osmh3kg"], seed=1, seen=set(), share=0.9
    )
    assert fp, failed
    geod = Geod(ellps="WGS84")
    for q in fp:
        pert, bindings = json.loads(q["perturbation"]), json.loads(q["bindings"])
        res = json.loads(q["parameters"])["resolution"]
        a, b = points[bindings["entity_A"]], points[pert["original"]]
        cell_a = h3.latlng_to_cell(a[1], a[0], res)
        by_distance = sorted(
            (geod.inv(*b, *p)[2] / 1000, eid)
            for eid, p in points.items()
            if eid not in (bindings["entity_A"], pert["original"])
        )
        km, nearest = next(
            (km, eid)
            for km, eid in by_distance
            if h3.latlng_to_cell(points[eid][1], points[eid][0], res) != cell_a
        )
        assert (pert["replacement"], pert["premise_kind"]) == (nearest, "presupposed_relation")
        assert pert["replacement_km"] == pytest.approx(km, abs=0.001)
