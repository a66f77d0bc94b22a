"""The bounded pool of one (KG, stratum) and the candidates drawn from it (questions/generate.py).

An executor marked ``stratum_local`` must propose, over the pool of one stratum at a time, exactly
the tuples it proposes over the pool of the whole KG; the generator relies on it to keep the release
bytes. The world below mixes three strata and two KGs in one area, so that a candidate query that
reads another stratum's rows (a partner, a member count, a window over the whole pool) proposes
other tuples when run per stratum: the last test shows that such executors exist and are told apart.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace

import pyarrow as pa
import pytest
import question_world as world
from pyproj import Geod

from mgqa_platform.questions import false_premise, roles
from mgqa_platform.questions.catalog import default_catalog
from mgqa_platform.questions.execution import (
    arrow_column,
    create_cell_pool,
    create_gold_rows,
    create_pool,
    sample_ids_sql,
)
from mgqa_platform.questions.executor import Executor, Pool, gold_query, t_columns
from mgqa_platform.questions.executors import EXECUTORS
from mgqa_platform.questions.generate import (
    candidate_rows,
    is_bounded,
    kg_strata,
    pooled_candidates,
    stratum_groups,
    stratum_sizes,
)
from mgqa_platform.warehouse import registered

CATALOG = default_catalog()
SUBS = [s for t in CATALOG.templates for s in t.sub_templates if s.executor in EXECUTORS]
STRATA = ("HIC/high", "LIC/low", "UMC/medium")
POINT_CATEGORIES = ("cafe", "pharmacy", "school", "city", "town", "village")
POLYGON_CATEGORIES = ("administrative_region", "city_block", "park", "county")
LINE_CATEGORIES = ("river", "railway")
GEOD = Geod(ellps="WGS84")


def _box(x: float, y: float, w: float, h: float) -> str:
    return f"POLYGON(({x} {y}, {x + w} {y}, {x + w} {y + h}, {x} {y + h}, {x} {y}))"


def _populate(con, kg: str, rng: random.Random) -> None:
    """Points, lines, polygons (one of them in two parts) and events of every stratum, interleaved
    over one area of about 1 x 1 degree near Porto Alegre, plus one entity without a stratum."""
    x0, y0 = -51.5, -30.5

    def stratum(i: int) -> str:
        return STRATA[i % len(STRATA)]

    for i in range(36):
        cat = POINT_CATEGORIES[i % len(POINT_CATEGORIES)]
        x, y = x0 + rng.random(), y0 + rng.random()
        world.add(con, f"{kg}:n{i}", f"{cat} {i}", cat, f"POINT({x} {y})", stratum=stratum(i))
    for i in range(12):
        cat = POLYGON_CATEGORIES[i % len(POLYGON_CATEGORIES)]
        w = 0.02 + 0.5 * rng.random()
        x, y = x0 + rng.random() * (1 - w), y0 + rng.random() * (1 - w)
        world.add(con, f"{kg}:w{i}", f"{cat} {i}", cat, _box(x, y, w, w), stratum=stratum(i))
    two_parts = (
        f"MULTIPOLYGON((({x0} {y0}, {x0 + 0.3} {y0}, {x0 + 0.3} {y0 + 0.3}, {x0} {y0})), "
        f"(({x0 + 0.5} {y0 + 0.5}, {x0 + 0.9} {y0 + 0.5}, {x0 + 0.9} {y0 + 0.9}, "
        f"{x0 + 0.5} {y0 + 0.5})))"
    )
    world.add(con, f"{kg}:r0", "island pair", "island", two_parts, stratum=STRATA[0])
    for i in range(9):
        cat = LINE_CATEGORIES[i % len(LINE_CATEGORIES)]
        xa, ya = x0 + rng.random(), y0 + rng.random()
        xb, yb = x0 + rng.random(), y0 + rng.random()
        world.add(
            con,
            f"{kg}:l{i}",
            f"{cat} {i}",
            cat,
            f"LINESTRING({xa} {ya}, {xb} {yb})",
            stratum=stratum(i),
        )
    for i in range(9):
        x, y = x0 + rng.random() * 0.7, y0 + rng.random() * 0.7
        world.add(
            con,
            f"{kg}:f{i}",
            f"FIRE {i} (2020)",
            "wildfire",
            _box(x, y, 0.3, 0.2),
            stratum=stratum(i),
            valid_from="2020-07-01",
            valid_to="2020-07-20",
        )
        world.add(
            con,
            f"{kg}:q{i}",
            f"QUAKE {i} (2021)",
            "earthquake",
            f"POINT({x0 + rng.random()} {y0 + rng.random()})",
            stratum=stratum(i + 1),
            valid_from=f"2021-03-0{1 + i % 9}",
        )
    world.add(con, f"{kg}:x", "unstratified", "cafe", f"POINT({x0} {y0})", stratum=None)


def _mixed(con) -> None:
    """The mixed world: :func:`_populate` for two KGs, one seeded random stream."""
    rng = random.Random(20)
    for kg in ("worldkg", "osmh3kg"):
        _populate(con, kg, rng)


@pytest.fixture
def mixed(con, world_template):
    """A fresh warehouse holding the mixed world (built once, copied per test)."""
    world.copy_catalog(con, world_template("bounded_pool.mixed", _mixed))
    return con


def _bag(rows: list[dict]) -> Counter:
    return Counter(tuple(sorted(r.items())) for r in rows)


def _per_stratum(con, sub, pool: Pool) -> Counter:
    bag: Counter = Counter()
    for stratum in kg_strata(con, pool.kg):
        create_pool(con, pool.kg, stratum)
        bag += _bag(candidate_rows(con, sub, pool))
    return bag


def test_pool_of_one_stratum_holds_that_stratum_only(mixed):
    create_pool(mixed, "worldkg")
    whole = mixed.execute("SELECT entity_id, stratum FROM pool ORDER BY 1").fetchall()
    assert len(whole) == 36 + 12 + 1 + 9 + 18  # the unstratified entity is in no pool
    assert kg_strata(mixed, "worldkg") == sorted(STRATA)
    seen = []
    for stratum in STRATA:
        create_pool(mixed, "worldkg", stratum)
        rows = mixed.execute("SELECT entity_id, stratum FROM pool ORDER BY 1").fetchall()
        assert rows and {s for _, s in rows} == {stratum}
        assert all(e.startswith("worldkg:") for e, _ in rows)
        seen += rows
    assert sorted(seen) == whole


def test_pool_of_one_stratum_has_the_columns_of_the_whole_pool(mixed):
    create_pool(mixed, "osmh3kg")
    whole = [d[0] for d in mixed.execute("SELECT * FROM pool LIMIT 0").description]
    create_pool(mixed, "osmh3kg", "LIC/low")
    assert [d[0] for d in mixed.execute("SELECT * FROM pool LIMIT 0").description] == whole
    create_pool(mixed, "osmh3kg", "no such stratum")
    assert mixed.execute("SELECT count(*) FROM pool").fetchone() == (0,)


@pytest.mark.parametrize("name", sorted(n for n, e in EXECUTORS.items() if e.stratum_local))
def test_stratum_local_executor_proposes_the_same_tuples_per_stratum(mixed, name):
    pool = Pool("worldkg", 11, per_stratum=4)  # a small cap, so that the seeded sampling decides
    proposed = 0
    for sub in (s for s in SUBS if s.executor == name):
        create_pool(mixed, pool.kg)
        whole = _bag(candidate_rows(mixed, sub, pool))
        assert _per_stratum(mixed, sub, pool) == whole, sub.id
        proposed += sum(whole.values())
    assert proposed > 0, f"the world gives {name} no candidate: the test would prove nothing"


#: Sub-templates of executors that read only their stratum, only its cell neighbourhood, or neither.
MIXED = [
    s
    for s in SUBS
    if s.executor
    in {
        "distance.pair",
        "shape.compare",
        "distance.kth_nearest",
        "admin.collection_count",
        "grid.shared_cell",
        "direction.cardinal",
    }
]


def test_pooled_candidates_equal_those_of_the_whole_pool(mixed):
    pool = Pool("osmh3kg", 3, per_stratum=5)
    pooled = pooled_candidates(mixed, MIXED, pool)
    create_pool(mixed, pool.kg)
    for sub in MIXED:
        assert _bag(pooled[sub.id]) == _bag(candidate_rows(mixed, sub, pool)), sub.id
    assert sum(len(v) for v in pooled.values()) > 0


@pytest.mark.parametrize("name", ["centrality.centroid", "admin.collection_count", "event.area"])
def test_cross_stratum_executors_are_told_apart(mixed, name):
    """Executors that read partners or members across strata propose other tuples per stratum: the
    comparison above can fail, and the flag is not a formality."""
    assert not EXECUTORS[name].stratum_local
    pool = Pool("worldkg", 11, per_stratum=4)
    differ = []
    for sub in (s for s in SUBS if s.executor == name):
        create_pool(mixed, pool.kg)
        differ.append(_per_stratum(mixed, sub, pool) != _bag(candidate_rows(mixed, sub, pool)))
    assert any(differ)


def _premise_questions(con, kg: str) -> tuple[dict, list[dict]]:
    """Eligible false-premise sub-templates by id, and one question per candidate tuple of each in
    ``kg`` (the fields :func:`false_premise.stratum_replacements` reads)."""
    subs = {s.id: s for s in false_premise.eligible(CATALOG)}
    pool = Pool(kg, 5, per_stratum=6)
    create_pool(con, kg)
    questions = []
    for sub in subs.values():
        for i, row in enumerate(candidate_rows(con, sub, pool)):
            questions.append(
                {
                    "question_id": f"{sub.id}-{i}",
                    "kg": kg,
                    "stratum": row["stratum"],
                    "sub_template_id": sub.id,
                    "bindings": json.dumps({r: row[r] for r in sub.roles}),
                }
            )
    return subs, questions


@pytest.mark.parametrize("km", [15.0, 40.0, false_premise.MAX_REPLACEMENT_KM])
def test_false_premise_replacements_per_stratum_equal_those_of_the_whole_pool(mixed, km):
    """The replacements searched stratum by stratum in the neighbourhood of the anchors are those
    the KG's whole pool gives, for every eligible sub-template the world has questions for; at the
    smaller radii the neighbourhoods leave entities out, so the equality is not a formality."""
    kg = "worldkg"
    subs, questions = _premise_questions(mixed, kg)
    assert len({q["sub_template_id"] for q in questions}) >= 5
    create_pool(mixed, kg)
    whole_rows = mixed.execute("SELECT count(*) FROM pool").fetchone()[0]
    whole = {}
    for sub_id, sub in subs.items():
        mine = [q for q in questions if q["sub_template_id"] == sub_id]
        whole.update(false_premise.nearest_replacements(mixed, sub, mine, km=km))
    assert sum(map(len, whole.values())) > 0
    assert false_premise.stratum_replacements(mixed, kg, subs, questions, km=km) == whole
    if km < 20:
        anchors = [
            json.loads(q["bindings"])[false_premise.anchor_role(subs[q["sub_template_id"]])]
            for q in questions[:3]
        ]
        assert false_premise.create_neighbourhood_pool(mixed, kg, anchors, km) < whole_rows


@pytest.mark.parametrize(
    ("anchor", "inside", "outside"),
    [
        ((179.95, 10.0), [(-179.95, 10.0), (179.95, 10.85)], [(179.95, 10.95), (-179.0, 10.0)]),
        ((0.0, 89.5), [(180.0, 89.7), (90.0, 89.4)], [(180.0, 89.4), (0.0, 88.5)]),
        ((-30.0, -0.4), [(-30.0, 0.4), (-30.6, -0.4)], [(-30.0, 0.55), (-29.0, -0.4)]),
    ],
)
def test_neighbourhood_pool_across_the_antimeridian_the_pole_and_the_equator(
    con, anchor, inside, outside
):
    """The neighbourhood holds exactly the entities within 100 km of the anchor (the great-circle
    distance, checked by pyproj here): across the antimeridian, over the pole, across the
    equator."""
    world.add(con, "worldkg:a", "Anchor", "cafe", f"POINT({anchor[0]} {anchor[1]})")
    points = {f"worldkg:in{i}": p for i, p in enumerate(inside)}
    points |= {f"worldkg:out{i}": p for i, p in enumerate(outside)}
    for eid, (x, y) in points.items():
        world.add(con, eid, eid, "cafe", f"POINT({x} {y})", stratum="LIC/low")
        km = GEOD.inv(anchor[0], anchor[1], x, y)[2] / 1000.0
        assert abs(km - 100.0) > 2.0 and (km < 100.0) == eid.startswith("worldkg:in"), (eid, km)
    assert false_premise.create_neighbourhood_pool(con, "worldkg", ["worldkg:a"]) == len(inside) + 1
    got = {r[0] for r in con.execute("SELECT entity_id FROM pool").fetchall()}
    assert got == {"worldkg:a", *(e for e in points if e.startswith("worldkg:in"))}


def _gold_rows(con, sub, sql: str, t: pa.Table) -> list[str]:
    """The rows of ``sql`` over the batch ``t``, each as its repr (NaN compares equal), sorted."""
    with registered(con, t=t):
        cur = con.execute(f"SELECT * FROM ({sql}) AS q")
        names = [d[0] for d in cur.description]
        return sorted(repr(dict(zip(names, r, strict=True))) for r in cur.fetchall())


def _role_tuples(con, sub, n: int = 6) -> list[dict]:
    """Up to ``n`` tuples of distinct pool entities of each role's type (the i-th tuple takes the
    (i + j)-th entity of role j, by id): tuples for a sub-template whose candidates need partners
    in the anchor's H3 cell, which the world's spread-out entities seldom share. Empty when a role
    binds a category or has no entity."""
    if any(roles.is_category(t) for t in sub.roles.values()):
        return []
    ids = {
        r: [
            row[0]
            for row in con.execute(
                f"SELECT entity_id FROM pool p WHERE {roles.predicate(t, 'p')} ORDER BY 1"
            ).fetchall()
        ]
        for r, t in sub.roles.items()
    }
    if not all(ids.values()):
        return []
    out = []
    for i in range(n):
        row = {r: ids[r][(i + j) % len(ids[r])] for j, r in enumerate(sub.roles)}
        if len(set(row.values())) == len(row):
            out.append(row)
    return out


def _batch(con, sub, pool: Pool) -> pa.Table | None:
    """The relation ``t`` of ``sub``'s candidates over the KG's whole pool (or, when it proposes
    none, :func:`_role_tuples`), parameters not given by a candidate drawn with a seeded RNG per
    row; None when the world gives no tuple."""
    create_pool(con, pool.kg)
    cand = candidate_rows(con, sub, pool) or _role_tuples(con, sub)
    if not cand:
        return None
    rows = []
    for i, c in enumerate(cand):
        row = {"row_id": i, "kg": pool.kg, **{r: c[r] for r in sub.roles}}
        for name, choices in sub.parameters.items():
            row[name] = c.get(name) or random.Random(i).choice(choices)
        rows.append(row)
    return pa.table({c: arrow_column([r[c] for r in rows]) for c in t_columns(sub)})


#: Executors whose gold query the generator runs on a neighbourhood of the bound entities.
BOUNDED_GOLD = sorted(
    n
    for n, e in EXECUTORS.items()
    if e.gold_bound_only or any(e.gold_boxes(s) for s in SUBS if s.executor == n)
)


def test_gold_neighbourhoods_are_declared_for_most_executors():
    assert len(BOUNDED_GOLD) == 45 and "containment.count_within" in BOUNDED_GOLD


@pytest.mark.parametrize("name", BOUNDED_GOLD)
def test_gold_on_the_neighbourhood_equals_the_gold_on_the_whole_table(mixed, name):
    """For every executor marked ``gold_bound_only`` or giving ``gold_boxes``, the gold batch run on
    the bound entities' rows (and the rows in its boxes) alone, what the generator runs, returns the
    rows of ``gold_sql`` on the whole entity table."""
    executor = EXECUTORS[name]
    rows = 0
    for sub in (s for s in SUBS if s.executor == name):
        t = _batch(mixed, sub, Pool("osmh3kg", 7, per_stratum=4))
        if t is None:
            continue
        whole = _gold_rows(mixed, sub, executor.gold_sql(sub), t)
        assert _gold_rows(mixed, sub, gold_query(executor, sub), t) == whole, sub.id
        kg_rows = create_gold_rows(mixed, _bound_ids(sub, t) | {"worldkg:n1", "osmh3kg:w2"})
        assert _gold_rows(mixed, sub, gold_query(executor, sub, kg_rows), t) == whole, sub.id
        rows += len(whole)
    assert rows > 0, f"the world gives {name} no gold row: the test would prove nothing"


def _bound_ids(sub, t: pa.Table) -> set[str]:
    """The entity ids bound in the batch ``t`` of ``sub``."""
    return {i for role in sub.entity_roles for i in t.column(role).to_pylist()}


def test_gold_rows_hold_the_rows_of_every_bound_entity(mixed):
    """``create_gold_rows`` holds exactly the rows of the ids given; a gold batch whose bound rows
    it lacks returns other rows, so the table must hold every bound entity
    (``generate.bound_ids``)."""
    executor = EXECUTORS["distance.pair"]
    sub = next(s for s in SUBS if s.executor == executor.name)
    t = _batch(mixed, sub, Pool("osmh3kg", 7, per_stratum=4))
    ids = _bound_ids(sub, t)
    table = create_gold_rows(mixed, ids)
    got = {r[0] for r in mixed.execute(f"SELECT entity_id FROM {table}").fetchall()}
    assert got == ids
    whole = _gold_rows(mixed, sub, executor.gold_sql(sub), t)
    create_gold_rows(mixed, sorted(ids)[1:])
    assert _gold_rows(mixed, sub, gold_query(executor, sub, table), t) != whole


@pytest.mark.parametrize(
    "name", ["distance.aggregate", "admin.collection_count", "topology.count_intersecting"]
)
def test_gold_of_members_differs_on_the_bound_entities(mixed, name):
    """Executors that count or list members read rows beyond the bound entities: run on the bound
    rows alone their gold differs, so they are not marked and the comparison above can fail."""
    executor = EXECUTORS[name]
    assert not executor.gold_bound_only
    bound_only = type("BoundOnly", (type(executor),), {"gold_bound_only": True})()
    differ = []
    for sub in (s for s in SUBS if s.executor == name):
        t = _batch(mixed, sub, Pool("osmh3kg", 7, per_stratum=4))
        if t is not None:
            whole = _gold_rows(mixed, sub, executor.gold_sql(sub), t)
            differ.append(_gold_rows(mixed, sub, gold_query(bound_only, sub), t) != whole)
    assert any(differ)


def test_gold_on_boxes_narrower_than_the_reach_differs(mixed):
    """Boxes of half the reach of ``containment.count_within``'s member join leave members out: the
    equality above depends on the boxes holding every member the gold query tests."""
    executor = EXECUTORS["containment.count_within"]

    def half_boxes(self, sub):
        return executor.gold_boxes(sub).replace(executor._gold_reach(), "c.value * 0.5")

    narrow = type("Narrow", (type(executor),), {"gold_boxes": half_boxes})()
    differ = []
    for sub in (s for s in SUBS if s.executor == executor.name):
        t = _batch(mixed, sub, Pool("osmh3kg", 7, per_stratum=4))
        whole = _gold_rows(mixed, sub, executor.gold_sql(sub), t)
        assert _gold_rows(mixed, sub, gold_query(executor, sub), t) == whole
        differ.append(_gold_rows(mixed, sub, gold_query(narrow, sub), t) != whole)
    assert any(differ)


def _per_cell_neighbourhood(con, sub, pool: Pool) -> Counter:
    """The tuples of ``sub`` proposed stratum by stratum on each stratum's cell neighbourhood (with
    the rows of the samples its executor names), each stratum keeping its own tuples."""
    samples = sample_ids_sql(pool, EXECUTORS[sub.executor].cell_samples(sub)) or None
    bag: Counter = Counter()
    for stratum in kg_strata(con, pool.kg):
        create_cell_pool(con, pool.kg, (stratum,), samples)
        bag += _bag(candidate_rows(con, sub, replace(pool, strata=(stratum,))))
    return bag


@pytest.mark.parametrize("name", sorted(n for n, e in EXECUTORS.items() if e.cell_local))
def test_cell_local_executor_proposes_the_same_tuples_on_cell_neighbourhoods(mixed, name):
    """The tuples of a ``cell_local`` executor over each stratum's cell neighbourhood are those over
    the KG's pool; over the stratum's rows alone they are not (partners of other strata share the
    anchors' cells), so the neighbourhood is needed and the equality can fail."""
    _cluster(mixed)
    proposed, alone_differs = 0, []
    for kg, per_stratum in (("worldkg", 4), ("osmh3kg", 90)):
        pool = Pool(kg, 13, per_stratum=per_stratum)
        for sub in (s for s in SUBS if s.executor == name):
            create_pool(mixed, kg)
            whole = _bag(candidate_rows(mixed, sub, pool))
            assert _per_cell_neighbourhood(mixed, sub, pool) == whole, sub.id
            alone_differs.append(_per_stratum(mixed, sub, pool) != whole)
            proposed += sum(whole.values())
    assert proposed > 0, f"the world gives {name} no candidate: the test would prove nothing"
    assert any(alone_differs)


def test_cell_neighbourhood_holds_the_stratum_and_the_rows_sharing_its_cells(mixed):
    """A stratum's cell neighbourhood holds all its rows and the rows of other strata that share one
    of their stored H3 cells, and no row elsewhere (an entity about 1,000 km away is left out)."""
    world.add(mixed, "worldkg:far", "far cafe", "cafe", "POINT(-42.0 -22.0)", stratum="LIC/low")
    rows = mixed.execute(
        """
        SELECT e.entity_id, s.stratum, e.h3
        FROM entities e
        JOIN entity_strata s USING (entity_id)
        WHERE e.kg = 'worldkg' AND s.stratum IS NOT NULL
        """
    ).fetchall()
    for stratum in STRATA:
        cells = {c for _, st, h3 in rows if st == stratum for c in h3}
        expected = {eid for eid, st, h3 in rows if st == stratum or cells & set(h3)}
        create_cell_pool(mixed, "worldkg", (stratum,))
        got = {r[0] for r in mixed.execute("SELECT entity_id FROM pool").fetchall()}
        assert got == expected
        assert ("worldkg:far" in got) == (stratum == "LIC/low")


def _cluster(con) -> None:
    """One cluster of a few hundred metres (one H3 res-7 cell) near Porto Alegre holding points and
    short rivers of two strata, and 2 degrees east a second cluster of the second stratum only: that
    stratum's sample is mostly taken far away, yet its rows in the first cluster meet the first
    stratum's anchors."""
    rng = random.Random(7)
    x0, y0 = -51.2, -30.03
    for i in range(16):
        x, y = x0 + 0.004 * rng.random(), y0 + 0.004 * rng.random()
        st = STRATA[i % 2]
        world.add(con, f"worldkg:cc{i}", f"cafe {i}", "cafe", f"POINT({x} {y})", stratum=st)
    for i in range(4):
        x, y = x0 + 0.004 * rng.random(), y0 + 0.004 * rng.random()
        line = f"LINESTRING({x} {y}, {x + 0.0005} {y + 0.0005})"
        world.add(con, f"worldkg:cl{i}", f"river {i}", "river", line, stratum=STRATA[i % 2])
    for i in range(24):
        x, y = x0 + 2 + 0.004 * rng.random(), y0 + 0.004 * rng.random()
        world.add(con, f"worldkg:cf{i}", f"far {i}", "cafe", f"POINT({x} {y})", stratum=STRATA[1])


@pytest.fixture
def clustered(con, world_template):
    """A fresh warehouse holding the clustered world (built once, copied per test)."""
    world.copy_catalog(con, world_template("bounded_pool.clustered", _cluster))
    return con


def test_cell_neighbourhood_needs_the_samples_of_other_strata(clustered):
    """On the clustered world the ``local_tuples`` executors propose the whole pool's tuples on cell
    neighbourhoods with every stratum's sampled anchors added, and other tuples without them, so
    :meth:`Executor.cell_samples` is needed and the comparison can fail."""
    pool = Pool("worldkg", 3, per_stratum=3)
    names = sorted(
        n for n, e in EXECUTORS.items() if type(e).cell_samples is not Executor.cell_samples
    )
    assert "distance.to_geometry" in names
    proposed, without_differs = 0, []
    for sub in (s for s in SUBS if s.executor in names):
        create_pool(clustered, pool.kg)
        whole = _bag(candidate_rows(clustered, sub, pool))
        assert _per_cell_neighbourhood(clustered, sub, pool) == whole, sub.id
        bare: Counter = Counter()
        for stratum in kg_strata(clustered, pool.kg):
            create_cell_pool(clustered, pool.kg, (stratum,))
            bare += _bag(candidate_rows(clustered, sub, replace(pool, strata=(stratum,))))
        without_differs.append(bare != whole)
        proposed += sum(whole.values())
    assert proposed > 0
    assert any(without_differs)


#: Sub-templates whose candidates the generator draws on the neighbourhoods of groups of strata.
BOUNDED = [s for s in SUBS if is_bounded(EXECUTORS[s.executor])]


def test_stratum_groups_pack_the_strata_first_fit_in_decreasing_size():
    sizes = {"a": 10, "b": 7, "c": 5, "d": 1, "e": 7}
    assert stratum_groups(sizes, 12) == [("a", "d"), ("b", "c"), ("e",)]
    assert stratum_groups(sizes, 1) == [("a",), ("b",), ("e",), ("c",), ("d",)]
    assert stratum_groups(sizes, 10**6) == [("a", "b", "c", "d", "e")]
    assert stratum_groups({"x": 100, "y": 1}, 10) == [("x",), ("y",)]
    assert stratum_groups({}, 10) == []


@pytest.mark.parametrize("pool_rows", [1, 61, 10**6])
def test_grouped_candidates_equal_those_of_the_whole_pool(mixed, pool_rows):
    """Every ``stratum_local`` and ``cell_local`` sub-template proposes, over the neighbourhoods of
    groups of strata (one stratum a group, groups of two, all strata in one), exactly the tuples of
    the KG's whole pool, in both KGs of the mixed world with the dense cluster (``per_stratum`` 4
    and 90, so that the seeded samples decide in one and take every row in the other)."""
    _cluster(mixed)
    proposed = 0
    for kg, per_stratum in (("worldkg", 4), ("osmh3kg", 90)):
        sizes = stratum_sizes(mixed, kg)
        assert len(stratum_groups(sizes, pool_rows)) == (
            3 if pool_rows == 1 else 2 if pool_rows == 61 else 1
        ), sizes
        pool = Pool(kg, 13, per_stratum=per_stratum)
        pooled = pooled_candidates(mixed, BOUNDED, pool, pool_rows=pool_rows)
        create_pool(mixed, kg)
        for sub in BOUNDED:
            whole = _bag(candidate_rows(mixed, sub, pool))
            assert _bag(pooled[sub.id]) == whole, sub.id
            proposed += sum(whole.values())
    assert proposed > 0


def test_the_tuples_of_other_strata_in_a_neighbourhood_are_dropped(mixed):
    """A group's neighbourhood holds rows of the other strata too, from which the executors propose
    tuples of those strata on part of their rows: without :attr:`Pool.strata` (every stratum kept),
    the union over the groups is not the whole pool's, so the filter is needed."""
    _cluster(mixed)
    pool = Pool("worldkg", 13, per_stratum=4)
    groups = stratum_groups(stratum_sizes(mixed, pool.kg), 1)
    differ = []
    for sub in (s for s in BOUNDED if EXECUTORS[s.executor].cell_local):
        create_pool(mixed, pool.kg)
        whole = _bag(candidate_rows(mixed, sub, pool))
        unfiltered: Counter = Counter()
        for group in groups:
            create_cell_pool(mixed, pool.kg, group)
            unfiltered += _bag(candidate_rows(mixed, sub, pool))
        differ.append(unfiltered != whole)
    assert any(differ)


def test_cell_pool_takes_a_tuple_of_strata(mixed):
    """A group's neighbourhood holds every row of each of its strata; a bare string is refused (it
    would be read as a group of one-letter strata and give an empty neighbourhood)."""
    with pytest.raises(TypeError, match="tuple of strata"):
        create_cell_pool(mixed, "worldkg", "LIC/low")
    group = ("HIC/high", "LIC/low")
    n = create_cell_pool(mixed, "worldkg", group)
    got = {r[0] for r in mixed.execute("SELECT entity_id FROM pool").fetchall()}
    mine = mixed.execute(
        "SELECT entity_id FROM entity_strata WHERE kg = 'worldkg' AND list_contains(?, stratum)",
        [list(group)],
    ).fetchall()
    assert len(got) == n and mine and {r[0] for r in mine} <= got
