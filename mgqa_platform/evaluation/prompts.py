"""Prompts of the evaluation tiers (our own wording), rendered deterministically from a question
record.

``render(question, tier)`` returns ``[system, user]`` chat messages; the same question and tier
always give the same bytes. The question text is used exactly as stored (any language). Tiers:

========================  =========================================================================
``T1``                    parametric: answer directly
``T2``                    reasoning: think step by step in a ``reasoning`` field, then answer
``T1O_RAW``               T1 + gold triples as N-Triples-like lines
``T1O_STRUCTURED``        T1 + gold triples as JSON grouped by subject
``T1O_VERBALIZED``        T1 + gold triples as English sentences built from predicate local names
``T3A``                   agentic: JSON steps with Python code; KG retrieval tools + geospatial libs
``T3O``                   agentic oracle: structured triples injected (``triples()``), no retrieval
========================  =========================================================================
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from mgqa_platform.evaluation.answer_schema import answer_example, field, predefined_options
from mgqa_platform.questions import formats

__all__ = [
    "T1",
    "T2",
    "T1O_RAW",
    "T1O_STRUCTURED",
    "T1O_VERBALIZED",
    "T3A",
    "T3O",
    "TIERS",
    "ORACLE_TIERS",
    "AGENT_TIERS",
    "render",
    "answer_type_description",
    "unit_clause",
    "scale_hint",
    "raw_triples",
    "structured_triples",
    "verbalized_triples",
    "triple_context",
    "DEFAULT_MAX_STEPS",
]

from mgqa_platform.evaluation.tiers import (
    AGENT_TIERS,
    ORACLE_TIERS,
    T1,
    T1O_RAW,
    T1O_STRUCTURED,
    T1O_VERBALIZED,
    T2,
    T3A,
    T3O,
    TIERS,
)

DEFAULT_MAX_STEPS = 10

# ---------------------------------------------------------------- answer type wording
_TYPE = {
    "boolean": 'a yes/no judgement: true or false, or the string "plausibly" when the facts '
    "cannot settle it",
    "entity_name": "the name of one entity (a place or feature); if several are tied, "
    "any one of them",
    "predefined": "exactly one label from a fixed list",
    "set": "the names of all entities that satisfy the question, "
    "in any order (an empty list if there are none)",
    "grid_cell": "one cell of a discrete global grid: an H3 index (hexadecimal string) or an S2 "
    "cell token, "
    "with its H3 resolution or S2 level",
    "geohash": "a geohash string (base-32, 1 to 12 characters) and its precision (its length)",
    "composite_cell": "two cells for the same place: an H3 index with its resolution and an S2 "
    "token with its level",
    "distance": "a distance",
    "area": "an area",
    "count": "a count (a whole number, zero or more)",
    "ratio": "a dimensionless number (a ratio, share or quotient)",
    "point": "a position given as WGS84 longitude and latitude in decimal degrees",
    "polar": "a direction and a distance: the bearing in degrees clockwise from true north "
    "(0 to 360) and the "
    "distance",
    "bbox": "a bounding box in WGS84 decimal degrees "
    "(minimum and maximum longitude and latitude), not crossing "
    "the antimeridian",
    "date": "a calendar date written YYYY-MM-DD, YYYY-MM or YYYY, "
    "with its precision (day, month or year)",
}
_UNIT = {
    "km": "kilometres (km)",
    "km2": "square kilometres (km2)",
    "deg": "decimal degrees",
    "deg,km": "degrees for the bearing and kilometres (km) for the distance",
}
_SCALE = {
    "distance": "Give kilometres even for short lengths (350 m is 0.35 km).",
    "area": "Give square kilometres even for small areas (one hectare is 0.01 km2).",
    "polar": "Give kilometres even for short distances (350 m is 0.35 km).",
    "point": "Longitude comes first in the reply; west and south are negative.",
    "bbox": "West and south are negative; min values must not exceed max values.",
}


def _unit(question: Mapping) -> str | None:
    u = field(question, "unit")
    if isinstance(u, str) and u.strip():
        return u.strip()
    return formats.FORMAT_INFO.get(question.get("answer_format"), {}).get("unit")


def answer_type_description(question: Mapping) -> str:
    """E.g. ``"a distance"`` or ``"exactly one label from a fixed list: N, E, S, W"``."""
    fmt = question.get("answer_format")
    if fmt not in _TYPE:
        raise ValueError(f"unknown answer_format {fmt!r}")
    if fmt == "predefined":
        return f"{_TYPE[fmt]}: {', '.join(predefined_options(question))}"
    return _TYPE[fmt]


def unit_clause(question: Mapping) -> str:
    """``" in kilometres (km)"`` for unit-bearing formats, else ``""``."""
    u = _unit(question)
    return f" in {_UNIT.get(u, u)}" if u else ""


def scale_hint(question: Mapping) -> str:
    return _SCALE.get(question.get("answer_format"), "")


# ---------------------------------------------------------------- triple renderings
_CRS_PREFIX = re.compile(r"^\s*<[^>]*>\s*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_LOCAL = re.compile(r"[#/]([^#/]*)$")
_LABELS = ("name:en", "nameEn", "label", "name")  # preference order of the display label
_GEOM_LINKS = ("hasGeometry", "spatialObject")
_PHRASES = {
    "name:en": "English name",
    "nameEn": "English name",
    "label": "label",
    "name": "name",
    "type": "type",
    "asWKT": "geometry",
    "inXSDDate": "date",
    "inXSDDateTime": "date and time",
    "sfWithin": "containing region",
    "administrativePartOf": "parent administrative region",
    "hasTemporalScope": "time",
}


def _triples(question: Mapping) -> list[tuple[str, str, str]]:
    t = field(question, "gold_triples") or []
    return [(str(s), str(p), str(o)) for s, p, o in t]


def local(iri: str) -> str:
    """Local name of a predicate or node: after the last ``#``/``/``, or after a known
    ``prefix:``."""
    if iri.startswith(("http://", "https://", "<")):
        m = _LOCAL.search(iri.strip("<>"))
        return m.group(1) if m and m.group(1) else iri
    if ":" in iri and iri.split(":", 1)[0] in (
        "geo",
        "rdf",
        "rdfs",
        "wkgs",
        "kwg",
        "time",
        "sosa",
        "xsd",
    ):
        return iri.split(":", 1)[1]
    return iri


def _is_node(o: str, subjects: set[str]) -> bool:
    return o in subjects or o.startswith(("http://", "https://"))


def raw_triples(question: Mapping) -> str:
    """One ``<s> <p> <o> .`` / ``<s> <p> "literal" .`` line per gold triple, in stored order."""
    trs = _triples(question)
    subjects = {s for s, _, _ in trs}
    lines = [
        f"<{s}> <{p}> {f'<{o}>' if _is_node(o, subjects) else json.dumps(o, ensure_ascii=False)} ."
        for s, p, o in trs
    ]
    return "\n".join(lines)


def structured_triples(question: Mapping) -> list[dict]:
    """Gold triples grouped by subject (first-appearance order): ``[{"subject": s, "facts": {p:
    [o, ...]}}]``; predicates keep their stored spelling, values their stored order."""
    groups: dict[str, dict[str, list[str]]] = {}
    for s, p, o in _triples(question):
        groups.setdefault(s, {}).setdefault(p, []).append(o)
    return [{"subject": s, "facts": facts} for s, facts in groups.items()]


def _structured_text(question: Mapping) -> str:
    return json.dumps(structured_triples(question), ensure_ascii=False, indent=1)


def _phrase(pred: str) -> str:
    name = local(pred)
    if name in _PHRASES:
        return _PHRASES[name]
    name = name[3:] if name.startswith("has") and name[3:4].isupper() else name
    return _CAMEL.sub(" ", name).replace("_", " ").replace(":", " ").lower()


def verbalized_triples(question: Mapping) -> str:
    """One English sentence per fact, e.g. ``"Fleneken has the geometry POINT (-8.19704
    4.76462)."``.

    Subjects are named by their label (``name:en`` > ``nameEn`` > ``label`` > ``name``), else their
    local name; a geometry node (``hasGeometry``/``spatialObject`` -> ``asWKT``) is folded into its
    feature, the WKT's CRS IRI prefix dropped; ``rdf:type`` becomes ``"X is of type <type>."``;
    other nodes as objects are named like subjects."""
    trs = _triples(question)
    by_s: dict[str, list[tuple[str, str]]] = {}
    for s, p, o in trs:
        by_s.setdefault(s, []).append((p, o))

    def name(node: str) -> str:
        facts = {}
        for p, o in by_s.get(node, []):
            facts.setdefault(local(p), o)
        for key in _LABELS:
            if key in facts:
                return facts[key]
        return local(node)

    wkt_of = {s: o for s, p, o in trs if local(p) == "asWKT"}
    folded = {o for s, p, o in trs if local(p) in _GEOM_LINKS and o in wkt_of}
    out: list[str] = []
    for s, facts in by_s.items():
        if s in folded:
            continue
        who = name(s)
        for p, o in facts:
            lp = local(p)
            if lp in _GEOM_LINKS and o in wkt_of:
                out.append(f"{who} has the geometry {_CRS_PREFIX.sub('', wkt_of[o])}.")
            elif lp == "asWKT":
                out.append(f"{who} has the geometry {_CRS_PREFIX.sub('', o)}.")
            elif lp == "type":
                out.append(f"{who} is of type {local(o)}.")
            else:
                value = (
                    name(o)
                    if o in by_s
                    else (local(o) if o.startswith(("http://", "https://")) else o)
                )
                out.append(f"{who} has the {_phrase(p)} {value}.")
    return "\n".join(out)


def triple_context(question: Mapping, tier: str) -> str:
    """The injected facts of an oracle tier (``""`` for the others)."""
    if tier == T1O_RAW:
        return raw_triples(question)
    if tier == T1O_VERBALIZED:
        return verbalized_triples(question)
    if tier in (T1O_STRUCTURED, T3O):
        return _structured_text(question)
    return ""


# ---------------------------------------------------------------- prompt text
_SYSTEM = (
    "You answer questions about real places, features and events on Earth. "
    "Coordinates are WGS84 longitude/latitude in decimal degrees; distances are in kilometres and "
    "areas in square kilometres; bearings are measured clockwise from true north. "
    "You reply with JSON only, exactly in the requested shape."
)
_SYSTEM_AGENT = (
    "You solve questions about real places, features and events on Earth by writing and running "
    "Python code step by step. Coordinates are WGS84 longitude/latitude in decimal degrees; "
    "distances are in kilometres and areas in square kilometres; bearings are measured clockwise "
    "from true north. Every reply you send is one JSON object in the requested step shape."
)
_PREMISE = (
    "Some questions rest on a false premise: they take for granted something that does not "
    "exist or "
    "does not hold (for example an entity of that kind near the place, "
    "or a relation between the places). "
    'If the premise is false, do not answer: set "premise_rejected" to true and "answer" to null. '
    'Otherwise set "premise_rejected" to false and give your best answer; never leave it null.'
)
_FACT_INTRO = {
    T1O_RAW: "Facts from a spatial knowledge graph, as RDF triples (subject, predicate, object):",
    T1O_STRUCTURED: "Facts from a spatial knowledge graph, as JSON grouped by subject:",
    T1O_VERBALIZED: "Facts from a spatial knowledge graph, stated in sentences:",
    T3O: "Facts from a spatial knowledge graph, as JSON grouped by subject "
    "(also returned by triples()):",
}
_TOOLS_T3A = """\
Functions defined in your Python environment (knowledge-graph tools, read-only):
- search_entities(name, limit=10) -> list of dicts with entity_id, name, display_name, category,
    lon, lat
  for entities whose name contains `name` (case-insensitive), exact matches first.
- entity_triples(entity_id) -> list of [subject, predicate, object] triples of one entity.
- sql(query) -> list of row dicts for one read-only SELECT over the warehouse tables
  entities(entity_id, kg, name, display_name, category, lon, lat, geom_kind, geometry, ...) and
  entity_triples(entity_id, kg, s, p, o) (DuckDB SQL; spatial ST_* functions such as
      ST_AsText(geometry)
  are available); at most 200 rows come back."""
_TOOLS_T3O = """\
Functions defined in your Python environment:
- triples() -> the facts above as Python data \
(a list of {"subject": ..., "facts": {predicate: [values]}}).
You have no retrieval tools: everything you need is in the facts above."""
_LIBS = (
    "Already imported: math, json, shapely (with shapely.wkt and shapely.geometry), pyproj "
    '(Geod, Transformer; GEOD = Geod(ellps="WGS84") for geodesic distances, '
    "azimuths and areas), h3."
)


def _reply_shape(question: Mapping, tier: str) -> str:
    ex = answer_example(question)
    if tier == T2:
        return (
            '{"reasoning": "<your step-by-step reasoning>", "answer": '
            + ex
            + ', "premise_rejected": false}'
        )
    return '{"answer": ' + ex + ', "premise_rejected": false}'


def _question_block(question: Mapping) -> list[str]:
    lines = ["Question:", str(question.get("text", ""))]
    img = field(question, "image_url")
    if bool(field(question, "multimodal", False)) and isinstance(img, str) and img:
        lines.append(f"(The question refers to this image: {img})")
    desc = answer_type_description(question) + unit_clause(question) + "."
    lines += ["", "Expected answer: " + desc[0].upper() + desc[1:]]
    hint = scale_hint(question)
    if hint:
        lines.append(hint)
    return lines


def render(question: Mapping, tier: str, *, max_steps: int = DEFAULT_MAX_STEPS) -> list[dict]:
    """``[{"role": "system", ...}, {"role": "user", ...}]`` for ``question`` under ``tier``
    (deterministic)."""
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}; expected one of {TIERS}")
    parts: list[str] = []
    if tier in ORACLE_TIERS:
        parts += [_FACT_INTRO[tier], triple_context(question, tier), ""]
    parts += _question_block(question)
    parts += ["", _PREMISE, ""]
    if tier in AGENT_TIERS:
        parts += [
            _TOOLS_T3A if tier == T3A else _TOOLS_T3O,
            _LIBS,
            "",
            f"Work in steps; you have at most {max_steps} steps. Each reply is one JSON object "
            '{"thought": "<what you do next and why>", "code": "<Python source>" or null, '
            '"final_answer": null or the final reply object}.',
            'When "code" is given it runs in a fresh Python interpreter '
            "(variables are not kept between steps; "
            "files written to the current directory are) and what it prints comes back to "
            "you as the next "
            "message; print what you need to see.",
            'When you are done, send "code": null and "final_answer": '
            + _reply_shape(question, tier)
            + ".",
        ]
    elif tier == T2:
        parts += [
            'Think step by step: write your reasoning in the "reasoning" field first, '
            "then commit to an "
            "answer. Reply with one JSON object of this shape and nothing else:",
            _reply_shape(question, tier),
        ]
    else:
        parts += [
            "Reply with one JSON object of this shape and nothing else:",
            _reply_shape(question, tier),
        ]
    return [
        {"role": "system", "content": _SYSTEM_AGENT if tier in AGENT_TIERS else _SYSTEM},
        {"role": "user", "content": "\n".join(parts)},
    ]


def describe_tiers() -> list[dict[str, Any]]:
    """One row per tier for documentation: tier, facts injected, reply, tools."""
    return [
        {"tier": T1, "facts": "-", "reply": "answer JSON", "tools": "-"},
        {"tier": T2, "facts": "-", "reply": "reasoning + answer JSON", "tools": "-"},
        {"tier": T1O_RAW, "facts": "raw triples", "reply": "answer JSON", "tools": "-"},
        {"tier": T1O_STRUCTURED, "facts": "structured JSON", "reply": "answer JSON", "tools": "-"},
        {"tier": T1O_VERBALIZED, "facts": "sentences", "reply": "answer JSON", "tools": "-"},
        {
            "tier": T3A,
            "facts": "-",
            "reply": "agent steps",
            "tools": "search_entities, entity_triples, sql, Python",
        },
        {
            "tier": T3O,
            "facts": "structured JSON",
            "reply": "agent steps",
            "tools": "triples(), Python",
        },
    ]
