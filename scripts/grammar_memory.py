"""Rewrite the bundled translation memories so that category slots agree by construction (issue 18, item 1).

For each language it handles, this script
1. gives every category its ``gender`` (from the head word of its translation, listed below by hand) and, where
   a translation is wrong, a corrected ``text``;
2. stores the language's ``grammar`` table (agreeing words by feature, see mgqa_platform/multilingual/grammar.py);
3. rewrites the templates (``variants``): an article, quantifier or participle written next to a category slot
   becomes a feature reference (``los {category_A}`` -> ``{category_A:def}``).

It is idempotent: a second run changes nothing. Run from the repository root::

    .venv/bin/python scripts/grammar_memory.py [lang ...]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

TM_DIR = Path("mgqa_platform/data/translations")

#: Head words (first word of the category's translation) of feminine categories; the others are masculine.
FEMININE_HEADS = {
    "spa": """ONG agencias aldeas asociaciones atracciones autoescuelas bibliotecas bocas boutiques cafeterías
        carnicerías carpinterías carreteras casas ciudades clínicas comisarías confiterías construcciones
        copisterías discotecas droguerías duchas embajadas empresas entradas escuelas estaciones farmacias
        ferreterías floristerías fruterías funerarias fábricas galerías gasolineras granjas guarderías
        heladerías herrerías instalaciones joyerías jugueterías librerías manzanas obras oficinas panaderías
        papelerías paradas pastelerías peluquerías piscinas plantas plazas posiciones puertas sastrerías
        terminales tiendas universidades viviendas vías zapaterías zonas ópticas
        regiones masas líneas pescaderías reservas fuentes""",
    "por": """ONGs academias agências alfaiatarias associações atrações autoescolas bibliotecas bilheterias
        butiques caixas casas cidades clínicas concessionárias confeitarias copiadoras delegacias delicatéssens
        drogarias embaixadas empresas entradas escolas estações estradas estruturas faculdades faixas farmácias
        fazendas ferrovias floriculturas funerárias fábricas galerias habitações imobiliárias instalações
        joalherias lanchonetes livrarias locadoras localidades lojas marinas obras oficinas padarias papelarias
        paradas passagens piscinas plataformas posições praças prefeituras quitandas rodoviárias sorveterias
        universidades videolocadoras vilas áreas óticas
        regiões linhas peixarias reservas fontes árvores""",
    "ita": """ONG agenzie ambasciate aree associazioni attrazioni autofficine autoscuole autostazioni aziende
        banche banchine biblioteche biglietterie boutique case cartolerie cassette cittadine città cliniche
        concessionarie contee copisterie discoteche docce drogherie farmacie fattorie fermate ferrovie frazioni
        gallerie gastronomie gelaterie gioiellerie librerie località macellerie officine opere palestre
        panetterie pasticcerie piazze piscine rivendite sartorie scuole stazioni strade strutture università
        regioni linee cime caserme pescherie enoteche riserve fontane""",
    "fra": """ONG agences aires ambassades animaleries associations attractions auberges auto-écoles banlieues
        banques bibliothèques bijouteries billetteries bornes boucheries boulangeries boutiques boîtes cliniques
        confiseries douches drogueries entreprises entrées fermes galeries gares habitations librairies
        locations mairies marinas papeteries petites pharmacies piscines places pompes positions pâtisseries
        quincailleries routes salles stations stations-service supérettes toilettes universités usines villes
        voies zones écoles épiceries œuvres
        régions rivières lignes casernes poissonneries réserves fontaines traversées""",
}
#: Categories whose gender is not their head word's (Portuguese "os caixas eletrônicos").
GENDER_OF = {"por": {"atm": "m"}}
#: Corrected translations: (lang, category) -> text.
TEXT_OF = {
    ("ita", "hardware"): "negozi di ferramenta",
    ("ell", "airport"): "αερολιμένες",
    ("rus", "ice_cream"): "кафе-мороженые",
}
#: Unit symbols in Latin script written in the language's script in template text.
#: Urdu takes CLDR's unit name (کلو میٹر), Greek CLDR's short form (χλμ.).
UNITS = {
    "rus": {"km": "км"},
    "bul": {"km": "км"},
    "urd": {"km": "کلو میٹر"},
    "ell": {"km": "χλμ."},
}

_M_F = ("m", "f")
#: Slots filled with a noun: the categories, and the parameter whose words are category nouns too.
_NOUN_SLOT = r"category_\w+|collection_of_entity"
#: Parameter words (collection_of_entity) by language: text corrections, so that the first conjunct, whose
#: gender a determiner before the coordination takes, also gives the participle after it.
TERM_TEXT_OF = {
    ("por", "collection_of_entity", "schools and kindergartens"): "jardins de infância e escolas",
}
#: Georgian templates rewritten by hand: a collection whose რამდენია is not next to its slot; the frames
#: "ობიექტი კატეგორიიდან „{category}“" ("object of the category «…»"), where the category noun itself now
#: stands in the case the frame's noun had (``ter``: მაღაზიებამდე, ``com``: მაღაზიებთან) or opens the
#: sentence as its topic ("{category_A}: ... მათგან", as the other A08 variants do).
KAT_VARIANTS = {
    "E03.3.v2": "სულ რამდენი {collection_of_entity:sg} მდებარეობს {entity_A}-ში?",
    "A07.1.v1": "{entity_B}-ში არსებული {category_A}: რომელ მათგანს აქვს უმცირესი ჯამური მანძილი იქ "
    "არსებულ {category_C:ter}?",
    "A07.1.v2": "{entity_B}-ში მდებარე {category_A}: რომელი მათგანია საერთო ჯამში ყველაზე ახლოს იქ "
    "არსებულ {category_C:com}?",
    "A07.1.v3": "თუ შევკრებთ მანძილებს {entity_B}-ში არსებულ {category_C:ter}, იქაური {category_A}: "
    "რომელ მათგანს ექნება უმცირესი ჯამი?",
    "A08.1.v3": "{category_A}: {entity_B}-დან გარეთ მოძრაობისას განიხილეთ მათგან {rank}. რამდენად "
    "შორსაა ის {entity_C}-დან?",
}


def _mf(m: str, f: str) -> dict[str, str]:
    return dict(zip(_M_F, (m, f)))


GRAMMAR = {
    "spa": {
        "default_gender": "m",
        "agree": {
            "def": _mf("los {}", "las {}"),
            "how_many": _mf("cuántos {}", "cuántas {}"),
            "all": _mf("todos los {}", "todas las {}"),
            "each_of": _mf("todos y cada uno de los {}", "todas y cada una de las {}"),
            "each_one": _mf("cada uno de los {}", "cada una de las {}"),
            "placed": _mf("situados", "situadas"),
            "distinct": _mf("distintos", "distintas"),
            "crossed": _mf("cruzados", "cruzadas"),
        },
    },
    "por": {
        "default_gender": "m",
        "agree": {
            "def": _mf("os {}", "as {}"),
            "of_def": _mf("dos {}", "das {}"),
            "how_many": _mf("quantos {}", "quantas {}"),
            "all": _mf("todos os {}", "todas as {}"),
            "one_of": _mf("um dos {}", "uma das {}"),
            "two": _mf("dois {}", "duas {}"),
            "located": _mf("localizados", "localizadas"),
            "placed": _mf("situados", "situadas"),
            "crossed": _mf("atravessados", "atravessadas"),
        },
    },
    "ita": {
        "default_gender": "m",
        "agree": {
            "def": {"m": "i {}", "m.v": "gli {}", "f": "le {}"},
            "of_def": {"m": "dei {}", "m.v": "degli {}", "f": "delle {}"},
            "how_many": _mf("quanti {}", "quante {}"),
            "all": {"m": "tutti i {}", "m.v": "tutti gli {}", "f": "tutte le {}"},
            "each_of": {
                "m": "ciascuno dei {}",
                "m.v": "ciascuno degli {}",
                "f": "ciascuna delle {}",
            },
            "crossed": _mf("attraversati", "attraversate"),
            "distinct": _mf("diversi", "diverse"),
        },
    },
    "fra": {
        "default_gender": "m",
        "agree": {
            "which": _mf("quels {}", "quelles {}"),
            "which_one": _mf("lequel des {}", "laquelle des {}"),
            "each_one": _mf("chacun des {}", "chacune des {}"),
            "the_one": _mf("celui des {}", "celle des {}"),
            "which_pron": _mf("lequel", "laquelle"),
            "the_one_sg": _mf("le", "la"),
            "crossed": _mf("traversés", "traversées"),
            "reached": _mf("atteints", "atteintes"),
            "de": {"m": "de {}", "f": "de {}", "m.v": "d'{}", "f.v": "d'{}"},
        },
    },
}

#: (words before the slot, feature) and (feature, word after the slot): the rewrites of the templates.
BEFORE = {
    "spa": [
        ("todos y cada uno de los", "each_of"),
        ("cada uno de los", "each_one"),
        ("todos los", "all"),
        ("los", "def"),
        ("cuántos", "how_many"),
    ],
    "por": [
        ("todos os", "all"),
        ("um dos", "one_of"),
        ("os", "def"),
        ("dos", "of_def"),
        ("quantos", "how_many"),
        ("dois", "two"),
    ],
    "ita": [
        ("tutti i", "all"),
        ("ciascuno dei", "each_of"),
        ("i", "def"),
        ("dei", "of_def"),
        ("quanti", "how_many"),
    ],
    "fra": [
        ("lequel des", "which_one"),
        ("chacun des", "each_one"),
        ("celui des", "the_one"),
        ("quels", "which"),
        ("de", "de"),
    ],
}
AFTER = {
    "spa": [("situados", "placed"), ("distintos", "distinct")],
    "por": [("localizados", "located"), ("situados", "placed")],
    "ita": [("attraversati", "crossed"), ("diversi", "distinct")],
    "fra": [],
    "deu": [],
}


def gender(lang: str, key: str, text: str) -> str:
    """The gender of a category from the head word of its translation (or its listed exception)."""
    if key in GENDER_OF.get(lang, {}):
        return GENDER_OF[lang][key]
    return "f" if text.split()[0] in FEMININE_HEADS[lang].split() else "m"


def rewrite(lang: str, text: str) -> str:
    """A template with the agreeing words around its category slots replaced by feature references."""
    for words, feature in BEFORE.get(lang) or DEU_BEFORE:
        pattern = re.compile(
            r"(?<![\w'])(" + re.escape(words) + r") \{(" + _NOUN_SLOT + r")\}", re.IGNORECASE
        )

        def ref(m: re.Match, feature: str = feature) -> str:
            spec = feature[0].upper() + feature[1:] if m.group(1)[0].isupper() else feature
            return "{" + m.group(2) + ":" + spec + "}"

        text = pattern.sub(ref, text)
    for words, feature in AFTER[lang]:
        pattern = re.compile(r"(\{(" + _NOUN_SLOT + r")(?::\w*)?\}) " + re.escape(words) + r"\b")
        text = pattern.sub(r"\1 {\2:=" + feature + "}", text)
    return text


#: Russian frames "objects of category «X»" by the case of "objects": the case form that replaces them.
RUS_FRAMES = {"объекты": "", "объектов": ":gen", "объектам": ":dat", "объектами": ":ins"}
RUS_CASES = {"gen": "gent", "dat": "datv", "ins": "ablt", "loc": "loct"}
#: Russian phrases pymorphy3 parses wrongly (парки as the plural of парка) or cannot inflect (substantivized
#: adjectives), by nominative: gen, dat, ins, loc.
RUS_FORMS = {
    "парки": "парков паркам парками парках",
    "марины": "марин маринам маринами маринах",
    "полицейские участки": "полицейских участков|полицейским участкам|полицейскими участками|"
    "полицейских участках",
    "парикмахерские": "парикмахерских парикмахерским парикмахерскими парикмахерских",
    "кондитерские": "кондитерских кондитерским кондитерскими кондитерских",
    "кафе-мороженые": "кафе-мороженых кафе-мороженым кафе-морожеными кафе-мороженых",
    "отдельно стоящие жилища": "отдельно стоящих жилищ|отдельно стоящим жилищам|"
    "отдельно стоящими жилищами|отдельно стоящих жилищах",
    "пожарные части": "пожарных частей|пожарным частям|пожарными частями|пожарных частях",
    "тематические парки": "тематических парков|тематическим паркам|тематическими парками|"
    "тематических парках",
}


#: Russian templates whose frame names one object of a category ("{rank} объект категории «X»": rewritten by
#: hand so that the masculine "объект" still carries the agreement of {rank}, {rank_type} and the predicate)
#: or several categories ("объектов категорий «X» и «Y»").
RUS_VARIANTS = {
    "A06.2.v2": "Сколько километров в среднем между двумя {category_A:ins} в {entity_B}?",
    "A07.1.v3": "Если сложить расстояния до всех {category_C:gen} в {entity_B}, у {category_A:which_of_gen} "
    "там получится наименьшая сумма?",
    "A08.1.v3": "Двигаясь от {entity_B} наружу, рассмотрите {rank} объект среди {category_A:gen}. "
    "Как далеко он от {entity_C}?",
    "E05.1.v1": "Содержит ли административная граница {entity_A} полностью {rank_type} объект среди "
    "{category_B:gen} в {entity_C}?",
    "E05.1.v2": "Возьмём {rank_type} объект среди {category_B:gen} в {entity_C}: лежит ли он целиком в "
    "пределах административной границы {entity_A}?",
    "E05.1.v3": "Находится ли {rank_type} объект среди {category_B:gen}, расположенных в {entity_C}, "
    "полностью внутри административной границы {entity_A}?",
    "E05.2.v1": "Содержит ли административная граница {entity_A} полностью {rank_type} объект среди "
    "{category_B:gen} в {entity_C}?",
    "E05.2.v2": "Находится ли {rank_type} объект среди {category_B:gen} в {entity_C} целиком внутри "
    "административной границы {entity_A}?",
    "F01.1.v3": "Назовите объект среди {category_A:gen} в {entity_B}, расположенный дальше всех к "
    "{cardinal_direction}.",
    "F03.1.v1": "Какой объект среди {category_A:gen} в {entity_B} является {rank_position} {attribute}?",
    "F03.2.v1": "Какой объект среди {category_A:gen} в {entity_B} является {rank_position} {attribute}?",
    "E03.1.v1": "Сколько {category_A:gen} и {category_B:gen} находится в {entity_A}?",
    "E03.1.v2": "Каково общее число {category_A:gen} и {category_B:gen} в {entity_A}?",
    "E03.1.v3": "Если считать вместе {category_A} и {category_B}, сколько их в {entity_A}?",
    "E03.2.v1": "Сколько {category_A:gen}, {category_B:gen} и {category_C:gen} находится в {entity_A}?",
    "E03.2.v2": "Сколько всего {category_A:gen}, {category_B:gen} и {category_C:gen} в {entity_A}?",
}
RUS_GENDERS = {"masc": "m", "femn": "f", "neut": "n"}
#: Russian categories whose head pymorphy3's first parse takes for another word (сады as of сада).
RUS_GENDER_OF = {
    "детские сады": "m",
    "парки": "m",
    "чайные магазины": "m",
    "ночные клубы": "m",
    "кондитерские": "f",
    "марины": "f",
    "пожарные части": "f",
    "тематические парки": "m",
}
RUS_GRAMMAR = {
    "default_gender": "m",
    "agree": {
        "which_of": {
            "m": "какой из {gen}",
            "f": "какая из {gen}",
            "n": "какое из {gen}",
            "pl": "какие из {gen}",
        },
        "which_of_gen": {
            "m": "какого из {gen}",
            "f": "какой из {gen}",
            "n": "какого из {gen}",
            "pl": "каких из {gen}",
        },
        "placed": {"m": "расположен", "f": "расположена", "n": "расположено", "pl": "расположены"},
    },
}
#: Agreeing words of the Russian templates around a category in the genitive: (words, feature).
RUS_BEFORE = [("какой из", "which_of"), ("какого из", "which_of_gen")]


def rus_gender(text: str) -> str:
    """The gender of a Russian category (its head word's, from pymorphy3's lemma); ``pl`` for a plurale
    tantum (ворота), ``m`` for an indeclinable loan word (кафе, казино) is what pymorphy3 gives."""
    if text in RUS_GENDER_OF:
        return RUS_GENDER_OF[text]
    import pymorphy3

    morph = pymorphy3.MorphAnalyzer()
    for w in text.split():
        parses = [p for p in morph.parse(w) if {"plur", "nomn"} <= p.tag.grammemes]
        nouns = [p for p in parses if p.tag.POS == "NOUN"] or [
            p for p in parses if p.tag.POS in ("ADJF", "PRTF")
        ]
        if nouns and (nouns[0].tag.POS == "NOUN" or w == text.split()[-1]):
            lemma = nouns[0].normalized.tag
            return "pl" if "Pltm" in lemma.grammemes else RUS_GENDERS.get(lemma.gender, "m")
    return "m"


def rus_forms(text: str) -> dict[str, str]:
    """Plural case forms of a Russian noun phrase in the nominative plural: the words up to the first noun
    (adjectives agree with it) are inflected with pymorphy3, the rest (a genitive complement) is kept."""
    if text in RUS_FORMS:
        forms = RUS_FORMS[text]
        return dict(zip(RUS_CASES, forms.split("|" if "|" in forms else " "), strict=True))
    import pymorphy3

    morph = pymorphy3.MorphAnalyzer()
    words, head = text.split(), []
    for w in words:
        parses = [p for p in morph.parse(w) if {"plur", "nomn"} <= p.tag.grammemes]
        if not parses:
            break
        head.append(parses[0])
        if parses[0].tag.POS == "NOUN":
            break
    if not head or head[-1].tag.POS != "NOUN":
        return {}
    rest = words[len(head) :]
    return {
        case: " ".join([p.inflect({tag, "plur"}).word for p in head] + rest)
        for case, tag in RUS_CASES.items()
    }


def rus_rewrite(text: str) -> str:
    """A Russian template with the frames "объектов категории «{category_A}»" replaced by the category in the
    frame's case (``{category_A:gen}``)."""
    for frame, spec in RUS_FRAMES.items():
        text = re.sub(frame + r" категории «\{(category_\w+)\}»", r"{\1" + spec + "}", text)
    for words, feature in RUS_BEFORE:
        pattern = re.compile(r"(?<!\w)(" + words + r") \{(category_\w+):gen\}", re.IGNORECASE)
        text = pattern.sub(
            lambda m, f=feature: (
                "{" + m.group(2) + ":" + (f.capitalize() if m.group(1)[0].isupper() else f) + "}"
            ),
            text,
        )
    which = re.search(r"\{(category_\w+):[Ww]hich_of\}", text)
    if which:
        text = re.sub(r"(?<!\w)расположен(?!\w)", "{" + which.group(1) + ":=placed}", text)
    return text


#: Greek categories whose gender the ending of their first word does not tell (loan words, exceptions).
ELL_GENDER_OF = {
    "μπαρ": "n",
    "ΑΤΜ": "n",
    "καζίνο": "n",
    "ντελικατέσεν": "n",
    "βιντεοκλάμπ": "n",
    "σιλό": "n",
    "ντους": "n",
    "μίνι": "n",
    "σούπερ": "n",
    "μπουτίκ": "f",
    "γκαλερί": "f",
    "παμπ": "f",
    "ΜΚΟ": "f",
    "είσοδοι": "f",
    "ξενώνες": "m",
    "αερολιμένες": "m",
}
#: Greek plural accusatives that move the accent (the others: -οί -> -ούς, -οι -> -ους).
ELL_ACC = {"σύλλογοι": "συλλόγους", "είσοδοι": "εισόδους"}
ELL_GRAMMAR = {
    "default_gender": "n",
    "agree": {
        "def": {"n": "τα {}", "f": "οι {}", "m": "οι {}"},
        "def_acc": {"n": "τα {}", "f": "τις {}", "m": "τους {acc}"},
        "which": {"n": "ποια {}", "f": "ποιες {}", "m": "ποιοι {}"},
        "which_acc": {"n": "ποια {}", "f": "ποιες {}", "m": "ποιους {acc}"},
        "how_many": {"n": "πόσα {}", "f": "πόσες {}", "m": "πόσοι {}"},
        "how_many_acc": {"n": "πόσα {}", "f": "πόσες {}", "m": "πόσους {acc}"},
        "how_many_distinct": {
            "n": "πόσα διαφορετικά {}",
            "f": "πόσες διαφορετικές {}",
            "m": "πόσοι διαφορετικοί {}",
        },
        "how_many_distinct_acc": {
            "n": "πόσα διαφορετικά {}",
            "f": "πόσες διαφορετικές {}",
            "m": "πόσους διαφορετικούς {acc}",
        },
        "all": {"n": "όλα τα {}", "f": "όλες οι {}", "m": "όλοι οι {}"},
        "all_acc": {"n": "όλα τα {}", "f": "όλες τις {}", "m": "όλους τους {acc}"},
        "two_acc": {"n": "δύο {}", "f": "δύο {}", "m": "δύο {acc}"},
        "in_def": {"n": "στα {}", "f": "στις {}", "m": "στους {acc}"},
        "which_one_of": {
            "n": "ποιο από τα {}",
            "f": "ποια από τις {}",
            "m": "ποιος από τους {acc}",
        },
        "which_one": {"n": "ποιο", "f": "ποια", "m": "ποιος"},
        "rel_acc": {"n": "τα οποία", "f": "τις οποίες", "m": "τους οποίους"},
        "each_of": {
            "n": "καθένα από τα {}",
            "f": "καθεμία από τις {}",
            "m": "καθέναν από τους {acc}",
        },
        "of_all": {"n": "από όλα", "f": "από όλες", "m": "από όλους"},
    },
}
#: Greek templates whose frame stood in the genitive, for "each" or for several categories ("στοιχεία των
#: κατηγοριών «X» και «Y»": the quantifier agrees with the first): rewritten by hand with the features.
ELL_VARIANTS = {
    "A06.1.v1": "Αν πάρουμε ανά δύο {category_A:def_acc} που βρίσκονται σε {entity_B}, ποια είναι η "
    "{aggregation} απόσταση μεταξύ τους;",
    "A06.1.v2": "Ποια είναι η {aggregation} απόσταση ανά ζεύγος ανάμεσα {category_A:in_def} εντός "
    "{entity_B};",
    "A07.1.v3": "Αν αθροίσετε τις αποστάσεις από {category_C:each_of} σε {entity_B}, "
    "{category_A:which_one_of} εκεί έχει το μικρότερο σύνολο;",
    "C04.1.v3": "{category_A:How_many} έχουν τουλάχιστον ένα κοινό σημείο με {entity_B};",
    "C05.1.v3": "Κατονομάστε {category_A:each_of} που έχουν κοινό σημείο με {entity_B}.",
    "D03.3.v2": "{category_A:Which_acc} παρακάμπτει {entity_B} κατά μήκος του ορίου τους;",
    "E03.1.v1": "{category_A:How_many} και {category_B} υπάρχουν σε {entity_A};",
    "E03.1.v2": "{category_A:How_many} και {category_B} υπάρχουν συνολικά σε {entity_A};",
    "E03.1.v3": "Μετρώντας μαζί {category_A:def_acc} και {category_B:def_acc}, ποιο είναι το σύνολό "
    "τους σε {entity_A};",
    "E03.2.v1": "{category_A:How_many}, {category_B} και {category_C} υπάρχουν σε {entity_A};",
    "E03.2.v2": "Σε {entity_A}, {category_A:how_many}, {category_B} και {category_C} υπάρχουν "
    "συνολικά;",
    "E03.3.v2": "{collection_of_entity:How_many} βρίσκονται συνολικά σε {entity_A};",
}
#: Greek words before the frame "στοιχεία της κατηγορίας «X»" -> the feature that replaces them with the frame.
ELL_BEFORE = [
    ("πόσα διαφορετικά", "how_many_distinct"),
    ("όλα τα", "all"),
    ("τα", "def"),
    ("ποια", "which"),
    ("πόσα", "how_many"),
    ("δύο", "two"),
]
#: A verb that follows its subject: the frame before it is in the nominative.
_ELL_SUBJECT_VERB = re.compile(r"^(?:\S+(?:ουν|ούν|ονται|ονταν|όνταν|ησαν|ήσαν)|είναι)(?!\w)")
#: A plural verb right before the frame (with "μεταξύ τους"): the frame is its subject.
_ELL_VERB_BEFORE = re.compile(r"(?:ουν|ούν|ονται|ούνται)(?: μεταξύ τους)?$")
#: Greek prepositions that make the frame after them accusative (στα = σε + τα).
_ELL_PREPOSITION = re.compile(r"(?:από|σε|Σε|Από|προς|για|με)$")


def ell_gender(text: str) -> str:
    """The gender of a Greek plural category from its first word: listed loan words and exceptions, else
    ``-οι`` masculine, ``-ες``/``-εις`` feminine, ``-α`` neuter."""
    first = text.split()[0]
    if first in ELL_GENDER_OF:
        return ELL_GENDER_OF[first]
    if re.search(r"(?:οι|οί)$", first):
        return "m"
    return "f" if re.search(r"(?:ες|ές|εις|είς)$", first) else "n"


def ell_acc(text: str, gender: str) -> str:
    """The accusative plural of a Greek category: masculine -οι words become -ους (up to the head noun)."""
    if gender not in ("m", "f") or not re.search(r"(?:οι|οί)$", text.split()[0]):
        return text
    words = text.split()
    out = []
    for i, w in enumerate(words):
        if not re.search(r"(?:οι|οί)$", w):
            return " ".join(out + words[i:])
        out.append(ELL_ACC.get(w) or re.sub(r"οί$", "ούς", re.sub(r"οι$", "ους", w)))
    return " ".join(out)


def ell_rewrite(text: str) -> str:
    """A Greek template with the plural frame "στοιχεία της κατηγορίας «{category_A}»" replaced by the
    category with its article or interrogative, nominative before the verb it is the subject of,
    accusative elsewhere; "στα στοιχεία" (σε + τα) keeps its preposition ("σε {category_A:def_acc}")."""
    frame = re.compile(
        r"(?:(?<!\w)(στα|πόσα διαφορετικά|όλα τα|τα|ποια|πόσα|δύο) )?στοιχεία της κατηγορίας "
        r"«\{(" + _NOUN_SLOT + r")\}»( ?)(\S*)",
        re.IGNORECASE,
    )

    def ref(m: re.Match) -> str:
        before, slot, space, after = m.group(1), m.group(2), m.group(3), m.group(4)
        if before is None:
            feature = "def"
        elif before.lower() == "στα":
            return f"{{{slot}:{'In_def' if before[0].isupper() else 'in_def'}}}{space}{after}"
        else:
            feature = dict(ELL_BEFORE)[before.lower()]
        preceding = text[: m.start()].rstrip()
        nominative = (
            _ELL_SUBJECT_VERB.match(after) and not _ELL_PREPOSITION.search(preceding)
        ) or _ELL_VERB_BEFORE.search(preceding)
        if not nominative:
            feature = (
                "def_acc" if feature == "def" else f"{feature}_acc".replace("_acc_acc", "_acc")
            )
        if feature not in ELL_GRAMMAR["agree"]:
            feature = feature.removesuffix("_acc")
        if before and before[0].isupper():
            feature = feature[0].upper() + feature[1:]
        return f"{{{slot}:{feature}}}{space}{after}"

    text = frame.sub(ref, text)
    text = re.sub(
        r"(?<!\w)(Ποιο|ποιο) από \{(category_\w+):def_acc\}",
        lambda m: (
            "{" + m.group(2) + (":Which_one_of}" if m.group(1)[0] == "Π" else ":which_one_of}")
        ),
        text,
    )
    which = re.search(r"\{(category_\w+):[Ww]hich_one_of\}", text)
    if which:
        text = re.sub(r"(?<=, )ποιο(?= )", "{" + which.group(1) + ":=which_one}", text)
    text = re.sub(r"(\{(category_\w+):[^}]*\}) από τα οποία", r"\1 από {\2:=rel_acc}", text)
    return re.sub(
        r"στοιχείο της κατηγορίας «\{(category_\w+)\}»", r"στοιχείο ανάμεσα {\1:in_def}", text
    )


def bul_definite(text: str) -> str:
    """The definite plural of a Bulgarian category: the article goes on its first word, ``-те`` after
    ``-и``/``-е`` (магазините, селскостопанските магазини), ``-та`` after ``-а``/``-я`` (селата); an invariable
    first word (фитнес) passes it to the next."""
    words = text.split()
    i = next((i for i, w in enumerate(words) if w[-1] in "аяиео"), 0)  # фитнес центровете
    words[i] += "та" if words[i][-1] in "ая" else "те"
    return " ".join(words)


def bul_rewrite(text: str) -> str:
    """A Bulgarian template with the frames "обектите от категорията „{category_A}“" replaced by the category
    itself: definite (``{category_A:def}``) or not; one object among them stays "обект сред" + the definite
    category, so that кой/всеки/два keep agreeing with обект."""
    slot = r"от категорията „\{(category_\w+)\}“"
    text = re.sub(r"(?<!\w)([Кк]ой) от обектите " + slot, r"\1 обект сред {\2:def}", text)
    text = re.sub(r"(?<!\w)обектите " + slot, r"{\1:def}", text)
    text = re.sub(r"(?<!\w)обекти " + slot, r"{\1}", text)
    return re.sub(r"(?<!\w)(обекта?) " + slot, r"\1 сред {\2:def}", text)


#: German plural endings of the last part of a compound -> gender of the singular (the others feminine).
DEU_GENDER_BY_ENDING = {
    "m": """läden plätze häfen vereine automaten salons märkte verleihe bahnhöfe höfe blöcke shops kreise
        betriebe überwege posten weiler juweliere gärten kioske übergänge türme optiker parks orte steige
        kästen stände eingänge punkte brunnen clubs generatoren staaten bäche flüsse gräben gipfel
        blitzer händler bäume""",
    "n": """geschäfte häuser zentren werke studios büros gebäude cafés kinos gebiete unternehmen länder
        terminals restaurants tore hostels hotels gehöfte viertel ämter bäder museen theater dörfer
        denkmäler silos gewässer""",
}


def _deu(pattern: str) -> dict[str, str]:
    return {"*": pattern}


def _deu_mfn(m: str, f: str, n: str, rest: str) -> dict[str, str]:
    return {"m": f"{m} {rest}", "f": f"{f} {rest}", "n": f"{n} {rest}"}


DEU_GRAMMAR = {
    "default_gender": "n",
    "agree": {
        "def": _deu("die {weak}"),
        "gen_def": _deu("der {weak}"),
        "dat_def": _deu("den {dat}"),
        "all": _deu("alle {weak}"),
        "all_dat": _deu("allen {dat}"),
        "all_there_dat": _deu("allen dortigen {dat}"),
        "which": _deu("welche {weak}"),
        "which_dat": _deu("welchen {dat}"),
        "many_dat": _deu("vielen {dat}"),
        "between_two": _deu("zwischen zwei {dat}"),
        "which_of": _deu_mfn("welcher", "welche", "welches", "der {weak}"),
        "which_of_there": _deu_mfn("welcher", "welche", "welches", "der dortigen {weak}"),
        "which_of_all": _deu_mfn("welcher", "welche", "welches", "von allen {dat}"),
        "the_one_of": _deu_mfn("denjenigen", "diejenige", "dasjenige", "der {weak}"),
        "rel": {"m": "der", "f": "die", "n": "das"},
    },
}
#: German words before a category slot -> the feature that replaces them with the slot (longest first).
DEU_BEFORE = [
    ("welches von allen", "which_of_all"),
    ("welches der dortigen", "which_of_there"),
    ("welches der", "which_of"),
    ("dasjenige der", "the_one_of"),
    ("allen dortigen", "all_there_dat"),
    ("zwischen zwei", "between_two"),
    ("den", "dat_def"),
    ("allen", "all_dat"),
    ("welchen", "which_dat"),
    ("vielen", "many_dat"),
    ("die", "def"),
    ("welche", "which"),
    ("der", "gen_def"),
    ("alle", "all"),
]


def deu_gender(text: str) -> str:
    """The gender of a German category's singular from the ending of its last word (its compound head)."""
    last = text.split()[-1].lower()
    for gender, endings in DEU_GENDER_BY_ENDING.items():
        if any(last.endswith(e) for e in endings.split()):
            return gender
    return "f"


def deu_forms(text: str) -> dict[str, str]:
    """The weak (after die/der/welche/alle) and dative plural forms of a German category: adjectives
    (lower-case, ending in -e) take -en; the noun takes -n in the dative unless it ends in -n or -s."""
    words = text.split()
    weak = [w + "n" if w[0].islower() and w.endswith("e") else w for w in words]
    dat = weak[:-1] + [weak[-1] if weak[-1][-1] in "ns" else weak[-1] + "n"]
    return {"weak": " ".join(weak), "dat": " ".join(dat)}


#: Georgian singular of the head (last word) of each category: a noun after რამდენი or ყველა is singular.
#: Listed by hand: the plural hides the stem (სოფლები < სოფელი, სკოლები < სკოლა, ბიუროები < ბიურო).
KAT_SINGULAR = dict(
    pair.split(":")
    for pair in """ადგილები:ადგილი ადვოკატები:ადვოკატი აეროდრომები:აეროდრომი აეროპორტები:აეროპორტი
    ავტოსადგომები:ავტოსადგომი ავტოსადგურები:ავტოსადგური ავტოსახელოსნოები:ავტოსახელოსნო
    ავტოსერვისები:ავტოსერვისი ავტოსკოლები:ავტოსკოლა ასოციაციები:ასოციაცია აუზები:აუზი
    აფთიაქები:აფთიაქი ბაზრები:ბაზარი ბანკები:ბანკი ბანკომატები:ბანკომატი ბარები:ბარი ბაქნები:ბაქანი
    ბაღები:ბაღი ბიბლიოთეკები:ბიბლიოთეკა ბიუროები:ბიურო ბუტიკები:ბუტიკი გადასასვლელები:გადასასვლელი
    გალერეები:გალერეა განყოფილებები:განყოფილება გარეუბნები:გარეუბანი გაჩერებები:გაჩერება
    გენერატორები:გენერატორი გზები:გზა დაბები:დაბა დაწესებულებები:დაწესებულება დურგლები:დურგალი
    თეატრები:თეატრი კაბინეტები:კაბინეტი კაზინოები:კაზინო კაფეები:კაფე კვარტლები:კვარტალი
    კინოთეატრები:კინოთეატრი კლინიკები:კლინიკა კლუბები:კლუბი კოლეჯები:კოლეჯი კომპანიები:კომპანია
    მაღაზიები:მაღაზია მემორიალები:მემორიალი მოედნები:მოედანი მუზეუმები:მუზეუმი ნაგებობები:ნაგებობა
    ნავსადგურები:ნავსადგური ნიმუშები:ნიმუში ობიექტები:ობიექტი ორგანიზაციები:ორგანიზაცია ოფისები:ოფისი
    პაბები:პაბი პარკები:პარკი პოზიციები:პოზიცია პუნქტები:პუნქტი რესტორნები:რესტორანი
    სააგენტოები:სააგენტო საავადმყოფოები:საავადმყოფო საგრაფოები:საგრაფო სადგომები:სადგომი
    სადგურები:სადგური საელჩოები:საელჩო საკონდიტროები:საკონდიტრო სალაროები:სალარო სალონები:სალონი
    სამკერვალოები:სამკერვალო სამჭედლოები:სამჭედლო საპარიკმახეროები:საპარიკმახერო
    საპირფარეშოები:საპირფარეშო სასაფლაოები:სასაფლაო სასტუმროები:სასტუმრო საშხაპეები:საშხაპე
    საცხობები:საცხობი საცხოვრებლები:საცხოვრებელი სახელოსნოები:სახელოსნო სილოსები:სილოსი სკოლები:სკოლა
    სოფლები:სოფელი სუპერმარკეტები:სუპერმარკეტი ტერმინალები:ტერმინალი უბნები:უბანი
    უნივერსიტეტები:უნივერსიტეტი ფერმები:ფერმა ფიტნეს-ცენტრები:ფიტნეს-ცენტრი ფოტოსალონები:ფოტოსალონი
    ქალაქები:ქალაქი ქარხნები:ქარხანა ქვეყნები:ქვეყანა ღირსშესანიშნაობები:ღირსშესანიშნაობა ყუთები:ყუთი
    შენობები:შენობა შესასვლელები:შესასვლელი შტატები:შტატი შუქურები:შუქურა ცენტრები:ცენტრი
    ძეგლები:ძეგლი წერტილები:წერტილი ჭები:ჭა ჭიშკრები:ჭიშკარი ხაზები:ხაზი ჯიხურები:ჯიხური
    ჰოსტელები:ჰოსტელი
    ერთეულები:ერთეული ნაკადულები:ნაკადული წყალსატევები:წყალსატევი მდინარეები:მდინარე
    არხები:არხი კორპუსები:კორპუსი მწვერვალები:მწვერვალი კამერები:კამერა ინტერნეტ-კაფეები:ინტერნეტ-კაფე
    უნივერმაღები:უნივერმაღი გადასახედები:გადასახედი თავშესაფრები:თავშესაფარი ნაკრძალები:ნაკრძალი შადრევნები:შადრევანი ხეები:ხე""".split()
)
#: Georgian plural relative pronouns and the singular that agrees with a quantified (singular) noun.
KAT_RELATIVE = {
    "რომლებიც": "რომელიც",
    "რომლებსაც": "რომელსაც",
    "რომლებზეც": "რომელზეც",
    "რომლებადაც": "რომლადაც",
    "აქვთ": "აქვს",
}
_KAT_SLOTS = r"\{(?:" + _NOUN_SLOT + r")\}(?:(?:, | და )\{category_\w+\})*"


def kat_singular(text: str) -> str:
    """A Georgian category with its head (last word) in the singular: აგრარული მაღაზიები -> აგრარული მაღაზია."""
    words = text.split()
    return " ".join(words[:-1] + [KAT_SINGULAR[words[-1]]])


#: Georgian plural postpositions built on the dative (-ებ + ამდე "up to", -ებ + თან "next to").
KAT_PLURAL_CASES = {"ter": "ამდე", "com": "თან"}


def kat_plural_case(text: str, ending: str) -> str:
    """A Georgian plural category (head in ``-ები``) with a postposition on the dative stem: მაღაზიები ->
    მაღაზიებამდე; an adjective in ``-ი`` right before the head loses it as in the dative (დამტენი
    სადგურები -> დამტენ სადგურებამდე); a genitive modifier (``-ის``) stays."""
    *before, head = text.split()
    if not head.endswith("ები"):
        raise ValueError(f"Georgian plural without -ები: {text!r}")
    if before and before[-1].endswith("ი") and not before[-1].endswith("ის"):
        before[-1] = before[-1][:-1]
    return " ".join([*before, head[:-1] + ending])


def kat_singular_list(text: str) -> str:
    """A Georgian coordination of plurals in the singular: ბარები, კაფეები და რესტორნები ->
    ბარი, კაფე და რესტორანი."""
    return re.sub(r"\S+ები(?=,|$| და)", lambda m: KAT_SINGULAR[m.group(0)], text)


def kat_rewrite(text: str) -> str:
    """A Georgian template where რამდენია/ყველა stand with a plural category: the category becomes singular
    (``{category_A:sg}``), რამდენია becomes რამდენი ... არის, and the relative clause that follows agrees
    (რომლებიც -> რომელიც, აქვთ -> აქვს)."""
    many = re.compile(r"რამდენია (სხვადასხვა |ჯამში )?(" + _KAT_SLOTS + r")")
    every = re.compile(r"ყველა (" + _KAT_SLOTS + r")")
    if not (many.search(text) or every.search(text)):
        return text

    def singular(slots: str) -> str:
        return re.sub(r"\{(" + _NOUN_SLOT + r")\}", r"{\1:sg}", slots)

    def how_many(m: re.Match) -> str:
        modifier = m.group(1) or ""
        lead, middle = ("ჯამში ", "") if modifier == "ჯამში " else ("", modifier)
        return f"{lead}რამდენი {middle}{singular(m.group(2))} არის"

    text = every.sub(lambda m: "ყველა " + singular(m.group(1)), many.sub(how_many, text))
    for plural, one in KAT_RELATIVE.items():
        text = re.sub(rf"(?<!\w){plural}(?!\w)", one, text)
    return text


#: Urdu feminine heads (last word) that do not end in the feminine plural -یں/-اں.
URD_FEMININE = {"جامعات", "خدمات", "سہولیات", "مارکیٹ", "پارکنگ", "ایم"}
URD_GRAMMAR = {
    "default_gender": "m",
    "agree": {
        "which": _mf("کون سے {}", "کون سی {}"),
        "how_many": _mf("کتنے {}", "کتنی {}"),
        "how_many_obl": _mf("کتنے {obl}", "کتنی {obl}"),
        "of": _mf("کے", "کی"),
        "do": _mf("کرتے", "کرتی"),
        "come": _mf("آتے", "آتی"),
        "such": _mf("ایسے", "ایسی"),
        "which_one": _mf("کون سا", "کون سی"),
        "reaches": _mf("پہنچتا", "پہنچتی"),
        "reach_not": _mf("پہنچتے", "پہنچتیں"),
        "be_ipf": _mf("ہوتے", "ہوتی"),
        "meet": _mf("ملتے", "ملتی"),
        "stay": _mf("رہتے", "رہتی"),
        "became": _mf("ہوئے", "ہوئیں"),
        "came": _mf("آئے", "آئیں"),
        "were": _mf("تھے", "تھیں"),
        "will_come": _mf("آئیں گے", "آئیں گی"),
    },
}
#: Urdu verbs (masculine plural) that agree with the category a question asks about.
URD_VERBS = {"کرتے ہیں": "do", "آتے ہیں": "come", "ایسے ہیں": "such"}


def urd_gender(text: str) -> str:
    """The gender of an Urdu category from its head (last word): feminine plurals end in -یں or -اں
    (دکانیں, ایجنسیاں); a few listed feminines do not (خدمات, مارکیٹ)."""
    last = text.split()[-1]
    return "f" if last in URD_FEMININE or re.search(r"(?:ی|ا)ں$", last) else "m"


#: Urdu plural heads whose oblique is the same word: Arabic broken plurals (besides those in -ات),
#: گاؤں, and English words kept as they are.
URD_OBLIQUE_SAME = {"مراکز", "دفاتر", "ممالک", "ذخائر", "گاؤں", "ورکس", "پارکنگ", "ایم"}
#: Urdu oblique plurals the endings do not give (کنواں, masculine: کنویں -> کنووں).
URD_OBLIQUE_OF = {"کنویں": "کنووں"}
#: Urdu postpositions, which take the oblique case of the noun before them.
URD_POSTPOSITIONS = r"(?:کی|کا|کے|میں|سے|کو|پر|تک)(?!\S)"


def urd_oblique_word(word: str) -> str:
    """The oblique plural of an Urdu plural noun: -یں / -یاں / -ے -> -وں (دکانیں -> دکانوں, بستیاں ->
    بستیوں, علاقے -> علاقوں); a plural without an ending takes -وں (-ؤں after ا and و: ہسپتال ->
    ہسپتالوں, دریا -> دریاؤں); plurals in -ات and :data:`URD_OBLIQUE_SAME` stay."""
    if word in URD_OBLIQUE_OF:
        return URD_OBLIQUE_OF[word]
    if word in URD_OBLIQUE_SAME or word.endswith("ات"):
        return word
    if word.endswith(("یاں", "یں")):
        return word[:-2] + "وں"
    if word.endswith("ے"):
        return word[:-1] + "وں"
    return word + ("ؤں" if word.endswith(("ا", "و")) else "وں")


def urd_oblique(text: str) -> str:
    """An Urdu category (or a coordination of them) in the oblique plural, the form before a postposition:
    the head (last word) of each conjunct (زرعی سامان کی دکانیں -> زرعی سامان کی دکانوں; بار، کیفے اور
    ریستوران -> باروں، کیفوں اور ریستورانوں)."""
    parts = re.split(r"(، | اور )", text)
    return "".join(
        part if i % 2 else " ".join([*part.split()[:-1], urd_oblique_word(part.split()[-1])])
        for i, part in enumerate(parts)
    )


def urd_rewrite(text: str) -> str:
    """An Urdu template whose کون سے/کتنے stand with a category: they agree by feature, and so do the
    verbs of the question (کرتے/کرتی ہیں); a category before a postposition (alone or coordinated: "{A}
    اور {B} کی") takes the oblique plural (``obl``, ``how_many_obl``), after تمام where the text had ہر;
    a genitive before a category agrees with it (``=of``: کے/کی)."""
    for words, feature in (("کون سے", "which"), ("کتنے", "how_many")):
        text = re.sub(words + r" \{(" + _NOUN_SLOT + r")\}", r"{\1:" + feature + "}", text)
    asked = re.search(r"\{(" + _NOUN_SLOT + r"):(?:which|how_many)(?:_obl)?\}", text)
    if asked:
        for verb, feature in URD_VERBS.items():
            text = text.replace(verb, "{" + asked.group(1) + ":=" + feature + "} ہیں")
    before = r"(?=(?: اور \{category_\w+\})* " + URD_POSTPOSITIONS + ")"
    text = re.sub(r"\{(" + _NOUN_SLOT + r")\}" + before, r"{\1:obl}", text)
    text = re.sub(r"\{(" + _NOUN_SLOT + r"):how_many\}" + before, r"{\1:how_many_obl}", text)
    # ہر ("each") wants a singular, which the memory does not hold: تمام ("all") with the plural
    text = re.sub(r"(?<!\S)ہر (?=\{(?:" + _NOUN_SLOT + r"):obl\})", "تمام ", text)
    # the genitive before a category agrees with it: کے (masculine plural), کی (feminine)
    return re.sub(
        r"(?<!\S)کے ((?:تمام |دو )?)\{(" + _NOUN_SLOT + r")(:obl)?\}", r"{\2:=of} \1{\2\3}", text
    )


def units(lang: str, text: str) -> str:
    """A template with its Latin unit symbols (``km``) in the language's script (``км``); a local form
    that ends in a full stop (``χλμ.``) takes the place of the sentence's own (``σε km.`` -> ``σε χλμ.``)."""
    for latin, local in UNITS.get(lang, {}).items():
        stop = r"\.?" if local.endswith(".") else ""
        text = re.sub(rf"\b{latin}\b{stop}", local, text)
    return text


#: The languages this script handles (the default of its command line).
LANGS = {*GRAMMAR, *UNITS, "rus", "ell", "bul", "deu", "kat", "urd", *(lang for lang, _ in TEXT_OF)}


def main(langs: list[str]) -> None:
    for lang in langs:
        path = TM_DIR / f"{lang}.json"
        tm = json.loads(path.read_text(encoding="utf-8"))
        for key, entry in tm["categories"].items():
            entry["text"] = TEXT_OF.get((lang, key), entry["text"])
            if lang in GRAMMAR:
                entry["gender"] = gender(lang, key, entry["text"])
            if lang == "deu":
                entry["gender"] = deu_gender(entry["text"])
                entry["forms"] = deu_forms(entry["text"])
            if lang == "kat":
                entry["forms"] = {"sg": kat_singular(entry["text"])} | {
                    f: kat_plural_case(entry["text"], e) for f, e in KAT_PLURAL_CASES.items()
                }
            if lang == "urd":
                entry["gender"] = urd_gender(entry["text"])
                entry["forms"] = {"obl": urd_oblique(entry["text"])}
            if lang == "bul":
                entry["forms"] = {"def": bul_definite(entry["text"])}
            if lang == "ell":
                entry["gender"] = ell_gender(entry["text"])
                entry["forms"] = {"acc": ell_acc(entry["text"], entry["gender"])}
            if lang == "rus":
                entry["forms"] = rus_forms(entry["text"])
                entry["gender"] = rus_gender(entry["text"])
        collections = tm["terms"].get("collection_of_entity", {})
        for value in collections:
            collections[value] = TERM_TEXT_OF.get(
                (lang, "collection_of_entity", value), collections[value]
            )
        if lang in GRAMMAR:
            tm["grammar"] = GRAMMAR[lang] | {
                "terms": {
                    "collection_of_entity": {
                        v: {"gender": gender(lang, "", t)} for v, t in collections.items()
                    }
                }
            }
        if lang == "ell":
            tm["grammar"] = ELL_GRAMMAR | {
                "terms": {
                    "collection_of_entity": {
                        v: {"gender": ell_gender(t), "forms": {"acc": ell_acc(t, ell_gender(t))}}
                        for v, t in collections.items()
                    }
                }
            }
            for vid, text in ELL_VARIANTS.items():
                tm["variants"][vid]["text"] = text
        if lang == "deu":
            tm["grammar"] = DEU_GRAMMAR | {
                "terms": {
                    "collection_of_entity": {
                        v: {"gender": deu_gender(t), "forms": deu_forms(t)}
                        for v, t in collections.items()
                    }
                }
            }
        if lang == "urd":  # a determiner before a coordination agrees with its first conjunct
            tm["grammar"] = URD_GRAMMAR | {
                "terms": {
                    "collection_of_entity": {
                        v: {
                            "gender": urd_gender(re.split("،| اور ", t)[0]),
                            "forms": {"obl": urd_oblique(t)},
                        }
                        for v, t in collections.items()
                    }
                }
            }
        if lang == "kat":
            tm["grammar"] = {
                "terms": {
                    "collection_of_entity": {
                        v: {"forms": {"sg": kat_singular_list(t)}} for v, t in collections.items()
                    }
                }
            }
            for vid, text in KAT_VARIANTS.items():
                tm["variants"][vid]["text"] = text
        if lang == "rus":
            tm["grammar"] = RUS_GRAMMAR
            for vid, text in RUS_VARIANTS.items():
                tm["variants"][vid]["text"] = text
        for values in tm["terms"].values():
            for value, text in values.items():
                values[value] = units(lang, text)
        for entry in tm["variants"].values():
            text = rewrite(lang, entry["text"]) if lang in AFTER else entry["text"]
            text = rus_rewrite(text) if lang == "rus" else text
            text = bul_rewrite(text) if lang == "bul" else text
            text = kat_rewrite(text) if lang == "kat" else text
            text = urd_rewrite(text) if lang == "urd" else text
            entry["text"] = units(lang, ell_rewrite(text) if lang == "ell" else text)
        path.write_text(
            json.dumps(tm, ensure_ascii=False, indent=1, sort_keys=True) + "\n", "utf-8"
        )


if __name__ == "__main__":
    main(sys.argv[1:] or sorted(LANGS))
