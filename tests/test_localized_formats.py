"""Dates and units of question parameters as CLDR writes them, one case per language and shape."""

from __future__ import annotations

import datetime as dt

import pytest

from mgqa_platform.languages import TARGETS
from mgqa_platform.multilingual import instantiate, memory

T, N, NB = "\u2009", "\u202f", "\u00a0"  # thin space, narrow no-break space, no-break space

#: "December 2015" (English ``Month YYYY``): CLDR's yMMMM skeleton, never "month year" pasted
MONTH_YEAR = {
    "fra": "décembre 2015",
    "ita": "dicembre 2015",
    "por": "dezembro de 2015",
    "ron": "decembrie 2015",
    "spa": "diciembre de 2015",
    "bul": f"декември 2015{N}г.",
    "rus": f"декабрь 2015{N}г.",
    "deu": "Dezember 2015",
    "urd": "دسمبر 2015",
    "sqi": "dhjetor 2015",
    "ell": "Δεκέμβριος 2015",
    "jpn": "2015年12月",
    "kat": "დეკემბერი, 2015",
    "tur": "Aralık 2015",
    "vie": "tháng 12 năm 2015",
    "zho": "2015年12月",
}
#: "2016-01-01 to 2016-12-31" (a calendar year of whole months): CLDR's month interval
WHOLE_MONTHS = {
    "fra": f"janvier{T}–{T}décembre 2016",
    "ita": "gennaio–dicembre 2016",
    "por": f"janeiro{T}–{T}dezembro de 2016",
    "ron": f"ianuarie{T}–{T}decembrie 2016",
    "spa": "enero–diciembre de 2016",
    "bul": f"януари – декември 2016{N}г.",
    "rus": f"январь{NB}— декабрь 2016{N}г.",
    "deu": "Januar–Dezember 2016",
    "urd": "جنوری–دسمبر 2016",
    "sqi": f"janar{T}–{T}dhjetor 2016",
    "ell": "Ιανουάριος–Δεκέμβριος 2016",
    "jpn": "2016年1月～12月",
    "kat": "იანვარი – დეკემბერი, 2016",
    "tur": f"Ocak{T}–{T}Aralık 2016",
    "vie": f"tháng 1{T}–{T}tháng 12 năm 2016",
    "zho": "2016年1月 – 12月",
}
#: 1 March 2016: CLDR's long date; French writes the first of the month "1er"
LONG_DATE = {
    "fra": "1er mars 2016",
    "ita": "1 marzo 2016",
    "por": "1 de março de 2016",
    "ron": "1 martie 2016",
    "spa": "1 de marzo de 2016",
    "bul": f"1 март 2016{N}г.",
    "rus": f"1 марта 2016{N}г.",
    "deu": "1. März 2016",
    "urd": "1 مارچ، 2016",
    "sqi": "1 mars 2016",
    "ell": "1 Μαρτίου 2016",
    "jpn": "2016年3月1日",
    "kat": "1 მარტი, 2016",
    "tur": "1 Mart 2016",
    "vie": "1 tháng 3, 2016",
    "zho": "2016年3月1日",
}
#: 2016-01-01 to 2016-03-15 (not whole months): CLDR's day interval where the locale has one (spa,
#: bul), else the memory's ``time_range`` (here a neutral " / ") with long dates
DAY_RANGE = {
    "fra": "1er janvier 2016 / 15 mars 2016",
    "ita": "1 gennaio 2016 / 15 marzo 2016",
    "por": "1 de janeiro de 2016 / 15 de março de 2016",
    "ron": "1 ianuarie 2016 / 15 martie 2016",
    "spa": f"1 de enero{T}–{T}15 de marzo de 2016",
    "bul": f"1 януари – 15 март 2016{N}г.",
    "rus": f"1 января 2016{N}г. / 15 марта 2016{N}г.",
    "deu": "1. Januar 2016 / 15. März 2016",
    "urd": "1 جنوری، 2016 / 15 مارچ، 2016",
    "sqi": "1 janar 2016 / 15 mars 2016",
    "ell": "1 Ιανουαρίου 2016 / 15 Μαρτίου 2016",
    "jpn": "2016年1月1日 / 2016年3月15日",
    "kat": "1 იანვარი, 2016 / 15 მარტი, 2016",
    "tur": "1 Ocak 2016 / 15 Mart 2016",
    "vie": "1 tháng 1, 2016 / 15 tháng 3, 2016",
    "zho": "2016年1月1日 / 2016年3月15日",
}
#: the ``scale_unit`` parameter "km simplification": CLDR's short unit name, in the language's
#: script
KILOMETRE = {
    "fra": "km",
    "ita": "km",
    "por": "km",
    "ron": "km",
    "spa": "km",
    "bul": "км",
    "rus": "км",
    "deu": "km",
    "urd": "کلو میٹر",
    "sqi": "km",
    "ell": "χλμ.",
    "jpn": "km",
    "kat": "კმ",
    "tur": "km",
    "vie": "km",
    "zho": "公里",
}


def _tm(lang: str) -> memory.TranslationMemory:
    return memory.TranslationMemory(lang, "draft", {}, patterns={"time_range": "{start} / {end}"})


def test_every_language_has_every_shape():
    for table in (MONTH_YEAR, WHOLE_MONTHS, LONG_DATE, DAY_RANGE, KILOMETRE):
        assert set(table) == set(TARGETS)


#: (parameter value, expected rendering per language) of each period shape.
PERIODS = [
    ("December 2015", MONTH_YEAR),
    ("2016-01-01 to 2016-12-31", WHOLE_MONTHS),
    ("2016-03-01", LONG_DATE),
    ("2016-01-01 to 2016-03-15", DAY_RANGE),
]


@pytest.mark.parametrize("lang", TARGETS)
@pytest.mark.parametrize(("period", "expected"), PERIODS, ids=[p for p, _ in PERIODS])
def test_period_shapes(lang, period, expected):
    assert instantiate.format_period(period, lang, _tm(lang)) == expected[lang]


@pytest.mark.parametrize("lang", TARGETS)
def test_long_date(lang):
    assert instantiate.long_date(dt.date(2016, 3, 1), lang) == LONG_DATE[lang]


@pytest.mark.parametrize("lang", TARGETS)
def test_unit_symbol(lang):
    assert instantiate.format_unit_symbol("km simplification", lang) == KILOMETRE[lang]
    assert instantiate.format_unit_symbol("shape index", lang) is None


def test_french_first_of_the_month_only():
    assert instantiate.long_date(dt.date(2016, 1, 1), "fra") == "1er janvier 2016"
    assert instantiate.long_date(dt.date(2016, 1, 11), "fra") == "11 janvier 2016"
    assert instantiate.long_date(dt.date(2016, 1, 21), "fra") == "21 janvier 2016"
    assert instantiate.long_date(dt.date(2016, 1, 1), "ita") == "1 gennaio 2016"


def test_whole_months_across_years_and_a_single_month():
    assert (
        instantiate.format_period("2015-03-01 to 2016-02-29", "spa", _tm("spa"))
        == f"marzo de 2015{T}–{T}febrero de 2016"
    )
    assert instantiate.format_period("2015-11-01 to 2015-11-30", "jpn", _tm("jpn")) == "2015年11月"


def test_unknown_shapes_stay_unknown():
    assert instantiate.format_period("soon", "fra", _tm("fra")) is None
    assert instantiate.format_period("Smarch 2015", "fra", _tm("fra")) is None
    assert instantiate.format_period("2015", "zho", _tm("zho")) == "2015"


def test_localize_inserts_the_period_and_the_unit():
    """The parameters reach the text through ``instantiate.localize``'s parameter slots."""
    fallbacks: list[str] = []
    assert instantiate._param("time_period", "November 2015", "zho", _tm("zho"), fallbacks) == (
        "2015年11月"
    )
    assert instantiate._param("scale_unit", "km simplification", "rus", _tm("rus"), fallbacks) == (
        "км"
    )
    assert instantiate._param("scale_value", 0.05, "rus", _tm("rus"), fallbacks) == "0,05"
    assert fallbacks == []
    assert instantiate._param("time_period", "soon", "fra", _tm("fra"), fallbacks) == "soon"
    assert fallbacks == ["term:time_period"]
