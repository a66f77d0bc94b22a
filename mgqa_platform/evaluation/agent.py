"""The agentic tiers (T3a, T3-o): a bounded code-agent loop with a local Python sandbox.

Each step the model replies one JSON object ``{"thought": str, "code": str | null, "final_answer":
<reply object> | null}`` (schema: :func:`answer_schema.agent_step_schema`). A non-null
``final_answer`` ends the loop (and wins over any ``code`` in the same step); otherwise ``code``
runs and its output (stdout and stderr, truncated to ``max_output_chars``) goes back as the next
user message. A reply that is not a valid step object is answered with the reason and costs a step.
After ``max_steps`` model replies without a final answer the result is ``budget_exhausted``.

The sandbox (:class:`Sandbox`): every step runs in a **fresh** ``python -I`` process (so variables
do not persist; files written to the working directory do, for the question's lifetime) confined by
bubblewrap and ``prlimit`` (:mod:`mgqa_platform.evaluation.sandbox`): no environment of the runner,
no view of the host's files beyond the Python installation and, for T3a, the KG-only copy
(read-only), no network, its own PID namespace and session killed as a whole, and CPU, memory,
process, file and output limits. Without a working bubblewrap the agent tiers are refused
(:class:`~mgqa_platform.evaluation.sandbox.SandboxUnavailable`). The preamble pre-imports ``math``,
``json``, ``shapely`` (``shapely.wkt``, ``shapely.geometry``), ``pyproj`` (``Geod``,
``Transformer``, ``GEOD = Geod(ellps="WGS84")``) and ``h3``, and defines the tier's tools:

* T3-o: ``triples()`` -> the injected structured triples (:func:`prompts.structured_triples`);
* T3a: read-only KG tools over the DuckDB warehouse file: ``search_entities(name, limit=10)``,
  ``entity_triples(entity_id)`` and ``sql(query)`` (one SELECT/WITH statement, read-only connection,
  at most :data:`SQL_ROW_CAP` rows).

Every tool invocation is counted (``tool_calls``); ``steps`` counts model replies.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mgqa_platform.evaluation import sandbox
from mgqa_platform.evaluation.answer_schema import agent_step_schema, parse_reply
from mgqa_platform.evaluation.prompts import (
    AGENT_TIERS,
    DEFAULT_MAX_STEPS,
    T3A,
    T3O,
    render,
    structured_triples,
)
from mgqa_platform.evaluation.sandbox import SandboxUnavailable
from mgqa_platform.llm import ChatClient, ReplyError, TransportError

__all__ = ["AgentResult", "Sandbox", "run_agent", "SQL_ROW_CAP", "PREAMBLE", "SandboxUnavailable"]

SQL_ROW_CAP = 200
SEARCH_LIMIT_CAP = 50
TRIPLE_CAP = 500
_CALLS_FILE = ".tool_calls"
_CONTEXT_FILE = "_context.json"
_STEP_FILE = "step.py"
_MAIN_FILE = "_main.py"
_ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": sandbox.WORK_DIR,
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONIOENCODING": "utf-8",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
}

PREAMBLE = r'''
import json, math, os as _os, sys as _sys
import shapely, shapely.wkt, shapely.geometry
import pyproj
from pyproj import Geod, Transformer
import h3
GEOD = Geod(ellps="WGS84")
with open(__CONTEXT_FILE__, encoding="utf-8") as _f:
    _CTX = json.load(_f)

def _count(name):
    with open(__CALLS_FILE__, "a", encoding="utf-8") as _f:
        _f.write(name + "\n")

if _CTX["tier"] == "T3-o":
    def triples():
        """The injected facts: a list of {"subject": ..., "facts": {predicate: [values]}}."""
        _count("triples")
        return json.loads(json.dumps(_CTX["triples"]))

if _CTX["tier"] == "T3a":
    _CON = None

    def _con():
        global _CON
        if _CON is None:
            import duckdb
            _CON = duckdb.connect(_CTX["warehouse"], read_only=True, config={
                "threads": "2", "memory_limit": "1GB", "temp_directory": "/tmp"})
            # ST_* functions, loaded from the local extension file
            if _CTX.get("spatial_extension"):
                try:
                    _CON.execute("LOAD '" + _CTX["spatial_extension"].replace("'", "''") + "'")
                except Exception:
                    pass
        return _CON

    def _rows(cur, cap):
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchmany(cap)]

    def search_entities(name, limit=10):
        """Entities whose name or display name contains `name` (case-insensitive), exact
        matches first."""
        _count("search_entities")
        limit = max(1, min(int(limit), __SEARCH_CAP__))
        cur = _con().execute(
            "SELECT entity_id, name, display_name, category, lon, lat FROM entities "
            "WHERE name ILIKE '%' || ? || '%' OR display_name ILIKE '%' || ? || '%' "
            "ORDER BY (lower(name) = lower(?) OR lower(display_name) = lower(?)) DESC, "
            "length(name), entity_id "
            "LIMIT ?", [str(name)] * 4 + [limit])
        return _rows(cur, limit)

    def entity_triples(entity_id):
        """[s, p, o] triples of one entity (at most __TRIPLE_CAP__)."""
        _count("entity_triples")
        cur = _con().execute("SELECT s, p, o FROM entity_triples WHERE entity_id = ? "
                             "ORDER BY s, p, o LIMIT ?",
                             [str(entity_id), __TRIPLE_CAP__])
        return [list(r) for r in cur.fetchall()]

    def sql(query):
        """Rows (dicts) of one read-only SELECT/WITH statement; at most __ROW_CAP__ rows."""
        _count("sql")
        q = str(query).strip().rstrip(";").strip()
        low = q.lower()
        if not (low.startswith("select") or low.startswith("with")) or ";" in q:
            raise ValueError("sql() accepts a single SELECT (or WITH ... SELECT) statement")
        return _rows(_con().execute(q), __ROW_CAP__)

del _f
with open(__STEP_FILE__, encoding="utf-8") as _src:
    _code = _src.read()
import linecache as _lc  # tracebacks quote the step's own lines
_lc.cache[__STEP_NAME__] = (len(_code), None, _code.splitlines(True), __STEP_NAME__)
try:
    _globals = {k: v for k, v in globals().items() if k not in ("_code", "_src")}
    exec(compile(_code, __STEP_NAME__, "exec"), _globals)
except SystemExit:
    raise
except BaseException as _exc:  # print the traceback without this preamble's own frame
    import traceback as _tb
    _tb.print_exception(type(_exc), _exc, _exc.__traceback__.tb_next)
    _sys.exit(1)
'''


#: The tables the T3a retrieval tools may see: the knowledge graphs, never the questions, golds or
#: scores.
KG_TABLES = ("entities", "entity_labels", "entity_triples")


def export_kg(warehouse: str | Path, dest: str | Path) -> Path:
    """Copy the KG tables (:data:`KG_TABLES`) of the warehouse into a separate DuckDB file for the
    T3a tools.

    The agent's ``sql()`` runs arbitrary SELECTs, so it must not be pointed at the warehouse itself,
    which also holds ``questions_en`` with every gold answer. The copy is written to a temporary
    name and renamed, so an interrupted export never leaves a half-written file behind; an existing
    copy is reused."""
    from mgqa_platform import warehouse as wh

    dest = Path(dest)
    if dest.exists():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".partial")
    tmp.unlink(missing_ok=True)
    con = wh.connect(tmp)
    try:
        con.execute(f"ATTACH '{Path(warehouse).as_posix()}' AS src (READ_ONLY)")
        for table in KG_TABLES:
            con.execute(f"CREATE TABLE {table} AS SELECT * FROM src.{table}")
        con.execute("DETACH src")
    finally:
        con.close()
    tmp.replace(dest)
    return dest


def _preamble() -> str:
    subs = {
        "__CONTEXT_FILE__": repr(f"{sandbox.CONTROL_DIR}/{_CONTEXT_FILE}"),
        "__CALLS_FILE__": repr(f"{sandbox.WORK_DIR}/{_CALLS_FILE}"),
        "__STEP_FILE__": repr(f"{sandbox.CONTROL_DIR}/{_STEP_FILE}"),
        "__STEP_NAME__": repr(_STEP_FILE),
        "__SEARCH_CAP__": str(SEARCH_LIMIT_CAP),
        "__TRIPLE_CAP__": str(TRIPLE_CAP),
        "__ROW_CAP__": str(SQL_ROW_CAP),
    }
    text = PREAMBLE
    for k, v in subs.items():
        text = text.replace(k, v)
    return text


def _spatial_extension() -> str | None:
    try:
        from mgqa_platform.warehouse import spatial_extension_path

        return str(spatial_extension_path())
    except Exception:
        return None


class Sandbox:
    """A working directory plus one fresh, confined ``python -I`` process per :meth:`run`.

    ``limits`` default to :class:`~mgqa_platform.evaluation.sandbox.Limits` with ``timeout_s`` as
    the wall and CPU time; ``bwrap`` names the bubblewrap binary (default: ``bwrap`` on ``PATH``).
    Raises :class:`~mgqa_platform.evaluation.sandbox.SandboxUnavailable` when it cannot confine the
    code. Use as a context manager (the directories are removed on exit)."""

    def __init__(
        self,
        tier: str,
        *,
        triples: list | None = None,
        warehouse: str | Path | None = None,
        timeout_s: float = 30.0,
        max_output_chars: int = 4000,
        python: str | None = None,
        limits: sandbox.Limits | None = None,
        bwrap: str | None = None,
    ):
        if tier not in AGENT_TIERS:
            raise ValueError(f"not an agent tier: {tier!r}")
        if tier == T3A and warehouse is None:
            raise ValueError("tier T3a needs a warehouse file")
        self.bwrap = sandbox.check_available(bwrap)
        self.tier = tier
        self.limits = limits or sandbox.Limits(wall_s=timeout_s, cpu_s=max(1, math.ceil(timeout_s)))
        self.timeout_s = self.limits.wall_s
        self.max_output_chars = max_output_chars
        self.python = python or sys.executable
        self.kg = str(Path(warehouse).resolve()) if warehouse is not None else None
        self._tmp = tempfile.TemporaryDirectory(prefix="mgqa-agent-")
        self.dir = Path(self._tmp.name) / "work"
        self.control = Path(self._tmp.name) / "ctl"
        self.dir.mkdir()
        self.control.mkdir()
        ctx = {
            "tier": tier,
            "triples": triples or [],
            "warehouse": sandbox.KG_PATH if warehouse is not None else None,
            "spatial_extension": _spatial_extension() if tier == T3A else None,
        }
        (self.control / _CONTEXT_FILE).write_text(json.dumps(ctx, ensure_ascii=False), "utf-8")
        (self.control / _MAIN_FILE).write_text(_preamble(), encoding="utf-8")
        (self.control / _STEP_FILE).write_text("", encoding="utf-8")
        sandbox.prepare_dirs(self.dir, self.control)
        self.tool_calls = 0
        self.runs = 0

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        self._tmp.cleanup()

    def command(self) -> list[str]:
        """The confined command line of one step (see :func:`sandbox.bwrap_command`)."""
        return sandbox.bwrap_command(
            [self.python, "-I", f"{sandbox.CONTROL_DIR}/{_MAIN_FILE}"],
            workdir=self.dir,
            control_dir=self.control,
            kg=self.kg,
            python=self.python,
            limits=self.limits,
            bwrap=self.bwrap,
            env=_ENV,
        )

    def run(self, code: str) -> tuple[str, int]:
        """Run ``code``; return (output text, number of tool calls it made). Never raises for user
        errors."""
        self.runs += 1
        (self.control / _STEP_FILE).write_text(code, encoding="utf-8")
        calls = self.dir / _CALLS_FILE
        calls.unlink(missing_ok=True)
        res = sandbox.run_confined(
            self.command(), self.limits, keep_bytes=4 * self.max_output_chars
        )
        text = res.head.decode("utf-8", "replace")
        if res.tail:
            omitted = res.total_bytes - len(res.head) - len(res.tail)
            text += f"\n[{omitted} bytes omitted]\n" + res.tail.decode("utf-8", "replace")
        if res.stopped == "time":
            text += f"\n[execution stopped: time limit of {self.limits.wall_s:g} s]"
        elif res.stopped == "output":
            text += f"\n[execution stopped: output limit of {self.limits.output_bytes} bytes]"
        elif res.returncode and not text.strip():
            text = f"(process exited with status {res.returncode})"
        n = _count_calls(calls)
        size = sandbox.enforce_workdir_cap(self.dir, self.limits.workdir_bytes)
        if size is not None:
            text += (
                f"\n[working directory emptied: {size} bytes written, more than the "
                f"{self.limits.workdir_bytes} allowed]"
            )
        self.tool_calls += n
        if len(text) > self.max_output_chars:  # keep the head and the tail (where a traceback ends)
            head = self.max_output_chars // 2
            tail = self.max_output_chars - head
            text = (
                f"{text[:head]}\n[output truncated to {self.max_output_chars} characters: "
                f"{len(text) - self.max_output_chars} omitted here]\n{text[-tail:]}"
            )
        return (text if text.strip() else "(no output)"), n


def _count_calls(path: Path) -> int:
    """Tool calls recorded by the step. The file is the code's to write, so it is opened without
    following a link and without blocking, read only when it is a regular file, and at most 1 MiB of
    it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return 0
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return 0
        return f.read(1 << 20).count(b"\n")


@dataclass
class AgentResult:
    """status: answered | refused | format_error | budget_exhausted | harness_error."""

    status: str
    answer: dict | None
    raw: str
    detail: str | None
    usage: dict = field(
        default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    )
    attempts: int = 0
    steps: int = 0
    tool_calls: int = 0
    code_runs: int = 0
    messages: list = field(default_factory=list)


def _add_usage(total: dict, usage: Mapping) -> None:
    for k in total:
        total[k] += int(usage.get(k, 0) or 0)


def run_agent(
    question: Mapping,
    client: ChatClient,
    tier: str,
    *,
    warehouse: str | Path | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    step_timeout_s: float = 30.0,
    max_output_chars: int = 4000,
    python: str | None = None,
) -> AgentResult:
    """Run the code-agent loop for one question (see the module docstring). Transport failures end
    the loop with ``harness_error`` (usage so far kept); nothing else escapes except programming
    errors."""
    messages = render(question, tier, max_steps=max_steps)
    schema = agent_step_schema(question)
    res = AgentResult("budget_exhausted", None, "", None)
    triples = structured_triples(question) if tier == T3O else None
    with Sandbox(
        tier,
        triples=triples,
        warehouse=warehouse,
        timeout_s=step_timeout_s,
        max_output_chars=max_output_chars,
        python=python,
    ) as box:
        for step in range(1, max_steps + 1):
            res.steps = step
            left = max_steps - step
            try:
                obj, chat = client.complete_json(messages, schema, schema_name="agent_step")
            except ReplyError as exc:
                if exc.result is not None:
                    _add_usage(res.usage, exc.result.usage)
                    res.attempts += exc.result.attempts
                res.raw, res.detail = exc.raw, f"invalid step reply: {exc}"
                messages.append({"role": "assistant", "content": exc.raw})
                messages.append(
                    {
                        "role": "user",
                        "content": (
                            f"That reply was not a valid step object ({exc}). Reply with "
                            "one JSON object "
                            '{"thought": ..., "code": ..., '
                            f'"final_answer": ...}}. Steps left: {left}.'
                        ),
                    }
                )
                continue
            except TransportError as exc:
                res.status, res.detail = "harness_error", f"transport: {exc}"
                res.attempts += exc.attempts
                break
            _add_usage(res.usage, chat.usage)
            res.attempts += chat.attempts
            res.raw = chat.content
            messages.append({"role": "assistant", "content": chat.content})
            final = obj.get("final_answer")
            if final is not None:
                parsed = parse_reply(question, final)
                res.status, res.answer, res.detail = parsed.status, parsed.answer, parsed.detail
                break
            code = obj.get("code")
            if isinstance(code, str) and code.strip():
                out, _ = box.run(code)
                msg = f"Output of your code (step {step}):\n{out}\nSteps left: {left}."
            else:
                msg = f"You sent neither code nor a final answer. Steps left: {left}."
            if left == 1:
                msg += " The next reply must carry your final_answer."
            messages.append({"role": "user", "content": msg})
        else:
            res.status, res.answer = "budget_exhausted", None
            res.detail = f"no final answer after {max_steps} steps" + (
                f"; last: {res.detail}" if res.detail else ""
            )
        res.tool_calls, res.code_runs = box.tool_calls, box.runs
    res.messages = messages
    return res
