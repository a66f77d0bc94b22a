"""The release: question Parquet files, entity sites GeoParquet, dataset card, SHA256SUMS and their
verification.

Built from a tiny warehouse (2 languages x 3 questions, 4 entities of which 3 are bound) and read
back with the real readers: pyarrow, geopandas and Hugging Face ``datasets`` (offline).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import geopandas as gpd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from mgqa_platform import question_schema as schema
from mgqa_platform import warehouse
from mgqa_platform.files import sha256_file, snapshot_id_for
from mgqa_platform.kg.native import native_path
from mgqa_platform.release import card, export, sites
from mgqa_platform.settings import SAMPLE_DIR
from mgqa_platform.warehouse import registered

# The input snapshot rows describe the bundled sample PBF: its id and size derive from its bytes, so
# they follow the file when the sample is rebuilt (scripts/bundle_sample.py).
SAMPLE_PBF = SAMPLE_DIR / "osm" / "mgqa-sample.osm.pbf"
SAMPLE_SHA = sha256_file(SAMPLE_PBF)
SNAP = snapshot_id_for(SAMPLE_PBF, SAMPLE_SHA)
KG_SHA = (
    "9" * 64
)  # a stand-in WorldKG file: its id derives from its name and this hash like a built one
KG_SNAP = snapshot_id_for(native_path("kg", "worldkg", SNAP), KG_SHA)
ENTITIES = (  # entity_id, name, category, WKT, geom_kind, lon, lat
    ("worldkg:1", "Café Central", "cafe", "POINT (-51.22 -30.03)", "point", -51.22, -30.03),
    (
        "worldkg:100",
        "Avenida Ipiranga",
        "road",
        "LINESTRING (-51.24 -30.03, -51.2 -30.03, -51.18 -30.02)",
        "line",
        -51.2,
        -30.03,
    ),
    (
        "worldkg:101",
        "Parque Pequeno",
        "park",
        "POLYGON ((-51.23 -30.05, -51.22 -30.05, -51.22 -30.04, -51.23 -30.04, -51.23 -30.05))",
        "polygon",
        -51.225,
        -30.045,
    ),
    (
        "worldkg:4",
        "Farmácia Popular",
        "pharmacy",
        "POINT (-51.205 -30.025)",
        "point",
        -51.205,
        -30.025,
    ),  # never bound
)
QUESTIONS = (  # question_id, sfid, bindings, answer_format, gold, false_premise, multimodal
    (
        "q1",
        "A",
        {"entity_A": "worldkg:1", "entity_B": "worldkg:100"},
        "distance",
        {"value": 1.234},
        False,
        False,
    ),
    ("q2", "B", {"entity_A": "worldkg:101", "value": "5"}, "boolean", {"value": True}, True, False),
    ("q3", "N", {"entity_A": "worldkg:1"}, "point", {"lon": -51.22, "lat": -30.03}, False, True),
)
TEXT = {
    "eng": "How far is {name} from the road?",
    "fra": "À quelle distance se trouve {name} de la route ?",
}
SMALL = ("q1", "q3")


def _question_row(
    qid: str, sfid: str, bindings: dict, fmt: str, gold: dict, fp: bool, mm: bool, lang: str
) -> dict:
    text = TEXT[lang].format(name=qid)
    return {
        "question_id": qid,
        "lang": lang,
        "kg": "worldkg",
        "sfid": sfid,
        "tid": f"{sfid}01",
        "sub_template_id": f"{sfid}01.1",
        "variant_id": f"{sfid}01.1.v1",
        "text": text,
        "text_marked": text.replace(qid, "{" + qid + "}"),
        "answer_format": fmt,
        "gold": json.dumps(gold),
        "gold_aliases": json.dumps(["Central Cafe"]) if qid == "q1" else None,
        "unit": "km" if fmt == "distance" else None,
        "bindings": json.dumps(bindings, sort_keys=True),
        "parameters": json.dumps({"value": 5}) if qid == "q2" else None,
        "executor": "distance@1",
        "query": f"SELECT 1 -- {qid}",
        "gold_triples": json.dumps([["wkg:1", "rdfs:label", "Café Central"]], ensure_ascii=False),
        "entity_subjects": json.dumps({"worldkg:1": "wkg:1"}),
        "false_premise": fp,
        "perturbation": json.dumps({"kind": "swap"}) if fp else None,
        "multimodal": mm,
        "image_url": "https://example.org/cafe.jpg" if mm else None,
        "image_role": "entity_A" if mm else None,
        "stratum": "UMC/high",
        "income_tier": "UMC",
        "density_tier": "high",
        "country_iso3": "BRA",
        "snapshot_ids": [KG_SNAP],
        "code_version": "0.1.0",
        "run_id": f"run-{lang}-{qid}",
        "template_text": TEXT[lang],
        "template_status": "source" if lang == "eng" else "draft",
        "fallbacks": json.dumps([]),
        "text_marked_localized": text,
        "postedit_decision": "majority" if (lang, qid) == ("fra", "q2") else "none",
        "postedit_edits": json.dumps([]),
    }


def build_warehouse(path: Path, langs: tuple[str, ...] = ("eng", "fra")) -> Path:
    """A tiny warehouse with every table the release reads."""
    with warehouse.session(path) as con:
        warehouse.ensure_schema(con)
        english = [_question_row(*q, lang="eng") for q in QUESTIONS]
        rows = [_question_row(*q, lang=lang) for lang in langs for q in QUESTIONS]
        tables = {
            "questions_en": english,
            "questions_localized": rows,
            "questions_postedited": rows,
        }
        for table, slice_rows in tables.items():
            with registered(con, _q=schema.arrow_table(schema.TABLES[table], slice_rows)):
                con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _q")
        con.executemany(
            "INSERT INTO split_small VALUES (?, 'worldkg', ?)",
            [[q[0], q[1]] for q in QUESTIONS if q[0] in SMALL],
        )
        for eid, name, cat, wkt, kind, lon, lat in ENTITIES:
            con.execute(
                "INSERT INTO entities "
                "VALUES (?, 'worldkg', ?, ?, ?, true, NULL, ?, ['wkgs:X'], "
                "ST_GeomFromText(?), ?, ?, ?, [], NULL, NULL, NULL, NULL, NULL, ?, NULL)",
                [
                    eid,
                    f"http://www.worldkg.org/resource/{eid[8:]}",
                    name,
                    name,
                    cat,
                    wkt,
                    kind,
                    lon,
                    lat,
                    KG_SNAP,
                ],
            )
        con.execute(
            "INSERT INTO snapshots VALUES (?, 'osm_pbf', ?, ?, ?, NULL)",
            [
                SNAP,
                str(path.parent / "in" / SAMPLE_PBF.name),
                SAMPLE_SHA,
                SAMPLE_PBF.stat().st_size,
            ],
        )
        con.execute(
            "INSERT INTO kg_files VALUES ('worldkg', ?, ?, ?, ?, 1000, NULL, 'run-a', 'run-b')",
            [
                KG_SNAP,
                SNAP,
                str(native_path(path.parent / "kg", "worldkg", SNAP)),
                KG_SHA,
            ],
        )
        con.executemany(
            "INSERT INTO template_translations "
            "VALUES (?, 'A01.1.v1', 'A01.1', 'src', 'txt', ?, 'draft', '[]', false)",
            [["eng", "source"], ["fra", "memory"]],
        )
    return path


def build_release(db: Path, release_dir: Path) -> dict:
    with warehouse.session(db) as con:
        infos = [export.write_language(con, release_dir, lang) for lang in ("eng", "fra")]
        site = sites.write_entity_sites(con, release_dir / sites.SITES_FILE)
        result = card.write_release_card(con, release_dir)
    return {"langs": infos, "sites": site, "card": result}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("release")
    db = build_warehouse(root / "wh" / "warehouse.duckdb")
    out = build_release(db, root / "release")
    return {"db": db, "dir": root / "release", "root": root, **out}


def _copy(built: dict, tmp_path: Path) -> Path:
    return Path(shutil.copytree(built["dir"], tmp_path / "copy"))


# ---------------------------------------------------------------------------------------- questions
def test_write_language_summary_and_files(built):
    fra = built["langs"][1]
    assert fra["lang"] == "fra" and fra["files"] == {
        "large": "data/fra/large.parquet",
        "small": "data/fra/small.parquet",
    }
    assert fra["rows"] == {"large": 3, "small": 2}
    assert (fra["false_premise"], fra["multimodal"], fra["edited"]) == (1, 1, 1)
    assert built["langs"][0]["edited"] == 0
    for split, rel in fra["files"].items():
        table = pq.read_table(built["dir"] / rel)
        assert table.schema.remove_metadata().equals(export.RELEASE_SCHEMA)
        assert [n for n, _ in export.RELEASE_COLUMNS] == table.column_names
        unreleased = {"run_id", "image_role", "template_text", "text_marked_localized"}
        assert not unreleased & set(table.column_names)
        assert pq.read_metadata(built["dir"] / rel).metadata.get(b"pandas") is None
        assert sha256_file(built["dir"] / rel) == fra["sha256"][split]
    large = pq.read_table(built["dir"] / "data/fra/large.parquet").to_pylist()
    assert [r["question_id"] for r in large] == ["q1", "q2", "q3"]
    assert [
        r["question_id"] for r in pq.read_table(built["dir"] / "data/fra/small.parquet").to_pylist()
    ] == list(SMALL)
    q1 = large[0]
    assert q1["lang"] == "fra" and q1["text"].startswith("À quelle distance")
    assert (
        json.loads(q1["gold"]) == {"value": 1.234}
        and json.loads(q1["bindings"])["entity_B"] == "worldkg:100"
    )
    assert (
        q1["snapshot_ids"] == [KG_SNAP]
        and q1["false_premise"] is False
        and q1["perturbation"] is None
    )


def test_unknown_language_and_empty_slice(built):
    with warehouse.session(built["db"]) as con:
        with pytest.raises(ValueError, match="unknown language"):
            export.release_tables(con, "xx")
        with pytest.raises(RuntimeError, match=r"questions_postedited\[deu\]"):
            export.write_language(con, built["root"] / "empty", "deu")
    assert not (built["root"] / "empty").exists()


def test_load_with_datasets(built, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    import datasets

    fra = datasets.load_dataset(str(built["dir"]), "fra", cache_dir=str(tmp_path / "hf"))
    assert set(fra) == {"large", "small"}
    assert (fra["large"].num_rows, fra["small"].num_rows) == (3, 2)
    assert fra["large"].column_names == [n for n, _ in export.RELEASE_COLUMNS]
    assert fra["small"]["question_id"] == list(SMALL)
    assert fra["large"]["text"] == [TEXT["fra"].format(name=q) for q in ("q1", "q2", "q3")]
    assert fra["large"]["snapshot_ids"][0] == [KG_SNAP]
    eng = datasets.load_dataset(str(built["dir"]), "eng", cache_dir=str(tmp_path / "hf"))
    assert (eng["large"].num_rows, eng["small"].num_rows) == (3, 2)
    assert eng["small"]["text"] == [TEXT["eng"].format(name=q) for q in SMALL]


def test_rebuild_is_byte_identical(built, tmp_path):
    other = tmp_path / "again"
    build_release(built["db"], other)
    sums = (built["dir"] / card.SUMS_FILE).read_text()
    assert (other / card.SUMS_FILE).read_text() == sums
    files = card.release_files(built["dir"])
    assert files == card.release_files(other)
    assert set(files) == {
        "ATTRIBUTION.md",
        "README.md",
        "entity_sites.parquet",
        "data/eng/large.parquet",
        "data/eng/small.parquet",
        "data/fra/large.parquet",
        "data/fra/small.parquet",
    }
    for rel in files + [card.SUMS_FILE]:
        assert (other / rel).read_bytes() == (built["dir"] / rel).read_bytes(), rel
    assert not [p for p in other.rglob("*") if p.name.startswith(".")]  # no temp file left behind


# --------------------------------------------------------------------------------------------- card
def test_card_front_matter_and_body(built):
    text = (built["dir"] / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    assert meta == card.card_metadata(text)
    assert meta["license"] == "odbl" and meta["language"] == ["en", "fr"]
    assert meta["task_categories"] == ["question-answering"] and meta["size_categories"] == ["n<1K"]
    assert [c["config_name"] for c in meta["configs"]] == ["eng", "fra"]
    assert meta["configs"][0]["default"] is True and "default" not in meta["configs"][1]
    assert meta["configs"][1]["data_files"] == [
        {"split": "large", "path": "data/fra/large.parquet"},
        {"split": "small", "path": "data/fra/small.parquet"},
    ]
    assert built["card"]["languages"] == ["eng", "fra"] and built["card"]["files"] == 7
    body = text.split("---\n", 2)[2]
    for needle in (
        "| `gold_triples` |",
        "| `fra` | French | 3 | 2 | 1 | 1 | 33.3% |",
        'load_dataset("path/to/this/folder", "fra")',
        "mgqa lineage <question_id>",
        KG_SNAP,
        KG_SHA,
        SAMPLE_SHA,
        "mgqa-sample.osm.pbf",
        "OpenStreetMap contributors",
        "WorldKG",
        "OSMH3KG",
        "KnowWhereGraph",
        "translation memory",
        "MultiGlobeQA",
        "CC BY 4.0",
        "3 entities (1 line, 1 point, 1 polygon)",
        "The multimodal questions (1 per language)",
        "must be fetched before a multimodal evaluation",
        "`mgqa images fetch --release-dir <this folder>`",
    ):
        assert needle in body, needle
    assert str(built["root"]) not in text and "/wh/" not in text  # no absolute paths
    assert (built["dir"] / "ATTRIBUTION.md").read_text(encoding="utf-8") == (
        SAMPLE_DIR / "ATTRIBUTION.md"
    ).read_text(encoding="utf-8")
    lines = (built["dir"] / card.SUMS_FILE).read_text().splitlines()
    assert [line.split("  ", 1)[1] for line in lines] == sorted(
        line.split("  ", 1)[1] for line in lines
    )
    assert all(len(line.split("  ", 1)[0]) == 64 for line in lines)


def test_card_lists_only_complete_languages(built, tmp_path):
    release = _copy(built, tmp_path)
    (release / "data/fra/small.parquet").unlink()
    with warehouse.session(built["db"], read_only=True) as con:
        result = card.write_release_card(con, release)
    assert result["languages"] == ["eng"]
    meta = card.card_metadata((release / "README.md").read_text(encoding="utf-8"))
    assert [c["config_name"] for c in meta["configs"]] == ["eng"]


# ------------------------------------------------------------------------------------- verification
def test_verify_good_release(built):
    assert card.verify_release(built["dir"]) == []


def test_verify_deleted_split(built, tmp_path):
    release = _copy(built, tmp_path)
    (release / "data/fra/small.parquet").unlink()
    problems = card.verify_release(release)
    assert any("config fra: small file data/fra/small.parquet is missing" in p for p in problems), (
        problems
    )
    assert any(
        "data/fra/small.parquet is missing" in p and p.startswith(card.SUMS_FILE) for p in problems
    ), problems


def test_verify_altered_file(built, tmp_path):
    release = _copy(built, tmp_path)
    with open(release / "ATTRIBUTION.md", "a", encoding="utf-8") as f:
        f.write("tampered\n")
    assert card.verify_release(release) == [
        f"{card.SUMS_FILE}: ATTRIBUTION.md does not match its sha256"
    ]


def test_verify_small_not_subset_and_duplicates(built, tmp_path):
    release = _copy(built, tmp_path)
    small = pq.read_table(release / "data/eng/small.parquet")
    stray = small.slice(0, 1).set_column(0, "question_id", pa.array(["q9"], pa.string()))
    export.write_table(
        pa.concat_tables([small, stray, small.slice(0, 1)]), release / "data/eng/small.parquet"
    )
    (release / card.SUMS_FILE).write_text(card.sha256sums(release))
    problems = card.verify_release(release)
    assert "config eng: 1 small question ids not in large (e.g. q9)" in problems, problems
    assert "data/eng/small.parquet: duplicate question_id" in problems, problems
    assert len(problems) == 2, problems


def test_verify_wrong_schema_and_unlisted_file(built, tmp_path):
    release = _copy(built, tmp_path)
    table = pq.read_table(release / "data/fra/large.parquet").drop_columns(["postedit_edits"])
    pq.write_table(table, release / "data/fra/large.parquet")
    (release / "notes.txt").write_text("x")
    problems = card.verify_release(release)
    assert "data/fra/large.parquet: schema differs from the release schema" in problems
    assert f"{card.SUMS_FILE}: notes.txt is not listed" in problems
    assert f"{card.SUMS_FILE}: data/fra/large.parquet does not match its sha256" in problems


# ------------------------------------------------------------------------------------- entity sites
def test_entity_sites_geoparquet(built, tmp_path):
    path = built["dir"] / sites.SITES_FILE
    assert b"geo" in pq.read_metadata(path).metadata
    geo = json.loads(pq.read_metadata(path).metadata[b"geo"])
    assert geo["primary_column"] == "geometry"
    gdf = gpd.read_parquet(path)
    assert gdf.crs.to_epsg() == 4326
    assert gdf["entity_id"].tolist() == [
        "worldkg:1",
        "worldkg:100",
        "worldkg:101",
    ]  # worldkg:4 is never bound
    assert gdf.geom_type.tolist() == ["Point", "LineString", "Polygon"]
    assert gdf["geom_kind"].tolist() == ["point", "line", "polygon"]
    assert list(gdf.columns) == [*sites.SITE_COLUMNS, "geometry"]
    assert gdf.geometry.iloc[0].x == pytest.approx(-51.22) and gdf["name"].iloc[0] == "Café Central"
    assert built["sites"]["rows"] == 3 and built["sites"]["missing"] == 0
    assert built["sites"]["geom_kinds"] == {"line": 1, "point": 1, "polygon": 1}
    with warehouse.session(built["db"], read_only=True) as con:
        again = sites.write_entity_sites(con, tmp_path / "sites.parquet")
    assert again["sha256"] == built["sites"]["sha256"]
    assert (tmp_path / "sites.parquet").read_bytes() == path.read_bytes()


def test_bound_entity_ids_skips_literals():
    got = sites.bound_entity_ids(
        ['{"a": "worldkg:2", "b": "5", "c": ["kwg:x", "y"]}', None, '{"a": "worldkg:1"}']
    )
    assert got == ["kwg:x", "worldkg:1", "worldkg:2"]


# ----------------------------------------------------------------------------------- Dagster assets
def test_release_assets_and_their_checks(tmp_path, monkeypatch):
    """release_questions per language partition, then release_card: files written where
    MGQA_RELEASE_DIR says, every check evaluated; a tampered file fails the per-language check."""
    import dagster as dg

    from mgqa_dagster.assets.release import release_card, release_questions
    from mgqa_dagster.data_quality import release as release_checks
    from mgqa_dagster.data_quality.checks import bound
    from mgqa_dagster.resources.paths import PathsResource
    from mgqa_dagster.resources.warehouse import WarehouseResource

    db = build_warehouse(tmp_path / "wh" / "warehouse.duckdb")
    out = tmp_path / "rel"
    monkeypatch.setenv("MGQA_RELEASE_DIR", str(out))  # read as the run initializes the resources
    paths = PathsResource(home=str(tmp_path), warehouse=str(db))
    res = {"paths": paths, "warehouse": WarehouseResource(paths=paths)}
    results = [
        dg.materialize([release_questions], partition_key=lang, resources=res, raise_on_error=False)
        for lang in ("eng", "fra")
    ]
    results.append(dg.materialize([release_card], resources=res, raise_on_error=False))
    assert all(r.success for r in results)
    checks: dict[str, list[bool]] = {}
    for r in results:
        for e in r.all_events:
            if e.event_type_value == "ASSET_CHECK_EVALUATION":
                checks.setdefault(e.asset_check_evaluation_data.check_name, []).append(
                    e.asset_check_evaluation_data.passed
                )
    assert checks == {
        "release_matches_warehouse": [True, True],
        "release_same_questions_as_english": [True, True],
        "rows_not_shrunk": [True, True],
        "release_files_match_warehouse": [True],
        "release_verified": [True],
        "entity_sites_cover_bindings": [True],
        "release_all_languages": [False],
    }  # 2 of the 17 languages: a warning, the run still succeeds
    assert (out / "README.md").exists() and (out / "data" / "fra" / "small.parquet").exists()
    (mat,) = results[-1].asset_materializations_for_node("release_card")
    assert (
        mat.metadata["languages"].value == ["eng", "fra"]
        and mat.metadata["entity_sites"].value == 3
    )
    # a release file that no longer matches the warehouse
    with warehouse.session(db) as con:
        con.execute(
            "UPDATE questions_postedited SET text = 'changed' "
            "WHERE lang = 'fra' AND question_id = 'q1'"
        )
        by_name = {c.name: c for c in bound(release_checks.RELEASE_QUESTION_CHECKS, root=out)}
        r = by_name["release_matches_warehouse"].run(con, "fra")
    assert r.passed is False and "q1" in r.metadata["mismatched"].value
