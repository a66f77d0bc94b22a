"""Grammar of inserted words: category nouns formatted by feature, and the memory's agreement in
each language."""

from __future__ import annotations

import json
import re
import string

import pytest

from mgqa_platform.languages import TARGETS
from mgqa_platform.multilingual import instantiate, memory
from mgqa_platform.multilingual.grammar import (
    Agreeing,
    GrammarError,
    Noun,
    agreement_class,
    capitalize_start,
    elide_before_names,
    french_elides,
    spec_problems,
    specs,
)
from mgqa_platform.multilingual.placeholders import agreement_refs, placeholders, problems
from mgqa_platform.questions.catalog import default_catalog

SPA = {
    "def": {"m": "los {}", "f": "las {}"},
    "how_many": {"m": "cuántos {}", "f": "cuántas {}"},
    "placed": {"m": "situados", "f": "situadas"},
}
RUS = {"which_of": {"m": "какой из {gen}", "f": "какая из {gen}"}}


class _Slots(dict):
    """Format values: category (and collection) slots take the given noun, every other slot its own
    name in angle brackets."""

    def __init__(self, noun: Noun):
        super().__init__()
        self.noun = noun

    def __missing__(self, key: str):
        if key.startswith(("category", "collection_of_entity")):
            return self.noun
        return Agreeing(self.noun.lang, f"<{key}>", nouns=dict.fromkeys(_CATEGORY_SLOTS, self.noun))


#: The category slots of the catalog, which a parameter word may agree with
#: (``{rank:~category_A}``).
_CATEGORY_SLOTS = ("category_A", "category_B", "category_C", "category_D")


def render(template: str, noun: Noun) -> str:
    """A template with every category slot filled with ``noun`` (other slots stay visible)."""
    return string.Formatter().vformat(template, (), _Slots(noun))


def category_texts(lang: str, pattern: str, *keys: str) -> list[str]:
    """Every template of ``lang`` matching ``pattern``, rendered with each category of ``keys``."""
    tm = memory.load(lang)
    nouns = tm.nouns()
    return [
        render(v["text"], nouns[k])
        for v in tm.variants.values()
        if re.search(pattern, v["text"])
        for k in keys
    ]


def test_noun_formats_by_feature():
    tienda = Noun("spa", "tiendas", "f", {}, SPA)
    banco = Noun("spa", "bancos", "m", {}, SPA)
    assert f"{tienda}" == "tiendas" and str(banco) == "bancos"
    assert f"{tienda:def}" == "las tiendas" and f"{banco:def}" == "los bancos"
    assert f"¿{tienda:How_many} hay?" == "¿Cuántas tiendas hay?"
    assert f"{tienda} {tienda:=placed}" == "tiendas situadas" and f"{banco:=placed}" == "situados"
    ostanovki = Noun("rus", "остановки", "f", {"gen": "остановок"}, RUS)
    assert f"{ostanovki:gen}" == "остановок" and f"{ostanovki:which_of}" == "какая из остановок"
    with pytest.raises(GrammarError, match="unknown feature 'all'"):
        format(tienda, "all")
    with pytest.raises(GrammarError, match="no form for 'n'"):
        format(Noun("spa", "x", "n", {}, SPA), "def")
    with pytest.raises(GrammarError, match="needs a form"):
        format(Noun("rus", "магазины", "m", {}, RUS), "which_of")


def test_agreement_class_by_gender_and_sound():
    assert agreement_class("ita", "m", "ospedali") == "m.v"  # gli ospedali
    assert agreement_class("ita", "m", "studi dentistici") == "m.v"  # gli studi
    assert (
        agreement_class("ita", "m", "negozi") == "m" and agreement_class("ita", "f", "aree") == "f"
    )
    assert (
        agreement_class("fra", "f", "écoles") == "f.v"
        and agreement_class("fra", "m", "hôtels") == "m.v"
    )
    assert agreement_class("fra", "m", "hameaux") == "m"  # h aspiré: de hameaux
    assert agreement_class("spa", "f", "aldeas") == "f"


def test_capitalize_start():
    assert capitalize_start("¿cuántas tiendas?") == "¿Cuántas tiendas?"
    assert capitalize_start("okullar nerede?") == "Okullar nerede?"
    assert capitalize_start("3 okul") == "3 okul" and capitalize_start("") == ""
    assert capitalize_start("istasyonlar", "tur") == "İstasyonlar"
    assert capitalize_start("ılıcalar", "tur") == "Ilıcalar"
    assert capitalize_start("istasyonlar") == "Istasyonlar"
    # Georgian starts a sentence in Mkhedruli: its upper case (Mtavruli) is for headings
    assert capitalize_start("მაღაზიები: რომელი?", "kat") == "მაღაზიები: რომელი?"


def test_spec_slots_count_once_and_agreement_refs_not_at_all():
    en = "How many {category_A} are within {value} km?"
    assert placeholders("{category_A:how_many} {category_A:=placed}") == ["category_A"]
    assert agreement_refs("{category_A:how_many} {category_A:=placed}") == ["category_A"]
    assert problems(en, "¿{category_A:How_many} hay a {value} km? {category_A:=placed}") == []
    assert problems(en, "¿{category_A:how_many} {category_A:def} a {value} km?") == [
        "duplicated:{category_A}"
    ]
    assert problems(en, "¿{category_A} a {value} km {category_B:=placed}?") == [
        "unexpected:{category_B}"
    ]
    assert specs("{entity_B} {category_A:gen}") == [("entity_B", ""), ("category_A", "gen")]


def test_spec_problems_name_the_slot_and_the_category():
    nouns = {"shop": Noun("spa", "tiendas", "f", {}, SPA)}
    assert spec_problems("{category_A:def} y {category_B}", nouns) == []
    assert spec_problems("{category_A:all}", nouns) == [
        "{category_A:all} with shop: spa: unknown feature 'all'"
    ]
    assert spec_problems("{entity_A:def}", nouns) == [
        "{entity_A:def}: a spec on a slot that is not a category"
    ]


def test_validate_reports_an_unknown_feature(tmp_path):
    en = "How many {category_A} are there?"
    tm = memory.TranslationMemory(
        "spa",
        "draft",
        {"v1": {"source": en, "text": "¿{category_A:how_many} hay?"}},
        {"shop": {"source": "shops", "text": "tiendas", "gender": "f"}},
        grammar={"agree": {"def": SPA["def"]}},
    )
    assert memory.validate(tm, {"v1": en}) == [
        "v1: {category_A:how_many} with shop: spa: unknown feature 'how_many'"
    ]


def _genders(tm: memory.TranslationMemory) -> set[str]:
    """Every agreement class the language's memory knows: its categories' genders and its tables'
    keys."""
    out = {e.get("gender", "") for e in tm.categories.values()}
    for table in tm.grammar.get("agree", {}).values():
        out |= {k for k in table if k != "*"}
    return out


@pytest.mark.parametrize("lang", TARGETS)
def test_every_template_renders_with_every_gender_of_its_language(lang):
    tm = memory.load(lang)
    forms = next((e["forms"] for e in tm.categories.values() if e.get("forms")), {})
    agree = tm.grammar.get("agree", {})
    for gender in _genders(tm):
        # a vowel-initial and a consonant-initial noun, so that every sound class is met
        for text in ("aeroporti", "negozi"):
            noun = Noun(lang, text, gender.split(".")[0], forms, agree)
            for vid, entry in tm.variants.items():
                out = render(entry["text"], noun)
                assert "{" not in out and "}" not in out, (vid, gender, out)


@pytest.mark.parametrize("lang", TARGETS)
def test_every_category_of_the_memory_has_a_known_gender(lang):
    tm = memory.load(lang)
    known = _genders(tm) - {""}
    genders = {e.get("gender", "") for e in tm.categories.values()}
    assert genders <= known | {""}
    if tm.grammar.get("agree"):
        assert "" not in genders, "a language with a grammar table genders every category"


def test_spanish_articles_and_quantifiers_agree():
    texts = category_texts(
        "spa", r"category_A:(?:def|how_many|How_many)\}", "hamlet", "convenience"
    )
    assert texts and not [
        t for t in texts if re.search(r"\blos (aldeas|tiendas)|cuántos tiendas", t, re.I)
    ]
    assert any("¿Cuántas tiendas de conveniencia hay" in t for t in texts)
    assert any("las aldeas" in t for t in texts)
    assert any("¿Cuántos bancos" in t for t in category_texts("spa", "How_many", "bank"))
    placed = category_texts("spa", "=placed", "road")
    assert placed and all("carreteras situadas" in t for t in placed)


def test_portuguese_articles_agree():
    texts = category_texts("por", r"category_A:(?:def|Def)\}", "road", "hospital")
    assert not [t for t in texts if re.search(r"\bos (estradas|lojas|escolas)\b", t, re.I)]
    assert any("as estradas" in t for t in texts) and any("os hospitais" in t for t in texts)
    assert any("Qual das estradas" in t for t in category_texts("por", "of_def", "road"))
    assert any("Quantas escolas" in t for t in category_texts("por", "How_many", "school"))


def test_italian_articles_agree_by_gender_and_sound():
    texts = category_texts(
        "ita", r"category_A:(?:def|Def|all)\}", "road", "hospital", "supermarket"
    )
    assert not [
        t for t in texts if re.search(r"\bi (strade|scuole|fermate|ospedali|aeroporti)\b", t)
    ]
    assert any("le strade" in t for t in texts) and any("gli ospedali" in t for t in texts)
    assert any("i supermercati" in t for t in texts)
    assert any("tutte le strade" in t for t in category_texts("ita", "category_A:all", "road"))
    assert any("Quale degli ospedali" in t for t in category_texts("ita", "of_def", "hospital"))
    assert any("Quante scuole" in t for t in category_texts("ita", "How_many", "school"))


def test_french_interrogatives_agree_and_de_elides():
    texts = category_texts("fra", r"category_A:[Ww]hich\}", "road", "school", "hospital")
    assert not [t for t in texts if re.search(r"\bQuels (routes|écoles)\b", t)]
    assert any(t.startswith("Quelles routes") for t in texts)
    assert any(t.startswith("Quels hôpitaux") for t in texts)
    de = category_texts("fra", r"category_A:de\}", "hospital", "road")
    assert any("Combien d'hôpitaux" in t for t in de) and any("Combien de routes" in t for t in de)
    assert any("Laquelle des routes" in t for t in category_texts("fra", "Which_one", "road"))


def test_russian_frames_give_way_to_the_category_in_its_case():
    tm = memory.load("rus")
    assert not [v["text"] for v in tm.variants.values() if "категории «" in v["text"]]
    assert tm.categories["bus_stop"]["forms"]["gen"] == "автобусных остановок"
    assert tm.categories["bus_stop"]["gender"] == "f" and tm.categories["bank"]["gender"] == "m"
    texts = category_texts("rus", r"category_A:gen\}", "bus_stop")
    assert any(t.startswith("Сколько автобусных остановок") for t in texts)
    which = category_texts("rus", "Which_of", "bus_stop", "bank")
    assert any(t.startswith("Какая из автобусных остановок") for t in which)
    assert any(t.startswith("Какой из банков") for t in which)
    assert any("остановок в <entity_B> расположена дальше" in t for t in which)


@pytest.mark.parametrize("lang", ["rus", "bul"])
def test_kilometres_in_cyrillic(lang):
    texts = [v["text"] for v in memory.load(lang).variants.values()]
    assert not [t for t in texts if re.search(r"\bkm\b", t)]
    assert any(re.search(r"\{value\} км", t) for t in texts)


def test_greek_airports_are_airports():
    assert memory.load("ell").categories["airport"]["text"] == "αερολιμένες"


def _record(bindings: dict, variant_id: str, sub: str) -> dict:
    return {
        "question_id": "q1",
        "sub_template_id": sub,
        "variant_id": variant_id,
        "image_role": None,
        "bindings": json.dumps(bindings),
        "parameters": json.dumps({"value": 1.5}),
    }


def test_localize_fills_features_and_capitalises_a_starting_category():
    cat = default_catalog()
    tm = memory.TranslationMemory(
        "tur",
        "draft",
        {},
        categories={"school": {"source": "schools", "text": "okullar", "gender": ""}},
    )
    q = _record({"category_A": "school", "entity_B": "worldkg:1"}, "B01.2.v1", "B01.2")
    templates = {"B01.2.v1": ("{category_A} {entity_B} yakınında mı, {value} km?", "unreviewed")}
    (row,), _ = instantiate.localize([q], "tur", templates, tm, {"worldkg:1": "X"}, {}, cat)
    assert row["text"] == "Okullar X yakınında mı, 1,5 km?"
    assert row["text_marked"] == "Okullar {X} yakınında mı, 1,5 km?"
    spa = memory.load("spa")
    templates = {"B01.2.v1": ("¿{category_A:How_many} hay a {value} km de {entity_B}?", "x")}
    q = _record({"category_A": "convenience", "entity_B": "worldkg:1"}, "B01.2.v1", "B01.2")
    (row,), used = instantiate.localize([q], "spa", templates, spa, {"worldkg:1": "X"}, {}, cat)
    assert row["text"] == "¿Cuántas tiendas de conveniencia hay a 1,5 km de X?" and not used


def test_a_category_missing_from_the_memory_renders_every_feature_in_english():
    rus = memory.load("rus")
    noun = rus.noun("no_such_category", "widgets")
    assert f"{noun:gen}" == "widgets" and f"{noun:Which_of}" == "Какой из widgets"
    assert render("Сколько {category_A:gen} в {entity_B}?", noun) == "Сколько widgets в <entity_B>?"


def test_greek_frames_give_way_to_the_category_with_its_article_in_its_case():
    tm = memory.load("ell")
    plural_frames = [
        v["text"] for v in tm.variants.values() if "κατηγορίας «{category" in v["text"]
    ]
    assert not plural_frames
    cats = tm.categories
    assert (cats["road"]["gender"], cats["road"]["forms"]["acc"]) == ("m", "δρόμους")
    assert cats["bus_stop"]["gender"] == "f" and cats["shop"]["gender"] == "n"
    assert (
        cats["association"]["gender"] == "m" and cats["association"]["forms"]["acc"] == "συλλόγους"
    )
    texts = category_texts("ell", r"category_A:", "road", "bus_stop", "shop")
    for expected in (
        "Πόσοι δρόμοι τέμνουν <entity_B>;",  # subject: nominative
        "Πόσους δρόμους διασχίζει <entity_B>;",  # object: accusative
        "Πόσες στάσεις λεωφορείων τέμνουν <entity_B>;",
        "Πόσα καταστήματα τέμνουν <entity_B>;",
        "Μετρήστε τους δρόμους που διασχίζουν ή αγγίζουν <entity_B>.",
        "Απαριθμήστε τους δρόμους από τους οποίους περνά <entity_B>.",
    ):
        assert expected in texts, expected
    assert any(t.startswith("Ποια από τις στάσεις λεωφορείων σε <entity_B>") for t in texts)
    assert any(t.startswith("Ανάμεσα στους δρόμους") for t in texts)
    assert not [t for t in texts if re.search(r"σε (τους|τις|τα) ", t)]
    assert "Πόσες στάσεις λεωφορείων έχουν τουλάχιστον ένα κοινό σημείο με <entity_B>;" in texts
    assert any("από καθέναν από τους δρόμους σε <entity_B>" in t for t in texts)


def test_bulgarian_frames_give_way_to_the_definite_category():
    tm = memory.load("bul")
    assert not [v["text"] for v in tm.variants.values() if "категорията „" in v["text"]]
    forms = {k: e["forms"]["def"] for k, e in tm.categories.items()}
    assert forms["shop"] == "магазините" and forms["village"] == "селата"
    assert (
        forms["bus_stop"] == "автобусните спирки" and forms["fitness_centre"] == "фитнес центровете"
    )
    texts = category_texts("bul", r"category_A:def", "bus_stop")
    assert any(t.startswith("Кой обект сред автобусните спирки") for t in texts)
    assert any(t.startswith("Подредете автобусните спирки") for t in texts)


def test_german_articles_cases_and_weak_adjectives_after_determiners():
    cats = memory.load("deu").categories
    assert [cats[c]["gender"] for c in ("airport", "fuel", "shop")] == ["m", "f", "n"]
    assert cats["public_building"]["forms"] == {
        "weak": "öffentlichen Gebäude",
        "dat": "öffentlichen Gebäuden",
    }
    texts = category_texts("deu", "category_", "airport", "fuel", "shop", "public_building")
    for expected in (
        "Welcher der Flughäfen in <entity_B>",
        "Welche der Tankstellen in <entity_B>",
        "Welches der Geschäfte in <entity_B>",
        "zwischen zwei öffentlichen Gebäuden in <entity_B>",
        "zu allen dortigen Geschäften",
        "Welche öffentlichen Gebäude schneiden <entity_B>?",
        "Wie viele öffentliche Gebäude",
    ):
        assert any(expected in t for t in texts), expected
    assert not [t for t in texts if re.search(r"\b(den|allen|zwei) \S*(geschäfte|Gebäude)\b", t)]


def test_georgian_how_many_and_all_take_a_singular_category():
    tm = memory.load("kat")
    assert tm.categories["shop"]["forms"]["sg"] == "მაღაზია"
    assert tm.categories["village"]["forms"]["sg"] == "სოფელი"  # syncope: სოფლები < სოფელი
    assert tm.categories["school"]["forms"]["sg"] == "სკოლა"
    plural = re.compile(r"(?:რამდენია|ყველა) \{category_\w+\}")
    assert not [v["text"] for v in tm.variants.values() if plural.search(v["text"])]
    texts = category_texts("kat", "category_A:sg", "shop", "village")
    assert "რამდენი მაღაზია არის, რომელიც კვეთს <entity_B>-ს?" in texts
    assert any(t.startswith("ჩამოთვალეთ ყველა სოფელი, რომელიც") for t in texts)


def test_georgian_category_frames_give_way_to_the_category_in_its_case():
    tm = memory.load("kat")
    assert not [v["text"] for v in tm.variants.values() if "კატეგორი" in v["text"]]
    cats = tm.categories
    assert cats["shop"]["forms"]["ter"] == "მაღაზიებამდე"
    assert cats["village"]["forms"]["com"] == "სოფლებთან"
    # an adjective right before the head loses its -ი; a genitive modifier stays
    assert cats["charging_station"]["forms"]["ter"] == "დამტენ სადგურებამდე"
    assert cats["alcohol"]["forms"]["com"] == "ალკოჰოლური სასმელების მაღაზიებთან"
    texts = category_texts("kat", r"category_C:(?:ter|com)", "school")
    assert len(texts) == 3 and all("სკოლებ" in t for t in texts)
    assert "იქ არსებულ სკოლებამდე?" in texts[0]


def test_a_question_that_starts_with_a_parameter_starts_with_a_capital():
    cat = default_catalog()
    tm = memory.load("tur")
    vid = next(v for v, e in sorted(tm.variants.items()) if e["text"].startswith("{attribute_A}"))
    sub = cat.sub_template(vid.rsplit(".", 1)[0])
    template = tm.variants[vid]["text"]
    bindings = {r: ("school" if r.startswith("category") else "worldkg:1") for r in sub.roles}
    params = {p: "elongation" for p in placeholders(template) if p not in sub.roles}
    q = _record(bindings, vid, sub.id) | {"parameters": json.dumps(params)}
    (row,), _ = instantiate.localize(
        [q], "tur", {vid: (template, "x")}, tm, {"worldkg:1": "la X"}, {}, cat
    )
    assert row["text"].startswith("Uzama"), row["text"]
    template = "{entity_B} içindeki {category_A}?"  # an entity name keeps its own first letter
    (row,), _ = instantiate.localize(
        [q], "tur", {vid: (template, "x")}, tm, {"worldkg:1": "la X"}, {}, cat
    )
    assert row["text"].startswith("la X")


def test_turkish_questions_that_start_with_a_category_start_with_a_capital():
    cat = default_catalog()
    tm = memory.load("tur")
    starting = {
        vid: e["text"]
        for vid, e in tm.variants.items()
        if e["text"].startswith("{category_A}")
        and set(placeholders(e["text"])) - set(cat.sub_template(vid.rsplit(".", 1)[0]).roles)
        <= {"value"}
    }
    assert starting
    vid, template = sorted(starting.items())[0]
    sub = cat.sub_template(vid.rsplit(".", 1)[0])
    bindings = {r: ("school" if r.startswith("category") else "worldkg:1") for r in sub.roles}
    params = {p: 1 for p in re.findall(r"\{(value\w*)\}", template)}
    q = _record(bindings, vid, sub.id) | {"parameters": json.dumps(params)}
    (row,), _ = instantiate.localize(
        [q], "tur", {vid: (template, "x")}, tm, {"worldkg:1": "X"}, {}, cat
    )
    assert row["text"].startswith(tm.categories["school"]["text"].capitalize())


def _collection(lang: str, value: str, pattern: str) -> list[str]:
    """The templates of ``lang`` with a collection_of_entity slot matching ``pattern``, filled with
    ``value``."""
    tm = memory.load(lang)
    noun = tm.term_noun("collection_of_entity", value, tm.term("collection_of_entity", value))
    assert noun is not None
    return [
        string.Formatter().vformat(v["text"], (), _Slots(noun))
        for v in tm.variants.values()
        if "{collection_of_entity" in v["text"] and re.search(pattern, v["text"])
    ]


def test_collections_of_categories_agree_like_categories():
    schools = "schools and kindergartens"
    assert "¿Cuántas escuelas y guarderías hay en <entity_A>?" in _collection("spa", schools, "")
    assert any("escuelas y guarderías situadas" in t for t in _collection("spa", schools, ""))
    assert any(
        "hospitales, clínicas y farmacias situados" in t
        for t in _collection("spa", "hospitals, clinics and pharmacies", "")
    )
    assert "Quantos jardins de infância e escolas há em <entity_A>?" in _collection(
        "por", schools, ""
    )
    assert "Quante scuole e scuole dell'infanzia ci sono in <entity_A>?" in _collection(
        "ita", schools, ""
    )
    assert "Combien d'écoles et écoles maternelles y a-t-il dans <entity_A> ?" in _collection(
        "fra", schools, ""
    )
    assert "Πόσες τράπεζες και ΑΤΜ υπάρχουν σε <entity_A>;" in _collection(
        "ell", "banks and ATMs", ""
    )
    assert "რამდენი ბარი, კაფე და რესტორანი არის <entity_A>-ში?" in _collection(
        "kat", "bars, cafes and restaurants", ""
    )
    assert any(
        "Gesamtzahl der Schulen und Kindergärten" in t for t in _collection("deu", schools, "")
    )
    assert memory.load("spa").term_noun("direction", "north", "norte") is None


def test_a_collection_the_grammar_does_not_list_renders_every_feature_as_it_is():
    cat = default_catalog()
    spa = memory.load("spa")
    noun = spa.term_noun("collection_of_entity", "parks and gardens", "parks and gardens")
    assert f"{noun:How_many}" == "Cuántos parks and gardens"
    sub = next(s for s in cat.sub_templates if "collection_of_entity" in s.variants[0].text)
    vid = sub.variants[0].id
    bindings = {r: "worldkg:1" for r in sub.roles}
    q = _record(bindings, vid, sub.id) | {
        "parameters": json.dumps({"collection_of_entity": "parks and gardens"})
    }
    template = "¿{collection_of_entity:How_many} hay en {entity_A}?"
    (row,), used = instantiate.localize(
        [q], "spa", {vid: (template, "x")}, spa, {"worldkg:1": "X"}, {}, cat
    )
    assert row["text"] == "¿Cuántos parks and gardens hay en X?" and used == {"term": 1}


def test_a_spec_on_a_parameter_slot_needs_a_noun_for_it():
    nouns = {"shop": Noun("spa", "tiendas", "f", {}, SPA)}
    collections = {"c": {"schools": Noun("spa", "escuelas", "f", {}, SPA)}}
    assert spec_problems("{collection_of_entity:def}", nouns, collections) == [
        "{collection_of_entity:def}: a spec on a slot that is not a category"
    ]
    assert spec_problems("{c:def}", nouns, collections) == []
    assert spec_problems("{c:all}", nouns, collections) == [
        "{c:all} with schools: spa: unknown feature 'all'"
    ]


def test_greek_and_russian_frames_over_several_categories_are_gone():
    for lang, frame in (("ell", "κατηγορι"), ("rus", "категори"), ("bul", "категори")):
        assert not [v for v in memory.load(lang).variants.values() if frame in v["text"]], lang
    texts = category_texts("ell", "E03|category_B", "bank")
    assert any(t.startswith("Πόσες τράπεζες και τράπεζες υπάρχουν") for t in texts)


def test_urdu_categories_take_the_oblique_plural_before_a_postposition():
    tm = memory.load("urd")
    obl = {k: c["forms"]["obl"] for k, c in tm.categories.items()}
    assert obl["road"].endswith("سڑکوں") and obl["shop"] == "دکانیں"[:-2] + "وں"
    assert obl["hamlet"].endswith("یوں") and obl["hospital"] == "ہسپتالوں"
    assert obl["river"] == "دریاؤں" and obl["attraction"] == "پرکشش مقامات"  # -ات stays
    assert obl["water_well"] == "کنووں"  # کنواں, masculine
    direct = re.compile(r"\{category_\w+\} (?:کی|کا|کے|میں|سے|کو|پر|تک)(?!\S)")
    assert not [v["text"] for v in tm.variants.values() if direct.search(v["text"])]
    texts = category_texts("urd", r"category_A:=of", "shop", "bank")
    assert any("<entity_B> کی تمام دکانوں میں سے" in t for t in texts)
    assert any("<entity_B> کے تمام بینکوں میں سے" in t for t in texts)
    texts = category_texts("urd", r"how_many_obl", "shop")
    assert "<entity_B> کو کتنی دکانوں میں تقسیم کیا گیا ہے؟" in texts


def test_urdu_interrogatives_and_verbs_agree_with_the_gender_of_the_category():
    cats = memory.load("urd").categories
    assert [cats[c]["gender"] for c in ("shop", "bank", "university")] == ["f", "m", "f"]
    texts = category_texts("urd", "how_many|which", "shop", "bank")
    assert "کتنی دکانیں، <entity_B> کو قطع کرتی ہیں؟" in texts
    assert "کتنے بینک، <entity_B> کو قطع کرتے ہیں؟" in texts
    assert any(t.startswith("کون سی دکانیں") for t in texts)
    assert not [t for t in texts if re.search(r"(کتنے|کون سے) دکانیں|دکانیں.*کرتے ہیں", t)]


def test_french_elides_before_vowels_and_mute_h_only():
    assert french_elides("Ampamoloambe") and french_elides("Écloserie de Aquamas")
    assert french_elides("hôpital Sainte-Anne") and french_elides("Oulimaï")
    assert not french_elides("Yaoundé") and not french_elides("onze")
    assert not french_elides("Hameau des Prés") and not french_elides("Mandabe")
    assert not french_elides("") and not french_elides("2 km")


def test_elide_before_names_rewrites_the_word_before_a_vowel_initial_name():
    t = "Combien de kilomètres séparent {Mandabe} de {Ampamoloambe} ?"
    assert elide_before_names(t, "fra") == (
        "Combien de kilomètres séparent {Mandabe} d'{Ampamoloambe} ?"
    )
    # only the word right before the name, capital kept, "que" and "le" too; a consonant keeps "de"
    assert elide_before_names("De {Mandabe} à {Orly}", "fra") == "De {Mandabe} à {Orly}"
    assert elide_before_names("De {Orly} à {Mandabe}", "fra") == "D'{Orly} à {Mandabe}"
    assert elide_before_names("plus que {Orly}", "fra") == "plus qu'{Orly}"
    assert elide_before_names("prenez le {hôpital Sainte-Anne}", "fra") == (
        "prenez l'{hôpital Sainte-Anne}"
    )
    # whatever put the word there: "le plus près de" is a word parameter's value, not template text
    assert elide_before_names("se trouve le plus près de {Isalo} ?", "fra") == (
        "se trouve le plus près d'{Isalo} ?"
    )
    # a word that merely ends in "de", a "de" inside a name, another language: untouched
    assert elide_before_names("garde {Orly}", "fra") == "garde {Orly}"
    assert elide_before_names("{Maison de Orly} et {Isalo}", "fra") == "{Maison de Orly} et {Isalo}"
    assert elide_before_names("de {Orly}", "spa") == "de {Orly}"


#: Per language and gender of a category, words that are fixed to *another* gender and so must not
#: appear when the category slots hold a noun of that gender: a word that agrees with the category
#: comes from a grammar spec (``{category_A:=placed}``) or is avoided by a gender-neutral wording.
#: ``<rank>`` and the like stand for the (masculine) parameter words: before them the article must
#: agree with a framing noun ("el elemento <rank_type>"), not with the category.
FIXED_TO_ANOTHER_GENDER = {
    "spa": {
        "f": r"\bel que\b|\b(?:situados|afectados|cruzados|alejados|ellos|ambos|cercanos|Ordenados"
        r"|ordenarlos)\b|\btodos sus\b|\bpor los que\b|\bcuántos hay\b"
        r"|(?<!que es )\bel <(?:rank|rank_type|attribute)>|\bel <rank_position> <attribute>",
        "m": r"\bla que\b|\b(?:situadas|afectadas|cruzadas|alejadas|ellas|ambas|cercanas)\b"
        r"|\btodas sus\b|\bpor las que\b",
    },
    "ita": {
        "f": r"\b(?:quello|situato|colpiti|attraversati|lontani|Ordinandoli)\b|\bli separa\b"
        r"|\buno per uno\b|\bquanti se ne\b|(?<!che è )\b[Ii]l <(?:rank|rank_type)>"
        r"|\bil <rank_position> <attribute>|\bdal <attribute>",
        "m": r"\b(?:quella(?! di "
        r"<entity)|situata|colpite|attraversate|lontane|Ordinandole)\b|\ble separa\b"
        r"|\buna per una\b",
    },
    "por": {
        "f": r"\b(?:situado|localizado|afetados|atravessados|afastados|neles|ordenados)\b"
        r"|\bos separa\b|\bpelos quais\b|\bum a um\b|\buns dos outros\b|\bquantos há\b"
        r"|(?<!que é )\b[Oo] <(?:rank|rank_type)>|\bo <rank_position> <attribute>|\bpelo "
        r"<attribute>",
        "m": r"\b(?:situada|localizada|afetadas|atravessadas|afastadas|nelas|ordenadas)\b"
        r"|\bas separa\b|\bpelas quais\b|\buma a uma\b|\bumas das outras\b",
    },
    "fra": {
        "f": r"\b(?:lequel|traversés|touchés|atteints)\b|(?<!élément )\ble <(?:rank|rank_type)>"
        r"|\ble <rank_position> <attribute>|\bpar le <attribute>",
        "m": r"\b(?:laquelle|traversées|touchées|atteintes)\b|\bla <rank>",
    },
    "deu": {
        "f": r", das am\b|\bwelches ist\b|(?<!Objekt ist dann )\bdas <rank_type>\?|\bdem "
        r"<attribute>(?! Objekt)",
        "m": r", das am\b|\bwelches ist\b|(?<!Objekt ist dann )\bdas <rank_type>\?|\bderjenige "
        r"der\b",
    },
    "rus": {
        "f": r"\b[Кк]акой из (?:всех|них)\b|\b[Уу] какого из всех\b|<rank> из них"
        r"|[Кк]акая из [^?]*<(?:rank_type|rank_position)>(?! значение)",
    },
    "ell": {
        g: r"\b[Ππ]οιο(?! στοιχείο| είναι το <| είναι το σύνολ)\b|\bαπό όλα\b|\bσε "
        r"αυτά\b|\bπόσα υπάρχουν\b"
        r"|\bτα πλησιέστερα\b|\bένα προς ένα\b|\bαποστάσεις του\b|(?:πάρτε|απέχει|εξετάστε) <rank> "
        r"(?:προς|από)"
        for g in ("f", "m")
    },
    "urd": {
        "f": r"کون سا\b|متاثر ہوئے|\bآئے؟|\bتھے؟|آئیں گے"
        r"|(?:ملتے|رہتے|کاٹتے|چھوتے|پہنچتے|پہنچتا|نکلتا|ہوگا)\b|کتنے ہیں|سمایا ہوا",
        "m": r"کون سی\b|(?:نکلتی|ہوگی)\b|سمائی ہوئی",
    },
    "ron": {
        "m": r"\b(?:[Cc]âte|toate(?! "
        r"perechile)|situate|aflate|afectate|traversate|diferite|două)\b|\bcele mai\b"
        r"|\bîn ele\b|\bunele de altele\b",
    },
    "sqi": {
        "m": r"\b(?:[Cc]ilat|cilave|të gjitha(?! çiftet)|të ndryshme|të cilat|të cilave|më të "
        r"afërtat|to)\b",
        "f": r"\b(?:[Cc]ili|secili|secilin|secilit)\b(?! objekt)|\bnjëri-tjetri\b",
    },
    "bul": {"": r"\bкой (?:е|има|от тях)\b|<rank> от тях|\bедин от друг\b"},
}


def _noun_of_gender(tm: memory.TranslationMemory, gender: str) -> Noun:
    """The first category of the memory (by key) with ``gender``, as a noun."""
    key = next((k for k, e in sorted(tm.categories.items()) if e.get("gender", "") == gender), None)
    assert key is not None, f"{tm.lang}: no category of gender {gender!r}"
    return tm.noun(key, key)


@pytest.mark.parametrize("lang", sorted(FIXED_TO_ANOTHER_GENDER))
def test_words_around_a_category_agree_with_its_gender(lang):
    tm = memory.load(lang)
    bad = []
    for gender, pattern in FIXED_TO_ANOTHER_GENDER[lang].items():
        noun = _noun_of_gender(tm, gender)
        for vid, entry in sorted(tm.variants.items()):
            if "{category_" not in entry["text"]:
                continue
            out = render(entry["text"], noun)
            bad += [(vid, gender, m.group(0), out) for m in re.finditer(pattern, out)]
    assert not bad, bad


def _urdu(variant_id: str, category: str, parameters: dict) -> str:
    """The Urdu text of ``variant_id`` with ``category`` in its category slot, every name slot "X",
    and ``parameters``, rendered by ``instantiate.localize`` from the bundled memory."""
    cat = default_catalog()
    sub, _ = cat.variant(variant_id)
    tm = memory.load("urd")
    slots = {r: (category if r.startswith("category") else f"k:{r}") for r in sub.roles}
    record = {
        "question_id": "q1",
        "sub_template_id": sub.id,
        "variant_id": variant_id,
        "bindings": json.dumps(slots),
        "parameters": json.dumps(parameters),
        "image_role": None,
    }
    labels = {f"k:{r}": "X" for r in sub.roles}
    (row,), _ = instantiate.localize(
        [record],
        "urd",
        {variant_id: (tm.variants[variant_id]["text"], "draft")},
        tm,
        labels,
        {},
        cat,
    )
    return row["text"]


def test_urdu_rank_words_agree_with_the_category():
    """An Urdu rank word is an adjective of the category: سب سے بڑی / دوسری with shops (feminine),
    سب سے بڑا / دوسرا with banks, and so do کون سی/سا and the verbs after it; invariant words (قریب
    ترین, سب سے طویل) stay as they are."""
    largest = {"rank_type": "largest", "attribute_A": "population"}
    assert _urdu("F02.3.v1", "shop", largest).endswith("کون سی سب سے بڑی ہے؟")
    assert _urdu("F02.3.v1", "bank", largest).endswith("کون سا سب سے بڑا ہے؟")
    area = {"rank_type": "smallest", "attribute_A": "area"}
    assert _urdu("F02.1.v3", "road", area).endswith("کون سی سب سے چھوٹی نکلتی ہے؟")
    assert _urdu("F02.1.v3", "river", area).endswith("کون سا سب سے چھوٹا نکلتا ہے؟")
    second = {"rank_position": "second", "attribute": "largest"}
    assert _urdu("F03.2.v1", "shop", second).endswith("میں دوسری سب سے بڑی کون سی ہے؟")
    assert _urdu("F03.2.v2", "shop", second).endswith(
        "سب سے بڑی پہلے، تو ترتیب میں دوسری کون سی ہوگی؟"
    )
    assert _urdu("F03.2.v2", "bank", second).endswith(
        "سب سے بڑا پہلے، تو ترتیب میں دوسرا کون سا ہوگا؟"
    )
    third = {"rank_position": "third", "attribute": "longest"}
    assert "میں تیسری سب سے طویل کون سی ہے؟" in _urdu("F03.1.v1", "road", third)
    assert "جو X سے دوسری قریب ترین ہے" in _urdu("A08.1.v1", "shop", {"rank": "second nearest"})
    assert "جو X سے قریب ترین ہے" in _urdu("A08.1.v1", "shop", {"rank": "nearest"})
    e05 = _urdu("E05.2.v1", "shop", {"rank_type": "largest"})
    assert "میں سے سب سے بڑی، " in e05 and e05.endswith("کے اندر سمائی ہوئی ہے؟")
    assert _urdu("E05.2.v1", "bank", {"rank_type": "largest"}).endswith("کے اندر سمایا ہوا ہے؟")


def test_a_parameter_word_agrees_only_with_a_category_of_its_template():
    shop = Noun("urd", "دکانیں", "f", {"obl": "دکانوں"})
    words = {"rank_type": {"largest": Agreeing("urd", "سب سے بڑا", {"f": "سب سے بڑی"})}}
    assert format(
        Agreeing("urd", "سب سے بڑا", {"f": "سب سے بڑی"}, {"category_A": shop}), "~category_A"
    ) == ("سب سے بڑی")
    assert spec_problems("{category_A} {rank_type:~category_A}", {"shop": shop}, None, words) == []
    assert spec_problems("{category_A} {rank_type:~category_B}", {"shop": shop}, None, words) == [
        "{rank_type:~category_B}: agrees with no category slot of the template"
    ]
    # a parameter without agreeing forms in the language takes no spec
    assert spec_problems("{category_A} {rank:~category_A}", {"shop": shop}, None, words) == [
        "{rank:~category_A}: a spec on a slot that is not a category"
    ]
    en = "Which of the {category_A} is the {rank_type}?"
    assert problems(en, "{category_A:obl} میں سے {rank_type:~category_A} ہے؟") == []
    assert problems(en, "{category_A} {rank_type:~category_B}") == ["unexpected:{category_B}"]
    with pytest.raises(GrammarError, match="no category noun"):
        format(Agreeing("urd", "سب سے بڑا"), "~category_A")
