"""Human post-edit resolution of template translations (paper section 3.5, appendix B.1-B.4).

Plain Python, no Dagster. Two annotators per target language review the machine translation (MT) of every English
template variant. Each gives one of three ordinal labels, ``Correct`` < ``Phrasing improvement`` < ``Incorrect``,
and, when the label is not Correct, a corrected string and one or more reasons from a fixed taxonomy
(:data:`REASONS`). This module

1. **imports** an annotation export (CSV or JSONL, see ``docs/annotation_format.md``) with
   :func:`load_annotations`: every bad row is quarantined as a :class:`Rejected` with a reason code, never dropped
   silently;
2. **resolves** the two judgments into one text per variant with :func:`resolve`: a rule-based pass first
   (``keep_original``, ``identical_correction``, ``stricter_wins``, ``one_sided``), then a judge for the rest
   (:class:`LLMJudge` on any OpenAI-compatible endpoint, or its deterministic offline twin :class:`OfflineJudge`).
   The judge only *chooses* between the two anonymous candidates; the final text is always looked up from the
   chosen annotator, never taken from the judge's reply. Every chosen text must keep the template placeholders
   (:func:`mgqa_platform.multilingual.placeholders.problems`); otherwise the other candidate is tried, else the MT
   is kept and the item flagged ``needs_review``;
3. **measures** the annotation (Table 9 of the paper) with :func:`agreement` and writes a per-language report with
   :func:`report_markdown`.

All text comparisons are done after NFC normalisation and whitespace collapse (:func:`norm`); annotators'
corrections are stored in that normal form.

Annotator order: "annotator 1" / "annotator 2" of an item are the item's two annotators in the order their IDs
first appear in the annotation list (for a loaded file: in the file). "equivalent" from the judge takes annotator
1's text.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from mgqa_platform.multilingual.languages import language
from mgqa_platform.multilingual.placeholders import problems as slot_problems

__all__ = [
    "LABELS", "CORRECT", "PHRASING", "INCORRECT", "REASONS", "REASON_GROUP", "METHODS", "STATUSES",
    "Annotation", "Rejected", "Resolution", "JudgeChoice", "JudgeError", "Judge", "LLMJudge", "OfflineJudge",
    "JUDGE_SCHEMA", "norm", "parse_label", "parse_reasons", "annotation_file", "load_annotations", "resolve",
    "weighted_kappa", "ordinal_alpha", "chrf", "agreement", "report_markdown",
]

# ---------------------------------------------------------------------------------------------------------------
# Labels and reasons
# ---------------------------------------------------------------------------------------------------------------
CORRECT, PHRASING, INCORRECT = "Correct", "Phrasing improvement", "Incorrect"
LABELS: tuple[str, ...] = (CORRECT, PHRASING, INCORRECT)  #: ordinal: index 0 < 1 < 2
RANK: dict[str, int] = {lab: i for i, lab in enumerate(LABELS)}

_LABEL_ALIASES = {
    "correct": CORRECT, "c": CORRECT, "0": CORRECT, "ok": CORRECT,
    "phrasing improvement": PHRASING, "phrasing": PHRASING, "phrasing improvement needed": PHRASING,
    "correct phrasing improvement needed": PHRASING, "correct phrasing improvement": PHRASING,
    "needs phrasing improvement": PHRASING, "p": PHRASING, "1": PHRASING,
    "incorrect": INCORRECT, "i": INCORRECT, "2": INCORRECT, "wrong": INCORRECT,
}

#: Correction reasons (paper Table 8), code -> description, grouped by the label they belong to.
REASONS: dict[str, dict[str, str]] = {
    PHRASING: {
        "word_choice": "Word choice / vocabulary: correct but not the most natural or usual word or phrase.",
        "grammar": "Grammar / syntax: acceptable but awkward or non-standard sentence structure.",
        "register": "Register / formality: too formal or too informal for a neutral factual question.",
        "word_order": "Word order: grammatical but unusual; reordering reads better.",
    },
    INCORRECT: {
        "meaning": "Meaning changed or lost: the question's meaning is altered, omitted or distorted.",
        "information": "Information added or removed: details not in the English, or important parts missing.",
        "spatial_relation": "Wrong spatial relationship: the spatial relation differs from the English.",
        "placeholders": "Entity placeholders altered: a {entity_X} slot is missing, renamed, merged or split.",
    },
}
REASON_GROUP: dict[str, str] = {code: lab for lab, group in REASONS.items() for code in group}
_REASON_ALIASES = {
    "word choice": "word_choice", "vocabulary": "word_choice", "word choice / vocabulary": "word_choice",
    "word": "word_choice",
    "grammar / syntax": "grammar", "syntax": "grammar", "gram": "grammar",
    "register / formality": "register", "formality": "register", "reg": "register",
    "word order": "word_order", "wo": "word_order", "w o": "word_order",
    "meaning changed or lost": "meaning", "mean": "meaning",
    "information added or removed": "information", "info": "information",
    "wrong spatial relationship": "spatial_relation", "spatial": "spatial_relation", "spat": "spatial_relation",
    "entity placeholders altered": "placeholders", "placeholder": "placeholders", "plh": "placeholders",
}

METHODS = ("unreviewed", "keep_original", "identical_correction", "stricter_wins", "one_sided", "judge")
STATUSES = ("unreviewed", "resolved", "needs_review")


def norm(text: str | None) -> str:
    """NFC normalisation, then every whitespace run collapsed to one space and the ends stripped."""
    return " ".join(unicodedata.normalize("NFC", text or "").split())


def _key(text: str) -> str:
    """Lower-case key for labels / reason codes: dashes, underscores, dots and slashes fold to spaces."""
    t = norm(text).lower()
    for ch in "–—-_.":
        t = t.replace(ch, " ")
    return " ".join(t.split())


def parse_label(text: str | None) -> str | None:
    """A label in any common spelling (``correct``, ``Correct – Phrasing Improvement Needed``, ``phrasing``,
    ``INCORRECT``, ``0``/``1``/``2``...) -> one of :data:`LABELS`, or None when unknown."""
    return _LABEL_ALIASES.get(_key(text or "").replace(" / ", " "))


def parse_reasons(value: Any) -> tuple[tuple[str, ...], list[str]]:
    """``"word_choice; grammar"`` (or a list) -> (known codes in order, without duplicates; unknown entries).
    Codes, Table 8 names (``Word choice / vocabulary``) and Fig. 9 abbreviations (``Gram.``) are accepted."""
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
        code = k.replace(" ", "_") if k.replace(" ", "_") in REASON_GROUP else _REASON_ALIASES.get(k)
        if code is None:
            unknown.append(norm(raw))
        elif code not in known:
            known.append(code)
    return tuple(known), unknown


# ---------------------------------------------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------------------------------------------
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
    """A quarantined row: ``line`` is the 1-based line of the file where the row starts (header = line 1 in CSV)."""

    line: int
    row: dict
    reason: str


REQUIRED_COLUMNS = ("variant_id", "annotator", "label", "corrected", "reasons")


def annotation_file(directory: str | Path, lang: str) -> Path | None:
    """``<directory>/<lang>.csv`` or ``<directory>/<lang>.jsonl``, or None when neither exists (both -> error)."""
    found = [p for p in (Path(directory) / f"{lang}.csv", Path(directory) / f"{lang}.jsonl") if p.is_file()]
    if len(found) > 1:
        raise ValueError(f"both {found[0].name} and {found[1].name} exist in {directory}; keep one")
    return found[0] if found else None


def _read_rows(path: Path) -> tuple[list[tuple[int, dict]], list[Rejected]]:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 ({exc})") from None
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
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [norm(h).lower() for h in (reader.fieldnames or [])]
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise ValueError(f"{path}: missing column(s) {', '.join(missing)}; expected {', '.join(REQUIRED_COLUMNS)}")
    reader.fieldnames = header
    start = reader.line_num + 1
    for rec in reader:
        row = {k: v for k, v in rec.items() if k is not None}
        if rec.get(None) or any(v is None for v in row.values()):  # too many / too few fields (bad quoting?)
            row = {k: ("" if v is None else v) for k, v in row.items()}
            row["_malformed"] = True
            if rec.get(None):
                row["_extra"] = rec[None]
        if any(norm(v) for v in row.values() if isinstance(v, str)) or row.get("_extra"):
            rows.append((start, row))
        start = reader.line_num + 1
    return rows, bad


def load_annotations(path: str | Path | None, lang: str, variant_ids: Iterable[str], *,
                     mt: Mapping[str, str] | None = None) -> tuple[list[Annotation], list[Rejected]]:
    """Read one language's annotation export (CSV or JSONL, UTF-8; see docs/annotation_format.md).

    ``path`` None or missing -> ``([], [])`` (the language is not annotated yet: everything stays "unreviewed").
    Returns the valid annotations in file order and the quarantined rows, in file order, with a reason:
    ``bad_json``, ``malformed_row`` (a CSV row with too many or too few fields -- usually an unquoted comma),
    ``missing_field`` (no variant_id / annotator / label), ``wrong_language`` (a ``lang`` column
    naming another language), ``unknown_variant``, ``unknown_label``, ``missing_correction`` (non-Correct without
    text), ``unknown_reason``, ``correct_with_edits`` (a Correct row with reasons, or with a corrected text that
    differs from the MT -- identical to ``mt[variant]`` is tolerated, for tools that prefill the box),
    ``duplicate`` (same variant + annotator again, identical content: the first row is kept),
    ``conflicting_duplicate`` (same variant + annotator with different content: *all* such rows are rejected --
    we cannot tell which one is final), ``more_than_two_annotators`` (a third annotator on a variant).
    A file that is not UTF-8 or a CSV missing a required column raises ValueError.
    """
    language(lang)
    if path is None or not Path(path).is_file():
        return [], []
    known = set(variant_ids)
    rows, rejected = _read_rows(Path(path))
    parsed: list[tuple[int, dict, Annotation]] = []
    for line, row in rows:
        def get(k: str) -> str:
            v = row.get(k)
            return "" if v is None else (v if isinstance(v, str) else str(v))

        vid, who = norm(get("variant_id")), norm(get("annotator"))
        row_lang = norm(get("lang"))
        reason: str | None = None
        label = parse_label(get("label"))
        reasons, unknown = parse_reasons(row.get("reasons"))
        corrected = norm(get("corrected")) or None
        if row.get("_malformed"):
            reason = "malformed_row"
        elif not vid or not who or not norm(get("label")):
            reason = "missing_field"
        elif row_lang and row_lang != lang:
            reason = "wrong_language"
        elif vid not in known:
            reason = "unknown_variant"
        elif label is None:
            reason = "unknown_label"
        elif unknown:
            reason = "unknown_reason"
        elif label == CORRECT:
            if reasons or (corrected is not None and (mt is None or corrected != norm(mt.get(vid)))):
                reason = "correct_with_edits"
            corrected = None
        elif corrected is None:
            reason = "missing_correction"
        if reason:
            rejected.append(Rejected(line, dict(row), reason))
            continue
        parsed.append((line, row, Annotation(lang, vid, who, label, corrected, reasons)))

    # duplicates: identical -> keep the first; conflicting -> reject every row of that (variant, annotator)
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, (_, _, a) in enumerate(parsed):
        groups[(a.variant_id, a.annotator)].append(i)
    drop: dict[int, str] = {}
    for idx in groups.values():
        if len(idx) > 1:
            if len({parsed[i][2] for i in idx}) == 1:
                drop.update({i: "duplicate" for i in idx[1:]})
            else:
                drop.update({i: "conflicting_duplicate" for i in idx})
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


# ---------------------------------------------------------------------------------------------------------------
# Judges
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class JudgeChoice:
    choice: str  #: "first" (annotator 1), "second" (annotator 2) or "equivalent"
    rationale: str
    order: tuple[str, str] = ("first", "second")  #: which candidate was shown as A and which as B


class JudgeError(Exception):
    """The judge's reply could not be used (not JSON, schema violation...). ``reason`` is a short code."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class Judge(Protocol):
    def choose(self, lang: str, english: str, mt: str, first: str, second: str, key: str) -> JudgeChoice: ...


#: The judge's reply: a choice and a one-sentence rationale, nothing else (no text field can sneak in).
JUDGE_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "choice": {"type": "string", "enum": ["A", "B", "equivalent"]},
        "rationale": {"type": "string", "minLength": 1, "maxLength": 600},
    },
    "required": ["choice", "rationale"],
    "additionalProperties": False,
}

_SYSTEM_PROMPT = """\
You arbitrate between two human post-edits of a machine-translated question template ({language_name}).
Each template is an English geographic question with slots in curly braces such as {{entity_A}}; the slots are \
filled with place names later, so they must never be translated or altered.
Two bilingual reviewers each judged the machine translation wrong or improvable and wrote a corrected version. \
You receive the English template, the machine translation, and the two corrections labelled A and B (the order is \
random and says nothing about quality). Pick the better correction, or say they are equally good.

Go through these tests in order and stop at the first one that separates the candidates:
1. Slots: every slot of the English template appears as often as in the English and spelled exactly the same \
(the order may change). A candidate that drops, renames, duplicates, merges or splits a slot loses.
2. Meaning: the spatial relation, the quantity or unit asked for, and the kind of question (yes/no, which, how \
many, where...) match the English.
3. Grammar: agreement, case, verb forms and word order are valid {language_name}.
4. Terminology: established domain words (e.g. centroid, bounding box, geodesic distance) beat loose paraphrases.
5. Naturalness: the wording a native speaker would use for a neutral factual question.

Never decide on: gender or case endings that depend on which place fills a slot (fixed later per question); \
whitespace or trivial punctuation; which candidate is longer or shorter; formal versus informal address, as long \
as the candidate is consistent.
{notes}
Reply with one JSON object and nothing else: {{"choice": "A" | "B" | "equivalent", "rationale": "<one sentence \
naming the test that decided>"}}. Never rewrite or propose a translation yourself.\
"""

#: Short per-language reminders added to the system prompt (our wording; extend per language as needed).
DEFAULT_LANGUAGE_NOTES: dict[str, str] = {
    "ron": "Romanian: s/t with comma below (ș, ț) and with cedilla (ş, ţ) are spelling variants of the same "
           "letters; do not prefer a candidate for that alone.",
    "deu": "German: noun capitalisation is required; ß versus ss alone does not decide.",
    "tur": "Turkish: case suffixes after a slot are written with an apostrophe and vary with the place name; "
           "do not penalise a generic suffix choice.",
    "jpn": "Japanese: full-width versus half-width punctuation alone does not decide.",
    "zho": "Chinese (Simplified): full-width versus half-width punctuation alone does not decide; traditional "
           "characters are wrong.",
    "urd": "Urdu: right-to-left text; the Urdu question mark (؟) and the Latin one (?) alone do not decide.",
}


def _order_for(seed: int, key: str) -> tuple[str, str]:
    """Stable, seeded presentation order for one item: ("first", "second") or ("second", "first")."""
    h = hashlib.sha256(f"mgqa-postedit-judge:{seed}:{key}".encode()).digest()
    return ("second", "first") if h[0] & 1 else ("first", "second")


class LLMJudge:
    """The disagreement judge on an OpenAI-compatible endpoint (:class:`mgqa_platform.llm.ChatClient`).

    The two candidates are shown in a seeded random order per item key (stable across runs and processes); the
    reply must satisfy :data:`JUDGE_SCHEMA` exactly (strict JSON, ``additionalProperties: false``). "A"/"B" are
    mapped back to "first"/"second". A reply that fails parsing or validation raises :class:`JudgeError` (counted
    in ``errors``); transport failures (:class:`mgqa_platform.llm.TransportError`) propagate, so an outage fails
    the run instead of flagging every item."""

    def __init__(self, client: Any, seed: int = 0, language_notes: Mapping[str, str] | None = None):
        self.client = client
        self.seed = seed
        self.language_notes = dict(DEFAULT_LANGUAGE_NOTES if language_notes is None else language_notes)
        self.calls = 0
        self.errors = 0
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}

    def order(self, key: str) -> tuple[str, str]:
        return _order_for(self.seed, key)

    def messages(self, lang: str, english: str, mt: str, a: str, b: str) -> list[dict]:
        name = language(lang).name
        note = self.language_notes.get(lang)
        system = _SYSTEM_PROMPT.format(language_name=name, notes=f"\nLanguage notes. {note}\n" if note else "")
        user = json.dumps({"english_template": english, "machine_translation": mt, "A": a, "B": b},
                          ensure_ascii=False, indent=1)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def choose(self, lang: str, english: str, mt: str, first: str, second: str, key: str) -> JudgeChoice:
        from mgqa_platform.llm import ReplyError  # local: keeps import of this module light

        order = self.order(key)
        cand = {"first": first, "second": second}
        msgs = self.messages(lang, english, mt, cand[order[0]], cand[order[1]])
        self.calls += 1
        try:
            obj, res = self.client.complete_json(msgs, JUDGE_SCHEMA, schema_name="postedit_judgment")
        except ReplyError as exc:
            self.errors += 1
            if exc.result is not None:
                self._count(exc.result.usage)
            raise JudgeError(exc.reason, exc.detail) from None
        self._count(res.usage)
        rationale = norm(obj["rationale"])
        if not rationale:
            self.errors += 1
            raise JudgeError("empty_rationale")
        choice = {"A": order[0], "B": order[1]}.get(obj["choice"], "equivalent")
        return JudgeChoice(choice, rationale, order)

    def _count(self, usage: Mapping[str, int]) -> None:
        for k in self.usage:
            self.usage[k] += int(usage.get(k, 0))

    def describe(self) -> dict:
        desc = self.client.describe() if hasattr(self.client, "describe") else {}
        return {"judge": "llm", "seed": self.seed, "calls": self.calls, "errors": self.errors,
                "usage": dict(self.usage), "client": desc}


class OfflineJudge:
    """The offline twin (DESIGN section 8): a deterministic rule, no network.

    1. placeholder integrity: if exactly one candidate keeps the English slots, it wins;
    2. the smaller edit: the candidate with the higher sentence chrF against the MT wins;
    3. annotator order: annotator 1 ("first").
    The rationale names the rule that decided. It never answers "equivalent"."""

    def __init__(self) -> None:
        self.calls = 0
        self.errors = 0

    def choose(self, lang: str, english: str, mt: str, first: str, second: str, key: str) -> JudgeChoice:
        self.calls += 1
        ok1, ok2 = not slot_problems(english, first), not slot_problems(english, second)
        if ok1 != ok2:
            return JudgeChoice("first" if ok1 else "second", "placeholder integrity: only this candidate keeps "
                               "every template slot intact.")
        c1, c2 = chrf([first], [mt]), chrf([second], [mt])
        if abs(c1 - c2) > 1e-9:
            return JudgeChoice("first" if c1 > c2 else "second",
                               f"smaller edit: chrF to the MT {max(c1, c2):.1f} against {min(c1, c2):.1f}.")
        return JudgeChoice("first", "annotator order: the candidates tie on slots and edit size.")

    def describe(self) -> dict:
        return {"judge": "offline", "calls": self.calls, "errors": self.errors}


# ---------------------------------------------------------------------------------------------------------------
# Resolution
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Resolution:
    lang: str
    variant_id: str
    text: str  #: the final translation
    method: str  #: one of METHODS
    status: str  #: one of STATUSES
    labels: tuple[str, ...] = ()  #: the annotators' labels, annotator 1 first
    detail: str | None = None
    annotators: tuple[str, ...] = ()  #: annotator IDs, annotator 1 first
    source: str = "mt"  #: where ``text`` comes from: "mt", "annotator1" or "annotator2"
    judge_choice: str | None = None  #: "first" / "second" / "equivalent" when the judge decided
    rationale: str | None = None  #: the judge's rationale


def _resolve_item(lang: str, vid: str, english: str, mt: str, anns: Sequence[Annotation],
                  judge: Judge | None) -> Resolution:
    labels = tuple(a.label for a in anns)
    who = tuple(a.annotator for a in anns)
    base: dict[str, Any] = {"lang": lang, "variant_id": vid, "labels": labels, "annotators": who}
    mt_problems = slot_problems(english, mt)

    def keep_mt(method: str, status: str, detail: str | None, **kw: Any) -> Resolution:
        if mt_problems:
            status = "needs_review"
            detail = "; ".join(x for x in (detail, f"MT breaks slots ({', '.join(mt_problems)})") if x)
        return Resolution(text=mt, method=method, status=status, detail=detail, source="mt", **base, **kw)

    def take(method: str, idx: int, detail: str | None, fallback: int | None, **kw: Any) -> Resolution:
        """Annotator ``idx``'s correction if its slots are intact, else annotator ``fallback``'s, else the MT."""
        text = anns[idx].corrected or ""
        bad = slot_problems(english, text)
        if not bad:
            return Resolution(text=text, method=method, status="resolved", detail=detail,
                              source=f"annotator{idx + 1}", **base, **kw)
        why = f"annotator {idx + 1}'s correction breaks slots ({', '.join(bad)})"
        if fallback is not None and anns[fallback].corrected is not None:
            alt = anns[fallback].corrected or ""
            alt_bad = slot_problems(english, alt)
            if not alt_bad:
                return Resolution(text=alt, method=method, status="resolved",
                                  detail=f"{why}; took annotator {fallback + 1}'s instead",
                                  source=f"annotator{fallback + 1}", **base, **kw)
            why += f"; annotator {fallback + 1}'s too ({', '.join(alt_bad)})"
        return keep_mt(method, "needs_review", f"{why}; MT kept", **kw)

    if not anns:
        det = f"MT breaks slots ({', '.join(mt_problems)})" if mt_problems else None
        return Resolution(text=mt, method="unreviewed", status="unreviewed", detail=det, source="mt", **base)
    if len(anns) == 1:
        a = anns[0]
        if a.label == CORRECT:
            return keep_mt("one_sided", "resolved", "single annotation: Correct")
        return take("one_sided", 0, "single annotation", None)
    a1, a2 = anns
    if a1.label == CORRECT and a2.label == CORRECT:
        return keep_mt("keep_original", "resolved", None)
    if a1.label == CORRECT or a2.label == CORRECT:
        idx = 0 if a1.label != CORRECT else 1
        return take("one_sided", idx, f"only annotator {idx + 1} corrected", None)
    if a1.corrected == a2.corrected:  # both stored normalised (NFC + whitespace collapse)
        return take("identical_correction", 0, None, None)
    if a1.label != a2.label:
        idx = 0 if RANK[a1.label] > RANK[a2.label] else 1
        return take("stricter_wins", idx, f"annotator {idx + 1} is stricter ({anns[idx].label})", 1 - idx)
    # same non-Correct label, different corrections: the judge
    if judge is None:
        return keep_mt("judge", "needs_review", "no judge configured; the rules cannot decide; MT kept")
    try:
        jc = judge.choose(lang, english, mt, a1.corrected or "", a2.corrected or "", key=f"{lang}:{vid}")
    except JudgeError as exc:
        return keep_mt("judge", "needs_review", f"judge reply rejected ({exc}); MT kept")
    extra = {"judge_choice": jc.choice, "rationale": jc.rationale}
    if jc.choice == "second":
        return take("judge", 1, "judge chose annotator 2", 0, **extra)
    what = "judge chose annotator 1" if jc.choice == "first" else "judge: equivalent, annotator 1's text taken"
    return take("judge", 0, what, 1, **extra)


def resolve(lang: str, english: Mapping[str, str], mt: Mapping[str, str], annotations: Iterable[Annotation],
            judge: Judge | None = None) -> list[Resolution]:
    """One :class:`Resolution` per variant of ``mt``, sorted by variant_id (see the module docstring for rules).

    ``english`` must hold every variant of ``mt``. Annotations of another language or of a variant not in ``mt``,
    two annotations by one annotator, or more than two on an item raise ValueError (:func:`load_annotations`
    quarantines those)."""
    language(lang)
    missing = sorted(set(mt) - set(english))
    if missing:
        raise ValueError(f"no English text for {len(missing)} variant(s): {', '.join(missing[:5])}")
    by_item: dict[str, list[Annotation]] = defaultdict(list)
    rank: dict[str, int] = {}
    for a in annotations:
        if a.lang != lang:
            raise ValueError(f"annotation for {a.lang!r} passed to resolve({lang!r})")
        if a.variant_id not in mt:
            raise ValueError(f"annotation for unknown variant {a.variant_id!r}")
        if any(b.annotator == a.annotator for b in by_item[a.variant_id]):
            raise ValueError(f"two annotations by {a.annotator!r} on {a.variant_id}")
        by_item[a.variant_id].append(a)
        if len(by_item[a.variant_id]) > 2:
            raise ValueError(f"more than two annotations on {a.variant_id}")
        rank.setdefault(a.annotator, len(rank))
    out = []
    for vid in sorted(mt):
        anns = sorted(by_item.get(vid, []), key=lambda a: rank[a.annotator])
        out.append(_resolve_item(lang, vid, english[vid], mt[vid], anns, judge))
    return out


# ---------------------------------------------------------------------------------------------------------------
# Statistics (Table 9)
# ---------------------------------------------------------------------------------------------------------------
def weighted_kappa(pairs: Iterable[tuple[int, int]], k: int = 3) -> float | None:
    """Cohen's kappa with linear disagreement weights |i - j| / (k - 1) for two raters on categories 0..k-1:
    1 - sum(w * observed) / sum(w * expected), expected from the two raters' marginals. None when undefined
    (no pairs, or no expected disagreement)."""
    pairs = list(pairs)
    n = len(pairs)
    if n == 0 or k < 2:
        return None
    obs = [[0] * k for _ in range(k)]
    for i, j in pairs:
        obs[i][j] += 1
    rows = [sum(obs[i]) for i in range(k)]
    cols = [sum(obs[i][j] for i in range(k)) for j in range(k)]
    w = [[abs(i - j) / (k - 1) for j in range(k)] for i in range(k)]
    qo = sum(w[i][j] * obs[i][j] for i in range(k) for j in range(k)) / n
    qe = sum(w[i][j] * rows[i] * cols[j] for i in range(k) for j in range(k)) / (n * n)
    return None if qe == 0 else 1 - qo / qe


def ordinal_alpha(units: Sequence[Sequence[int | None]], k: int = 3) -> float | None:
    """Krippendorff's ordinal alpha (``krippendorff`` package) over units of coder slots (None = missing) on the
    value domain 0..k-1; None when undefined (no unit with two values, or no variation)."""
    import krippendorff
    import numpy as np

    if not units or not any(sum(v is not None for v in u) >= 2 for u in units):
        return None
    width = max(len(u) for u in units)
    data = np.full((width, len(units)), np.nan)
    for j, u in enumerate(units):
        for i, v in enumerate(u):
            if v is not None:
                data[i, j] = v
    with np.errstate(divide="ignore", invalid="ignore"):
        a = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=list(range(k)))
    return None if a is None or math.isnan(a) else float(a)


def chrf(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """Corpus chrF (sacrebleu defaults: character 6-grams, beta 2) of ``hypotheses`` against ``references``."""
    from sacrebleu.metrics import CHRF

    return float(CHRF().corpus_score(list(hypotheses), [list(references)]).score)


def _pct(num: int, den: int) -> float | None:
    return 100.0 * num / den if den else None


def agreement(lang: str, annotations: Iterable[Annotation], mt: Mapping[str, str],
              resolutions: Sequence[Resolution]) -> dict:
    """The Table 9 row of one language, plus the pairwise breakdown (Fig. 8) and counts.

    * ``n_items``: variants in ``mt``; ``n_annotated``: with at least one annotation; ``n_paired``: with two.
    * ``pct_correct`` / ``pct_phrasing`` / ``pct_incorrect``: share of annotator-item decisions with that label.
    * ``correction_rate``: share of annotated items where at least one annotator did not label Correct.
    * ``exact_agreement``: share of paired items where both labels are the same.
    * ``alpha``: Krippendorff's ordinal alpha (annotator 1 / annotator 2 slots; single annotations count as
      missing); ``kappa``: Cohen's linear-weighted kappa over paired items. None when undefined.
    * ``chrf``: corpus chrF of the final text against the MT, over reviewed (non-"unreviewed") items.
    * ``pct_judge``: share of annotated items escalated to the judge (method "judge").
    Percentages are 0-100 floats (None when the denominator is 0)."""
    anns = [a for a in annotations if a.lang == lang and a.variant_id in mt]
    rank: dict[str, int] = {}
    by_item: dict[str, list[Annotation]] = defaultdict(list)
    for a in anns:
        rank.setdefault(a.annotator, len(rank))
        by_item[a.variant_id].append(a)
    items = {v: sorted(x, key=lambda a: rank[a.annotator]) for v, x in by_item.items()}
    paired = {v: x for v, x in items.items() if len(x) == 2}
    labels = Counter(a.label for a in anns)
    n_dec = len(anns)
    corrected = sum(any(a.label != CORRECT for a in x) for x in items.values())
    agree = sum(x[0].label == x[1].label for x in paired.values())
    units = [[RANK[a.label] for a in x] + [None] * (2 - len(x)) for _, x in sorted(items.items())]
    pairwise = Counter()
    for x in paired.values():
        n_ok = sum(a.label == CORRECT for a in x)
        pairwise["both_correct" if n_ok == 2 else "one_correct" if n_ok == 1
                 else "same_correction" if x[0].corrected == x[1].corrected else "different_corrections"] += 1
    pairwise["incomplete"] = sum(1 for v in mt if len(items.get(v, [])) < 2)
    reviewed = [r for r in resolutions if r.status != "unreviewed" and r.variant_id in mt]
    methods = Counter(r.method for r in resolutions)
    reasons = Counter()
    for a in anns:
        if a.label != CORRECT:
            reasons.update(a.reasons or ("(none)",))
    judge_choices = Counter(r.judge_choice for r in resolutions if r.judge_choice)
    return {
        "lang": lang,
        "n_items": len(mt),
        "n_annotated": len(items),
        "n_paired": len(paired),
        "n_decisions": n_dec,
        "pct_correct": _pct(labels[CORRECT], n_dec),
        "pct_phrasing": _pct(labels[PHRASING], n_dec),
        "pct_incorrect": _pct(labels[INCORRECT], n_dec),
        "correction_rate": _pct(corrected, len(items)),
        "exact_agreement": _pct(agree, len(paired)),
        "alpha": ordinal_alpha(units),
        "kappa": weighted_kappa((RANK[x[0].label], RANK[x[1].label]) for x in paired.values()),
        "chrf": (chrf([norm(r.text) for r in reviewed], [norm(mt[r.variant_id]) for r in reviewed])
                 if reviewed else None),
        "pct_judge": _pct(methods["judge"], len(items)),
        "methods": {m: methods[m] for m in METHODS if methods[m]},
        "statuses": {s: n for s, n in Counter(r.status for r in resolutions).items()},
        "judge_choices": dict(judge_choices),
        "pairwise": {k: pairwise[k] for k in ("both_correct", "same_correction", "one_correct",
                                               "different_corrections", "incomplete")},
        "reasons": dict(sorted(reasons.items())),
    }


def _fmt(v: Any, digits: int = 1) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def report_markdown(lang: str, resolutions: Sequence[Resolution], stats: Mapping[str, Any],
                    rejected: Sequence[Rejected], judge_info: Mapping[str, Any] | None = None) -> str:
    """The per-language resolution report: methods and statuses, the Table 9 row, items needing review, and the
    quarantined rows of the annotation file."""
    name = language(lang).name
    status = Counter(r.status for r in resolutions)
    methods = Counter(r.method for r in resolutions)
    out = [f"# Post-edit resolution: {name} ({lang})", ""]
    out.append(f"{len(resolutions)} variants: " + ", ".join(f"{status[s]} {s}" for s in STATUSES) + ".")
    if status["unreviewed"] == len(resolutions):
        out.append("No annotations for this language: every variant keeps its machine translation (unreviewed).")
    out += ["", "## Resolution methods", "", "| method | items |", "|---|---:|"]
    out += [f"| {m} | {methods[m]} |" for m in METHODS]
    jc = stats.get("judge_choices") or {}
    if jc:
        out += ["", "Judge outcomes: " + ", ".join(f"{k} {jc[k]}" for k in ("first", "second", "equivalent")
                                                   if k in jc) + " (equivalent takes annotator 1's text)."]
    if judge_info:
        out += ["", "Judge: " + ", ".join(f"{k}={v}" for k, v in judge_info.items() if k != "client")]
    out += ["", "## Annotation statistics (Table 9)", "",
            "| items | annotated | % Correct | % Phrasing | corr. rate | agreement | alpha | kappa | chrF | % judge |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            "| " + " | ".join([str(stats.get("n_items", "n/a")), str(stats.get("n_annotated", "n/a"))]
                           + [_fmt(stats.get(k)) for k in ("pct_correct", "pct_phrasing", "correction_rate",
                                                           "exact_agreement")]
                           + [_fmt(stats.get(k), 2) for k in ("alpha", "kappa")]
                           + [_fmt(stats.get(k)) for k in ("chrf", "pct_judge")]) + " |"]
    pw = stats.get("pairwise") or {}
    if pw:
        out += ["", "Pairwise (Fig. 8): " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in pw.items()) + "."]
    if stats.get("reasons"):
        out += ["", "Correction reasons: " + ", ".join(f"{k} {v}" for k, v in stats["reasons"].items()) + "."]
    review = [r for r in resolutions if r.status == "needs_review"]
    out += ["", f"## Needs review ({len(review)})", ""]
    if review:
        out += ["| variant | method | labels | detail |", "|---|---|---|---|"]
        out += [f"| {r.variant_id} | {r.method} | {_cell(' / '.join(r.labels))} | {_cell(r.detail or '')} |"
                for r in review]
    else:
        out.append("None.")
    out += ["", f"## Rejected annotation rows ({len(rejected)})", ""]
    if rejected:
        out += ["| line | reason | variant | annotator |", "|---:|---|---|---|"]
        out += [f"| {r.line} | {r.reason} | {_cell(r.row.get('variant_id', ''))} | "
                f"{_cell(r.row.get('annotator', ''))} |" for r in rejected]
    else:
        out.append("None.")
    return "\n".join(out) + "\n"
