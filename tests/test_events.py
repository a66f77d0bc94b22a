"""Event names in the language (issue 18): each language's pattern, the case its slot asks for, and
the placing in a template with the post-edit rules after it."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from mgqa_platform.languages import TARGETS
from mgqa_platform.marks import mark
from mgqa_platform.multilingual import detectors, instantiate, memory
from mgqa_platform.multilingual.ensemble import RuleMember, apply_edits
from mgqa_platform.multilingual.events import (
    EVENT_LANGS,
    EventFacts,
    entity_events,
    event_facts,
    event_phrase,
)
from mgqa_platform.multilingual.instantiate import place_events
from mgqa_platform.questions.catalog import default_catalog

QUAKE = EventFacts("earthquake", 4.9, dt.datetime(2015, 11, 27, 11, 40, 12, tzinfo=dt.UTC))
FIRE = EventFacts("fire", part="Spanish", year="1994")

#: (lang, earthquake, fire) as each is written in a slot that needs the citation form
PATTERNS = [
    (
        "fra",
        "le",
        "séisme de magnitude 4,9 du 27 novembre 2015 à 11:40 UTC",
        "incendie Spanish de 1994",
    ),
    (
        "ita",
        "il",
        "terremoto di magnitudo 4,9 del 27 novembre 2015 alle 11:40 UTC",
        "incendio Spanish del 1994",
    ),
    (
        "spa",
        "el",
        "terremoto de magnitud 4,9 del 27 de noviembre de 2015 a las 11:40 UTC",
        "incendio Spanish de 1994",
    ),
    (
        "por",
        "o",
        "sismo de magnitude 4,9 de 27 de novembro de 2015 às 11:40 UTC",
        "incêndio Spanish de 1994",
    ),
    (
        "ron",
        "",
        "cutremurul cu magnitudinea 4,9 din 27 noiembrie 2015 la ora 11:40 UTC",
        "incendiul Spanish din 1994",
    ),
    (
        "deu",
        "das",
        "Erdbeben der Stärke 4,9 vom 27. November 2015 um 11:40 UTC",
        "Waldbrand „Spanish“ von 1994",
    ),
    (
        "sqi",
        "",
        "tërmeti me magnitudë 4,9 më 27 nëntor 2015 në orën 11:40 UTC",
        "zjarri Spanish i vitit 1994",
    ),
    (
        "rus",
        "",
        "землетрясение магнитудой 4,9 27 ноября 2015\u202fг. в 11:40 UTC",
        "пожар «Spanish» 1994 года",
    ),
    (
        "bul",
        "",
        "земетресението с магнитуд 4,9 от 27 ноември 2015\u202fг. в 11:40 UTC",
        "пожарът „Spanish“ от 1994 г.",
    ),
    (
        "ell",
        "ο",
        "σεισμός μεγέθους 4,9 της 27ης Νοεμβρίου 2015 στις 11:40 UTC",
        "πυρκαγιά Spanish του 1994",
    ),
    (
        "tur",
        "",
        "27 Kasım 2015 11:40 UTC tarihli 4,9 büyüklüğündeki deprem",
        "1994 Spanish yangını",
    ),
    (
        "kat",
        "",
        "27 ნოემბერი, 2015, 11:40 UTC-ის 4,9 მაგნიტუდის მიწისძვრა",
        "1994 წლის „Spanish“ ხანძარი",
    ),
    ("urd", "", "27 نومبر، 2015، 11:40 UTC کا 4.9 شدت کا زلزلہ", "1994 کی Spanish آگ"),
    ("jpn", "", "2015年11月27日 11:40 UTCのマグニチュード4.9の地震", "1994年のSpanish火災"),
    ("zho", "", "2015年11月27日 11:40 UTC的4.9级地震", "1994年Spanish火灾"),
    (
        "vie",
        "",
        "trận động đất mạnh 4,9 độ ngày 27 tháng 11, 2015 lúc 11:40 UTC",
        "vụ cháy Spanish năm 1994",
    ),
]


def test_every_target_language_has_a_pattern():
    assert sorted(EVENT_LANGS) == sorted(TARGETS) == sorted(p[0] for p in PATTERNS)


@pytest.mark.parametrize(("lang", "article", "quake", "fire"), PATTERNS)
def test_pattern(lang, article, quake, fire):
    """The citation form of each language (a slot after a verb whose subject the event is)."""
    got = event_phrase(QUAKE, lang, "x ", "?")
    assert (got.prefix.strip(), got.name) == (article, quake)
    got_fire = event_phrase(FIRE, lang, "x ", "?")
    assert got_fire.name == fire
    assert not detectors.english_event(mark(got.name)) and not detectors.english_event(
        mark(got_fire.name)
    )


def test_facts_without_magnitude_time_or_seconds():
    day_only = event_facts(
        "earthquake", "M ?", "2015-12-01", {}, "the earthquake of 1 December 2015"
    )
    assert event_phrase(day_only, "fra", "x ", "").name == "séisme du 1er décembre 2015"
    to_second = event_facts(
        "earthquake",
        "M 2",
        "2015-12-05T18:49:47.000Z",
        {"magnitude": 2.25},
        "the magnitude 2.25 earthquake of 5 December 2015 at 18:49:47 UTC",
    )
    assert event_phrase(to_second, "deu", "x ", "").name == (
        "Erdbeben der Stärke 2,25 vom 5. Dezember 2015 um 18:49:47 UTC"
    )


def test_facts_of_entities():
    rows = [
        {
            "entity_id": "q",
            "category": "earthquake",
            "name": "M 4.9 - 10km N of X",
            "valid_from": "2015-11-27T11:40:12Z",
            "attributes": '{"magnitude": 4.9}',
            "display_name": "the magnitude 4.9 earthquake of 27 November 2015 at 11:40 UTC",
        },
        {
            "entity_id": "f",
            "category": "wildfire",
            "name": "SPANISH (1994)",
            "valid_from": "1994-07-01",
            "attributes": None,
            "display_name": "the Spanish Fire of 1994",
        },
        {
            "entity_id": "x",
            "category": "wildfire",
            "name": "UNNAMED (1994)",
            "valid_from": "1994-07-01",
            "attributes": None,
            "display_name": "UNNAMED (1994)",
        },
        {
            "entity_id": "r",
            "category": "road",
            "name": "Main Street",
            "valid_from": None,
            "attributes": None,
            "display_name": "Main Street",
        },
    ]
    assert entity_events(rows) == {"q": QUAKE, "f": FIRE}


@pytest.mark.parametrize(
    ("lang", "before", "after", "expected"),
    [
        ("rus", "Какие объекты были затронуты ", "?", "землетрясением магнитудой"),
        ("rus", "размер контура ", "?", "землетрясения магнитудой"),
        ("rus", "расстояние между ", " и {entity_B}", "землетрясением магнитудой"),
        ("rus", "произошло событие ", " в период", "землетрясение магнитудой"),
        ("rus", "Затронули ли {entity_A} и ", "?", "землетрясение магнитудой"),
        ("rus", "пострадавшей от ", "?", "землетрясения магнитудой"),
        ("ell", "του αποτυπώματος ", ";", "σεισμού μεγέθους"),
        ("ell", "επλήγησαν από ", ";", "σεισμό μεγέθους"),
        ("ron", "zona ", "?", "cutremurul cu"),
        ("sqi", "gjurmës së ", "?", "tërmetit me"),
        ("sqi", "u prekën nga ", "?", "tërmeti me"),
        ("urd", "", " سے متاثر", "کے 4.9 شدت کے زلزلے"),
        ("urd", "", "، {entity_B}", "کا 4.9 شدت کا زلزلہ"),
        ("tur", "", " ayak izinin", "büyüklüğündeki depremin"),
        ("tur", "", " olayından", "büyüklüğündeki deprem"),
    ],
)
def test_case_by_slot(lang, before, after, expected):
    assert expected in event_phrase(QUAKE, lang, before, after).name


def test_articles_and_words_around_the_slot():
    """German fuses von + dem; Greek writes the article and fuses it with σε; Romanian drops the
    "lui" of the genitive; Bulgarian uses the short article after a preposition; Georgian absorbs
    the suffix."""
    deu = event_phrase(QUAKE, "deu", "Ausdehnung von ", "?")
    assert (deu.before, deu.prefix) == ("Ausdehnung vom ", "")
    assert event_phrase(FIRE, "deu", "Entfernung zwischen ", " und").prefix == "dem "
    ell = event_phrase(FIRE, "ell", "βρίσκεται σε ", ";")
    assert (ell.before, ell.prefix, ell.name) == (
        "βρίσκεται ",
        "στην ",
        "πυρκαγιά Spanish του 1994",
    )
    assert event_phrase(FIRE, "ell", "το περίγραμμα ", ";").name.startswith("πυρκαγιάς ")
    ron = event_phrase(FIRE, "ron", "amprenta lui ", "?")
    assert (ron.before, ron.name) == ("amprenta ", "incendiului Spanish din 1994")
    assert event_phrase(FIRE, "bul", "контура на ", "?").name.startswith("пожара ")
    kat = event_phrase(QUAKE, "kat", "რა ფართობი მოიცვა ", "-მა?")
    assert kat.name.endswith("მიწისძვრამ") and kat.after == "?"
    kat_and = event_phrase(FIRE, "kat", "", "-ისა და {entity_B}-ის")
    assert kat_and.name.endswith("ხანძრისა") and kat_and.after == " და {entity_B}-ის"


@pytest.mark.parametrize(
    ("lang", "template", "expected"),
    [
        (
            "ita",
            "Le aree di {entity_A} e {entity_B}?",
            "Le aree dell'{incendio Spanish del 1994} e dell'{incendio Spanish del 1994}?",
        ),
        (
            "spa",
            "¿Las áreas de {entity_A} y {entity_B}?",
            "¿Las áreas del {incendio Spanish de 1994} y del {incendio Spanish de 1994}?",
        ),
        (
            "ron",
            "Se suprapun zonele lui {entity_A} și {entity_B}?",
            "Se suprapun zonele {incendiului Spanish din 1994} și {incendiului Spanish din 1994}?",
        ),
        (
            "deu",
            "Überlappen sich die Flächen von {entity_A} und {entity_B}?",
            "Überlappen sich die Flächen vom {Waldbrand „Spanish“ von 1994} und dem "
            "{Waldbrand „Spanish“ von 1994}?",
        ),
        (
            "ell",
            "Επικαλύπτονται οι περιοχές {entity_A} και {entity_B};",
            "Επικαλύπτονται οι περιοχές της {πυρκαγιάς Spanish του 1994} και της "
            "{πυρκαγιάς Spanish του 1994};",
        ),
        (
            "ell",
            "Βρίσκεται σε {entity_A} και {entity_B};",
            "Βρίσκεται στην {πυρκαγιά Spanish του 1994} και στην {πυρκαγιά Spanish του 1994};",
        ),
    ],
)
def test_coordinated(lang, template, expected):
    """Two events joined by "and": the second takes the case of the first, and Romance languages
    repeat the preposition the first one has; the rule member then fuses the articles."""
    ids = {"entity_A": "a", "entity_B": "b"}
    placed, named = place_events(
        template, dict.fromkeys(ids, "event"), ids, None, lang, {"a": FIRE, "b": FIRE}
    )
    text = placed.format(**{k: mark(v) for k, v in named.items()})
    proposal = RuleMember().propose(
        {"lang": lang, "text_marked": text, "template_text": template, "template_en": ""}
    )
    assert apply_edits(text, proposal.edits) == expected


def test_italian_elides_before_eight_and_eleven():
    eleven = EventFacts("earthquake", 1.5, dt.datetime(2015, 12, 11, 3, 0, tzinfo=dt.UTC))
    assert " dell'11 dicembre 2015 alle 03:00 UTC" in event_phrase(eleven, "ita", "", "").name
    assert " del 27 novembre" in event_phrase(QUAKE, "ita", "", "").name


def test_urdu_fire_is_feminine():
    """آگ is feminine: the participle before it and the verbs of the clause it is the subject of
    agree."""
    got = event_phrase(
        FIRE, "urd", "{time_period} میں درج ہونے والا ", "، {entity_B} سے کتنے فاصلے پر تھا؟"
    )
    assert (got.before, got.after) == (
        "{time_period} میں درج ہونے والی ",
        "، {entity_B} سے کتنے فاصلے پر تھی؟",
    )
    got = event_phrase(FIRE, "urd", "", " پہلی بار کس تاریخ کو {entity_A} تک پہنچا؟")
    assert got.after == " پہلی بار کس تاریخ کو {entity_A} تک پہنچی؟"
    kept = " اور {entity_B} کے درمیان فاصلہ کتنا تھا؟"  # تھا agrees with فاصلہ
    assert event_phrase(FIRE, "urd", "", kept).after == kept
    quake = event_phrase(QUAKE, "urd", "ہونے والا ", "، {entity_B} سے کتنے فاصلے پر تھا؟")
    assert quake.after.endswith("تھا؟") and quake.before == "ہونے والا "


@pytest.mark.parametrize(
    ("lang", "before", "after", "expected"),
    [
        ("rus", "Когда ", " обрушилось на", ("Когда ", " обрушился на")),
        ("rus", "Какого числа ", " впервые достигло", ("Какого числа ", " впервые достиг")),
        ("rus", "Как далеко было ", " от", ("Как далеко был ", " от")),
        ("bul", "Кога ", " е засегнало", ("Кога ", " е засегнал")),
        (
            "bul",
            "На коя дата ",
            " за първи път е достигнало",
            ("На коя дата ", " за първи път е достигнал"),
        ),
        ("bul", "засегнати от ", " е засегнало", ("засегнати от ", " е засегнало")),
    ],
)
def test_fire_verbs_in_the_masculine(lang, before, after, expected):
    """Templates say the event's verbs in the neuter ("событие", "землетрясение"); a fire is
    masculine."""
    got = event_phrase(FIRE, lang, before, after)
    assert (got.before, got.after) == expected
    quake = event_phrase(QUAKE, lang, before, after)
    assert (quake.before, quake.after) == (before, after)


@pytest.mark.parametrize(
    ("lang", "template", "expected"),
    [
        (
            "fra",
            "Quelle est la superficie de {event_A} ?",
            "Quelle est la superficie du {séisme de magnitude 4,9 du 27 novembre 2015 à "
            "11:40 UTC} ?",
        ),
        (
            "fra",
            "Quelle est la zone de {event_A} ?",
            "Quelle est la zone de l'{incendie Spanish de 1994} ?",
        ),
        (
            "ita",
            "Qual è l'impronta di {event_A}?",
            "Qual è l'impronta del {terremoto di magnitudo 4,9 del 27 novembre 2015 alle "
            "11:40 UTC}?",
        ),
        (
            "ita",
            "L'area colpita da {event_A}?",
            "L'area colpita dall'{incendio Spanish del 1994}?",
        ),
        (
            "spa",
            "¿Cuál es la huella de {event_A}?",
            "¿Cuál es la huella del {terremoto de magnitud 4,9 del 27 de noviembre de 2015 "
            "a las 11:40 UTC}?",
        ),
        (
            "por",
            "Qual é a área atingida por {event_A}?",
            "Qual é a área atingida pelo {incêndio Spanish de 1994}?",
        ),
        (
            "rus",
            "{event_A} было рядом?",
            "{Землетрясение магнитудой 4,9 27 ноября 2015\u202fг. в 11:40 UTC} было рядом?",
        ),
    ],
)
def test_placed_then_post_edited(lang, template, expected):
    """The article goes outside the marks, and the rule member fuses it with the preposition before
    it."""
    facts = FIRE if "incendi" in expected or "incêndio" in expected else QUAKE
    placed, named = place_events(
        template, {"event_A": "event"}, {"event_A": "e"}, None, lang, {"e": facts}
    )
    text = placed.format(**{k: mark(v) for k, v in named.items()})
    proposal = RuleMember().propose(
        {"lang": lang, "text_marked": text, "template_text": template, "template_en": ""}
    )
    assert apply_edits(text, proposal.edits) == expected


def test_image_role_and_other_entities_are_left_alone():
    placed, named = place_events(
        "A {entity_A} B {entity_B}",
        {"entity_A": "place", "entity_B": "event"},
        {"entity_A": "e", "entity_B": "road"},
        "entity_A",
        "fra",
        {"e": QUAKE},
    )
    assert (placed, named) == ("A {entity_A} B {entity_B}", {})


def test_localize_names_the_event_and_the_period_in_the_language():
    """Through ``instantiate.localize`` with the bundled Russian memory: the event is named in
    Russian (no ``label:`` fallback, marked as a name), the event's own period is not rendered, and
    the detectors of English events and period cases find nothing."""
    cat = default_catalog()
    tm = memory.load("rus")
    vid = "A03.2.v1"
    record = {
        "question_id": "q1",
        "sub_template_id": "A03.2",
        "variant_id": vid,
        "image_role": None,
        "bindings": json.dumps({"event_A": "e", "entity_B": "b", "entity_C": "c"}),
        "parameters": json.dumps({"time_period": "November 2015"}),
    }
    display = {
        "e": "the magnitude 4.9 earthquake of 27 November 2015 at 11:40 UTC",
        "b": "Anderson Recreation Center",
        "c": "Santa Barbara County",
    }
    (row,), used = instantiate.localize(
        [record],
        "rus",
        {vid: (tm.variants[vid]["text"], "unreviewed")},
        tm,
        {},
        display,
        cat,
        {"e": QUAKE},
    )
    assert row["text"].startswith(  # the event's own period is not rendered (vacuous_time_filter)
        "Было зарегистрировано событие "
        "землетрясение магнитудой 4,9 27 ноября 2015\u202fг. в 11:40 UTC."
    )
    assert "ноябре" not in row["text"]
    assert "{землетрясение магнитудой 4,9 27 ноября 2015\u202fг. в 11:40 UTC}" in row["text_marked"]
    assert json.loads(row["fallbacks"]) == ["label:entity_B", "label:entity_C"]
    assert row["template_text"] == tm.variants[vid]["text"]
    assert not detectors.detect(row["text_marked"], "rus")
