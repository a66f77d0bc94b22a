"""The post-edit ensemble as a warehouse stage and a Dagster asset: ``questions_postedited`` +
``ensemble_edit_log`` + ``ensemble_stats`` for one language partition, with three local fake LLM
servers (agreeing, disagreeing, malformed), the offline rule-based default, resumption from the
reply cache, and the configuration errors."""

from __future__ import annotations

import json

import dagster as dg
import pytest

from mgqa_dagster.assets.multilingual import questions_postedited
from mgqa_dagster.resources.llm import EnsembleEndpoint, PostEditEnsembleResource, parse_endpoints
from mgqa_dagster.resources.paths import PathsResource
from mgqa_dagster.resources.warehouse import WarehouseResource
from mgqa_platform import warehouse
from mgqa_platform.multilingual import stage
from mgqa_platform.multilingual.ensemble import RuleMember
from mgqa_platform.question_schema import LOCALIZED_SCHEMA, QUESTION_SCHEMA, arrow_table
from mgqa_platform.warehouse import registered
from tests.fake_openai import FakeOpenAI, Reply, user_text

#: Three localized French questions (question id -> marked text); q2 needs an elision, q3 a
#: contraction.
QUESTIONS = {
    "q1": "Quelle est la distance entre {Paris} et {Lyon} ?",
    "q2": "Quelle est la distance de {Orly} à {Lyon} ?",
    "q3": "Combien de cafés se trouvent à 2 km de le {Louvre} ?",
}


def _unmark(text: str) -> str:
    return text.replace("{", "").replace("}", "")


@pytest.fixture
def wh(tmp_path):
    """A warehouse with the English records, the French slice of questions_localized and the
    resolved templates it came from."""
    path = tmp_path / "wh.duckdb"
    english = [
        {
            **dict.fromkeys(QUESTION_SCHEMA.names),
            "question_id": qid,
            "lang": "eng",
            "kg": "worldkg",
            "sfid": "A",
            "tid": "A01",
            "sub_template_id": "A01.1",
            "variant_id": "A01.1.v1",
            "text": "What is the distance?",
            "text_marked": "What is the distance?",
            "answer_format": "distance_km",
            "gold": '{"value": 1.0}',
            "bindings": '{"entity_A": "worldkg:1"}',
            "executor": "distance@1",
            "query": "SELECT 1",
            "gold_triples": "[]",
            "entity_subjects": "{}",
            "false_premise": False,
            "multimodal": False,
        }
        for qid in QUESTIONS
    ]
    localized = [
        {
            "lang": "fra",
            "question_id": qid,
            "text": _unmark(marked),
            "text_marked": marked,
            "template_text": "Quelle est la distance de {entity_A} à {entity_B} ?",
            "template_status": "unreviewed",
            "fallbacks": "[]",
        }
        for qid, marked in QUESTIONS.items()
    ]
    en_table = arrow_table(QUESTION_SCHEMA, english)
    localized_table = arrow_table(LOCALIZED_SCHEMA, localized)
    with warehouse.session(path) as con:
        warehouse.ensure_schema(con)
        with registered(con, _en=en_table, _q=localized_table):
            con.execute("INSERT INTO questions_en BY NAME SELECT * FROM _en")
            con.execute("INSERT INTO questions_localized BY NAME SELECT * FROM _q")
        con.execute(
            "INSERT INTO template_translations_resolved VALUES ('fra', 'A01.1.v1', 'A01.1', "
            "'What is the distance from {entity_A} to {entity_B}?', "
            "'Quelle est la distance de {entity_A} à {entity_B} ?', "
            "'unreviewed', 'unreviewed', '[]', NULL)"
        )
    return path


def _q(path, sql, *params):
    with warehouse.session(path, read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


def edits(*triples) -> str:
    return json.dumps({"edits": [{"op": o, "original": a, "fix": b} for o, a, b in triples]})


def by_question(fixes: dict[str, tuple]):
    """A fake-server handler: the edits listed for the question whose marked text is in the
    request."""

    def handler(req):
        sent = user_text(req)
        for qid, marked in QUESTIONS.items():
            if marked in sent:
                return edits(*fixes.get(qid, ()))
        return edits()

    return handler


def paths_for(wh) -> PathsResource:
    """The warehouse file and a working directory next to it."""
    return PathsResource(home=str(wh.parent), warehouse=str(wh))


def materialize(path, ensemble: PostEditEnsembleResource):
    resources = {"warehouse": WarehouseResource(paths=paths_for(path)), "ensemble": ensemble}
    return dg.materialize(
        [questions_postedited], partition_key="fra", raise_on_error=False, resources=resources
    )


def checks_of(result) -> dict[str, bool]:
    return {
        e.asset_check_evaluation_data.check_name: e.asset_check_evaluation_data.passed
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }


def metadata_of(result) -> dict:
    (mat,) = [
        m
        for m in result.asset_materializations_for_node("questions_postedited")
        if m.asset_key == dg.AssetKey("questions_postedited")
    ]
    return {k: v.value for k, v in mat.metadata.items()}


ELISION = ("ELIS", "de ", "d'")  # q2: "de {Orly}" -> "d'{Orly}"


def test_three_servers_agreeing_disagreeing_and_malformed(wh, tmp_path):
    agree = {"q2": [ELISION], "q3": [("CONTR", "de le ", "du ")]}
    with (
        FakeOpenAI(by_question({**agree, "q1": [("PUNCT", " ?", "?")]})) as a,
        FakeOpenAI(by_question(agree)) as b,
        FakeOpenAI(lambda req: Reply("Sure! Here are the edits: de -> d'")) as bad,
    ):
        ens = PostEditEnsembleResource(
            endpoints=[
                EnsembleEndpoint(name=n, base_url=s.base_url, model="fake-model")
                for n, s in (("a", a), ("b", b), ("bad", bad))
            ],
            primary="a",
            cache_dir=str(tmp_path / "cache"),
            max_retries=0,
            concurrency=3,
            paths=paths_for(wh),
        )
        r = materialize(wh, ens)
        assert r.success
        asked = len(a.requests) + len(b.requests) + len(bad.requests)
        assert asked == 9
        after = dict(
            _q(wh, "SELECT question_id, text_marked FROM questions_postedited WHERE lang = 'fra'")
        )
        # q2/q3: two members agree -> majority; q1: only "a" proposes -> primary fallback
        assert after == {
            "q1": "Quelle est la distance entre {Paris} et {Lyon}?",
            "q2": "Quelle est la distance d'{Orly} à {Lyon} ?",
            "q3": "Combien de cafés se trouvent à 2 km du {Louvre} ?",
        }
        decisions = dict(_q(wh, "SELECT question_id, postedit_decision FROM questions_postedited"))
        assert decisions == {"q1": "primary_fallback", "q2": "majority", "q3": "majority"}
        assert _q(wh, "SELECT text FROM questions_postedited WHERE question_id = 'q2'") == [
            ("Quelle est la distance d'Orly à Lyon ?",)
        ]
        assert _q(
            wh, "SELECT text_marked_localized FROM questions_postedited WHERE question_id = 'q2'"
        ) == [(QUESTIONS["q2"],)]
        # the edit log: every proposed edit with its member, and one row per rejected reply
        log = _q(
            wh,
            "SELECT question_id, member, status, op, original, fix, applied "
            "FROM ensemble_edit_log "
            "ORDER BY ALL",
        )
        assert ("q2", "a", "ok", "ELIS", "de ", "d'", True) in log and (
            "q2",
            "b",
            "ok",
            "ELIS",
            "de ",
            "d'",
            True,
        ) in log
        assert ("q1", "a", "ok", "PUNCT", " ?", "?", True) in log
        assert [row for row in log if row[1] == "bad"] == [
            (q, "bad", "rejected", None, None, None, False) for q in ("q1", "q2", "q3")
        ]
        checks = checks_of(r)
        assert checks == {
            "every_localized_question_postedited": True,
            "entity_names_untouched": True,
            "edits_logged": True,
            "member_replies_valid": False,
            "grammar_detectors_postedited": True,
            "rows_not_shrunk": True,
        }  # "bad" failed every question: a warning
        md = metadata_of(r)
        assert md["share_edited"] == 1.0 and md["decisions"] == {
            "primary_fallback": 1,
            "majority": 2,
        }
        assert (
            md["operations"] == {"PUNCT": 1, "ELIS": 1, "CONTR": 1}
            and md["rejected_replies"]["bad"] == 3
        )
        assert md["members"]["a"]["model"] == "fake-model" and "api_key" not in json.dumps(
            md["members"]
        ).replace("api_key_set", "")
        assert "d'{Orly}" in md["edit_log"]
        stats_row = _q(wh, "SELECT members, stats FROM ensemble_stats WHERE lang = 'fra'")
        assert (
            json.loads(stats_row[0][0])["primary"] == "a" and json.loads(stats_row[0][1])["n"] == 3
        )
        first = _q(wh, "SELECT * FROM questions_postedited ORDER BY question_id")
        # a rerun resumes from the reply cache (valid and rejected replies are kept; only transport
        # failures are asked again): no new request, and the same slice
        r2 = materialize(wh, ens)
        assert r2.success and len(a.requests) + len(b.requests) + len(bad.requests) == asked
        assert _q(wh, "SELECT * FROM questions_postedited ORDER BY question_id") == first
        assert _q(wh, "SELECT count(*) FROM ensemble_edit_log") == [(len(log),)]


def test_a_reply_that_touches_a_name_or_a_brace_is_rejected(wh, tmp_path):
    """Rejection rules end to end: editing inside {...}, adding a brace, an unknown operation; the
    good members still decide."""
    good = by_question({"q2": [ELISION]})
    bad_replies = {
        "q1": [("OTHER", "Paris", "Pariis")],
        "q2": [("OTHER", "de ", "de {")],
        "q3": [("REWRITE", "cafés", "bars")],
    }
    with FakeOpenAI(good) as a, FakeOpenAI(good) as b, FakeOpenAI(by_question(bad_replies)) as c:
        ens = PostEditEnsembleResource(
            endpoints=[
                EnsembleEndpoint(name=n, base_url=s.base_url, model="m")
                for n, s in (("a", a), ("b", b), ("c", c))
            ],
            cache_dir=str(tmp_path / "cache"),
            max_retries=0,
            paths=paths_for(wh),
        )
        assert materialize(wh, ens).success
    rows = dict(
        ((q, m), d)
        for q, m, d in _q(
            wh,
            "SELECT question_id, member, detail "
            "FROM ensemble_edit_log "
            "WHERE member = 'c' AND status = 'rejected'",
        )
    )
    assert rows[("q1", "c")].startswith("edit_error: original_not_found (inside_braces)")
    assert rows[("q2", "c")].startswith("edit_error: brace_in_fix")
    assert rows[("q3", "c")].startswith("schema_violation")
    assert (
        dict(_q(wh, "SELECT question_id, text_marked FROM questions_postedited"))["q1"]
        == QUESTIONS["q1"]
    )  # nothing applied
    assert _q(wh, "SELECT count(*) FROM ensemble_edit_log WHERE member = 'c' AND applied") == [(0,)]


def test_offline_default_is_the_rule_member(wh):
    r = materialize(wh, PostEditEnsembleResource(paths=paths_for(wh)))
    assert r.success
    # the stage's side tables are assets of the same partition
    materialized = r.asset_materializations_for_node("questions_postedited")
    written = {m.asset_key.to_user_string() for m in materialized}
    assert written == {"questions_postedited", "ensemble_edit_log", "ensemble_stats"}
    assert all(checks_of(r).values())
    after = dict(_q(wh, "SELECT question_id, text_marked FROM questions_postedited"))
    assert after["q2"] == "Quelle est la distance d'{Orly} à {Lyon} ?"
    assert after["q3"] == "Combien de cafés se trouvent à 2 km du {Louvre} ?"
    assert after["q1"] == QUESTIONS["q1"]
    assert set(_q(wh, "SELECT DISTINCT member, status FROM ensemble_edit_log")) == {("rules", "ok")}
    md = metadata_of(r)
    assert md["primary"] == "rules" and md["decisions"] == {"none": 1, "primary_fallback": 2}
    assert md["members"] == {"rules": RuleMember().describe()}
    assert md["rule_shares"] == {"fra:contraction": 0.3333, "fra:elision": 0.3333}
    assert md["operation_shares"] == {"CONTR": 0.3333, "ELIS": 0.3333}


def test_stage_gives_the_rule_member_the_class_of_each_name(wh):
    """Greek articles need the class noun of each named entity: the stage reads it from
    ``entities``."""
    with warehouse.session(wh) as con:
        con.execute(
            "INSERT INTO entities (entity_id, kg, iri, name, display_name, name_unique, "
            "category, types, "
            "geometry, geom_kind, lon, lat, h3, snapshot_id) VALUES "
            "('worldkg:1', 'worldkg', 'x:1', 'Mokra', 'Mokra', true, 'village', [], "
            "ST_Point(0, 0), 'point', 0, 0, [], 's')"
        )
        con.execute(
            "INSERT INTO questions_localized BY NAME SELECT 'ell' AS lang, question_id, "
            "'Είναι {Mokra} μακριά;' AS text, 'Είναι {Mokra} μακριά;' AS text_marked, "
            "'Είναι {entity_A} μακριά;' AS template_text, 'unreviewed' AS template_status, "
            "'[]' AS fallbacks FROM questions_en"
        )
        r = stage.postedit_language(con, "ell", [RuleMember()], "rules")
    assert r["stats"]["rule_shares"] == {"ell:article": 1.0}
    texts = {t for (t,) in _q(wh, "SELECT text FROM questions_postedited WHERE lang = 'ell'")}
    assert texts == {"Είναι το Mokra μακριά;"}


def test_stage_refuses_bad_configuration(wh):
    with warehouse.session(wh) as con:
        with pytest.raises(ValueError, match="primary member 'x'"):
            stage.postedit_language(con, "fra", [RuleMember()], "x")
        with pytest.raises(ValueError, match="unique"):
            stage.postedit_language(con, "fra", [RuleMember(), RuleMember()], "rules")
        with pytest.raises(RuntimeError, match=r"questions_localized\[ita\]"):
            stage.postedit_language(con, "ita", [RuleMember()], "rules")
        with pytest.raises(ValueError):
            stage.postedit_language(con, "xx", [RuleMember()], "rules")
    with pytest.raises(ValueError, match="primary 'z'"):
        PostEditEnsembleResource(primary="z", paths=paths_for(wh)).members("fra")


def test_endpoints_from_the_environment():
    assert parse_endpoints("") == []
    eps = parse_endpoints(
        '[{"name": "q", "base_url": "http://127.0.0.1:9/v1", "model": "qwen", "api_key_env": "K"}]'
    )
    assert eps[0]["model"] == "qwen"
    with pytest.raises(ValueError, match="not JSON"):
        parse_endpoints("qwen@http://x")
    with pytest.raises(ValueError, match="lacks"):
        parse_endpoints('[{"name": "q"}]')
    with pytest.raises(ValueError, match="never in this list"):
        parse_endpoints('[{"name": "q", "base_url": "u", "model": "m", "api_key": "sk-123"}]')


def test_checks_catch_a_touched_name_and_an_unlogged_edit(wh):
    """The blocking checks recompute from the tables: a post-edit that renamed an entity, or a text
    that changed without a logged edit, fails them."""
    from mgqa_dagster.data_quality import multilingual as checks

    assert materialize(wh, PostEditEnsembleResource(paths=paths_for(wh))).success
    by_name = {c.name: c for c in checks.POSTEDIT_CHECKS}
    with warehouse.session(wh) as con:
        con.execute(
            "UPDATE questions_postedited SET text_marked = "
            "replace(text_marked, '{Paris}', '{Pariis}'), "
            "text = replace(text, 'Paris', 'Pariis') WHERE question_id = 'q1'"
        )
        assert by_name["entity_names_untouched"].run(con, "fra").passed is False
        assert (
            by_name["edits_logged"].run(con, "fra").passed is False
        )  # changed, but no edit applied or logged
        con.execute(
            "UPDATE questions_postedited SET text_marked = text_marked_localized, "
            "text = replace(text_marked_localized, '{', '') "
            "WHERE question_id = 'q1'"
        )
        assert (
            by_name["entity_names_untouched"].run(con, "fra").passed is False
        )  # "}" left in the text
        con.execute(
            "UPDATE questions_postedited SET text = "
            "replace(replace(text_marked_localized, '{', ''), '}', '') "
            "WHERE question_id = 'q1'"
        )
        assert by_name["entity_names_untouched"].run(con, "fra").passed is True
        con.execute(
            "DELETE FROM ensemble_edit_log WHERE question_id = 'q2'"
        )  # q2's elision is no longer logged
        assert by_name["edits_logged"].run(con, "fra").passed is False
        con.execute("DELETE FROM questions_postedited WHERE question_id = 'q3'")
        assert by_name["every_localized_question_postedited"].run(con, "fra").passed is False
