"""End to end, the build: three KGs converted with every check passing, entities stratified,
lineage and summary on the command line."""

from __future__ import annotations

import json

import pytest

from mgqa_platform import lineage, warehouse

pytestmark = pytest.mark.e2e

#: Bounding boxes (min lon, min lat, max lon, max lat; degrees, EPSG:4326) of the regions that give
#: the sample its four income tiers: Helsinki and Andorra, Porto Alegre, Djibouti, and Malawi (with
#: Liberia and Madagascar elsewhere).
REGIONS = {
    "helsinki": (24.8, 60.1, 25.1, 60.3),
    "andorra": (1.41, 42.42, 1.79, 42.66),
    "porto_alegre": (-51.3, -30.2, -51.1, -29.9),
    "djibouti": (41.7, 10.9, 43.5, 12.8),
    "malawi": (32.6, -17.2, 36.0, -9.3),
}


def test_three_kgs_and_all_checks(query):
    counts = dict(query("SELECT kg, count(*) FROM entities GROUP BY 1"))
    assert set(counts) == {"worldkg", "kwg", "osmh3kg"}
    assert 20_000 < counts["worldkg"] < 60_000
    assert 30_000 < counts["osmh3kg"] < 90_000
    assert 5_000 < counts["kwg"] < 12_000
    # every entity id is unique across KGs; every category is non-empty; geometries valid
    assert query("SELECT count(*) - count(DISTINCT entity_id) FROM entities") == [(0,)]
    invalid = """
        SELECT count(*)
        FROM entities
        WHERE NOT ST_IsValid(geometry) OR name = '' OR category = ''
    """
    assert query(invalid) == [(0,)]
    in_box = """
        SELECT count(*)
        FROM entities
        WHERE lon BETWEEN ? AND ? AND lat BETWEEN ? AND ?
    """
    for place, (x0, y0, x1, y1) in REGIONS.items():
        assert query(in_box, x0, x1, y0, y1)[0][0] > 0, place
    # quarantine is populated with reasons, never silently dropped: unnamed OSM features,
    # unsupported relations, closed area ways cut at the extract edge (OSMH3KG)
    reasons = {r for (r,) in query("SELECT DISTINCT reason FROM quarantine")}
    expected = {"missing_name", "relation_incomplete", "area_not_assembled", "not_an_earthquake"}
    assert expected <= reasons


def test_strata_on_the_sample(built, query):
    # every entity of every KG has a country or an unassigned reason, and a stratum or a reason
    assert query("SELECT count(*) FROM entities e ANTI JOIN entity_country USING (entity_id)") == [
        (0,)
    ]
    assert query("SELECT count(*) FROM entity_country WHERE iso3 IS NULL AND reason IS NULL") == [
        (0,)
    ]
    assert query("SELECT count(*) FROM entity_strata WHERE stratum IS NULL AND reason IS NULL") == [
        (0,)
    ]
    # the four income tiers are all reached, each in several density tiers
    tiers = """
        SELECT income_tier, count(DISTINCT density_tier)
        FROM entity_strata
        WHERE stratum IS NOT NULL
        GROUP BY 1
    """
    per_tier = dict(query(tiers))
    assert set(per_tier) == {"HIC", "UMC", "LMC", "LIC"} and all(n >= 2 for n in per_tier.values())
    # known places land in the right country and tier
    placed = """
        SELECT count(*)
        FROM entity_strata
        WHERE entity_id LIKE ? AND iso3 = ? AND income_tier = ?
    """
    for eid_like, iso3, tier in [
        ("worldkg:%", "FIN", "HIC"),
        ("osmh3kg:way/%", "BRA", "UMC"),
        ("osmh3kg:relation/%", "AND", "HIC"),  # Andorra's parishes and the country itself
    ]:
        assert query(placed, eid_like, iso3, tier)[0][0] > 0, (eid_like, iso3, tier)
    # density: a proxy surface, labelled as such, with increasing cut points
    ((is_proxy, label, p33, p67),) = query("SELECT is_proxy, label, p33, p67 FROM density_breaks")
    assert is_proxy and "not WorldPop" in label and p33 < p67
    assert (built / "strata" / "entity_sites_by_income.png").stat().st_size > 10_000


def test_lineage_of_an_entity(built):
    first_road = """
        SELECT entity_id
        FROM entities
        WHERE kg = 'osmh3kg' AND category = 'road'
        ORDER BY entity_id
        LIMIT 1
    """
    with warehouse.session(built / "warehouse.duckdb", read_only=True) as con:
        (eid,) = con.execute(first_road).fetchone()
        text = lineage.describe(con, eid)
        with pytest.raises(KeyError):
            lineage.describe(con, "worldkg:does-not-exist")
    assert eid in text and "geo:asWKT" in text
    assert "OSM snapshot  mgqa-sample-" in text and "built by Dagster run" in text


def test_lineage_of_a_question(query, mgqa):
    first = """
        SELECT question_id, bindings
        FROM questions_en
        WHERE kg = 'osmh3kg'
        ORDER BY question_id
        LIMIT 1
    """
    ((qid, bindings),) = query(first)
    proc = mgqa("lineage", qid)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "re-run    reproduces the stored gold" in out
    needles = (
        "template",
        "variant",
        "executor",
        "WITH t(",
        "gold triples",
        "native KG file",
        "OSM snapshot  mgqa-sample-",
        "questions built by Dagster run",
    )
    for needle in needles:
        assert needle in out, needle
    for eid in json.loads(bindings).values():
        assert eid in out


def test_summary_command(mgqa):
    proc = mgqa("summary")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (
        "Entities per KG" in proc.stdout
        and "osmh3kg" in proc.stdout
        and "Quarantined rows" in proc.stdout
    )
