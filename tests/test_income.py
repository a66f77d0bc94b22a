"""World Bank income loaders (bundled CSV, CLASS.xlsx, API JSON), validation and the unclassified
policy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import openpyxl
import pytest

from mgqa_platform.settings import SAMPLE_DIR
from mgqa_platform.strata import income

BUNDLED = SAMPLE_DIR / "worldbank" / "wb_income_fy2026.csv"


def by_iso3(df) -> dict[str, dict]:
    return {r["iso3"]: r for r in df.to_dict("records")}


# --------------------------------------------------------------------------------------------------
# bundled CSV
# --------------------------------------------------------------------------------------------------
def test_bundled_csv_has_all_four_tiers_and_two_unclassified():
    df = income.load_income(BUNDLED)
    assert list(df.columns) == list(income.COLUMNS)
    assert income.tier_counts(df) == {
        "LIC": 25,
        "LMC": 50,
        "UMC": 54,
        "HIC": 86,
        None: 2,
    }  # as SOURCE.txt counts
    rows = by_iso3(df)
    assert {k for k, r in rows.items() if r["income_tier"] is None} == {"ETH", "VEN"}
    assert rows["ETH"]["income_group"] == "Not classified"
    assert (rows["NAM"]["income_tier"], rows["CRI"]["income_tier"]) == (
        "LMC",
        "HIC",
    )  # July-2025 changes
    assert rows["AFG"]["income_group"] == "Low income"
    assert set(df["fiscal_year"]) == {"FY2026"}  # read from SOURCE.txt next to the file
    assert set(df["source"]) == {"World Bank FY2026 (wb_income_fy2026.csv)"}
    assert df["iso3"].is_monotonic_increasing and df["iso3"].is_unique


def test_duplicate_iso3_raises_with_the_codes(tmp_path: Path):
    lines = BUNDLED.read_text(encoding="utf-8").splitlines()
    dup = tmp_path / "wb_income_fy2026.csv"
    dup.write_text(
        "\n".join(lines + [lines[2], lines[1]]) + "\n", encoding="utf-8"
    )  # AFG and ABW again
    with pytest.raises(
        income.IncomeTableError, match="duplicate iso3 in the income table: ABW, AFG"
    ):
        income.load_income(dup)


def test_unknown_income_code_and_extension_raise(tmp_path: Path):
    bad = tmp_path / "FY2026.csv"
    bad.write_text(
        "iso3,name,income_code,income_group\nAAA,Nowhere,MIC,Middle income\n", encoding="utf-8"
    )
    with pytest.raises(income.IncomeTableError, match="unknown income code 'MIC'"):
        income.load_income(bad)
    with pytest.raises(ValueError, match=r"expected \.csv, \.xlsx or \.json"):
        income.load_income(tmp_path / "CLASS.xls")


def test_fiscal_year_needs_a_source(tmp_path: Path):
    plain = tmp_path / "income.csv"
    shutil.copy(BUNDLED, plain)
    with pytest.raises(ValueError, match="no fiscal year"):
        income.load_income(plain)
    assert set(income.load_income(plain, fiscal_year="FY2026")["fiscal_year"]) == {"FY2026"}
    with pytest.raises(ValueError, match="must look like"):
        income.load_income(plain, fiscal_year="2026")


# --------------------------------------------------------------------------------------------------
# CLASS.xlsx
# --------------------------------------------------------------------------------------------------
CLASS_ROWS = [
    ("Economy", "Code", "Region", "Income group", "Lending category"),
    ("Afghanistan", "AFG", "South Asia", "Low income", "IDA"),
    ("Brazil", "BRA", "Latin America & Caribbean", "Upper middle income", "IBRD"),
    ("Ethiopia", "ETH", "Sub-Saharan Africa", None, "IDA"),
    ("Finland", "FIN", "Europe & Central Asia", "High income", None),
    ("India", "IND", "South Asia", "Lower middle income", "IBRD"),
    ("Venezuela, RB", "VEN", "Latin America & Caribbean", None, "IBRD"),
    (None, None, None, None, None),
    ("World", "WLD", None, None, None),
    ("East Asia & Pacific", "EAS", None, None, None),
    ("Low income", "LIC", None, None, None),
]


def write_class_xlsx(path: Path, rows=CLASS_ROWS) -> Path:
    """A CLASS.xlsx shaped like the World Bank's: the economies, a blank row, then aggregates
    without a Region."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "List of economies"
    for row in rows:
        ws.append(list(row))
    notes = wb.create_sheet("Notes")
    notes.append(
        [
            "Economies are divided into four income groupings: low, lower-middle, "
            "upper-middle, and high."
        ]
    )
    wb.save(path)
    return path


def test_class_xlsx(tmp_path: Path):
    path = write_class_xlsx(tmp_path / "CLASS.xlsx")
    df = income.load_income(path, fiscal_year="FY2026")
    rows = by_iso3(df)
    assert list(rows) == [
        "AFG",
        "BRA",
        "ETH",
        "FIN",
        "IND",
        "VEN",
    ]  # aggregates below the economies dropped
    assert {k: r["income_tier"] for k, r in rows.items()} == {
        "AFG": "LIC",
        "BRA": "UMC",
        "ETH": None,
        "FIN": "HIC",
        "IND": "LMC",
        "VEN": None,
    }
    assert (
        rows["VEN"]["name"] == "Venezuela, RB" and rows["VEN"]["income_group"] == "Not classified"
    )
    assert set(df["source"]) == {"World Bank FY2026 (CLASS.xlsx)"}
    with pytest.raises(ValueError, match="no fiscal year"):
        income.load_class_xlsx(path)  # CLASS.xlsx does not say its fiscal year
    named = write_class_xlsx(tmp_path / "CLASS_FY2026.xlsx")
    assert set(income.load_class_xlsx(named)["fiscal_year"]) == {"FY2026"}


def test_class_xlsx_rejects_unknown_group_and_duplicates(tmp_path: Path):
    odd = CLASS_ROWS[:2] + [("Brazil", "BRA", "Latin America & Caribbean", "Middle income", "IBRD")]
    with pytest.raises(income.IncomeTableError, match="unknown income group 'Middle income'"):
        income.load_class_xlsx(write_class_xlsx(tmp_path / "odd.xlsx", odd), fiscal_year="FY2026")
    twice = CLASS_ROWS[:3] + [CLASS_ROWS[2]]
    with pytest.raises(income.IncomeTableError, match="duplicate iso3 in the income table: BRA"):
        income.load_income(write_class_xlsx(tmp_path / "twice.xlsx", twice), fiscal_year="FY2026")


# --------------------------------------------------------------------------------------------------
# API JSON
# --------------------------------------------------------------------------------------------------
def api_country(code, iso2, name, region, level_id, level):
    return {
        "id": code,
        "iso2Code": iso2,
        "name": name,
        "region": {
            "id": "NA" if region == "Aggregates" else "LCN",
            "iso2code": "NA",
            "value": region,
        },
        "adminregion": {"id": "", "iso2code": "", "value": ""},
        "incomeLevel": {"id": level_id, "iso2code": "XD", "value": level},
        "lendingType": {"id": "LNX", "iso2code": "XX", "value": "Not classified"},
        "capitalCity": "",
        "longitude": "",
        "latitude": "",
    }


def write_api_json(path: Path, pages: int = 1) -> Path:
    countries = [
        api_country("ABW", "AW", "Aruba", "Latin America & Caribbean ", "HIC", "High income"),
        api_country("AFE", "ZH", "Africa Eastern and Southern", "Aggregates", "NA", "Aggregates"),
        api_country(
            "AFG",
            "AF",
            "Afghanistan",
            "Middle East, North Africa, Afghanistan & Pakistan",
            "LIC",
            "Low income",
        ),
        api_country("ETH", "ET", "Ethiopia", "Sub-Saharan Africa ", "INX", "Not classified"),
        api_country("WLD", "1W", "World", "Aggregates", "NA", "Aggregates"),
    ]
    meta = {
        "page": 1,
        "pages": pages,
        "per_page": "400",
        "total": len(countries),
        "sourceid": None,
        "lastupdated": "2025-07-01",
    }
    path.write_text(json.dumps([meta, countries]), encoding="utf-8")
    return path


def test_api_json(tmp_path: Path):
    df = income.load_income(write_api_json(tmp_path / "country.json"), fiscal_year="FY2026")
    assert {r["iso3"]: r["income_tier"] for r in df.to_dict("records")} == {
        "ABW": "HIC",
        "AFG": "LIC",
        "ETH": None,
    }
    with pytest.raises(income.IncomeTableError, match="page 1 of 2"):
        income.load_api_json(write_api_json(tmp_path / "page1.json", pages=2), fiscal_year="FY2026")


# --------------------------------------------------------------------------------------------------
# unclassified policy
# --------------------------------------------------------------------------------------------------
def test_previous_policy_fills_eth_and_ven_from_the_bundled_table():
    out = by_iso3(income.apply_unclassified_policy(income.load_income(BUNDLED), "previous", None))
    eth, ven = out["ETH"], out["VEN"]
    assert (eth["income_tier"], eth["income_group"], eth["fiscal_year"]) == (
        "LIC",
        "Low income",
        "FY2025",
    )
    assert eth["note"] == "not classified in FY2026; FY2025 classification used"
    assert (ven["income_tier"], ven["fiscal_year"]) == ("UMC", "FY2021")
    assert ven["note"] == "not classified in FY2026; FY2021 classification used"
    assert "July 2021" in ven["source"] and "FY2025" in eth["source"]
    assert out["FIN"]["note"] is None and out["FIN"]["fiscal_year"] == "FY2026"


def test_previous_policy_without_an_earlier_tier_and_exclude_policy():
    df = income.load_income(BUNDLED)
    only_eth = income.load_previous()
    only_eth = only_eth[only_eth["iso3"] == "ETH"]
    out = by_iso3(income.apply_unclassified_policy(df, "previous", only_eth))
    assert out["ETH"]["income_tier"] == "LIC"
    assert out["VEN"]["income_tier"] is None
    assert out["VEN"]["note"] == "not classified in FY2026; no earlier classification available"

    excluded = income.apply_unclassified_policy(df, "exclude", None)
    assert income.tier_counts(excluded)[None] == 2 and excluded["note"].notna().sum() == 2
    eth = by_iso3(excluded)["ETH"]
    assert eth["income_tier"] is None and eth["note"] == "not classified in FY2026"
    with pytest.raises(ValueError, match="'previous' or 'exclude'"):
        income.apply_unclassified_policy(df, "latest", None)  # type: ignore[arg-type]


def test_bundled_previous_table_documents_its_provenance():
    prev = income.load_previous()
    assert by_iso3(prev).keys() == {"ETH", "VEN"}
    assert {r["iso3"]: (r["income_tier"], r["fiscal_year"]) for r in prev.to_dict("records")} == {
        "ETH": ("LIC", "FY2025"),
        "VEN": ("UMC", "FY2021"),
    }
    assert all(s.startswith("World Bank FY") for s in prev["source"])
