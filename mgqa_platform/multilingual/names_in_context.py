"""Names in context: the article, case ending or adposition form a language puts with an inserted proper name.

Plain Python, no Dagster. Every function here decides from what is certain (the name's script, its last or
first letters, the gender of the entity's class noun) and returns ``None`` when it cannot decide; the caller
then leaves the template's own frame in place (Turkish ``{X} konumuna`` "to the location X", Georgian
``{X}-ს``, Greek without an article), which needs no inflection. Nothing here changes a name itself.

* Turkish (:func:`turkish_suffix`): the case suffix after an apostrophe, with vowel harmony (two- and
  four-way) and consonant assimilation (``Paris'ten``, ``Ankara'da``, ``Helsinki'ye``), for names whose
  pronunciation the spelling gives away (:func:`transparent_word`).
* Georgian (:func:`georgian_suffix`): the genitive-based forms after a hyphen chosen by the name's final
  sound (``{Paris}-ის``, ``{Mokra}-ს``; ``-ისთვის`` / ``-სთვის``, ``-ისკენ`` / ``-სკენ``, ``-ისგან`` /
  ``-სგან``, ``-ით`` / ``-თი``).
* Greek (:func:`greek_article`): the definite article of a name by the gender of its class noun
  (:data:`GREEK_GENDER`), contracted with σε (``στο``, ``στη``, ``στον``), with the final -ν of ``την`` kept
  or dropped by the name's first sound.
* Russian and Bulgarian (:func:`cyrillic_preposition`): ``в`` / ``с`` / ``к`` before a name whose first
  consonant cluster calls for ``во`` / ``със`` ...
* :func:`span_classes`: the category of the entity behind each ``{...}`` span of a marked question.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from mgqa_platform.multilingual.placeholders import placeholders

__all__ = [
    "GREEK_GENDER",
    "TURKISH_FRAMES",
    "GEORGIAN_PAIRS",
    "final_sound",
    "transparent_word",
    "turkish_suffix",
    "georgian_suffix",
    "greek_article",
    "cyrillic_preposition",
    "span_classes",
]

_LATIN_VOWELS = set("aeiouyıöü")
_GEORGIAN_VOWELS = set("აეიოუ")
#: letter sequences whose sound English or French spelling hides (silent letters, diphthongs): a word
#: holding one is not "transparent" and gets no Turkish suffix.
_OPAQUE = (
    "ea",
    "ee",
    "oo",
    "ou",
    "ow",
    "aw",
    "ew",
    "ay",
    "ey",
    "oy",
    "ai",
    "ei",
    "ie",
    "ue",
    "au",
    "eu",
    "gh",
    "th",
    "w",
    "q",
    "x",
)
#: r-coloured vowels of English spelling: "-er" at the end (Center, River), "ur" / "ir" before a consonant
#: (Church, First)
_R_COLOURED = re.compile(r"er$|[ui]r[^aeiouy]")


def _base(ch: str) -> str:
    """A Latin letter without its accents (``é`` -> ``e``), Turkish ``ö ü ı`` kept as they are."""
    if ch in "öüı":
        return ch
    return unicodedata.normalize("NFD", ch)[0]


def _last_word(name: str) -> str:
    parts = name.strip().split()
    return parts[-1] if parts else ""


def _latin(word: str) -> bool:
    return bool(word) and all(
        c.isalpha() and unicodedata.name(c, "").startswith("LATIN") for c in word
    )


def final_sound(name: str) -> str | None:
    """``"vowel"`` or ``"consonant"``: how a Latin- or Georgian-script name ends, or None when the spelling
    does not tell (a digit, a bracket or other non-letter at the end, an acronym in capitals, a consonant
    followed by a final ``e`` that may be silent, a mix of scripts)."""
    word = _last_word(name)
    if not word or not word[-1].isalpha():
        return None
    if all(c in "აბგდევზთიკლმნოპჟრსტუფქღყშჩცძწჭხჯჰ" for c in word):
        return "vowel" if word[-1] in _GEORGIAN_VOWELS else "consonant"
    if not _latin(word) or (len(word) > 1 and word.isupper()):
        return None
    low = "".join(_base(c) for c in word.lower())
    if len(low) > 1 and low[-1] == "e" and low[-2] not in _LATIN_VOWELS:
        return None
    return "vowel" if low[-1] in _LATIN_VOWELS else "consonant"


def transparent_word(word: str) -> bool:
    """True when a Latin-script word is read as it is spelled, letter by letter, closely enough for Turkish
    harmony: Latin letters only, not an acronym, no silent final ``e``, no final ``y`` (a vowel or a
    consonant), none of :data:`_OPAQUE` and no r-coloured vowel (:data:`_R_COLOURED`)."""
    if not _latin(word) or (len(word) > 1 and word.isupper()):
        return False
    low = "".join(_base(c) for c in word.lower())
    if final_sound(word) is None or low.endswith("y"):
        return False
    return not any(seq in low for seq in _OPAQUE) and not _R_COLOURED.search(low)


#: Turkish cases the suffixes of :func:`turkish_suffix` express.
_TR_CASES = ("dat", "abl", "loc", "acc", "gen")
#: the template frames "<name> konum..." ("the location <name>" in a case) and the case each one stands for.
TURKISH_FRAMES: dict[str, str] = {
    "konumuna": "dat",
    "konumundan": "abl",
    "konumunda": "loc",
    "konumunu": "acc",
    "konumunun": "gen",
}
_TR_VOICELESS = set("çfhkpsşt")


def turkish_suffix(name: str, case: str) -> str | None:
    """The apostrophe and case suffix Turkish writes after the proper name ``name`` (``"'ye"``, ``"'ten"``,
    ``"'da"``, ``"'yu"``, ``"'nın"``...), or None when the name's last word is not :func:`transparent_word`.

    ``case``: ``dat`` (-(y)A), ``abl`` (-DAn), ``loc`` (-DA), ``acc`` (-(y)I), ``gen`` (-(n)In); A is a/e
    and I ı/i/u/ü by the last vowel; D is t after a voiceless consonant (ç f h k p s ş t), else d; y and n
    are the buffer letters after a final vowel."""
    if case not in _TR_CASES:
        raise ValueError(f"unknown Turkish case {case!r}; expected one of {_TR_CASES}")
    word = _last_word(name)
    if not transparent_word(word):
        return None
    low = "".join(_base(c) for c in word.lower().replace("i̇", "i"))
    vowels = [c for c in low if c in _LATIN_VOWELS and c != "y"]
    if not vowels:
        return None
    last = vowels[-1]
    front = last in "eiöü"
    rounded = last in "oöuü"
    a = "e" if front else "a"
    i = {(False, False): "ı", (True, False): "i", (False, True): "u", (True, True): "ü"}[
        (front, rounded)
    ]
    ends_vowel = low[-1] in _LATIN_VOWELS
    d = "t" if low[-1] in _TR_VOICELESS else "d"
    suffix = {
        "dat": ("y" if ends_vowel else "") + a,
        "acc": ("y" if ends_vowel else "") + i,
        "gen": ("n" if ends_vowel else "") + i + "n",
        "loc": d + a,
        "abl": d + a + "n",
    }[case]
    return "'" + suffix


#: Georgian suffixes built on the genitive: (form after a consonant-final name, form after a vowel-final one).
GEORGIAN_PAIRS: tuple[tuple[str, str], ...] = (
    ("ისთვის", "სთვის"),
    ("ისკენ", "სკენ"),
    ("ისგან", "სგან"),
    ("ის", "ს"),
    ("ით", "თი"),
)


def georgian_suffix(name: str, suffix: str) -> str | None:
    """The form of a genitive-based Georgian suffix (written after a hyphen) that fits ``name``'s final
    sound: ``georgian_suffix("Mokra", "ის") == "ს"``, ``georgian_suffix("Paris", "სთვის") == "ისთვის"``.
    None when ``suffix`` is not one of :data:`GEORGIAN_PAIRS` (``-ს`` alone is also the dative: left alone)
    or the name's final sound is unknown (:func:`final_sound`)."""
    sound = final_sound(name)
    if sound is None or suffix == "ს":
        return None
    for consonant_form, vowel_form in GEORGIAN_PAIRS:
        if suffix in (consonant_form, vowel_form):
            return consonant_form if sound == "consonant" else vowel_form
    return None


#: Grammatical gender (m, f, n) of the Greek class noun (singular) of each category: the article a Greek
#: writer puts before a foreign name of that kind ("το Mokra": το χωριό; "η Lisboa": η πόλη). Categories
#: whose class noun is not settled are absent: their names get no article.
GREEK_GENDER: dict[str, str] = {
    # m: ο οικισμός, σεισμός, δρόμος, τόπος, χώρος, σταθμός, ποταμός, κινηματογράφος, νομός
    **dict.fromkeys(
        (
            "hamlet",
            "earthquake",
            "road",
            "place",
            "place_of_worship",
            "parking",
            "bus_station",
            "health_post",
            "river",
            "cinema",
            "county",
            "station",
            "ferry_terminal",
            "leisure",
        ),
        "m",
    ),
    # f: η κατοικία, στάση, γειτονιά, τοποθεσία, κωμόπολη, κορυφή, αποβάθρα, εταιρεία, τράπεζα, περιοχή,
    # πύλη, πλατεία, πιάτσα, είσοδος, τουαλέτα, γεννήτρια, ...
    **dict.fromkeys(
        (
            "isolated_dwelling",
            "bus_stop",
            "stop",
            "tram_stop",
            "stop_position",
            "neighbourhood",
            "locality",
            "quarter",
            "town",
            "city",
            "country",
            "state",
            "peak",
            "platform",
            "company",
            "bank",
            "cafe",
            "clinic",
            "railway",
            "subway",
            "marketplace",
            "health_facility",
            "embassy",
            "subway_entrance",
            "car",
            "alcohol",
            "wildfire",
            "library",
            "pub",
            "administrative_region",
            "gate",
            "square",
            "taxi",
            "parking_entrance",
            "toilets",
            "generator",
        ),
        "f",
    ),
    # n: το χωριό, εστιατόριο, προάστιο, σχολείο, κατάστημα, νοσοκομείο, πάρκο, κέντρο, τετράγωνο,
    # μνημείο, ελικοδρόμιο, ...
    **dict.fromkeys(
        (
            "village",
            "restaurant",
            "fast_food",
            "suburb",
            "convenience",
            "supermarket",
            "school",
            "shop",
            "general",
            "clothes",
            "kitchen",
            "electronics",
            "furniture",
            "mobile_phone",
            "car_parts",
            "gift",
            "shoes",
            "sports",
            "beverages",
            "computer",
            "optician",
            "craft",
            "trade",
            "art",
            "bicycle",
            "farm",
            "hairdresser",
            "bar",
            "hardware",
            "pharmacy",
            "hotel",
            "hospital",
            "fuel",
            "information",
            "drinking_water",
            "survey_point",
            "park",
            "kiosk",
            "car_repair",
            "jewelry",
            "police",
            "copyshop",
            "travel_agency",
            "office",
            "beauty",
            "aerodrome",
            "airport",
            "tailor",
            "bakery",
            "post_office",
            "townhall",
            "building",
            "books",
            "photo",
            "artwork",
            "tourism_artwork",
            "butcher",
            "nightclub",
            "community_centre",
            "sports_centre",
            "mall",
            "works",
            "video",
            "greengrocer",
            "memorial",
            "university",
            "water_well",
            "kindergarten",
            "doctors",
            "attraction",
            "bureau_de_change",
            "museum",
            "pitch",
            "stream",
            "city_block",
            "monument",
            "helipad",
        ),
        "n",
    ),
}

_GREEK_ARTICLES = {
    "nom": {"m": "ο", "f": "η", "n": "το"},
    "acc": {"m": "τον", "f": "την", "n": "το"},
    "gen": {"m": "του", "f": "της", "n": "του"},
}
#: first letters (Latin or Greek, lower case) before which the -ν of την / στην is kept: vowels and the
#: stops and double consonants κ π τ ξ ψ (and the Latin letters standing for them or for γκ μπ ντ τσ τζ).
_KEEP_NU = set("aeiouyαεηιουωάέήίόύώκπτξψkptxcqgbdj")


def greek_article(gender: str, case: str, name: str, *, with_se: bool = False) -> str:
    """The Greek definite article for a name whose class noun has ``gender`` (m, f, n), in ``case`` (nom,
    acc, gen), contracted with the preposition σε when ``with_se`` (accusative only: στον, στη(ν), στο).
    The feminine accusative keeps its -ν before a vowel or a stop (``την Antseranambe``, ``στην Kpetiyamah``)
    and drops it elsewhere (``τη Lisboa``)."""
    if gender not in ("m", "f", "n"):
        raise ValueError(f"unknown gender {gender!r}")
    if case not in _GREEK_ARTICLES:
        raise ValueError(f"unknown case {case!r}")
    if with_se and case != "acc":
        raise ValueError("σε contracts with the accusative article only")
    art = _GREEK_ARTICLES[case][gender]
    if art == "την":
        first = unicodedata.normalize("NFD", name.strip()[:1].lower())[:1]
        if first not in _KEEP_NU:
            art = "τη"
    return "σ" + art if with_se else art


#: (language, preposition) -> (long form, first letters of the name that call for it, need a consonant next)
_CYR_LONG = {
    ("rus", "в"): ("во", "вф", True),
    ("rus", "с"): ("со", "сзшж", True),
    ("rus", "к"): ("ко", "кг", True),
    ("bul", "в"): ("във", "вф", False),
    ("bul", "с"): ("със", "сз", False),
}
_CYR_VOWELS = set("аеёиоуыэюяъь")


def cyrillic_preposition(lang: str, prep: str, name: str) -> str | None:
    """The form of a Russian or Bulgarian preposition before a Cyrillic name: Russian во / со / ко before
    в ф / с з ш ж / к г followed by a consonant (``во Владимир``, ``со Смоленском``), Bulgarian във / със
    before в ф / с з (``във Варна``, ``със Созопол``). None when the short form stays (or the name is not
    in Cyrillic)."""
    rule = _CYR_LONG.get((lang, prep.lower()))
    word = name.strip()
    if rule is None or len(word) < 2:
        return None
    long_form, letters, need_consonant = rule
    first, second = word[0].lower(), word[1].lower()
    if not unicodedata.name(word[0], "").startswith("CYRILLIC") or first not in letters:
        return None
    if need_consonant and (not second.isalpha() or second in _CYR_VOWELS):
        return None
    return long_form[0].upper() + long_form[1:] if prep[:1].isupper() else long_form


def span_classes(
    template: str,
    bindings: Mapping[str, str],
    categories: Mapping[str, str],
    image_role: str | None = None,
) -> list[str | None]:
    """The category of the entity behind each ``{...}`` span of the question instantiated from ``template``
    (spans come in the order of the template's bound slots other than ``category_*``; a slot used twice gives
    two spans); None for the image stand-in or an entity of unknown category."""
    out: list[str | None] = []
    for slot in placeholders(template):
        if slot not in bindings or slot.startswith("category_"):
            continue
        out.append(None if slot == image_role else categories.get(bindings[slot]))
    return out
