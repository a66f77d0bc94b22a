"""Names in context (mgqa_platform/multilingual/names_in_context.py) and the rule-based post-edit
member's rules in each of the 16 target languages (mgqa_platform/multilingual/ensemble.py): marked
text in, marked text out."""

from __future__ import annotations

import pytest

from mgqa_platform.languages import TARGETS
from mgqa_platform.multilingual import names_in_context as nic
from mgqa_platform.multilingual.ensemble import RuleMember, apply_edits, postedit, spans, stats


def rules(lang: str, text: str, classes: list | None = None) -> str:
    """The marked text after the rule member's edits; the names (spans) never change."""
    q = {"lang": lang, "text_marked": text}
    if classes is not None:
        q["classes"] = classes
    p = RuleMember().propose(q)
    assert p.status == "ok"
    out = apply_edits(text, p.edits)
    assert spans(out) == spans(text)
    return out


def rule_names(lang: str, text: str, classes: list | None = None) -> set[str]:
    q = {"lang": lang, "text_marked": text, "classes": classes or []}
    return {e.rule for e in RuleMember().propose(q).edits}


# ------------------------------------------------------------------------------------ the functions
@pytest.mark.parametrize(
    "name, case, suffix",
    [
        ("Helsinki", "dat", "'ye"),  # front vowel, vowel-final: buffer y
        ("Ankara", "dat", "'ya"),
        ("Paris", "abl", "'ten"),  # voiceless final s: t
        ("Gbéta", "abl", "'dan"),  # accent ignored, back vowel
        ("Ankara", "loc", "'da"),
        ("Bebek", "loc", "'te"),
        ("Berlin", "gen", "'in"),
        ("Mokra", "gen", "'nın"),  # buffer n
        ("Köln", "gen", "'ün"),  # front rounded
        ("Bolu", "acc", "'yu"),  # back rounded, buffer y
        ("Ürgüp", "abl", "'ten"),
        ("İzmir", "dat", "'e"),
        ("Saint Paris", "dat", "'e"),  # the last word decides
        ("Deque 2", "dat", "'ye"),  # a number read aloud: iki
        ("Route 66", "abl", "'dan"),  # altı
        ("Portão 3", "loc", "'te"),  # üç: voiceless ç
        ("Linha 40", "abl", "'tan"),  # kırk
        ("Km 100", "gen", "'ün"),  # yüz
        ("Estrada 10000", "dat", "'e"),  # on bin
        ("TRT", "gen", "'nin"),  # an abbreviation read by letter: te
        ("14 Bis C/B", "dat", "'ye"),  # the last part after a slash: be
        ("NATO", "acc", "'yu"),  # capitals ending in o, however read
        ("Portão A", "dat", "'ya"),  # one letter, read by its name
    ],
)
def test_turkish_suffix_harmony_and_assimilation(name, case, suffix):
    assert nic.turkish_suffix(name, case) == suffix


@pytest.mark.parametrize(
    "name",
    [
        "Village",
        "Church",
        "Kemer",
        "Mihary",
        "School",
        "INSS",
        "ABD",  # a-be-de or a word: undecided
        "Portão I",  # ı or i
        "Estação 4.5",
        "Clínicas (stop)",
        "Москва",
    ],
)
def test_turkish_suffix_undecided_when_spelling_hides_the_sound(name):
    assert nic.turkish_suffix(name, "dat") is None


def test_turkish_suffix_rejects_unknown_case():
    with pytest.raises(ValueError):
        nic.turkish_suffix("Paris", "ins")


@pytest.mark.parametrize(
    "name, sound",
    [
        ("Mokra", "vowel"),
        ("Centro Cívico", "vowel"),
        ("Paris", "consonant"),
        ("თბილისი", "vowel"),
        ("ქუთაისი ძველი ქალაქ", "consonant"),
        ("Village", None),  # a final e that may be silent
        ("Deque 2", None),
        ("INSS B/C", None),
        ("Clínicas (stop)", None),
        ("NASA", None),
        ("Москва", None),
    ],
)
def test_final_sound(name, sound):
    assert nic.final_sound(name) == sound


@pytest.mark.parametrize(
    "name, suffix, form",
    [
        ("Mokra", "ის", "ს"),
        ("Paris", "ის", "ის"),
        ("Paris", "სთვის", "ისთვის"),
        ("Mokra", "ისთვის", "სთვის"),
        ("Paris", "სკენ", "ისკენ"),
        ("Tokio", "ისგან", "სგან"),
        ("Tokio", "ით", "თი"),
        ("Paris", "თი", "ით"),
        ("Paris", "ს", None),  # also the dative: left alone
        ("Paris", "დან", None),
        ("Paris", "სა", None),  # also the dative: left alone
        ("Mokra", "ისა", "სა"),
        ("Deque 2", "ის", "ის"),  # a numeral: ორის
        ("Deque (stop)", "ის", None),
    ],
)
def test_georgian_suffix(name, suffix, form):
    assert nic.georgian_suffix(name, suffix) == form


@pytest.mark.parametrize(
    "name, sound",
    [
        ("Escaldes-Engordany", "vowel"),  # the last part after a hyphen
        ("Espelho d'Água", "vowel"),  # after an apostrophe
        ("Portão 8", "consonant"),  # რვა -> რვის
        ("Rua Pio XII", "consonant"),  # მეთორმეტე -> მეთორმეტის
        ("FAPA", "vowel"),
        ("ECO", "vowel"),
        ("INSS", "consonant"),
        ("WTC", "vowel"),  # ... ტი-სი
        ("ABD", None),  # a word or letters
        ("Clínicas (stop)", None),
        ("Village", None),
    ],
)
def test_georgian_sound(name, sound):
    assert nic.georgian_sound(name) == sound


@pytest.mark.parametrize(
    "noun, forms",
    [
        ("durak", ("durağa", "duraktan", "durakta", "durağı", "durağın")),
        ("şehir", ("şehre", "şehirden", "şehirde", "şehri", "şehrin")),
        ("köy", ("köye", "köyden", "köyde", "köyü", "köyün")),
        ("mezra", ("mezraya", "mezradan", "mezrada", "mezrayı", "mezranın")),
        (
            "havalimanı",
            ("havalimanına", "havalimanından", "havalimanında", "havalimanını", "havalimanının"),
        ),
        ("yerler", ("yerlere", "yerlerden", "yerlerde", "yerleri", "yerlerin")),
    ],
)
def test_turkish_case_of_class_nouns(noun, forms):
    assert tuple(nic.turkish_case(noun, c) for c in ("dat", "abl", "loc", "acc", "gen")) == forms


def test_turkish_named_frame_by_class():
    assert nic.turkish_named("bus_stop", "dat") == "adlı durağa"
    assert nic.turkish_named("village", "gen") == "adlı köyün"
    assert nic.turkish_named("convenience", "abl") == "adlı mağazadan"
    assert nic.turkish_named("natural", "acc") == "adlı yeri"  # no listed noun: a place
    assert nic.turkish_named(None, "loc") == "adlı yerde"
    assert nic.turkish_named("village", "gen", plural=True) == "adlı yerlerin"
    every = set(nic.TURKISH_CLASS_NOUNS.values())
    for noun in every:  # every listed noun has all five forms
        assert all(nic.turkish_case(noun, c) for c in ("dat", "abl", "loc", "acc", "gen"))
    with pytest.raises(ValueError):
        nic.turkish_named("village", "ins")


@pytest.mark.parametrize(
    "gender, case, name, se, article",
    [
        ("n", "acc", "Mokra", False, "το"),
        ("m", "acc", "Mokra", False, "τον"),
        ("f", "acc", "Lisboa", False, "τη"),
        ("f", "acc", "Antseranambe", False, "την"),  # -ν kept before a vowel
        ("f", "acc", "Kpetiyamah", True, "στην"),  # and before a stop
        ("f", "acc", "Λισαβόνα", True, "στη"),
        ("m", "acc", "Sherpa", True, "στον"),
        ("n", "acc", "Shopping João Pessoa", True, "στο"),
        ("m", "nom", "X", False, "ο"),
        ("f", "nom", "X", False, "η"),
        ("f", "gen", "X", False, "της"),
        ("n", "gen", "X", False, "του"),
    ],
)
def test_greek_article(gender, case, name, se, article):
    assert nic.greek_article(gender, case, name, with_se=se) == article


def test_greek_article_rejects_bad_input():
    for args, kw in (
        (("x", "acc", "A"), {}),
        (("m", "dat", "A"), {}),
        (("m", "nom", "A"), {"with_se": True}),
    ):
        with pytest.raises(ValueError):
            nic.greek_article(*args, **kw)


def test_greek_gender_covers_the_common_classes():
    assert nic.GREEK_GENDER["village"] == "n"
    assert nic.GREEK_GENDER["hamlet"] == "m"
    assert nic.GREEK_GENDER["city"] == "f"
    assert set(nic.GREEK_GENDER.values()) == {"m", "f", "n"}


@pytest.mark.parametrize(
    "lang, prep, name, form",
    [
        ("rus", "в", "Владимир", "во"),
        ("rus", "В", "Владимир", "Во"),
        ("rus", "в", "Вологда", None),  # a vowel after в
        ("rus", "с", "Смоленск", "со"),
        ("rus", "к", "Гданьск", "ко"),
        ("rus", "в", "Vladimir", None),  # not Cyrillic
        ("bul", "в", "Варна", "във"),
        ("bul", "в", "Франкфурт", "във"),
        ("bul", "с", "Созопол", "със"),
        ("bul", "с", "Пловдив", None),
        ("bul", "от", "Варна", None),
    ],
)
def test_cyrillic_preposition(lang, prep, name, form):
    assert nic.cyrillic_preposition(lang, prep, name) == form


def test_span_classes_follow_the_template_slots():
    template = "Από {entity_B} προς {entity_A} «{category_A}» και πάλι {entity_B} ({value} km);"
    bindings = {"entity_A": "w:1", "entity_B": "w:2", "category_A": "village"}
    cats = {"w:1": "city", "w:2": "village"}
    assert nic.span_classes(template, bindings, cats) == ["village", "city", "village"]
    assert nic.span_classes(template, bindings, cats, image_role="entity_A") == [
        "village",
        None,
        "village",
    ]
    assert nic.span_classes(template, bindings, {}) == [None, None, None]


# --------------------------------------------------------------------- the rule member, by language
# (language, text before, text after): elision, contraction, punctuation and spacing
PUNCTUATION_AND_CONTRACTION = [
    ("fra", "Est-ce loin de {Ostende} ?", "Est-ce loin d'{Ostende} ?"),
    ("ita", "Quanto dista di il {Po} ?", "Quanto dista del {Po}?"),
    ("por", "Fica em o {Porto}?", "Fica no {Porto}?"),
    ("spa", "¿Lejos de el {Prado}?", "¿Lejos del {Prado}?"),
    ("spa", "¿Lejos de {El Salvador}?", "¿Lejos de {El Salvador}?"),  # never inside a name
    ("ron", "Unde este {Cluj} ?", "Unde este {Cluj}?"),
    ("deu", "Wo  liegt {Köln} ?", "Wo liegt {Köln}?"),
    ("sqi", "Sa larg është {Vlorë} ?", "Sa larg është {Vlorë}?"),
    ("vie", "{Huế} ở đâu ?", "{Huế} ở đâu?"),
    ("urd", "کیا {Lahore} دور ہے ؟", "کیا {Lahore} دور ہے؟"),  # before the Arabic question mark
    ("jpn", "{Paris}から遠いですか ?", "{Paris}から遠いですか？"),  # full-width question mark
    ("zho", "{Paris}から遠いですか ?", "{Paris}から遠いですか？"),
    ("jpn", "{Paris}から遠いですか？", "{Paris}から遠いですか？"),
    ("zho", "{Paris}から遠いですか？", "{Paris}から遠いですか？"),
]


@pytest.mark.parametrize(("lang", "text", "fixed"), PUNCTUATION_AND_CONTRACTION)
def test_punctuation_and_contraction_by_language(lang, text, fixed):
    assert rules(lang, text) == fixed


def test_rus_preposition_before_a_name():
    assert rules("rus", "Далеко ли в {Владимир} от {Vladimir} ?") == (
        "Далеко ли во {Владимир} от {Vladimir}?"
    )
    assert rules("rus", "Как далеко с {Смоленском}?") == "Как далеко со {Смоленском}?"
    assert rules("rus", "Путь в {Вологда}?") == "Путь в {Вологда}?"


def test_bul_preposition_before_a_name():
    assert rules("bul", "Какво е разстоянието във {Варна} и в {Франкфурт}?") == (
        "Какво е разстоянието във {Варна} и във {Франкфурт}?"
    )
    assert rules("bul", "Пътят с {Созопол} и с {Sozopol}?") == "Пътят със {Созопол} и с {Sozopol}?"


def test_tur_case_suffix_replaces_the_location_frame():
    text = "{Helsinki} konumuna, {Paris} konumundan, {Ankara} konumunda yakın mı?"
    assert rules("tur", text) == "{Helsinki}'ye, {Paris}'ten, {Ankara}'da yakın mı?"
    assert rules("tur", "{Bolu} konumunu ve {Berlin} konumunun yakını?") == (
        "{Bolu}'yu ve {Berlin}'in yakını?"
    )


def test_tur_named_frame_where_the_name_does_not_decide():
    text = "{Village} konumuna ve {ABD} konumundan, {Tiobly} nesnesinin {Kemer} konumunu?"
    assert rules("tur", text, ["bus_stop", "village", "hamlet", None]) == (
        "{Village} adlı durağa ve {ABD} adlı köyden, {Tiobly} adlı mezranın {Kemer} adlı yeri?"
    )
    assert rule_names("tur", "{Village} konumuna", ["city"]) == {"tur:named_frame"}
    assert rules("tur", "{Route 66} konumundan {TRT} konumuna") == "{Route 66}'dan {TRT}'ye"


def test_tur_frame_shared_by_two_names():
    text = "hem {Paris} hem de {Ankara} konumunu içeren"  # both decide: a suffix on each
    assert rules("tur", text) == "hem {Paris}'i hem de {Ankara}'yı içeren"
    # one does not: the places called A and B
    text = "Hem {Village} hem de {Ankara} konumunun bulunduğu"
    assert rules("tur", text) == "Hem {Village} hem de {Ankara} adlı yerlerin bulunduğu"
    text = "{Village} ve {Paris} konumlarının birlikte"  # the last name carries the case for both
    assert rules("tur", text) == "{Village} ve {Paris}'in birlikte"
    text = "{Paris} ve {Village} konumlarının birlikte"
    assert rules("tur", text) == "{Paris} ve {Village} adlı yerlerin birlikte"


def test_kat_genitive_suffix_by_final_sound():
    assert rules("kat", "არის თუ არა {Mokra}-ის კონტური და {Paris}-ის კონტური?") == (
        "არის თუ არა {Mokra}-ს კონტური და {Paris}-ის კონტური?"
    )
    assert (
        rules("kat", "საერთოა {Paris}-სა და {Lyon}-სთვის.")
        == "საერთოა {Paris}-სა და {Lyon}-ისთვის."
    )
    text = "შორს {Deque 2}-ის და {Paris}-ს?"  # unknown final sound; the dative -ს
    assert rules("kat", text) == text


def test_ell_article_by_class_noun_after_prepositions_and_verbs():
    text = "Είναι {Mokra} μακριά από {Lisboa} και κοντά σε {Antseranambe};"
    assert rules("ell", text, ["village", "city", "town"]) == (
        "Είναι το {Mokra} μακριά από τη {Lisboa} και κοντά στην {Antseranambe};"
    )
    assert rules("ell", "Πόσο απέχει {A} από {B};", ["hamlet", "bus_stop"]) == (
        "Πόσο απέχει ο {A} από την {B};"  # -ν kept before b (μπ)
    )
    assert rules("ell", "Η απόσταση μεταξύ {A} και {B};", ["road", "city"]) == (
        "Η απόσταση μεταξύ του {A} και της {B};"
    )
    assert rules("ell", "Σε {Lisboa} ή προς {A};", ["city", "river"]) == (
        "Στη {Lisboa} ή προς τον {A};"
    )


def test_ell_predicate_adjective_agrees_with_the_name():
    text = "Είναι {A} φυσικά αποσυνδεδεμένο από {B};"
    assert rules("ell", text, ["road", "road"]) == (
        "Είναι ο {A} φυσικά αποσυνδεδεμένος από τον {B};"
    )
    text = "Είναι {A} πιο συμπαγές από {B};"
    assert rules("ell", text, ["city", "village"]) == "Είναι η {A} πιο συμπαγής από το {B};"
    assert rules("ell", "Είναι {A} γειτονικό με {B};", ["village", "road"]) == (
        "Είναι το {A} γειτονικό με τον {B};"  # neuter: as written
    )
    text = "Είναι {A} και {B} χωρικά ξένα μεταξύ τους;"
    assert rules("ell", text, ["road", "city"]) == "Είναι ο {A} και η {B} χωρικά ξένοι μεταξύ τους;"
    assert rules("ell", text, ["city", "town"]) == "Είναι η {A} και η {B} χωρικά ξένες μεταξύ τους;"
    assert rules("ell", text, ["road", "village"]) == (
        "Είναι ο {A} και το {B} χωρικά ξένα μεταξύ τους;"
    )
    assert rules("ell", "Είναι {A} μεγαλύτερο;", [None]) == "Είναι {A} μεγαλύτερο;"  # no article
    assert nic.greek_predicate("μεγαλύτερο", ["f"]) == "μεγαλύτερη"
    assert nic.greek_predicate("μεγαλύτερο", ["m", "f"]) is None  # a singular said of one name
    assert nic.greek_predicate("κοντά", ["m"]) is None


def test_ell_article_case_from_the_word_before_and_coordination():
    assert rules("ell", "Εκφράστε τη θέση {A} ως δείκτη H3.", ["city"]) == (
        "Εκφράστε τη θέση της {A} ως δείκτη H3."
    )
    assert rules("ell", "Δώστε το κελί που περιέχει {A}.", ["hamlet"]) == (
        "Δώστε το κελί που περιέχει τον {A}."
    )
    assert rules("ell", "Ποια στοιχεία περνά {A};", ["road"]) == "Ποια στοιχεία περνά ο {A};"
    assert rules("ell", "Με κέντρο {A}, πού είναι {B};", ["hamlet", "village"]) == (
        "Με κέντρο τον {A}, πού είναι το {B};"
    )
    assert rules("ell", "Πόσο χωρίζουν {A} από {B};", ["village", "hamlet"]) == (
        "Πόσο χωρίζουν το {A} από τον {B};"
    )
    assert rules("ell", "Είναι κοντά σε {A} και {Lisboa};", ["village", "city"]) == (
        "Είναι κοντά στο {A} και στη {Lisboa};"
    )
    assert rules("ell", "Είναι {A} ή {B} πιο κοντά;", ["village", "hamlet"]) == (
        "Είναι το {A} ή ο {B} πιο κοντά;"
    )
    assert rules("ell", "Πόσο απέχει από {A} και {B};", ["natural", "hamlet"]) == (
        "Πόσο απέχει από {A} και {B};"  # no article on the first name: none on the second
    )


def test_ell_no_article_where_no_rule_decides():
    text = "Είναι {A} μακριά από {ο τόπος στην εικόνα} ή από {B};"
    assert rules("ell", text, ["natural", "village", None]) == text
    assert rules("ell", "Είναι {A} μακριά από {B};") == "Είναι {A} μακριά από {B};"  # no classes


def test_every_target_language_has_a_rule_that_fires():
    samples = {
        "fra": "Loin de {Orly} ?",
        "ita": "Dove si trova {A} ?",
        "por": "Fica em o {Porto}?",
        "spa": "¿Lejos de el {Prado}?",
        "ron": "Unde este {Cluj} ?",
        "bul": "Пътят с {Созопол}?",
        "rus": "Путь в {Владимир}?",
        "deu": "Wo liegt {Köln} ?",
        "urd": "کیا {Lahore} دور ہے ؟",
        "sqi": "Ku është {Vlorë} ?",
        "ell": "Είναι {A} μακριά;",
        "jpn": "{Paris}はどこですか?",
        "kat": "{Mokra}-ის კონტური?",
        "tur": "{Paris} konumundan uzak mı?",
        "vie": "{Huế} ở đâu ?",
        "zho": "{Paris}在哪里?",
    }
    assert set(samples) == set(TARGETS)
    for lang, text in samples.items():
        assert rules(lang, text, ["village"]) != text, lang


def test_rule_shares_in_the_statistics():
    questions = [
        {"lang": "tur", "question_id": "q1", "text_marked": "{Paris} konumundan uzak mı ?"},
        {"lang": "tur", "question_id": "q2", "text_marked": "{Ankara} konumunda mı?"},
        {"lang": "tur", "question_id": "q3", "text_marked": "{Kemer} konumunda ne var?"},
        {"lang": "tur", "question_id": "q4", "text_marked": "Uzak mı ?"},
    ]
    results = [postedit(q, [RuleMember()], "rules") for q in questions]
    assert results[0]["text"] == "Paris'ten uzak mı?"
    assert results[0]["applied"][0]["rule"] == "tur:case_suffix"
    s = stats(results)
    assert s["rule_shares"] == {
        "tur:case_suffix": 0.5,
        "tur:punctuation": 0.5,
        "tur:named_frame": 0.25,
    }
    assert s["operation_shares"] == {"DECL": 0.5, "PUNCT": 0.5, "OTHER": 0.25}
    assert s["share_edited"] == 1.0
    assert rule_names("tur", "{Paris} konumundan?") == {"tur:case_suffix"}
