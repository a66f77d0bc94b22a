"""Reference solver, SFID B: hand-made records; radii against equatorial arcs worked out by hand
(one degree of longitude on the WGS84 equator = 111.3195 km)."""

from __future__ import annotations

from mgqa_platform.evaluation.solver import solve
from tests.solver_records import ent, record


def _world():
    anchor = ent(1, "POINT (0 0)", "PostOffice")  # the anchor is of the category too: never counted
    inside = ent(2, "POINT (0.0089 0)", "PostOffice")  # 0.9907 km: inside 1 km
    edge = ent(3, "POINT (0.0091 0)", "PostOffice")  # 1.0130 km: just outside the closed 1 km disc
    wrong_cat = ent(4, "POINT (0.001 0)", "Cafe")  # 0.11 km but another category
    far = ent(5, "POINT (0 0.03)", "PostOffice")  # 3.317 km (meridian)
    return anchor, [anchor, inside, edge, wrong_cat, far]


def count_within(entities: list, km: float) -> int:
    """The reference solver's count of post offices within ``km`` of ``entities[0]`` (B01.1)."""
    bind = {"category_A": "post_office", "entity_B": entities[0][0]}
    return solve(
        record("B01.1", "containment.count_within", "count", bind, entities, {"value": km})
    ).answer["value"]


def test_count_within_closed_disc_excludes_anchor_and_other_categories():
    _, es = _world()
    assert count_within(es, 1) == 1
    assert count_within(es, 5) == 3


def test_count_within_zero():
    _, es = _world()
    only_anchor = [es[0], es[3]]
    assert count_within(only_anchor, 2) == 0


def test_list_within():
    anchor, es = _world()
    bind = {"category_A": "post_office", "entity_B": anchor[0]}
    s = solve(record("B02.1", "containment.list_within", "set", bind, es, {"value": 1}))
    assert s.answer["entity_ids"] == ["worldkg:2"]
    s = solve(record("B02.1", "containment.list_within", "set", bind, es, {"value": 2}))
    assert s.answer["entity_ids"] == ["worldkg:2", "worldkg:3"]


def test_population_within_sums_the_cited_pixels_inside_the_radius():
    """Pixel centres on the equator at 0.1, 0.3 and 0.5 degrees east: 11.13, 33.40 and 55.66 km."""
    a = ent(1, "POINT (0 0)", "Village")
    rec = record(
        "B03.1", "containment.population_within", "count", {"entity_A": a[0]}, [a], {"value": 25}
    )
    assert solve(rec).reason == "not_in_triples"  # no pixel cited
    for i, (x, people) in enumerate([(0.1, 1000.5), (0.3, 200.0), (0.5, 7.0)]):
        s = f"urn:mgqa:raster:0123456789ab:0:{i}"
        rec["gold_triples"] += [
            [s, "http://www.opengis.net/ont/geosparql#asWKT", f"POINT ({x} 0.0)"],
            [s, "urn:mgqa:population", repr(people)],
        ]
    assert solve(rec).answer == {"value": 1001}  # 1000.5 rounds half up
    rec["parameters"] = {"value": 50}
    assert solve(rec).answer == {"value": 1201}
