"""The bundled translation memory: every English template variant, category label and parameter word
in the 16 target languages, one JSON file per language under
``mgqa_platform/data/translations/<lang>.json``.

It is the offline translator (docs/multilingual.md): draft machine-quality text, ``status: draft``
until a human post-edit is resolved. File layout::

    {"lang": "fra", "status": "draft", "note": "...",
     "variants":   {"A01.1.v1": {"source": "<English variant>", "text": "<translation>"}, ...},
     "categories": {"post_office": {"source": "post offices", "text": "bureaux de poste",
                                    "gender": "m", "forms": {...}, "singular": "bureau de poste"},
                    ...},
     "terms":      {"direction": {"north": "nord", ...}, ...},
     "patterns":   {"time_range": "du {start} au {end}"},
     "grammar":    {"default_gender": "m", "agree": {"def": {"m": "les {}", "f": "les {}"}, ...},
                   "terms": {"collection_of_entity":
                             {"schools and kindergartens": {"gender": "f"}}},
                   "adjectives": {"rank_type": {"largest": {"f": "سب سے بڑی"}}}}}

A category's ``gender`` and case ``forms`` and the language's ``grammar.agree`` table let templates
ask for a form by feature (``{category_A:def}``, ``{category_A:gen}``;
:mod:`~mgqa_platform.multilingual.grammar`). A parameter listed in ``grammar.adjectives`` has words
that agree with a category (``{rank_type:~category_A}``): each value's forms by class or gender
where they differ from the term. A category's ``singular`` is the word a display name carries in
brackets ("Lasipalatsi (edificio público)", docs/questions.md "Display names"), where the English
display name stands in for a missing label.

Each variant keeps its English ``source``: when the catalog's English text changes, the stored
translation is *stale* and is not used (it is flagged for post-editing instead of silently
mistranslating the new text)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from mgqa_platform.category_words import TM_DIR, memory_path
from mgqa_platform.languages import TARGETS
from mgqa_platform.multilingual.grammar import Agreeing, Noun, spec_problems
from mgqa_platform.multilingual.placeholders import problems as slot_problems
from mgqa_platform.questions import stated


@dataclass(frozen=True)
class TranslationMemory:
    lang: str
    status: str
    variants: dict[str, dict[str, str]]
    categories: dict[str, dict[str, str]] = field(default_factory=dict)
    terms: dict[str, dict[str, str]] = field(default_factory=dict)
    patterns: dict[str, str] = field(default_factory=dict)
    grammar: dict = field(default_factory=dict)

    def variant(self, variant_id: str, source: str) -> str | None:
        """The stored translation of a variant, or None when absent or stale (English source
        changed)."""
        entry = self.variants.get(variant_id)
        return entry["text"] if entry and entry.get("source") == source else None

    def category(self, key: str) -> str | None:
        entry = self.categories.get(key)
        return entry["text"] if entry else None

    def singular(self, key: str) -> str | None:
        """The singular of category ``key``, the word a display name carries; None when absent."""
        entry = self.categories.get(key)
        return entry.get("singular") if entry else None

    def noun(self, key: str, fallback: str) -> Noun:
        """Category ``key`` as a :class:`Noun` with its gender and forms; when the memory lacks the
        category, ``fallback`` (the English label) in every case form, with the language's default
        gender."""
        entry = self.categories.get(key)
        if entry is None:
            return self._fallback_noun(fallback)
        agree = self.grammar.get("agree", {})
        return Noun(
            self.lang, entry["text"], entry.get("gender", ""), entry.get("forms", {}), agree
        )

    def nouns(self) -> dict[str, Noun]:
        """Every category of the memory as a :class:`Noun`, by key."""
        return {key: self.noun(key, key) for key in self.categories}

    def term_noun(self, parameter: str, value: str, text: str) -> Noun | None:
        """Parameter word ``value`` (rendered ``text``) as a :class:`Noun` where the language's
        grammar makes the parameter's words nouns (``grammar.terms.<parameter>.<value>``:
        ``gender``, ``forms``); a value it does not list is ``text`` in every form with the default
        gender. None for other parameters."""
        entries = self.grammar.get("terms", {}).get(parameter)
        if entries is None:
            return None
        if value not in entries:
            return self._fallback_noun(text)
        entry = entries[value]
        agree = self.grammar.get("agree", {})
        return Noun(self.lang, text, entry.get("gender", ""), entry.get("forms", {}), agree)

    def term_nouns(self) -> dict[str, dict[str, Noun]]:
        """Every parameter word with a grammar entry, as nouns: parameter -> value -> noun."""
        return {
            parameter: {
                value: self.term_noun(parameter, value, self.term(parameter, value) or value)
                for value in entries
            }
            for parameter, entries in self.grammar.get("terms", {}).items()
        }

    def term_word(self, parameter: str, value: str, text: str) -> Agreeing | None:
        """Parameter word ``value`` (rendered ``text``) as an :class:`Agreeing` word where the
        language's grammar makes the parameter's words agree with a category
        (``grammar.adjectives.<parameter>``: value -> form by class or gender; a value it does not
        list has one form, ``text``). None for other parameters."""
        entries = self.grammar.get("adjectives", {}).get(parameter)
        if entries is None:
            return None
        return Agreeing(self.lang, text, entries.get(value, {}))

    def term_words(self) -> dict[str, dict[str, Agreeing]]:
        """Every parameter word of the parameters with agreeing forms: parameter -> value ->
        word."""
        return {
            parameter: {
                value: self.term_word(parameter, value, text)
                for value, text in self.terms.get(parameter, {}).items()
            }
            for parameter in self.grammar.get("adjectives", {})
        }

    def _fallback_noun(self, text: str) -> Noun:
        """``text`` as a noun the memory knows nothing of: every case form of the language is the
        text itself, the gender the language's default."""
        cases = {case for e in self.categories.values() for case in e.get("forms", {})}
        cases |= {
            case
            for entries in self.grammar.get("terms", {}).values()
            for entry in entries.values()
            for case in entry.get("forms", {})
        }
        return Noun(
            self.lang,
            text,
            self.grammar.get("default_gender", ""),
            dict.fromkeys(cases, text),
            self.grammar.get("agree", {}),
        )

    def term(self, parameter: str, value: str) -> str | None:
        return self.terms.get(parameter, {}).get(value)


@lru_cache(maxsize=32)
def _load(path: Path) -> TranslationMemory:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return TranslationMemory(
        raw["lang"],
        raw.get("status", "draft"),
        raw.get("variants", {}),
        raw.get("categories", {}),
        raw.get("terms", {}),
        raw.get("patterns", {}),
        raw.get("grammar", {}),
    )


def load(lang: str, directory: Path = TM_DIR) -> TranslationMemory:
    """The memory of one target language; an empty memory when the file does not exist."""
    p = memory_path(lang, directory)
    if not p.exists():
        return TranslationMemory(lang, "missing", {})
    return _load(p)


def validate(
    tm: TranslationMemory,
    sources: Mapping[str, str],
    kept: Mapping[str, Sequence[str]] | None = None,
) -> list[str]:
    """Problems of a memory against the catalog's English variants ``{variant_id: text}``: missing
    or stale variants, placeholder problems, grammar specs that do not render with every category,
    empty texts, a category's ``singular`` that is present but not a non-empty string, and a
    variant's translation that drops a word of ``kept`` (``{variant_id: words}``: the
    language-neutral words of its stated conventions, questions/stated.py). [] when complete and
    valid."""
    out = kept_problems(tm, kept or {})
    nouns, term_nouns, term_words = tm.nouns(), tm.term_nouns(), tm.term_words()
    for vid, en in sorted(sources.items()):
        entry = tm.variants.get(vid)
        if entry is None:
            out.append(f"{vid}: missing")
        elif entry.get("source") != en:
            out.append(f"{vid}: stale (English source changed)")
        else:
            out += [f"{vid}: {p}" for p in slot_problems(en, entry.get("text"))]
            out += [
                f"{vid}: {p}"
                for p in spec_problems(entry.get("text") or "", nouns, term_nouns, term_words)
            ]
    for key, entry in sorted(tm.categories.items()):
        if not (entry.get("text") or "").strip():
            out.append(f"category {key}: empty")
        if "singular" in entry and not (
            isinstance(entry["singular"], str) and entry["singular"].strip()
        ):
            out.append(f"category {key}: singular is not a non-empty string")
    return out


def kept_problems(tm: TranslationMemory, kept: Mapping[str, Sequence[str]]) -> list[str]:
    """``<variant>: drops stated '<word>'`` for every kept word (a number with its unit, a metric's
    name) that the stored translation of the variant lacks; absent variants are left to
    :func:`validate`."""
    out = []
    for vid, words in sorted(kept.items()):
        text = (tm.variants.get(vid) or {}).get("text")
        if text is not None:
            out += [f"{vid}: drops stated {w!r}" for w in stated.missing_in(text, words)]
    return out


def kept_words(catalog) -> dict[str, list[str]]:
    """``{variant_id: kept words}`` of every variant of a sub-template with stated conventions."""
    return {
        v.id: stated.kept_words(s.stated)
        for s in catalog.sub_templates
        if s.stated
        for v in s.variants
    }


def main() -> (
    int
):  # python -m mgqa_platform.multilingual.memory [lang ...]: validate the bundled memories
    import sys

    from mgqa_platform.questions.catalog import default_catalog

    catalog = default_catalog()
    sources = {v.id: v.text for s in catalog.sub_templates for v in s.variants}
    bad = 0
    for lang in sys.argv[1:] or TARGETS:
        tm = load(lang)
        found = validate(tm, sources, kept_words(catalog))
        bad += bool(found)
        print(
            f"{lang}: {len(tm.variants)} variants, {len(tm.categories)} categories, "
            f"{sum(len(v) for v in tm.terms.values())} terms; {len(found)} problems"
        )
        for p in found[:20]:
            print("   ", p)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
