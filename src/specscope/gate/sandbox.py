"""Run a model's code answer against given tests in a separate, isolated Python process.

The code is never executed in specscope's own process. The child is started as
``python -I -S harness.py`` (isolated mode: no environment variables, no user site; ``-S``: no ``site`` import,
so no ``sitecustomize`` and no third-party packages) in a fresh temporary folder used as its working
directory, with a scrubbed environment (no proxy variables), resource limits set by the harness
before the answer is imported (CPU seconds, address space, file size) and a wall-clock time limit;
the whole process group is killed on timeout. The harness disables sockets before it imports the answer,
so the code under test cannot reach the network.

This is containment for honest mistakes (a loop, a crash, a stray ``import requests``), not a security
boundary against hostile code.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CodeRun", "extract_code", "run_code_tests"]

# Return codes of a child ended by its RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL at the hard limit
# (setrlimit(2)). Nothing else in the sandbox sends either signal.
_CPU_LIMIT_SIGNALS = (-signal.SIGXCPU, -signal.SIGKILL)

_FENCE_RE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)

_HARNESS = """\
import resource, socket, sys
resource.setrlimit(resource.RLIMIT_CPU, ({cpu_s}, {cpu_s} + 1))
resource.setrlimit(resource.RLIMIT_AS, ({memory_bytes}, {memory_bytes}))
resource.setrlimit(resource.RLIMIT_FSIZE, ({fsize_bytes}, {fsize_bytes}))
def _blocked(*a, **k):
    raise OSError("network disabled in the specscope gate sandbox")
socket.socket = _blocked
socket.create_connection = _blocked
socket.getaddrinfo = _blocked
sys.path.insert(0, ".")
import solution
from solution import *
exec(compile(open("probe_tests.py").read(), "probe_tests.py", "exec"))
print("ALL TESTS PASSED")
"""


@dataclass(frozen=True, slots=True)
class CodeRun:
    """Outcome of one sandboxed test run.

    Attributes:
        passed: exit status 0 and the harness's completion line printed.
        returncode: the child's exit status (``None`` on timeout).
        timed_out: the wall-clock limit was hit and the process group was killed, or the CPU-seconds limit
            ended the child (SIGXCPU at the soft limit, SIGKILL at the hard one, a second later). The two limits
            are the same number of seconds, so a busy loop meets whichever the scheduler reaches first.
        elapsed_ns: wall time of the child, ns.
        stdout_tail / stderr_tail: last 2,000 characters of each stream.
    """

    passed: bool
    returncode: int | None
    timed_out: bool
    elapsed_ns: int
    stdout_tail: str
    stderr_tail: str


def extract_code(text: str, function: str | None = None) -> str | None:
    """The Python source in a model answer.

    Takes the fenced code blocks (```python ... ```); returns the last one that defines ``function`` when it is
    given, else the last python/unlabelled block. Without fences, returns the text from the first
    ``def function`` (or ``def``/``import``) line on. ``None`` when there is no code.
    """
    blocks = [(lang.lower(), body) for lang, body in _FENCE_RE.findall(text)]
    candidates = [b for lang, b in blocks if lang in ("", "python", "py", "python3")] or [b for _, b in blocks]
    if function:
        defining = [b for b in candidates if re.search(rf"^\s*def\s+{re.escape(function)}\s*\(", b, re.M)]
        if defining:
            return str(defining[-1])
    if candidates:
        return str(candidates[-1])
    pat = rf"^(def\s+{re.escape(function)}\s*\(|import |from )" if function else r"^(def |import |from )"
    m = re.search(pat, text, re.M)
    return text[m.start() :] if m else None


def run_code_tests(code: str, tests: str, *, timeout_s: float = 10.0, memory_bytes: int = 1 << 30) -> CodeRun:
    """Run ``tests`` (Python source with asserts, names from the answer in scope) against ``code``.

    Args:
        code: the model's Python source, written to ``solution.py``.
        tests: test source, written to ``probe_tests.py`` and executed by the harness in the child.
        timeout_s: wall-clock limit for the child, seconds (the CPU limit is the same, rounded up).
        memory_bytes: address-space limit of the child, bytes.

    Returns:
        :class:`CodeRun`. Never raises for a failing answer.
    """
    env = {"PATH": os.defpath, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "no_proxy": "*", "NO_PROXY": "*"}
    with tempfile.TemporaryDirectory(prefix="specscope-gate-") as tmp:
        folder = Path(tmp)
        (folder / "solution.py").write_text(code, encoding="utf-8")
        (folder / "probe_tests.py").write_text(tests, encoding="utf-8")
        cpu_s = max(1, int(timeout_s + 0.999))
        harness = _HARNESS.format(cpu_s=cpu_s, memory_bytes=memory_bytes, fsize_bytes=16 * 1024 * 1024)
        (folder / "harness.py").write_text(harness, encoding="utf-8")
        env["HOME"] = tmp
        start_ns = time.perf_counter_ns()
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "harness.py"],
            cwd=tmp,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        timed_out = False
        try:
            out, err = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = proc.communicate()
        elapsed_ns = time.perf_counter_ns() - start_ns
    stdout = out.decode("utf-8", "replace")
    stderr = err.decode("utf-8", "replace")
    if proc.returncode in _CPU_LIMIT_SIGNALS:
        timed_out = True
    rc = None if timed_out else proc.returncode
    passed = (not timed_out) and rc == 0 and "ALL TESTS PASSED" in stdout
    return CodeRun(passed, rc, timed_out, elapsed_ns, stdout[-2000:], stderr[-2000:])
