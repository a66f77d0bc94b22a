"""End to end, the release and determinism: the release's checksums equal the committed golden file
byte for byte, a narrow rebuild of one KG reproduces its native file and entity rows, and every
language loads with Hugging Face `datasets`."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.e2e

REFRESH = """the release differs from tests/golden/release_SHA256SUMS.
If the change is deliberate, refresh the golden file from a fresh build:
    rm -rf .mgqa && .venv/bin/mgqa build
    cp .mgqa/release/SHA256SUMS tests/golden/release_SHA256SUMS
and explain in the commit message which released bytes changed and why (see docs/testing.md).
Otherwise the build is no longer deterministic, or something that flows into the released files
changed."""


def test_release_checksums_equal_the_golden_file(built, golden_sums):
    """Every released file (17 x 2 Parquet, card, attribution, entity sites) has the committed
    bytes."""
    from mgqa_platform.release import card

    release = built / "release"
    assert (release / "SHA256SUMS").read_bytes() == golden_sums.read_bytes(), REFRESH
    assert card.verify_release(release) == []  # the files on disk match their checksums


#: One digest over the entity rows of a KG: ids, names, categories, geometry (WKT) and H3 cells.
ENTITIES_DUMP = """
    SELECT
        count(*),
        md5(string_agg(
            entity_id || display_name || category || ST_AsText(geometry) || h3::VARCHAR, '|'
            ORDER BY entity_id
        ))
    FROM entities
    WHERE kg = ?
"""

#: One digest over the strata of a KG's entities.
STRATA_DUMP = """
    SELECT
        count(*),
        md5(string_agg(
            entity_id || coalesce(stratum, '') || coalesce(reason, ''), '|' ORDER BY entity_id
        ))
    FROM entity_strata
    WHERE entity_id LIKE ? || ':%'
"""


def test_rebuilding_one_kg_is_byte_identical(query, materialize):
    """A narrow rebuild: the KnowWhereGraph partition (native file, conversion, countries, density,
    strata) materialized again writes the same native file and the same entity and strata rows."""
    native = "SELECT sha256, bytes FROM kg_files WHERE kg = ?"
    before = [query(sql, "kwg") for sql in (native, ENTITIES_DUMP, STRATA_DUMP)]
    result = materialize("PER_KG", "kwg")
    assert result["success"] and result["checks"] and all(result["checks"].values()), result
    assert [query(sql, "kwg") for sql in (native, ENTITIES_DUMP, STRATA_DUMP)] == before


def test_release_loads_with_datasets(built, query, tmp_path, monkeypatch):
    """The release folder: 17 languages x 2 splits, each config loadable offline with Hugging Face
    datasets, plus the card, the attribution and the entity sites GeoParquet."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import datasets
    import geopandas as gpd

    from mgqa_platform.languages import CODES
    from mgqa_platform.release import card

    root = built / "release"
    meta = card.card_metadata((root / "README.md").read_text(encoding="utf-8"))
    assert [c["config_name"] for c in meta["configs"]] == list(CODES)
    n_small = query("SELECT count(*) FROM split_small")[0][0]
    n_large = query("SELECT count(*) FROM questions_en")[0][0]
    for lang in CODES:
        ds = datasets.load_dataset(str(root), lang, cache_dir=str(tmp_path / "hf"))
        assert set(ds) == {"large", "small"}, lang
        assert (ds["large"].num_rows, ds["small"].num_rows) == (n_large, n_small), lang
    first_georgian = """
        SELECT question_id, text
        FROM questions_postedited
        WHERE lang = 'kat'
        ORDER BY question_id
        LIMIT 1
    """
    ((qid, text),) = query(first_georgian)
    assert ds["large"][0]["question_id"] != ""
    assert ds["small"].column_names[:3] == ["question_id", "lang", "kg"]
    kat = datasets.load_dataset(str(root), "kat", split="large", cache_dir=str(tmp_path / "hf"))
    assert (
        kat[0]["question_id"] == qid
        and kat[0]["text"] == text
        and json.loads(kat[0]["gold_triples"])
    )
    sites = gpd.read_parquet(root / "entity_sites.parquet")
    assert (
        sites.crs.to_epsg() == 4326
        and sites["entity_id"].is_unique
        and sites.geometry.is_valid.all()
    )
    assert {"point", "line", "polygon"} <= set(sites["geom_kind"])
    attribution = (root / "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert "OpenStreetMap contributors" in attribution and "WorldPop" in attribution
