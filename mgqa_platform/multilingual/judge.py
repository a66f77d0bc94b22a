"""The post-edit judge: it picks one of two human corrections where the resolution rules cannot.

Plain Python, no Dagster. :class:`LLMJudge` asks any OpenAI-compatible endpoint;
:class:`OfflineJudge` is its deterministic twin without network. Both only *choose* between the two
anonymous candidates (a :class:`JudgeChoice`); the final text is always looked up from the chosen
annotator by :func:`mgqa_platform.multilingual.resolution.resolve`, never taken from the judge's
reply.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from mgqa_platform.languages import language
from mgqa_platform.multilingual.agreement import chrf
from mgqa_platform.multilingual.annotations import norm
from mgqa_platform.multilingual.placeholders import problems as slot_problems

__all__ = [
    "JudgeChoice",
    "JudgeError",
    "Judge",
    "LLMJudge",
    "OfflineJudge",
    "JUDGE_SCHEMA",
    "DEFAULT_LANGUAGE_NOTES",
]


@dataclass(frozen=True)
class JudgeChoice:
    choice: str  #: "first" (annotator 1), "second" (annotator 2) or "equivalent"
    rationale: str
    order: tuple[str, str] = ("first", "second")  #: which candidate was shown as A and which as B


class JudgeError(Exception):
    """The judge's reply could not be used (not JSON, schema violation...); ``reason``: a code."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class Judge(Protocol):
    def choose(
        self, lang: str, english: str, mt: str, first: str, second: str, key: str
    ) -> JudgeChoice: ...


#: The judge's reply: a choice and a one-sentence rationale, nothing else (no text field sneaks in).
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
You arbitrate between two human post-edits of a machine-translated question template \
({language_name}).
Each template is an English geographic question with slots in curly braces such as {{entity_A}}; \
the slots are \
filled with place names later, so they must never be translated or altered.
Two bilingual reviewers each judged the machine translation wrong or improvable and wrote a \
corrected version. \
You receive the English template, the machine translation, and the two corrections labelled A and \
B (the order is \
random and says nothing about quality). Pick the better correction, or say they are equally good.

Go through these tests in order and stop at the first one that separates the candidates:
1. Slots: every slot of the English template appears as often as in the English and spelled \
exactly the same \
(the order may change). A candidate that drops, renames, duplicates, merges or splits a slot loses.
2. Meaning: the spatial relation, the quantity or unit asked for, and the kind of question \
(yes/no, which, how \
many, where...) match the English.
3. Grammar: agreement, case, verb forms and word order are valid {language_name}.
4. Terminology: established domain words (e.g. centroid, bounding box, geodesic distance) beat \
loose paraphrases.
5. Naturalness: the wording a native speaker would use for a neutral factual question.

Never decide on: gender or case endings that depend on which place fills a slot (fixed later per \
question); \
whitespace or trivial punctuation; which candidate is longer or shorter; formal versus informal \
address, as long \
as the candidate is consistent.
{notes}
Reply with one JSON object and nothing else: {{"choice": "A" | "B" | "equivalent", "rationale": \
"<one sentence \
naming the test that decided>"}}. Never rewrite or propose a translation yourself.\
"""

#: Short per-language reminders added to the system prompt (our wording; extend as needed).
DEFAULT_LANGUAGE_NOTES: dict[str, str] = {
    "ron": "Romanian: s/t with comma below (ș, ț) and with cedilla (ş, ţ) are spelling variants "
    "of the same "
    "letters; do not prefer a candidate for that alone.",
    "deu": "German: noun capitalisation is required; ß versus ss alone does not decide.",
    "tur": "Turkish: case suffixes after a slot are written with an apostrophe and vary with the "
    "place name; "
    "do not penalise a generic suffix choice.",
    "jpn": "Japanese: full-width versus half-width punctuation alone does not decide.",
    "zho": "Chinese (Simplified): full-width versus half-width punctuation alone does not "
    "decide; traditional "
    "characters are wrong.",
    "urd": "Urdu: right-to-left text; the Urdu question mark (؟) and the Latin one (?) alone do "
    "not decide.",
}


def _order_for(seed: int, key: str) -> tuple[str, str]:
    """Stable, seeded presentation order for one item: ("first", "second") or the reverse."""
    h = hashlib.sha256(f"mgqa-postedit-judge:{seed}:{key}".encode()).digest()
    return ("second", "first") if h[0] & 1 else ("first", "second")


class LLMJudge:
    """The judge on an OpenAI-compatible endpoint (:class:`mgqa_platform.llm.ChatClient`).

    The two candidates are shown in a seeded random order per item key (stable across runs and
    processes); the reply must satisfy :data:`JUDGE_SCHEMA` exactly (strict JSON,
    ``additionalProperties: false``). "A"/"B" are mapped back to "first"/"second". A reply that
    fails parsing or validation raises :class:`JudgeError` (counted in ``errors``); transport
    failures (:class:`mgqa_platform.llm.TransportError`) propagate, so an outage fails the run
    instead of flagging every item."""

    def __init__(self, client: Any, seed: int = 0, language_notes: Mapping[str, str] | None = None):
        self.client = client
        self.seed = seed
        self.language_notes = dict(
            DEFAULT_LANGUAGE_NOTES if language_notes is None else language_notes
        )
        self.calls = 0
        self.errors = 0
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}

    def order(self, key: str) -> tuple[str, str]:
        return _order_for(self.seed, key)

    def messages(self, lang: str, english: str, mt: str, a: str, b: str) -> list[dict]:
        name = language(lang).name
        note = self.language_notes.get(lang)
        system = _SYSTEM_PROMPT.format(
            language_name=name, notes=f"\nLanguage notes. {note}\n" if note else ""
        )
        user = json.dumps(
            {"english_template": english, "machine_translation": mt, "A": a, "B": b},
            ensure_ascii=False,
            indent=1,
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def choose(
        self, lang: str, english: str, mt: str, first: str, second: str, key: str
    ) -> JudgeChoice:
        from mgqa_platform.llm import ReplyError  # local: keeps import of this module light

        order = self.order(key)
        cand = {"first": first, "second": second}
        msgs = self.messages(lang, english, mt, cand[order[0]], cand[order[1]])
        self.calls += 1
        try:
            obj, res = self.client.complete_json(
                msgs, JUDGE_SCHEMA, schema_name="postedit_judgment"
            )
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
        return {
            "judge": "llm",
            "seed": self.seed,
            "calls": self.calls,
            "errors": self.errors,
            "usage": dict(self.usage),
            "client": desc,
        }


class OfflineJudge:
    """The offline twin (docs/multilingual.md): a deterministic rule, no network.

    1. placeholder integrity: if exactly one candidate keeps the English slots, it wins;
    2. the smaller edit: the candidate with the higher sentence chrF against the MT wins;
    3. annotator order: annotator 1 ("first").
    The rationale names the rule that decided. It never answers "equivalent"."""

    def __init__(self) -> None:
        self.calls = 0
        self.errors = 0

    def choose(
        self, lang: str, english: str, mt: str, first: str, second: str, key: str
    ) -> JudgeChoice:
        self.calls += 1
        ok1, ok2 = not slot_problems(english, first), not slot_problems(english, second)
        if ok1 != ok2:
            return JudgeChoice(
                "first" if ok1 else "second",
                "placeholder integrity: only this candidate keeps every template slot intact.",
            )
        c1, c2 = chrf([first], [mt]), chrf([second], [mt])
        if abs(c1 - c2) > 1e-9:
            return JudgeChoice(
                "first" if c1 > c2 else "second",
                f"smaller edit: chrF to the MT {max(c1, c2):.1f} against {min(c1, c2):.1f}.",
            )
        return JudgeChoice("first", "annotator order: the candidates tie on slots and edit size.")

    def describe(self) -> dict:
        return {"judge": "offline", "calls": self.calls, "errors": self.errors}
