"""Entity density tiers, strata and coverage on a tiny warehouse with real country polygons."""

from __future__ import annotations

import h3

from mgqa_platform.strata import countries, income, strata

# (entity_id, lon, lat): Helsinki (FIN, HIC), Porto Alegre (BRA, UMC), Djibouti (DJI, LMC), Lilongwe
# (MWI, LIC), Addis Ababa (ETH: unclassified in FY2026), and a point in the middle of the Atlantic
POINTS = [
    ("t:hel", 24.94, 60.17),
    ("t:poa", -51.22, -30.03),
    ("t:dji", 43.15, 11.59),
    ("t:llw", 33.78, -13.97),
    ("t:add", 38.76, 9.03),
    ("t:sea", -30.0, 30.0),
]


def _entities(con):
    for eid, lon, lat in POINTS:
        cells = [h3.latlng_to_cell(lat, lon, r) for r in (3, 5, 7, 9)]
        con.execute(
            """INSERT INTO entities VALUES (?, 't', ?, ?, ?, true, NULL, 'cafe', ['Cafe'],
                ST_Point(?, ?), 'point', ?, ?, ?,
               NULL, NULL, NULL, NULL, NULL, 's', NULL)""",
            [eid, eid, eid, eid, lon, lat, lon, lat, cells],
        )


def _build(con, policy="previous"):
    _entities(con)
    countries.write_countries(
        con,
        countries.load_countries(),
        income.load_income("data/sample/worldbank/wb_income_fy2026.csv"),
        policy,
    )
    countries.assign_countries(con, 25.0, kg="t")
    # density: Helsinki's cell is dense, Porto Alegre's medium, the others low; Lilongwe has no
    # pixels at all
    dens = {
        "t:hel": (5000.0, "high"),
        "t:poa": (300.0, "medium"),
        "t:dji": (10.0, "low"),
        "t:add": (50.0, "low"),
        "t:sea": (0.0, "low"),
    }
    for eid, lon, lat in POINTS:
        if eid in dens:
            d, tier = dens[eid]
            con.execute(
                "INSERT OR REPLACE INTO density_cells VALUES (?, ?, 1, 1.0, ?, ?)",
                [h3.latlng_to_cell(lat, lon, 3), d, d, tier],
            )
    strata.assign_density(con, "t")
    return strata.assign_strata(con, "t")


def _row(con, eid):
    cur = con.execute("SELECT * FROM entity_strata WHERE entity_id = ?", [eid])
    return dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))


def test_strata_and_reasons(con):
    per = _build(con)
    assert _row(con, "t:hel")["stratum"] == "HIC/high"
    assert _row(con, "t:poa")["stratum"] == "UMC/medium"
    assert _row(con, "t:dji")["stratum"] == "LMC/low"
    assert _row(con, "t:add")["stratum"] == "LIC/low"  # previous-year classification of Ethiopia
    llw = _row(con, "t:llw")
    assert (
        llw["income_tier"] == "LIC"
        and llw["stratum"] is None
        and "no valid population pixels" in llw["reason"]
    )
    sea = _row(con, "t:sea")
    assert (
        sea["iso3"] is None
        and sea["stratum"] is None
        and "no country within 25 km" in sea["reason"]
    )
    assert sum(per.values()) == len(POINTS)


def test_exclude_policy_leaves_ethiopia_without_tier(con):
    _build(con, policy="exclude")
    add = _row(con, "t:add")
    assert (
        add["iso3"] == "ETH"
        and add["income_tier"] is None
        and "not classified in FY2026" in add["reason"]
    )


def test_coverage_grid_and_map(con, tmp_path):
    _build(con)
    cov = strata.coverage(con)
    assert cov["entities_total"] == len(POINTS)
    assert (
        cov["grid"]["HIC/high"] == {"entities": 1, "countries": 1}
        and cov["grid"]["LIC/high"]["entities"] == 0
    )
    md = strata.grid_markdown(cov)
    assert md.splitlines()[2].startswith("| HIC | 0 (0) | 0 (0) | 1 (1)")
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    sites = strata.world_map_png(con, a, "t")
    strata.world_map_png(con, b, "t")
    assert a.read_bytes() == b.read_bytes() and sites["HIC"] == 1  # deterministic PNG
