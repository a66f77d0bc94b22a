"""Time periods in the case the sentence needs (issue 18): each language's rewrite of the words
around a month or a range of months, the detectors that catch the wrong forms, and the placing in a
template."""

from __future__ import annotations

import pytest

from mgqa_platform.multilingual import detectors
from mgqa_platform.multilingual.instantiate import format_period, place_period
from mgqa_platform.multilingual.memory import load
from mgqa_platform.multilingual.periods import Period, parse_period, period_phrase

NNBSP = "\u202f"


def test_parse_period():
    assert parse_period("November 2015") == Period(2015, 11, 2015, 11)
    assert parse_period("2015-01-01 to 2015-12-31") == Period(2015, 1, 2015, 12)
    assert parse_period("2015-11-01 to 2016-02-29") == Period(2015, 11, 2016, 2)
    assert parse_period("2015-01-01 to 2015-03-15") is None  # not whole months
    assert parse_period("2015") is None
    assert parse_period("2015-03-01") is None


@pytest.mark.parametrize(
    ("lang", "template", "value", "expected"),
    [
        ("rus", "В период {time_period} было", "November 2015", f"В ноябре 2015{NNBSP}г. было"),
        ("rus", "за период {time_period}?", "November 2015", f"за ноябрь 2015{NNBSP}г.?"),
        (
            "rus",
            "в период {time_period}?",
            "2015-01-01 to 2015-12-31",
            f"в период с января по декабрь 2015{NNBSP}г.?",
        ),
        (
            "rus",
            "в период {time_period}?",
            "2015-11-01 to 2016-02-29",
            f"в период с ноября 2015{NNBSP}г. по февраль 2016{NNBSP}г.?",
        ),
        ("ell", "Την περίοδο {time_period}, πόσο", "November 2015", "Τον Νοέμβριο του 2015, πόσο"),
        (
            "ell",
            "την περίοδο {time_period};",
            "2015-01-01 to 2015-12-31",
            "την περίοδο Ιανουαρίου–Δεκεμβρίου 2015;",
        ),
        ("deu", "im Zeitraum {time_period} und", "November 2015", "im November 2015 und"),
        ("deu", "während des Zeitraums {time_period}", "May 2015", "im Mai 2015"),
        ("ron", "În perioada {time_period}, cât", "November 2015", "În noiembrie 2015, cât"),
        ("sqi", "në periudhën {time_period}", "November 2015", "në nëntor 2015"),
        ("sqi", "Gjatë periudhës {time_period}, sa", "July 2015", "Gjatë korrikut 2015, sa"),
        ("kat", "{time_period} პერიოდში რა", "November 2015", "2015 წლის ნოემბერში რა"),
        (
            "kat",
            "{time_period} პერიოდის განმავლობაში",
            "August 2015",
            "2015 წლის აგვისტოს განმავლობაში",
        ),
        ("rus", "В период {time_period} было", "2015", f"В 2015{NNBSP}г. было"),
        ("ell", "την περίοδο {time_period};", "2015", "το 2015;"),
        ("deu", "im Zeitraum {time_period}?", "2015", "im Jahr 2015?"),
        ("ron", "în perioada {time_period}?", "2015", "în anul 2015?"),
        ("sqi", "gjatë periudhës {time_period}?", "2015", "gjatë vitit 2015?"),
        ("kat", "{time_period} პერიოდში რა", "2015", "2015 წელს რა"),
        ("kat", "{time_period} პერიოდის განმავლობაში", "2015", "2015 წლის განმავლობაში"),
        ("zho", "在{time_period}，", "2015", "在2015年，"),
        ("zho", "发生于{time_period}的", "2015", "发生于2015年的"),
        ("jpn", "{time_period}に発生した", "2015", "2015年に発生した"),
        ("jpn", "{time_period}の", "2015", "2015年の"),
        ("vie", "Vào {time_period}, ", "2015", "Vào năm 2015, "),
        ("tur", "{time_period} döneminde meydana", "2015", "2015 yılında meydana"),
        ("tur", "{time_period} dönemindeki", "2015", "2015 yılındaki"),
    ],
)
def test_placed(lang, template, value, expected):
    placed, text = place_period(template, {"time_period": value}, lang)
    assert placed.format(**text) == expected
    assert not any(d.find(expected) for d in detectors.detectors(lang) if d.name == "period_case")


@pytest.mark.parametrize(
    ("lang", "template", "value"),
    [
        ("rus", "В период {time_period} было", "November 2015"),
        ("rus", "в период {time_period}", "2015-01-01 to 2015-12-31"),
        ("ell", "την περίοδο {time_period};", "November 2015"),
        ("deu", "im Zeitraum {time_period}", "November 2015"),
        ("ron", "în perioada {time_period}", "November 2015"),
        ("sqi", "gjatë periudhës {time_period}", "November 2015"),
        ("kat", "{time_period} პერიოდში", "November 2015"),
        ("zho", "在{time_period}，", "2015"),
        ("jpn", "{time_period}に発生した", "2015"),
        ("vie", "Vào {time_period}, ", "2015"),
        ("tur", "{time_period} döneminde", "2015"),
    ],
)
def test_detectors_catch_cldr_form_pasted(lang, template, value):
    """CLDR's form alone pasted after "in the period" is what the detectors flag."""
    pasted = template.format(time_period=format_period(value, lang, load(lang)))
    (detector,) = [d for d in detectors.detectors(lang) if d.name == "period_case"]
    assert detector.find(pasted)


@pytest.mark.parametrize(
    ("lang", "before", "value"),
    [
        ("bul", "През ", "November 2015"),
        ("tur", "", "November 2015"),
        ("urd", "", "November 2015"),
        ("rus", "в ", "November 2015"),  # no "period" before it: left as the template writes it
        ("bul", "през ", "2015"),  # a year where the language names it so
        ("ell", "το ", "2015"),  # a year with no period before it
        ("deu", "im Zeitraum ", "2015-01-01 to 2015-12-31"),  # a range keeps "Zeitraum"
    ],
)
def test_left_alone(lang, before, value):
    assert period_phrase(value, lang, before, " x") is None


def test_turkish_month_and_year_is_not_a_bare_year():
    (detector,) = [d for d in detectors.detectors("tur") if d.name == "period_case"]
    assert detector.find("2015 döneminde meydana gelen")
    assert not detector.find("Kasım 2015 döneminde 27 Kasım")
    assert not detector.find("Ocak – Aralık 2015 döneminde")
