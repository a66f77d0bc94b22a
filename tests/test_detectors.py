"""The per-language error detectors: each one on a question it must flag and on its correct form."""

from __future__ import annotations

import json

import duckdb
import pytest

from mgqa_platform import report
from mgqa_platform.languages import TARGETS
from mgqa_platform.multilingual import detectors as det

# (language, detector name, wrong text_marked, the same question written right)
CASES = [
    (
        "spa",
        "masculine_with_feminine",
        "¿Cuál es la distancia entre los aldeas de {Huesca}?",
        "¿Cuál es la distancia entre las aldeas de {Huesca}?",
    ),
    (
        "spa",
        "masculine_with_feminine",
        "¿Cuántos tiendas de conveniencia hay en {Toledo}?",
        "¿Cuántas tiendas de conveniencia hay en {Toledo}?",
    ),
    (
        "spa",
        "month_year",
        "En diciembre 2015, ¿a qué distancia de {Lugo} ocurrió {el incendio}?",
        "En diciembre de 2015, ¿a qué distancia de {Lugo} ocurrió {el incendio}?",
    ),
    (
        "por",
        "masculine_with_feminine",
        "Tomando os estradas de {Braga} dois a dois, qual é a distância máxima?",
        "Tomando as estradas de {Braga} duas a duas, qual é a distância máxima?",
    ),
    (
        "por",
        "month_year",
        "Em dezembro 2015, a que distância de {Faro} ocorreu {o sismo}?",
        "Em dezembro de 2015, a que distância de {Faro} ocorreu {o sismo}?",
    ),
    (
        "ita",
        "i_with_feminine",
        "Quanto distano tra loro i strade in {Bologna}?",
        "Quanto distano tra loro le strade in {Bologna}?",
    ),
    (
        "ita",
        "i_with_gli_noun",
        "Quale dei ospedali in {Torino} è il più vicino?",
        "Quale degli ospedali in {Torino} è il più vicino?",
    ),
    (
        "ita",
        "i_with_gli_noun",
        "Ordina i aeroporti in base alla distanza da {Pisa}.",
        "Ordina gli aeroporti in base alla distanza da {Pisa}.",
    ),
    (
        "fra",
        "quels_with_feminine",
        "Quels routes intersectent {Lyon} ?",
        "Quelles routes intersectent {Lyon} ?",
    ),
    (
        "fra",
        "first_of_month",
        "Combien de séismes du 1 janvier 2016 au 31 décembre 2016 près de {Nice} ?",
        "Combien de séismes du 1er janvier 2016 au 31 décembre 2016 près de {Nice} ?",
    ),
    (
        "ell",
        "name_without_article",
        "Πόσα χιλιόμετρα απέχει η Πάτρα από {Shopping João Pessoa};",
        "Πόσα χιλιόμετρα απέχει η Πάτρα από το {Shopping João Pessoa};",
    ),
    (
        "ell",
        "name_without_article",
        "Πόσα σχολεία υπάρχουν σε {Λάρισα};",
        "Πόσα σχολεία υπάρχουν στη {Λάρισα};",
    ),
    (
        "ell",
        "category_frame",
        "Πόσα στοιχεία της κατηγορίας «σχολεία» υπάρχουν στη {Λάρισα};",
        "Πόσα σχολεία υπάρχουν στη {Λάρισα};",
    ),
    (
        "ell",
        "predicate_agreement",
        "Είναι ο {Avenue} φυσικά αποσυνδεδεμένο από τον {B};",
        "Είναι ο {Avenue} φυσικά αποσυνδεδεμένος από τον {B};",
    ),
    (
        "spa",
        "english_event",
        "¿A qué distancia está {magnitude 4.9 earthquake of 27 November 2015 at 11:40 UTC}?",
        "¿A qué distancia está {Firestone Road}?",
    ),
    (
        "jpn",
        "english_event",
        "{Haloween Fire of 1997}はどこですか？",
        "{Fire Station 2}はどこですか？",
    ),
    (
        "urd",
        "direct_plural",
        "{X} کو کاٹنے والی سڑکیں کی فہرست دیں۔",
        "{X} کو کاٹنے والی سڑکوں کی فہرست دیں۔",
    ),
    (
        "ell",
        "airport_word",
        "Ποια αεροδρόμια μεγάλων πτήσεων βρίσκονται κοντά στην {Αθήνα};",
        "Ποια αεροδρόμια βρίσκονται κοντά στην {Αθήνα};",
    ),
    (
        "rus",
        "category_frame",
        "Сколько объектов категории «школы» в {Казань}?",
        "Сколько школ в городе {Казань}?",
    ),
    (
        "rus",
        "latin_km",
        "Какие школы находятся в радиусе 5 km от {Тверь}?",
        "Какие школы находятся в радиусе 5 км от {Тверь}?",
    ),
    (
        "rus",
        "month_year",
        "Как далеко от {Омск} произошло событие в период декабрь 2015?",
        "Как далеко от {Омск} произошло событие в декабре 2015 г.?",
    ),
    (
        "bul",
        "category_frame",
        "Кой обект от категорията „училища“ в {София} е най-близо?",
        "Кое училище в {София} е най-близо?",
    ),
    (
        "bul",
        "latin_km",
        "Колко училища има в радиус от 5 km от {Пловдив}?",
        "Колко училища има в радиус от 5 км от {Пловдив}?",
    ),
    (
        "bul",
        "month_year",
        "Колко далеч от {Варна} се случи събитието през декември 2015?",
        "Колко далеч от {Варна} се случи събитието през декември 2015 г.?",
    ),
    (
        "urd",
        "latin_km",
        "{لاہور} سے 2 km کے اندر کتنے اسکول ہیں؟",
        "{لاہور} سے 2 کلومیٹر کے اندر کتنے اسکول ہیں؟",
    ),
    (
        "tur",
        "robotic_frame",
        "{Ankara} konumuna en yakın okul hangisi?",
        "{Ankara}'ya en yakın konumdaki okul hangisi?",
    ),
    (
        "tur",
        "robotic_frame",
        "{Ege Nehri} nesnesini kesen yollar hangileri?",
        "{Ege Nehri}'ni kesen yollar hangileri?",
    ),
    (
        "tur",
        "lowercase_sentence",
        "okullar ve hastaneler birlikte sayıldığında {İzmir} içinde kaç tane var?",
        "Okullar ve hastaneler birlikte sayıldığında {İzmir} içinde kaç tane var?",
    ),
    (
        "kat",
        "quantifier_with_plural",
        "რამდენია სკოლები {თბილისი}-დან 5 კმ-ის რადიუსში?",
        "რამდენი სკოლაა {თბილისი}-დან 5 კმ-ის რადიუსში?",
    ),
    (
        "kat",
        "quantifier_with_plural",
        "ჩამოთვალეთ ყველა ალკოჰოლური სასმელების მაღაზიები {ბათუმი}-ში.",
        "ჩამოთვალეთ ალკოჰოლური სასმელების ყველა მაღაზია {ბათუმი}-ში.",
    ),
    (
        "kat",
        "genitive_after_vowel",
        "რამდენად შორსაა {Helsinki}-ის უახლოესი წერტილი?",
        "რამდენად შორსაა {Helsinki}-ს უახლოესი წერტილი?",
    ),
    (
        "kat",
        "genitive_after_vowel",
        "რამდენად შორსაა {FAPA}-ის ცენტრი?",
        "რამდენად შორსაა {Rua Pio XII}-ის ცენტრი?",  # a Roman numeral is read as an ordinal
    ),
    (
        "kat",
        "mtavruli_capital",
        "Მაღაზიები: რომელია უახლოესი {ქუთაისი}-დან?",
        "მაღაზიები: რომელია უახლოესი {ᲥᲣᲗᲐᲘᲡᲘ}-დან?",
    ),
    (
        "kat",
        "category_frame",
        "რომელია უახლოესი ობიექტი კატეგორიიდან „სკოლები“ {ქუთაისი}-ში?",
        "რომელია უახლოესი სკოლა {ქუთაისი}-ში?",
    ),
    (
        "jpn",
        "month_year",
        "12月 2015に、{地震}は{東京}からどれくらい離れた場所で発生しましたか？",
        "2015年12月に、{地震}は{東京}からどれくらい離れた場所で発生しましたか？",
    ),
    (
        "zho",
        "month_year",
        "在十二月 2015，{地震}的发生地点距离{北京}有多远？",
        "在2015年12月，{地震}的发生地点距离{北京}有多远？",
    ),
    (
        "zho",
        "traditional_characters",
        "{赫爾辛基}有多少所学校？",
        "{赫尔辛基}有多少所著名学校？",
    ),
    (
        "vie",
        "month_year",
        "Vào Tháng 12 2015, {trận động đất} xảy ra cách {Huế} bao xa?",
        "Vào tháng 12 năm 2015, {trận động đất} xảy ra cách {Huế} bao xa?",
    ),
]
# English left in a non-Latin-script language (never inside a name; "km" has its own detector).
LATIN = [
    (
        "ell",
        "Πόσα convenience stores υπάρχουν στη {Λάρισα};",
        "Πόσα μίνι μάρκετ υπάρχουν στη {Larisa};",
    ),
    ("rus", "Сколько convenience stores в {Тверь}?", "Сколько магазинов у дома в {Tver}?"),
    ("bul", "Колко hostels има в {София}?", "Колко хостела има в {Sofia Center}?"),
    ("kat", "რამდენი hostel არის {თბილისი}-ში?", "რამდენი ჰოსტელია {Tbilisi}-ში?"),
    (
        "jpn",
        "{東京}のconvenience storesはいくつありますか？",
        "{Tokyo}のコンビニはいくつありますか？",
    ),
    ("zho", "{北京}有多少家convenience stores？", "{Beijing}有多少家便利店？"),
    ("urd", "{لاہور} میں کتنے hostels ہیں؟", "{Lahore} میں کتنے ہاسٹل ہیں؟"),
]
# The detector every language has, on one question per language.
DOUBLED = [
    ("ron", "Câte școli sunt în  {Cluj}?", "Câte școli sunt în {Cluj}?"),
    ("deu", "Wie viele Schulen gibt es in {Köln}??", "Wie viele Schulen gibt es in {Köln}?"),
    (
        "sqi",
        "Sa shkolla ka në {Tiranë} , sipas hartës?",
        "Sa shkolla ka në {Tiranë}, sipas hartës?",
    ),
    ("urd", "{لاہور} میں کتنے اسکول ہیں؟؟", "{لاہور} میں کتنے اسکول ہیں؟"),
    ("jpn", "{東京}の学校はいくつありますか。。", "{東京}の学校はいくつありますか。"),
    ("zho", "{北京}有多少所学校，，", "{北京}有多少所学校？"),
]


def _find(lang: str, name: str):
    return next(d for d in det.detectors(lang) if d.name == name).find


@pytest.mark.parametrize(("lang", "name", "wrong", "right"), CASES)
def test_detector_flags_the_error_and_passes_the_correct_form(lang, name, wrong, right):
    assert _find(lang, name)(wrong)
    assert _find(lang, name)(right) == []
    assert name in det.detect(wrong, lang)
    assert det.detect(right, lang) == {}


@pytest.mark.parametrize(("lang", "wrong", "right"), DOUBLED)
def test_doubled_space_or_punctuation(lang, wrong, right):
    found = _find(lang, "doubled_space_or_punctuation")(wrong)
    assert found
    assert det.detect(wrong, lang) == {"doubled_space_or_punctuation": found}
    assert det.detect(right, lang) == {}


@pytest.mark.parametrize(("lang", "wrong", "right"), LATIN)
def test_latin_word_left_in_a_non_latin_script(lang, wrong, right):
    assert det.detect(wrong, lang) == {"latin_word": _find(lang, "latin_word")(wrong)}
    assert _find(lang, "latin_word")(wrong)
    assert det.detect(right, lang) == {}


def test_latin_identifiers_are_kept_and_a_silent_e_takes_the_full_genitive():
    assert det.detect("Δώστε το token και το geohash του {Βόλος};", "ell") == {}
    assert det.detect("{Rue de Genéve}-ის სიგრძე?", "kat") == {}
    assert det.detect("{Rue de Genéva}-ის სიგრძე?", "kat") == {
        "genitive_after_vowel": ["{Rue de Genéva}-ის"]
    }


def test_the_proper_names_that_state_a_convention_are_kept_latin():
    """Every Latin word of a stated convention's kept words ("Douglas-Peucker", "Natural Earth")
    is one the non-Latin scripts keep: the memories must write them verbatim."""
    from mgqa_platform.questions import stated
    from mgqa_platform.questions.catalog import default_catalog

    kept = {w for s in default_catalog().sub_templates for w in stated.kept_words(s.stated)}
    latin = {w for k in kept for w in det._LATIN_WORD.findall(k)}
    assert latin and latin <= det.LATIN_KEPT
    text = "Граница упрощается алгоритмом Douglas-Peucker; границы по карте Natural Earth."
    assert det.latin_word_left(text) == []


def test_names_never_trigger_the_rules_around_them():
    """A name that happens to look like an error is masked: only the words we insert around it
    count."""
    assert det.detect("¿Qué distancia hay entre {los aldeas} y {Toledo}?", "spa") == {}
    assert det.detect("Quanto dista {i ospedali} da {Torino}?", "ita") == {}
    assert det.detect("Сколько школ рядом с {km Club}?", "rus") == {}
    assert det.detect("{Aéroport  de Nice} est-il loin de {Lyon} ?", "fra") == {}


def test_spanish_and_italian_plurals_that_are_masculine_pass():
    assert det.detect("¿Cuántos aeropuertos y hospitales hay en {Lugo}?", "spa") == {}
    assert det.detect("Quanti aeroporti e i negozi in {Pisa}? Gli ospedali?", "ita") == {}
    assert det.detect("Quels aéroports intersectent {Lyon} ?", "fra") == {}


def test_georgian_superlative_and_singular_after_quantifier_pass():
    kat = "kat"
    assert det.detect("რომელია ყველაზე ახლოს {თბილისი}-თან?", kat) == {}
    assert det.detect("რამდენი კილომეტრია {ბათუმი}-დან {ფოთი}-მდე?", kat) == {}
    assert det.detect("რამდენად შორსაა {თბილისი}-დან?", kat) == {}


def test_every_target_language_has_detectors_and_english_none():
    assert set(det.DETECTORS) == set(TARGETS)
    assert det.detectors("eng") == ()
    assert all(d.description for ds in det.DETECTORS.values() for d in ds)
    greek = {d.name: d.threshold for d in det.detectors("ell")}
    assert greek["name_without_article"] == det.GREEK_ARTICLE_THRESHOLD
    assert greek["category_frame"] == det.DEFAULT_THRESHOLD


def test_rates_count_questions_not_matches_and_keep_examples():
    texts = [
        "¿Cuántos tiendas hay entre los aldeas de {Lugo}?",  # two matches, one question
        "¿Cuántas tiendas hay en {Lugo}?",
        "¿Cuántos tiendas hay en {Vigo}?",
        "En diciembre 2015, ¿qué pasó en {Vigo}?",
    ]
    rates = {r.detector.name: r for r in det.rates(texts, "spa", n_examples=1)}
    assert rates["masculine_with_feminine"].flagged == 2
    assert rates["masculine_with_feminine"].rate == 0.5
    assert rates["masculine_with_feminine"].examples == (texts[0],)
    assert rates["month_year"].flagged == 1 and rates["month_year"].above_threshold
    assert rates["doubled_space_or_punctuation"].rate == 0.0
    assert not rates["doubled_space_or_punctuation"].above_threshold
    assert det.rates([], "spa")[0].rate == 0.0


def _warehouse() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE questions_localized (lang VARCHAR, question_id VARCHAR, text_marked VARCHAR, "
        "fallbacks JSON)"
    )
    rows = [
        ("eng", "q1", "How many schools are in {Lyon}?", "[]"),
        ("fra", "q1", "Combien d'écoles à {Lyon} ?", "[]"),
        ("fra", "q2", "Quels routes intersectent {Lyon} ?", '["label:entity_B"]'),
        ("rus", "q1", "Сколько школ в 5 km от {Lyon}?", '["label:entity_A"]'),
    ]
    con.executemany("INSERT INTO questions_localized VALUES (?, ?, ?, ?)", rows)
    # the real questions_en also has a lang column ('eng'): the summary must name its columns
    con.execute("CREATE TABLE questions_en (question_id VARCHAR, lang VARCHAR, image_role VARCHAR)")
    con.execute("INSERT INTO questions_en VALUES ('q1', 'eng', NULL), ('q2', 'eng', '')")
    return con


def test_detector_rates_of_a_warehouse_table():
    found = report.detector_rates(_warehouse())
    assert set(found) == {"fra", "rus"}
    fra = {r.detector.name: r.rate for r in found["fra"]}
    assert fra["quels_with_feminine"] == 0.5 and fra["first_of_month"] == 0.0
    assert {r.detector.name: r.rate for r in found["rus"]}["latin_km"] == 1.0


def test_the_check_warns_with_rates_and_examples_and_never_blocks():
    import dagster as dg

    from mgqa_dagster.data_quality import multilingual as checks

    check = {c.name: c for c in checks.LOCALIZED_CHECKS}["grammar_detectors"]
    assert check.blocking is False
    con = _warehouse()
    fra = check.run(con, "fra")
    assert fra.passed is False and fra.severity == dg.AssetCheckSeverity.WARN
    meta = {k: v.value for k, v in fra.metadata.items()}
    assert json.loads(meta["rates"])["quels_with_feminine"] == 0.5
    assert json.loads(meta["above_threshold"]) == ["quels_with_feminine"]
    assert json.loads(meta["examples"]) == {
        "quels_with_feminine": ["Quels routes intersectent {Lyon} ?"]
    }
    con.execute("DELETE FROM questions_localized WHERE question_id = 'q2'")
    assert check.run(con, "fra").passed is True
    assert check.run(con, "eng").passed is True  # no detectors for English


def test_the_postedited_check_reads_the_text_the_release_ships():
    """`grammar_detectors_postedited` judges `questions_postedited`: a question the post-edit fixed
    no longer counts, one it left does."""
    from mgqa_dagster.data_quality import multilingual as checks

    check = {c.name: c for c in checks.POSTEDIT_CHECKS}["grammar_detectors_postedited"]
    assert check.blocking is False
    con = _warehouse()
    con.execute("CREATE TABLE questions_postedited AS SELECT * FROM questions_localized")
    assert check.run(con, "fra").passed is False
    con.execute(
        "UPDATE questions_postedited SET text_marked = 'Quelles routes intersectent {Lyon} ?' "
        "WHERE question_id = 'q2'"
    )
    assert check.run(con, "fra").passed is True
    assert {c.name: c for c in checks.LOCALIZED_CHECKS}["grammar_detectors"].run(
        con, "fra"
    ).passed is False


def test_summary_shows_names_localized_and_the_worst_detectors_per_language(tmp_path):
    con = _warehouse()
    con.execute("CREATE TABLE template_translations_resolved (lang VARCHAR, status VARCHAR)")
    con.execute("INSERT INTO template_translations_resolved VALUES ('fra', 'unreviewed')")
    lines = {line.split()[0]: line for line in report._languages_section(con, tmp_path)[1:-1]}
    assert "names localized: 50.0% (1 of 2 fall back to English)" in lines["fra"]
    assert lines["fra"].endswith("detectors: quels_with_feminine 50.0%")
    assert "names localized: 0.0% (1 of 1 fall back" in lines["rus"]
    assert lines["rus"].endswith("detectors: latin_km 100.0%")
    con.execute("DELETE FROM questions_localized WHERE lang = 'rus'")
    con.execute(
        "INSERT INTO questions_localized VALUES ('rus', 'q1', 'Сколько школ в {Lyon}?', '[]')"
    )
    assert report._languages_section(con, tmp_path)[-2].endswith("detectors: none")
    assert "names localized: 100.0%" in lines["eng"] and "detectors" not in lines["eng"]
    con.execute("UPDATE questions_en SET image_role = 'entity_B' WHERE question_id = 'q2'")
    lines = {line.split()[0]: line for line in report._languages_section(con, tmp_path)[1:-1]}
    assert "names localized: 0.0% (1 of 1 fall back" in lines["fra"]  # the image phrase is no name
    # once the post-edit ensemble ran, the detectors judge the text the release ships
    con.execute(
        "CREATE TABLE questions_postedited AS SELECT *, 'edited' AS postedit_decision "
        "FROM questions_localized"
    )
    con.execute(
        "UPDATE questions_postedited SET text_marked = 'Quelles routes intersectent {Lyon} ?' "
        "WHERE question_id = 'q2'"
    )
    lines = {line.split()[0]: line for line in report._languages_section(con, tmp_path)[1:-1]}
    assert "detectors: none" in lines["fra"] and lines["fra"].endswith("post-edited: 2")
