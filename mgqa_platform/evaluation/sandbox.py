"""Run untrusted, model-written Python under bubblewrap (``bwrap``), with resource limits from
``prlimit``.

The agentic tiers execute code a model wrote. This module confines each execution with existing
tools rather than checks of our own:

* **bubblewrap** builds a fresh mount, PID, network, IPC and UTS namespace. The sandbox sees an
  empty root with ``/usr`` and the Python installation read-only, a fresh ``/proc``, ``/dev`` and a
  small ``/tmp`` (tmpfs), its working directory at :data:`WORK_DIR`, the trusted launcher files
  read-only at :data:`CONTROL_DIR` and, for T3a, the KG-only DuckDB copy read-only at
  :data:`KG_PATH`. Nothing else of the host is visible: not the home, the warehouse, the release,
  ``/etc`` or the runner's ``/proc``. The network namespace holds only its own loopback, so not even
  the host's 127.0.0.1 is reachable. The environment is cleared (``--clearenv``) and bwrap itself is
  started with a minimal environment, so no key or ``MGQA_*`` variable exists anywhere inside.
  ``--new-session`` gives the code its own session; ``--die-with-parent`` plus the PID namespace
  mean that killing the launcher kills every process the code started, ``setsid()`` grandchildren
  included.
* As root, bwrap runs in its privileged mode and ``setpriv`` drops the code to an unprivileged user
  (:data:`SANDBOX_UID`, no capabilities, ``no_new_privs``); otherwise bwrap runs unprivileged in a
  new user namespace, where nested user namespaces are disabled.
* **prlimit** sets CPU seconds, address space, processes (threads count), file size, open files and
  core dumps (:class:`Limits`) before the interpreter starts.
* The parent reads the output itself: at most ``Limits.output_bytes`` are accepted (then the process
  is killed), only the head and the tail are kept in memory, and every wait has a deadline.

When bubblewrap is missing or cannot create namespaces here, :func:`check_available` raises
:class:`SandboxUnavailable`: model code is never run unconfined.
"""

from __future__ import annotations

import collections
import functools
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CONTROL_DIR",
    "KG_PATH",
    "Limits",
    "Outcome",
    "SANDBOX_UID",
    "SandboxUnavailable",
    "WORK_DIR",
    "bwrap_command",
    "check_available",
    "run_confined",
]

WORK_DIR = "/box/work"  #: the code's working directory (and HOME) inside the sandbox, read-write
CONTROL_DIR = "/box/ctl"  #: the trusted launcher and its context, read-only
KG_PATH = "/box/kg.duckdb"  #: the KG-only copy the T3a tools query, read-only
SANDBOX_UID = 65534  #: the unprivileged user the code runs as when the runner is root ("nobody")
_KILL_GRACE_S = 5.0  #: how long to wait for the killed launcher and its pipe to close


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot be built on this machine; model-written code is refused, never run
    unconfined."""


@dataclass(frozen=True)
class Limits:
    """Per-execution limits. ``wall_s`` is enforced by the parent, the others by the kernel
    (``prlimit``)."""

    wall_s: float = 30.0
    cpu_s: int = 30
    memory_bytes: int = 2 << 30  #: address space (RLIMIT_AS)
    processes: int = 256  #: processes and threads of the sandbox user (RLIMIT_NPROC)
    output_bytes: int = 8 << 20  #: stdout + stderr accepted before the process is killed
    file_bytes: int = 64 << 20  #: largest file the code may write (RLIMIT_FSIZE)
    open_files: int = 256
    tmp_bytes: int = 64 << 20  #: size of the tmpfs at /tmp
    workdir_bytes: int = (
        256 << 20
    )  #: the working directory is emptied after a step that leaves more


@dataclass(frozen=True)
class Outcome:
    """What one confined execution produced. ``head``/``tail`` are the first and last bytes of the
    output (``tail`` empty when ``head`` holds all of it); ``stopped`` is ``None``, ``"time"`` or
    ``"output"``."""

    head: bytes
    tail: bytes
    total_bytes: int
    returncode: int | None
    stopped: str | None


def _bwrap(bwrap: str | None) -> str:
    found = shutil.which(bwrap or "bwrap")
    if found is None:
        raise SandboxUnavailable(
            f"T3 refused: bubblewrap ({bwrap or 'bwrap'}) not found; install it "
            "(Debian: apt-get install bubblewrap). Model-written code is never run unsandboxed."
        )
    return found


def _tool(name: str) -> str:
    """Absolute path of a util-linux helper (``setpriv``, ``prlimit``); it must live under /usr to
    be seen inside the sandbox."""
    found = shutil.which(name, path="/usr/bin:/usr/sbin:/bin:/sbin")
    if found is None:
        raise SandboxUnavailable(f"T3 refused: {name} (util-linux) not found")
    return found


def _is_root() -> bool:
    return os.geteuid() == 0


def _system_dirs() -> list[str]:
    """``/usr`` read-only, and the top-level ``/bin``, ``/lib``... as the symlinks or directories
    they are."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        if os.path.islink(name):
            args += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            args += ["--ro-bind", name, name]
    return args


def _python_dirs(python: str) -> list[str]:
    """The interpreter's installation (``sys.prefix``, ``sys.base_prefix``, and the folder holding
    ``python``), read-only at the same paths, unless already under ``/usr``."""
    dirs = {sys.prefix, sys.base_prefix, str(Path(python).parent.parent)}
    args: list[str] = []
    for d in sorted(dirs):
        if d != "/usr" and not d.startswith("/usr/") and os.path.isdir(d):
            args += ["--ro-bind", d, d]
    return args


def _parent_dirs(mounts: list[str]) -> list[str]:
    """``--dir`` operations creating every parent of the mount points with mode 0755 (bwrap would
    make them 0700 as root, which the unprivileged sandbox user could not traverse)."""
    dests = [mounts[i + 2] for i, a in enumerate(mounts) if a in ("--bind", "--ro-bind")]
    parents: list[str] = []
    for dest in dests:
        for p in reversed(Path(dest).parents):
            if str(p) != "/" and str(p) not in parents:
                parents.append(str(p))
    return [arg for p in parents for arg in ("--perms", "0755", "--dir", p)]


def _prlimit(limits: Limits) -> list[str]:
    cpu = max(1, int(limits.cpu_s))
    return [
        _tool("prlimit"),
        f"--cpu={cpu}:{cpu + 1}",
        f"--as={limits.memory_bytes}",
        f"--nproc={limits.processes}",
        f"--fsize={limits.file_bytes}",
        f"--nofile={limits.open_files}",
        "--core=0",
        "--",
    ]


def bwrap_command(
    argv: Sequence[str],
    *,
    workdir: str | Path,
    control_dir: str | Path,
    kg: str | Path | None = None,
    python: str = sys.executable,
    limits: Limits = Limits(),
    bwrap: str | None = None,
    env: dict[str, str] | None = None,
) -> list[str]:
    """The full command line running ``argv`` (paths as seen inside) confined as the module
    docstring says."""
    cmd = [_bwrap(bwrap), "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    cmd += ["--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv"]
    if not _is_root():
        cmd += ["--unshare-user", "--disable-userns"]
    for k, v in sorted((env or {}).items()):
        cmd += ["--setenv", k, v]
    # /tmp first: the binds below then stay visible where they lie under it (a venv in /tmp)
    cmd += ["--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
    mounts = _system_dirs() + _python_dirs(python)
    mounts += ["--ro-bind", str(control_dir), CONTROL_DIR, "--bind", str(workdir), WORK_DIR]
    if kg is not None:
        mounts += ["--ro-bind", str(kg), KG_PATH]
    cmd += _parent_dirs(mounts) + mounts
    cmd += ["--proc", "/proc", "--dev", "/dev"]
    cmd += ["--chdir", WORK_DIR]
    if _is_root():
        cmd += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--"]
        cmd += [
            _tool("setpriv"),
            f"--reuid={SANDBOX_UID}",
            f"--regid={SANDBOX_UID}",
            "--clear-groups",
            "--inh-caps=-all",
            "--no-new-privs",
            "--",
        ]
    else:
        cmd += ["--"]
    return cmd + _prlimit(limits) + list(argv)


def enforce_workdir_cap(workdir: Path, limit: int) -> int | None:
    """The working directory's size in bytes when it passes ``limit`` -- its contents are then
    removed --, else None. Links are not followed; sizes are of regular files."""
    total = 0
    for root, _dirs, files in os.walk(workdir):
        for name in files:
            try:
                st = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            total += st.st_size
    if total <= limit:
        return None
    for entry in list(workdir.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    return total


def prepare_dirs(workdir: Path, control_dir: Path) -> None:
    """Make the working directory writable and the control directory readable by the sandbox
    user."""
    control_dir.chmod(0o755)
    for f in control_dir.iterdir():
        f.chmod(0o644)
    if _is_root():
        os.chown(workdir, SANDBOX_UID, SANDBOX_UID)


@functools.lru_cache(maxsize=8)
def check_available(bwrap: str | None = None) -> str:
    """The bwrap path, after proving once per process that it can build the sandbox here (a confined
    ``true``). Raises :class:`SandboxUnavailable` with bwrap's own message otherwise."""
    path = _bwrap(bwrap)
    with tempfile.TemporaryDirectory(prefix="mgqa-probe-") as tmp:
        work, ctl = Path(tmp, "work"), Path(tmp, "ctl")
        work.mkdir()
        ctl.mkdir()
        prepare_dirs(work, ctl)
        cmd = bwrap_command(["/usr/bin/true"], workdir=work, control_dir=ctl, bwrap=path)
        try:
            proc = subprocess.run(
                cmd, env=_launcher_env(), capture_output=True, timeout=30, stdin=subprocess.DEVNULL
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SandboxUnavailable(f"T3 refused: bubblewrap could not start: {exc}") from None
    if proc.returncode != 0:
        why = proc.stderr.decode("utf-8", "replace").strip()[:300]
        raise SandboxUnavailable(
            "T3 refused: bubblewrap cannot build the sandbox here "
            f"(exit {proc.returncode}: {why}); "
            "it needs user namespaces, or root. Model-written code is never run unsandboxed."
        )
    return path


def _launcher_env() -> dict[str, str]:
    """The environment of bwrap itself: nothing of the runner's (its memory is visible as
    /proc/1/environ)."""
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reap(proc: subprocess.Popen, deadline: float, stopped: str | None) -> str | None:
    """Wait for the launcher until ``deadline`` (the output is closed already), killing it when it
    is late; returns the reason it was stopped, if any."""
    if stopped is None:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            return None
        except subprocess.TimeoutExpired:
            stopped = "time"
    _kill(proc)
    try:
        proc.wait(timeout=_KILL_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    return stopped


def run_confined(cmd: Sequence[str], limits: Limits, keep_bytes: int) -> Outcome:
    """Run a :func:`bwrap_command`, reading stdout+stderr with a deadline of ``limits.wall_s`` and
    at most ``limits.output_bytes``; only the first and last ``keep_bytes`` are held in memory. The
    process group is killed on either limit; the call never waits longer than ``wall_s`` plus a few
    seconds' grace."""
    proc = subprocess.Popen(
        list(cmd),
        env=_launcher_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    head = bytearray()
    tail: collections.deque[bytes] = collections.deque()
    tail_len = total = 0
    stopped: str | None = None
    deadline = time.monotonic() + limits.wall_s
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    fd = proc.stdout.fileno()
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                if stopped is None:
                    stopped = "time"
                    _kill(proc)
                    deadline = time.monotonic() + _KILL_GRACE_S
                    continue
                break  # the pipe is still held open after the kill grace: stop reading
            if not sel.select(timeout=left):
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            total += len(chunk)
            if stopped is not None:
                continue  # draining after a kill
            room = keep_bytes - len(head)
            if room > 0:
                head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                tail.append(chunk)
                tail_len += len(chunk)
                while tail_len - len(tail[0]) >= keep_bytes:
                    tail_len -= len(tail.popleft())
            if total > limits.output_bytes:
                stopped = "output"
                _kill(proc)
                deadline = time.monotonic() + _KILL_GRACE_S
    finally:
        sel.close()
        proc.stdout.close()
        stopped = _reap(proc, deadline, stopped)
    tail_bytes = b"".join(tail)[-keep_bytes:] if tail else b""
    return Outcome(bytes(head), tail_bytes, total, proc.returncode, stopped)
