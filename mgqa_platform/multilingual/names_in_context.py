"""Names in context: the article, case ending or adposition form a language puts with an inserted
proper name.

Plain Python, no Dagster. Every function here decides from what is certain (the name's script, its
last or first letters, the gender of the entity's class noun) and returns ``None`` when it cannot
decide; the caller then uses a construction that needs no inflection of the name (Turkish ``{X} adlı
köye`` "to the village called X", Georgian ``{X}-ის`` as written, Greek without an article). Nothing
here changes a name itself.

* Turkish (:func:`turkish_suffix`): the case suffix after an apostrophe, with vowel harmony (two-
  and four-way) and consonant assimilation (``Paris'ten``, ``Ankara'da``, ``Helsinki'ye``), for
  names whose last word is read in a way the spelling gives away (:func:`turkish_reading`: a
  transparent word, a number read aloud, an abbreviation read letter by letter); where it does not,
  :func:`turkish_named` gives the frame "X adlı köye" ("to the village called X"), whose class noun
  carries the case.
* Georgian (:func:`georgian_suffix`): the genitive-based forms after a hyphen chosen by how the name
  ends (:func:`georgian_sound`: ``{Paris}-ის``, ``{Mokra}-ს``, ``{Portão 1}-ის``; ``-ისთვის`` /
  ``-სთვის``, ``-ისკენ`` / ``-სკენ``, ``-ისგან`` / ``-სგან``, ``-ისა`` / ``-სა``, ``-ით`` /
  ``-თი``).
* Greek (:func:`greek_article`): the definite article of a name by the gender of its class noun
  (:data:`GREEK_GENDER`), contracted with σε (``στο``, ``στη``, ``στον``), with the final -ν of
  ``την`` kept or dropped by the name's first sound.
* Greek (:func:`greek_predicate`): a predicate adjective of the templates (written neuter) agreeing
  with the name it says something about (``Είναι ο {X} γειτονικός``, ``η {X} ... αποσυνδεδεμένη``).
* Russian and Bulgarian (:func:`cyrillic_preposition`): ``в`` / ``с`` / ``к`` before a name whose
  first consonant cluster calls for ``во`` / ``със`` ...
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
    "turkish_reading",
    "turkish_suffix",
    "turkish_case",
    "turkish_named",
    "TURKISH_CLASS_NOUNS",
    "georgian_sound",
    "georgian_suffix",
    "greek_article",
    "GREEK_PREDICATES",
    "greek_predicate",
    "cyrillic_preposition",
    "span_classes",
]

_LATIN_VOWELS = set("aeiouyıöü")
_GEORGIAN_VOWELS = set("აეიოუ")
#: letter sequences whose sound English or French spelling hides (silent letters, diphthongs): a
#: word holding one is not "transparent" and gets no Turkish suffix.
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
#: r-coloured vowels of English spelling: "-er" at the end (Center, River), "ur" / "ir" before a
#: consonant (Church, First)
_R_COLOURED = re.compile(r"er$|[ui]r[^aeiouy]")


def _base(ch: str) -> str:
    """A Latin letter without its accents (``é`` -> ``e``), Turkish ``ö ü ı ç ş ğ`` kept as they
    are."""
    if ch in "öüıçşğ":
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
    """``"vowel"`` or ``"consonant"``: how a Latin- or Georgian-script name ends, or None when the
    spelling does not tell (a digit, a bracket or other non-letter at the end, an acronym in
    capitals, a consonant followed by a final ``e`` that may be silent, a mix of scripts)."""
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
    """True when a Latin-script word is read as it is spelled, letter by letter, closely enough for
    Turkish harmony: Latin letters only, not an acronym, no silent final ``e``, no final ``y`` (a
    vowel or a consonant), none of :data:`_OPAQUE` and no r-coloured vowel (:data:`_R_COLOURED`)."""
    if not _latin(word) or (len(word) > 1 and word.isupper()):
        return False
    low = "".join(_base(c) for c in word.lower())
    if final_sound(word) is None or low.endswith("y"):
        return False
    return not any(seq in low for seq in _OPAQUE) and not _R_COLOURED.search(low)


#: Turkish cases the suffixes of :func:`turkish_suffix` express.
_TR_CASES = ("dat", "abl", "loc", "acc", "gen")
#: the template frames "<name> konum..." / "<name> nesne..." ("the location / object <name>" in a
#: case), singular and plural (a frame shared by two coordinated names), and the case each one
#: stands for.
TURKISH_FRAMES: dict[str, str] = {
    "konumuna": "dat",
    "konumundan": "abl",
    "konumunda": "loc",
    "konumunu": "acc",
    "konumunun": "gen",
    "nesnesine": "dat",
    "nesnesinden": "abl",
    "nesnesinde": "loc",
    "nesnesini": "acc",
    "nesnesinin": "gen",
    "konumlarına": "dat",
    "konumlarından": "abl",
    "konumlarında": "loc",
    "konumlarını": "acc",
    "konumlarının": "gen",
}
_TR_VOICELESS = set("çfhkpsşt")
_TR_VOWELS = set("aeıioöuü")
#: how Turkish reads a number aloud ends: the word for its last non-zero unit (66 -> altı, 40 ->
#: kırk, 100 -> yüz, 2000 -> bin, 10000 -> bin)
_TR_ONES = ("", "bir", "iki", "üç", "dört", "beş", "altı", "yedi", "sekiz", "dokuz")
_TR_TENS = ("", "on", "yirmi", "otuz", "kırk", "elli", "altmış", "yetmiş", "seksen", "doksan")
#: Turkish names of the letters an abbreviation is read by (TDK: be, ce, de ... ; the vowels as
#: themselves).
_TR_LETTERS = {
    **{c: c + "e" for c in "bcçdfghjklmnprsştvyz"},
    **{c: c for c in "aeoöuü"},
}


def _tr_number(digits: str) -> str:
    """The last word of the Turkish reading of the number ``digits`` (``"66"`` -> ``"altı"``)."""
    n = int(digits)
    if n == 0:
        return "sıfır"
    if n % 10:
        return _TR_ONES[n % 10]
    if n % 100:
        return _TR_TENS[n % 100 // 10]
    if n % 1000:
        return "yüz"
    if n % 10**6:
        return "bin"
    return "milyon" if n % 10**9 else "milyar"


def _tr_last_piece(name: str) -> str:
    """The last word of ``name``, and of a word joined by hyphens or slashes its last part
    (``Ambinany-Tsianihy`` -> ``Tsianihy``, ``C/B`` -> ``B``)."""
    pieces = [p for p in re.split(r"[-/]", _last_word(name)) if p]
    return pieces[-1] if pieces else ""


def turkish_reading(name: str) -> str | None:
    """How the end of ``name`` is read aloud in Turkish, in lower-case Turkish letters, or None when
    the spelling does not tell. The last word (its last part after a hyphen or slash) decides:

    * a number is read aloud (``Route 66`` -> ``altı``, ``Portão 1`` -> ``bir``, ``100`` ->
      ``yüz``);
    * a word in capitals without a vowel is an abbreviation read letter by letter, by the Turkish
      letter names (``TRT`` -> ``te``, ``C/B`` -> ``be``); one in capitals ending in A, O or U ends
      in that vowel however it is read (``NATO``, ``FAPA``); other capitals (``ABD``, ``INSS``) are
      undecided;
    * a :func:`transparent_word` is read as spelled (``Helsinki``).
    """
    word = _tr_last_piece(name)
    if word.isdigit() and word.isascii():
        return _tr_number(word)
    if not _latin(word):
        return None
    low = "".join(_base(c) for c in word.lower().replace("i̇", "i"))
    if word.isupper() and len(word) == 1:  # one letter, read by its name (I: ı or i, undecided)
        return _TR_LETTERS.get(low)
    if word.isupper():
        if not any(c in _TR_VOWELS for c in low):
            return _TR_LETTERS.get(low[-1])
        return low if low[-1] in "aou" else None
    return low if transparent_word(word) else None


def _tr_suffix(reading: str, case: str, *, buffer_n: bool = False) -> str:
    """The case suffix (without apostrophe) after a word read ``reading``: A is a/e and I ı/i/u/ü by
    the last vowel; D is t after a voiceless consonant, else d; y and n are the buffer letters after
    a final vowel (``buffer_n``: n in every case, after the possessive ending of a compound,
    ``havalimanı-na``)."""
    vowels = [c for c in reading if c in _TR_VOWELS]
    last = vowels[-1]
    front, rounded = last in "eiöü", last in "oöuü"
    a = "e" if front else "a"
    i = {(False, False): "ı", (True, False): "i", (False, True): "u", (True, True): "ü"}[
        (front, rounded)
    ]
    ends_vowel = reading[-1] in _TR_VOWELS
    d = "t" if reading[-1] in _TR_VOICELESS else "d"
    if buffer_n:
        return (
            "n" + {"dat": a, "acc": i, "gen": i + "n", "loc": "d" + a, "abl": "d" + a + "n"}[case]
        )
    return {
        "dat": ("y" if ends_vowel else "") + a,
        "acc": ("y" if ends_vowel else "") + i,
        "gen": ("n" if ends_vowel else "") + i + "n",
        "loc": d + a,
        "abl": d + a + "n",
    }[case]


def _check_case(case: str) -> None:
    if case not in _TR_CASES:
        raise ValueError(f"unknown Turkish case {case!r}; expected one of {_TR_CASES}")


def turkish_suffix(name: str, case: str) -> str | None:
    """The apostrophe and case suffix Turkish writes after the proper name ``name`` (``"'ye"``,
    ``"'ten"``, ``"'da"``, ``"'yu"``, ``"'nın"``...), or None when :func:`turkish_reading` cannot
    tell how the name ends.

    ``case``: ``dat`` (-(y)A), ``abl`` (-DAn), ``loc`` (-DA), ``acc`` (-(y)I), ``gen`` (-(n)In); A
    is a/e and I ı/i/u/ü by the last vowel; D is t after a voiceless consonant (ç f h k p s ş t),
    else d; y and n are the buffer letters after a final vowel (``Route 66'ya``, ``TRT'de``,
    ``Portão 3'ten``)."""
    _check_case(case)
    reading = turkish_reading(name)
    if reading is None or not any(c in _TR_VOWELS for c in reading):
        return None
    return "'" + _tr_suffix(reading, case)


#: Turkish class nouns: nominative, the stem before a vowel-initial suffix where it differs
#: (softening k -> ğ, a dropped vowel: durak -> durağa, şehir -> şehre), and ``+`` for a compound
#: whose possessive ending takes n before every case (havalimanı -> havalimanına, havalimanından).
_TR_NOUNS: dict[str, str] = {
    "yer": "yer",
    "köy": "köy",
    "mezra": "mezra",
    "kasaba": "kasaba",
    "şehir": "şehir:şehr",
    "mahalle": "mahalle",
    "durak": "durak:durağ",
    "peron": "peron",
    "otogar": "otogar",
    "istasyon": "istasyon",
    "iskele": "iskele",
    "havalimanı": "havalimanı+",
    "yol": "yol",
    "okul": "okul",
    "mağaza": "mağaza",
    "restoran": "restoran",
    "kafe": "kafe",
    "bar": "bar",
    "otel": "otel",
    "hastane": "hastane",
    "eczane": "eczane",
    "klinik": "klinik:kliniğ",
    "postane": "postane",
    "banka": "banka",
    "park": "park",
    "otopark": "otopark",
    "pazar": "pazar",
    "anıt": "anıt",
    "eser": "eser",
    "tepe": "tepe",
    "kapı": "kapı",
    "ibadethane": "ibadethane",
    "şirket": "şirket",
    "benzinlik": "benzinlik:benzinliğ",
    "müze": "müze",
    "sinema": "sinema",
    "karakol": "karakol",
    "kütüphane": "kütüphane",
    "üniversite": "üniversite",
    "ülke": "ülke",
    "eyalet": "eyalet",
    "bölge": "bölge",
    "ilçe": "ilçe",
    "nehir": "nehir:nehr",
    "dere": "dere",
    "deprem": "deprem",
    "yangın": "yangın",
    "bina": "bina",
    "kuaför": "kuaför",
    "büfe": "büfe",
    "fabrika": "fabrika",
    "çeşme": "çeşme",
}
#: the class noun of each category ("X adlı köye": the village called X); other categories: ``yer``.
TURKISH_CLASS_NOUNS: dict[str, str] = {
    "village": "köy",
    "hamlet": "mezra",
    "town": "kasaba",
    "city": "şehir",
    **dict.fromkeys(("neighbourhood", "quarter", "suburb"), "mahalle"),
    **dict.fromkeys(("bus_stop", "stop_position", "stop", "tram_stop"), "durak"),
    "platform": "peron",
    "bus_station": "otogar",
    **dict.fromkeys(("station", "railway_station"), "istasyon"),
    "ferry_terminal": "iskele",
    **dict.fromkeys(("airport", "aerodrome"), "havalimanı"),
    **dict.fromkeys(("road", "street"), "yol"),
    "school": "okul",
    **dict.fromkeys(("restaurant", "fast_food"), "restoran"),
    "cafe": "kafe",
    **dict.fromkeys(("bar", "pub"), "bar"),
    "hotel": "otel",
    "hospital": "hastane",
    "pharmacy": "eczane",
    "clinic": "klinik",
    "post_office": "postane",
    "bank": "banka",
    "park": "park",
    "parking": "otopark",
    "marketplace": "pazar",
    **dict.fromkeys(("memorial", "monument"), "anıt"),
    **dict.fromkeys(("artwork", "tourism_artwork"), "eser"),
    "peak": "tepe",
    "gate": "kapı",
    "place_of_worship": "ibadethane",
    "company": "şirket",
    "fuel": "benzinlik",
    "museum": "müze",
    "cinema": "sinema",
    "police": "karakol",
    "library": "kütüphane",
    "university": "üniversite",
    "country": "ülke",
    "state": "eyalet",
    "administrative_region": "bölge",
    "county": "ilçe",
    "river": "nehir",
    "stream": "dere",
    "earthquake": "deprem",
    "wildfire": "yangın",
    "building": "bina",
    "hairdresser": "kuaför",
    "kiosk": "büfe",
    "works": "fabrika",
    "drinking_water": "çeşme",
    # shops (the lexicon's "... shop", "... store", supermarket)
    **dict.fromkeys(
        """agrarian alcohol antiques art auto_repair baby_goods bag bed beverages bicycle bookmaker
        books
        car_parts carpet chemist clothes coffee computer confectionery convenience copyshop
        cosmetics craft
        department_store doityourself electronics fabric fabrics fashion frozen_food furniture
        general gift
        hardware hifi houseware interior_decoration jewelry kitchen market mobile_phone
        motorcycle_repair
        music musical_instrument outdoor paint parapharmacy pastry pet photo seafood second_hand
        shoes shop
        sports stationery supermarket tea toys tyres variety_store video wine""".split(),
        "mağaza",
    ),
}


def turkish_case(noun: str, case: str) -> str:
    """A Turkish class noun of :data:`_TR_NOUNS` (or its plural with ``-ler``/``-lar``) in ``case``:
    ``turkish_case("durak", "dat") == "durağa"``, ``turkish_case("havalimanı", "abl") ==
    "havalimanından"``, ``turkish_case("yerler", "gen") == "yerlerin"``."""
    _check_case(case)
    plural = noun.endswith(("ler", "lar")) and noun[:-3] in _TR_NOUNS
    spec = _TR_NOUNS[noun[:-3] if plural else noun]
    if plural:
        return noun + _tr_suffix(noun, case)
    compound = spec.endswith("+")
    nominative, _, oblique = spec.rstrip("+").partition(":")
    suffix = _tr_suffix(nominative, case, buffer_n=compound)
    stem = oblique if oblique and suffix[0] in _TR_VOWELS else nominative
    return stem + suffix


def turkish_named(category: str | None, case: str, *, plural: bool = False) -> str:
    """The frame that names a proper name by its class noun, which carries the case, so that the
    name needs no suffix: ``"adlı köye"`` ("X adlı köye": to the village called X) for a village in
    the dative; ``yer`` (place) for a category without a listed noun (:data:`TURKISH_CLASS_NOUNS`)
    or for two coordinated names (``plural``: ``"adlı yerlerin"``)."""
    noun = "yer" if plural else TURKISH_CLASS_NOUNS.get(category or "", "yer")
    if plural:
        noun += "ler"
    return "adlı " + turkish_case(noun, case)


#: Georgian suffixes built on the genitive: (form after a consonant-final name, form after a
#: vowel-final one).
GEORGIAN_PAIRS: tuple[tuple[str, str], ...] = (
    ("ისთვის", "სთვის"),
    ("ისკენ", "სკენ"),
    ("ისგან", "სგან"),
    ("ისა", "სა"),
    ("ის", "ს"),
    ("ით", "თი"),
)


#: a Roman numeral of at most 39 (``II``, ``XIV``): read as an ordinal (მეორე, მეთოთხმეტე), which
#: takes -ის
_ROMAN = re.compile(r"X{0,3}(?:IX|IV|VI{0,3}|I{1,3})|X{1,3}")
#: capital letters whose English names, by which Georgian reads an abbreviation, end in a vowel
#: (ბი, სი, დი, ჯი, ჯეი, კეი, პი, ქიუ, ტი, ვი, დაბლიუ)
_KAT_VOWEL_LETTERS = set("BCDGJKPQTVW")


def georgian_sound(name: str) -> str | None:
    """``"vowel"`` or ``"consonant"``: how Georgian reads the end of ``name``, which chooses the
    genitive form; None when nothing tells. The last word decides, and of a word joined by hyphens,
    slashes or apostrophes its last part (``Escaldes-Engordany``, ``d'Água``):

    * a number, or a Roman numeral after another word, is read as a Georgian numeral (ერთი, რვა,
      მეორე), which takes ``-ის`` like a consonant-final name (``1-ის``, ``Pius XII-ის``);
    * a word in capitals ending in A, I, O, U or Y ends in a vowel however it is read (``FAPA``,
      ``ECO``); ending in F, H, L, M, N, R, S or X, in a consonant; a word in capitals without a
      vowel is read by the letters' English names (``WTC``: ... ტი-სი, a vowel);
    * otherwise :func:`final_sound`.
    """
    words = name.strip().split()
    pieces = [p for p in re.split(r"[-/'’]", words[-1]) if p] if words else []
    if not pieces:
        return None
    word = pieces[-1]
    if word.isdigit() and word.isascii():
        return "consonant"
    if len(words) > 1 and len(pieces) == 1 and _ROMAN.fullmatch(word):
        return "consonant"
    if _latin(word) and word.isupper() and len(word) > 1:
        last = word[-1]
        if last in "AIOUY":
            return "vowel"
        if last in "FHLMNRSX":
            return "consonant"
        if not any(c in "AEIOUY" for c in word) and last in _KAT_VOWEL_LETTERS:
            return "vowel"
        return None
    return final_sound(word)


def georgian_suffix(name: str, suffix: str) -> str | None:
    """The form of a genitive-based Georgian suffix (written after a hyphen) that fits how ``name``
    ends (:func:`georgian_sound`): ``georgian_suffix("Mokra", "ის") == "ს"``,
    ``georgian_suffix("Paris", "სთვის") == "ისთვის"``. None when ``suffix`` is not one of
    :data:`GEORGIAN_PAIRS` (``-ს`` and ``-სა`` alone are also the dative: left alone) or the end is
    unknown."""
    sound = georgian_sound(name)
    if sound is None or suffix in ("ს", "სა"):
        return None
    for consonant_form, vowel_form in GEORGIAN_PAIRS:
        if suffix in (consonant_form, vowel_form):
            return consonant_form if sound == "consonant" else vowel_form
    return None


#: Grammatical gender (m, f, n) of the Greek class noun (singular) of each category: the article a
#: Greek writer puts before a foreign name of that kind ("το Mokra": το χωριό; "η Lisboa": η πόλη).
#: Categories whose class noun is not settled are absent: their names get no article.
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
    # f: η κατοικία, στάση, γειτονιά, τοποθεσία, κωμόπολη, κορυφή, αποβάθρα, εταιρεία, τράπεζα,
    # περιοχή, πύλη, πλατεία, πιάτσα, είσοδος, τουαλέτα, γεννήτρια, ...
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
#: first letters (Latin or Greek, lower case) before which the -ν of την / στην is kept: vowels and
#: the stops and double consonants κ π τ ξ ψ (and the Latin letters standing for them or for γκ μπ
#: ντ τσ τζ).
_KEEP_NU = set("aeiouyαεηιουωάέήίόύώκπτξψkptxcqgbdj")


def greek_article(gender: str, case: str, name: str, *, with_se: bool = False) -> str:
    """The Greek definite article for a name whose class noun has ``gender`` (m, f, n), in ``case``
    (nom, acc, gen), contracted with the preposition σε when ``with_se`` (accusative only: στον,
    στη(ν), στο). The feminine accusative keeps its -ν before a vowel or a stop (``την
    Antseranambe``, ``στην Kpetiyamah``) and drops it elsewhere (``τη Lisboa``)."""
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


#: predicate adjectives of the Greek templates, written neuter (singular, or plural for two names):
#: the masculine and feminine forms that agree with a name whose class noun has that gender.
GREEK_PREDICATES: dict[str, tuple[str, str]] = {
    "όμορο": ("όμορος", "όμορη"),
    "γειτονικό": ("γειτονικός", "γειτονική"),
    "αποσυνδεδεμένο": ("αποσυνδεδεμένος", "αποσυνδεδεμένη"),
    "τοποθετημένο": ("τοποθετημένος", "τοποθετημένη"),
    "μεγαλύτερο": ("μεγαλύτερος", "μεγαλύτερη"),
    "συμπαγές": ("συμπαγής", "συμπαγής"),
    "επιμήκες": ("επιμήκης", "επιμήκης"),
    "ξένα": ("ξένοι", "ξένες"),
}


def greek_predicate(adjective: str, genders: list[str]) -> str | None:
    """The form of the neuter predicate ``adjective`` (:data:`GREEK_PREDICATES`) that agrees with
    the names it is said of, whose class nouns have ``genders`` (m, f, n): one name gives its
    gender; two names (a plural adjective) give the feminine when both are feminine, the masculine
    when neither is neuter, else the neuter stays. None when the neuter stays or the word is not
    listed."""
    forms = GREEK_PREDICATES.get(adjective)
    if forms is None or not genders or "n" in genders:
        return None
    if len(genders) != (2 if adjective == "ξένα" else 1):
        return None
    return forms[1] if all(g == "f" for g in genders) else forms[0]


#: (language, preposition) -> (long form, first letters of the name that call for it, need a
#: consonant next)
_CYR_LONG = {
    ("rus", "в"): ("во", "вф", True),
    ("rus", "с"): ("со", "сзшж", True),
    ("rus", "к"): ("ко", "кг", True),
    ("bul", "в"): ("във", "вф", False),
    ("bul", "с"): ("със", "сз", False),
}
_CYR_VOWELS = set("аеёиоуыэюяъь")


def cyrillic_preposition(lang: str, prep: str, name: str) -> str | None:
    """The form of a Russian or Bulgarian preposition before a Cyrillic name: Russian во / со / ко
    before в ф / с з ш ж / к г followed by a consonant (``во Владимир``, ``со Смоленском``),
    Bulgarian във / със before в ф / с з (``във Варна``, ``със Созопол``). None when the short form
    stays (or the name is not in Cyrillic)."""
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
    """The category of the entity behind each ``{...}`` span of the question instantiated from
    ``template`` (spans come in the order of the template's bound slots other than ``category_*``; a
    slot used twice gives two spans); None for the image stand-in or an entity of unknown
    category."""
    out: list[str | None] = []
    for slot in placeholders(template):
        if slot not in bindings or slot.startswith("category_"):
            continue
        out.append(None if slot == image_role else categories.get(bindings[slot]))
    return out
