"""``predict`` names where its bytes per step come from with the audit command that prints the same figure; that
command must run as written (docs/cli.md, "Fixes that run").

Before: the command named the file alone (`specscope audit SmolLM2-135M-Instruct.Q4_1.gguf`, `specscope audit
draft.gguf`), which from any folder but the file's own is a hub repo id and fails; and ``predict --checkpoint
ORG/MODEL`` named `specscope audit MODEL`. Now the command carries the path the figure was read from, quoted for a
shell."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest

from clirun import cli
from specscope.bench.predict import predict_inputs
from specscope.bench.predict_bytes import census_bytes

gguf = pytest.importorskip("gguf")


def _tiny_gguf(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    w = gguf.GGUFWriter(path, "llama")
    w.add_block_count(1)
    w.add_embedding_length(8)
    w.add_tokenizer_model("llama")  # a vocabulary llama.cpp loads: audit alone exits 1 on a GGUF without one
    w.add_token_list([f"t{i}" for i in range(16)])
    w.add_tensor("token_embd.weight", np.zeros((16, 8), dtype=np.float32))
    w.add_tensor("blk.0.attn_q.weight", np.zeros((8, 8), dtype=np.float16))
    w.add_tensor("blk.0.attn_norm.weight", np.zeros((8,), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def _command(source: str) -> list[str]:
    command = source.split("`")[1]
    assert command.startswith("specscope audit ")
    return shlex.split(command)[1:]


def test_the_served_files_census_names_an_audit_command_that_runs(tmp_path, capsys, monkeypatch) -> None:
    model = _tiny_gguf(tmp_path / "my models" / "tiny.gguf")
    got = census_bytes({"path": str(model), "size_bytes": model.stat().st_size})
    assert got is not None
    assert got.source == f"the byte census of tiny.gguf, as `specscope audit '{model}'` prints it"
    monkeypatch.chdir(tmp_path)  # not the file's folder: the bare name would be read as a hub repo id
    code, out, err = cli(_command(got.source), capsys, monkeypatch, tmp_path)
    assert code == 0, err


def test_a_checkpoint_census_names_the_checkpoint_as_given(tmp_path, capsys, monkeypatch) -> None:
    model = _tiny_gguf(tmp_path / "ck dir" / "tiny.gguf")
    monkeypatch.chdir(tmp_path)
    inputs = predict_inputs(bytes_per_step=None, draft_bytes=None, bandwidth="1GB/s", checkpoint="ck dir/tiny.gguf")
    said = "the byte census of tiny.gguf, as `specscope audit 'ck dir/tiny.gguf'` prints it"
    assert inputs.target_bytes_source == said
    code, out, err = cli(_command(inputs.target_bytes_source), capsys, monkeypatch, tmp_path)
    assert code == 0 and model.exists(), err
