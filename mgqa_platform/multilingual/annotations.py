"""Human post-edits of template translations: the export format and its import (paper B.1-B.2).

Plain Python, no Dagster. Two annotators per target language review the machine translation (MT) of
every English template variant. Each gives one of three ordinal labels, ``Correct`` < ``Phrasing
improvement`` < ``Incorrect``, and, when the label is not Correct, a corrected string and one or
more reasons from a fixed taxonomy (:data:`REASONS`). This module holds that vocabulary, the names
of the resolution methods and statuses that :mod:`mgqa_platform.multilingual.resolution` and
:mod:`mgqa_platform.multilingual.agreement` share, and the import of an annotation export (CSV or
JSONL, see ``docs/annotation_format.md``) with :func:`load_annotations`: every bad row is
quarantined as a :class:`Rejected` with a reason code, never dropped silently.

All text comparisons are done after NFC normalisation and whitespace collapse (:func:`norm`);
annotators' corrections are stored in that normal form.
"""

from __future__ import annotations

import csv
import json
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mgqa_platform.errors import InputError
from mgqa_platform.languages import language

__all__ = [
    "LABELS",
    "CORRECT",
    "PHRASING",
    "INCORRECT",
    "RANK",
    "REASONS",
    "REASON_GROUP",
    "METHODS",
    "STATUSES",
    "Annotation",
    "Rejected",
    "norm",
    "parse_label",
    "parse_reasons",
    "annotation_file",
    "load_annotations",
]

# --------------------------------------------------------------------------------------------------
# Labels, reasons, resolution methods and statuses
# --------------------------------------------------------------------------------------------------
CORRECT, PHRASING, INCORRECT = "Correct", "Phrasing improvement", "Incorrect"
LABELS: tuple[str, ...] = (CORRECT, PHRASING, INCORRECT)  #: ordinal: index 0 < 1 < 2
RANK: dict[str, int] = {lab: i for i, lab in enumerate(LABELS)}

_LABEL_ALIASES = {
    "correct": CORRECT,
    "c": CORRECT,
    "0": CORRECT,
    "ok": CORRECT,
    "phrasing improvement": PHRASING,
    "phrasing": PHRASING,
    "phrasing improvement needed": PHRASING,
    "correct phrasing improvement needed": PHRASING,
    "correct phrasing improvement": PHRASING,
    "needs phrasing improvement": PHRASING,
    "p": PHRASING,
    "1": PHRASING,
    "incorrect": INCORRECT,
    "i": INCORRECT,
    "2": INCORRECT,
    "wrong": INCORRECT,
}

#: Correction reasons (paper Table 8), code -> description, grouped by the label they belong to.
REASONS: dict[str, dict[str, str]] = {
    PHRASING: {
        "word_choice": "Word choice / vocabulary: correct but not the most natural or usual word "
        "or phrase.",
        "grammar": "Grammar / syntax: acceptable but awkward or non-standard sentence structure.",
        "register": "Register / formality: too formal or too informal for a neutral factual "
        "question.",
        "word_order": "Word order: grammatical but unusual; reordering reads better.",
    },
    INCORRECT: {
        "meaning": "Meaning changed or lost: the question's meaning is altered, "
        "omitted or distorted.",
        "information": "Information added or removed: details not in the English, "
        "or important parts missing.",
        "spatial_relation": "Wrong spatial relationship: the spatial relation differs from the "
        "English.",
        "placeholders": "Entity placeholders altered: a {entity_X} slot is missing, renamed, "
        "merged or split.",
    },
}
REASON_GROUP: dict[str, str] = {code: lab for lab, group in REASONS.items() for code in group}
_REASON_ALIASES = {
    "word choice": "word_choice",
    "vocabulary": "word_choice",
    "word choice / vocabulary": "word_choice",
    "word": "word_choice",
    "grammar / syntax": "grammar",
    "syntax": "grammar",
    "gram": "grammar",
    "register / formality": "register",
    "formality": "register",
    "reg": "register",
    "word order": "word_order",
    "wo": "word_order",
    "w o": "word_order",
    "meaning changed or lost": "meaning",
    "mean": "meaning",
    "information added or removed": "information",
    "info": "information",
    "wrong spatial relationship": "spatial_relation",
    "spatial": "spatial_relation",
    "spat": "spatial_relation",
    "entity placeholders altered": "placeholders",
    "placeholder": "placeholders",
    "plh": "placeholders",
}

#: How :func:`mgqa_platform.multilingual.resolution.resolve` decided an item, and its status after.
METHODS = (
    "unreviewed",
    "keep_original",
    "identical_correction",
    "stricter_wins",
    "one_sided",
    "judge",
)
STATUSES = ("unreviewed", "resolved", "needs_review")


def norm(text: str | None) -> str:
    """NFC normalisation, then every whitespace run collapsed to one space and the ends stripped."""
    return " ".join(unicodedata.normalize("NFC", text or "").split())


def _key(text: str) -> str:
    """Lower-case key for labels and reason codes: dashes, underscores and dots fold to spaces."""
    t = norm(text).lower()
    for ch in "–—-_.":
        t = t.replace(ch, " ")
    return " ".join(t.split())


def parse_label(text: str | None) -> str | None:
    """A label in any common spelling (``correct``, ``Correct – Phrasing Improvement Needed``,
    ``phrasing``, ``INCORRECT``, ``0``/``1``/``2``...) -> one of :data:`LABELS`, or None when
    unknown."""
    return _LABEL_ALIASES.get(_key(text or "").replace(" / ", " "))


def parse_reasons(value: Any) -> tuple[tuple[str, ...], list[str]]:
    """``"word_choice; grammar"`` (or a list) -> (known codes in order, without duplicates; unknown
    entries). Codes, Table 8 names (``Word choice / vocabulary``) and Fig. 9 abbreviations
    (``Gram.``) are accepted."""
    if value is None:
        items: list[str] = []
    elif isinstance(value, str):
        items = value.split(";")
    elif isinstance(value, (list, tuple)):
        items = [str(v) for v in value]
    else:
        items = [str(value)]
    known: list[str] = []
    unknown: list[str] = []
    for raw in items:
        if not norm(raw):
            continue
        k = _key(raw)
        code = (
            k.replace(" ", "_") if k.replace(" ", "_") in REASON_GROUP else _REASON_ALIASES.get(k)
        )
        if code is None:
            unknown.append(norm(raw))
        elif code not in known:
            known.append(code)
    return tuple(known), unknown


# --------------------------------------------------------------------------------------------------
# Import
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Annotation:
    lang: str
    variant_id: str
    annotator: str
    label: str  #: one of LABELS
    corrected: str | None  #: normalised corrected text; None for Correct
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rejected:
    """A quarantined row; ``line``: the 1-based file line where it starts (CSV header: line 1)."""

    line: int
    row: dict
    reason: str


REQUIRED_COLUMNS = ("variant_id", "annotator", "label", "corrected", "reasons")


def annotation_file(directory: str | Path, lang: str) -> Path | None:
    """``<directory>/<lang>.csv`` or ``.jsonl``, or None when neither exists (both: ValueError)."""
    found = [
        p
        for p in (Path(directory) / f"{lang}.csv", Path(directory) / f"{lang}.jsonl")
        if p.is_file()
    ]
    if len(found) > 1:
        raise InputError(f"both {found[0].name} and {found[1].name} exist in {directory}; keep one")
    return found[0] if found else None


def _read_rows(path: Path) -> tuple[list[tuple[int, dict]], list[Rejected]]:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 ({exc})") from None
    rows: list[tuple[int, dict]] = []
    bad: list[Rejected] = []
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                bad.append(Rejected(n, {"raw": line[:500]}, "bad_json"))
                continue
            if not isinstance(obj, dict):
                bad.append(Rejected(n, {"raw": line[:500]}, "bad_json"))
                continue
            rows.append((n, obj))
        return rows, bad
    lines = text.splitlines(keepends=True)
    header_reader = csv.reader(lines[:1])
    header = [norm(h).lower() for h in next(header_reader, [])]
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise InputError(
            f"{path}: missing column(s) {', '.join(missing)}; expected "
            f"{', '.join(REQUIRED_COLUMNS)}"
        )
    i = 1
    while i < len(lines):
        reader = csv.reader(lines[i:])
        fields = next(reader, None)
        if fields is None:
            break
        used = reader.line_num
        if any(_is_whole_row(lines[k], len(header)) for k in range(i + 1, i + used)):
            # a quote opened on line i+1 swallowed whole rows: quarantine that line, read on after
            # it
            bad.append(Rejected(i + 1, {"raw": lines[i].rstrip("\r\n")[:500]}, "stray_quote"))
            i += 1
            continue
        row = dict(zip(header, fields, strict=False))
        # too many or too few fields (bad quoting?)
        if len(fields) != len(header):
            row = {h: row.get(h, "") for h in header}
            row["_malformed"] = True
            if len(fields) > len(header):
                row["_extra"] = fields[len(header) :]
        if any(norm(v) for v in row.values() if isinstance(v, str)) or row.get("_extra"):
            rows.append((i + 1, row))
        i += used
    return rows, bad


def _is_whole_row(line: str, n_fields: int) -> bool:
    """A physical line that is a complete CSV row of ``n_fields`` fields on its own: found inside a
    quoted field, it means the quote is a stray one, not a field with line breaks."""
    reader = csv.reader([line])
    fields = next(reader, [])
    return len(fields) == n_fields and reader.line_num == 1


def _parse_row(
    row: Mapping[str, Any], lang: str, known: set[str], mt: Mapping[str, str] | None
) -> Annotation | str:
    """One exported row as an :class:`Annotation` of ``lang``, or the reason it is rejected (see
    :func:`load_annotations`)."""

    def get(k: str) -> str:
        v = row.get(k)
        return "" if v is None else (v if isinstance(v, str) else str(v))

    vid, who = norm(get("variant_id")), norm(get("annotator"))
    row_lang = norm(get("lang"))
    label = parse_label(get("label"))
    reasons, unknown = parse_reasons(row.get("reasons"))
    corrected = norm(get("corrected")) or None
    if row.get("_malformed"):
        return "malformed_row"
    if not vid or not who or not norm(get("label")):
        return "missing_field"
    if row_lang and row_lang != lang:
        return "wrong_language"
    if vid not in known:
        return "unknown_variant"
    if label is None:
        return "unknown_label"
    if unknown:
        return "unknown_reason"
    if label == CORRECT:
        if reasons or (corrected is not None and (mt is None or corrected != norm(mt.get(vid)))):
            return "correct_with_edits"
        corrected = None
    elif corrected is None:
        return "missing_correction"
    return Annotation(lang, vid, who, label, corrected, reasons)


def _duplicates(parsed: Sequence[Annotation]) -> dict[int, str]:
    """Index -> reason, for the annotations of a (variant, annotator) seen twice: identical,
    every one after the first is a ``duplicate``; conflicting, all of them are
    ``conflicting_duplicate``."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, a in enumerate(parsed):
        groups[(a.variant_id, a.annotator)].append(i)
    drop: dict[int, str] = {}
    for idx in groups.values():
        if len(idx) > 1:
            if len({parsed[i] for i in idx}) == 1:
                drop.update({i: "duplicate" for i in idx[1:]})
            else:
                drop.update({i: "conflicting_duplicate" for i in idx})
    return drop


def load_annotations(
    path: str | Path | None,
    lang: str,
    variant_ids: Iterable[str],
    *,
    mt: Mapping[str, str] | None = None,
) -> tuple[list[Annotation], list[Rejected]]:
    """Read one language's annotation export (CSV or JSONL, UTF-8; see docs/annotation_format.md).

    ``path`` None or missing -> ``([], [])`` (the language is not annotated yet: everything stays
    "unreviewed"). Returns the valid annotations in file order and the quarantined rows, in file
    order, with a reason: ``bad_json``, ``malformed_row`` (a CSV row with too many or too few fields
    -- usually an unquoted comma), ``missing_field`` (no variant_id / annotator / label),
    ``wrong_language`` (a ``lang`` column naming another language), ``unknown_variant``,
    ``unknown_label``, ``missing_correction`` (non-Correct without text), ``unknown_reason``,
    ``correct_with_edits`` (a Correct row with reasons, or with a corrected text that differs from
    the MT -- identical to ``mt[variant]`` is tolerated, for tools that prefill the box),
    ``duplicate`` (same variant + annotator again, identical content: the first row is kept),
    ``conflicting_duplicate`` (same variant + annotator with different content: *all* such rows are
    rejected -- we cannot tell which one is final), ``more_than_two_annotators`` (a third annotator
    on a variant). A file that is not UTF-8 or a CSV missing a required column raises ValueError.
    """
    language(lang)
    if path is None or not Path(path).is_file():
        return [], []
    known = set(variant_ids)
    rows, rejected = _read_rows(Path(path))
    parsed: list[tuple[int, dict, Annotation]] = []
    for line, row in rows:
        a = _parse_row(row, lang, known, mt)
        if isinstance(a, str):
            rejected.append(Rejected(line, dict(row), a))
        else:
            parsed.append((line, row, a))
    drop = _duplicates([a for _, _, a in parsed])
    kept: list[Annotation] = []
    per_variant: dict[str, list[str]] = defaultdict(list)
    for i, (line, row, a) in enumerate(parsed):
        if i in drop:
            rejected.append(Rejected(line, dict(row), drop[i]))
            continue
        if len(per_variant[a.variant_id]) >= 2:
            rejected.append(Rejected(line, dict(row), "more_than_two_annotators"))
            continue
        per_variant[a.variant_id].append(a.annotator)
        kept.append(a)
    rejected.sort(key=lambda r: r.line)
    return kept, rejected
