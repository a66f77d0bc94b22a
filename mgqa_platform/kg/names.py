"""Name rules: which entity names an English question may show, and what to show instead.

Pure functions over names, labels and a few entity fields (no DuckDB, no files).
:mod:`mgqa_platform.kg.convert` applies :func:`name_entities` to every entity of a KG before it
disambiguates display names; docs/questions.md ("Display names") states the rules for readers of the
benchmark.

Each rule is a named function, listed in :data:`RULES` with what it checks. An entity takes the
first rule that applies, in this order:

1. ``event_name`` (renames): an earthquake is named by its magnitude and UTC time, a fire by its
   name and year (:func:`event_name`); never by a title that states the position;
2. ``route_sign`` (renames, for a KG whose road labels are US route signs, KnowWhereGraph's): a
   road named "U101" is "US Route 101", "S154" "State Route 154", "I5" "Interstate 5"
   (:func:`route_sign_name`); other codes ("CS20") stay codes;
3. ``stop_code`` (renames): a bus or tram stop, platform or stop position loses the stop number
   before its name and the direction code after it ("166 Roc de Sant Miquel" -> "Roc de Sant
   Miquel", "Getúlio Vargas - 2 C/B" -> "Getúlio Vargas"; :func:`stop_name`); the original is an
   alias;
4. ``other_script`` (renames): a name with letters outside the Latin script is replaced by a Latin
   alternative, a Latin label of the entity (``name:fr`` ...) or the Latin part of a bilingual name
   (:func:`latin_alternative`); ``other_script_kept`` when there is none (the name stays, counted);
5. ``placeholder``, ``code_like``, ``category_word`` (exclude): the entity keeps its name as display
   name but is never bound where its name must identify it (it stays a category member);
6. ``place_name_on_poi`` (renames): a POI named like a settlement, region or country always shows
   its category word, as a reader says it ("the Helsinki tram stop").

``admin_designation`` and ``ambiguous`` are set later, by the disambiguation in SQL: an
administrative region whose bare name is shared is named by its designation ("the parish of La
Massana", :func:`designated_name`) instead of "La Massana (administrative region)", and one
without a designation is ``admin_undesignated`` (not bound by name); ``ambiguous`` is a name
without a rule whose every form is shared.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from mgqa_platform.lexicon import MONTHS, ROAD_CATEGORIES

#: Rule name -> what it checks (the values of ``entities.name_rule``).
RULES: dict[str, str] = {
    "event_name": "an earthquake or fire: named by what it is (magnitude and UTC time; name and "
    "year), never by its source title",
    "route_sign": "a US route sign as a road's name (U101, S154, I5): named as signed, "
    '"US Route 101", '
    '"State Route 154", "Interstate 5"',
    "stop_code": "a transit stop's name with a stop number before it or a direction code after it "
    '("166 Roc de Sant Miquel", "Getúlio Vargas - 2 C/B"): named without them, the original an '
    "alias",
    "other_script": "letters outside the Latin script, replaced by a Latin label of the entity or "
    "the Latin part of a bilingual name",
    "other_script_kept": "letters outside the Latin script and no Latin alternative: kept as the "
    "local name",
    "placeholder": "a placeholder instead of a name (POINT, UNNAMED, unknown, n/a, ?, yes ...)",
    "uncertain": "the mapper marked the name as a guess with a question mark (Antanambao ?, "
    "name ?): a reader cannot tell the name from the doubt",
    "truncated": "brackets that do not pair up, a name cut off at import (Poe (Ducor City, Taylor "
    "E.Mayor Camp (): the rest of the name is lost",
    "code_like": "a code or number with no word (S166, U101, CS20, A-12, 1940)",
    "category_word": "the name is a category word (Kiosk, Borehole, Kiosque, Shopping ...)",
    "place_name_on_poi": "the name of a settlement, region or country on another feature: the "
    'display name always carries the category word ("the Helsinki tram stop")',
    "admin_designation": "an administrative region whose bare name another entity shares: named by "
    'its designation ("the parish of La Massana"), not "La Massana (administrative region)"',
    "admin_undesignated": "an administrative region whose bare name another entity shares and "
    "whose designation neither its tags nor the reviewed table give: never shown with "
    '"(administrative region)", so never bound where its name must identify it',
    "ambiguous": "no form of the name (with category word, street, locality) is unique in the KG",
}

PLACEHOLDERS = frozenset(
    {
        "point",
        "unnamed",
        "no name",
        "noname",
        "nameless",
        "untitled",
        "unknown",
        "undefined",
        "none",
        "null",
        "n/a",
        "n a",
        "yes",
        "fixme",
        "todo",
        "tbd",
        "inconnu",
        "sans nom",
        "sem nome",
        "desconhecido",
        "sin nombre",
        "desconocido",
        "nimeton",
        "tuntematon",
    }
)
#: Placeholder heads that may carry a suffix: "UNNAMED (1985)", "unnamed road", "Unknown 2".
PLACEHOLDER_PREFIX = re.compile(r"^(unnamed|no name|unknown|untitled|nameless)\b")

#: Category words of other languages and English synonyms of OSM categories, reviewed in the
#: sample's OSM extracts (names that only say what the feature is): the common local forms in the
#: sample countries' languages that no translation memory gives as the word of the feature's own
#: category ("Centre de santé" on a clinic, "Font" on a spring). The KG's own category nouns and
#: their translations are added by :func:`category_words`.
REVIEWED_CATEGORY_WORDS = frozenset(
    {
        # English synonyms and generic words
        "borehole",
        "pump",
        "hand pump",
        "tap",
        "water tap",
        "well",
        "shallow well",
        "toilet",
        "manhole",
        "shop",
        "store",
        "church",
        "mosque",
        "chapel",
        "garage",
        "graveyard",
        "cemetery",
        "hangar",
        "grill",
        "kebab",
        # French
        "kiosque",
        "boutique",
        "epicerie",
        "pharmacie",
        "mosquee",
        "eglise",
        "boulangerie",
        "gendarmerie",
        "cimetiere",
        "marche",
        "cuisine",
        "ecole",
        "centre de sante",
        "centre medical",
        "dispensaire",
        "patisserie",
        "salon de coiffure",
        "cyber",
        "cyber cafe",
        "telecentre",
        "terrain de football",
        "menuiserie",
        "atelier",
        # Portuguese ("shopping": a shopping centre in Brazil)
        "shopping",
        "padaria",
        "farmacia",
        "igreja",
        "escola",
        "lanchonete",
        # Catalan (Andorra: spring)
        "font",
        # Malagasy (shop, eatery, church, market, the fokontany's office)
        "tranombarotra",
        "fivarotana",
        "hotely",
        "fiangonana",
        "tsena",
        "fokontany",
        # Finnish
        "kioski",
        "apteekki",
        "kirkko",
    }
)

#: A US route sign as KnowWhereGraph labels its road segments: I (Interstate), U (US Route), S
#: (State Route) and the route number
ROUTE_SIGN = re.compile(r"^(?P<kind>[IUS])-?\s*(?P<number>\d{1,4})$")
ROUTE_KINDS = {"I": ("Interstate", "I-"), "U": ("US Route", "US "), "S": ("State Route", "SR ")}
EARTHQUAKE_CATEGORIES = frozenset({"earthquake"})
FIRE_CATEGORIES = frozenset({"wildfire"})
_FIRE_TITLE = re.compile(r"^(?P<name>.*?)\s*\((?P<year>\d{4})\)\s*$")
#: Categories of transit stops: their names may carry a stop number or a direction code.
STOP_CATEGORIES = frozenset({"bus_stop", "tram_stop", "platform", "stop_position"})
#: A stop number of three to five digits before the name ("166 Roc de Sant Miquel"; Andorra's bus
#: stops), followed by a word with a letter ("3ª Perimetral" and "14 Bis" keep their numbers).
_STOP_NUMBER = re.compile(r"^\d{3,5}\s+(?=\S*[^\W\d_])")
#: A direction code after the name, with its bay number ("Getúlio Vargas - 2 C/B", "Estados
#: Unidos B/C"; São Paulo's bus corridors: C/B centre-bound, B/C suburb-bound).
_DIRECTION_CODE = re.compile(r"(?:\s+-\s*\d{1,2})?\s+[A-Z]/[A-Z]$")


# ---------------------------------------------------------------------------------------- keys
_SEPARATORS = str.maketrans("-_/.", "    ")


@functools.lru_cache(maxsize=4096)
def key(text: str) -> str:
    """Matching key of a name: accents removed, case folded, ``-``, ``_``, ``/`` and ``.`` read as
    spaces, whitespace collapsed. Cached: the rules of one entity take the key of its name
    several times."""
    if text.isascii():  # nothing to decompose, and case folding is lowering
        bare = text.lower()
    else:
        combining = unicodedata.combining
        decomposed = unicodedata.normalize("NFKD", text)
        bare = "".join([ch for ch in decomposed if not combining(ch)]).casefold()
    return " ".join(bare.translate(_SEPARATORS).split())


# ---------------------------------------------------------------------------------------- rules
def placeholder(name: str) -> bool:
    """The name stands for no name: "POINT", "unnamed (1985)", "n/a", "?", "yes" ... (any case)."""
    if not any(map(str.isalnum, name)):
        return True
    k = key(name)
    return k in PLACEHOLDERS or bool(PLACEHOLDER_PREFIX.match(k))


def uncertain(name: str) -> bool:
    """The name carries a question mark (ASCII, full-width or inverted), the mapper's mark of a name
    not known for sure: "Antanambao ?", "Hafia?", "name ?"."""
    return "?" in name or "？" in name or "¿" in name


def truncated(name: str) -> bool:
    """Round or square brackets that do not pair up in order: the name was cut off ("Poe (Ducor
    City", "Taylor E.Mayor Camp (") or is otherwise broken ("Farm )")."""
    if not ("(" in name or ")" in name or "[" in name or "]" in name):
        return False
    open_brackets: list[str] = []
    for ch in name:
        if ch in "([":
            open_brackets.append(ch)
        elif ch in ")]":
            if not open_brackets or open_brackets.pop() != ("(" if ch == ")" else "["):
                return True
    return bool(open_brackets)


def _has_word(name: str) -> bool:
    """A run of at least three letters, or one letter of a script written without spaces (CJK,
    kana, hangul)."""
    run = 0
    for ch in name:
        if ch.isalpha():
            if unicodedata.name(ch, "").startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL")):
                return True
            run += 1
            if run >= 3:
                return True
        else:
            run = 0
    return False


def code_like(name: str) -> bool:
    """A code or a number, no word: no letter at all ("1940", "07"), or a digit and no run of
    three letters ("S166", "U101", "CS20", "A-12", "PK206"). A name with a word besides its code
    is a name ("Route 66", "Beco 2", "7-Eleven"); letters alone are too ("BP", "H&M")."""
    if not any(map(str.isalpha, name)):
        return True
    return any(map(str.isdigit, name)) and not _has_word(name)


def category_words(
    nouns: Iterable[str],
    categories: Iterable[str],
    localized: Mapping[str, Iterable[str]] | None = None,
) -> frozenset[str]:
    """Keys of every word that only names a category. For every entity of the KG: the English
    nouns of the KG's categories (``nouns``), the categories' own values ("toilets", "water well")
    and :data:`REVIEWED_CATEGORY_WORDS`. For a category's own members only: its words in other
    languages (``localized``: category -> its singular and plural in each translation memory), as
    ``<category>/<key>`` ("clinic/clinique"; :func:`key` makes every ``/`` of a name a space), so a
    clinic named "Clinique" is a category word while a metro station named "Mercado" (Portuguese
    and Spanish for marketplace) keeps its name."""
    words = {key(w) for w in (*nouns, *categories)}
    own = {f"{c}/{key(w)}" for c, ws in (localized or {}).items() for w in ws}
    return frozenset(words | own | REVIEWED_CATEGORY_WORDS)


def category_word(name: str, words: frozenset[str], category: str = "") -> bool:
    """The name is (case- and accent-insensitively) one of ``words`` (:func:`category_words`), or
    one of the words of its own ``category`` there."""
    k = key(name)
    return k in words or f"{category}/{k}" in words


def _latin_letter(ch: str) -> bool:
    return ord(ch) < 0x250 or unicodedata.name(ch, "").startswith("LATIN")


def _script(token: str) -> str:
    """``latin``, ``other`` (a letter of another script) or ``neutral`` (digits, punctuation,
    modifier letters, symbols)."""
    if max(token, default="") < "\u0250":  # Latin letters only; isalpha() is Lu, Ll, Lt, Lo here
        return "latin" if any(map(str.isalpha, token)) else "neutral"
    letters = [ch for ch in token if unicodedata.category(ch) in ("Lu", "Ll", "Lt", "Lo")]
    if any(not _latin_letter(ch) for ch in letters):
        return "other"
    return "latin" if letters else "neutral"


def other_script(name: str) -> bool:
    """The name has a letter outside the Latin script (Arabic, Han, Cyrillic ...)."""
    return _script(name) == "other"


def latin_part(name: str) -> str | None:
    """The longest run of words in the Latin script of a mixed-script name, trimmed of the
    separators around it: "Route Nationale 9 / طريق وطني ٩" -> "Route Nationale 9"; None when it
    has none."""
    runs: list[list[str]] = [[]]
    for token in name.split():
        if _script(token) == "other":
            runs.append([])
        else:
            runs[-1].append(token)
    best = None
    for run in runs:
        while run and _script(run[-1]) == "neutral" and not any(c.isdigit() for c in run[-1]):
            run.pop()
        while run and _script(run[0]) == "neutral" and not any(c.isdigit() for c in run[0]):
            run.pop(0)
        if any(_script(t) == "latin" for t in run):
            text = " ".join(run)
            if best is None or len(text) > len(best):
                best = text
    return best


def latin_alternative(name: str, labels: Iterable[tuple[str, str, bool]]) -> str | None:
    """A Latin-script name for an entity whose ``name`` has letters of another script: its first
    Latin label that is no placeholder or code (``labels``: (ISO 639-3 language, label, is_alias);
    language labels before aliases, English first, then by language and label), else
    :func:`latin_part` of the name."""
    latin = [
        (is_alias, lang != "eng", lang, label.strip())
        for lang, label, is_alias in labels
        if _script(label) == "latin" and not (placeholder(label) or code_like(label))
    ]
    if latin:
        return min(latin)[3]
    return latin_part(name)


def route_sign_name(name: str) -> tuple[str, str] | None:
    """(name, short form) of a US route sign: "U101" -> ("US Route 101", "US 101"), "S154" ->
    ("State Route 154", "SR 154"), "I5" -> ("Interstate 5", "I-5"); None for anything else
    ("CS20")."""
    m = ROUTE_SIGN.match(name.strip())
    if not m:
        return None
    long, short = ROUTE_KINDS[m["kind"]]
    number = str(int(m["number"]))
    return f"{long} {number}", f"{short}{number}"


def stop_name(name: str) -> str | None:
    """A transit stop's name without its stop number and direction code ("166 Roc de Sant Miquel"
    -> "Roc de Sant Miquel", "Getúlio Vargas - 2 C/B" -> "Getúlio Vargas"); None when it carries
    neither, or when nothing but a code would be left."""
    bare = name.strip()
    stripped = _DIRECTION_CODE.sub("", _STOP_NUMBER.sub("", bare)).strip(" -,")
    if stripped == bare or not _has_word(stripped) or code_like(stripped):
        return None
    return stripped


def designated_name(name: str, pattern: str | None) -> str | None:
    """``name`` in its designation ``pattern`` ("the parish of {name}" -> "the parish of La
    Massana"; :mod:`mgqa_platform.kg.designations`); None without a pattern, or when the name
    already carries the designation word ("Santa Barbara County" with "{name} County")."""
    if not pattern or "{name}" not in pattern:
        return None
    words = set(key(pattern.replace("{name}", " ")).split()) - {"the", "of", "de", "la", "di"}
    if not words or words & set(key(name).split()):
        return None
    return pattern.format(name=name)


# ---------------------------------------------------------------------------------------- events
def event_instant(valid_from: str) -> dt.datetime | None:
    """The instant of ``valid_from`` (ISO 8601) in UTC (UTC when it has no offset), None when it
    does not parse."""
    try:
        t = dt.datetime.fromisoformat(valid_from.strip())
    except ValueError:
        return None
    return t.astimezone(dt.UTC) if t.tzinfo else t.replace(tzinfo=dt.UTC)


def _magnitude(value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return repr(float(value))


def earthquake_name(magnitude: object, valid_from: str, seconds: bool = False) -> str | None:
    """ "the magnitude 4.9 earthquake of 3 December 2015 at 08:14 UTC" (``seconds``: 08:14:35),
    from the magnitude observation and ``valid_from`` (ISO 8601; UTC when no offset). Without a
    magnitude: "the earthquake of ..."; a ``valid_from`` without a time gives the day only. None
    when the time does not parse."""
    t = event_instant(valid_from)
    if t is None:
        return None
    what = f"magnitude {m} earthquake" if (m := _magnitude(magnitude)) else "earthquake"
    day = f"{t.day} {MONTHS[t.month - 1]} {t.year}"
    if "T" not in valid_from and " " not in valid_from.strip():  # a date only
        return f"the {what} of {day}"
    return f"the {what} of {day} at {t.strftime('%H:%M:%S' if seconds else '%H:%M')} UTC"


def _title_word(word: str) -> str:
    """An upper-case word of a fire title in title case, except vowel-less abbreviations (VMP)."""
    if not any(c in "AEIOUY" for c in word.upper()):
        return word
    return word.title()


def fire_name(name: str, valid_from: str | None) -> str | None:
    """ "the Spanish Fire of 1994" from the MTBS title "SPANISH (1994)": the name part in title case
    when written in capitals, tokens with digits (incident ids) dropped, "Fire" added unless
    present, the year from the title or ``valid_from``. None when the name part is a placeholder
    or empty."""
    m = _FIRE_TITLE.match(name.strip())
    base, year = (m["name"], m["year"]) if m else (name.strip(), (valid_from or "")[:4])
    words = [w for w in base.split() if not any(c.isdigit() for c in w)]
    if not words or placeholder(" ".join(words)):
        return None
    if base.isupper():
        words = [_title_word(w) for w in words]
    if words[-1].casefold() != "fire":
        words.append("Fire")
    of_year = f" of {year}" if year.isdigit() else ""
    return f"the {' '.join(words)}{of_year}"


def event_name(
    category: str, name: str, valid_from: str | None, attributes: Mapping, seconds: bool = False
) -> str | None:
    """The display base of an event entity (:func:`earthquake_name`, :func:`fire_name`), or None
    when the entity is no earthquake or fire, or has no usable name."""
    if not valid_from:
        return None
    if category in EARTHQUAKE_CATEGORIES:
        return earthquake_name(attributes.get("magnitude"), valid_from, seconds)
    if category in FIRE_CATEGORIES:
        return fire_name(name, valid_from)
    return None


def without_article(text: str) -> str:
    """``text`` without a leading "the " (the alias of an event name)."""
    return text[4:] if text.startswith("the ") else text


# ---------------------------------------------------------------------------------------- places
def keys(names: Iterable[str]) -> frozenset[str]:
    """:func:`key` of every name (e.g. the country names of
    :func:`mgqa_platform.strata.countries.country_names`)."""
    return frozenset(key(n) for n in names)


# ---------------------------------------------------------------------------------------- driver
@dataclass(frozen=True)
class Entity:
    """What the rules read of one entity. ``labels``: (ISO 639-3 language, label, is_alias)."""

    entity_id: str
    name: str
    category: str
    valid_from: str | None = None
    attributes: Mapping | None = None
    labels: tuple[tuple[str, str, bool], ...] = ()
    designation: str | None = None  # an admin region's English pattern (kg/designations.py)


@dataclass(frozen=True)
class Naming:
    """The outcome of the rules for one entity: ``base`` (the display name before disambiguation),
    ``rule`` (None: the name as is), ``excluded`` (never bound as an entity role), ``with_category``
    (every display form carries the category word), extra ``aliases`` for scoring and, for an
    administrative region, its ``designated`` form, the disambiguation's form in place of "name
    (administrative region)"."""

    entity_id: str
    base: str
    rule: str | None = None
    excluded: bool = False
    with_category: bool = False
    aliases: tuple[str, ...] = ()
    designated: str | None = None


def _base(e: Entity, seconds: bool, route_signs: bool) -> tuple[str, str | None, tuple[str, ...]]:
    """(base, renaming rule, aliases) before the excluding rules. ``route_signs``: the KG labels its
    roads with US route signs (:func:`route_sign_name`)."""
    named = event_name(e.category, e.name, e.valid_from, e.attributes or {}, seconds)
    if named:
        bare = without_article(named)
        aliases = [bare]
        if e.category in FIRE_CATEGORIES and " of " in bare:  # "Spanish Fire (1994)"
            fire, year = bare.rsplit(" of ", 1)
            aliases.append(f"{fire} ({year})")
        return named, "event_name", tuple(aliases)
    if route_signs and e.category in ROAD_CATEGORIES and (signed := route_sign_name(e.name)):
        return signed[0], "route_sign", signed
    if e.category in STOP_CATEGORIES and (stripped := stop_name(e.name)):
        return stripped, "stop_code", (e.name.strip(),)
    if other_script(e.name):
        alt = latin_alternative(e.name, e.labels)
        if alt:
            return alt, "other_script", (alt,)
        return e.name, "other_script_kept", ()
    return e.name, None, ()


def name_entity(
    e: Entity,
    words: frozenset[str],
    place_names: frozenset[str],
    place_categories: frozenset[str],
    seconds: bool = False,
    route_signs: bool = False,
) -> Naming:
    """The rules applied to one entity, in the module's order. ``words``: :func:`category_words`;
    ``place_names``: keys of the names of settlements, regions and countries; ``place_categories``:
    the categories that are such places (their members keep their own names); ``seconds``: event
    times to the second; ``route_signs``: the KG names roads by US route signs."""
    base, rule, aliases = _base(e, seconds, route_signs)
    if rule == "event_name":
        return Naming(e.entity_id, base, rule, aliases=aliases)
    excluding = (
        ("placeholder", placeholder(base)),
        ("uncertain", uncertain(base)),
        ("truncated", truncated(base)),
        ("code_like", code_like(base)),
        ("category_word", category_word(base, words, e.category)),
    )
    for name, applies in excluding:
        if applies:
            return Naming(e.entity_id, base, name, excluded=True, aliases=aliases)
    if e.category not in place_categories and key(base) in place_names:
        return Naming(e.entity_id, base, "place_name_on_poi", with_category=True, aliases=aliases)
    designated = designated_name(base, e.designation)
    return Naming(e.entity_id, base, rule, aliases=aliases, designated=designated)


def _rule_inputs(e: Entity) -> tuple:
    """Everything of ``e`` that :func:`name_entity` reads besides its id, as a hashable key."""
    attributes = repr(sorted(e.attributes.items())) if e.attributes else None
    return (e.name, e.category, e.valid_from, attributes, e.labels, e.designation)


def name_entities(
    entities: list[Entity],
    words: frozenset[str],
    country_names: frozenset[str],
    place_categories: frozenset[str],
    route_signs: bool = False,
) -> list[Naming]:
    """:func:`name_entity` over every entity of one KG. Place names are the KG's own settlements
    and regions (``place_categories``) plus ``country_names`` (keys). Earthquakes whose minute-level
    name another earthquake shares are named to the second."""
    place_names = country_names | {
        key(_base(e, False, route_signs)[0]) for e in entities if e.category in place_categories
    }
    outcomes: dict[tuple, Naming] = {}  # the rules' outcome per distinct input: names repeat
    first = []
    for e in entities:
        inputs = _rule_inputs(e)
        n = outcomes.get(inputs)
        if n is None:
            n = outcomes[inputs] = name_entity(
                e, words, place_names, place_categories, False, route_signs
            )
        first.append(
            dataclasses.replace(n, entity_id=e.entity_id) if n.entity_id != e.entity_id else n
        )
    events = Counter(n.base for n in first if n.rule == "event_name")
    return [
        name_entity(e, words, place_names, place_categories, True, route_signs)
        if n.rule == "event_name" and e.category in EARTHQUAKE_CATEGORIES and events[n.base] > 1
        else n
        for e, n in zip(entities, first, strict=True)
    ]
