"""End to end: `mgqa build` on the bundled sample, through the same Dagster assets the UI runs."""

from __future__ import annotations

import pytest

import mgqa_cli
from mgqa_platform import lineage, warehouse


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    home = tmp_path_factory.mktemp("mgqa-home")
    mp = pytest.MonkeyPatch()
    mp.setenv("MGQA_HOME", str(home))
    mp.setenv("DAGSTER_HOME", str(home / "dagster"))
    mp.delenv("MGQA_WAREHOUSE", raising=False)
    assert mgqa_cli.main(["build"]) == 0
    yield home
    mp.undo()


def _q(home, sql, *params):
    with warehouse.session(home / "warehouse.duckdb", read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


def test_three_kgs_and_all_checks(built):
    counts = dict(_q(built, "SELECT kg, count(*) FROM entities GROUP BY 1"))
    assert set(counts) == {"worldkg", "kwg", "osmh3kg"}
    assert 20_000 < counts["worldkg"] < 60_000 and 30_000 < counts["osmh3kg"] < 90_000 and 5_000 < counts["kwg"] < 12_000
    # every entity id is unique across KGs; every category is non-empty; geometries valid
    assert _q(built, "SELECT count(*) - count(DISTINCT entity_id) FROM entities") == [(0,)]
    assert _q(built, "SELECT count(*) FROM entities WHERE NOT ST_IsValid(geometry) OR name = '' OR category = ''") == [(0,)]
    # the sample reaches all four income tiers' regions: Helsinki, Brazil, Djibouti, Malawi/Liberia/Madagascar
    boxes = {"helsinki": (24.8, 60.1, 25.1, 60.3), "porto_alegre": (-51.3, -30.2, -51.1, -29.9), "djibouti": (41.7, 10.9, 43.5, 12.8), "malawi": (32.6, -17.2, 36.0, -9.3)}
    for place, (x0, y0, x1, y1) in boxes.items():
        n = _q(built, "SELECT count(*) FROM entities WHERE lon BETWEEN ? AND ? AND lat BETWEEN ? AND ?", x0, x1, y0, y1)[0][0]
        assert n > 0, place
    # quarantine is populated with reasons, never silently dropped: unnamed OSM features, unsupported relations
    reasons = {r for (r,) in _q(built, "SELECT DISTINCT reason FROM quarantine")}
    assert {"missing_name", "relation_incomplete", "not_an_earthquake"} <= reasons


def test_lineage_of_an_entity(built):
    with warehouse.session(built / "warehouse.duckdb", read_only=True) as con:
        (eid,) = con.execute("SELECT entity_id FROM entities WHERE kg = 'osmh3kg' AND category = 'road' ORDER BY entity_id LIMIT 1").fetchone()
        text = lineage.describe(con, eid)
        with pytest.raises(KeyError):
            lineage.describe(con, "worldkg:does-not-exist")
    assert eid in text and "geo:asWKT" in text and "OSM snapshot  mgqa-sample-" in text and "built by Dagster run" in text


def test_rebuild_is_byte_identical(built):
    before = _q(built, "SELECT kg, sha256 FROM kg_files ORDER BY kg")
    dump = "SELECT md5(string_agg(entity_id || display_name || category || ST_AsText(geometry) || h3::VARCHAR, '|' ORDER BY entity_id)) FROM entities WHERE kg = 'worldkg'"
    ents_before = _q(built, dump)
    assert mgqa_cli.main(["build", "--kg", "worldkg"]) == 0
    assert _q(built, "SELECT kg, sha256 FROM kg_files ORDER BY kg") == before
    assert _q(built, dump) == ents_before


def test_summary_command(built, capsys):
    assert mgqa_cli.main(["summary"]) == 0
    out = capsys.readouterr().out
    assert "Entities per KG" in out and "osmh3kg" in out and "Quarantined rows" in out


def test_strata_on_the_sample(built):
    # every entity of every KG has a country or an unassigned reason, and a stratum or a reason
    assert _q(built, "SELECT count(*) FROM entities e ANTI JOIN entity_country USING (entity_id)") == [(0,)]
    assert _q(built, "SELECT count(*) FROM entity_country WHERE iso3 IS NULL AND reason IS NULL") == [(0,)]
    assert _q(built, "SELECT count(*) FROM entity_strata WHERE stratum IS NULL AND reason IS NULL") == [(0,)]
    # the four income tiers are all reached, each in several density tiers
    per_tier = dict(_q(built, "SELECT income_tier, count(DISTINCT density_tier) FROM entity_strata WHERE stratum IS NOT NULL GROUP BY 1"))
    assert set(per_tier) == {"HIC", "UMC", "LMC", "LIC"} and all(n >= 2 for n in per_tier.values())
    # known places land in the right country and tier
    for eid_like, iso3, tier in [("worldkg:%", "FIN", "HIC"), ("osmh3kg:way/%", "BRA", "UMC")]:
        assert _q(built, "SELECT count(*) FROM entity_strata WHERE entity_id LIKE ? AND iso3 = ? AND income_tier = ?", eid_like, iso3, tier)[0][0] > 0
    # density: a proxy surface, labelled as such, with increasing cut points
    ((is_proxy, label, p33, p67),) = _q(built, "SELECT is_proxy, label, p33, p67 FROM density_breaks")
    assert is_proxy and "not WorldPop" in label and p33 < p67
    assert (built / "strata" / "entity_sites_by_income.png").stat().st_size > 10_000
