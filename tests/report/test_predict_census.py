"""``specscope predict RUN`` on a real embedded run takes the bytes per step from the same byte census as
``specscope audit`` on the same GGUF files (issue 33: one fact, one value), and says so; a file that is no longer the
one served falls back to what the run recorded, named as such.

Before: predict read the model file's size (98,362,432 bytes for SmolLM2-135M Q4_1) where audit says 96,576,768
bytes per decode step (the header and tokenizer are in the file, not in a step)."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("xllamacpp")

from hangguard import HANG_S
from specscope.bench.predict_bytes import census_bytes, served_file  # noqa: E402
from specscope.store import open_run  # noqa: E402

pytestmark = [pytest.mark.integration]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "specscope", *args], capture_output=True, text=True, timeout=HANG_S)


def _json(*args: str) -> dict:
    r = _cli(*args, "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_predict_reads_the_bytes_per_step_audit_prints(embedded_run: Path) -> None:
    with open_run(embedded_run) as run:
        facts = run.server_facts
    model, draft = facts.of("base").model.path, facts.of("draft").draft.path
    census = _json("audit", model, "--draft", draft)["census"]
    pred = _json("predict", str(embedded_run))
    assert census["target_bytes_per_token"] == 96_576_768  # SmolLM2-135M Q4_1: 98,362,432 bytes on disk
    assert pred["target_bytes"] == census["target_bytes_per_token"]
    assert pred["models"]["draft"]["draft_bytes_per_token"] == census["draft_bytes_per_step"]
    name = Path(model).name
    said = f"the byte census of {name}, as `specscope audit {shlex.quote(model)}` prints it"  # a command that runs
    assert pred["target_bytes_source"] == said
    text = _cli("predict", str(embedded_run), "--width", "1000")
    assert text.returncode == 0, text.stderr
    assert f"target bytes per step: 0.0966 GB ({said})" in text.stdout
    assert (
        f"note: draft bytes per drafted token of draft: {census['draft_bytes_per_step'] / 1e9:.4f} GB, the byte "
        f"census of draft.gguf, as `specscope audit {shlex.quote(draft)}` prints it" in text.stdout
    )


def test_a_file_no_longer_served_is_not_read(embedded_run: Path, tmp_path: Path) -> None:
    with open_run(embedded_run) as run:
        entry = dict(run.server_facts.of("base").stored["model"])  # as stored: what predict's census reads
    assert served_file(entry) == Path(entry["path"])
    copy = tmp_path / "model.gguf"
    shutil.copyfile(entry["path"], copy)
    assert census_bytes({**entry, "path": str(copy)}).bytes_per_step == 96_576_768  # same bytes, same sha256
    with copy.open("r+b") as f:  # the same size, other bytes: the recorded sha256 no longer matches
        f.seek(-1, 2)
        last = f.read(1)
        f.seek(-1, 2)
        f.write(bytes([last[0] ^ 0xFF]))
    assert served_file({**entry, "path": str(copy)}) is None
    assert served_file({**entry, "path": str(tmp_path / "gone.gguf")}) is None
    assert served_file({**entry, "size_bytes": entry["size_bytes"] + 1}) is None
