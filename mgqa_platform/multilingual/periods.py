"""Time periods in the case the sentence needs: the words around a ``{time_period}`` slot, by
language.

:func:`~.instantiate.format_period` writes a period as CLDR writes it alone ("ноябрь 2015 г.",
"Νοέμβριος 2015", "январь – декабрь 2015 г."): the nominative of a heading. Pasted after the
template's "in the period" ("в период ноябрь 2015 г.", "την περίοδο Νοέμβριος 2015"), that form is
wrong where the language puts a month in a case, and stilted where it names a month without
"period". :func:`period_phrase` rewrites the words before and after the slot and the period itself
for a month (``November 2015``) or a range of whole months (``2015-01-01 to 2015-12-31``) in the
languages that need it:

* rus: "в ноябре 2015 г.", "за ноябрь 2015 г.", "в период с января по декабрь 2015 г." (CLDR's
  format-context month names are the genitive; the prepositional is :data:`RUS_PREPOSITIONAL`);
* ell: "τον Νοέμβριο του 2015", "την περίοδο Ιανουαρίου–Δεκεμβρίου 2015" (CLDR's genitive);
* deu, ron, sqi: the month without "period" ("im November 2015", "în noiembrie 2015", "në nëntor
  2015", "gjatë nëntorit 2015");
* kat: "2015 წლის ნოემბერში" for "ნოემბერი, 2015 პერიოდში", the genitive before "პერიოდის", and a
  range from and until a month ("2015 წლის იანვრიდან დეკემბრამდე პერიოდში").

A year named as a period ("в период 2015", "την περίοδο 2015") becomes a year as the language names
one ("в 2015 г.", "το 2015", "im Jahr 2015", "în anul 2015", "në vitin 2015", "2015 წელს", "2015
yılında"), and a bare year is written with the language's word for year ("2015年", "năm 2015").

Other languages and other shapes keep CLDR's form (bul "през ноември 2015 г.", tur "Kasım 2015
döneminde", urd "نومبر 2015 میں" read as a native writer writes them)."""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

from babel.dates import get_month_names

from mgqa_platform.languages import language
from mgqa_platform.lexicon import MONTHS

_RANGE = re.compile(r"^(\d{4})-(\d{2})-01 to (\d{4})-(\d{2})-(\d{2})$")
#: Russian months in the prepositional ("в ноябре")
RUS_PREPOSITIONAL = (
    "январе феврале марте апреле мае июне июле августе сентябре октябре ноябре декабре".split()
)
#: Albanian months in the definite genitive ("gjatë nëntorit")
SQI_GENITIVE = (
    "janarit shkurtit marsit prillit majit qershorit korrikut gushtit shtatorit tetorit "
    "nëntorit dhjetorit"
).split()
#: Georgian months in the locative ("ნოემბერში") and the genitive ("ნოემბრის")
KAT_LOCATIVE = (
    "იანვარში თებერვალში მარტში აპრილში მაისში ივნისში ივლისში აგვისტოში სექტემბერში "
    "ოქტომბერში ნოემბერში დეკემბერში"
).split()
#: Georgian months with "from" (-დან) and "until" (-მდე): "იანვრიდან დეკემბრამდე"
KAT_FROM = (
    "იანვრიდან თებერვლიდან მარტიდან აპრილიდან მაისიდან ივნისიდან ივლისიდან აგვისტოდან "
    "სექტემბრიდან ოქტომბრიდან ნოემბრიდან დეკემბრიდან"
).split()
KAT_UNTIL = (
    "იანვრამდე თებერვლამდე მარტამდე აპრილამდე მაისამდე ივნისამდე ივლისამდე აგვისტომდე "
    "სექტემბრამდე ოქტომბრამდე ნოემბრამდე დეკემბრამდე"
).split()
KAT_GENITIVE = (
    "იანვრის თებერვლის მარტის აპრილის მაისის ივნისის ივლისის აგვისტოს სექტემბრის ოქტომბრის "
    "ნოემბრის დეკემბრის"
).split()


@dataclass(frozen=True)
class Period:
    """A period the rules can place: the months ``first`` to ``last`` (1-12) of ``year`` to
    ``last_year``; one month when both are equal."""

    year: int
    first: int
    last_year: int
    last: int

    @property
    def single(self) -> bool:
        """One month."""
        return (self.year, self.first) == (self.last_year, self.last)


def parse_period(value: str) -> Period | None:
    """The months of an English ``time_period`` value (``November 2015`` or a range of whole months
    ``2015-01-01 to 2015-12-31``), None for any other shape (a year, a day, a range of days)."""
    parts = value.split(" ")
    if len(parts) == 2 and parts[0] in MONTHS and parts[1].isdigit():
        month = MONTHS.index(parts[0]) + 1
        return Period(int(parts[1]), month, int(parts[1]), month)
    m = _RANGE.match(value)
    if m is None:
        return None
    y1, m1, y2, m2, d2 = (int(g) for g in m.groups())
    end = _dt.date(y2, m2, d2)
    if (end + _dt.timedelta(days=1)).day != 1:
        return None
    return Period(y1, m1, y2, m2)


def _months(lang: str, context: str) -> list[str]:
    names = get_month_names("wide", context=context, locale=language(lang).babel)
    return [names[i] for i in range(1, 13)]


def _ending(before: str, *words: str) -> str | None:
    """The one of ``words`` (with either initial case) that ``before`` ends with, followed by a
    space."""
    for w in words:
        for form in (w, w[:1].upper() + w[1:]):
            if before.endswith(form + " ") and (
                len(before) == len(form) + 1 or not before[-len(form) - 2].isalnum()
            ):
                return form
    return None


def _cap_like(src: str, out: str) -> str:
    return out[:1].upper() + out[1:] if src[:1].isupper() else out


#: the Russian year as CLDR writes it after a month ("2015 г.", with a narrow no-break space)
_RUS_YEAR = "{}\u202fг."


def _rus(p: Period, before: str, after: str) -> tuple[str, str, str] | None:
    gen, nom = _months("rus", "format"), _months("rus", "stand-alone")
    y1, y2 = _RUS_YEAR.format(p.year), _RUS_YEAR.format(p.last_year)
    if p.single:
        word = _ending(before, "в период", "за период")
        if word is None:
            return None
        head = before[: -len(word) - 1]
        if word.lower() == "в период":
            return (
                head + _cap_like(word, "в "),
                f"{RUS_PREPOSITIONAL[p.first - 1]} {y1}",
                after,
            )
        return head + _cap_like(word, "за "), f"{nom[p.first - 1]} {y1}", after
    if _ending(before, "период") is None:
        return None
    if p.year == p.last_year:
        return before, f"с {gen[p.first - 1]} по {nom[p.last - 1]} {y1}", after
    text = f"с {gen[p.first - 1]} {y1} по {nom[p.last - 1]} {y2}"
    return before, text, after


def _ell(p: Period, before: str, after: str) -> tuple[str, str, str] | None:
    word = _ending(before, "την περίοδο")
    if word is None:
        return None
    gen, nom = _months("ell", "format"), _months("ell", "stand-alone")
    if p.single:
        acc = nom[p.first - 1].removesuffix("ς")
        head = before[: -len(word) - 1]
        return head + _cap_like(word, "τον "), f"{acc} του {p.year}", after
    if p.year == p.last_year:
        return before, f"{gen[p.first - 1]}–{gen[p.last - 1]} {p.year}", after
    return before, f"{gen[p.first - 1]} {p.year} – {gen[p.last - 1]} {p.last_year}", after


#: the words before a one-month period that name the period ("im Zeitraum") -> the words without it
_WITHOUT_PERIOD = {
    "deu": {"im Zeitraum": "im", "während des Zeitraums": "im"},
    "ron": {"în perioada": "în"},
    "sqi": {"në periudhën": "në", "gjatë periudhës": "gjatë"},
}


def _month_alone(lang: str, p: Period, before: str, after: str) -> tuple[str, str, str] | None:
    if not p.single:
        return None
    for words, plain in _WITHOUT_PERIOD[lang].items():
        found = _ending(before, words)
        if found:
            month = _months(lang, "stand-alone")[p.first - 1]
            if lang == "sqi" and plain == "gjatë":
                month = SQI_GENITIVE[p.first - 1]
            return (
                before[: -len(found) - 1] + _cap_like(found, plain) + " ",
                f"{month} {p.year}",
                after,
            )
    return None


def _kat(p: Period, before: str, after: str) -> tuple[str, str, str] | None:
    m = re.match(r" პერიოდ(ში|ის)(?![\u10d0-\u10ff])", after)
    if m is None:
        return None
    if not p.single:  # "2015 წლის იანვრიდან დეკემბრამდე პერიოდში": the period keeps its noun
        start = f"{p.year} წლის {KAT_FROM[p.first - 1]}"
        end = KAT_UNTIL[p.last - 1]
        if p.last_year != p.year:
            end = f"{p.last_year} წლის {end}"
        return before, f"{start} {end}", after
    month = (KAT_LOCATIVE if m.group(1) == "ში" else KAT_GENITIVE)[p.first - 1]
    return before, f"{p.year} წლის {month}", after[m.end() :]


#: the words before a year named as a period -> (the words that name a year, the year's form)
_YEAR_WORDS = {
    "rus": {"в период": ("в", "{}\u202fг."), "за период": ("за", "{}\u202fг.")},
    "ell": {"την περίοδο": ("το", "{}")},
    "deu": {"im Zeitraum": ("im Jahr", "{}"), "während des Zeitraums": ("im Jahr", "{}")},
    "ron": {"în perioada": ("în anul", "{}")},
    "sqi": {"në periudhën": ("në vitin", "{}"), "gjatë periudhës": ("gjatë vitit", "{}")},
}
#: the year as a language names one wherever it stands (zho/jpn "2015年", vie "năm 2015")
_YEAR_FORM = {"zho": "{}年", "jpn": "{}年", "vie": "năm {}"}
#: Turkish: "dönem" (period) after a year -> "yıl" (year), its case suffix in back-vowel harmony
_TUR_PERIOD = re.compile(r" dönem(\w*)")
_TUR_HARMONY = str.maketrans("ei", "aı")


def _tur_back(suffix: str) -> str:
    """A Turkish suffix of a front-vowel noun ("dönem") for a back-vowel one ("yıl"): e -> a, i ->
    ı, except the relative "-ki", which never harmonizes ("döneminde" -> "yılında", "dönemindeki" ->
    "yılındaki")."""
    if suffix.endswith("ki"):
        return suffix[:-2].translate(_TUR_HARMONY) + "ki"
    return suffix.translate(_TUR_HARMONY)


#: Georgian: the period noun after a year -> the year's case ("2015 წელს", "2015 წლის")
_KAT_YEAR = {"ში": " წელს", "ის": " წლის"}


def _year(lang: str, year: str, before: str, after: str) -> tuple[str, str, str] | None:
    """A year named as a period ("в период 2015") as the language names a year ("в 2015 г.", "το
    2015", "im Jahr 2015", "2015 წელს"), None where the words around it are not a period's."""
    if lang == "kat":
        m = re.match(r" პერიოდ(ში|ის)(?![\u10d0-\u10ff])", after)
        return (before, year, _KAT_YEAR[m.group(1)] + after[m.end() :]) if m else None
    if lang in _YEAR_FORM:
        return before, _YEAR_FORM[lang].format(year), after
    if lang == "tur":
        m = _TUR_PERIOD.match(after)
        suffix = _tur_back(m.group(1)) if m else ""
        return (before, year, f" yıl{suffix}" + after[m.end() :]) if m else None
    for words, (plain, form) in _YEAR_WORDS.get(lang, {}).items():
        found = _ending(before, words)
        if found:
            return (
                before[: -len(found) - 1] + _cap_like(found, plain) + " ",
                form.format(year),
                after,
            )
    return None


def period_phrase(value: str, lang: str, before: str, after: str) -> tuple[str, str, str] | None:
    """(text before, the period, text after) for the English ``time_period`` ``value`` in a slot
    with the template text ``before`` and ``after`` it, in the case the sentence needs; None where
    CLDR's form stays."""
    if re.fullmatch(r"\d{4}", value):
        return _year(lang, value, before, after)
    p = parse_period(value)
    if p is None:
        return None
    if lang == "rus":
        return _rus(p, before, after)
    if lang == "ell":
        return _ell(p, before, after)
    if lang in _WITHOUT_PERIOD:
        return _month_alone(lang, p, before, after)
    if lang == "kat":
        return _kat(p, before, after)
    return None
