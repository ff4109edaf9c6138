"""The generated test fixtures: scripts/safetensors_fixtures.py rebuilds the case .safetensors files byte for byte."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from paths import CASES, DATA, ROOT, SAFETENSORS_SPEC, fixture_builder


def _spec() -> dict[str, dict]:
    return json.loads(SAFETENSORS_SPEC.read_text())["files"]


def test_every_generated_file_is_there_with_its_sha256():
    files = _spec()
    assert len(files) == 14
    for rel, entry in files.items():
        assert hashlib.sha256((DATA / rel).read_bytes()).hexdigest() == entry["sha256"], rel
    # the C03 shard that the index misses: 13 BF16 tensors, 86,656 tensor bytes (tests/data/SOURCES.md, C03)
    mtp = files["cases/C03/checkpoint/model-mtp.safetensors"]
    assert len(mtp["tensors"]) == 13 and sum(t["bytes"] for t in mtp["tensors"]) == 86_656
    assert (CASES / "C03/checkpoint/model-mtp.safetensors").stat().st_size == 8 + 1240 + 86_656


def test_build_writes_missing_and_stale_files_only(tmp_path: Path):
    builder = fixture_builder()
    written = builder.build(SAFETENSORS_SPEC, tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == sorted(_spec())
    stale = tmp_path / "cases/C11/checkpoint/model.safetensors"
    stale.write_bytes(stale.read_bytes()[:-1] + b"\x00")
    assert builder.build(SAFETENSORS_SPEC, tmp_path) == [stale]
    assert stale.read_bytes() == (CASES / "C11/checkpoint/model.safetensors").read_bytes()
    assert builder.build(SAFETENSORS_SPEC, tmp_path) == []


def test_pack_of_a_built_file_gives_its_spec_back():
    rel = "cases/C10/A_mixed/model.safetensors"
    assert fixture_builder().pack_file(DATA / rel) == _spec()[rel]


def test_script_bad_arguments_one_line_exit_2():
    p = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "safetensors_fixtures.py"), "bogus"], capture_output=True, text=True
    )
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.splitlines() == [
        "found: bogus; expected: `build` or `pack SRC_ROOT FILE...`; fix: run `python scripts/safetensors_fixtures.py "
        "build`"
    ]
