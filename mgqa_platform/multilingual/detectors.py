"""Per-language error detectors: pure functions from a localized question to the errors they find.

Every detector reads ``text_marked`` (the question with each inserted entity name wrapped in
``{...}``) and returns the offending snippets, an empty list when it finds nothing. Detectors that
judge the words around the names see the names masked (:func:`masked`), so a name never triggers a
grammar rule by its own spelling; the detectors about names (the Greek article, the Georgian
genitive) read the braces themselves.

They are regex lower bounds, not parsers: a row they flag is wrong, a row they pass may still be
wrong. The gender of the category nouns comes from small tables below (the head nouns that occur in
the bundled translation memory), so the detectors judge today's output without any grammar data of
the memory.

:data:`DETECTORS` lists them per language; :func:`detect` runs a language's detectors on one
question and :func:`rates` gives, per detector, the share of questions it flags.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from opencc_purepy import OpenCC

from mgqa_platform import lexicon
from mgqa_platform.multilingual import memory

#: What stands for an entity name in :func:`masked` text (U+FFFC OBJECT REPLACEMENT CHARACTER).
NAME = "\ufffc"
_SPAN = re.compile(r"\{[^{}]*\}")
#: Share of questions above which a detector's check warns (issue 18), and the Greek article's own.
DEFAULT_THRESHOLD = 0.005
GREEK_ARTICLE_THRESHOLD = 0.02


def masked(text_marked: str) -> str:
    """``text_marked`` with every ``{name}`` replaced by :data:`NAME`."""
    return _SPAN.sub(NAME, text_marked)


def _words(*words: str) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


def _finder(pattern: str, flags: int = 0, *, marked: bool = False) -> Callable[[str], list[str]]:
    """A detector that returns every match of ``pattern`` (on the masked text unless ``marked``)."""
    rx = re.compile(pattern, flags)

    def find(text_marked: str) -> list[str]:
        text = text_marked if marked else masked(text_marked)
        return [m.group(0) for m in rx.finditer(text)]

    return find


# ------------------------------------------------------------------ gender of category head nouns
#: Feminine plural head nouns of the Spanish category labels.
SPA_FEMININE = frozenset(
    """ONG agencias aldeas asociaciones atracciones autoescuelas bibliotecas bocas boutiques
    cafeterías
    carnicerías carpinterías carreteras casas ciudades clínicas comisarías confiterías
    construcciones copisterías
    discotecas droguerías duchas embajadas empresas entradas escuelas estaciones farmacias
    ferreterías
    floristerías fruterías funerarias galerías gasolineras granjas guarderías heladerías herrerías
    instalaciones
    joyerías jugueterías librerías manzanas obras oficinas panaderías papelerías paradas pastelerías
    peluquerías
    piscinas plantas plazas posiciones puertas sastrerías tiendas universidades viviendas vías
    zapaterías zonas
    ópticas""".split()
)
#: Feminine plural head nouns of the Portuguese category labels.
POR_FEMININE = frozenset(
    """ONGs academias agências alfaiatarias associações atrações autoescolas bibliotecas bilheterias
    butiques
    caixas casas cidades clínicas concessionárias confeitarias copiadoras delegacias delicatéssens
    drogarias
    embaixadas empresas entradas escolas estações estradas estruturas faculdades faixas farmácias
    fazendas
    ferrovias floriculturas funerárias fábricas galerias habitações imobiliárias instalações
    joalherias
    lanchonetes livrarias locadoras localidades lojas marinas obras oficinas padarias papelarias
    paradas
    passagens piscinas plataformas posições praças prefeituras quitandas rodoviárias sorveterias
    universidades
    videolocadoras vilas áreas óticas""".split()
)
#: Feminine plural head nouns of the Italian category labels (they take "le", never "i" or "gli").
ITA_FEMININE = frozenset(
    """agenzie ambasciate aree associazioni attrazioni autofficine autoscuole autostazioni aziende
    banche
    banchine biblioteche biglietterie boutique cartolerie case cassette cittadine città cliniche
    concessionarie
    contee copisterie discoteche docce drogherie fabbriche farmacie fattorie fermate ferrovie
    frazioni gallerie
    gastronomie gelaterie gioiellerie librerie località macellerie officine opere palestre
    panetterie
    pasticcerie piazze piscine rivendite sartorie scuole stazioni strade strutture
    università""".split()
)
#: Feminine plural head nouns of the French category labels (they take "quelles", "toutes").
FRA_FEMININE = frozenset(
    """ONG agences aires ambassades animaleries associations attractions auberges auto-écoles
    banlieues banques
    bibliothèques bijouteries billetteries bornes boucheries boulangeries boutiques boîtes cliniques
    confiseries
    douches drogueries entreprises entrées fermes galeries gares habitations mairies marinas
    papeteries
    pharmacies piscines places pompes positions pâtisseries quincailleries routes salles stations
    stations-service supérettes toilettes universités usines villes voies zones écoles épiceries
    œuvres""".split()
)


def _before_feminine(
    determiners: Iterable[str], feminine: frozenset[str]
) -> Callable[[str], list[str]]:
    """A detector of a (masculine) determiner directly before a feminine head noun, sentence-initial
    capitals included."""
    dets = _words(*determiners)
    rx = re.compile(rf"(?<!\w)(?:{dets})\s+(\w[\w-]*)", re.IGNORECASE)

    def find(text_marked: str) -> list[str]:
        return [m.group(0) for m in rx.finditer(masked(text_marked)) if m.group(1) in feminine]

    return find


# ----------------------------------------------------------------- Romance articles and quantifiers
spa_masculine_with_feminine = _before_feminine(
    ("los", "unos", "cuántos", "algunos", "muchos", "estos", "esos", "aquellos", "otros"),
    SPA_FEMININE,
)
spa_masculine_with_feminine.__doc__ = (
    "Spanish: a masculine article or quantifier before a feminine category (``los aldeas``, "
    "``¿cuántos tiendas …?``)."
)

por_masculine_with_feminine = _before_feminine(
    (
        "os",
        "dos",
        "nos",
        "aos",
        "pelos",
        "quantos",
        "todos os",
        "alguns",
        "muitos",
        "estes",
        "esses",
    ),
    POR_FEMININE,
)
por_masculine_with_feminine.__doc__ = (
    "Portuguese: ``os`` (or ``dos/nos/aos/pelos``, "
    "``quantos``) before a feminine category (``os estradas``)."
)

ita_i_with_feminine = _before_feminine(
    ("i", "dei", "ai", "dai", "nei", "sui", "tutti i", "quanti", "alcuni", "molti"), ITA_FEMININE
)
ita_i_with_feminine.__doc__ = (
    "Italian: ``i`` (or ``dei/ai/dai/nei/sui``, ``quanti``) before a feminine noun that "
    "takes ``le`` "
    "(``i strade``)."
)

#: Italian masculine plurals that take "gli": a vowel, s + consonant, z, gn, ps, pn, x, y.
_ITA_GLI_ONSET = re.compile(r"(?:[aeiouàèéìòóù]|s[bcdfgklmnpqrstvz]|z|gn|ps|pn|x|y)", re.IGNORECASE)
_ITA_I = re.compile(r"(?<!\w)(?:i|dei|ai|dai|nei|sui)\s+(\w+)", re.IGNORECASE)


def ita_i_with_gli_noun(text_marked: str) -> list[str]:
    """Italian: ``i`` (or ``dei/ai/dai/nei/sui``) before a masculine noun that takes ``gli`` (``i
    ospedali``, ``i aeroporti``, ``i stadi``)."""
    return [
        m.group(0)
        for m in _ITA_I.finditer(masked(text_marked))
        if _ITA_GLI_ONSET.match(m.group(1)) and m.group(1) not in ITA_FEMININE
    ]


fra_quels_with_feminine = _before_feminine(("quels", "lesquels des", "tous les"), FRA_FEMININE)
fra_quels_with_feminine.__doc__ = (
    "French: ``Quels`` (or ``lesquels des``, ``tous les``) before "
    "a feminine category (``Quels routes``)."
)

_FRA_MONTHS = _words(
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
)
fra_first_of_month = _finder(rf"(?<![\d\w])1\s+(?:{_FRA_MONTHS})\b")
fra_first_of_month.__doc__ = (
    "French: the first of a month written ``1 janvier`` instead of ``1er janvier``."
)

fra_missing_elision = _finder(
    r"(?<![\w'’])(?:de|que|le|la|ne|se|jusque|lorsque|puisque)\s+[aeiouyéèêëàâîïôûùœæ]\w*",
    re.IGNORECASE,
)
fra_missing_elision.__doc__ = (
    "French: ``de``, ``que``, ``le``, ``la`` … kept whole before a vowel outside the names "
    "(``combien de œuvres``; French writes ``d'œuvres``)."
)

# ------------------------------------------------------------------ Greek
ell_name_without_article = _finder(r"(?<!\w)(?:από|Από|σε|Σε)\s+\{", marked=True)
ell_name_without_article.__doc__ = (
    "Greek: a name right after ``από`` or ``σε`` without its article "
    "(``από Shopping João Pessoa``; "
    "Greek writes ``από το …``, ``στο …``)."
)
ell_category_frame = _finder(r"κατηγορίας\s*«")
ell_category_frame.__doc__ = (
    "Greek: the category in a robotic frame "
    "(``στοιχεία της κατηγορίας «…»``) instead of the noun itself."
)
ell_predicate_agreement = _finder(
    r"[Εε]ίναι (?:ο|η) \ufffc(?:(?: και (?:ο|η) \ufffc)?[^;\ufffc]*? ξένα|[^;\ufffc]*? (?:όμορο|"
    r"γειτονικό|αποσυνδεδεμένο|τοποθετημένο|μεγαλύτερο|συμπαγές|επιμήκες))(?!\w)"
)
ell_predicate_agreement.__doc__ = (
    "Greek: a neuter predicate adjective said of a name with a masculine or feminine article "
    "(``Είναι ο {Avenue} … αποσυνδεδεμένο``: ``αποσυνδεδεμένος``)."
)
ell_airport_word = _finder(r"αεροδρόμια μεγάλων πτήσεων|αεροδρομίων μεγάλων πτήσεων")
ell_airport_word.__doc__ = (
    "Greek: ``αεροδρόμια μεγάλων πτήσεων`` (a wrong word) for airports "
    "(``αεροδρόμια`` or ``αερολιμένες``)."
)

# ------------------------------------------------------------------ Cyrillic
rus_category_frame = _finder(r"категори\w*\s*«")
rus_category_frame.__doc__ = "Russian: the category in a robotic frame (``объекты категории «…»``)."
bul_category_frame = _finder(r"категори\w*\s*[„«]")
bul_category_frame.__doc__ = (
    "Bulgarian: the category in a robotic frame (``обекти от категорията „…“``)."
)
latin_km = _finder(r"(?<![\w])km(?![\w])")
latin_km.__doc__ = (
    "Russian, Bulgarian, Urdu: the unit written ``km`` in Latin script (``км``; Urdu ``کلومیٹر``)."
)

# ------------------------------------------------------------------ Urdu
#: words in -یں that are not feminine plurals (the postposition میں, ہیں, نہیں, pronouns)
_URD_NOT_PLURAL = {
    "میں",
    "ہیں",
    "نہیں",
    "کہیں",
    "انہیں",
    "جنہیں",
    "یہیں",
    "وہیں",
    "انھیں",
    "جنھیں",
    "ہمیں",
    "تمہیں",
}
_URD_DIRECT_PLURAL = re.compile(r"(?<!\S)(\S+(?:یں|یاں)) (?:کی|کا|کے|میں|سے|کو|پر|تک)(?!\S)")


def urd_direct_plural(text_marked: str) -> list[str]:
    """Urdu: a plural in the direct case (``-یں``, ``-یاں``) before a postposition, which takes the
    oblique (``سڑکیں کی`` -> ``سڑکوں کی``, ``بستیاں میں`` -> ``بستیوں میں``)."""
    return [
        m.group(0)
        for m in _URD_DIRECT_PLURAL.finditer(masked(text_marked))
        if m.group(1) not in _URD_NOT_PLURAL
    ]


# ------------------------------------------------------------------ Turkish
tur_robotic_frame = _finder(rf"{NAME}\s+(?:konum|nesne)\w*")
tur_robotic_frame.__doc__ = (
    "Turkish: a name carried by a robotic noun "
    "(``… konumuna``, ``… nesnesini``) instead of its own case suffix."
)
_SENTENCE_START = re.compile(r"(?:^|[.?!]\s+)(\w)")


def tur_lowercase_sentence(text_marked: str) -> list[str]:
    """Turkish: a sentence that starts with a lowercase letter (a category word put first)."""
    text = masked(text_marked)
    return [m.group(0).strip() for m in _SENTENCE_START.finditer(text) if m.group(1).islower()]


# ------------------------------------------------------------------ Georgian
kat_quantifier_with_plural = _finder(
    r"(?<!\w)(?:რამდენია|რამდენი|ყველა)\s+(?:[^\s{}?,.;:\ufffc]+\s+){0,2}[^\s{}?,.;:\ufffc]*ები(?![\w])"
)
kat_quantifier_with_plural.__doc__ = (
    "Georgian: ``რამდენია``/``რამდენი``/``ყველა`` with a plural "
    "noun (``-ები``); Georgian counts in the singular."
)
_KAT_GENITIVE = re.compile(r"\{([^{}]*(?:[აეიოუ]|[aiouyAIOUY]))\}-ის")
#: a Roman numeral closing a name (``Pio XII``): read as an ordinal (მეთორმეტე), whose genitive
#: is -ის
_ROMAN_END = re.compile(r"\s(?:X{0,3}(?:IX|IV|VI{0,3}|I{1,3})|X{1,3})$")


def kat_genitive_after_vowel(text_marked: str) -> list[str]:
    """Georgian: ``-ის`` after a vowel-final name (``{Helsinki}-ის``, ``{ბათუმი}-ის``; the genitive
    there is ``-ს``). A Latin final ``e`` is left alone: it is mostly silent (``{Rue de Genéve}-ის``
    is right); so is a closing Roman numeral, read as an ordinal (``{Rua Pio XII}-ის``)."""
    return [
        m.group(0) for m in _KAT_GENITIVE.finditer(text_marked) if not _ROMAN_END.search(m.group(1))
    ]


kat_mtavruli = _finder(r"[\u1c90-\u1cbf]+")
kat_mtavruli.__doc__ = (
    "Georgian: a Mtavruli capital (``Მაღაზიები``) outside the names; Georgian starts a sentence in "
    "Mkhedruli and keeps Mtavruli for headings."
)

kat_category_frame = _finder(r"კატეგორი\w*\s*„")
kat_category_frame.__doc__ = (
    "Georgian: the category in a robotic frame (``ობიექტამდე კატეგორიიდან „…“``)."
)


# ------------------------------------------------------------------ month + year pasted
def _month_year(months: Iterable[str], after: str = "") -> Callable[[str], list[str]]:
    """A detector of a month name directly followed by a year (``after``: what must not follow the
    year)."""
    rx = rf"(?<!\w)(?:{_words(*months)})\s+\d{{4}}(?!\d)"
    return _finder(rx + (f"(?!{after})" if after else ""), re.IGNORECASE)


jpn_month_year = _finder(r"\d{1,2}月\s+\d{4}")
jpn_month_year.__doc__ = "Japanese: ``12月 2015`` (CLDR writes ``2015年12月``)."
zho_month_year = _finder(r"(?:[一二三四五六七八九十]+|\d{1,2})月\s+\d{4}")
zho_month_year.__doc__ = "Chinese: ``十二月 2015`` (CLDR writes ``2015年12月``)."
vie_month_year = _finder(r"(?<!\w)tháng\s+\d{1,2}\s+\d{4}", re.IGNORECASE)
vie_month_year.__doc__ = "Vietnamese: ``Tháng 12 2015`` (CLDR writes ``tháng 12 năm 2015``)."
spa_month_year = _month_year(
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre "
    "diciembre".split()
)
spa_month_year.__doc__ = "Spanish: ``diciembre 2015`` (CLDR writes ``diciembre de 2015``)."
por_month_year = _month_year(
    "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro "
    "dezembro".split()
)
por_month_year.__doc__ = "Portuguese: ``Em dezembro 2015`` (CLDR writes ``dezembro de 2015``)."
rus_month_year = _month_year(
    "январь февраль март апрель май июнь июль август сентябрь октябрь ноябрь декабрь".split(),
    after=r"\s*г\.",
)
rus_month_year.__doc__ = (
    "Russian: a nominative month and year without ``г.`` "
    "(``В период декабрь 2015``; CLDR: ``декабрь 2015 г.``)."
)
bul_month_year = _month_year(
    "януари февруари март април май юни юли август септември октомври ноември декември".split(),
    after=r"\s*г\.",
)
bul_month_year.__doc__ = (
    "Bulgarian: month and year without ``г.`` (CLDR writes ``декември 2015 г.``)."
)


def _period_case(period: str, months: str, flags: int = 0) -> Callable[[str], list[str]]:
    """A detector of the word for "period" followed by a nominative month (``months``: the twelve,
    space-separated) or by a bare year."""
    return _finder(
        rf"(?<!\w){period}\s+(?:(?:{_words(*months.split())})(?!\w)|\d{{4}}(?!\d))", flags
    )


_RUS_MONTHS_NOM = "январь февраль март апрель май июнь июль август сентябрь октябрь ноябрь декабрь"
rus_period_case = _period_case("период", _RUS_MONTHS_NOM, re.IGNORECASE)
rus_period_case.__doc__ = (
    "Russian: a nominative month after ``период`` "
    "(``в период ноябрь 2015 г.``: ``в ноябре 2015 г.``; "
    "``в период январь – декабрь 2015 г.``: ``в период с января по декабрь 2015 г.``), "
    "or a bare year "
    "(``в период 2015``: ``в 2015 г.``)."
)
_ELL_MONTHS_NOM = (
    "Ιανουάριος Φεβρουάριος Μάρτιος Απρίλιος Μάιος Ιούνιος Ιούλιος Αύγουστος Σεπτέμβριος "
    "Οκτώβριος Νοέμβριος Δεκέμβριος"
)
ell_period_case = _period_case("περίοδο", _ELL_MONTHS_NOM)
ell_period_case.__doc__ = (
    "Greek: a nominative month after ``την περίοδο`` "
    "(``την περίοδο Νοέμβριος 2015``: ``τον Νοέμβριο "
    "του 2015``; a range: ``την περίοδο Ιανουαρίου–Δεκεμβρίου 2015``), "
    "or a bare year (``το 2015``)."
)


#: A year named with no word for "year" where the language needs one: zho/jpn ``2015年``, vie ``năm
#: 2015``, tur ``2015 yılında`` (not ``2015 döneminde``: a year is not a period of time named by its
#: number).
zho_bare_year = _finder(r"(?:在|于)\d{4}(?![\d年])")
zho_bare_year.__doc__ = "Chinese: a year without 年 (``在2015发生``, ``发生于2015的``; ``2015年``)."
jpn_bare_year = _finder(r"(?<![\d年月日])\d{4}(?=[にの])")
jpn_bare_year.__doc__ = "Japanese: a year without 年 before a particle (``2015に``; ``2015年に``)."
vie_bare_year = _finder(r"(?<!\w)vào \d{4}(?!\d)", re.IGNORECASE)
vie_bare_year.__doc__ = "Vietnamese: ``vào 2015`` (a year is named ``vào năm 2015``)."
tur_bare_year = _finder(r"(?<![^\W\d_] )(?<!– )(?<!\d)\d{4} dönem")
tur_bare_year.__doc__ = (
    "Turkish: a year alone as a period, ``2015 döneminde`` (``2015 yılında``); a month and "
    "year stay "
    "(``Kasım 2015 döneminde``)."
)


def _period_month(period: str, months: str) -> Callable[[str], list[str]]:
    """A detector of one month and year, or a year, named as a period (``im Zeitraum November
    2015``, ``im Zeitraum 2015``) where the language names the month alone or the year (``im
    November 2015``, ``im Jahr 2015``)."""
    rx = rf"(?<!\w)(?:{period})\s+(?:(?:{_words(*months.split())})\s+)?\d{{4}}(?!\d)"
    return _finder(rx, re.IGNORECASE)


deu_period_month = _period_month(
    "Zeitraum|Zeitraums",
    "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
)
deu_period_month.__doc__ = "German: ``im Zeitraum November 2015`` (``im November 2015``)."
ron_period_month = _period_month(
    "perioada",
    "ianuarie februarie martie aprilie mai iunie iulie august septembrie octombrie "
    "noiembrie decembrie",
)
ron_period_month.__doc__ = "Romanian: ``în perioada noiembrie 2015`` (``în noiembrie 2015``)."
sqi_period_month = _period_month(
    "periudhën|periudhës",
    "janar shkurt mars prill maj qershor korrik gusht shtator tetor nëntor dhjetor",
)
sqi_period_month.__doc__ = (
    "Albanian: ``në periudhën nëntor 2015``, ``gjatë periudhës nëntor 2015`` (``në nëntor 2015``, "
    "``gjatë nëntorit 2015``)."
)
_KAT_MONTHS = (
    "იანვარი თებერვალი მარტი აპრილი მაისი ივნისი ივლისი აგვისტო სექტემბერი ოქტომბერი ნოემბერი "
    "დეკემბერი"
)
kat_period_month = _finder(rf"(?:(?:{_words(*_KAT_MONTHS.split())}),?\s+)?\d{{4}}\s+პერიოდ")
kat_period_month.__doc__ = (
    "Georgian: a month in the nominative before ``პერიოდში`` "
    "(``ნოემბერი, 2015 პერიოდში``: ``2015 წლის "
    "ნოემბერში``), or a year (``2015 პერიოდში``: ``2015 წელს``)."
)

# ------------------------------------------------------------------ Chinese script


@cache
def _t2s() -> OpenCC:
    return OpenCC("t2s")


def zho_traditional(text_marked: str) -> list[str]:
    """Chinese: Traditional characters in Simplified text (``赫爾辛基``): the characters that
    OpenCC's t2s conversion of the whole text changes (whole text, so that a word such as ``著名``
    keeps its ``著``)."""
    text = _SPAN.sub(lambda m: m.group(0)[1:-1], text_marked)
    simplified = _t2s().convert(text)
    if simplified == text:
        return []
    if len(simplified) != len(text):
        return [text]
    return [a for a, b in zip(text, simplified, strict=True) if a != b and _is_han(a)]


def _is_han(char: str) -> bool:
    return unicodedata.name(char, "").startswith("CJK")


# ------------------------------------------------------------------ every language
doubled_space_or_punctuation = _finder(r"  +|([,;:?!？！，。、؟،])\1|(?<!\.)\.\.(?!\.)| [,.](?!\d)")
doubled_space_or_punctuation.__doc__ = (
    "Any language: a doubled space, "
    "a doubled punctuation mark, "
    "or a space before a comma or full stop."
)

#: Latin-script words that every language keeps as they are: identifiers, and the proper names that
#: state a convention (the ``kept`` words of the catalog's ``stated`` entries: a measure, an
#: algorithm, a map).
LATIN_KEPT = frozenset(
    {"km", "token", "geohash", "Polsby-Popper", "Douglas-Peucker", "Natural", "Earth"}
)
_LATIN_WORD = re.compile(r"(?<![A-Za-z'-])[A-Za-z][A-Za-z'-]*[A-Za-z](?![A-Za-z'-])")


def latin_word_left(text_marked: str) -> list[str]:
    """Non-Latin scripts: a Latin-script word outside the entity names (English left between the
    language's words), other than :data:`LATIN_KEPT` (``km`` has its own detector in Russian and
    Bulgarian)."""
    return [w for w in _LATIN_WORD.findall(masked(text_marked)) if w not in LATIN_KEPT]


@cache
def _english_labels(lang: str) -> re.Pattern[str]:
    """The English plural category labels (the lexicon's) with a word that the language's
    translation memory never uses: in that language's text they can only be English left in place of
    the translation."""
    tm = memory.load(lang)
    texts = [e["text"] for e in (*tm.categories.values(), *tm.variants.values())]
    texts += [t for terms in tm.terms.values() for t in terms.values()]
    vocabulary = set(re.findall(r"\w+", " ".join(texts).lower()))
    labels = {
        e.plural
        for e in lexicon.entries().values()
        if not set(re.findall(r"\w+", e.plural.lower())) <= vocabulary
    }
    return re.compile(rf"(?<![\w-])(?:{_words(*map(re.escape, labels))})(?![\w-])")


def english_category(lang: str) -> Callable[[str], list[str]]:
    """Latin scripts: the detector of an English category label left in ``lang``'s text (``¿Qué
    paint shops …?``, a category the memory lacks)."""

    def find(text_marked: str) -> list[str]:
        return _english_labels(lang).findall(masked(text_marked))

    find.__doc__ = english_category.__doc__
    return find


@dataclass(frozen=True)
class Detector:
    """A named detector: ``find(text_marked)`` returns the offending snippets; ``threshold`` is the
    share of a language's questions above which its check warns."""

    name: str
    find: Callable[[str], list[str]]
    threshold: float = DEFAULT_THRESHOLD

    @property
    def description(self) -> str:
        return (self.find.__doc__ or "").strip()


english_event = _finder(r"\{[^{}]*(?:\bearthquake of \d|\b[Ff]ire of \d{4}\b)[^{}]*\}", marked=True)
english_event.__doc__ = (
    "An event named in English in another language "
    "(``{magnitude 4.9 earthquake of 27 November 2015 at "
    "11:40 UTC}``, ``{Haloween Fire of 1997}``): the English display name where the "
    "language has no "
    "name of its own for the event."
)
_DOUBLED = Detector("doubled_space_or_punctuation", doubled_space_or_punctuation)
_LATIN = Detector("latin_word", latin_word_left)

_LATIN_SCRIPT = ("spa", "por", "ita", "fra", "ron", "deu", "sqi", "tur", "vie")
_OWN: dict[str, tuple[Detector, ...]] = {
    "spa": (
        Detector("masculine_with_feminine", spa_masculine_with_feminine),
        Detector("month_year", spa_month_year),
    ),
    "por": (
        Detector("masculine_with_feminine", por_masculine_with_feminine),
        Detector("month_year", por_month_year),
    ),
    "ita": (
        Detector("i_with_feminine", ita_i_with_feminine),
        Detector("i_with_gli_noun", ita_i_with_gli_noun),
    ),
    "fra": (
        Detector("quels_with_feminine", fra_quels_with_feminine),
        Detector("first_of_month", fra_first_of_month),
        Detector("missing_elision", fra_missing_elision),
    ),
    "ron": (Detector("period_case", ron_period_month),),
    "deu": (Detector("period_case", deu_period_month),),
    "sqi": (Detector("period_case", sqi_period_month),),
    "urd": (
        Detector("latin_km", latin_km),
        Detector("direct_plural", urd_direct_plural),
        _LATIN,
    ),
    "ell": (
        Detector("name_without_article", ell_name_without_article, GREEK_ARTICLE_THRESHOLD),
        Detector("category_frame", ell_category_frame),
        Detector("airport_word", ell_airport_word),
        Detector("predicate_agreement", ell_predicate_agreement),
        Detector("period_case", ell_period_case),
        _LATIN,
    ),
    "rus": (
        Detector("category_frame", rus_category_frame),
        Detector("latin_km", latin_km),
        Detector("month_year", rus_month_year),
        Detector("period_case", rus_period_case),
        _LATIN,
    ),
    "bul": (
        Detector("category_frame", bul_category_frame),
        Detector("latin_km", latin_km),
        Detector("month_year", bul_month_year),
        _LATIN,
    ),
    "tur": (
        Detector("robotic_frame", tur_robotic_frame),
        Detector("lowercase_sentence", tur_lowercase_sentence),
        Detector("period_case", tur_bare_year),
    ),
    "kat": (
        Detector("quantifier_with_plural", kat_quantifier_with_plural),
        Detector("genitive_after_vowel", kat_genitive_after_vowel),
        Detector("category_frame", kat_category_frame),
        Detector("mtavruli_capital", kat_mtavruli),
        Detector("period_case", kat_period_month),
        _LATIN,
    ),
    "jpn": (
        Detector("month_year", jpn_month_year),
        Detector("period_case", jpn_bare_year),
        _LATIN,
    ),
    "zho": (
        Detector("month_year", zho_month_year),
        Detector("period_case", zho_bare_year),
        Detector("traditional_characters", zho_traditional),
        _LATIN,
    ),
    "vie": (
        Detector("month_year", vie_month_year),
        Detector("period_case", vie_bare_year),
    ),
}
#: The detectors of each target language, in report order (every language also gets the English
#: event name and the doubled-mark ones).
DETECTORS: dict[str, tuple[Detector, ...]] = {
    lang: (
        *ds,
        *((Detector("english_category", english_category(lang)),) if lang in _LATIN_SCRIPT else ()),
        Detector("english_event", english_event),
        _DOUBLED,
    )
    for lang, ds in _OWN.items()
}


def detectors(lang: str) -> tuple[Detector, ...]:
    """The detectors of ``lang`` (none for English or an unknown code)."""
    return DETECTORS.get(lang, ())


def detect(text_marked: str, lang: str) -> dict[str, list[str]]:
    """Findings of ``lang``'s detectors on one question: detector name -> snippets, only detectors
    that found something."""
    found = {d.name: d.find(text_marked) for d in detectors(lang)}
    return {name: snippets for name, snippets in found.items() if snippets}


@dataclass(frozen=True)
class Rate:
    """One detector over a language's questions: how many it flags, of how many, and the first
    examples."""

    detector: Detector
    flagged: int
    total: int
    examples: tuple[str, ...]

    @property
    def rate(self) -> float:
        return self.flagged / self.total if self.total else 0.0

    @property
    def above_threshold(self) -> bool:
        return self.rate > self.detector.threshold


def rates(texts_marked: Iterable[str], lang: str, n_examples: int = 5) -> list[Rate]:
    """Per detector of ``lang``, the share of ``texts_marked`` it flags, with up to ``n_examples``
    flagged questions (in input order)."""
    ds = detectors(lang)
    flagged = {d.name: 0 for d in ds}
    examples: dict[str, list[str]] = {d.name: [] for d in ds}
    total = 0
    for text in texts_marked:
        total += 1
        for d in ds:
            if d.find(text):
                flagged[d.name] += 1
                if len(examples[d.name]) < n_examples:
                    examples[d.name].append(text)
    return [Rate(d, flagged[d.name], total, tuple(examples[d.name])) for d in ds]
