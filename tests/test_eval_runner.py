"""The resumable model runner and the agent loop against the fake OpenAI-compatible server (real
HTTP)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from pyproj import Geod

from mgqa_platform.evaluation import prompts as P
from mgqa_platform.evaluation import runner
from mgqa_platform.llm import ChatClient
from tests.fake_openai import FakeOpenAI, Reply, completion_body, user_text

REPO = Path(__file__).resolve().parent.parent
KEY = "sk-runner-secret-456"
A_WKT, B_WKT = "POINT (-8.19704 4.76462)", "POINT (-8.0 5.0)"
TRIPLES = [
    ["geo/node/1", "geo:asWKT", A_WKT],
    ["geo/node/2", "geo:asWKT", B_WKT],
    ["node/1", "geo:hasGeometry", "geo/node/1"],
    ["node/1", "name", "Fleneken"],
    ["node/2", "geo:hasGeometry", "geo/node/2"],
    ["node/2", "name", "Zwedru"],
]


def dq(i: int, **kw) -> dict:
    """A tiny distance question whose gold is i km."""
    q = {
        "question_id": f"q{i:03d}",
        "lang": "eng",
        "kg": "osmh3kg",
        "sfid": "A",
        "sub_template_id": "A01.1",
        "text": f"How far is Fleneken from place number {i}?",
        "answer_format": "distance",
        "gold": json.dumps({"value": float(i), "unit": "km"}),
        "unit": "km",
        "parameters": "{}",
        "gold_triples": json.dumps(TRIPLES),
        "entity_subjects": "{}",
        "false_premise": False,
        "multimodal": False,
        "image_url": None,
    }
    q.update(kw)
    return q


def lookup_handler(req) -> str:
    """Answers question i with i km, read from the question text in the prompt."""
    m = re.search(r"place number (\d+)\?", user_text(req))
    return json.dumps(
        {"answer": {"value": float(m.group(1)), "unit": "km"}, "premise_rejected": False}
    )


def make_client(srv: FakeOpenAI, **kw) -> ChatClient:
    kw.setdefault("sleep", lambda s: None)
    return ChatClient(srv.base_url, "fake-model", **kw)


def lines(out: Path) -> list[dict]:
    return [json.loads(ln) for ln in (out / runner.PREDICTIONS).read_text().splitlines()]


def test_run_writes_one_line_per_question_with_statuses(tmp_path):
    qs = [dq(1), dq(2), dq(3, false_premise=True, gold='{"rejected": true}'), dq(4), dq(5)]

    def handler(req):
        text = user_text(req)
        if "place number 3?" in text:
            return json.dumps({"answer": None, "premise_rejected": True})
        if "place number 4?" in text:
            return "I think it is about 4 km."  # not JSON -> format_error
        if "place number 5?" in text:
            return Reply(status=500)  # always failing -> harness_error
        return lookup_handler(req)

    with FakeOpenAI(handler) as srv:
        summary = runner.run(
            qs + [dq(1)],
            make_client(srv, api_key=KEY, max_retries=1),
            P.T1,
            tmp_path,
            system_name="fake-sys",
            concurrency=2,
        )
        for req in srv.requests:
            assert req.body["response_format"]["json_schema"]["strict"] is True
            assert (
                req.body["temperature"] == 0.0 and req.headers["authorization"] == f"Bearer {KEY}"
            )
    recs = {r["question_id"]: r for r in lines(tmp_path)}
    assert len(lines(tmp_path)) == 5 and set(recs) == {"q001", "q002", "q003", "q004", "q005"}
    assert recs["q001"]["status"] == "answered" and recs["q001"]["answer"] == {
        "value": 1.0,
        "unit": "km",
    }
    assert recs["q003"]["status"] == "refused" and recs["q003"]["answer"] == {"rejected": True}
    assert (
        recs["q004"]["status"] == "format_error"
        and recs["q004"]["raw"] == "I think it is about 4 km."
    )
    assert recs["q004"]["detail"].startswith("not_json")
    assert recs["q005"]["status"] == "harness_error" and recs["q005"]["attempts"] == 2
    assert "http_500" in recs["q005"]["detail"]
    assert set(recs["q001"]) == {
        "question_id",
        "system",
        "tier",
        "status",
        "answer",
        "raw",
        "detail",
        "usage",
        "attempts",
        "steps",
        "tool_calls",
    }
    assert recs["q001"]["usage"] == {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "total_tokens": 15,
    }
    assert summary.counts == {"answered": 2, "format_error": 1, "harness_error": 1, "refused": 1}
    assert (
        summary.usage["total_tokens"] == 4 * 15 and summary.written == 5 and summary.selected == 5
    )
    config = json.loads((tmp_path / runner.RUN_CONFIG).read_text())
    assert (
        config["model"] == "fake-model"
        and config["tier"] == "T1"
        and config["system"] == "fake-sys"
    )
    assert config["endpoint"].startswith("http://127.0.0.1:") and config["questions"] == 5
    for f in tmp_path.iterdir():
        assert KEY not in f.read_text(errors="replace")
    loaded = runner.load_predictions(tmp_path)
    assert set(loaded) == set(recs)
    with pytest.raises(ValueError, match="tier"):
        runner.run(
            qs,
            ChatClient("http://127.0.0.1:9/v1", "fake-model"),
            P.T2,
            tmp_path,
            system_name="fake-sys",
        )


def test_concurrency_bound_and_deterministic_rerun(tmp_path):
    qs = [dq(i) for i in range(1, 10)]
    with FakeOpenAI(lookup_handler, delay=0.1) as srv:
        runner.run(qs, make_client(srv), P.T2, tmp_path / "a", system_name="s", concurrency=3)
        assert 2 <= srv.max_in_flight <= 3
        srv.delay = 0.0
        again = runner.run(qs, make_client(srv), P.T2, tmp_path / "a", system_name="s")
        assert (
            again.written == 0 and again.skipped == 9 and len(srv.requests) == 9
        )  # nothing re-asked
        runner.run(qs, make_client(srv), P.T2, tmp_path / "b", system_name="s", concurrency=1)
        assert '"reasoning"' in json.dumps(srv.requests[0].body["response_format"])
    a = sorted((tmp_path / "a" / runner.PREDICTIONS).read_text().splitlines())
    b = sorted((tmp_path / "b" / runner.PREDICTIONS).read_text().splitlines())
    assert a == b and len(a) == 9
    sample = runner._select(qs, 4, seed=1)
    assert len(sample) == 4 and sample == runner._select(list(reversed(qs)), 4, seed=1)[::-1]


_CHILD = """
import json, sys
from mgqa_platform.llm import ChatClient
from mgqa_platform.evaluation import runner
qs = json.loads(sys.argv[3])
client = ChatClient(sys.argv[1], "fake-model")
runner.run(qs, client, "T1", sys.argv[2], system_name="fake", concurrency=2)
"""


def test_killed_run_resumes(tmp_path):
    qs = [dq(i) for i in range(1, 9)]
    out = tmp_path / "run"
    pred = out / runner.PREDICTIONS
    with FakeOpenAI(lookup_handler, delay=0.3) as srv:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, srv.base_url, str(out), json.dumps(qs)], env=env
        )
        try:
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                if pred.exists() and pred.read_text().count("\n") >= 2:
                    break
                time.sleep(0.02)
            os.kill(child.pid, signal.SIGKILL)
        finally:
            child.wait()
        assert child.returncode == -signal.SIGKILL
        before = {r["question_id"] for r in lines(out)}
        assert 2 <= len(before) < 8
        torn = b'{"question_id": "q-torn", "status": "answ'
        with open(pred, "ab") as f:
            f.write(torn)  # a torn write by a killed writer
        srv.delay = 0.0
        summary = runner.run(qs, make_client(srv), P.T1, out, system_name="fake")
    recs = lines(out)
    ids = [r["question_id"] for r in recs]
    assert sorted(ids) == [q["question_id"] for q in qs]  # every question exactly once
    assert (out / "predictions.jsonl.corrupt").read_bytes() == torn + b"\n"
    assert (
        summary.corrupt == 1
        and summary.skipped == len(before)
        and summary.written == 8 - len(before)
    )
    assert summary.usage["total_tokens"] == 15 * (8 - len(before))
    assert summary.file_usage == {"prompt_tokens": 80, "completion_tokens": 40, "total_tokens": 120}
    assert sum(r["usage"]["total_tokens"] for r in recs) == 120
    assert summary.file_counts == {"answered": 8}


def test_repair_moves_unparsable_middle_lines(tmp_path):
    p = tmp_path / runner.PREDICTIONS
    good = json.dumps({"question_id": "a", "status": "answered"})
    p.write_text(f"{good}\nnot json\n{json.dumps({'question_id': 'a', 'status': 'refused'})}\n")
    recs, bad = runner.repair(p)
    assert bad == 1 and [r["status"] for r in recs] == ["answered", "refused"]
    assert (
        p.read_text().count("\n") == 2
        and (tmp_path / "predictions.jsonl.corrupt").read_text() == "not json\n"
    )
    assert runner.load_predictions(p)["a"]["status"] == "refused"  # last line per id wins


# ---------------------------------------------------------------- agent tiers
_GEODESIC_CODE = """\
facts = {f["subject"]: f["facts"] for f in triples()}
a = shapely.wkt.loads(facts["geo/node/1"]["geo:asWKT"][0])
b = shapely.wkt.loads(facts["geo/node/2"]["geo:asWKT"][0])
_, _, metres = GEOD.inv(a.x, a.y, b.x, b.y)
print(json.dumps({"km": round(metres / 1000.0, 3)}))
"""


def agent_handler(code: str, final):
    """Step 1: send ``code``; step 2: ``final(output_of_step_1)`` as the final answer."""

    def handler(req):
        msgs = req.body["messages"]
        if len(msgs) == 2:
            return json.dumps({"thought": "compute", "code": code, "final_answer": None})
        return json.dumps(
            {"thought": "done", "code": None, "final_answer": final(msgs[-1]["content"])}
        )

    return handler


@pytest.mark.requires_tool("bwrap")
def test_agent_oracle_computes_a_geodesic_distance(tmp_path):
    expected = round(Geod(ellps="WGS84").inv(-8.19704, 4.76462, -8.0, 5.0)[2] / 1000.0, 3)

    def final(output: str):
        km = json.loads(re.search(r"\{.*\}", output).group(0))["km"]
        return {"answer": {"value": km, "unit": "km"}, "premise_rejected": False}

    with FakeOpenAI(agent_handler(_GEODESIC_CODE, final)) as srv:
        summary = runner.run([dq(1)], make_client(srv), P.T3O, tmp_path, system_name="agent")
        assert "triples()" in srv.requests[0].body["messages"][1]["content"]
        assert srv.requests[0].body["response_format"]["json_schema"]["name"] == "agent_step"
    (rec,) = lines(tmp_path)
    assert rec["status"] == "answered" and rec["answer"] == {"value": expected, "unit": "km"}
    assert (rec["steps"], rec["tool_calls"], rec["attempts"]) == (2, 1, 2)
    assert rec["usage"]["total_tokens"] == 30 and summary.counts == {"answered": 1}


@pytest.mark.requires_tool("bwrap")
def test_agent_kg_tools_are_read_only_and_the_environment_is_not_passed(tmp_path, monkeypatch):
    wh = tmp_path / "wh.duckdb"
    con = duckdb.connect(str(wh))
    con.execute(
        "CREATE TABLE entities (entity_id VARCHAR, kg VARCHAR, name VARCHAR, display_name VARCHAR, "
        "category VARCHAR, lon DOUBLE, lat DOUBLE, geom_kind VARCHAR)"
    )
    con.execute(
        "INSERT INTO entities "
        "VALUES ('osmh3kg:node/1', 'osmh3kg', 'Fleneken', 'Fleneken', 'village', "
        "-8.19704, 4.76462, 'point'), ('osmh3kg:node/2', 'osmh3kg', 'Old Fleneken Road', "
        "'Old Fleneken Road', 'road', -8.1, 4.7, 'line')"
    )
    con.execute(
        "CREATE TABLE entity_triples (entity_id VARCHAR, kg VARCHAR, s VARCHAR, p VARCHAR, "
        "o VARCHAR)"
    )
    con.executemany(
        "INSERT INTO entity_triples VALUES ('osmh3kg:node/1', 'osmh3kg', ?, ?, ?)", TRIPLES[:4]
    )
    con.close()
    monkeypatch.setenv("MGQA_TEST_SECRET", "do-not-leak")
    code = """\
import os
hits = search_entities("fleneken")
print("hits", [h["name"] for h in hits])
print("triples", len(entity_triples(hits[0]["entity_id"])))
print("rows", sql("SELECT count(*) AS n FROM entities")[0]["n"])
try:
    sql("DELETE FROM entities")
except Exception as exc:
    print("refused", type(exc).__name__)
print("secret", os.environ.get("MGQA_TEST_SECRET"))
"""
    outputs: list[str] = []

    def final(output: str):
        outputs.append(output)
        return {"answer": {"value": 1.0, "unit": "km"}, "premise_rejected": False}

    with FakeOpenAI(agent_handler(code, final)) as srv:
        runner.run(
            [dq(1)], make_client(srv), P.T3A, tmp_path / "out", system_name="agent", warehouse=wh
        )
    (rec,) = lines(tmp_path / "out")
    assert rec["status"] == "answered" and rec["tool_calls"] == 4, rec
    out = outputs[0]
    assert (
        "hits ['Fleneken', 'Old Fleneken Road']" in out and "triples 4" in out and "rows 2" in out
    )
    assert "refused ValueError" in out and "secret None" in out
    with pytest.raises(ValueError, match="warehouse"):
        runner.run(
            [dq(1)],
            ChatClient("http://127.0.0.1:9/v1", "m"),
            P.T3A,
            tmp_path / "x",
            system_name="agent",
        )


@pytest.mark.requires_tool("bwrap")
def test_agent_budget_exhaustion_and_bad_steps(tmp_path):
    replies = iter(
        [
            '{"thought": "hmm", "code": null, "final_answer": null}',
            "not json at all",
            '{"thought": "still thinking", "code": null, "final_answer": null}',
        ]
    )
    with FakeOpenAI(lambda req: next(replies)) as srv:
        runner.run([dq(1)], make_client(srv), P.T3O, tmp_path, system_name="agent", max_steps=3)
        assert len(srv.requests) == 3
        assert "not a valid step object" in srv.requests[2].body["messages"][-1]["content"]
    (rec,) = lines(tmp_path)
    assert rec["status"] == "budget_exhausted" and rec["answer"] is None
    assert (rec["steps"], rec["tool_calls"]) == (3, 0) and rec["usage"]["total_tokens"] == 45
    assert rec["detail"].startswith("no final answer after 3 steps")


@pytest.mark.requires_tool("bwrap")
def test_agent_step_timeout_and_output_truncation(tmp_path):
    from mgqa_platform.evaluation.agent import Sandbox

    with Sandbox(P.T3O, triples=[], timeout_s=3, max_output_chars=200) as box:
        out, n = box.run("print('x' * 500 + 'END')")
        assert (
            out.startswith("x" * 100)
            and "truncated to 200" in out
            and out.rstrip().endswith("END")
            and n == 0
        )
        out, _ = box.run("import time\nprint('start', flush=True)\ntime.sleep(30)")
        assert "start" in out and "time limit" in out
        out, _ = box.run("raise RuntimeError('boom')")
        assert "RuntimeError: boom" in out and 'File "step.py", line 1' in out


def test_retrieval_tools_get_a_kg_only_copy_without_golds(tmp_path):
    """T3a's sql() runs any SELECT, so the agent gets the KG tables only: no questions_en, no
    scores."""
    from mgqa_platform import warehouse
    from mgqa_platform.evaluation.agent import KG_TABLES, export_kg

    src = tmp_path / "warehouse.duckdb"
    with warehouse.session(src) as con:
        warehouse.ensure_schema(con)
        con.execute(
            "INSERT INTO entity_labels VALUES ('worldkg:1', 'worldkg', 'en', 'Fleneken', false)"
        )
    dest = export_kg(src, tmp_path / "run" / "kg.duckdb")
    with duckdb.connect(str(dest), read_only=True) as con:
        tables = {
            r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()
        }
        assert tables == set(KG_TABLES)
        assert con.execute("SELECT label FROM entity_labels").fetchall() == [("Fleneken",)]
    assert export_kg(src, dest) == dest and not dest.with_suffix(".partial").exists()


# ---------------------------------------------------------------- secrets, deadline, retries
CANARY = "sk-canary-5e0c29d8a4f1b7e36d9a02c4f8b1e7a3"


def canary_handler(req) -> Reply | str:
    """A hostile endpoint: echoes the bearer key in reply content, schema values, error bodies
    (where a 300-character cut falls inside it) and broken envelopes."""
    key = req.headers["authorization"].removeprefix("Bearer ")
    text = user_text(req)
    pad = "p" * 280  # with the text before and after, the old 300-character cut fell inside the key
    if "place number 1?" in text:
        return f"I will not answer; but your key is {key}"
    if "place number 2?" in text:
        return json.dumps({"answer": {"value": key, "unit": "km"}, "premise_rejected": False})
    if "place number 3?" in text:
        return Reply(status=401, body=f'{{"error": "{pad[:270]} bad key {key}"}}'.encode())
    if "place number 4?" in text:
        return Reply(status=503, body=f"{pad[:270]} overloaded, key={key}".encode())
    if "place number 5?" in text:
        return Reply(body=f"<html>{pad[:280]} {key}".encode())
    if "place number 6?" in text:  # an answer whose reasoning quotes the key
        return json.dumps(
            {"reasoning": f"the header said {key}", "answer": {"value": 6.0, "unit": "km"}}
            | {"premise_rejected": False}
        )
    msgs = req.body["messages"]  # agent tier: code that prints the key, then a final answer
    if len(msgs) == 2:
        return json.dumps({"thought": key, "code": f"print({key!r})", "final_answer": None})
    return json.dumps(
        {"thought": key, "code": None, "final_answer": {"answer": key, "premise_rejected": 7}}
    )


@pytest.mark.requires_tool("bwrap")
def test_a_canary_key_echoed_by_the_server_never_reaches_disk(tmp_path, caplog, capsys):
    import logging

    from mgqa_platform import warehouse
    from mgqa_platform.evaluation import evaluate, report

    caplog.set_level(logging.DEBUG)
    qs = [dq(i, income_tier="high", density_tier="urban") for i in range(1, 8)]
    with FakeOpenAI(canary_handler) as srv:
        client = make_client(srv, api_key=CANARY, max_retries=1)
        runner.run(qs[:6], client, P.T2, tmp_path / "t2", system_name="hostile")
        runner.run(qs[6:], client, P.T3O, tmp_path / "t3", system_name="hostile", max_steps=3)
    recs = {**runner.load_predictions(tmp_path / "t2"), **runner.load_predictions(tmp_path / "t3")}
    statuses = {qid: r["status"] for qid, r in recs.items()}
    assert statuses == {
        "q001": "format_error",
        "q002": "format_error",
        "q003": "harness_error",
        "q004": "harness_error",
        "q005": "harness_error",
        "q006": "answered",
        "q007": "budget_exhausted",  # its final answers break the schema, quoting the key
    }, statuses
    assert "***" in recs["q003"]["detail"] and "***" in recs["q001"]["raw"]
    rows = evaluate.score_rows("hostile", "small", "eng", qs, recs)
    with warehouse.session(tmp_path / "warehouse.duckdb") as con:
        warehouse.ensure_schema(con)
        evaluate.write_scores(con, rows, "hostile", "small", "eng")
        stored = json.dumps(con.execute("SELECT * FROM scores").fetchall(), default=str)
    report.write_report(rows, tmp_path / "report", "hostile")
    out = capsys.readouterr()
    texts = [stored, caplog.text, out.out, out.err] + [
        p.read_bytes().decode("latin-1") for p in tmp_path.rglob("*") if p.is_file()
    ]
    assert len(texts) > 8
    for text in texts:
        for n in range(8, len(CANARY) + 1):
            assert CANARY[:n] not in text, (n, text[:400])
        assert CANARY[-12:] not in text


def test_a_trickling_server_is_cut_at_the_request_deadline(tmp_path):
    body = completion_body('{"answer": {"value": 1.0, "unit": "km"}, "premise_rejected": false}')
    with FakeOpenAI(lambda req: Reply(body=body, trickle=0.5)) as srv:
        client = make_client(srv, timeout_s=5, deadline_s=2, max_retries=1)
        t0 = time.monotonic()
        summary = runner.run([dq(1)], client, P.T1, tmp_path, system_name="s")
        took = time.monotonic() - t0
    (rec,) = lines(tmp_path)
    assert rec["status"] == "harness_error" and rec["attempts"] == 2, rec
    assert "deadline" in rec["detail"] and summary.counts == {"harness_error": 1}
    assert 4 <= took < 8, (
        took
    )  # two attempts, each cut at 2 s, though every read got a byte in time
    with FakeOpenAI(lambda req: Reply(body=body, trickle=0.002)) as srv:
        obj, res = make_client(srv, deadline_s=10).complete_json(
            [{"role": "user", "content": "x"}], {"type": "object"}
        )
    assert obj["answer"]["value"] == 1.0 and res.attempts == 1


def test_harness_errors_are_asked_again_on_resume_and_replaced(tmp_path):
    qs = [dq(i) for i in range(1, 6)]
    down = {"on": True}

    def handler(req):
        if down["on"] and re.search(r"place number [24]\?", user_text(req)):
            return Reply(status=503)
        return lookup_handler(req)

    with FakeOpenAI(handler) as srv:
        first = runner.run(qs, make_client(srv, max_retries=0), P.T1, tmp_path, system_name="s")
        assert first.counts == {"answered": 3, "harness_error": 2}
        kept = runner.run(qs, make_client(srv), P.T1, tmp_path, system_name="s", retry_errors=False)
        assert kept.written == 0 and kept.retried == 0 and len(srv.requests) == 5
        down["on"] = False
        again = runner.run(qs, make_client(srv), P.T1, tmp_path, system_name="s")
        assert len(srv.requests) == 7  # only the two failed questions were asked again
    assert again.retried == 2 and again.written == 2 and again.skipped == 3
    recs = lines(tmp_path)
    assert sorted(r["question_id"] for r in recs) == [q["question_id"] for q in qs]
    assert {r["status"] for r in recs} == {"answered"} and again.file_counts == {"answered": 5}
    moved = [json.loads(x) for x in (tmp_path / runner.RETRIED).read_text().splitlines()]
    assert sorted(r["question_id"] for r in moved) == ["q002", "q004"]
    assert {r["status"] for r in moved} == {"harness_error"}
