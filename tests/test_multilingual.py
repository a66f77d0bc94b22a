"""Languages, slots, the bundled translation memory and re-instantiation on hand-made records."""

from __future__ import annotations

import json

import pytest

from mgqa_platform import warehouse
from mgqa_platform.languages import CODES, TARGETS, in_script, language, scripts_of
from mgqa_platform.multilingual import instantiate, memory, names, stage
from mgqa_platform.multilingual.placeholders import placeholders, problems
from mgqa_platform.question_schema import LOCALIZED_SCHEMA, QUESTION_SCHEMA, arrow_table
from mgqa_platform.questions.catalog import default_catalog

PAPER_LANGUAGES = "eng fra ita por ron spa bul rus deu urd sqi ell jpn kat tur vie zho".split()


def test_the_papers_17_languages():
    assert list(CODES) == PAPER_LANGUAGES and len(TARGETS) == 16 and "eng" not in TARGETS
    assert language("zho").google == "zh-CN" and language("zho").babel == "zh_Hans"
    with pytest.raises(ValueError, match="unknown language"):
        language("xx")


def test_scripts():
    assert (
        in_script("Москва", "rus") and in_script("София", "bul") and not in_script("Moskva", "rus")
    )
    assert (
        in_script("東京タワー", "jpn") and in_script("北京", "zho") and in_script("თბილისი", "kat")
    )
    assert in_script("لاہور", "urd") and in_script("Αθήνα", "ell") and in_script("Hà Nội", "vie")
    assert scripts_of("Tbilisi თბილისი 42") == {"LATIN", "GEORGIAN"} and not in_script("123", "fra")


def test_slot_problems():
    en = "How far is {entity_A} from {entity_B}, within {value} km?"
    assert placeholders(en) == ["entity_A", "entity_B", "value"]
    assert (
        problems(en, "À quelle distance {entity_A} est-il de {entity_B}, à moins de {value} km ?")
        == []
    )
    assert problems(en, "Distance {entity_A} {entity_A} {valeur} km") == [
        "missing:{entity_B}",
        "missing:{value}",
        "duplicated:{entity_A}",
        "unexpected:{valeur}",
    ]
    assert problems(en, "{entity_A} {entity_B} {value} }") == ["unbalanced_braces"]
    assert problems(en, "  ") == ["empty"] and problems(en, None) == ["empty"]


SOURCES = {v.id: v.text for s in default_catalog().sub_templates for v in s.variants}


@pytest.mark.parametrize("lang", TARGETS)
def test_bundled_memory_is_complete_and_keeps_every_slot(lang):
    """Every catalog variant has a current translation with intact slots; categories and terms are
    present."""
    tm = memory.load(lang)
    assert tm.status == "draft"
    assert memory.validate(tm, SOURCES, memory.kept_words(default_catalog())) == []
    assert "time_range" in tm.patterns and set(placeholders(tm.patterns["time_range"])) == {
        "start",
        "end",
    }
    assert tm.category("post_office") and tm.term("direction", "north")


#: The word for north and the kilometre unit as each language's templates write them.
NORTH_AND_KM = {
    "fra": ("nord", "km"),
    "ita": ("nord", "km"),
    "por": ("norte", "km"),
    "ron": ("nord", "km"),
    "spa": ("norte", "km"),
    "bul": ("север", "км"),
    "rus": ("север", "км"),
    "deu": ("Nord", "km"),
    "urd": ("شمال", "کلو میٹر"),
    "sqi": ("veri", "km"),
    "ell": ("βορρά", "χλμ."),
    "jpn": ("北", "km"),
    "kat": ("ჩრდილოეთ", "კმ"),
    "tur": ("kuzey", "km"),
    "vie": ("bắc", "km"),
    "zho": ("北", "km"),
}


@pytest.mark.parametrize("lang", TARGETS)
def test_relative_position_states_its_angle_convention(lang):
    """M01's gold is a bearing clockwise from true north and a distance in km: every variant says
    so, in English and in every language, so that the reader does not have to guess where the angle
    starts."""
    sub = default_catalog().sub_template("M01.1")
    assert all("clockwise from true north" in v.text and "in km" in v.text for v in sub.variants)
    north, km = NORTH_AND_KM[lang]
    tm = memory.load(lang)
    for v in sub.variants:
        text = tm.variant(v.id, v.text)
        assert text is not None and north in text and km in text, (v.id, text)


#: What "the most central point" is, by sub-template: the words a variant that asks for it must say.
CENTRAL_POINT = {
    "G01.1": "centroid",
    "G01.2": "halfway along",
    "G01.3": "farthest from",
    "G01.4": "centroid",
    "G02.1": "centroid",
    "G02.2": "centroid",
}


def test_central_points_and_centroid_shifts_say_what_they_are():
    """ "The most central point" is a centroid, the point halfway along a line or the point farthest
    from the edges, depending on the sub-template: each variant that asks for it says which; a
    centroid's change between two resolutions is answered as a distance, and every variant says so.
    Every memory has the current translation of each
    (``test_bundled_memory_is_complete_and_keeps_every_slot``)."""
    cat = default_catalog()
    for sub_id, words in CENTRAL_POINT.items():
        for v in cat.sub_template(sub_id).variants:
            assert "most central point" not in v.text or words in v.text, v.id
    for sub_id in ("G03.1", "G03.2", "G03.3"):
        for v in cat.sub_template(sub_id).variants:
            assert (
                "kilometres" in v.text or "distance in km" in v.text or "how far" in v.text.lower()
            )


def test_memory_flags_missing_stale_and_broken_entries(tmp_path):
    vid, en = "A01.1.v1", SOURCES["A01.1.v1"]
    (tmp_path / "fra.json").write_text(
        json.dumps(
            {
                "lang": "fra",
                "status": "draft",
                "variants": {
                    vid: {
                        "source": en,
                        "text": "Quelle distance sépare {entity_A} de {entity_B} ?",
                    },
                    "A01.1.v2": {"source": "an older English text", "text": "..."},
                    "A01.1.v3": {
                        "source": SOURCES["A01.1.v3"],
                        "text": "Combien de km entre {entity_A} et {entity_C} ?",
                    },
                },
            }
        )
    )
    tm = memory.load("fra", tmp_path)
    assert (
        tm.variant(vid, en).startswith("Quelle")
        and tm.variant("A01.1.v2", SOURCES["A01.1.v2"]) is None
    )
    found = memory.validate(
        tm, {k: SOURCES[k] for k in ("A01.1.v1", "A01.1.v2", "A01.1.v3", "A02.1.v1")}
    )
    assert found == [
        "A01.1.v2: stale (English source changed)",
        "A01.1.v3: missing:{entity_B}",
        "A01.1.v3: unexpected:{entity_C}",
        "A02.1.v1: missing",
    ]
    assert memory.load("ita", tmp_path).status == "missing"


def test_numbers_and_periods_follow_the_locale():
    tm = memory.TranslationMemory(
        "fra", "draft", {}, patterns={"time_range": "du {start} au {end}"}
    )
    assert instantiate.format_number(12345.5, "fra") == "12\u202f345,5"
    assert (
        instantiate.format_number(5, "deu") == "5" and instantiate.format_number(2.0, "fra") == "2"
    )
    assert (
        instantiate.format_number(0.25, "deu") == "0,25"
        and instantiate.format_number(0.125, "eng") == "0.125"
    )
    # a range of whole months is CLDR's month interval; another range the memory's pattern
    assert (
        instantiate.format_period("2016-01-01 to 2016-12-31", "fra", tm)
        == "janvier\u2009–\u2009décembre 2016"
    )
    assert (
        instantiate.format_period("2016-01-01 to 2016-03-15", "fra", tm)
        == "du 1er janvier 2016 au 15 mars 2016"
    )
    no_pattern = memory.TranslationMemory("deu", "draft", {})
    assert instantiate.format_period("2016-01-01 to 2016-03-15", "deu", no_pattern) is None
    assert instantiate.format_period("November 2015", "deu", tm) == "November 2015"
    assert instantiate.format_period("November 2015", "fra", tm) == "novembre 2015"
    assert (
        instantiate.format_period("2015", "jpn", tm) == "2015"
        and instantiate.format_period("soon", "fra", tm) is None
    )


def _record(**kw):
    q = {
        "question_id": "q1",
        "lang": "eng",
        "kg": "worldkg",
        "sfid": "B",
        "sub_template_id": "B01.2",
        "variant_id": "B01.2.v1",
        "text": "",
        "text_marked": "",
        "answer_format": "count",
        "gold": '{"value": 2}',
        "multimodal": False,
        "image_role": None,
        "bindings": json.dumps({"category_A": "post_office", "entity_B": "worldkg:1"}),
        "parameters": json.dumps({"value": 1.5}),
    }
    q.update(kw)
    return q


def _localize_variant(vid, lang, templates, tm, labels, display, **kw):
    """:func:`instantiate.localize` of one record of variant ``vid``, with the bundled catalog."""
    record = [_record(variant_id=vid)]
    return instantiate.localize(
        record, lang, templates, tm, labels, display, default_catalog(), **kw
    )


def test_localize_fills_labels_categories_numbers_and_records_fallbacks():
    cat = default_catalog()
    sub = cat.sub_template("B01.2")
    en = sub.variants[0].text
    tm = memory.TranslationMemory(
        "fra",
        "draft",
        {},
        categories={"post_office": {"source": "post offices", "text": "bureaux de poste"}},
    )
    fr = "Combien de {category_A} se trouvent à moins de {value} km de {entity_B} ?"
    templates = {sub.variants[0].id: (fr, "unreviewed")}
    display = {"worldkg:1": "Kamppi (Helsinki)"}
    (row,), used = _localize_variant(
        sub.variants[0].id, "fra", templates, tm, {"worldkg:1": "Kamppi-fr"}, display
    )
    assert row["text"] == "Combien de bureaux de poste se trouvent à moins de 1,5 km de Kamppi-fr ?"
    assert (
        row["text_marked"].endswith("de {Kamppi-fr} ?")
        and row["lang"] == "fra"
        and row["question_id"] == "q1"
    )
    assert json.loads(row["fallbacks"]) == [] and not used
    # a lean row: the text and how it was rendered, nothing of the English record
    assert list(row) == LOCALIZED_SCHEMA.names
    assert row["template_text"] == fr and row["template_status"] == "unreviewed"
    # no French label, no French category: the English display name and label, both recorded
    (row,), used = _localize_variant(
        sub.variants[0].id,
        "fra",
        templates,
        memory.TranslationMemory("fra", "draft", {}),
        {},
        display,
    )
    assert "post offices" in row["text"] and "Kamppi (Helsinki)" in row["text"]
    assert json.loads(row["fallbacks"]) == ["category:category_A", "label:entity_B"] and used == {
        "category": 1,
        "label": 1,
    }
    # an event's English display name falls back without its English article
    (row,), _ = _localize_variant(
        sub.variants[0].id, "fra", templates, tm, {}, {"worldkg:1": "the Spanish Fire of 1994"}
    )
    assert row["text"].endswith("de Spanish Fire of 1994 ?") and " the " not in row["text"]
    # a French name starting with a vowel takes "d'", in the text and the marked text
    (row,), _ = _localize_variant(
        sub.variants[0].id, "fra", templates, tm, {"worldkg:1": "Orly"}, display
    )
    assert row["text"].endswith("à moins de 1,5 km d'Orly ?")
    assert row["text_marked"].endswith("km d'{Orly} ?")
    # English is not re-rendered: its slice copies questions_en (stage.localize_language)
    with pytest.raises(ValueError, match="English"):
        _localize_variant(
            sub.variants[0].id,
            "eng",
            {sub.variants[0].id: (en, "source")},
            memory.TranslationMemory("eng", "source", {}),
            {},
            display,
        )


def test_french_elides_before_a_name_whatever_put_the_word_there():
    """ "le plus près de" is the value of the word parameter ``rank_type``, not template text: the
    elision is made on the filled text, so the name after it takes "d'" like a name after the
    template's own "de"."""
    cat = default_catalog()
    vid = cat.sub_template("A04.1").variants[0].id
    fra = memory.load("fra")
    record = _record(
        sub_template_id="A04.1",
        variant_id=vid,
        bindings=json.dumps({"entity_A": "k:1", "entity_B": "k:2", "entity_C": "k:3"}),
        parameters=json.dumps({"rank_type": "closer to"}),
    )
    labels = {"k:1": "Mandabe", "k:2": "Ampamoloambe", "k:3": "Isalo"}
    (row,), _ = instantiate.localize(
        [record], "fra", {vid: (fra.variants[vid]["text"], "unreviewed")}, fra, labels, {}, cat
    )
    assert row["text"] == "Est-ce Mandabe ou Ampamoloambe qui se trouve le plus près d'Isalo ?"
    assert row["text_marked"].endswith("le plus près d'{Isalo} ?")
    # a consonant keeps "de"
    (row,), _ = instantiate.localize(
        [record],
        "fra",
        {vid: (fra.variants[vid]["text"], "unreviewed")},
        fra,
        {**labels, "k:3": "Mandabe"},
        {},
        cat,
    )
    assert row["text"].endswith("le plus près de Mandabe ?")


def test_display_qualifier_finds_the_category_word_only_where_disambiguation_put_it():
    q = names.display_qualifier
    assert q("Lasipalatsi", "Lasipalatsi (public building)", "public") == names.Qualified(
        "Lasipalatsi", "public"
    )
    assert q("Dia", "Dia (supermarket, Sant Julià de Lòria)", "supermarket") == names.Qualified(
        "Dia", "supermarket", "Sant Julià de Lòria"
    )
    # a street or locality alone, the name itself, a name that already holds the word: no qualifier
    assert q("Nordea", "Nordea (Mannerheimintie)", "bank") is None
    assert q("Kamppi", "Kamppi", "suburb") is None
    assert q("Foo (bus stop)", "Foo (bus stop)", "bus_stop") is None
    assert q("Foo (bus stop)", "Foo (bus stop) (bus stop)", "bus_stop") == names.Qualified(
        "Foo (bus stop)", "bus_stop"
    )
    # a base a rule replaced (another script) is what stands before the word
    assert q("Rue Marchand شارع", "Rue Marchand (road)", "road") == names.Qualified(
        "Rue Marchand", "road"
    )
    rows = [
        {"entity_id": "k:1", "name": "Ruoholahti", "display_name": "Ruoholahti (bus stop)"},
        {"entity_id": "k:2", "name": "Kamppi", "display_name": "Kamppi"},
    ]
    found = names.display_qualifiers([{**r, "category": "bus_stop"} for r in rows])
    assert found == {"k:1": names.Qualified("Ruoholahti", "bus_stop")}


def test_fallback_name_says_the_category_word_in_the_language():
    """An entity without a label in the language keeps its English display name, but the category
    word disambiguation gave it is the memory's singular; a street or locality stays; a missing
    singular keeps the English word and is recorded."""
    cat = default_catalog()
    sub = cat.sub_template("B01.2")
    vid = sub.variants[0].id
    entry = {"source": "bus stops", "text": "paradas de autobús", "singular": "parada de autobús"}
    spa = memory.TranslationMemory("spa", "draft", {}, categories={"bus_stop": entry})
    es = "¿Cuántas {category_A} hay a menos de {value} km de {entity_B}?"
    qualifiers = {"worldkg:1": names.Qualified("Rautatientori", "bus_stop")}

    def in_spanish(tm: memory.TranslationMemory, labels: dict):
        display = {"worldkg:1": "Rautatientori (bus stop)"}
        templates = {vid: (es, "unreviewed")}
        return _localize_variant(vid, "spa", templates, tm, labels, display, qualifiers=qualifiers)

    (row,), used = in_spanish(spa, {})
    assert row["text"].endswith("de Rautatientori (parada de autobús)?")
    assert row["text_marked"].endswith("de {Rautatientori (parada de autobús)}?")
    assert json.loads(row["fallbacks"]) == ["category:category_A", "label:entity_B"]
    assert used == {"category": 1, "label": 1}
    # German, with the locality kept as it is
    deu = memory.TranslationMemory(
        "deu",
        "draft",
        {},
        categories={
            "supermarket": {"source": "s", "text": "Supermärkte", "singular": "Supermarkt"}
        },
    )
    de = "Wie viele {category_A} liegen im Umkreis von {value} km um {entity_B}?"
    (row,), _ = _localize_variant(
        vid,
        "deu",
        {vid: (de, "unreviewed")},
        deu,
        {},
        {"worldkg:1": "Dia (supermarket, Sant Julià de Lòria)"},
        qualifiers={"worldkg:1": names.Qualified("Dia", "supermarket", "Sant Julià de Lòria")},
    )
    assert row["text"].endswith("um Dia (Supermarkt, Sant Julià de Lòria)?")
    # a label in the language wins over the qualified English name
    (row,), _ = in_spanish(spa, {"worldkg:1": "Plaza del Ferrocarril"})
    assert row["text"].endswith("de Plaza del Ferrocarril?")
    assert "label:entity_B" not in json.loads(row["fallbacks"])
    # no singular in the memory: the English word stays, recorded as a second fallback
    plural_only = memory.TranslationMemory(
        "spa", "draft", {}, categories={"bus_stop": {"source": "bus stops", "text": "paradas"}}
    )
    (row,), used = in_spanish(plural_only, {})
    assert row["text"].endswith("de Rautatientori (bus stop)?")
    assert (
        json.loads(row["fallbacks"])
        == "category:category_A label:entity_B qualifier:entity_B".split()
    )
    assert used == {"category": 1, "label": 1, "qualifier": 1}


def test_two_entities_never_read_the_same_in_a_language():
    """ "Ambohipo (neighbourhood)" and "Ambohipo (city quarter)" are two entities. Where the
    language has one word for both categories, both names give way to their English display names;
    two different entities with one label in the language take the label with the category word in
    the language, else English. Each name that gives way is recorded as ``unique``, an English one
    also as ``label``."""
    cat = default_catalog()
    vid = cat.sub_template("A01.1").variants[0].id
    fr = "Quelle est la distance entre {entity_A} et {entity_B} ?"

    def fra(quarter: str) -> memory.TranslationMemory:
        return memory.TranslationMemory(
            "fra",
            "draft",
            {},
            categories={
                "neighbourhood": {"source": "n", "text": "quartiers", "singular": "quartier"},
                "quarter": {"source": "q", "text": f"{quarter}s", "singular": quarter},
            },
        )

    display = {"k:1": "Ambohipo (neighbourhood)", "k:2": "Ambohipo (city quarter)"}
    qualifiers = {
        "k:1": names.Qualified("Ambohipo", "neighbourhood"),
        "k:2": names.Qualified("Ambohipo", "quarter"),
    }
    record = _record(
        sub_template_id="A01.1",
        variant_id=vid,
        bindings=json.dumps({"entity_A": "k:1", "entity_B": "k:2"}),
        parameters="{}",
    )

    def localize(tm, labels, bindings=None):
        rec = record if bindings is None else {**record, "bindings": json.dumps(bindings)}
        (row,), used = instantiate.localize(
            [rec], "fra", {vid: (fr, "unreviewed")}, tm, labels, display, cat, None, qualifiers
        )
        return row["text"].removeprefix("Quelle est la distance entre "), row, used

    text, row, used = localize(fra("quartier"), {})
    assert text == "Ambohipo (neighbourhood) et Ambohipo (city quarter) ?"
    assert (
        json.loads(row["fallbacks"])
        == "label:entity_A label:entity_B unique:entity_A unique:entity_B".split()
    )
    assert used == {"label": 2, "unique": 2}
    # one label for both: the category word in the language tells them apart, else English does
    same = {"k:1": "Ambohipo", "k:2": "Ambohipo"}
    text, row, used = localize(fra("secteur"), same)
    assert text == "Ambohipo (quartier) et Ambohipo (secteur) ?"
    assert json.loads(row["fallbacks"]) == ["unique:entity_A", "unique:entity_B"]
    text, row, _ = localize(fra("quartier"), same)
    assert text == "Ambohipo (neighbourhood) et Ambohipo (city quarter) ?"
    assert (
        json.loads(row["fallbacks"])
        == "unique:entity_A label:entity_A unique:entity_B label:entity_B".split()
    )
    # names that differ stay in the language; one entity in two slots is one name
    text, _, _ = localize(fra("quartier"), {"k:1": "Ambohipo"})
    assert text == "Ambohipo et Ambohipo (quartier) ?"
    text, _, used = localize(fra("quartier"), {}, {"entity_A": "k:1", "entity_B": "k:1"})
    assert text == "Ambohipo (quartier) et Ambohipo (quartier) ?" and "unique" not in used


def test_memory_singular_is_exposed_and_validated(tmp_path):
    tm = memory.TranslationMemory(
        "spa",
        "draft",
        {},
        categories={
            "bank": {"source": "banks", "text": "bancos", "singular": "banco"},
            "bar": {"source": "bars", "text": "bares"},
            "cafe": {"source": "cafes", "text": "cafeterías", "singular": " "},
            "pub": {"source": "pubs", "text": "pubs", "singular": ["pub"]},
        },
    )
    assert tm.singular("bank") == "banco" and tm.singular("bar") is None
    assert tm.singular("not_a_category") is None
    assert memory.validate(tm, {}) == [
        "category cafe: singular is not a non-empty string",
        "category pub: singular is not a non-empty string",
    ]
    (tmp_path / "spa.json").write_text(
        json.dumps({"lang": "spa", "categories": {"bank": tm.categories["bank"]}}),
        encoding="utf-8",
    )
    assert memory.load("spa", tmp_path).singular("bank") == "banco"


@pytest.mark.parametrize("lang", TARGETS)
def test_bundled_memory_has_the_singulars_display_names_need(lang):
    """Every category of every memory has a singular, a non-empty string: any category can be the
    word a display name carries (on the sample, 159 do)."""
    tm = memory.load(lang)
    assert all(
        isinstance(e.get("singular"), str) and e["singular"].strip() for e in tm.categories.values()
    )
    qualified = (
        "administrative_region",
        "hamlet",
        "bus_stop",
        "stop_position",
        "platform",
        "public",
    )
    assert all(tm.singular(c) for c in qualified)
    # the categories added for display names carry the forms every other category of the memory has
    added = (
        "public",
        "services",
        "natural",
        "tourism",
        "barrier",
        "beach_resort",
        "border_control",
    )
    added += ("civil", "dry_cleaning", "landuse", "prison", "proposed", "substation")
    (usual,) = {
        tuple(sorted(e.get("forms", {}))) for k, e in tm.categories.items() if k not in added
    }
    assert all(tuple(sorted(tm.categories[k].get("forms", {}))) == usual for k in added)


def test_multimodal_twin_keeps_the_image_phrase_in_every_language():
    cat = default_catalog()
    sub = cat.sub_template("B01.2")
    vid = sub.variants[0].id
    en_marked = sub.variants[0].text.format(
        category_A="post offices", value="1.5", entity_B="{the place shown in the image}"
    )
    q = _record(variant_id=vid, multimodal=True, text_marked=en_marked, image_role="entity_B")
    fr = "Combien de {category_A} à moins de {value} km de {entity_B} ?"

    def rendered(q: dict, lang: str, template: str, labels: dict) -> dict:
        tm = memory.TranslationMemory(lang, "draft", {})
        templates = {vid: (template, "unreviewed")}
        (row,), _ = instantiate.localize(
            [q], lang, templates, tm, labels, {"worldkg:1": "Kamppi"}, cat
        )
        return row

    row = rendered(q, "fra", fr, {"worldkg:1": "Kamppi-fr"})
    assert "{le lieu montré sur l'image}" in row["text_marked"] and "Kamppi" not in row["text"]
    # the role comes from the stored image_role, not from the English text
    q = _record(variant_id=vid, multimodal=True, text_marked="", image_role="entity_B")
    row = rendered(q, "fra", fr, {"worldkg:1": "Kamppi-fr"})
    assert "{le lieu montré sur l'image}" in row["text_marked"]
    assert set(instantiate.IMAGE_PHRASES) == set(TARGETS)
    # where the phrase starts the sentence it is capitalised, in the text and the marked text
    de = "{entity_B}: wie viele {category_A} liegen im Umkreis von {value} km? Ist {entity_B} nah?"
    row = rendered(q, "deu", de, {})
    assert row["text"].startswith("Der im Bild gezeigte Ort: wie viele")
    assert row["text"].endswith("Ist der im Bild gezeigte Ort nah?")
    assert row["text_marked"].startswith("{Der im Bild gezeigte Ort}")


def test_english_slice_copies_questions_en():
    """English is rendered once: the eng slice of questions_localized is questions_en's text, copied
    in SQL (a text no template would produce shows that nothing was re-rendered), with the source
    template and status."""
    cat = default_catalog()
    sub = cat.sub_template("B01.2")
    variant = sub.variants[0]
    record = {
        **dict.fromkeys(QUESTION_SCHEMA.names),
        **_record(variant_id=variant.id),
        "text": "As generated.",
        "text_marked": "As {generated}.",
        "tid": "B01",
        "executor": "x@1",
        "query": "SELECT 1",
        "gold_triples": "[]",
        "entity_subjects": "{}",
        "false_premise": False,
    }
    with warehouse.session(None) as con:
        warehouse.ensure_schema(con)
        with warehouse.registered(con, _q=arrow_table(QUESTION_SCHEMA, [record])):
            con.execute("INSERT INTO questions_en BY NAME SELECT * FROM _q")
        con.execute(
            """
            INSERT INTO template_translations_resolved
            VALUES ('eng', ?, 'B01.2', ?, ?, 'source', 'source', '[]', NULL)
            """,
            [variant.id, variant.text, variant.text],
        )
        r = stage.localize_language(con, cat, "eng")
        rows = warehouse.fetch_dicts(con, "SELECT * FROM questions_localized")
    assert r["n"] == 1 and r["template_statuses"] == {"source": 1}
    expected = {
        "lang": "eng",
        "question_id": "q1",
        "text": "As generated.",
        "text_marked": "As {generated}.",
        "template_text": variant.text,
        "template_status": "source",
        "fallbacks": "[]",
    }
    assert rows == [expected]
