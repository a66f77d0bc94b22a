"""Resumable, concurrent model runs: one ``predictions.jsonl`` line per question.

``run(questions, client, tier, out_dir, system_name=...)`` asks the model every question not yet
recorded in ``out_dir/predictions.jsonl`` and appends one JSON line per question as soon as it
finishes (one ``write`` of the whole line, then ``flush`` and ``os.fsync``)::

    {"answer": {...} | null, "attempts": 1, "detail": null, "question_id": "q...",
     "raw": "<reply, <= 4000 chars>", "status": "answered", "steps": 1, "system": "...",
     "tier": "T1", "tool_calls": 0,
     "usage": {"completion_tokens": 5, "prompt_tokens": 120, "total_tokens": 125}}

Keys are sorted and nothing time-dependent is written, so rerunning a deterministic endpoint
reproduces the lines (in completion order, which the scorer ignores: it keys by ``question_id``).
Statuses: ``answered``, ``refused`` (premise rejected; answer ``{"rejected": true}``),
``format_error`` (reply not JSON, off-schema, or an answer that does not fit its format),
``harness_error`` (transport failure after retries, or an unexpected exception; ``detail`` says
which), ``budget_exhausted`` (agent tiers only).

Resuming: existing lines are read first and their question ids skipped, except ``harness_error``
lines (with ``retry_errors``, the default): those are moved to ``predictions.jsonl.retried`` and the
questions asked again, so an outage is not a permanent wrong answer and every question keeps exactly
one line. A torn last line (a killed writer) or any unparsable line is appended to
``predictions.jsonl.corrupt`` and removed from the file (truncated back to the last good newline),
so nothing is lost silently; the summary counts them. ``out_dir/run.json`` holds the run
configuration (endpoint, model, tier, system, question count, seed...; never the API key); a resume
with a different tier, system or model is refused. An advisory lock (``out_dir/.lock``) stops two
runners sharing one directory."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mgqa_platform.evaluation.answer_schema import parse_reply, reply_schema
from mgqa_platform.evaluation.prompts import AGENT_TIERS, DEFAULT_MAX_STEPS, T2, T3A, TIERS, render
from mgqa_platform.llm import ChatClient, ReplyError, TransportError

__all__ = [
    "run",
    "RunSummary",
    "load_predictions",
    "repair",
    "retire_errors",
    "PREDICTIONS",
    "RUN_CONFIG",
    "RAW_LIMIT",
    "STATUSES",
    "RETRIED",
]

PREDICTIONS = "predictions.jsonl"
RUN_CONFIG = "run.json"
RETRIED = "predictions.jsonl.retried"
RAW_LIMIT = 4000
DETAIL_LIMIT = 500
STATUSES = ("answered", "refused", "format_error", "harness_error", "budget_exhausted")
_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")


def _zero_usage() -> dict:
    return dict.fromkeys(_USAGE_KEYS, 0)


@dataclass
class RunSummary:
    """What one call of :func:`run` did (``counts``/``usage``: lines written by this call) and the
    state of the whole file afterwards (``file_counts``/``file_usage``: every recorded question,
    previous runs included)."""

    out_dir: str
    selected: int  # questions selected (after de-duplication and ``limit``)
    skipped: int  # already recorded before this call
    written: int
    counts: dict = field(default_factory=dict)
    usage: dict = field(default_factory=_zero_usage)
    corrupt: int = 0  # unparsable fragments moved to predictions.jsonl.corrupt by this call
    retried: int = 0  # harness_error lines moved to predictions.jsonl.retried and asked again
    file_counts: dict = field(default_factory=dict)
    file_usage: dict = field(default_factory=_zero_usage)

    def to_dict(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------- file handling
def _parse_line(line: bytes) -> dict | None:
    try:
        rec = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    return rec if isinstance(rec, dict) and isinstance(rec.get("question_id"), str) else None


def repair(path: str | Path) -> tuple[list[dict], int]:
    """Read ``path`` (a predictions file), moving a torn last line and any unparsable line to
    ``<path>.corrupt`` and rewriting the file without them. Returns (good records in file order,
    fragments moved)."""
    path = Path(path)
    if not path.exists():
        return [], 0
    data = path.read_bytes()
    cut = data.rfind(b"\n") + 1
    body, tail = data[:cut], data[cut:]
    good: list[dict] = []
    good_lines: list[bytes] = []
    bad: list[bytes] = []
    lines = [ln + b"\n" for ln in body.split(b"\n")[:-1]]
    for line in lines:
        rec = _parse_line(line) if line.strip() else None
        if rec is None:
            if line.strip():
                bad.append(line[:-1])
            continue
        good.append(rec)
        good_lines.append(line)
    if tail:
        bad.append(tail)
    if bad:
        with open(f"{path}.corrupt", "ab") as f:
            f.write(b"".join(b + b"\n" for b in bad))
            f.flush()
            os.fsync(f.fileno())
        if len(good_lines) == len(lines):  # only a torn tail: cut it off in place
            with open(path, "r+b") as f:
                f.truncate(cut)
                f.flush()
                os.fsync(f.fileno())
        else:
            _rewrite(path, good_lines)
    return good, len(bad)


def _rewrite(path: Path, lines: list[bytes]) -> None:
    """Replace ``path`` atomically with ``lines`` (fsynced)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(b"".join(lines))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def retire_errors(path: str | Path) -> tuple[list[dict], int]:
    """Move the ``harness_error`` lines of a (repaired) predictions file to :data:`RETRIED` beside
    it -- first appended there and fsynced, then cut from the file by an atomic rewrite -- so their
    questions are asked again. Returns (the remaining records in file order, lines moved)."""
    path = Path(path)
    if not path.exists():
        return [], 0
    keep: list[bytes] = []
    move: list[bytes] = []
    records: list[dict] = []
    for line in path.read_bytes().splitlines(keepends=True):
        rec = _parse_line(line)
        if rec is not None and rec.get("status") == "harness_error":
            move.append(line)
        else:
            keep.append(line)
            if rec is not None:
                records.append(rec)
    if move:
        with open(path.with_name(RETRIED), "ab") as f:
            f.write(b"".join(move))
            f.flush()
            os.fsync(f.fileno())
        _rewrite(path, keep)
    return records, len(move)


def load_predictions(path: str | Path) -> dict[str, dict]:
    """``{question_id: record}`` from a predictions file (or a run directory); the last line per id
    wins and unparsable lines are ignored (nothing is modified)."""
    path = Path(path)
    if path.is_dir():
        path = path / PREDICTIONS
    out: dict[str, dict] = {}
    if not path.exists():
        return out
    with open(path, "rb") as f:
        for line in f:
            rec = _parse_line(line) if line.endswith(b"\n") else None
            if rec is not None:
                out[rec["question_id"]] = rec
    return out


def _totals(records: Iterable[Mapping]) -> tuple[dict, dict]:
    counts: Counter = Counter()
    usage = _zero_usage()
    for r in records:
        counts[r.get("status")] += 1
        for k in _USAGE_KEYS:
            usage[k] += int((r.get("usage") or {}).get(k, 0) or 0)
    return dict(sorted(counts.items(), key=lambda kv: str(kv[0]))), usage


# ---------------------------------------------------------------- one question
def _line(
    question: Mapping,
    system: str,
    tier: str,
    status: str,
    answer: Any,
    raw: str,
    detail: str | None,
    usage: Mapping | None,
    attempts: int,
    steps: int,
    tool_calls: int,
) -> dict:
    return {
        "question_id": question["question_id"],
        "system": system,
        "tier": tier,
        "status": status,
        "answer": answer,
        "raw": raw or "",
        "detail": detail,
        "usage": {k: int((usage or {}).get(k, 0) or 0) for k in _USAGE_KEYS},
        "attempts": int(attempts),
        "steps": int(steps),
        "tool_calls": int(tool_calls),
    }


def answer_question(
    question: Mapping,
    client: ChatClient,
    tier: str,
    system: str,
    *,
    warehouse: str | Path | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    step_timeout_s: float = 30.0,
) -> dict:
    """The prediction line of one question (never raises for model or transport failures). ``raw``
    and ``detail`` are scrubbed of the client's secrets first, then cut to RAW_LIMIT /
    DETAIL_LIMIT."""
    rec = _answer(question, client, tier, system, warehouse, max_steps, step_timeout_s)
    rec["raw"] = client.scrub(rec["raw"])[:RAW_LIMIT]
    if rec["detail"] is not None:
        rec["detail"] = client.scrub(rec["detail"])[:DETAIL_LIMIT]
    return rec


def _answer(
    question: Mapping,
    client: ChatClient,
    tier: str,
    system: str,
    warehouse: str | Path | None,
    max_steps: int,
    step_timeout_s: float,
) -> dict:
    """The unscrubbed prediction line of one question: the agent's (agent tiers) or the chat
    reply's, else a ``format_error`` or ``harness_error`` line saying what failed."""
    line = functools.partial(_line, question, system, tier)
    try:
        if tier in AGENT_TIERS:
            from mgqa_platform.evaluation.agent import (
                run_agent,  # lazy: subprocess machinery only when needed
            )

            r = run_agent(
                question,
                client,
                tier,
                warehouse=warehouse,
                max_steps=max_steps,
                step_timeout_s=step_timeout_s,
            )
            return line(
                r.status, r.answer, r.raw, r.detail, r.usage, r.attempts, r.steps, r.tool_calls
            )
        messages = render(question, tier)
        obj, chat = client.complete_json(messages, reply_schema(question, reasoning=tier == T2))
        p = parse_reply(question, obj)
        return line(p.status, p.answer, chat.content, p.detail, chat.usage, chat.attempts, 1, 0)
    except ReplyError as exc:
        res = exc.result
        usage, attempts = (res.usage, res.attempts) if res else (None, 1)
        return line("format_error", None, exc.raw, str(exc), usage, attempts, 1, 0)
    except TransportError as exc:
        return line("harness_error", None, "", f"transport: {exc}", None, exc.attempts, 1, 0)
    except Exception as exc:
        detail = f"exception: {type(exc).__name__}: {exc}"
        return line("harness_error", None, "", detail, None, 0, 0, 0)


# ---------------------------------------------------------------- the run
def _select(questions: Iterable[Mapping], limit: int | None, seed: int) -> list[Mapping]:
    if hasattr(questions, "to_dict") and hasattr(questions, "columns"):  # a pandas DataFrame
        questions = questions.to_dict("records")
    seen: dict[str, Mapping] = {}
    for q in questions:
        qid = q.get("question_id") if isinstance(q, Mapping) else None
        if not isinstance(qid, str) or not qid:
            raise ValueError(f"question without a question_id: {q!r:.120}")
        seen.setdefault(qid, q)
    qs = list(seen.values())
    if limit is not None and limit < len(qs):

        def key(q: Mapping) -> str:
            return hashlib.sha256(f"{seed}:{q['question_id']}".encode()).hexdigest()

        keep = {q["question_id"] for q in sorted(qs, key=key)[: max(0, limit)]}
        qs = [q for q in qs if q["question_id"] in keep]
    return qs


def _check_config(path: Path, config: dict) -> None:
    if not path.exists():
        return
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return
    for k in ("tier", "system", "model"):
        if k in old and old[k] != config[k]:
            raise ValueError(
                f"{path} was written for {k}={old[k]!r}, not {config[k]!r}; use another out_dir"
            )


def run(
    questions: Iterable[Mapping],
    client: ChatClient,
    tier: str,
    out_dir: str | Path,
    *,
    concurrency: int = 4,
    system_name: str,
    limit: int | None = None,
    warehouse: str | Path | None = None,
    seed: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
    step_timeout_s: float = 30.0,
    retry_errors: bool = True,
) -> RunSummary:
    """Answer every not-yet-recorded question with ``client`` under ``tier`` (see the module
    docstring).

    ``limit`` picks a seeded sample of that many questions (order by sha256 of
    ``"{seed}:{question_id}"``), so reruns with the same seed select the same questions;
    ``warehouse`` is required for T3a. With ``retry_errors`` (the default), questions recorded as
    ``harness_error`` are asked again (:func:`retire_errors`). The agent tiers are refused up front
    when the sandbox cannot be built
    (:class:`~mgqa_platform.evaluation.sandbox.SandboxUnavailable`)."""
    _check_run(tier, warehouse, concurrency)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    selected = _select(questions, limit, seed)
    config = {
        "endpoint": client.scrub(client.base_url),
        "model": client.model,
        "tier": tier,
        "system": system_name,
        "questions": len(selected),
        "limit": limit,
        "seed": seed,
        "temperature": client.temperature,
        "max_steps": max_steps if tier in AGENT_TIERS else None,
        "warehouse": str(Path(warehouse).resolve()) if warehouse is not None else None,
    }

    def answer(q: Mapping) -> dict:
        return answer_question(
            q,
            client,
            tier,
            system_name,
            warehouse=warehouse,
            max_steps=max_steps,
            step_timeout_s=step_timeout_s,
        )

    with _run_lock(out):
        _check_config(out / RUN_CONFIG, config)
        (out / RUN_CONFIG).write_text(
            json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        pred_path = out / PREDICTIONS
        existing, corrupt = repair(pred_path)
        retried = 0
        if retry_errors:
            existing, retried = retire_errors(pred_path)
        done = {r["question_id"] for r in existing}
        todo = [q for q in selected if q["question_id"] not in done]
        summary = RunSummary(
            out_dir=str(out),
            selected=len(selected),
            skipped=len(selected) - len(todo),
            written=0,
            corrupt=corrupt,
            retried=retried,
        )
        written = _answer_all(todo, answer, pred_path, concurrency)
        summary.written = len(written)
        summary.counts, summary.usage = _totals(written)
        summary.file_counts, summary.file_usage = _totals(load_predictions(pred_path).values())
        return summary


def _check_run(tier: str, warehouse: str | Path | None, concurrency: int) -> None:
    """Refuse a run that cannot go through: an unknown tier, T3a without a warehouse, a
    ``concurrency`` below 1, or an agent tier where the sandbox cannot be built."""
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}; expected one of {TIERS}")
    if tier == T3A and warehouse is None:
        raise ValueError("tier T3a needs warehouse=<path to the DuckDB warehouse file>")
    if concurrency < 1:
        raise ValueError("concurrency must be >= 1")
    if tier in AGENT_TIERS:
        from mgqa_platform.evaluation.sandbox import check_available

        check_available()


@contextlib.contextmanager
def _run_lock(out: Path) -> Iterator[None]:
    """Hold ``out/.lock`` for the block; RuntimeError when another runner holds it."""
    lock = open(out / ".lock", "w")
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError(f"another runner is writing {out}") from None
        yield
    finally:
        lock.close()


def _answer_all(
    todo: list[Mapping], answer: Callable[[Mapping], dict], pred_path: Path, concurrency: int
) -> list[dict]:
    """Answer ``todo`` on ``concurrency`` threads, appending each record to ``pred_path`` (one
    JSON line, flushed and synced) as soon as it is made; returns the records in the order they
    were written. The first failure cancels the questions not yet started and is raised."""
    written: list[dict] = []
    wlock = threading.Lock()
    with open(pred_path, "ab") as f:

        def work(q: Mapping) -> None:
            rec = answer(q)
            data = (json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
            with wlock:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
                written.append(rec)

        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="mgqa-run") as pool:
            futures = [pool.submit(work, q) for q in todo]
            try:
                for fut in as_completed(futures):
                    fut.result()
            except BaseException:
                for fut in futures:
                    fut.cancel()
                raise
    return written
