"""`specscope gate --launch vllm`: each vLLM recipe is launched only while its gates run (a stand-in vLLM here:
tests/launch/fake_vllm.py, a real HTTP server process speaking vLLM's CLI and wording)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hangguard import HANG_S

FAKE = Path(__file__).resolve().parents[1] / "launch" / "fake_vllm.py"

pytestmark = pytest.mark.integration


def test_gate_launches_recipes_one_at_a_time(tmp_path):
    book = tmp_path / "recipes.toml"
    book.write_text(
        "\n".join(
            f'[recipes.{name}]\ninherit_defaults = false\nmodel = "fake-model"\nmethod = "{method}"\n'
            f'{extra}vllm_command = ["{sys.executable}", "{FAKE}"]\n'
            for name, method, extra in (
                ("fake-base", "base", ""),
                ("fake-ngram", "ngram", "num_speculative_tokens = 4\n"),
            )
        )
    )
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "specscope",
            "gate",
            "--launch",
            "vllm",
            "--configs",
            "fake-base",
            "--configs",
            "fake-ngram",
            "--recipes",
            str(book),
            "--gate",
            "arithmetic",
            "--limit",
            "1",
            "--out",
            str(tmp_path / "runs"),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert res.returncode in (0, 1), res.stderr[-2000:]
    doc = json.loads(res.stdout)
    run_dir = Path(doc["run_folder"])
    assert [c["name"] for c in doc["configs"]] == ["fake-base", "fake-ngram"]
    assert doc["configs"][0]["base_url"] != doc["configs"][1]["base_url"]  # two launches
    assert {r["config"] for r in doc["results"]} == {"fake-base", "fake-ngram"}
    for name in ("fake-base", "fake-ngram"):
        log = (run_dir / f"vllm-{name}.log").read_text()
        assert log.startswith("# specscope launch:")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["kind"] == "gate" and manifest["recipes"] == ["fake-base", "fake-ngram"]


def test_gate_unknown_recipe_is_one_line(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "specscope", "gate", "--launch", "vllm", "--configs", "nope", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert (
        res.stderr.strip()
        .splitlines()[-1]
        .startswith("error: invalid value for --configs; found: nope; expected: a recipe of the file: ")
    )
