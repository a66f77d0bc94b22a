"""Re-instantiation: every English question re-rendered in another language from its resolved
template.

For one language other than English and one English question record (``questions_en``):

* the template is the resolved translation of the record's ``variant_id``
  (``template_translations_resolved``);
* entity slots take the entity's name in that language (``labels``: see
  :func:`mgqa_platform.multilingual.names.localized_names`: KG label, Natural Earth, GeoNames), else
  the English question's display name (the canonical English label, else the KG label,
  disambiguated) without a leading English "the" (event names: "the Spanish Fire of 1994"): a
  fallback is recorded per role; a display name's category word ("Lasipalatsi (public building)")
  takes the memory's singular ("Lasipalatsi (edificio público)"; :func:`fallback_name`), else stays
  English, recorded as a second fallback;
* category slots take the translation memory's plural label as a grammar :class:`~.grammar.Noun`, so
  a slot with a spec (``{category_A:def}``) takes the agreeing form, else the English one
  (recorded); a sentence that starts with a category or parameter slot is capitalised after filling;
* word parameters (north, nearest, closer to...) take the memory's term, else English (recorded); a
  term the language's grammar gives a gender (``collection_of_entity``) is a Noun, formatted by
  feature like a category; a term the grammar gives agreeing forms (an Urdu rank word) is an
  :class:`~.grammar.Agreeing` word that takes the form of the category its spec names
  (``{rank_type:~category_A}``);
* numbers are formatted for the language's CLDR locale with ``babel`` (``1 234,5`` in French); time
  periods as CLDR writes them (:func:`format_period`: month and year with the ``yMMMM`` skeleton,
  whole-month ranges as CLDR's month interval, long dates with French "1er"); unit words as CLDR's
  short unit names;
* the multimodal slice's image phrase is translated (:data:`IMAGE_PHRASES`), capitalised where it
  starts a sentence, and stands for the role the English twin shows as an image (``image_role``);
* earthquakes and wildfires (``events``) are named in the language from their facts, in the form
  their slot needs (:func:`place_events`, :mod:`~.events`), and a month, range of months or year
  named as a period takes the case the sentence needs (:func:`place_period`, :mod:`~.periods`);
* in French, the word before a name that starts with a vowel or mute *h* is elided by construction,
  on the filled marked text, so that a word a parameter brings is elided too (``séparent {A}
  d'{Ampamoloambe}``, ``le plus près d'{Isalo}``: :func:`~.grammar.elide_before_names`), and no
  post-edit is needed for it (the post-edit rule cannot address a ``de`` that sits between two names
  and also occurs earlier);
* ``text_marked`` wraps entity names in ``{...}`` for the post-edit ensemble, as in English.

The result is a lean row (:data:`~mgqa_platform.question_schema.LOCALIZED_SCHEMA`): everything else
(gold, query, gold triples, strata...) stays in the English record. A question keeps its
``question_id`` in every language, so ``(question_id, lang)`` is the key and ids line up across
languages. English itself is not rendered here: its slice copies ``questions_en``
(``stage.localize_language``).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from babel import Locale
from babel.dates import format_date, format_interval, format_skeleton
from babel.numbers import format_decimal
from babel.units import get_unit_name

from mgqa_platform import lexicon
from mgqa_platform.kg.names import without_article
from mgqa_platform.languages import SOURCE, language
from mgqa_platform.lexicon import MONTHS
from mgqa_platform.marks import mark, unmark
from mgqa_platform.multilingual.events import EventFacts, event_phrase
from mgqa_platform.multilingual.grammar import (
    Agreeing,
    Noun,
    capitalize_start,
    elide_before_names,
)
from mgqa_platform.multilingual.memory import TranslationMemory
from mgqa_platform.multilingual.names import Designated, Qualified
from mgqa_platform.multilingual.periods import period_phrase
from mgqa_platform.multilingual.placeholders import placeholders
from mgqa_platform.questions import roles
from mgqa_platform.questions.catalog import Catalog
from mgqa_platform.questions.multimodal import sentence_case

#: "the place shown in the image" (the multimodal slice's stand-in for an entity name), per
#: language.
IMAGE_PHRASES = {
    "fra": "le lieu montré sur l'image",
    "ita": "il luogo mostrato nell'immagine",
    "por": "o local mostrado na imagem",
    "ron": "locul din imagine",
    "spa": "el lugar que se ve en la imagen",
    "bul": "мястото, показано на изображението",
    "rus": "место, показанное на изображении",
    "deu": "der im Bild gezeigte Ort",
    "urd": "تصویر میں دکھائی گئی جگہ",
    "sqi": "vendi që shfaqet në imazh",
    "ell": "ο τόπος που εικονίζεται στην εικόνα",
    "jpn": "画像に写っている場所",
    "kat": "სურათზე ნაჩვენები ადგილი",
    "tur": "resimde gösterilen yer",
    "vie": "địa điểm trong hình ảnh",
    "zho": "图片中显示的地点",
}
#: unit words of parameter values (``scale_unit``) -> CLDR unit ids.
UNIT_PARAMETERS = {"km simplification": "length-kilometer"}
#: symbols where CLDR's short form is not in the language's script: CLDR ``bg`` writes "km",
#: Bulgarian typography writes "км" (as Russian, where CLDR has it).
UNIT_SYMBOLS = {("bul", "length-kilometer"): "км"}
_FIRST_SLOT = re.compile(r"^\W*\{(\w+)")
_RANGE = re.compile(r"^(\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2})$")


def format_number(value: Any, lang: str) -> str:
    """A parameter number in the language's locale: ints without decimals, floats as written (no
    rounding)."""
    loc = language(lang).babel
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"not a number: {value!r}")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return format_decimal(value, locale=loc, group_separator=abs(value) >= 10_000)
    decimals = len(repr(value).split(".")[1]) if "." in repr(value) else 0
    return format_decimal(value, format=f"#,##0.{'0' * decimals}", locale=loc)


def long_date(day: _dt.date, lang: str) -> str:
    """A full date in the language's CLDR long form; French writes the first of a month "1er"
    ("1er janvier 2016"), the one ordinal CLDR's long form leaves out."""
    text = format_date(day, format="long", locale=language(lang).babel)
    if lang == "fra" and day.day == 1:
        text = re.sub(r"^1(?=\s)", "1er", text)
    return text


def format_range(start: _dt.date, end: _dt.date, lang: str, tm: TranslationMemory) -> str | None:
    """A date range in the language: whole months as CLDR's month interval (skeleton ``yMMMM``:
    "janvier – décembre 2016", "2016年1月～12月"); other ranges as CLDR's day interval ``yMMMMd``
    where the locale has one, else the memory's ``time_range`` with long dates (None without it)."""
    loc = language(lang).babel
    whole_months = start.day == 1 and (end + _dt.timedelta(days=1)).day == 1
    if whole_months:
        return format_interval(start, end, "yMMMM", locale=loc)
    if "yMMMMd" in Locale.parse(loc).interval_formats:
        return format_interval(start, end, "yMMMMd", locale=loc)
    if "time_range" not in tm.patterns:
        return None
    return tm.patterns["time_range"].format(start=long_date(start, lang), end=long_date(end, lang))


def format_period(value: str, lang: str, tm: TranslationMemory) -> str | None:
    """A time period of the English record in the language, or None when its shape is unknown.
    ``2016-01-01 to 2016-12-31`` -> :func:`format_range`; ``2016-01-01`` -> :func:`long_date`;
    ``November 2015`` -> month and year with CLDR's ``yMMMM`` skeleton ("noviembre de 2015",
    "2015年11月"); ``2015`` -> as is."""
    if re.fullmatch(r"\d{4}", value):
        return value
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return long_date(_dt.date.fromisoformat(value), lang)
    m = _RANGE.match(value)
    if m:
        start, end = (_dt.date.fromisoformat(d) for d in m.groups())
        return format_range(start, end, lang, tm)
    parts = value.split(" ")
    if len(parts) == 2 and parts[0] in MONTHS and parts[1].isdigit():
        month = _dt.date(int(parts[1]), MONTHS.index(parts[0]) + 1, 1)
        return format_skeleton("yMMMM", month, locale=language(lang).babel)
    return None


def format_unit_symbol(value: str, lang: str) -> str | None:
    """The short symbol of a unit word that a parameter inserts (``km simplification`` -> "km",
    "км" in Russian, "χλμ." in Greek: :data:`UNIT_SYMBOLS` where CLDR's is not in the language's
    script, else CLDR's short unit name), or None for a value naming no known unit."""
    unit = UNIT_PARAMETERS.get(value)
    if unit is None:
        return None
    return UNIT_SYMBOLS.get((lang, unit)) or get_unit_name(
        unit, length="short", locale=language(lang).babel
    )


def localize(
    questions: Iterable[Mapping[str, Any]],
    lang: str,
    templates: Mapping[str, tuple[str, str]],
    tm: TranslationMemory,
    labels: Mapping[str, str],
    display: Mapping[str, str],
    catalog: Catalog,
    events: Mapping[str, EventFacts] | None = None,
    qualifiers: Mapping[str, Qualified | Designated] | None = None,
) -> tuple[list[dict], Counter]:
    """Localized rows of ``questions`` (records of ``questions_en``) in ``lang`` (not English), and
    a counter of fallbacks by kind.

    ``templates``: variant id -> (resolved template text, its status); ``labels``: entity id ->
    label in ``lang``; ``display``: entity id -> the English display name; ``events``: entity id ->
    the facts of an earthquake or fire, named in the language in its slot (:func:`place_events`);
    ``qualifiers``: entity id -> the parts of an English display name that carries a category word
    (:func:`~mgqa_platform.multilingual.names.display_qualifiers`). A record whose
    template is missing raises KeyError (the resolved templates cover every variant: a blocking
    check guarantees it)."""
    if lang == SOURCE:
        raise ValueError("English is not re-rendered: its slice copies questions_en")
    names = _Names(lang, tm, labels, display, qualifiers or {})
    out, used = [], Counter()
    for q in questions:
        sub = catalog.sub_template(q["sub_template_id"])
        bindings = _as_dict(q["bindings"])
        params = _as_dict(q["parameters"] or {})
        stored, status = templates[q["variant_id"]]
        template, named = place_events(
            stored, sub.roles, bindings, q["image_role"], lang, events or {}
        )
        template, period = place_period(template, params, lang)
        filling = _Filling({**{k: mark(v) for k, v in named.items()}, **period})
        entity_names = _fill_slots(q, template, sub.roles, bindings, params, filling, names)
        fill, fallbacks = filling.fill, filling.fallbacks
        fixed = {s: unmark(fill[s]) for s in fill if s in named or s == q["image_role"]}
        _place_distinct_names(entity_names, bindings, fixed, filling, names)
        used.update(f.split(":")[0] for f in fallbacks)
        text, text_marked = _render(template, fill, lang, sub.roles, q["image_role"])
        out.append(
            {
                "lang": lang,
                "question_id": q["question_id"],
                "text": text,
                "text_marked": text_marked,
                "template_text": stored,
                "template_status": status,
                "fallbacks": json.dumps(fallbacks),
            }
        )
    return out, used


@dataclass(frozen=True)
class _Names:
    """What naming an entity in ``lang`` reads: the memory, the labels in the language, the
    English display names and their qualifiers (see :func:`localize`)."""

    lang: str
    tm: TranslationMemory
    labels: Mapping[str, str]
    display: Mapping[str, str]
    qualifiers: Mapping[str, Qualified | Designated]


@dataclass
class _Filling:
    """One question's slot values as they are filled, and the fallbacks taken on the way (see
    :func:`localize`)."""

    fill: dict
    fallbacks: list[str] = field(default_factory=list)


def _as_dict(value: str | Mapping) -> dict:
    """A JSON object column as a dict (DuckDB gives JSON text, Arrow a mapping)."""
    return json.loads(value or "{}") if isinstance(value, str) else dict(value)


def _fill_slots(
    q: Mapping[str, Any],
    template: str,
    slot_roles: Mapping[str, Any],
    bindings: Mapping[str, str],
    params: Mapping[str, Any],
    filling: _Filling,
    names: _Names,
) -> dict[str, str]:
    """Fill each open slot of ``template`` into ``filling``: a category role with its noun, the
    image role with the image phrase, a parameter with its localized word; returns the name chosen
    for each entity slot (placed later, once names are made distinct). Records every fallback in
    ``filling``; a slot without a value raises KeyError."""
    lang, tm = names.lang, names.tm
    fill, fallbacks = filling.fill, filling.fallbacks
    entity_names: dict[str, str] = {}
    for slot in dict.fromkeys(placeholders(template)):
        if slot in fill:
            continue
        if slot in slot_roles and roles.is_category(slot_roles[slot]):
            if tm.category(bindings[slot]) is None:
                fallbacks.append(f"category:{slot}")
            fill[slot] = tm.noun(bindings[slot], lexicon.label(bindings[slot]))
        elif slot in slot_roles:
            eid = bindings[slot]
            if slot == q["image_role"]:
                fill[slot] = mark(IMAGE_PHRASES[lang])
                continue
            if eid in names.labels:
                name = names.labels[eid]
            else:
                name, said = fallback_name(names.display[eid], names.qualifiers.get(eid), tm)
                fallbacks.append(f"label:{slot}")
                if not said:
                    fallbacks.append(f"qualifier:{slot}")
            entity_names[slot] = name
        elif slot in params:
            fill[slot] = _param(slot, params[slot], lang, tm, fallbacks)
        else:
            raise KeyError(f"{q['question_id']}: template slot {slot!r} has no value")
    return entity_names


def _place_distinct_names(
    entity_names: Mapping[str, str],
    bindings: Mapping[str, str],
    fixed: Mapping[str, str],
    filling: _Filling,
    names: _Names,
) -> None:
    """Place a name in each entity slot of ``filling`` so that two entities never read alike (nor
    like a ``fixed`` name): the first choice where it is distinct, else the next
    (:func:`distinct_names`); records ``unique:`` and ``label:`` fallbacks."""
    choices = {
        s: name_choices(name, bindings[s], names.labels, names.display, names.qualifiers, names.tm)
        for s, name in entity_names.items()
    }
    taken = distinct_names(choices, fixed, bindings)
    fill, fallbacks = filling.fill, filling.fallbacks
    for slot, i in taken.items():
        name = choices[slot][i]
        fill[slot] = mark(name)
        english = name == without_article(names.display.get(bindings[slot], ""))
        if i:
            fallbacks.append(f"unique:{slot}")
        if i and english and f"label:{slot}" not in fallbacks:
            fallbacks.append(f"label:{slot}")


def _render(
    template: str,
    fill: Mapping[str, Any],
    lang: str,
    slot_roles: Mapping[str, Any],
    image_role: str | None,
) -> tuple[str, str]:
    """``(text, text_marked)`` of ``template`` filled with ``fill``: agreeing words see the nouns,
    elisions before names applied, the start capitalized where the template starts with a word,
    sentence case around the image phrase."""
    nouns = {s: v for s, v in fill.items() if isinstance(v, Noun)}
    fill = {s: replace(v, nouns=nouns) if isinstance(v, Agreeing) else v for s, v in fill.items()}
    text_marked = elide_before_names(template.format(**fill), lang)
    text = unmark(text_marked)
    if _starts_with_word(template, slot_roles):
        text, text_marked = capitalize_start(text, lang), capitalize_start(text_marked, lang)
    if image_role:
        text = sentence_case(text, IMAGE_PHRASES[lang])
        text_marked = sentence_case(text_marked, IMAGE_PHRASES[lang])
    return text, text_marked


def _name_key(name: str) -> str:
    """A name as a reader tells names apart: NFC, without case, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


def name_choices(
    name: str,
    eid: str,
    labels: Mapping[str, str],
    display: Mapping[str, str],
    qualifiers: Mapping[str, Qualified | Designated],
    tm: TranslationMemory,
) -> list[str]:
    """The names an entity slot can take, best first, for :func:`distinct_names`: ``name`` (its
    label in the language, or its fallback name); its label with the category word its English
    display name carries, said in the language ("Сант-Жулия-де-Лория (город)"); its English display
    name without article."""
    out = [name]
    qualified, word = qualifiers.get(eid), None
    if isinstance(qualified, Designated):
        if eid in labels:
            out.append(qualified.render_in(tm.lang, labels[eid]))
        qualified = None
    if eid in labels and qualified is not None:
        word = tm.singular(qualified.category)
    if word is not None:
        out.append(Qualified(labels[eid], qualified.category, qualified.rest).render(word))
    if eid in display:
        out.append(without_article(display[eid]))
    return list(dict.fromkeys(out))


def distinct_names(
    choices: Mapping[str, list[str]], fixed: Mapping[str, str], entities: Mapping[str, str]
) -> dict[str, int]:
    """Which name each entity slot of one question takes so that no two different entities read the
    same. ``choices``: slot -> the names the slot can take, best first (its name in the language;
    that name with the category word in the language; the English display name, unique within a KG,
    last); ``fixed``: slot -> a name that stays (an event's description, the image phrase);
    ``entities``: slot -> entity id. Two categories whose words coincide in a language
    ("neighbourhood" and "city quarter" were both *quartier* in French), or one label for a town and
    its region (Russian "Сант-Жулия-де-Лория"), would make two entities one name: each slot of a
    clash takes its next choice, again while a clash is left. Returns slot -> index of the choice
    taken (0 for every slot of a question whose names differ already)."""
    taken = dict.fromkeys(choices, 0)
    while True:
        by_key: dict[str, set[str]] = {}
        current = {s: choices[s][i] for s, i in taken.items()}
        for slot, name in {**fixed, **current}.items():
            by_key.setdefault(_name_key(name), set()).add(slot)
        clash = {
            slot
            for slots in by_key.values()
            if len({entities[s] for s in slots}) > 1
            for slot in slots
            if slot in taken and taken[slot] + 1 < len(choices[slot])
        }
        if not clash:
            return taken
        for slot in clash:
            taken[slot] += 1


def fallback_name(
    display: str, qualified: Qualified | Designated | None, tm: TranslationMemory
) -> tuple[str, bool]:
    """The name an entity slot without a label in the language takes: the English display name
    without its English article ("the X Fire of 1996"), its category word (``qualified``) replaced
    by the memory's singular, street or locality kept; an administrative region in its designation
    (:class:`Designated`) in the language's pattern, or its name alone. The flag is False when the
    display name has a category word the memory has no singular for (the English word stays)."""
    if qualified is None:
        return without_article(display), True
    if isinstance(qualified, Designated):
        return qualified.render_in(tm.lang), True
    word = tm.singular(qualified.category)
    if word is None:
        return without_article(display), False
    return without_article(qualified.render(word)), True


def place_events(
    template: str,
    slot_roles: Mapping[str, str],
    bindings: Mapping[str, str],
    image_role: str | None,
    lang: str,
    events: Mapping[str, EventFacts],
) -> tuple[str, dict[str, str]]:
    """``template`` with each slot bound to an event (``events``) prepared for its description in
    ``lang`` (:func:`~.events.event_phrase`: the words before and after the slot as that slot needs
    them, the article before it), and the description per slot. A description that starts the
    sentence takes a capital."""
    named: dict[str, str] = {}
    # the last slot first: a slot's rewrite then never changes the words a coordinated slot before
    # it reads
    for slot in reversed(dict.fromkeys(placeholders(template))):
        facts = events.get(bindings.get(slot, "")) if slot in slot_roles else None
        if facts is None or slot == image_role:
            continue
        m = re.search(r"\{" + slot + r"\}", template)
        phrase = event_phrase(facts, lang, template[: m.start()], template[m.end() :])
        prefix, name = phrase.prefix, phrase.name
        if not phrase.before.strip():
            prefix, name = (
                (prefix[:1].upper() + prefix[1:], name)
                if prefix
                else (prefix, name[:1].upper() + name[1:])
            )
        template = f"{phrase.before}{prefix}{{{slot}}}{phrase.after}"
        named[slot] = name
    return template, named


def place_period(template: str, params: Mapping[str, Any], lang: str) -> tuple[str, dict[str, str]]:
    """``template`` with the words around its ``{time_period}`` slot in the case the period needs
    (:func:`~.periods.period_phrase`: "в ноябре 2015 г." for "в период {time_period}"), and the
    period's text by slot; ``template`` and no text where CLDR's own form of the period stays."""
    m = re.search(r"\{time_period\}", template)
    if m is None or not isinstance(params.get("time_period"), str):
        return template, {}
    placed = period_phrase(params["time_period"], lang, template[: m.start()], template[m.end() :])
    if placed is None:
        return template, {}
    before, text, after = placed
    return f"{before}{{time_period}}{after}", {"time_period": text}


def _starts_with_word(template: str, slot_roles: Mapping[str, str]) -> bool:
    """True when ``template`` starts with a slot filled with a word of ours, which then takes a
    capital: a category or a parameter (``uzama değerine göre`` -> ``Uzama ...``), not an entity
    name (``la Tosa``)."""
    m = _FIRST_SLOT.match(template)
    if m is None:
        return False
    role = slot_roles.get(m.group(1))
    return role is None or roles.is_category(role)


def _param(
    slot: str, value: Any, lang: str, tm: TranslationMemory, fallbacks: list[str]
) -> str | Noun | Agreeing:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return format_number(value, lang)
    value = str(value)
    if slot == "time_period":
        text = format_period(value, lang, tm)
    elif value in UNIT_PARAMETERS:
        text = format_unit_symbol(value, lang)
    else:
        text = tm.term(slot, value)
    if text is None:
        fallbacks.append(f"term:{slot}")
        text = value
    return tm.term_noun(slot, value, text) or tm.term_word(slot, value, text) or text
