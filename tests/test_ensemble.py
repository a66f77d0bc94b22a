"""The post-edit ensemble (mgqa_platform/multilingual/ensemble.py): the edit gate, the rule member,
LLM members against real local HTTP servers (tests/fake_openai.py), voting and stats."""

from __future__ import annotations

import json

import pytest

from mgqa_platform.llm import ChatClient
from mgqa_platform.multilingual.ensemble import (
    EDITS_SCHEMA,
    OPERATIONS,
    Edit,
    EditError,
    LLMMember,
    Proposal,
    RuleMember,
    apply_edits,
    postedit,
    stats,
    unmark,
    vote,
)
from tests.fake_openai import FakeOpenAI, Reply, user_text

NNBSP = "\u202f"


def rules(lang: str, text: str, **kw) -> str:
    p = RuleMember(**kw).propose({"lang": lang, "text_marked": text})
    assert p.status == "ok" and p.member == "rules"
    return apply_edits(text, p.edits)


def client(srv: FakeOpenAI) -> ChatClient:
    return ChatClient(srv.base_url, "fake-model", max_retries=0, sleep=lambda s: None)


def edits_json(*triples) -> str:
    return json.dumps({"edits": [{"op": o, "original": a, "fix": b} for o, a, b in triples]})


# -------------------------------------------------------------------------------------- apply_edits
def test_operations_are_the_13_codes():
    assert len(OPERATIONS) == 13 and "NOCHG" in OPERATIONS and "ELIS" in OPERATIONS
    assert EDITS_SCHEMA["properties"]["edits"]["maxItems"] == 25
    assert EDITS_SCHEMA["properties"]["edits"]["items"]["properties"]["op"]["enum"] == list(
        OPERATIONS
    )


def test_apply_edits_never_touches_text_inside_braces():
    text = "Vers {de Gaulle} puis de {Orly}"
    # the "de " inside {de Gaulle} comes first but is not a candidate: the one outside is replaced
    out = apply_edits(text, [Edit("ELIS", "de ", "d'")])
    assert out == "Vers {de Gaulle} puis d'{Orly}"
    assert unmark(out) == "Vers de Gaulle puis d'Orly"
    # an original only present inside a span is refused
    with pytest.raises(EditError, match="inside_braces"):
        apply_edits("Où est {Gare de Lyon} ?", [Edit("OTHER", "Gare", "gare")])
    with pytest.raises(EditError, match="absent"):
        apply_edits("Où est {X} ?", [Edit("OTHER", "nowhere", "x")])


def test_apply_edits_adjacent_to_braces():
    text = "Est-ce que {Orly} est au nord de {Paris}?"
    out = apply_edits(text, [Edit("ELIS", "que ", "qu'"), Edit("PUNCT", "?", NNBSP + "?")])
    assert out == "Est-ce qu'{Orly} est au nord de {Paris}" + NNBSP + "?"
    # an original may start right after "}" and end right before "{"
    assert apply_edits("{A}  et {B}", [Edit("PUNCT", "  et ", " et ")]) == "{A} et {B}"


def test_apply_edits_rejects_braces_unknown_ops_and_bad_nochg():
    with pytest.raises(EditError, match="brace_in_fix"):
        apply_edits("près de {Orly} ?", [Edit("OTHER", "près de ", "près de {")])
    with pytest.raises(EditError, match="brace_in_original"):
        apply_edits("près de {Orly} ?", [Edit("ELIS", "de {", "d'{")])
    with pytest.raises(EditError, match="unknown_op"):
        apply_edits("près de {Orly} ?", [Edit("REWRITE", "près", "vers")])
    with pytest.raises(EditError, match="nochg"):
        apply_edits("près de {Orly} ?", [Edit("NOCHG", "près", "près")])
    assert (
        apply_edits("près de {Orly} ?", [Edit("NOCHG", "", ""), ("OTHER", "près", "Près")])
        == "Près de {Orly} ?"
    )


# --------------------------------------------------------------------------------------- RuleMember
def test_french_elision_looks_inside_the_braces():
    assert rules("fra", "La distance de {Orly} à {Paris} ?") == "La distance d'{Orly} à {Paris} ?"
    assert rules("fra", "Est-ce que {Écully} est au nord ?") == "Est-ce qu'{Écully} est au nord ?"
    assert rules("fra", "Forme de {Hôtel de Ville} ?") == "Forme d'{Hôtel de Ville} ?"  # mute h
    for name in ("Paris", "Harlem", "Yaoundé", "1 rue X"):  # consonant, aspirated h, y, digit
        assert (
            rules("fra", f"Quelle est la distance de {{{name}}} ?")
            == f"Quelle est la distance de {{{name}}} ?"
        )
    assert rules("fra", "Combien de écoles près de {Lyon} ?") == "Combien d'écoles près de {Lyon} ?"


def test_french_contraction_and_punctuation():
    assert rules("fra", "Au nord de le {Louvre} ?") == "Au nord du {Louvre} ?"
    assert rules("fra", "À le {Louvre} et de les {Halles} ?") == "Au {Louvre} et des {Halles} ?"
    assert rules("fra", "Au nord de le {Orly} ?") == "Au nord de l'{Orly} ?"  # elision, not "du"
    assert rules("fra", "Où est {Paris}?") == "Où est {Paris}" + NNBSP + "?"
    assert rules("fra", "Lequel : {A} ou {B}?") == "Lequel : {A} ou {B}" + NNBSP + "?"
    assert (
        rules("fra", "Où est {Paris} ?") == "Où est {Paris} ?"
    )  # a plain space is accepted by default
    assert rules("fra", "Où est {Paris} ?", nnbsp=True) == "Où est {Paris}" + NNBSP + "?"
    assert (
        rules("fra", "Où est {Hafia?} ?") == "Où est {Hafia?} ?"
    )  # "?" inside a name is left alone
    assert rules("fra", "Vers 10:30 à {X} ?") == "Vers 10:30 à {X} ?"


def test_italian_portuguese_spanish_contractions():
    assert (
        rules("ita", "Quanto dista di il {Po} a gli {Uffizi}?")
        == "Quanto dista del {Po} agli {Uffizi}?"
    )
    assert (
        rules("ita", "Cosa c'è in la {Roma} e su l'{Arno}?")
        == "Cosa c'è nella {Roma} e sull'{Arno}?"
    )
    assert rules("ita", "Dove si trova {A} ?") == "Dove si trova {A}?"
    assert rules("por", "Qual a distância de o {A} em a {B}?") == "Qual a distância do {A} na {B}?"
    assert rules("por", "Vá a o {A} por as {B}?") == "Vá ao {A} pelas {B}?"
    assert rules("spa", "¿Distancia de el {A} a el {B} ?") == "¿Distancia del {A} al {B}?"
    assert (
        rules("spa", "¿Distancia de {El Salvador} a {A}?") == "¿Distancia de {El Salvador} a {A}?"
    )


def test_rules_keep_braces_and_other_languages_rules_do_not_leak():
    for lang in ("jpn", "kat", "zho", "tur", "ell"):  # the French rules stay French
        p = RuleMember().propose({"lang": lang, "text_marked": "de le {Orly}"})
        assert p == Proposal("rules", "ok", (), None)
    p = RuleMember().propose({"lang": "xxx", "text_marked": "de le {Orly} ?"})
    assert p == Proposal("rules", "ok", (), None)  # an unknown language gets no edit at all
    p = RuleMember().propose({"lang": "fra", "text_marked": "Distance de {Orly} de {Orly}?"})
    for e in p.edits:
        assert "{" not in e.original + e.fix and "}" not in e.original + e.fix
    out = apply_edits("Distance de {Orly} de {Orly}?", p.edits)
    assert out.startswith("Distance d'{Orly} ") and out.endswith("{Orly}" + NNBSP + "?")


# --------------------------------------------------------------------------------------------- vote
def test_vote_majority_fallback_and_none():
    a, b = Edit("ELIS", "de ", "d'"), Edit("PUNCT", " ?", "?")
    ok = lambda m, *e: Proposal(m, "ok", tuple(e), None)  # noqa: E731
    assert vote(
        {"p": ok("p", a), "q": ok("q", Edit("OTHER", "de ", "d'")), "r": ok("r", b)}, "r"
    ) == ((a,), "majority")  # the op label does not matter
    assert vote({"p": ok("p", a), "q": ok("q", b)}, "q") == ((b,), "primary_fallback")
    assert vote({"p": Proposal("p", "rejected", (a,), "x"), "q": ok("q", b)}, "p") == ((), "none")
    assert vote({"p": Proposal("p", "rejected", (a,), "x"), "q": ok("q", a)}, "q") == (
        (a,),
        "primary_fallback",
    )
    # with the question, edits with the same effect agree even with different context
    text = "Distance de {Orly} ?"
    got = vote(
        {"p": ok("p", Edit("ELIS", "Distance de ", "Distance d'")), "q": ok("q", a)}, "q", text
    )
    assert got == ((a,), "majority")


# ------------------------------------------------------------------------------------- fake servers
FR_Q = {
    "question_id": "q1",
    "lang": "fra",
    "text_marked": "Quelle est la distance de {Orly} à {Paris}?",
    "template_text": "Quelle est la distance de {entity_A} à {entity_B}?",
    "template_en": "What is the distance from {entity_A} to {entity_B}?",
}


def test_agreeing_members_majority_applied():
    with (
        FakeOpenAI(lambda req: edits_json(("ELIS", "la distance de ", "la distance d'"))) as s1,
        FakeOpenAI(
            lambda req: edits_json(("ELIS", "de ", "d'"), ("OTHER", "Quelle", "quelle"))
        ) as s2,
    ):
        members = [RuleMember(), LLMMember("m1", client(s1)), LLMMember("m2", client(s2))]
        res = postedit(FR_Q, members, primary="m1")
        body = s1.requests[0].body
        assert body["response_format"]["json_schema"]["schema"] == EDITS_SCHEMA
        sent = user_text(s1.requests[0])
        assert "French" in sent and FR_Q["text_marked"] in sent and FR_Q["template_en"] in sent
        assert "ART_ADD" in sent and "{" in body["messages"][0]["content"]
    # the elision has 3 votes; the rules' PUNCT and m2's casing have one each -> not applied
    assert res["decision"] == "majority"
    assert res["text_marked"] == "Quelle est la distance d'{Orly} à {Paris}?"
    assert res["text"] == "Quelle est la distance d'Orly à Paris?"
    applied = {(e["member"], e["op"]) for e in res["edits"] if e["applied"]}
    assert applied == {("rules", "ELIS"), ("m1", "ELIS"), ("m2", "ELIS")}
    assert {(e["member"], e["op"]) for e in res["edits"] if not e["applied"]} == {
        ("rules", "PUNCT"),
        ("m2", "OTHER"),
    }
    assert all(m["status"] == "ok" for m in res["members"].values())


def test_disagreeing_members_primary_fallback():
    with (
        FakeOpenAI(lambda req: edits_json(("PUNCT", "?", NNBSP + "?"))) as s1,
        FakeOpenAI(lambda req: edits_json(("ART_CHG", "la distance", "le distance"))) as s2,
    ):
        members = [LLMMember("m1", client(s1)), LLMMember("m2", client(s2))]
        res = postedit(FR_Q, members, primary="m2")
    assert res["decision"] == "primary_fallback"
    assert res["text_marked"] == "Quelle est le distance de {Orly} à {Paris}?"
    assert [(e["member"], e["applied"]) for e in res["edits"]] == [("m1", False), ("m2", True)]


@pytest.mark.parametrize(
    "bad, reason",
    [
        (Reply("this is not JSON"), "not_json"),
        (Reply('{"edits": [{"op": "REWRITE", "original": "a", "fix": "b"}]}'), "schema_violation"),
        (
            Reply(edits_json(("OTHER", "Orly", "Orlyville"))),
            "edit_error: original_not_found (inside_braces)",
        ),
        (Reply(edits_json(("OTHER", "de ", "de {"))), "edit_error: brace_in_fix"),
        (Reply("{}", status=500), None),
    ],
)
def test_malformed_replies_are_rejected_and_the_others_still_vote(bad, reason):
    with (
        FakeOpenAI(lambda req: edits_json(("ELIS", "de ", "d'"))) as good,
        FakeOpenAI(lambda req: bad) as broken,
    ):
        members = [LLMMember("bad", client(broken)), LLMMember("good", client(good)), RuleMember()]
        res = postedit(FR_Q, members, primary="bad")
    status = res["members"]["bad"]
    if reason is None:  # transport failure
        assert status["status"] == "error" and "http_500" in status["detail"]
    else:
        assert status["status"] == "rejected" and status["detail"].startswith(reason)
    assert res["decision"] == "majority"  # good + rules agree on the elision
    assert res["text_marked"] == "Quelle est la distance d'{Orly} à {Paris}?"
    assert not any(e["applied"] for e in res["edits"] if e["member"] == "bad")
    if reason and reason.startswith("edit_error"):
        assert [e["member"] for e in res["edits"]].count(
            "bad"
        ) == 1  # the refused edit is still logged


def test_postedit_survives_a_crashing_member():
    class Boom:
        name = "boom"

        def propose(self, question):
            raise RuntimeError("kaput")

    res = postedit(FR_Q, [Boom(), RuleMember()], primary="boom")
    assert res["members"]["boom"]["status"] == "error"
    assert res["decision"] == "none" and res["text_marked"] == FR_Q["text_marked"]


def test_stats():
    results = [
        {
            "decision": "majority",
            "applied": [{"op": "ELIS", "original": "de ", "fix": "d'"}],
            "edits": [
                {"member": "a", "op": "ELIS", "original": "de ", "fix": "d'", "applied": True},
                {"member": "b", "op": "ELIS", "original": "de ", "fix": "d'", "applied": True},
            ],
            "members": {"a": {"status": "ok"}, "b": {"status": "ok"}},
        },
        {
            "decision": "primary_fallback",
            "applied": [
                {"op": "PUNCT", "original": "?", "fix": " ?"},
                {"op": "CONTR", "original": "de le", "fix": "du"},
            ],
            "edits": [],
            "members": {"a": {"status": "ok"}, "b": {"status": "rejected"}},
        },
        {
            "decision": "none",
            "applied": [],
            "edits": [],
            "members": {"a": {"status": "error"}, "b": {"status": "rejected"}},
        },
        {
            "decision": "none",
            "applied": [],
            "edits": [{"member": "a", "op": "NOCHG", "original": "", "fix": "", "applied": False}],
            "members": {"a": {"status": "ok"}, "b": {"status": "ok"}},
        },
    ]
    s = stats(results)
    assert s["n"] == 4 and s["share_edited"] == 0.5 and s["share_majority"] == 0.25
    assert s["operations"] == {"ELIS": 1, "PUNCT": 1, "CONTR": 1}
    assert s["proposed_operations"] == {"ELIS": 2}
    assert s["rejected"] == {"a": 0, "b": 2} and s["errors"] == {"a": 1, "b": 0}
    assert s["decisions"] == {"majority": 1, "primary_fallback": 1, "none": 2}
    assert stats([])["share_edited"] == 0.0


def test_rules_report_matches_they_cannot_anchor():
    text = "Le long de la côte, quelle distance sépare {Lyon} de {Orly} ?"
    p = RuleMember().propose({"lang": "fra", "text_marked": text})
    assert p.edits == () and p.detail == "unanchored: 1"  # " de " also occurs in "long de la"
    assert RuleMember().propose(
        {"lang": "fra", "text_marked": "Quelle distance sépare {Lyon} de {Orly} ?"}
    ).edits == (Edit("ELIS", "de ", "d'"),)
