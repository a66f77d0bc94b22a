"""Non-trivial golds (docs/questions.md, "Non-trivial golds"): constant predictors must not
score."""

from __future__ import annotations

import json

import pytest

from mgqa_platform import report
from mgqa_platform.questions import distribution, formats, triviality
from mgqa_platform.questions.catalog import load_catalog
from mgqa_platform.questions.generate import covered_centre, generate, write_questions
from tests import question_world as world


def test_zero_and_centre_hit_within_the_scorers_tolerance():
    zero = triviality.fixed_predictors("distance")
    assert zero == [{"value": 0.0, "unit": "km"}]
    assert triviality.is_trivial("distance", formats.distance_km(0.42), zero)  # tau 0.5 km
    assert not triviality.is_trivial("distance", formats.distance_km(0.51), zero)
    assert triviality.is_trivial("area", formats.area_km2(0.2), triviality.fixed_predictors("area"))
    centre = triviality.fixed_predictors("point", (1.52, 42.55))
    assert triviality.is_trivial("point", formats.point(1.60, 42.56), centre)  # ~6.7 km: tau 10 km
    assert not triviality.is_trivial("point", formats.point(1.75, 42.55), centre)  # ~18.8 km
    # exact formats and entity answers have no fixed constant: the cap governs them
    assert triviality.fixed_predictors("count") == triviality.fixed_predictors("set") == []


def test_cap_keeps_at_most_sixty_percent_of_one_value():
    """Ten counts of 1 and two of 3: three ones stay (3 of 5 = 60%), the first three in seeded
    order."""
    golds = [formats.count(1)] * 10 + [formats.count(3)] * 2
    key = triviality.cap_key("count", golds)
    kept, dropped = triviality.capped(list(range(12)), key, order=lambda i: f"{(7 * i) % 12:02d}")
    assert len(dropped) == 7 and sorted(i for i in kept if i < 10) == [0, 2, 7]
    assert sum(1 for i in kept if golds[i] == formats.count(1)) / len(kept) == 0.6
    # a sub-template whose golds are all one value keeps none of it, even a single question (100%)
    assert triviality.capped(list(range(4)), lambda i: "yes", str) == ([], [0, 1, 2, 3])
    assert triviality.capped([0], lambda i: "yes", str) == ([], [0])
    balanced = [formats.boolean(True)] * 3 + [formats.boolean(False)] * 2
    kept, dropped = triviality.capped(list(range(5)), triviality.cap_key("boolean", balanced), str)
    assert kept == [0, 1, 2, 3, 4] and dropped == []


def test_most_common_value_of_a_tolerance_format_is_capped():
    """Perimeter ratios within 5% of 1.0 in nine questions of ten, all distinct (K05.2 on the
    sample): the constant 1.0 is right for all nine, and its hits are cut to 60%; distances far
    apart have no such constant."""
    golds = [
        formats.ratio(v) for v in (1.0, 1.003716, 1.000002, 1.016523, 1.04, 1.0, 1.001, 1.002, 1.0)
    ]
    golds.append(formats.ratio(3.5))
    assert triviality.best_constant("ratio", golds) == {"value": 1.0}
    key = triviality.cap_key("ratio", golds)
    assert [key(i) for i in range(10)].count("most_common") == 9
    kept, _ = triviality.capped(list(range(10)), key, str)
    assert len(kept) == 2  # one near 1.0 and the 3.5: 1 <= 1.5 * 1
    distinct = [formats.distance_km(v) for v in (1.0, 7.0, 30.0)]
    assert (
        triviality.most_common(distinct) is None
        and triviality.cap_key("distance", distinct) is None
    )
    assert triviality.cap_key("set", golds) is None  # entity answers: nothing to cap


def cafes(con) -> None:
    """Two cafes 0.2 km apart, and others 11 to 60 km away in several directions."""
    world.add(con, "worldkg:1", "Cafe Um", "cafe", "POINT(-51.2200 -30.0300)")
    world.add(con, "worldkg:2", "Cafe Dois", "cafe", "POINT(-51.2180 -30.0300)")
    for i, (lon, lat) in enumerate(
        [(-51.10, -30.03), (-51.22, -30.20), (-51.60, -29.80), (-50.90, -30.45), (-51.45, -30.50)],
        3,
    ):
        world.add(con, f"worldkg:{i}", f"Cafe {i}", "cafe", f"POINT({lon} {lat})")


def test_generation_drops_a_trivially_zero_distance_and_keeps_the_others(con):
    """The 0.2 km distance is answered by 0 and dropped (counted ``trivial``), the others stay."""
    cafes(con)
    gen = generate(
        con,
        load_catalog(),
        ["worldkg"],
        only={"A01.1"},
        false_premises=False,
        multimodal_slice=False,
    )
    golds = [json.loads(q["gold"])["value"] for q in gen.questions]
    assert golds and min(golds) > 1.0
    assert not any(
        {"worldkg:1", "worldkg:2"} == set(json.loads(q["bindings"]).values()) for q in gen.questions
    )
    assert gen.discards[("worldkg", "A01.1", "UMC/high", "trivial")] >= 1
    assert covered_centre(con, "worldkg") == pytest.approx((-51.25, -30.15))


def test_summary_and_distribution_report_show_every_discard_reason(con, tmp_path):
    cafes(con)
    gen = generate(con, load_catalog(), ["worldkg"], only={"A01.1"}, multimodal_slice=False)
    assert gen.questions
    trivial = sum(n for k, n in gen.discards.items() if k[3] == "trivial")
    gen.discards[("worldkg", "B03.1", "UMC/high", "no_population_raster")] += 5
    write_questions(con, gen)
    con.execute(
        "INSERT INTO density_breaks VALUES ('proxy.tif', 'x', TRUE, 'GeoNames proxy', 0, 1, 1)"
    )
    r = distribution.report(con)
    assert r["discards"]["trivial"] == trivial and r["discards"]["no_population_raster"] == 5
    text = distribution.markdown(r)
    assert f"| trivial | {trivial} |" in text and "| no_population_raster | 5 |" in text
    assert "B03 (population within a radius) is not generated" in text
    lines = report.summary(con, tmp_path)
    assert f"trivial {trivial}" in lines and "no_population_raster 5" in lines


def test_the_cap_over_all_kgs_leaves_no_value_above_sixty_percent(con):
    """C01.1-like booleans across two KGs: whatever each pool holds, no gold value of a sub-template
    keeps more than 60% of its generated questions, and every surplus question is counted
    ``trivial``."""
    for kg in ("worldkg", "osmh3kg"):
        for i in range(6):
            world.add(
                con,
                f"{kg}:{i}",
                f"Loja {kg} {i}",
                "shop",
                # a column: every pair nearly north-south
                f"POINT({-51.2 - i / 2000} {-30.0 - i / 70})",
            )
    gen = generate(
        con,
        load_catalog(),
        ["worldkg", "osmh3kg"],
        only={"J01"},
        false_premises=False,
        multimodal_slice=False,
    )
    by_sub: dict[str, list[str]] = {}
    for q in gen.questions:
        by_sub.setdefault(q["sub_template_id"], []).append(q["gold"])
    assert by_sub and sum(n for k, n in gen.discards.items() if k[3] == "trivial") > 0
    for golds in by_sub.values():
        assert max(golds.count(g) for g in golds) <= 0.6 * len(golds)
