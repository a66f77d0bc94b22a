"""The translator contract, the memory translator (a tiny tmp memory dir), translate_catalog and the
resource."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_google_translate import FakeGoogleTranslate

from mgqa_dagster.resources.translator import TranslatorResource
from mgqa_platform.multilingual.translate import (
    MemoryTranslator,
    Translation,
    Translator,
    catalog_sources,
    checked,
    translate_catalog,
)
from mgqa_platform.questions.catalog import default_catalog

DIST = "What is the distance between {entity_A} and {entity_B}?"
COUNT = "How many {category_A} are within {value} km of {entity_A}?"


def write_memory(directory: Path, lang: str, variants: dict) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    p = directory / f"{lang}.json"
    p.write_text(
        json.dumps({"lang": lang, "status": "draft", "variants": variants}, ensure_ascii=False),
        "utf-8",
    )
    return p


@pytest.fixture
def tm_dir(tmp_path: Path) -> Path:
    d = tmp_path / "translations"
    write_memory(
        d,
        "fra",
        {
            "v.ok": {
                "source": DIST,
                "text": "Quelle est la distance entre {entity_A} et {entity_B} ?",
            },
            "v.stale": {"source": "What was the distance?", "text": "Quelle était la distance ?"},
            "v.slot": {
                "source": COUNT,
                "text": "Combien de {categorie_A} à moins de {value} km de {entity_A} ?",
            },
            "v.dup": {"source": DIST, "text": "{entity_A} {entity_A} et {entity_B} ?"},
            "v.empty": {"source": DIST, "text": ""},
        },
    )
    return d


def test_translation_needs_post_edit():
    ok = Translation("v", "fra", "a {x}", "b {x}", "memory", "draft", ())
    assert not ok.needs_post_edit
    assert Translation("v", "fra", "a", "b", "memory", "failed", ()).needs_post_edit
    assert Translation("v", "fra", "a", "b", "google:default", "machine", ("x",)).needs_post_edit
    assert ok.as_dict()["needs_post_edit"] is False and ok.as_dict()["problems"] == []


def test_checked_applies_placeholder_rules():
    t = checked("v", "fra", DIST, "entre {entity_A} et {entity_B}", "google:default", "machine")
    assert (t.status, t.problems) == ("machine", ())
    t = checked("v", "fra", DIST, "entre {entity_A} et {entity_B", "google:default", "machine")
    assert (
        t.status == "failed"
        and "missing:{entity_B}" in t.problems
        and "unbalanced_braces" in t.problems
    )
    assert t.text == "entre {entity_A} et {entity_B"  # kept for the post-editor


def test_memory_translator_statuses(tm_dir: Path):
    mt = MemoryTranslator(tm_dir)
    assert isinstance(mt, Translator) and mt.engine == "memory"
    src = {
        "v.ok": DIST,
        "v.stale": DIST,
        "v.slot": COUNT,
        "v.dup": DIST,
        "v.empty": DIST,
        "v.absent": DIST,
    }
    out = mt.translate_variants(src, "fra")
    assert set(out) == set(src)
    assert all(t.lang == "fra" and t.engine == "memory" for t in out.values())

    ok = out["v.ok"]
    assert (ok.status, ok.problems, ok.needs_post_edit) == ("draft", (), False)
    assert (
        ok.text == "Quelle est la distance entre {entity_A} et {entity_B} ?" and ok.source == DIST
    )

    stale = out["v.stale"]
    assert (stale.status, stale.problems) == ("failed", ("stale_memory",))
    assert stale.text == "Quelle était la distance ?"  # the old translation, for the post-editor

    slot = out["v.slot"]
    assert slot.status == "failed" and set(slot.problems) == {
        "missing:{category_A}",
        "unexpected:{categorie_A}",
    }
    assert out["v.dup"].problems == ("duplicated:{entity_A}",)
    assert out["v.empty"].problems == ("empty",)

    absent = out["v.absent"]
    assert (absent.status, absent.problems, absent.text) == ("failed", ("missing_in_memory",), None)


def test_memory_translator_missing_file_and_codes(tm_dir: Path):
    out = MemoryTranslator(tm_dir).translate_variants(
        {"v.ok": DIST}, "deu"
    )  # no deu.json in the dir
    assert out["v.ok"].status == "failed" and out["v.ok"].problems == ("missing_in_memory",)
    with pytest.raises(ValueError, match="unknown language"):
        MemoryTranslator(tm_dir).translate_variants({"v.ok": DIST}, "xx")


def test_translate_catalog_covers_every_variant(tmp_path: Path):
    cat = default_catalog()
    sources = catalog_sources(cat)
    assert len(sources) == sum(len(s.variants) for s in cat.sub_templates)
    first, second = sorted(sources)[:2]
    d = tmp_path / "tm"
    write_memory(
        d,
        "ita",
        {
            first: {"source": sources[first], "text": "IT " + sources[first]},
            second: {"source": sources[second], "text": "IT " + sources[second]},
        },
    )
    got = translate_catalog(MemoryTranslator(d), cat, "ita")
    assert [t.variant_id for t in got] == sorted(sources)
    assert [t.status for t in got[:2]] == ["draft", "draft"]
    rest = got[2:]
    assert rest and all(t.status == "failed" and t.problems == ("missing_in_memory",) for t in rest)
    assert all(t.source == sources[t.variant_id] and t.lang == "ita" for t in got)


def test_translate_catalog_fills_unanswered_variants():
    class Lazy:  # a translator that answers nothing
        engine = "lazy"

        def translate_variants(self, variants, target):
            return {}

    got = translate_catalog(Lazy(), default_catalog(), "fra")
    assert got and all(t.status == "failed" and t.problems == ("error:no_result",) for t in got)


def test_resource_memory_mode(tm_dir: Path):
    res = TranslatorResource(memory_dir=str(tm_dir))
    assert res.engine == "memory"
    tr = res.get_translator()
    assert isinstance(tr, MemoryTranslator) and tr.directory == tm_dir
    assert tr.translate_variants({"v.ok": DIST}, "fra")["v.ok"].status == "draft"
    assert (
        TranslatorResource().get_translator().directory.name == "translations"
    )  # the bundled memory


def test_resource_google_mode():
    with pytest.raises(ValueError, match="MGQA_GOOGLE_PROJECT"):
        TranslatorResource(mode="google").get_translator()
    with FakeGoogleTranslate() as srv:
        res = TranslatorResource(
            mode="google", project_id="proj-1", model="general/nmt", endpoint=srv.endpoint
        )
        assert res.engine == "google:general/nmt"
        tr = res.get_translator()
        assert tr.engine == res.engine and "proj-1" in repr(tr)
        out = tr.translate_variants({"v": DIST}, "fra")
    assert out["v"].status == "machine"
    assert (
        out["v"].text
        == "[fr]What is the distance between [/fr]{entity_A}[fr] and [/fr]{entity_B}[fr]?[/fr]"
    )
    body = srv.requests[0].body
    assert body["model"] == "projects/proj-1/locations/global/models/general/nmt"
    assert TranslatorResource(mode="google", project_id="p").engine == "google:default"
