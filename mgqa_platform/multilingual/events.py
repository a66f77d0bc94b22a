"""Event names in the language: earthquakes and wildfires named from their facts, as each language
writes them.

The English display name of an event ("magnitude 4.9 earthquake of 27 November 2015 at 11:40 UTC",
"Spanish Fire of 1994", :func:`mgqa_platform.kg.names.event_name`) is a description, not a proper
name, so it is composed again in each language from the same facts (:class:`EventFacts`: the kind,
the magnitude, the instant in UTC, the fire's own name part and its year) with CLDR through
``babel``: the magnitude with the language's decimal sign, the date in the locale's long form, the
time as ``HH:MM`` UTC. The fire's own name part stays as the source writes it.

A description is a noun phrase, so the words around it depend on the slot (:func:`event_phrase`):
the text of the template before the slot decides the article or the case of the head noun (French
"le séisme", contracted by the rule member to "du séisme"; German "vom Erdbeben"; Russian
"землетрясением" after a passive participle; Greek "του σεισμού" after a noun; Romanian "zona
cutremurului" for "zona lui {X}"); Georgian and Urdu take the case from the suffix or postposition
after the slot. The name inside the marks (``{...}``) is the description; an article outside them,
so the post-edit rules may fuse it with a preposition.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from babel.dates import format_date
from babel.numbers import format_decimal

from mgqa_platform.kg.names import EARTHQUAKE_CATEGORIES, FIRE_CATEGORIES, event_instant, fire_name
from mgqa_platform.languages import language
from mgqa_platform.settings import PACKAGE_DATA

#: every language with a pattern (all 16 targets)
EVENT_LANGS = (
    "fra",
    "ita",
    "por",
    "ron",
    "spa",
    "bul",
    "rus",
    "deu",
    "urd",
    "sqi",
    "ell",
    "jpn",
    "kat",
    "tur",
    "vie",
    "zho",
)
_FIRE_PART = re.compile(r"^the (?P<part>.+?) Fire(?: of (?P<year>\d{4}))?$")
_SECONDS = re.compile(r"\d:\d\d:\d\d UTC")


@dataclass(frozen=True)
class EventFacts:
    """What an event's name is made of: ``kind`` (``earthquake`` or ``fire``), the ``magnitude``
    (None when unknown), the ``instant`` in UTC (earthquakes), ``timed`` (the instant has a time of
    day), ``seconds`` (the time to the second: another earthquake shares the minute), the fire's
    name ``part`` and ``year``."""

    kind: str
    magnitude: float | None = None
    instant: _dt.datetime | None = None
    timed: bool = True
    seconds: bool = False
    part: str = ""
    year: str = ""


def event_facts(
    category: str, name: str, valid_from: str | None, attributes: Mapping[str, Any], display: str
) -> EventFacts | None:
    """The facts of an event entity (its KG ``name``, ``valid_from`` and ``attributes``;
    ``display``: its English display name, which says whether the time is to the second), or None
    for an entity that is no earthquake or fire, or whose facts do not parse."""
    if not valid_from:
        return None
    if category in EARTHQUAKE_CATEGORIES:
        t = event_instant(valid_from)
        if t is None:
            return None
        mag = attributes.get("magnitude")
        ok = isinstance(mag, (int, float)) and not isinstance(mag, bool)
        return EventFacts(
            "earthquake",
            float(mag) if ok else None,
            t,
            timed="T" in valid_from or " " in valid_from.strip(),
            seconds=bool(_SECONDS.search(display)),
        )
    if category in FIRE_CATEGORIES:
        m = _FIRE_PART.match(fire_name(name, valid_from) or "")
        return EventFacts("fire", part=m["part"], year=m["year"] or "") if m else None
    return None


def _magnitude(facts: EventFacts, lang: str) -> str:
    """The magnitude with the language's decimal sign, with as many decimals as the English name
    ("4,9")."""
    decimals = len(repr(facts.magnitude).split(".")[1])
    return format_decimal(
        facts.magnitude, format=f"0.{'0' * decimals}", locale=language(lang).babel
    )


def _day(facts: EventFacts, lang: str) -> str:
    return format_date(facts.instant.date(), format="long", locale=language(lang).babel)


def _time(facts: EventFacts) -> str:
    return facts.instant.strftime("%H:%M:%S" if facts.seconds else "%H:%M") + " UTC"


def _when(facts: EventFacts, lang: str, at: str, day_prefix: str = "") -> str:
    """The day (with ``day_prefix``) and, when timed, ``at`` and the time: "27 novembre 2015 à 11:40
    UTC"."""
    day = day_prefix + _day(facts, lang)
    if lang == "fra" and facts.instant.day == 1:
        day = re.sub(r"(^|\s)1(?=\s)", r"\g<1>1er", day, count=1)
    return f"{day} {at} {_time(facts)}" if facts.timed else day


# ---------------------------------------------------------------------------------- descriptions
#: The languages whose earthquake reads "<head> <magnitude> <of> <date> <at> <time>": the words
#: before the magnitude, before the date and before the time.
_QUAKE_AFTER_HEAD = {
    "fra": (" de magnitude ", "du ", "à"),
    "ita": (" di magnitudo ", "del ", "alle"),
    "spa": (" de magnitud ", "del ", "a las"),
    "por": (" de magnitude ", "de ", "às"),
    "ron": (" cu magnitudinea ", "din ", "la ora"),
    "deu": (" der Stärke ", "vom ", "um"),
    "sqi": (" me magnitudë ", "më ", "në orën"),
    "rus": (" магнитудой ", "", "в"),
    "bul": (" с магнитуд ", "от ", "в"),
}


#: what joins an earthquake's day and its time where the day comes first (default: a space)
_DAY_TIME_SEP = {"kat": ", ", "urd": "، "}


def _quake(facts: EventFacts, lang: str, head: str) -> str:
    """An earthquake's description in ``lang`` with the head noun ``head`` (already in its case)."""
    m = _magnitude(facts, lang) if facts.magnitude is not None else None
    t = _time(facts)
    if lang in _QUAKE_AFTER_HEAD:
        magnitude, of, at = _QUAKE_AFTER_HEAD[lang]
        if lang == "ita" and facts.instant.day in (1, 8, 11):
            of = "dell'"  # "dell'8", "dell'11"
        return f"{head}{f'{magnitude}{m}' if m else ''} {of}{_when(facts, lang, at)}"
    if lang == "ell":
        d = f"{facts.instant.day}ης " + _day(facts, lang).split(" ", 1)[1]
        when = f"{d} στις {t}" if facts.timed else d
        return f"{head}{f' μεγέθους {m}' if m else ''} της {when}"
    when = _day(facts, lang) + (_DAY_TIME_SEP.get(lang, " ") + t if facts.timed else "")
    if lang == "tur":
        return f"{when} tarihli {f'{m} büyüklüğündeki ' if m else ''}{head}"
    if lang == "kat":
        return f"{when}-ის {f'{m} მაგნიტუდის ' if m else ''}{head}"
    if lang == "urd":
        of = "کے" if head.endswith("ے") else "کا"
        return f"{when} {of} {f'{m} شدت {of} ' if m else ''}{head}"
    if lang == "jpn":
        return f"{when}の{f'マグニチュード{m}の' if m else ''}{head}"
    if lang == "zho":
        return f"{when}的{f'{m}级' if m else ''}{head}"
    if lang == "vie":
        when = f"ngày {_day(facts, lang)} lúc {t}" if facts.timed else f"ngày {_day(facts, lang)}"
        return f"{head}{f' mạnh {m} độ' if m else ''} {when}"
    raise KeyError(lang)


def _fire(facts: EventFacts, lang: str, head: str) -> str:
    """A fire's description in ``lang`` with the head noun ``head``; the fire's own name as the
    source writes it."""
    p, y = facts.part, facts.year
    pattern = {
        "fra": ("{h} {p}", " de {y}"),
        "ita": ("{h} {p}", " del {y}"),
        "spa": ("{h} {p}", " de {y}"),
        "por": ("{h} {p}", " de {y}"),
        "ron": ("{h} {p}", " din {y}"),
        "deu": ("{h} „{p}“", " von {y}"),
        "sqi": ("{h} {p}", " {of} vitit {y}"),
        "rus": ("{h} «{p}»", " {y} года"),
        "bul": ("{h} „{p}“", " от {y} г."),
        "ell": ("{h} {p}", " του {y}"),
        "tur": ("{y}{p} {h}", ""),
        "kat": ("{y}„{p}“ {h}", ""),
        "urd": ("{y}{p} {h}", ""),
        "jpn": ("{y}{p}{h}", ""),
        "zho": ("{y}{p}{h}", ""),
        "vie": ("{h} {p}", " năm {y}"),
    }[lang]
    year = {
        "tur": f"{y} ",
        "kat": f"{y} წლის ",
        "urd": f"{y} کی ",
        "jpn": f"{y}年の",
        "zho": f"{y}年",
    }
    text = pattern[0].format(h=head, p=p, y=year.get(lang, "") if y else "")
    if y and pattern[1]:
        text += pattern[1].format(y=y, of="të" if head == "zjarrit" else "i")
    return text.strip()


# ---------------------------------------------------------------------------------- the slot
#: head nouns by language and kind: case -> form (``nom`` the citation form)
HEADS: dict[str, dict[str, dict[str, str]]] = json.loads(
    (PACKAGE_DATA / "event_heads.json").read_text(encoding="utf-8")
)
#: definite articles written outside the marks (the rule member fuses them: "de le" -> "du")
_ARTICLES = {
    "fra": {"earthquake": "le ", "fire": "l'"},
    "ita": {"earthquake": "il ", "fire": "l'"},
    "spa": {"earthquake": "el ", "fire": "el "},
    "por": {"earthquake": "o ", "fire": "o "},
}
_DEU_DATIVE = frozenset(("von", "vom", "zwischen", "mit", "bei", "aus", "nach", "zu", "seit"))
_DEU_ARTICLES = {
    ("earthquake", "nom"): "das ",
    ("earthquake", "dat"): "dem ",
    ("fire", "nom"): "der ",
    ("fire", "dat"): "dem ",
}
#: Russian words after which the description takes the genitive (nouns it depends on, "от", "до") or
#: the instrumental ("между", "с", a passive participle "затронут...")
_RUS_GEN = frozenset(
    "от до контура контур территории территорию территория территорией центр центра центроида "
    "периметра "
    "границы края точки размер".split()
)
_RUS_INS = frozenset(("между", "с", "со"))
#: Russian and Bulgarian verbs of the templates in the neuter (said of "событие",
#: "землетрясение") -> the masculine a fire ("пожар") takes
NEUTER_TO_MASCULINE = {
    "rus": {
        "было": "был",
        "затронуло": "затронул",
        "обрушилось": "обрушился",
        "достигло": "достиг",
        "произошло": "произошёл",
        "охватило": "охватил",
    },
    "bul": {
        "било": "бил",
        "засегнало": "засегнал",
        "случило": "случил",
        "обхванало": "обхванал",
        "достигнало": "достигнал",
        "регистрирано": "регистриран",
    },
}
#: Russian and Greek nouns that already stand in apposition before the slot ("событие «…»")
_RUS_APPOSITION = frozenset(("событие", "событием", "события", "событию"))
_BUL_PREPOSITIONS = frozenset(("на", "от", "между", "за", "с", "в", "през", "до", "към"))
_SQI_GEN = frozenset(("e", "i", "të", "së", "midis"))
_ELL_ACC = frozenset(("από", "προς", "για", "με"))
_ELL_GEN_NOUNS = frozenset(
    "μεταξύ θέση κέντρο κέντρου περίγραμμα αποτύπωμα αποτυπώματος περιοχή περιοχής "
    "περιοχές περίμετρος "
    "έκταση οντότητας εκείνο".split()
)
_ELL_ARTICLES = {
    ("earthquake", "nom"): "ο ",
    ("earthquake", "acc"): "τον ",
    ("earthquake", "gen"): "του ",
    ("earthquake", "se"): "στον ",
    ("fire", "nom"): "η ",
    ("fire", "acc"): "την ",
    ("fire", "gen"): "της ",
    ("fire", "se"): "στην ",
}
#: Turkish possessed nouns after a slot: the description before them takes the genitive ("depremin
#: alanı")
_TUR_POSSESSED = ("alan", "ayak iz", "sınır", "çevre", "merkez")
#: Urdu words of the templates in the masculine said of the event -> the feminine a fire (آگ) takes
URDU_FEMININE = {"والا": "والی", "والے": "والی", "تھا": "تھی", "پہنچا": "پہنچی"}
_URD_POSTPOSITIONS = ("سے", "کے", "کا", "کی", "نے", "میں", "کو", "پر", "تک")
_KAT_SUFFIX = re.compile(r"^-(ისა|ის|ით|მა|სა|ს|დან|ზე)(?![\u10d0-\u10ff])")
_WORD_BEFORE = re.compile(r"(\w+)\s*$")
_ROMANCE_AND = re.compile(r"\{\w+[^{}]*\}\s+(?:e|y|et|ed)\s*$")
_ROMANCE_OF = frozenset(("di", "de", "da"))
_SLOT_AND = re.compile(r"\{(\w+)[^{}]*\}\s+(?:и|και|și|dhe|und)\s*$")


@dataclass(frozen=True)
class Phrase:
    """An event description in its slot: ``before`` replaces the template text before the slot (its
    last word may change: "lui " is dropped, "von " becomes "vom "), ``prefix`` goes before the
    marks, ``name`` inside them, and ``after`` replaces the template text after the slot (a Georgian
    suffix absorbed)."""

    before: str
    prefix: str
    name: str
    after: str


def _previous_word(before: str) -> str:
    m = _WORD_BEFORE.search(before)
    return m.group(1).lower() if m else ""


def _case(lang: str, before: str) -> str:
    """The case the text ``before`` a slot asks of the description (per language, see the
    tables)."""
    coordinated = _SLOT_AND.search(before)
    if coordinated:  # "{A} и {B}": the case of the first conjunct
        return _case(lang, before[: coordinated.start()])
    word = _previous_word(before)
    if lang == "rus":
        if word in _RUS_APPOSITION:
            return "nom"
        if word in _RUS_INS or word.startswith("затронут"):
            return "ins"
        return "gen" if word in _RUS_GEN else "nom"
    if lang == "deu":
        return "dat" if word in _DEU_DATIVE else "nom"
    if lang == "bul":
        return "obl" if word in _BUL_PREPOSITIONS else "nom"
    if lang == "sqi":
        return "gen" if word in _SQI_GEN else "nom"
    if lang == "ron":
        return "gen" if word == "lui" else "nom"
    if lang == "ell":
        if word == "σε":
            return "se"
        if word in _ELL_ACC:
            return "acc"
        return "gen" if word in _ELL_GEN_NOUNS else "nom"
    return "nom"


def _romance_preposition(before: str) -> str:
    """The preposition to repeat before a description coordinated with a name it governs ("le aree
    di {A} e {B}" -> "e di il {B}", which the rule member fuses to "e del {B}"), else ""."""
    m = _ROMANCE_AND.search(before)
    if m is None:
        return ""
    word = _previous_word(before[: m.start()])
    return f"{word} " if word in _ROMANCE_OF else ""


def _urdu_feminine(before: str, after: str) -> tuple[str, str]:
    """``before`` and ``after`` a fire's slot with the participle before it and, where the fire is
    the subject (a comma or "پہلی بار" right after it), the verbs of its clause in the feminine
    (:data:`URDU_FEMININE`): "درج ہونے والی {… آگ}، … پر تھی؟"."""
    m = re.search(r"(\w+) $", before)
    if m and m.group(1) in ("والا", "والے"):
        before = before[: m.start(1)] + URDU_FEMININE[m.group(1)] + " "
    if after.startswith(("،", " پہلی بار")):
        end = after.find("؟")
        clause = after if end < 0 else after[:end]
        clause = re.sub(r"\w+", lambda w: URDU_FEMININE.get(w.group(0), w.group(0)), clause)
        after = clause + ("" if end < 0 else after[end:])
    return before, after


def _masculine_verbs(lang: str, before: str, after: str) -> tuple[str, str]:
    """``before`` and ``after`` a fire's slot with the neuter verbs next to it (the word before, or
    one of the five words after) in the masculine (:data:`NEUTER_TO_MASCULINE`): "Когда {пожар}
    обрушился"."""
    table = NEUTER_TO_MASCULINE[lang]
    m = re.search(r"(\w+)(\s*)$", before)
    if m and m.group(1) in table:
        before = before[: m.start(1)] + table[m.group(1)] + m.group(2)
    for m in list(re.finditer(r"\w+", after))[:5]:
        if m.group(0) in table:
            return before, after[: m.start()] + table[m.group(0)] + after[m.end() :]
    return before, after


def event_phrase(facts: EventFacts, lang: str, before: str, after: str) -> Phrase:
    """The description of ``facts`` in ``lang`` for a slot with the template text ``before`` and
    ``after`` it: the article and the case of the head noun that slot needs (:func:`_case`,
    :data:`HEADS`)."""
    heads = HEADS[lang][facts.kind]
    compose = _quake if facts.kind == "earthquake" else _fire
    case = _case(lang, before)
    prefix = ""
    if lang in _ARTICLES:
        prefix = _romance_preposition(before) + _ARTICLES[lang][facts.kind]
    elif lang == "deu":
        prefix = _DEU_ARTICLES[(facts.kind, case)]
        if before.endswith("von "):
            before, prefix = before[: -len("von ")] + "vom ", ""
    elif lang == "ell":
        prefix = _ELL_ARTICLES[(facts.kind, case)]
        if case == "se" and before.endswith("σε "):
            before = before[: -len("σε ")]
        case = "acc" if case == "se" else case
    elif lang == "ron" and case == "gen" and before.endswith("lui "):
        before = before[: -len("lui ")]
    elif lang == "kat":
        m = _KAT_SUFFIX.match(after)
        if m:
            case, after = m.group(1), after[m.end() :]
    elif lang == "urd" and after.lstrip().startswith(_URD_POSTPOSITIONS):
        case = "obl"
    elif lang == "tur" and facts.kind == "fire" and after.lstrip().startswith("yangın"):
        return Phrase(before, "", _fire(facts, lang, "").strip(), after)
    elif lang == "tur" and after.lstrip().startswith(_TUR_POSSESSED):
        case = "gen"
    if facts.kind == "fire" and lang in NEUTER_TO_MASCULINE and case == "nom":
        before, after = _masculine_verbs(lang, before, after)
    if facts.kind == "fire" and lang == "urd" and case == "nom":
        before, after = _urdu_feminine(before, after)
    head = heads.get(case, heads["nom"])
    return Phrase(before, prefix, compose(facts, lang, head), after)


def entity_events(entities: list[Mapping[str, Any]]) -> dict[str, EventFacts]:
    """Entity id -> :class:`EventFacts` for the earthquakes and fires among ``entities`` (rows with
    ``entity_id``, ``category``, ``name``, ``valid_from``, ``attributes`` (a dict or its JSON) and
    ``display_name``) whose facts parse."""
    out = {}
    for e in entities:
        attributes = e.get("attributes") or {}
        if isinstance(attributes, str):
            attributes = json.loads(attributes)
        facts = event_facts(
            e["category"], e["name"], e.get("valid_from"), attributes, e["display_name"]
        )
        if facts is not None:
            out[e["entity_id"]] = facts
    return out
