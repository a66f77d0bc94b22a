"""Role types and role rules on a tiny world: containers, admin regions, names that identify the
entity, comparable shapes, no containment in the whole KG's country; the re-verification by
``questions_valid``; and the false-premise gates and per-template cap."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from mgqa_dagster.data_quality.questions import role_problems
from mgqa_platform.questions import false_premise, role_rules, roles
from mgqa_platform.questions.catalog import load_catalog
from tests import question_world as world

CATALOG = load_catalog()
BOX = "POLYGON(({x0} {y0}, {x1} {y0}, {x1} {y1}, {x0} {y1}, {x0} {y0}))"


def box(x0: float, y0: float, x1: float, y1: float) -> str:
    return BOX.format(x0=x0, y0=y0, x1=x1, y1=y1)


@pytest.fixture
def regions(con):
    """A country, a parish in it, a city block and a park in the parish; a foreign commune of
    another admin level beside the country."""

    def region(eid, name, category, geom, level):
        world.add(con, eid, name, category, geom, attributes={"admin_level": level})

    region("worldkg:c", "Andorra", "country", box(0, 0, 1, 1), 2)
    region("worldkg:p", "La Massana", "administrative_region", box(0.1, 0.1, 0.5, 0.5), 7)
    world.add(con, "worldkg:b", "Riikinkukko", "city_block", box(0.2, 0.2, 0.25, 0.25))
    world.add(con, "worldkg:k", "Parc Central", "park", box(0.3, 0.3, 0.35, 0.35))
    region("worldkg:f", "Porta", "administrative_region", box(1.1, 0.1, 1.3, 0.3), 8)
    return con


def selected(con, rtype: str) -> set[str]:
    sql = f"SELECT e.entity_id FROM entities e WHERE {roles.predicate(rtype, 'e')}"
    return {r[0] for r in con.execute(sql).fetchall()}


def test_a_plausibly_within_target_is_a_container_never_a_city_block(regions):
    assert CATALOG.sub_template("L05.1").roles["entity_B"] == "container"
    assert selected(regions, "container") == {"worldkg:c", "worldkg:p", "worldkg:k", "worldkg:f"}
    assert "worldkg:b" in selected(regions, "region")  # the old binding let the block in


def test_admin_and_subnational_regions(regions):
    assert selected(regions, "admin_region") == {"worldkg:c", "worldkg:p", "worldkg:f"}
    assert selected(regions, "subnational_region") == {"worldkg:p", "worldkg:f"}
    assert CATALOG.sub_template("E01.1").roles == {
        "entity_A": "subnational_region",
        "entity_B": "admin_region",
    }


@pytest.mark.parametrize(
    ("name", "category", "wkt", "bound"),
    [
        ("Hospital Moinhos de Vento", "helipad", "POINT(0.2 0.2)", False),
        ("Hospital Moinhos de Vento", "hospital", "POINT(0.2 0.2)", True),
        ("Escola Estadual X", "bus_stop", "POINT(0.2 0.2)", False),
        ("Mapa da cidade", "information", "POINT(0.2 0.2)", False),
        ("Deque", "attraction", box(0.2, 0.2, 0.21, 0.21), False),
        ("Rua Augusta", "road", box(0.2, 0.2, 0.21, 0.21), False),
        ("Rua Augusta", "road", "LINESTRING(0.2 0.2, 0.3 0.3)", True),
        ("Padaria Central", "bakery", "POINT(0.2 0.2)", True),
    ],
)
def test_a_name_that_denotes_another_thing_is_never_bound(con, name, category, wkt, bound):
    world.add(con, "worldkg:x", name, category, wkt)
    assert (selected(con, "feature") == {"worldkg:x"}) == bound


def test_shapes_compare_only_comparable_features(regions):
    kinds = role_rules.entity_kinds(regions, ["worldkg:p", "worldkg:f", "worldkg:k", "worldkg:b"])
    assert kinds["worldkg:p"]["country"] == "worldkg:c" and kinds["worldkg:f"]["country"] is None
    k01 = CATALOG.sub_template("K01.1")
    pair = {"entity_A": "worldkg:p", "entity_B": "worldkg:f"}  # parish vs foreign commune
    assert role_rules.violation(k01, pair, kinds) == role_rules.INCOMPARABLE
    same_country = {"entity_A": "worldkg:k", "entity_B": "worldkg:b"}  # park vs block, in Andorra
    assert role_rules.violation(k01, same_country, kinds) is None


def test_no_containment_in_the_whole_kgs_country(regions):
    """A "yes" with the country as container is discarded; a "no" (across the border) stays."""
    kinds = role_rules.entity_kinds(regions, ["worldkg:p", "worldkg:c"])
    e01 = CATALOG.sub_template("E01.1")
    in_country = {"entity_A": "worldkg:p", "entity_B": "worldkg:c"}
    yes, no = {"value": True}, {"value": False}
    assert role_rules.violation(e01, in_country, kinds, yes) == role_rules.WHOLE_KG_COUNTRY
    assert role_rules.violation(e01, in_country, kinds, no) is None
    in_parish = {"entity_A": "worldkg:p", "entity_B": "worldkg:p"}
    assert role_rules.violation(e01, in_parish, kinds, yes) is None


def test_no_count_of_the_containers_own_category(regions):
    """E03 asks how many parks and cafes lie in a park: whether it counts itself is a reading."""
    kinds = role_rules.entity_kinds(regions, ["worldkg:k", "worldkg:p"])
    e03 = CATALOG.sub_template("E03.1")
    asked = {"category_A": "park", "category_B": "cafe"}
    in_park = {"entity_A": "worldkg:k", **asked}
    assert role_rules.violation(e03, in_park, kinds) == role_rules.CONTAINER_CATEGORY
    assert role_rules.violation(e03, {"entity_A": "worldkg:p", **asked}, kinds) is None


def _stored(sub_id: str, bindings: dict, false_premise: bool = False) -> dict:
    return {
        "gold": json.dumps({"value": True}),
        "question_id": f"q-{sub_id}-{len(json.dumps(bindings))}",
        "sub_template_id": sub_id,
        "bindings": json.dumps(bindings),
        "false_premise": false_premise,
    }


def test_questions_valid_reverifies_role_types_and_rules(regions):
    rows = [
        _stored("L05.3", {"entity_A": "worldkg:k", "entity_B": "worldkg:b"}),  # block container
        _stored("L05.3", {"entity_A": "worldkg:b", "entity_B": "worldkg:p"}),  # fine
        _stored("E01.1", {"entity_A": "worldkg:p", "entity_B": "worldkg:c"}),  # in the country
        _stored("K01.1", {"entity_A": "worldkg:p", "entity_B": "worldkg:f"}),  # incomparable
    ]
    rules = [p["rule"] for p in role_problems(regions, CATALOG, rows)]
    assert rules == ["role_type", role_rules.WHOLE_KG_COUNTRY, role_rules.INCOMPARABLE]


def _cand(value: str, near: int, named: float) -> dict:
    return {"value": value, "near_members": near, "named_share": named}


def test_false_premise_gates():
    gate = false_premise.category_gate
    ok = false_premise.MIN_NEAR_MEMBERS
    assert gate(_cand("museum", ok, 1.0), {"cafe"}) is None
    assert gate(_cand("museum", ok, 1.0), {"museum"}) == "own_category"
    assert gate(_cand("parking", ok, 1.0), set()) == "mostly_unnamed_category"
    assert gate(_cand("museum", ok, 0.2), set()) == "mostly_unnamed_category"
    assert gate(_cand("museum", ok - 1, 1.0), set()) == "sparse_category"
    assert gate({"value": "worldkg:1", "near_members": None, "named_share": None}, set()) is None


def test_false_premise_cap_per_template():
    subs = {s.id: s for s in false_premise.eligible(CATALOG)}
    h02 = next(s for s in subs if s.startswith("H02"))
    f04 = next(s for s in subs if s.startswith("F04"))
    qs = [
        {
            "question_id": f"q{i:02d}",
            "sub_template_id": h02 if i < 10 else f04,
            "kg": "k",
            "stratum": "s",
        }
        for i in range(12)
    ]
    kept, dropped = false_premise.cap_per_template(qs, subs, 4)
    assert Counter(q["sub_template_id"] for q in kept) == {h02: 4, f04: 2}
    assert dropped == Counter({("k", h02, "s", "template_cap"): 6})
