"""Post-edit ensemble for instantiated questions (paper section 3.6, appendix C): domain logic only.

Plain Python, no Dagster. After a localized template is instantiated with entity names, the grammar
around the inserted names may be off: French ``de {Orly}`` should elide to ``d'{Orly}``, ``de le``
fuse to ``du``, Italian ``di il`` to ``del``, Portuguese ``em a`` to ``na``, Spanish ``de el`` to
``del``, French wants a space before ``?``, the other Latin-script languages none... Several
*members* propose small typed edits (:class:`Edit`, 13 operations in :data:`OPERATIONS`) to the
marked text (entity names wrapped in ``{...}``), and a vote decides which ones are applied.

* :func:`apply_edits` is the single gate for every edit: an edit replaces the first occurrence of
  its ``original`` found in the text *outside* the ``{...}`` spans, and may never touch a brace or a
  name.
* :class:`RuleMember` is a deterministic member for the 16 target languages: fra/ita/por/spa
  elisions and contractions, the names-in-context rules of
  :mod:`mgqa_platform.multilingual.names_in_context` (Turkish case suffixes, Georgian genitive
  forms, Greek articles, Russian/Bulgarian preposition forms), spacing and punctuation; each edit
  names its rule (``Edit.rule``); :class:`LLMMember` asks any OpenAI-compatible endpoint
  (:class:`mgqa_platform.llm.ChatClient`) for a strict-JSON list of edits.
* :func:`vote`: an edit proposed by at least two members (status ``ok``) is applied; when no edit
  reaches two votes, the primary member's edits are applied (when its proposal is ``ok``), otherwise
  nothing. Two edits are "the same" when they have the same effect: applied alone to the question
  they produce the same text (so ``("de ", "d'")`` and ``("près de ", "près d'")`` agree when both
  hit the same spot); without the question text they must have the same ``(original, fix)``. The
  operation label never matters.
* :func:`postedit` runs the members on one question (a member's failure never raises) and logs every
  proposal; :func:`stats` summarises a batch; :class:`CachedMember` keeps an LLM member's replies on
  disk so that an interrupted run resumes without asking again.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mgqa_platform.languages import LANGUAGES, TARGETS, language
from mgqa_platform.llm import ChatClient, LLMError, ReplyError, TransportError
from mgqa_platform.marks import unmark
from mgqa_platform.multilingual import names_in_context as nic
from mgqa_platform.multilingual.grammar import french_elides

__all__ = [
    "OPERATIONS",
    "Edit",
    "EditError",
    "Proposal",
    "apply_edits",
    "unmark",
    "spans",
    "RuleMember",
    "LLMMember",
    "CachedMember",
    "EDITS_SCHEMA",
    "MAX_EDITS",
    "PROMPT_VERSION",
    "build_messages",
    "vote",
    "postedit",
    "stats",
    "describe",
]

#: The 13 edit operations (our own one-line descriptions).
OPERATIONS: dict[str, str] = {
    "NOCHG": 'Nothing to fix: the question already reads correctly (use original = fix = "").',
    "ART_ADD": "Insert an article the sentence now needs because of the inserted name.",
    "ART_DEL": "Remove an article that the inserted name makes superfluous.",
    "ART_CHG": "Swap an article for another one (gender, number or definiteness of the name).",
    "ADP_ADD": "Insert a missing preposition, postposition or case/topic particle next to a name.",
    "ADP_DEL": "Remove a preposition, postposition or particle that is now redundant.",
    "ADP_CHG": "Replace a preposition, postposition or particle by the one the name requires.",
    "DECL": "Change the case ending (declension) of a word next to a name.",
    "AGR": "Fix gender, number or person agreement of a word that refers to a name.",
    "CONTR": "Fuse, split or change a preposition+article contraction (e.g. de le -> du).",
    "ELIS": "Elide a final vowel before a vowel-initial word or name (e.g. de -> d').",
    "PUNCT": "Fix punctuation or the spacing around punctuation next to a name.",
    "OTHER": "Any other small local fix around a name (casing, diacritics, a doubled word).",
}
MAX_EDITS = 25
#: Bump when the prompt or schema changes: cached LLM proposals are keyed by it.
PROMPT_VERSION = "postedit-v1"

_SPAN = re.compile(r"\{[^{}]*\}")


class EditError(ValueError):
    """An edit that cannot be applied safely; ``reason`` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Edit:
    op: str
    original: str
    fix: str
    #: the rule that made the edit (rule member only; never part of an edit's identity)
    rule: str = field(default="", compare=False)


@dataclass(frozen=True)
class Proposal:
    member: str
    status: str  # "ok" | "rejected" | "error"
    edits: tuple[Edit, ...] = ()
    detail: str | None = None


# -------------------------------------------------------------------------------------------- edits
def spans(text_marked: str) -> list[str]:
    """The ``{...}`` spans of a marked text, braces included, in order."""
    return _SPAN.findall(text_marked)


def _segments(text: str) -> list[tuple[int, int]]:
    """[start, end) of the text outside the ``{...}`` spans (possibly empty segments)."""
    out, pos = [], 0
    for m in _SPAN.finditer(text):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(text)))
    return out


def _find_outside(text: str, original: str) -> int:
    """Offset of the first occurrence of ``original`` lying wholly outside the spans, or -1."""
    if not original:
        return -1
    for a, b in _segments(text):
        i = text.find(original, a, b)
        if i >= 0:
            return i
    return -1


def _coerce(edit: Any) -> Edit:
    if isinstance(edit, Edit):
        return edit
    if isinstance(edit, Mapping):
        return Edit(str(edit.get("op")), str(edit.get("original", "")), str(edit.get("fix", "")))
    op, original, fix = edit
    return Edit(str(op), str(original), str(fix))


def _apply_one(text: str, e: Edit) -> str:
    if e.op not in OPERATIONS:
        raise EditError(f"unknown_op: {e.op!r}")
    if e.op == "NOCHG":
        if e.original or e.fix:
            raise EditError("nochg_not_empty: NOCHG needs original == fix == ''")
        return text
    for part, value in (("original", e.original), ("fix", e.fix)):
        if "{" in value or "}" in value:
            raise EditError(f"brace_in_{part}: {value!r}")
    if not e.original:
        raise EditError("empty_original")
    i = _find_outside(text, e.original)
    if i < 0:
        where = "inside_braces" if e.original in text else "absent"
        raise EditError(f"original_not_found ({where}): {e.original!r}")
    out = text[:i] + e.fix + text[i + len(e.original) :]
    if (
        spans(out) != spans(text)
        or out.count("{") != text.count("{")
        or out.count("}") != text.count("}")
    ):
        raise EditError(f"spans_changed: {e.original!r} -> {e.fix!r}")
    return out


def apply_edits(text_marked: str, edits: Iterable[Any]) -> str:
    """Apply ``edits`` in order (each on the result of the previous ones); raise :class:`EditError`
    on the first one that is not allowed (unknown op, a brace in original/fix, original not found
    outside the spans, NOCHG with text, or any change to the spans)."""
    text = text_marked
    for edit in edits:
        text = _apply_one(text, _coerce(edit))
    return text


# -------------------------------------------------------------------------------------------- rules
_WB = r"(?<![\w'’])"  # start of a word
_FR_ELIDE_BEFORE_NAME = ("de", "que", "le", "la", "ne", "se", "jusque", "lorsque", "puisque")
_FR_ELIDE_BEFORE_WORD = ("de", "que", "jusque", "lorsque", "puisque")
_IT_PREP = {"di": "de", "a": "a", "da": "da", "in": "ne", "su": "su"}
_IT_ART = {
    "il": "l",
    "lo": "llo",
    "la": "lla",
    "i": "i",
    "gli": "gli",
    "le": "lle",
    "l'": "ll'",
    "l’": "ll’",
}
_PT = {
    ("de", "o"): "do",
    ("de", "a"): "da",
    ("de", "os"): "dos",
    ("de", "as"): "das",
    ("em", "o"): "no",
    ("em", "a"): "na",
    ("em", "os"): "nos",
    ("em", "as"): "nas",
    ("a", "o"): "ao",
    ("a", "a"): "à",
    ("a", "os"): "aos",
    ("a", "as"): "às",
    ("por", "o"): "pelo",
    ("por", "a"): "pela",
    ("por", "os"): "pelos",
    ("por", "as"): "pelas",
}
_ES = {("de", "el"): "del", ("a", "el"): "al"}
_FR_CONTR = {("de", "le"): "du", ("de", "les"): "des", ("à", "le"): "au", ("à", "les"): "aux"}
_PUNCT_NO_SPACE_LANGS = ("eng", "ita", "por", "spa", "ron", "deu") + (
    "sqi",
    "tur",
    "vie",
    "rus",
    "bul",
    "ell",
    "urd",
    "kat",
)
#: every target language has rules, English only the punctuation one
RULE_LANGS = ("eng",) + TARGETS
#: the rule label of the Romance and punctuation rules, by operation
_RULE_OF_OP = {"ELIS": "elision", "CONTR": "contraction", "PUNCT": "punctuation"}


def _case_like(src: str, out: str) -> str:
    return out[:1].upper() + out[1:] if src[:1].isupper() else out


def _candidates(lang: str, text: str, nnbsp: bool) -> list[tuple[int, int, str, str]]:
    """(start, end, replacement, op) of every rule match in ``text``; filtered by the caller."""
    out: list[tuple[int, int, str, str]] = []
    if lang == "fra":
        # contraction (but "de le" before a vowel is an elision case: "de l'{Orly}")
        for m in re.finditer(_WB + r"(de|à|De|À) (le|les)(?= )", text):
            nxt = text[m.end() + 1 :]
            if m.group(2) == "le" and french_elides(nxt.lstrip("{")):
                continue
            out.append(
                (
                    m.start(),
                    m.end(),
                    _case_like(m.group(1), _FR_CONTR[(m.group(1).lower(), m.group(2))]),
                    "CONTR",
                )
            )
        # elision before a name: the first letter inside the {...}
        names = "|".join(_FR_ELIDE_BEFORE_NAME)
        for m in re.finditer(_WB + rf"({names}) (?=\{{)", text, re.I):
            if french_elides(text[m.end() + 1 :]):
                out.append((m.start(), m.end(), m.group(1)[:-1] + "'", "ELIS"))
        words = "|".join(_FR_ELIDE_BEFORE_WORD)
        for m in re.finditer(_WB + rf"({words}) (?=[^\s{{])", text, re.I):
            if french_elides(text[m.end() :]):
                out.append((m.start(), m.end(), m.group(1)[:-1] + "'", "ELIS"))
        # punctuation: a space before ? ! ; : (narrow no-break space when missing)
        for m in re.finditer(r"(?<=[^\s\u00a0\u202f])[?!;:]", text):
            i = m.start()
            if text[i] == ":" and (
                text[i + 1 : i + 3] == "//"
                or (text[i - 1 : i].isdigit() and text[i + 1 : i + 2].isdigit())
            ):
                continue
            out.append((i, i + 1, "\u202f" + text[i], "PUNCT"))
        if nnbsp:
            for m in re.finditer(r"(?<=\S)[ \u00a0](?=[?!;:])", text):
                out.append((m.start(), m.end(), "\u202f", "PUNCT"))
    if lang == "ita":
        for m in re.finditer(
            _WB
            + r"(di|a|da|in|su) (il|lo|la|i|gli|le)(?=[\s{])|"
            + _WB
            + r"(di|a|da|in|su) (l['’])",
            text,
            re.I,
        ):
            prep, art = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            if art != art.lower() and art.lower() != "l'":  # "di La Spezia": a name, not an article
                continue
            out.append(
                (
                    m.start(),
                    m.end(),
                    _case_like(prep, _IT_PREP[prep.lower()] + _IT_ART[art.lower()]),
                    "CONTR",
                )
            )
    if lang == "por":
        for m in re.finditer(_WB + r"(de|em|a|por) (o|a|os|as)(?=[\s{])", text, re.I):
            prep, art = m.group(1), m.group(2)
            if art != art.lower():
                continue
            out.append((m.start(), m.end(), _case_like(prep, _PT[(prep.lower(), art)]), "CONTR"))
    if lang == "spa":
        for m in re.finditer(_WB + r"(de|a) (el)(?=[\s{])", text, re.I):
            if m.group(2) != "el":  # "de El Salvador" written outside a span: leave it
                continue
            out.append(
                (
                    m.start(),
                    m.end(),
                    _case_like(m.group(1), _ES[(m.group(1).lower(), "el")]),
                    "CONTR",
                )
            )
    if lang in _PUNCT_NO_SPACE_LANGS:
        for m in re.finditer(r"(?<=\S)[ \u00a0\u202f]+(?=[?!;:\u061f])", text):
            out.append((m.start(), m.end(), "", "PUNCT"))
    return out


#: the word right before a Greek name -> the case of the name's article ("se": σε, contracted with
#: it)
_GR_CONTEXT: dict[str, str] = {
    **dict.fromkeys(("από", "προς", "για", "με"), "acc"),
    "σε": "se",
    # nouns and a pronoun that take the name in the genitive ("τη θέση του X", "κατά μήκος του X")
    **dict.fromkeys(
        (
            "μεταξύ",
            "θέση",
            "κέντρο",
            "κέντρου",
            "μήκος",
            "εκείνο",
            "περίγραμμα",
            "αποτύπωμα",
            "απόσταση",
        ),
        "gen",
    ),
    # verbs whose subject the name is ("Βρίσκεται το X ...", "... περνά ο X;")
    **dict.fromkeys(
        ("βρίσκεται", "βρισκόταν", "είναι", "ήταν", "απέχει", "διασχίζει", "περνά"), "nom"
    ),
    # verbs whose object the name is ("περιέχει το X")
    **dict.fromkeys(
        ("περιέχει", "περιέχουν", "αγγίζει", "αγγίζουν", "χωρίζουν", "δεικτοδοτήστε"), "acc"
    ),
}
#: the case an article already put before the first of two coordinated names stands for
_GR_ARTICLE_CASE = {
    **dict.fromkeys(("ο", "η"), "nom"),
    **dict.fromkeys(("τον", "την", "τη"), "acc"),
    **dict.fromkeys(("του", "της"), "gen"),
    **dict.fromkeys(("στο", "στον", "στην", "στη"), "se"),
}
_GR_WORD_BEFORE = re.compile(r"(?:^|\s)(\w+) $")
_GR_COORDINATED = re.compile(r"(?:^|\s)(\w+) \{[^{}]*\} (?:και|ή) $")
_GR_ARTICLE_WORDS = {"ο", "η", "το", "οι", "τα", "του", "της", "των", "τον", "την", "τη"}
_KAT_SUFFIX = re.compile(r"-(ისთვის|სთვის|ისკენ|სკენ|ისგან|სგან|ისა|ის|ით|თი)(?![\u10a0-\u10ff])")


def _greek_case(before: str) -> tuple[str, int] | None:
    """The case of the article a Greek name needs after the text ``before`` it
    (:data:`_GR_CONTEXT`), and where the context word starts (for σε, which fuses with the article);
    a name coordinated with a preceding name that has an article (``από το {A} και {B}``) takes the
    same case; None otherwise."""
    cm = _GR_COORDINATED.search(before)
    if cm:
        case = _GR_ARTICLE_CASE.get(cm.group(1))
        if (
            case is None and cm.group(1) == "το"
        ):  # nominative or accusative: the word before it says
            wm = _GR_WORD_BEFORE.search(before[: cm.start(1)])
            case = _GR_CONTEXT.get(wm.group(1).lower()) if wm else None
        return None if case is None else (case, len(before))
    wm = _GR_WORD_BEFORE.search(before)
    case = _GR_CONTEXT.get(wm.group(1).lower()) if wm else None
    if case == "gen" and re.search(r"(?:^|\s)[Μμ]ε $", before[: wm.start(1)]):
        case = "acc"  # "με κέντρο το X": centred at X, not the centre of X
    return None if case is None else (case, wm.start(1))


def _greek_candidates(text: str, classes: Sequence[str | None]) -> list[tuple]:
    """Greek articles before names (:func:`names_in_context.greek_article`) by the gender of the
    entity's class noun and the case the word before the name asks for (:data:`_GR_CONTEXT`):
    inserted (``ART_ADD``), or fused with σε (``στο``, ``CONTR``); the second of two coordinated
    names takes the same case."""
    out = []
    for i, m in enumerate(_SPAN.finditer(text)):
        gender = nic.GREEK_GENDER.get(classes[i]) if i < len(classes) and classes[i] else None
        name = m.group(0)[1:-1]
        if gender is None or name.split(" ")[0] in _GR_ARTICLE_WORDS:
            continue
        found = _greek_case(text[: m.start()])
        if found is None:
            continue
        case, at = found
        if case == "se" and at < m.start():  # "σε {X}" -> "στο {X}"
            word = text[at : m.start() - 1]
            art = _case_like(word, nic.greek_article(gender, "acc", name, with_se=True))
            out.append((at, m.start(), art + " ", "CONTR", "ell:article"))
        else:  # an inserted article (a coordinated name after "στο {A} και" repeats σε)
            art = nic.greek_article(
                gender, "acc" if case == "se" else case, name, with_se=case == "se"
            )
            out.append((m.start(), m.start(), art + " ", "ART_ADD", "ell:article"))
    return out


_TR_FRAME = re.compile(r"\{([^{}]*)\}( (?:konum|nesne)\w*)(?!\w)")
#: the text before a frame shared by two names: "hem {A} hem de " (both named, possibly A already
#: with its suffix) or "{A} ve " / "ile" / "veya" / "ya da" (the last name carries the case for
#: both)
_TR_HEM = re.compile(r"(?:^|\s)[Hh]em (\{[^{}]*\})('\w+)? hem de $")
_TR_AND = re.compile(r"\{[^{}]*\} ,?(?:ve|ile|veya|ya da) $")


def _turkish_candidates(text: str, classes: Sequence[str | None]) -> list[tuple]:
    """Turkish frames "{X} konumuna" / "{X} nesnesini" (:data:`names_in_context.TURKISH_FRAMES`)
    replaced by the case suffix after an apostrophe where the name's end decides it (``{X}'ya``,
    ``tur:case_suffix``), else by the class noun carrying the case (``{X} adlı köye``,
    ``tur:named_frame``). A frame shared by two names: "hem {A} hem de {B} konumunu" takes a suffix
    on each name when both decide, else ``adlı yerleri``; "{A} ve {B} konumlarının" takes the suffix
    on the last name (``{A} ve {B}'nin``), else ``adlı yerlerin``."""
    out: list[tuple] = []
    starts = [m.start() for m in _SPAN.finditer(text)]
    for m in _TR_FRAME.finditer(text):
        case = nic.TURKISH_FRAMES.get(m.group(2).strip())
        if case is None:
            continue
        before = text[: m.start()]
        i = starts.index(m.start())
        cls = classes[i] if i < len(classes) else None
        suffix = nic.turkish_suffix(m.group(1), case)
        hem, shared = _TR_HEM.search(before), _TR_AND.search(before)
        if hem:
            first = hem.group(1)[1:-1]
            first_suffix = hem.group(2) or nic.turkish_suffix(first, case)
            if suffix and first_suffix and not hem.group(2):
                at = hem.start(1) + len(hem.group(1))
                out.append((at, at, first_suffix, "DECL", "tur:case_suffix"))
            elif suffix and first_suffix:
                out.append((m.start(2), m.end(2), suffix, "DECL", "tur:case_suffix"))
            elif not hem.group(2):
                named = " " + nic.turkish_named(None, case, plural=True)
                out.append((m.start(2), m.end(2), named, "OTHER", "tur:named_frame"))
        elif suffix:
            out.append((m.start(2), m.end(2), suffix, "DECL", "tur:case_suffix"))
        else:
            named = " " + nic.turkish_named(cls, case, plural=bool(shared))
            out.append((m.start(2), m.end(2), named, "OTHER", "tur:named_frame"))
    return out


_GR_GENDER_OF_ARTICLE = {"ο": "m", "η": "f", "το": "n"}
#: "Είναι ο {X} ... <adjective>" / "Είναι ο {A} και η {B} ... ξένα": a name as the subject of είναι,
#: with its article (put there by ``ell:article``), and a predicate adjective before the end of the
#: clause
_GR_PREDICATE = re.compile(
    r"(?:^|\s)[Εε]ίναι (ο|η|το) \{[^{}]*\}(?: και (ο|η|το) \{[^{}]*\})?[^;{}]*? ("
    + "|".join(nic.GREEK_PREDICATES)
    + r")(?!\w)"
)


def _greek_predicate_candidates(text: str) -> list[tuple]:
    """A Greek predicate adjective (written neuter in the templates) made to agree with the gender
    of the name it is said of, read from the name's article
    (:func:`names_in_context.greek_predicate`)."""
    out = []
    for m in _GR_PREDICATE.finditer(text):
        genders = [_GR_GENDER_OF_ARTICLE[a] for a in m.group(1, 2) if a]
        form = nic.greek_predicate(m.group(3), genders)
        if form:
            out.append((m.start(3), m.end(3), form, "AGR", "ell:predicate_agreement"))
    return out


def _name_candidates(lang: str, text: str, classes: Sequence[str | None]) -> list[tuple]:
    """(start, end, replacement, op, rule) of the names-in-context rules
    (:mod:`mgqa_platform.multilingual.names_in_context`) in ``text``; a match may be empty (an
    insertion)."""
    out: list[tuple] = []
    if lang == "tur":
        out += _turkish_candidates(text, classes)
    if lang == "kat":
        for m in re.finditer(r"\{([^{}]*)\}", text):
            sm = _KAT_SUFFIX.match(text, m.end())
            form = nic.georgian_suffix(m.group(1), sm.group(1)) if sm else None
            if form and form != sm.group(1):
                out.append((sm.start(1), sm.end(1), form, "DECL", "kat:genitive_suffix"))
    if lang == "ell":
        out += _greek_candidates(text, classes)
        out += _greek_predicate_candidates(text)
    if lang in ("rus", "bul"):
        for m in re.finditer(r"(?<![\w])(в|с|к|В|С|К) \{([^{}]*)\}", text):
            form = nic.cyrillic_preposition(lang, m.group(1), m.group(2))
            if form:
                out.append((m.start(1), m.end(1), form, "ADP_CHG", f"{lang}:preposition"))
    if lang in ("jpn", "zho"):
        for m in re.finditer(r"[ \u3000]*([?!])", text):
            full = {"?": "\uff1f", "!": "\uff01"}[m.group(1)]
            out.append((m.start(), m.end(), full, "PUNCT", f"{lang}:fullwidth_punctuation"))
    for m in re.finditer(r"(?<=\S)  +(?=\S)", text):
        out.append((m.start(), m.end(), " ", "OTHER", "double_space"))
    return out


def _anchored_edit(
    text: str, start: int, end: int, repl: str, op: str, rule: str = ""
) -> Edit | None:
    """An :class:`Edit` replacing text[start:end] by ``repl`` whose ``original`` is first found
    (outside the spans) exactly at ``start``-ish: grow the context word by word to the left, then to
    the right, within the segment, until the first occurrence is the intended one."""
    seg = next(((a, b) for a, b in _segments(text) if a <= start and end <= b), None)
    if seg is None:
        return None
    s0, s1 = seg
    a, b = start, end
    while True:
        original = text[a:b]
        if original and _find_outside(text, original) == a:
            return Edit(op, original, text[a:start] + repl + text[end:b], rule)
        if a > s0:  # one more word (and the whitespace before it) to the left
            k = a
            while k > s0 and text[k - 1].isspace():
                k -= 1
            while k > s0 and not text[k - 1].isspace():
                k -= 1
            a = k if k < a else a - 1
        elif b < s1:
            k = b
            while k < s1 and text[k].isspace():
                k += 1
            while k < s1 and not text[k].isspace():
                k += 1
            b = k if k > b else b + 1
        else:
            return None


def _all_candidates(
    lang: str, text: str, nnbsp: bool, classes: Sequence[str | None]
) -> list[tuple[int, int, str, str, str]]:
    """(start, end, replacement, op, rule) of every rule match in ``text`` lying wholly outside the
    spans."""
    found = [
        (a, b, repl, op, f"{lang}:{_RULE_OF_OP[op]}")
        for a, b, repl, op in _candidates(lang, text, nnbsp)
    ]
    if lang in TARGETS:
        found += _name_candidates(lang, text, classes)
    segs = _segments(text)
    return [c for c in found if any(a <= c[0] and c[1] <= b for a, b in segs)]


class RuleMember:
    """Deterministic member: per-language rules (see module docstring and
    :mod:`mgqa_platform.multilingual.names_in_context`). A question may carry ``classes``: the
    category of the entity behind each ``{...}`` span (:func:`names_in_context.span_classes`), which
    the Greek article needs. Each edit names its rule (``Edit.rule``, e.g. ``tur:case_suffix``).
    ``nnbsp=True`` also turns an ordinary space before French ``? ! ; :`` into U+202F (off by
    default: the localized templates use a plain space)."""

    def __init__(self, name: str = "rules", *, nnbsp: bool = False, max_edits: int = MAX_EDITS):
        self.name = name
        self.nnbsp = nnbsp
        self.max_edits = max_edits

    def describe(self) -> dict:
        return {"kind": "rules", "languages": list(RULE_LANGS), "nnbsp": self.nnbsp}

    def propose(self, question: Mapping) -> Proposal:
        lang = str(question.get("lang") or "")
        text = str(question.get("text_marked") or "")
        classes = list(question.get("classes") or [])
        edits: list[Edit] = []
        cands: list = []
        if lang in RULE_LANGS:
            for _ in range(self.max_edits):
                cands = _all_candidates(lang, text, self.nnbsp, classes)
                made = None
                for start, end, repl, op, rule in sorted(cands):
                    e = _anchored_edit(text, start, end, repl, op, rule)
                    if e is not None:
                        made = e
                        break
                if made is None:
                    break
                try:
                    text = apply_edits(text, [made])
                except EditError:  # defensive: never propose what the gate refuses
                    break
                edits.append(made)
                cands = []
        # a match whose context also occurs earlier outside the spans cannot be addressed by a
        # first-occurrence edit (e.g. "... long de la ... sépare {A} de {Orly}"): it is reported,
        # not proposed
        detail = f"unanchored: {len(cands)}" if cands else None
        return Proposal(self.name, "ok", tuple(edits), detail)


# ---------------------------------------------------------------------------------------------- LLM
EDITS_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "edits": {
            "type": "array",
            "maxItems": MAX_EDITS,
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": list(OPERATIONS)},
                    "original": {"type": "string"},
                    "fix": {"type": "string"},
                },
                "required": ["op", "original", "fix"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["edits"],
    "additionalProperties": False,
}

_SYSTEM = """\
You proofread questions of a geospatial benchmark after place and event names were inserted into \
a translated template. The names are wrapped in curly braces, e.g. {Orly}. Inserting a name can \
leave small \
grammatical slips in the words right next to it: a missing elision, a preposition and article that \
should be \
fused, an article or preposition that no longer fits, a wrong case ending or agreement, wrong \
spacing before \
punctuation.

Rules:
- Everything between { and } is a proper name: never change, translate, move or remove it, and \
never add or \
remove a brace.
- Only fix slips caused by the inserted names, in the words around them. Do not rephrase, restyle \
or \
translate anything else.
- Describe each fix as an edit: "original" is an exact piece of the question outside the braces \
(it may end \
right before "{" or start right after "}"), "fix" is its replacement; the first occurrence of \
"original" \
outside the braces is the one replaced, so include enough neighbouring words to make it \
unambiguous. Neither \
"original" nor "fix" may contain a brace.
- If the question is already correct, answer {"edits": []} (or a single NOCHG edit with empty \
original and fix).
- Answer with JSON only: {"edits": [{"op": ..., "original": ..., "fix": ...}]}, at most 25 edits.

Operations:
"""


def build_messages(question: Mapping) -> list[dict]:
    """The chat messages for one question (system: role, operations, brace rule; user: language,
    templates, the instantiated question)."""
    ops = "\n".join(f"- {code}: {desc}" for code, desc in OPERATIONS.items())
    lang = str(question.get("lang") or "")
    name = language(lang).name if lang in LANGUAGES else lang
    user = [f"Language: {name} ({lang})"]
    english = question.get("template_en") or question.get("english_template")
    if english:
        user.append(f"English template: {english}")
    if question.get("template_text"):
        user.append(f"{name} template: {question['template_text']}")
    user.append(f"Instantiated question: {question.get('text_marked', '')}")
    user.append("List the edits as JSON.")
    return [
        {"role": "system", "content": _SYSTEM + ops},
        {"role": "user", "content": "\n".join(user)},
    ]


class LLMMember:
    """A member backed by an OpenAI-compatible endpoint. A reply that is not valid JSON for
    :data:`EDITS_SCHEMA`, or whose edits :func:`apply_edits` refuses, gives a ``rejected`` proposal
    (with the reason in ``detail``); a transport failure an ``error`` proposal."""

    def __init__(self, name: str, client: ChatClient):
        self.name = name
        self.client = client

    def describe(self) -> dict:
        """Endpoint, model and sampling settings (never the API key)."""
        return {"kind": "llm", "prompt": PROMPT_VERSION, **self.client.describe()}

    def propose(self, question: Mapping) -> Proposal:
        try:
            obj, _res = self.client.complete_json(
                build_messages(question), EDITS_SCHEMA, schema_name="edits"
            )
        except ReplyError as exc:
            return Proposal(self.name, "rejected", (), f"{exc.reason}: {exc.detail}"[:300])
        except TransportError as exc:
            return Proposal(self.name, "error", (), str(exc)[:300])
        except LLMError as exc:  # pragma: no cover - any other client failure
            return Proposal(self.name, "error", (), str(exc)[:300])
        edits = tuple(Edit(e["op"], e["original"], e["fix"]) for e in obj["edits"])
        try:
            apply_edits(str(question.get("text_marked") or ""), edits)
        except EditError as exc:
            return Proposal(self.name, "rejected", edits, f"edit_error: {exc.reason}"[:300])
        return Proposal(self.name, "ok", edits, None)


# --------------------------------------------------------------------------------------------- vote
def _effective(e: Edit) -> bool:
    return e.op != "NOCHG" and e.original != e.fix


def _key(e: Edit, text_marked: str | None) -> tuple:
    if text_marked is not None:
        try:
            return ("effect", apply_edits(text_marked, [e]))
        except EditError:
            pass
    return ("pair", e.original, e.fix)


def _position(e: Edit, text_marked: str | None) -> int:
    if text_marked is None:
        return 0
    i = _find_outside(text_marked, e.original)
    return i if i >= 0 else len(text_marked)


def vote(
    proposals: Mapping[str, Proposal], primary: str, text_marked: str | None = None
) -> tuple[tuple[Edit, ...], str]:
    """Edits with >= 2 votes among the ``ok`` proposals (decision ``"majority"``, ordered by
    position in the text when ``text_marked`` is given, else by first proposal); otherwise the
    primary's edits when its proposal is ok and has at least one real edit (``"primary_fallback"``);
    otherwise ``((), "none")``."""
    voters: dict[tuple, set[str]] = defaultdict(set)
    first: dict[tuple, Edit] = {}
    order: list[tuple] = []
    names = [primary] + [n for n in proposals if n != primary]  # the primary's wording wins ties
    for name in names:
        p = proposals.get(name)
        if p is None or p.status != "ok":
            continue
        for e in p.edits:
            if not _effective(e):
                continue
            k = _key(e, text_marked)
            if k not in first:
                first[k] = e
                order.append(k)
            voters[k].add(name)
    agreed = [k for k in order if len(voters[k]) >= 2]
    if agreed:
        edits = [first[k] for k in agreed]
        if text_marked is not None:
            edits.sort(key=lambda e: _position(e, text_marked))
        return tuple(edits), "majority"
    p = proposals.get(primary)
    if p is not None and p.status == "ok":
        edits = tuple(e for e in p.edits if _effective(e))
        if edits:
            return edits, "primary_fallback"
    return (), "none"


def postedit(question: Mapping, members: Sequence[Any], primary: str) -> dict:
    """Run every member on ``question`` (keys ``lang``, ``text_marked``, optional ``template_text``,
    ``template_en``, ``question_id``), vote, apply. Returns ``{"question_id", "lang", "text",
    "text_marked", "edits" (every member's proposed edit with ``applied``), "decision", "members"
    ({name: {status, detail, n_edits}})}``. Never raises because of a member."""
    original = str(question.get("text_marked") or "")
    proposals: dict[str, Proposal] = {}
    for m in members:
        name = getattr(m, "name", type(m).__name__)
        try:
            p = m.propose(question)
        except Exception as exc:
            p = Proposal(name, "error", (), f"{type(exc).__name__}: {exc}"[:300])
        proposals[name] = p
    chosen, decision = vote(proposals, primary, original)
    text = original
    applied_keys = set()
    applied: list[dict] = []
    for e in chosen:
        try:
            new = apply_edits(text, [e])
        except EditError:  # overlaps an earlier applied edit
            continue
        applied_keys.add(_key(e, original))
        applied.append(
            {"op": e.op, "original": e.original, "fix": e.fix}
            | ({"rule": e.rule} if e.rule else {})
        )
        text = new
    if not applied:
        decision = "none"
    log = []
    for name, p in proposals.items():
        for e in p.edits:
            log.append(
                {
                    "member": name,
                    "op": e.op,
                    "original": e.original,
                    "fix": e.fix,
                    "applied": p.status == "ok"
                    and _effective(e)
                    and _key(e, original) in applied_keys,
                }
            )
    return {
        "question_id": question.get("question_id"),
        "lang": question.get("lang"),
        "text": unmark(text),
        "text_marked": text,
        "edits": log,
        "applied": applied,
        "decision": decision,
        "members": {
            n: {"status": p.status, "detail": p.detail, "n_edits": len(p.edits)}
            for n, p in proposals.items()
        },
    }


def stats(results: Sequence[Mapping]) -> dict:
    """Batch summary: ``n``, ``share_edited`` (at least one edit applied), ``share_majority`` (the
    applied edits had >= 2 members agreeing), ``decisions`` (count per decision), ``operations``
    (histogram of the applied edits' ops, one per distinct applied edit), ``proposed_operations``
    (every logged edit), ``rejected`` / ``errors`` (replies per member), ``operation_shares`` (share
    of questions with at least one applied edit of each op) and ``rule_shares`` (share of questions
    with at least one applied edit made by each rule of the rule member, :attr:`Edit.rule`)."""
    n = len(results)
    edited = majority = 0
    decisions: Counter = Counter()
    ops: Counter = Counter()
    proposed: Counter = Counter()
    rejected: Counter = Counter()
    errors: Counter = Counter()
    op_rows: Counter = Counter()
    rule_rows: Counter = Counter()
    for r in results:
        decisions[r.get("decision")] += 1
        for e in r.get("edits", []):
            if e.get("op") != "NOCHG":
                proposed[e["op"]] += 1
        applied = r.get("applied")
        if applied is None:  # a result without the "applied" list: distinct applied log entries
            applied = list(
                {
                    (e["op"], e["original"], e["fix"]): e
                    for e in r.get("edits", [])
                    if e.get("applied")
                }.values()
            )
        for e in applied:
            ops[e["op"]] += 1
        op_rows.update({e["op"] for e in applied})
        rule_rows.update({e["rule"] for e in applied if e.get("rule")})
        if applied:
            edited += 1
            if r.get("decision") == "majority":
                majority += 1
        for name, m in (r.get("members") or {}).items():
            rejected[name] += m.get("status") == "rejected"
            errors[name] += m.get("status") == "error"
    return {
        "n": n,
        "share_edited": edited / n if n else 0.0,
        "share_majority": majority / n if n else 0.0,
        "decisions": dict(decisions),
        "operations": dict(ops),
        "proposed_operations": dict(proposed),
        "rejected": dict(rejected),
        "errors": dict(errors),
        "operation_shares": {k: v / n for k, v in sorted(op_rows.items())},
        "rule_shares": {k: v / n for k, v in sorted(rule_rows.items())},
    }


def describe(member: Any) -> dict:
    """What a member is, for metadata: its own ``describe()`` when it has one, else its class
    name."""
    d = getattr(member, "describe", None)
    return dict(d()) if callable(d) else {"kind": type(member).__name__}


# -------------------------------------------------------------------------------------------- cache
class CachedMember:
    """Wraps a member so that its proposals survive an interrupted run: every ``ok`` or ``rejected``
    proposal is appended (one JSON line, flushed) to ``path`` under a key of (member name,
    ``identity``, language, marked text, template); a later run reuses it instead of asking again.
    ``error`` proposals (transport failures) are not cached, so they are retried. ``identity``
    should change whenever the member would answer differently (e.g. the model name and prompt
    version)."""

    def __init__(self, member: Any, path: str | Path, identity: str = ""):
        self.member = member
        self.name = getattr(member, "name", type(member).__name__)
        self.path = Path(path)
        self.identity = identity
        self._lock = threading.Lock()
        self._seen: dict[str, Proposal] = {}
        self.hits = 0
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    d = json.loads(line)
                    self._seen[d["key"]] = Proposal(
                        self.name, d["status"], tuple(Edit(*e) for e in d["edits"]), d.get("detail")
                    )
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut by an interruption: that question is asked again

    def describe(self) -> dict:
        return {**describe(self.member), "cache": self.path.name, "cache_hits": self.hits}

    def key(self, question: Mapping) -> str:
        parts = [
            self.name,
            self.identity,
            str(question.get("lang") or ""),
            str(question.get("text_marked") or ""),
            str(question.get("template_text") or ""),
            str(question.get("template_en") or ""),
        ]
        return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()

    def propose(self, question: Mapping) -> Proposal:
        k = self.key(question)
        with self._lock:
            if k in self._seen:
                self.hits += 1
                return self._seen[k]
        p = self.member.propose(question)
        if p.status in ("ok", "rejected"):
            line = json.dumps(
                {
                    "key": k,
                    "status": p.status,
                    "edits": [[e.op, e.original, e.fix] for e in p.edits],
                    "detail": p.detail,
                },
                ensure_ascii=False,
            )
            with self._lock:
                self._seen[k] = p
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as f:
                    f.write(line + "\n")
        return p
