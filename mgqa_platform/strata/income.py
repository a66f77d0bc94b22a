"""World Bank income classification: loaders for its three published shapes, and the unclassified
policy.

Every loader returns the same table, a pandas DataFrame with one row per economy, ordered by
``iso3``:

=============  =================================================================================
``iso3``       World Bank economy code (ISO 3166-1 alpha-3 for most; ``XKX`` Kosovo, ``CHI`` Channel
Islands) ``name``       the World Bank's economy name (``'Venezuela, RB'``) ``income_tier``
``'LIC'`` | ``'LMC'`` | ``'UMC'`` | ``'HIC'``; ``None`` when the economy is not classified
``income_group`` the group's text (``'Low income'`` ...; ``'Not classified'`` when ``income_tier``
is None) ``fiscal_year`` the World Bank fiscal year the tier belongs to (``'FY2026'`` = the July
2025 release) ``source``     where the row comes from (``'World Bank FY2026
(wb_income_fy2026.csv)'``) ``note``       why the tier is missing or came from a fallback; ``None``
for a plain classified row
=============  =================================================================================

Aggregates (``WLD``, regions, income groups, lending groups) are never rows of the table.

The fiscal year is not part of the World Bank files themselves: it is given explicitly, or read from
``FY<yyyy>`` in the first line of a ``SOURCE.txt`` next to the file, or from the file name.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Literal

import pandas as pd

from mgqa_platform.errors import InputError
from mgqa_platform.settings import PACKAGE_DATA

#: Income tiers, poorest first.
TIERS: tuple[str, ...] = ("LIC", "LMC", "UMC", "HIC")
#: The World Bank's text for each tier (as in CLASS.xlsx and the API's ``incomeLevel.value``).
TIER_GROUPS: dict[str, str] = {
    "LIC": "Low income",
    "LMC": "Lower middle income",
    "UMC": "Upper middle income",
    "HIC": "High income",
}
#: Group text -> tier (lower-cased keys).
GROUP_TIERS: dict[str, str] = {v.lower(): k for k, v in TIER_GROUPS.items()}
#: The World Bank's code and text for an economy that is not classified.
UNCLASSIFIED_CODE = "INX"
UNCLASSIFIED_GROUP = "Not classified"
#: Codes of the World Bank's aggregate rows (regions, income and lending groups, WLD), never
#: economies.
WB_AGGREGATE_CODES: frozenset[str] = frozenset(
    "AFE AFW ARB CEB CSS EAP EAR EAS ECA ECS EMU EUU FCS HIC HPC IBD IBT IDA IDB IDX INX "
    "LAC LCN LDC LIC LMC "
    "LMY LTE MEA MIC MNA NAC OED OSS PRE PSS PST SAS SSA SSF SST TEA TEC TLA TMN TSA TSS "
    "UMC WLD".split()
)
#: Columns of the income table, in order.
COLUMNS: tuple[str, ...] = (
    "iso3",
    "name",
    "income_tier",
    "income_group",
    "fiscal_year",
    "source",
    "note",
)
#: The bundled previous-year classifications for economies unclassified in the current year.
PREVIOUS_CSV = PACKAGE_DATA / "wb_income_previous.csv"

UnclassifiedPolicy = Literal["previous", "exclude"]

_FY = re.compile(r"FY\s?(\d{4})", re.IGNORECASE)
_ISO3 = re.compile(r"^[A-Z0-9]{3}$")


class IncomeTableError(InputError):
    """An income classification file that does not give one valid row per economy."""


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------
def fiscal_year_of(path: str | Path, fiscal_year: str | None = None) -> str:
    """The fiscal year of a classification file as ``'FY2026'``.

    ``fiscal_year`` wins when given; else ``FY<yyyy>`` in the first line of ``SOURCE.txt`` next to
    the file; else ``FY<yyyy>`` in the file name. Raises ``ValueError`` when none says it.
    """
    if fiscal_year is not None:
        m = _FY.fullmatch(fiscal_year.strip())
        if not m:
            raise ValueError(f"fiscal year must look like 'FY2026', got {fiscal_year!r}")
        return f"FY{m.group(1)}"
    path = Path(path)
    source_txt = path.parent / "SOURCE.txt"
    candidates = []
    if source_txt.exists():
        candidates.append(
            source_txt.read_text(encoding="utf-8").splitlines()[0]
            if source_txt.stat().st_size
            else ""
        )
    candidates.append(path.name)
    for text in candidates:
        m = _FY.search(text)
        if m:
            return f"FY{m.group(1)}"
    raise ValueError(
        f"no fiscal year for {path}: pass fiscal_year='FY<yyyy>' "
        "(not in SOURCE.txt nor the file name)"
    )


def tier_from_group(group: str | None) -> str | None:
    """``'Lower middle income'`` -> ``'LMC'``; blank, ``None`` or ``'Not classified'`` -> ``None``.

    Any other text raises ``IncomeTableError`` (a new group name must not silently become
    unclassified).
    """
    text = (group or "").strip()
    if not text or text == ".." or text.lower() == UNCLASSIFIED_GROUP.lower():
        return None
    try:
        return GROUP_TIERS[text.lower()]
    except KeyError:
        raise IncomeTableError(
            f"unknown income group {group!r}; expected one of {list(TIER_GROUPS.values())}"
        ) from None


def tier_from_code(code: str | None) -> str | None:
    """``'LMC'`` -> ``'LMC'``; ``'INX'``, blank or ``None`` -> ``None``; anything else raises
    ``IncomeTableError``."""
    text = (code or "").strip().upper()
    if not text or text == UNCLASSIFIED_CODE:
        return None
    if text not in TIERS:
        raise IncomeTableError(
            f"unknown income code {code!r}; expected one of {list(TIERS)} or {UNCLASSIFIED_CODE}"
        )
    return text


def _frame(rows: list[dict]) -> pd.DataFrame:
    """The income table from row dicts: fills ``income_group`` and ``note`` defaults, orders by
    iso3."""
    for r in rows:
        r["income_group"] = (
            TIER_GROUPS[r["income_tier"]] if r["income_tier"] is not None else UNCLASSIFIED_GROUP
        )
    df = pd.DataFrame(rows, columns=list(COLUMNS), dtype=object)
    return df.sort_values("iso3", kind="stable").reset_index(drop=True)


def validate_income(df: pd.DataFrame) -> pd.DataFrame:
    """Check the income table and return it unchanged.

    Raises ``IncomeTableError`` for: missing columns, an iso3 that is not three upper-case letters
    or digits, duplicated iso3 (all listed), a tier outside ``TIERS``, or a fiscal year not like
    ``FY2026``.
    """
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise IncomeTableError(f"income table lacks columns {missing}")
    bad_codes = sorted({str(c) for c in df["iso3"] if not isinstance(c, str) or not _ISO3.match(c)})
    if bad_codes:
        raise IncomeTableError(f"invalid iso3 codes: {bad_codes}")
    dup = sorted(df.loc[df["iso3"].duplicated(keep=False), "iso3"].unique())
    if dup:
        raise IncomeTableError(f"duplicate iso3 in the income table: {', '.join(dup)}")
    bad_tiers = sorted({str(t) for t in df["income_tier"] if t is not None and t not in TIERS})
    if bad_tiers:
        raise IncomeTableError(f"income tiers outside {list(TIERS)}: {bad_tiers}")
    bad_fy = sorted(
        {
            str(y)
            for y in df["fiscal_year"]
            if not isinstance(y, str) or not re.fullmatch(r"FY\d{4}", y)
        }
    )
    if bad_fy:
        raise IncomeTableError(f"invalid fiscal years: {bad_fy}")
    return df


# --------------------------------------------------------------------------------------------------
# loaders
# --------------------------------------------------------------------------------------------------
def _require_columns(path: Path | str, header: list[str] | None, expected: tuple[str, ...]) -> None:
    """Raise ``IncomeTableError`` naming the file, the missing and the expected columns when the CSV
    header (read with any UTF-8 BOM stripped) lacks one of ``expected``."""
    found = list(header or [])
    missing = [c for c in expected if c not in found]
    if missing:
        raise IncomeTableError(
            f"{path}: missing column(s) {', '.join(missing)}; expected {', '.join(expected)} "
            f"(found: {', '.join(found) or 'no header'})"
        )


def load_bundled_csv(path: str | Path, fiscal_year: str | None = None) -> pd.DataFrame:
    """The bundled CSV (``data/sample/worldbank/wb_income_fy2026.csv``):
    ``iso3,name,income_code,income_group,...``.

    ``income_code`` is the API's ``incomeLevel.id`` (``INX`` = not classified). Aggregates are
    already dropped in that file; any aggregate code still present is skipped.
    """
    path = Path(path)
    fy = fiscal_year_of(path, fiscal_year)
    source = f"World Bank {fy} ({path.name})"
    rows = []
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        _require_columns(path, reader.fieldnames, ("iso3", "name", "income_code"))
        for rec in reader:
            code = rec["iso3"].strip()
            if code in WB_AGGREGATE_CODES:
                continue
            rows.append(
                {
                    "iso3": code,
                    "name": rec["name"].strip(),
                    "income_tier": tier_from_code(rec["income_code"]),
                    "fiscal_year": fy,
                    "source": source,
                    "note": None,
                }
            )
    return validate_income(_frame(rows))


def load_class_xlsx(path: str | Path, fiscal_year: str | None = None) -> pd.DataFrame:
    """The official ``CLASS.xlsx``: sheet ``'List of economies'`` with ``Economy, Code, Region,
    Income group``.

    The header row is found by its ``Economy`` and ``Code`` cells (extra columns are ignored). Rows
    without a Region are the aggregates listed below the economies and are skipped, as are aggregate
    codes. A blank Income group means not classified.
    """
    from openpyxl import load_workbook  # only this loader needs it

    path = Path(path)
    fy = fiscal_year_of(path, fiscal_year)
    source = f"World Bank {fy} ({path.name})"
    wb = load_workbook(path, read_only=True, data_only=True)
    try:
        if "List of economies" not in wb.sheetnames:
            raise IncomeTableError(
                f"{path}: no sheet 'List of economies' (sheets: {wb.sheetnames})"
            )
        cols: dict[str, int] | None = None
        rows = []
        for values in wb["List of economies"].iter_rows(values_only=True):
            cells = ["" if v is None else str(v).strip() for v in values]
            if cols is None:
                if "Economy" in cells and "Code" in cells:
                    cols = {name: cells.index(name) for name in cells if name}
                    missing = [
                        c for c in ("Economy", "Code", "Region", "Income group") if c not in cols
                    ]
                    if missing:
                        raise IncomeTableError(f"{path}: header lacks {missing}")
                continue
            code, region = cells[cols["Code"]], cells[cols["Region"]]
            if not code or not region or code in WB_AGGREGATE_CODES:
                continue
            rows.append(
                {
                    "iso3": code,
                    "name": cells[cols["Economy"]],
                    "fiscal_year": fy,
                    "source": source,
                    "income_tier": tier_from_group(cells[cols["Income group"]]),
                    "note": None,
                }
            )
        if cols is None:
            raise IncomeTableError(f"{path}: no header row with 'Economy' and 'Code'")
    finally:
        wb.close()
    return validate_income(_frame(rows))


def load_api_json(path: str | Path, fiscal_year: str | None = None) -> pd.DataFrame:
    """The World Bank API country list (``/v2/country?format=json&per_page=400``) saved as JSON.

    Shape: ``[{page metadata}, [{"id", "name", "region": {"value"}, "incomeLevel": {"id"}}, ...]]``.
    Rows whose region is ``'Aggregates'`` (or whose id is an aggregate code) are skipped;
    ``incomeLevel.id == 'INX'`` means not classified. A file holding only part of the pages raises.
    """
    path = Path(path)
    fy = fiscal_year_of(path, fiscal_year)
    source = f"World Bank {fy} ({path.name})"
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not (
        isinstance(data, list)
        and len(data) == 2
        and isinstance(data[0], dict)
        and isinstance(data[1], list)
    ):
        raise IncomeTableError(f"{path}: expected the API's [metadata, [countries]] list")
    meta, countries = data
    if int(meta.get("pages", 1) or 1) > 1:
        raise IncomeTableError(
            f"{path}: page {meta.get('page')} of {meta.get('pages')}; request per_page=400"
        )
    rows = []
    for c in countries:
        region = ((c.get("region") or {}).get("value") or "").strip()
        code = (c.get("id") or "").strip()
        if region == "Aggregates" or code in WB_AGGREGATE_CODES:
            continue
        rows.append(
            {
                "iso3": code,
                "name": (c.get("name") or "").strip(),
                "fiscal_year": fy,
                "source": source,
                "income_tier": tier_from_code((c.get("incomeLevel") or {}).get("id")),
                "note": None,
            }
        )
    return validate_income(_frame(rows))


def load_income(path: str | Path, fiscal_year: str | None = None) -> pd.DataFrame:
    """Load a classification file by its extension: ``.csv`` (bundled), ``.xlsx`` (CLASS.xlsx),
    ``.json`` (API).

    Every loader validates (unique iso3, tiers within ``TIERS``); other extensions raise
    ``ValueError``.
    """
    suffix = Path(path).suffix.lower()
    loaders = {".csv": load_bundled_csv, ".xlsx": load_class_xlsx, ".json": load_api_json}
    if suffix not in loaders:
        raise ValueError(
            f"unsupported income classification file {path}: expected .csv, .xlsx or .json"
        )
    return loaders[suffix](path, fiscal_year)


def load_previous(path: str | Path = PREVIOUS_CSV) -> pd.DataFrame:
    """Earlier classifications for economies unclassified now:
    ``iso3,name,income_code,fiscal_year,source``.

    Each row carries its own fiscal year and provenance (the bundled file documents where each comes
    from).
    """
    rows = []
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        _require_columns(
            path, reader.fieldnames, ("iso3", "name", "income_code", "fiscal_year", "source")
        )
        for rec in reader:
            rows.append(
                {
                    "iso3": rec["iso3"].strip(),
                    "name": rec["name"].strip(),
                    "income_tier": tier_from_code(rec["income_code"]),
                    "fiscal_year": rec["fiscal_year"].strip(),
                    "source": rec["source"].strip(),
                    "note": None,
                }
            )
    return validate_income(_frame(rows))


# --------------------------------------------------------------------------------------------------
# unclassified economies
# --------------------------------------------------------------------------------------------------
def apply_unclassified_policy(
    df: pd.DataFrame, policy: UnclassifiedPolicy, previous: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Decide the tier of economies that the current table leaves unclassified; returns a new table.

    * ``'exclude'``: their tier stays ``None``; note ``"not classified in FY2026"``.
    * ``'previous'``: the tier comes from ``previous`` (default: the bundled :data:`PREVIOUS_CSV`),
      with that row's ``fiscal_year`` and ``source`` and the note ``"not classified in FY2026;
      FY2025 classification used"``; an economy without a previous tier keeps ``None`` with the note
      ``"not classified in FY2026; no earlier classification available"``.

    Classified rows are returned unchanged. The current fiscal year in the notes is the row's own.
    """
    if policy not in ("previous", "exclude"):
        raise ValueError(f"unclassified policy must be 'previous' or 'exclude', got {policy!r}")
    out = validate_income(df).copy()
    if policy == "previous":
        prev = validate_income(load_previous() if previous is None else previous)
        prev = prev[prev["income_tier"].notna()].set_index("iso3")
    for i in out.index[out["income_tier"].isna()]:
        now = out.at[i, "fiscal_year"]
        note = f"not classified in {now}"
        if policy == "previous":
            code = out.at[i, "iso3"]
            if code in prev.index:
                p = prev.loc[code]
                out.at[i, "income_tier"] = p["income_tier"]
                out.at[i, "income_group"] = TIER_GROUPS[p["income_tier"]]
                out.at[i, "fiscal_year"] = p["fiscal_year"]
                out.at[i, "source"] = p["source"]
                note += f"; {p['fiscal_year']} classification used"
            else:
                note += "; no earlier classification available"
        out.at[i, "note"] = note
    return out


def tier_counts(df: pd.DataFrame) -> dict[str | None, int]:
    """Economies per tier, in ``TIERS`` order, then ``None`` (unclassified)."""
    counts: dict[str | None, int] = {t: int((df["income_tier"] == t).sum()) for t in TIERS}
    counts[None] = int(df["income_tier"].isna().sum())
    return counts
