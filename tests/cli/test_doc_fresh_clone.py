"""A doc example auditing a case checkpoint works on a fresh clone: its .safetensors shards are not in git (built
by scripts/safetensors_fixtures.py), so the doc says the build step before the example."""

from __future__ import annotations

import re
import subprocess

from fixcommands import ROOT

BUILD = "python scripts/safetensors_fixtures.py build"


def _tracked(path: str) -> set[str]:
    out = subprocess.run(["git", "ls-files", path], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_case_checkpoint_examples_say_the_build_step_first():
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text()
        for m in re.finditer(r"specscope audit (tests/data/cases/\w+/checkpoint)", text):
            shards = list((ROOT / m.group(1)).glob("*.safetensors"))
            if any(str(s.relative_to(ROOT)) in _tracked(m.group(1)) for s in shards):
                continue  # shards in git: a fresh clone has them
            assert BUILD in text[: m.start()], f"{doc.name}: `{m.group(0)}` needs `{BUILD}` before it"
