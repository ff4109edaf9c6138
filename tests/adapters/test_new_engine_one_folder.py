"""A new engine is one folder and one registry line (issue 34, "a new engine is one folder"; docs/engines.md, "Adding
an engine"): a throwaway adapter written into ``tmp_path`` (``__init__``, ``metrics``, ``logs``, ``log_facts``) and
one more name in ``registry.ENGINES`` are all that ``serve --parse-log`` and the docs generator need to read its log
and write its rows. Nothing else in src/ is touched: the folder joins the ``specscope.adapters`` package through the
package's search path (as if it were ``src/specscope/adapters/toyllm/``) and the name is added the way the registry
line adds it, before anything is imported, in a child process so no other test sees the toy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hangguard import HANG_S

ROOT = Path(__file__).resolve().parents[2]

FILES = {
    "__init__.py": '"""A toy engine."""\n\nDISPLAY = "ToyLLM"\n',
    "metrics.py": '''"""The toy's metrics."""

from specscope.adapters.declare import Row

PREFIXES = ("toyllm:",)
ROWS = (Row("prometheus", "spec_tokens_total", "counter", "ignored", "a toy row, not read", "toy/server.py, 1.0"),)
''',
    "logs.py": '''"""The toy's speculative log line: ``toy spec drafted=D accepted=A`` per request."""

import re

from specscope.adapters.logs import EngineLog, LogField, LogForm, LogSpecStat

FORMS = (LogForm("toyllm", "toy spec line", "toy spec drafted=D accepted=A", "toy/server.py", "1.0"),)
LOG_FIELDS = (LogField("drafted / accepted", "read", "toy/server.py", "1.0", "per request"),)
_RE = re.compile(r"toy spec drafted=(\\d+) accepted=(\\d+)")


def read_log(lines):
    stats = [
        LogSpecStat(engine="toyllm", form="toy spec line", scope="request", line_number=i + 1,
                    draft_tokens=int(m.group(1)), accepted_tokens=int(m.group(2)))
        for i, line in enumerate(lines) if (m := _RE.search(line))
    ]
    return EngineLog(engine="toyllm", forms=["toy spec line"], stats=stats) if stats else None
''',
    "log_facts.py": '''"""The toy's start-up fact: ``toy server version V``."""

import re

from pydantic import BaseModel, ConfigDict


class ToyLogFacts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    toyllm_version: str | None = None


def read_facts(lines):
    found = [m.group(1) for line in lines if (m := re.search(r"toy server version (\\S+)", line))]
    return ToyLogFacts(toyllm_version=found[-1] if found else None)


FACTS = ToyLogFacts
''',
}

# the child: the folder joins the package, the registry gains its one line, then the command runs as a user runs it
CHILD = """
import sys
import specscope.adapters
specscope.adapters.__path__.append(sys.argv[1])
from specscope.adapters import registry
registry.ENGINES = (*registry.ENGINES, "toyllm")
if sys.argv[2] == "doc":
    from specscope.adapters.doc import main
    sys.exit(main(sys.argv[3:]))
from specscope.cli import main
sys.argv = ["specscope", *sys.argv[2:]]
main()
"""


def _child(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    folder = tmp_path / "adapters"
    (folder / "toyllm").mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (folder / "toyllm" / name).write_text(text)
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), *args], capture_output=True, text=True, env=env, timeout=HANG_S
    )


def test_serve_parse_log_reads_a_new_engine_from_its_folder(tmp_path: Path) -> None:
    """Two toy requests pool as (7 + 3) / (10 + 10) = 0.5, and the toy's start-up fact is in the log facts."""
    log = tmp_path / "toy.log"
    log.write_text("toy server version 1.0\ntoy spec drafted=10 accepted=7\ntoy spec drafted=10 accepted=3\n")
    done = _child(tmp_path, "serve", "--parse-log", str(log), "-f", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["toyllm_version"] == "1.0"
    (pool,) = out["log_pools"]
    assert (pool["engine"], pool["draft_tokens"], pool["accepted_tokens"]) == ("toyllm", 20, 10)
    assert pool["acceptance_rate"] == 0.5
    text = _child(tmp_path, "serve", "--parse-log", str(log))
    assert text.returncode == 0 and "server log facts (toyllm)" in text.stdout, text.stdout
    assert "20 drafted, 10 accepted over >= 2 steps" in text.stdout and "50.0%" in text.stdout
    assert "toyllm_version" in text.stdout


def test_an_unrecognised_log_names_the_new_engines_form(tmp_path: Path) -> None:
    log = tmp_path / "other.log"
    log.write_text("hello\n")
    done = _child(tmp_path, "serve", "--parse-log", str(log))
    assert done.returncode == 2
    assert "toyllm toy spec line (toy spec drafted=D accepted=A)" in done.stderr


def test_the_docs_generator_writes_the_new_engines_rows(tmp_path: Path) -> None:
    doc = tmp_path / "engines.md"
    doc.write_text((ROOT / "docs" / "engines.md").read_text())
    done = _child(tmp_path, "doc", str(doc))
    assert done.returncode == 0, done.stderr
    text = doc.read_text()
    assert "| ToyLLM | Prometheus /metrics | `toyllm:spec_tokens_total` | ignored | a toy row, not read |" in text
    assert "| ToyLLM | form: toy spec line (`toy spec drafted=D accepted=A`) | read |" in text
