"""Bad input never crashes deep in a stack and is never dropped silently (issue 21, item 4).

Each test writes the real bad file into a temporary folder and asserts the clear reason (naming the
file, line or element), that nothing else is lost, and that good data next to it is still served.
"""

from __future__ import annotations

from pathlib import Path

import osmium
import pytest
from osmium.osm import mutable

from mgqa_dagster.data_quality.multilingual import LOCALIZED_CHECKS
from mgqa_platform.kg import osm_reader
from mgqa_platform.kg.convert import convert_kg
from mgqa_platform.marks import mark, unmark
from mgqa_platform.multilingual import instantiate, memory
from mgqa_platform.multilingual.annotations import annotation_file, load_annotations
from mgqa_platform.multilingual.ensemble import spans
from mgqa_platform.question_schema import LOCALIZED_SCHEMA, arrow_table
from mgqa_platform.questions.catalog import default_catalog
from mgqa_platform.strata import income
from mgqa_platform.warehouse import registered
from tests.conftest import write_tiny_pbf
from tests.test_conversion import PREFIXES, quarantine, wkg_node
from tests.test_multilingual import _record


def test_non_finite_and_out_of_range_coordinates_are_quarantined_by_entity(con, tmp_path):
    ttl = tmp_path / "nan.ttl"
    ttl.write_text(
        PREFIXES
        + wkg_node(1, "Good", "POINT(1.5 42.5)")
        + wkg_node(2, "Not a number", "POINT(nan nan)")
        + wkg_node(3, "Infinite", "POINT(inf 42)")
        + wkg_node(4, "Half a line", "LINESTRING(1 42, nan 43)")
        + wkg_node(5, "Negative infinity", "POLYGON((0 0, 1 0, 1 -inf, 0 0))")
        + wkg_node(6, "Past the pole", "POINT(10 91)")
        + wkg_node(7, "Also good", "POINT(1.6 42.6)"),
        encoding="utf-8",
    )
    convert_kg(con, "worldkg", ttl, "s")
    kept = [r[0] for r in con.execute("SELECT entity_id FROM entities ORDER BY 1").fetchall()]
    assert kept == ["worldkg:1", "worldkg:7"]
    q = quarantine(con, "worldkg")
    for i in (2, 3, 4, 5):
        assert ("non_finite_coordinates", f"http://www.worldkg.org/resource/{i}") in q
    assert ("out_of_range", "http://www.worldkg.org/resource/6") in q


def _raw_pbf(path: Path, tags: dict) -> bytes:
    """An uncompressed PBF with one node carrying ``tags``, so its strings can be patched in
    place."""
    w = osmium.SimpleWriter(osmium.io.File(str(path), "pbf,pbf_compression=none"))
    w.add_node(mutable.Node(id=1, version=1, location=(1.5, 42.5), tags=tags))
    w.close()
    return path.read_bytes()


def test_pbf_with_a_string_that_is_not_utf8_names_the_file(tmp_path):
    raw = _raw_pbf(tmp_path / "raw.osm.pbf", {"amenity": "cafe", "name": "QQQQQQQQ"})
    bad = tmp_path / "bad.osm.pbf"
    bad.write_bytes(raw.replace(b"QQQQQQQQ", b"\xff\xfe\xff\xfeQQQQ"))
    with pytest.raises(osm_reader.OsmSnapshotError, match=r"bad\.osm\.pbf.*not valid UTF-8"):
        osm_reader.first_tagged_object(bad)
    assert osm_reader.first_tagged_object(tmp_path / "raw.osm.pbf") == ("n", 1)


def test_pbf_with_corrupt_compressed_data_names_the_file(tmp_path):
    good = write_tiny_pbf(tmp_path / "good.osm.pbf").read_bytes()
    framing_end = 4 + int.from_bytes(good[:4], "big")
    data = bytearray(good)
    for i in range(framing_end + 200, len(data) - 40):  # inside the blobs, past their headers
        data[i] ^= 0x5A
    bad = tmp_path / "corrupt.osm.pbf"
    bad.write_bytes(bytes(data))
    with pytest.raises(osm_reader.OsmSnapshotError, match=r"corrupt\.osm\.pbf"):
        osm_reader.first_tagged_object(bad)


def _wb_csv(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_text(text, encoding=encoding)
    return path


WB_ROWS = (
    "iso3,name,income_code,income_group\n"
    "AND,Andorra,HIC,High income\n"
    "AFG,Afghanistan,LIC,Low income\n"
)


def test_world_bank_csv_with_an_excel_bom_reads_like_without(tmp_path):
    plain = income.load_bundled_csv(_wb_csv(tmp_path / "plain.csv", WB_ROWS), "FY2026")
    bom = income.load_bundled_csv(_wb_csv(tmp_path / "bom.csv", WB_ROWS, "utf-8-sig"), "FY2026")
    assert (tmp_path / "bom.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    assert list(bom["iso3"]) == list(plain["iso3"]) == ["AFG", "AND"]
    assert list(bom["income_tier"]) == list(plain["income_tier"])


def test_world_bank_csv_missing_a_column_names_the_file_and_the_columns(tmp_path):
    path = _wb_csv(tmp_path / "short.csv", "iso3,name\nAND,Andorra\n")
    with pytest.raises(income.IncomeTableError) as e:
        income.load_bundled_csv(path, "FY2026")
    msg = str(e.value)
    assert "short.csv" in msg and "missing column(s) income_code" in msg
    assert "expected iso3, name, income_code" in msg


ANN_HEADER = "variant_id,annotator,label,corrected,reasons\n"


def test_stray_quote_in_an_annotation_export_quarantines_one_line(tmp_path):
    good = [f"v{i},ann1,Correct,,\n" for i in range(1, 61)]
    stray = 'v0,ann1,Incorrect,"Quelle est la distance,meaning\n'
    path = tmp_path / "fra.csv"
    path.write_text(ANN_HEADER + stray + "".join(good), encoding="utf-8")
    ids = {f"v{i}" for i in range(61)}
    kept, rejected = load_annotations(path, "fra", ids)
    assert [a.variant_id for a in kept] == [f"v{i}" for i in range(1, 61)]
    assert [(r.line, r.reason) for r in rejected] == [(2, "stray_quote")]
    assert "Quelle est la distance" in rejected[0].row["raw"]


def test_quoted_line_breaks_in_an_annotation_export_stay_one_row(tmp_path):
    path = tmp_path / "fra.csv"
    path.write_text(
        ANN_HEADER
        + 'v1,ann1,Incorrect,"Quelle est\nla distance ?",meaning\n'
        + "v2,ann1,Correct,,\n",
        encoding="utf-8",
    )
    kept, rejected = load_annotations(path, "fra", {"v1", "v2"})
    assert rejected == []
    assert [(a.variant_id, a.corrected) for a in kept] == [
        ("v1", "Quelle est la distance ?"),
        ("v2", None),
    ]


def test_both_csv_and_jsonl_exports_are_an_error_naming_both(tmp_path):
    (tmp_path / "fra.csv").write_text(ANN_HEADER, encoding="utf-8")
    (tmp_path / "fra.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"fra\.csv and fra\.jsonl"):
        annotation_file(tmp_path, "fra")
    (tmp_path / "fra.jsonl").unlink()
    assert annotation_file(tmp_path, "fra") == tmp_path / "fra.csv"


def _localized_filled(con):
    (check,) = [c for c in LOCALIZED_CHECKS if c.name == "localized_text_filled"]
    return check.run(con, "fra")


def test_braces_in_a_name_show_literally_and_never_look_like_an_unfilled_slot(con):
    cat = default_catalog()
    variant = cat.sub_template("B01.2").variants[0]
    fr = "Combien de {category_A} se trouvent à moins de {value} km de {entity_B} ?"
    tm = memory.TranslationMemory(
        "fra",
        "draft",
        {},
        categories={"post_office": {"source": "post offices", "text": "bureaux de poste"}},
    )
    record = _record(variant_id=variant.id)
    name = "Bar {Zero} {entity_B}"
    (row,), _ = instantiate.localize(
        [record], "fra", {variant.id: (fr, "unreviewed")}, tm, {"worldkg:1": name}, {}, cat
    )
    assert row["text"].endswith("de Bar {Zero} {entity_B} ?")
    assert spans(row["text_marked"]) == [mark(name)] and unmark(row["text_marked"]) == row["text"]
    with registered(con, _l=arrow_table(LOCALIZED_SCHEMA, [row])):
        con.execute("INSERT INTO questions_localized BY NAME SELECT * FROM _l")
    assert _localized_filled(con).passed
    # a real unfilled slot (a template that escaped its braces) still fails the check
    broken = {**row, "question_id": "q2", "text_marked": row["text_marked"] + " {entity_B}"}
    with registered(con, _l=arrow_table(LOCALIZED_SCHEMA, [broken])):
        con.execute("INSERT INTO questions_localized BY NAME SELECT * FROM _l")
    failed = _localized_filled(con)
    assert not failed.passed and "unfilled_slot" in failed.description
