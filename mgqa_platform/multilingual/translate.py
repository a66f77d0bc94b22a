"""Template translation: the translator contract, the offline memory translator and the catalog
pass.

A :class:`Translator` turns English template variants ``{variant_id: text}`` into one target
language and returns one :class:`Translation` per variant -- never raising for one bad item. Two
implementations (docs/multilingual.md): :class:`MemoryTranslator` (the bundled translation memory,
offline, ``status: draft``) and
:class:`mgqa_platform.multilingual.google_translate.GoogleTranslator` (Cloud Translation v3,
``status: machine``).

Every translation is checked against its source with :func:`placeholders.problems` (paper section
3.5: every source placeholder exactly once, no new one, balanced braces). A translation with any
problem is ``status: failed`` with the problem codes; its text is kept so that post-editors can
start from it. Problem codes: the placeholder codes (``missing:{entity_A}``, ``duplicated:{value}``,
``unexpected:{x}``, ``unbalanced_braces``, ``empty``), ``missing_in_memory``, ``stale_memory`` (the
memory's English source differs from the catalog's) and ``error:<reason>`` (the service failed for
the whole batch after retries).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from mgqa_platform.languages import language
from mgqa_platform.multilingual import memory
from mgqa_platform.multilingual.placeholders import problems as slot_problems

__all__ = [
    "Translation",
    "Translator",
    "MemoryTranslator",
    "checked",
    "failed",
    "translate_catalog",
    "catalog_sources",
    "STATUSES",
]

STATUSES = ("draft", "machine", "failed")


@dataclass(frozen=True)
class Translation:
    variant_id: str
    lang: str  # ISO 639-3 target code
    source: str  # the English variant text
    text: str | None  # the translation; kept even when flagged, for post-editors
    engine: str  # "memory" | "google:<model or default>"
    status: str  # "draft" (memory), "machine" (google), "failed"
    problems: tuple[str, ...] = ()

    @property
    def needs_post_edit(self) -> bool:
        return self.status == "failed" or bool(self.problems)

    def as_dict(self) -> dict[str, Any]:
        return {
            "variant_id": self.variant_id,
            "lang": self.lang,
            "source": self.source,
            "text": self.text,
            "engine": self.engine,
            "status": self.status,
            "problems": list(self.problems),
            "needs_post_edit": self.needs_post_edit,
        }


@runtime_checkable
class Translator(Protocol):
    engine: str

    def translate_variants(
        self, variants: Mapping[str, str], target: str
    ) -> dict[str, Translation]:
        """One :class:`Translation` per variant id of ``variants`` (``{variant_id: English text}``)
        into ``target`` (ISO 639-3). Never raises for one bad item."""
        ...


def checked(
    variant_id: str,
    lang: str,
    source: str,
    text: str | None,
    engine: str,
    status: str,
    extra: Iterable[str] = (),
) -> Translation:
    """A translation with the placeholder check applied: any problem (or any ``extra`` code) ->
    ``failed``."""
    found = tuple(extra) + tuple(slot_problems(source, text))
    return Translation(variant_id, lang, source, text, engine, "failed" if found else status, found)


def failed(
    variant_id: str, lang: str, source: str, engine: str, *codes: str, text: str | None = None
) -> Translation:
    """A failed translation with the given problem codes (``text`` kept when there is one)."""
    return Translation(variant_id, lang, source, text, engine, "failed", tuple(codes))


class MemoryTranslator:
    """The offline translator: the bundled translation memory (``mgqa_platform/data/translations``).

    Present and current -> ``draft`` (after the placeholder check); absent -> ``failed`` +
    ``missing_in_memory``; stored for a different English text -> ``failed`` + ``stale_memory`` (the
    old text is kept for the post-editor).
    """

    engine = "memory"

    def __init__(self, directory: str | Path | None = None):
        self.directory = Path(directory) if directory else memory.TM_DIR

    def __repr__(self) -> str:
        return f"MemoryTranslator(directory={str(self.directory)!r})"

    def translate_variants(
        self, variants: Mapping[str, str], target: str
    ) -> dict[str, Translation]:
        lang = language(target).code
        tm = memory.load(lang, self.directory)
        out: dict[str, Translation] = {}
        for vid, source in variants.items():
            entry = tm.variants.get(vid)
            if not entry:
                out[vid] = failed(vid, lang, source, self.engine, "missing_in_memory")
            elif entry.get("source") != source:
                out[vid] = failed(
                    vid, lang, source, self.engine, "stale_memory", text=entry.get("text")
                )
            else:
                out[vid] = checked(vid, lang, source, entry.get("text"), self.engine, "draft")
        return out


def catalog_sources(catalog) -> dict[str, str]:
    """``{variant_id: English text}`` of every variant of a catalog
    (``catalog.sub_templates[*].variants``)."""
    return {v.id: v.text for sub in catalog.sub_templates for v in sub.variants}


def translate_catalog(translator: Translator, catalog, target: str) -> list[Translation]:
    """Every variant of ``catalog`` translated into ``target``, sorted by variant id. A variant the
    translator did not answer for comes back ``failed`` with ``error:no_result``."""
    sources = catalog_sources(catalog)
    lang = language(target).code
    got = translator.translate_variants(sources, lang)
    return [
        got.get(vid) or failed(vid, lang, sources[vid], translator.engine, "error:no_result")
        for vid in sorted(sources)
    ]
