"""What a model must reply for one question: the reply JSON Schema and strict reply parsing.

The reply object is ``{"answer": <answer of the question's format> | null, "premise_rejected":
bool}`` (tier T2 adds a leading ``"reasoning"`` string). Every schema here is *strict-mode
compatible* (OpenAI structured outputs): every object lists all its properties as required and sets
``additionalProperties: false``; optional values are expressed as ``anyOf [..., {"type": "null"}]``.

Answer schemas follow the canonical keys of :mod:`mgqa_platform.questions.formats`, except that the
entity formats (``entity_name``, ``set``) ask for names only (``{"names": [...]}``, which
``formats.score`` accepts) and ``predefined`` asks for ``{"value": <one of the options>}`` only.

Question records may come straight from DuckDB/parquet, where ``gold``, ``parameters``,
``gold_triples`` and ``entity_subjects`` are JSON strings; :func:`field` decodes them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from mgqa_platform.questions import formats

__all__ = [
    "Parsed",
    "reply_schema",
    "answer_schema",
    "agent_step_schema",
    "parse_reply",
    "predefined_options",
    "field",
    "answer_example",
    "STATUSES",
]

STATUSES = ("answered", "refused", "format_error")
_DATE_PATTERN = r"^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$"
_JSON_FIELDS = {
    "gold": None,
    "parameters": {},
    "gold_triples": [],
    "entity_subjects": {},
    "bindings": {},
}


def field(question: Mapping, key: str, default: Any = None) -> Any:
    """``question[key]`` with JSON-string columns decoded and NaN/None turned into ``default``."""
    v = question.get(key) if isinstance(question, Mapping) else None
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return _JSON_FIELDS.get(key, default) if default is None else default
    if key in _JSON_FIELDS and isinstance(v, (str, bytes)):
        try:
            return json.loads(v)
        except ValueError:
            return _JSON_FIELDS[key] if default is None else default
    return v


def _obj(props: dict) -> dict:
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def _num() -> dict:
    return {"type": "number"}


def _cell(systems: list[str]) -> dict:
    return _obj(
        {
            "system": {"type": "string", "enum": systems},
            "cell": {"type": "string"},
            "resolution": {"type": "integer"},
        }
    )


@cache
def _catalog_options(sub_template_id: str) -> tuple[str, ...] | None:
    try:
        from mgqa_platform.questions.catalog import default_catalog

        conv = default_catalog().sub_template(sub_template_id).conventions
    except Exception:  # unknown id, catalog not loadable: fall back
        return None
    labels = conv.get("sector_labels") or formats.OPTION_SETS.get(conv.get("options"))
    return tuple(labels) if labels else None


def predefined_options(question: Mapping) -> list[str]:
    """The option labels of a ``predefined`` question: the gold's ``options``; for a false-premise
    gold (``{"rejected": true}``) the sub-template's ``conventions`` in the catalog
    (``sector_labels`` or an :data:`formats.OPTION_SETS` key); failing both, every label of every
    option set (deduplicated, in order)."""
    gold = field(question, "gold")
    if isinstance(gold, Mapping) and isinstance(gold.get("options"), list) and gold["options"]:
        return [str(o) for o in gold["options"]]
    sub = question.get("sub_template_id")
    found = _catalog_options(sub) if isinstance(sub, str) and sub else None
    if found:
        return list(found)
    seen: dict[str, None] = {}
    for labels in formats.OPTION_SETS.values():
        seen.update(dict.fromkeys(labels))
    return list(seen)


def answer_schema(question: Mapping) -> dict:
    """JSON Schema of a non-null answer for the question's ``answer_format``."""
    fmt = question.get("answer_format")
    if fmt not in formats.FORMATS:
        raise ValueError(f"unknown answer_format {fmt!r}")
    if fmt == "boolean":
        return _obj(
            {"value": {"anyOf": [{"type": "boolean"}, {"type": "string", "enum": ["plausibly"]}]}}
        )
    if fmt in ("entity_name", "set"):
        return _obj({"names": {"type": "array", "items": {"type": "string"}}})
    if fmt == "predefined":
        return _obj({"value": {"type": "string", "enum": predefined_options(question)}})
    if fmt == "grid_cell":
        return _cell(["h3", "s2"])
    if fmt == "geohash":
        return _obj({"geohash": {"type": "string"}, "precision": {"type": "integer"}})
    if fmt == "composite_cell":
        return _obj({"h3": _cell(["h3"]), "s2": _cell(["s2"])})
    if fmt in ("distance", "area"):
        return _obj(
            {
                "value": _num(),
                "unit": {"type": "string", "enum": [formats.FORMAT_INFO[fmt]["unit"]]},
            }
        )
    if fmt == "count":
        return _obj({"value": {"type": "integer"}})
    if fmt == "ratio":
        return _obj({"value": _num()})
    if fmt == "point":
        return _obj({"lon": _num(), "lat": _num()})
    if fmt == "polar":
        return _obj({"angle_deg": _num(), "distance_km": _num()})
    if fmt == "bbox":
        return _obj({"min_lon": _num(), "min_lat": _num(), "max_lon": _num(), "max_lat": _num()})
    return _obj(
        {
            "value": {"type": "string", "pattern": _DATE_PATTERN},  # date
            "precision": {"type": "string", "enum": ["day", "month", "year"]},
        }
    )


def reply_schema(question: Mapping, *, reasoning: bool = False) -> dict:
    """Strict JSON Schema of the reply object ``{"answer": <format schema> | null,
    "premise_rejected": bool}``; with ``reasoning`` (tier T2) a required ``"reasoning"`` string
    comes first."""
    props: dict[str, Any] = {"reasoning": {"type": "string"}} if reasoning else {}
    props["answer"] = {"anyOf": [answer_schema(question), {"type": "null"}]}
    props["premise_rejected"] = {"type": "boolean"}
    return _obj(props)


def agent_step_schema(question: Mapping) -> dict:
    """Strict JSON Schema of one agent step: ``{"thought": str, "code": str | null,
    "final_answer": <reply object> | null}``."""
    return _obj(
        {
            "thought": {"type": "string"},
            "code": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "final_answer": {"anyOf": [reply_schema(question), {"type": "null"}]},
        }
    )


_EXAMPLES = {
    "boolean": '{"value": true}',
    "entity_name": '{"names": ["<entity name>"]}',
    "set": '{"names": ["<entity name>", "<entity name>"]}',
    "grid_cell": '{"system": "h3", "cell": "<hex index or S2 token>", "resolution": <integer>}',
    "geohash": '{"geohash": "<geohash>", "precision": <number of characters>}',
    "composite_cell": (
        '{"h3": {"system": "h3", "cell": "<hex index>", "resolution": <integer>}, '
        '"s2": {"system": "s2", "cell": "<token>", "resolution": <level>}}'
    ),
    "distance": '{"value": <number>, "unit": "km"}',
    "area": '{"value": <number>, "unit": "km2"}',
    "count": '{"value": <integer>}',
    "ratio": '{"value": <number>}',
    "point": '{"lon": <longitude>, "lat": <latitude>}',
    "polar": '{"angle_deg": <bearing>, "distance_km": <number>}',
    "bbox": '{"min_lon": <number>, "min_lat": <number>, "max_lon": <number>, "max_lat": <number>}',
    "date": '{"value": "YYYY-MM-DD", "precision": "day"}',
}


def answer_example(question: Mapping) -> str:
    """A one-line example of a non-null answer for the question's format (placeholders in angle
    brackets)."""
    fmt = question.get("answer_format")
    if fmt == "predefined":
        return json.dumps({"value": "|".join(predefined_options(question))}, ensure_ascii=False)
    return _EXAMPLES[fmt]


@dataclass(frozen=True)
class Parsed:
    """``status``: answered | refused | format_error; ``answer``: the canonical answer
    (``formats.REJECTION`` when refused, ``None`` on a format error); ``detail``: the reason of a
    format error."""

    status: str
    answer: dict | None
    detail: str | None = None


def _names(answer: Mapping, fmt: str) -> dict:
    names = answer.get("names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise formats.GoldError("malformed_names", repr(names)[:120])
    out = list(dict.fromkeys(n.strip() for n in names if n.strip()))
    if fmt == "entity_name" and not out:
        raise formats.GoldError("empty_entity_name")
    return {"names": out}


def parse_reply(question: Mapping, obj: Any) -> Parsed:
    """Interpret a reply object (already JSON-decoded) for ``question``.

    ``premise_rejected: true`` -> refused (answer ``formats.REJECTION``); otherwise the answer is
    checked with ``formats.canonical(fmt, answer, allow_empty=True)`` (entity formats: a list of
    names; predefined: a value among the options) and returned canonical, or format_error with the
    GoldError reason; a null/missing answer that is not a rejection -> format_error
    ``no_answer``."""
    if not isinstance(obj, Mapping):
        return Parsed("format_error", None, "not_an_object")
    rejected = obj.get("premise_rejected")
    if rejected is not None and not isinstance(rejected, bool):
        return Parsed("format_error", None, "premise_rejected_not_boolean")
    answer = obj.get("answer")
    if rejected or formats.is_rejection(answer):
        return Parsed("refused", dict(formats.REJECTION), None)
    if answer is None:
        return Parsed("format_error", None, "no_answer")
    fmt = question.get("answer_format")
    try:
        if not isinstance(answer, Mapping):
            raise formats.GoldError("not_a_dict", repr(answer)[:120])
        if fmt in ("entity_name", "set"):
            return Parsed("answered", _names(answer, fmt), None)
        if fmt == "predefined":
            extra = set(answer) - {"value", "options"}
            if extra:
                raise formats.GoldError("unexpected_key", ",".join(sorted(extra)))
            return Parsed(
                "answered",
                formats.predefined(answer.get("value"), predefined_options(question)),
                None,
            )
        return Parsed("answered", formats.canonical(fmt, dict(answer), allow_empty=True), None)
    except (formats.GoldError, TypeError, ValueError, KeyError) as exc:
        return Parsed(
            "format_error",
            None,
            getattr(exc, "reason", None) and str(exc)[:300] or f"invalid: {exc}"[:300],
        )
