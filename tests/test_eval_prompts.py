"""Prompts of the evaluation tiers and the per-question reply schema / reply parsing (no
network)."""

from __future__ import annotations

import copy
import json

import h3
import jsonschema
import pytest
import s2sphere

from mgqa_platform.evaluation import answer_schema as A
from mgqa_platform.evaluation import prompts as P
from mgqa_platform.questions import formats

LON, LAT = -8.19704, 4.76462
TRIPLES = [
    ["geo/node/1", "geo:asWKT", f"POINT ({LON} {LAT})"],
    ["node/1", "geo:hasGeometry", "geo/node/1"],
    ["node/1", "name", "Fleneken"],
    ["node/1", "rdf:type", "village"],
    ["http://example.org/kwg/fire.1", "http://www.w3.org/2000/01/rdf-schema#label", "BALD (2006)"],
    [
        "http://example.org/kwg/fire.1",
        "http://example.org/ont/hasTemporalScope",
        "http://example.org/kwg/time.1",
    ],
    ["http://example.org/kwg/time.1", "http://www.w3.org/2006/time#inXSDDate", "2006-07-22"],
]
_H3 = h3.latlng_to_cell(LAT, LON, 7)
_S2 = s2sphere.CellId.from_lat_lng(s2sphere.LatLng.from_degrees(LAT, LON)).parent(10).to_token()
GOLDS = {
    "boolean": {"value": True},
    "entity_name": {"entity_ids": ["osmh3kg:node/1"], "names": ["Fleneken"]},
    "predefined": {"value": "NE", "options": list(formats.OPTION_SETS["cardinal8"])},
    "set": {"entity_ids": ["osmh3kg:node/1", "osmh3kg:node/2"], "names": ["Fleneken", "Zwedru"]},
    "grid_cell": formats.h3_cell(_H3),
    "geohash": {"geohash": "s0000", "precision": 5},
    "composite_cell": formats.composite_cell(_H3, _S2),
    "distance": {"value": 12.3, "unit": "km"},
    "area": {"value": 4.5, "unit": "km2"},
    "count": {"value": 3},
    "ratio": {"value": 0.25},
    "point": {"lon": LON, "lat": LAT},
    "polar": {"angle_deg": 45.0, "distance_km": 10.0},
    "bbox": {"min_lon": -8.3, "min_lat": 4.7, "max_lon": -8.1, "max_lat": 4.8},
    "date": {"value": "2006-07-22", "precision": "day"},
}
UNITS = {"distance": "km", "area": "km2", "point": "deg", "polar": "deg,km", "bbox": "deg"}


def q(fmt: str, gold: dict | None = None, **kw) -> dict:
    base = {
        "question_id": f"q-{fmt}",
        "lang": "eng",
        "kg": "osmh3kg",
        "sfid": "A",
        "sub_template_id": "A01.1",
        "text": f"A {fmt} question about Fleneken?",
        "answer_format": fmt,
        "gold": json.dumps(GOLDS[fmt] if gold is None else gold),
        "unit": UNITS.get(fmt),
        "parameters": "{}",
        "gold_triples": json.dumps(TRIPLES),
        "entity_subjects": json.dumps({"osmh3kg:node/1": "node/1"}),
        "false_premise": False,
        "multimodal": False,
        "image_url": None,
    }
    base.update(kw)
    return base


def reply_from_gold(fmt: str, gold: dict) -> dict:
    if fmt in ("entity_name", "set"):
        return {"names": gold["names"]}
    if fmt == "predefined":
        return {"value": gold["value"]}
    return formats.canonical(fmt, gold)


def _assert_strict(schema: dict) -> None:
    """Every object lists all properties as required and forbids others (OpenAI strict mode)."""
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            assert schema["additionalProperties"] is False
            assert schema["required"] == list(schema["properties"])
        for v in schema.values():
            _assert_strict(v)
    elif isinstance(schema, list):
        for v in schema:
            _assert_strict(v)


@pytest.mark.parametrize("fmt", formats.FORMATS)
def test_every_format_has_a_valid_strict_schema_accepting_its_gold(fmt):
    question = q(fmt)
    for reasoning in (False, True):
        schema = A.reply_schema(question, reasoning=reasoning)
        jsonschema.Draft202012Validator.check_schema(schema)
        _assert_strict(schema)
        reply = {"answer": reply_from_gold(fmt, GOLDS[fmt]), "premise_rejected": False}
        if reasoning:
            reply = {"reasoning": "because", **reply}
        jsonschema.validate(reply, schema)
        parsed = A.parse_reply(question, reply)
        assert parsed.status == "answered", parsed
        assert formats.score(fmt, parsed.answer, GOLDS[fmt]) == (1, 0.0)
        # a rejection and a null answer fit the schema too
        jsonschema.validate({**reply, "answer": None, "premise_rejected": True}, schema)
    jsonschema.Draft202012Validator.check_schema(A.agent_step_schema(question))
    _assert_strict(A.agent_step_schema(question))


def test_schema_rejects_off_format_replies():
    v = jsonschema.Draft202012Validator(A.reply_schema(q("predefined")))
    assert not v.is_valid({"answer": {"value": "north-east"}, "premise_rejected": False})
    assert not v.is_valid(
        {"answer": {"value": 1.0, "unit": "km", "x": 1}, "premise_rejected": False}
    )
    assert not v.is_valid({"answer": {"value": "NE"}})  # premise_rejected missing
    d = jsonschema.Draft202012Validator(A.reply_schema(q("date")))
    assert not d.is_valid(
        {"answer": {"value": "22 July 2006", "precision": "day"}, "premise_rejected": False}
    )
    g = jsonschema.Draft202012Validator(A.reply_schema(q("grid_cell")))
    assert not g.is_valid(
        {"answer": {"system": "geohash", "cell": "x", "resolution": 1}, "premise_rejected": False}
    )


def test_false_premise_predefined_takes_options_from_the_catalog():
    fp = q("predefined", {"rejected": True}, sub_template_id="J04.3", false_premise=True)
    assert A.predefined_options(fp) == ["N", "E", "S", "W"]
    enum = A.reply_schema(fp)["properties"]["answer"]["anyOf"][0]["properties"]["value"]["enum"]
    assert enum == ["N", "E", "S", "W"]
    unknown = q("predefined", {"rejected": True}, sub_template_id="Z99.9")
    assert {"N", "NE", "left", "upstream"} <= set(
        A.predefined_options(unknown)
    )  # every option set, as fallback
    assert "N, E, S, W" in P.render(fp, P.T1)[1]["content"]


def test_parse_reply_statuses():
    dq = q("distance")
    assert A.parse_reply(dq, {"answer": None, "premise_rejected": True}) == A.Parsed(
        "refused", {"rejected": True}
    )
    assert (
        A.parse_reply(dq, {"answer": {"value": 3, "unit": "km"}, "premise_rejected": True}).status
        == "refused"
    )
    assert A.parse_reply(dq, {"answer": None, "premise_rejected": False}).detail == "no_answer"
    bad = A.parse_reply(dq, {"answer": {"value": -5, "unit": "km"}, "premise_rejected": False})
    assert bad.status == "format_error" and bad.detail.startswith("distance_out_of_range")
    assert A.parse_reply(dq, ["not", "a", "dict"]).detail == "not_an_object"
    cell = A.parse_reply(
        q("grid_cell"),
        {"answer": {"system": "h3", "cell": "zz", "resolution": 7}, "premise_rejected": False},
    )
    assert cell.status == "format_error" and cell.detail.startswith("invalid_h3_cell")
    ent = A.parse_reply(
        q("set"), {"answer": {"names": [" Zwedru ", "Zwedru", ""]}, "premise_rejected": False}
    )
    assert ent == A.Parsed("answered", {"names": ["Zwedru"]})
    assert (
        A.parse_reply(q("set"), {"answer": {"names": []}, "premise_rejected": False}).status
        == "answered"
    )
    assert (
        A.parse_reply(q("entity_name"), {"answer": {"names": []}, "premise_rejected": False}).status
        == "format_error"
    )
    pre = A.parse_reply(q("predefined"), {"answer": {"value": "up"}, "premise_rejected": False})
    assert pre.status == "format_error" and pre.detail.startswith("value_not_in_options")


def test_render_is_deterministic_and_uses_the_text_as_is():
    question = q("distance", text="Quelle est la distance entre Fleneken et Zwedru ?")
    shuffled = dict(reversed(list(copy.deepcopy(question).items())))
    for tier in P.TIERS:
        a = json.dumps(P.render(question, tier), ensure_ascii=False).encode()
        b = json.dumps(P.render(shuffled, tier), ensure_ascii=False).encode()
        assert a == b
        msgs = P.render(question, tier)
        assert [m["role"] for m in msgs] == ["system", "user"]
        user = msgs[1]["content"]
        assert "Quelle est la distance entre Fleneken et Zwedru ?" in user
        assert "in kilometres (km)" in user and "350 m is 0.35 km" in user
        assert "premise_rejected" in user
    with pytest.raises(ValueError):
        P.render(question, "T9")


def test_each_tier_contains_what_it_should():
    question = q("point")
    wkt = f"POINT ({LON} {LAT})"
    for tier in P.TIERS:
        user = P.render(question, tier)[1]["content"]
        assert (wkt in user) == (tier in P.ORACLE_TIERS), tier  # gold triples only in oracle tiers
        assert ('"reasoning"' in user) == (tier == P.T2), tier
        assert ("search_entities" in user) == (tier == P.T3A), tier
        assert ("triples()" in user) == (tier == P.T3O), tier
        assert ('"final_answer"' in user) == (tier in P.AGENT_TIERS), tier
    assert "reasoning" in A.reply_schema(question, reasoning=True)["properties"]
    assert "reasoning" not in A.reply_schema(question)["properties"]
    assert "at most 7 steps" in P.render(question, P.T3O, max_steps=7)[1]["content"]


def test_triple_renderings():
    question = q("point")
    raw = P.raw_triples(question).splitlines()
    assert raw[0] == f'<geo/node/1> <geo:asWKT> "{"POINT (-8.19704 4.76462)"}" .'
    assert raw[1] == "<node/1> <geo:hasGeometry> <geo/node/1> ."
    assert len(raw) == len(TRIPLES)
    structured = P.structured_triples(question)
    assert structured[1] == {
        "subject": "node/1",
        "facts": {"geo:hasGeometry": ["geo/node/1"], "name": ["Fleneken"], "rdf:type": ["village"]},
    }
    verbal = P.verbalized_triples(question).splitlines()
    assert "Fleneken has the geometry POINT (-8.19704 4.76462)." in verbal
    assert "Fleneken has the name Fleneken." in verbal
    assert "Fleneken is of type village." in verbal
    assert "BALD (2006) has the label BALD (2006)." in verbal
    assert "BALD (2006) has the time time.1." in verbal
    assert "time.1 has the date 2006-07-22." in verbal
    assert not any(
        "geo/node/1" in line for line in verbal
    )  # the geometry node is folded into its feature
    crs = q(
        "point",
        gold_triples=json.dumps(
            [
                ["f", "http://www.opengis.net/ont/geosparql#hasGeometry", "g"],
                [
                    "g",
                    "http://www.opengis.net/ont/geosparql#asWKT",
                    "<http://www.opengis.net/def/crs/OGC/1.3/CRS84>POINT(1 2)",
                ],
            ]
        ),
    )
    assert P.verbalized_triples(crs) == "f has the geometry POINT(1 2)."


def test_answer_type_descriptions_cover_every_format():
    for fmt in formats.FORMATS:
        desc = P.answer_type_description(q(fmt))
        assert desc and desc == P.answer_type_description(q(fmt))
    assert P.unit_clause(q("area")) == " in square kilometres (km2)"
    assert P.unit_clause(q("count")) == ""
    assert (
        P.unit_clause(q("distance", unit=float("nan"))) == " in kilometres (km)"
    )  # from FORMAT_INFO
