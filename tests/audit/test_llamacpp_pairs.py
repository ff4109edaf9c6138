"""GGUF pairs judged by llama.cpp's own rule, ``common_speculative_are_compatible`` (ggml-org/llama.cpp
common/speculative.cpp, as compiled into the embedded engine xllamacpp 2026.10.11549): vocabulary type, add_bos /
add_eos and their ids, token counts within SPEC_VOCAB_MAX_SIZE_DIFFERENCE = 128, token texts from id 5.

Each pair is two real GGUF files written with llama.cpp's ``gguf`` package; each rule is shown failing alone and the
boundary (128 tokens apart) passing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from clirun import cli
from hangguard import HANG_S
from specscope.audit import audit_checkpoint
from specscope.audit.archdoc import known_architectures
from specscope.cli import app

gguf = pytest.importorskip("gguf")

HID, N = 8, 300
ROOT = Path(__file__).resolve().parents[2]


def _tokens(n: int = N) -> list[str]:
    return ["<unk>", "<s>", "</s>"] + [f"t{i}" for i in range(3, n)]


def _gguf(
    path: Path,
    *,
    tokens: list[str] | None = None,
    model: str = "llama",
    pre: str | None = None,
    arch: str = "llama",
    **keys: Any,
) -> Path:
    toks = tokens or _tokens()
    w = gguf.GGUFWriter(path, arch)
    w.add_block_count(1)
    w.add_embedding_length(HID)
    w.add_tokenizer_model(model)
    if pre is not None:
        w.add_tokenizer_pre(pre)
    if model in ("gpt2", "gemma4") and keys.pop("merges", True):
        w.add_token_merges(["t 3", "t 4"])  # llama-vocab.cpp refuses a BPE vocabulary without merges
    w.add_token_list(toks)
    w.add_token_types([2, 3, 3] + [1] * (len(toks) - 3))
    for key, value in keys.items():
        if isinstance(value, bool):
            w.add_bool(f"tokenizer.ggml.{key}", value)
        else:
            w.add_uint32(f"tokenizer.ggml.{key}", value)
    w.add_tensor("token_embd.weight", np.zeros((len(toks), HID), dtype=np.float32))
    w.add_tensor("blk.0.attn_norm.weight", np.zeros((HID,), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def _llama_findings(target: Path, draft: Path) -> list[Any]:
    return [f for f in audit_checkpoint(target, draft=draft).findings if f.code == "LLAMACPP_DRAFT_INCOMPATIBLE"]


def test_a_draft_200_tokens_longer_is_refused_as_llama_cpp_refuses_it(tmp_path: Path) -> None:
    target = _gguf(tmp_path / "t.gguf")
    draft = _gguf(tmp_path / "d.gguf", tokens=_tokens(N + 200))
    report = audit_checkpoint(target, draft=draft)
    assert report.exit_code == 1
    (f,) = [f for f in report.findings if f.code == "LLAMACPP_DRAFT_INCOMPATIBLE"]
    assert f.severity.value == "error" and f.details["rule"] == "size"
    assert "target vocab size 300 does not match draft vocab size 500 - difference 200, max allowed 128" in f.message
    assert "SPEC_VOCAB_MAX_SIZE_DIFFERENCE = 128" in (f.expected or "")
    out = CliRunner().invoke(app, ["audit", str(target), "--draft", str(draft)])
    assert out.exit_code == 1 and "LLAMACPP_DRAFT_INCOMPATIBLE" in out.stdout


def test_128_tokens_apart_with_the_same_texts_passes(tmp_path: Path) -> None:
    target = _gguf(tmp_path / "t.gguf")
    draft = _gguf(tmp_path / "d.gguf", tokens=_tokens(N + 128))
    assert _llama_findings(target, draft) == []


def test_add_bos_token_differs_is_refused(tmp_path: Path) -> None:
    target = _gguf(tmp_path / "t.gguf", add_bos_token=True)
    draft = _gguf(tmp_path / "d.gguf", add_bos_token=False)
    (f,) = _llama_findings(target, draft)
    assert f.details == {"rule": "bos", "add": [True, False], "id": [1, 1]}
    assert '"draft model bos tokens must match target model to use speculation"' in f.message


def test_bos_id_differs_only_matters_when_bos_is_added(tmp_path: Path) -> None:
    target = _gguf(tmp_path / "t.gguf", bos_token_id=1)
    draft = _gguf(tmp_path / "d.gguf", bos_token_id=2)  # SPM adds BOS by default: ids must agree
    (f,) = _llama_findings(target, draft)
    assert f.details == {"rule": "bos", "add": [True, True], "id": [1, 2]}
    t2 = _gguf(tmp_path / "t2.gguf", bos_token_id=1, add_bos_token=False)
    d2 = _gguf(tmp_path / "d2.gguf", bos_token_id=2, add_bos_token=False)
    assert _llama_findings(t2, d2) == []


def test_special_ids_that_are_not_added_are_not_compared(tmp_path: Path) -> None:
    # ggml-org/llama.cpp PR #22358 ("spec : fix vocab compat checks", 2026-04-25: "this makes the vocabs of Qwen3.6
    # 27B and Qwen3.5 0.8B compatible"): the BOS / EOS ids are compared only when that token is added. Before it
    # (stored common/speculative.cpp @6c8a0457) the four values were compared unconditionally, and a failing pair was
    # drafted through text translation (--spec-replace), not refused. A Qwen-like pair: BPE, pre-tokenizer qwen2 (no
    # BOS added), add_eos false, both ids differing: accepted at the embedded engine's release
    target = _gguf(tmp_path / "t.gguf", model="gpt2", pre="qwen2", bos_token_id=7, eos_token_id=8)
    draft = _gguf(tmp_path / "d.gguf", model="gpt2", pre="qwen2", bos_token_id=9, eos_token_id=10)
    # (the generic check still names the differing ids: a warning, exit 0)
    assert _cli(target, draft) == (0, {("DRAFT_SPECIAL_TOKENS_DIFFER", "warning")})
    # the same ids with the target adding its EOS: refused, and by the EOS rule
    t2 = _gguf(tmp_path / "t2.gguf", model="gpt2", pre="qwen2", bos_token_id=7, eos_token_id=8, add_eos_token=True)
    (f,) = _llama_findings(t2, draft)
    assert f.details == {"rule": "eos", "add": [True, False], "id": [8, 10]}


def test_add_eos_differs_is_refused(tmp_path: Path) -> None:
    target = _gguf(tmp_path / "t.gguf")
    draft = _gguf(tmp_path / "d.gguf", add_eos_token=True)
    (f,) = _llama_findings(target, draft)
    assert f.details == {"rule": "eos", "add": [False, True], "id": [2, 2]}


def test_vocabulary_type_differs_is_refused_first(tmp_path: Path) -> None:
    target = _gguf(tmp_path / "t.gguf")
    draft = _gguf(tmp_path / "d.gguf", model="gpt2", tokens=_tokens(N + 500))  # size too: type is checked first
    (f,) = _llama_findings(target, draft)
    assert f.details == {"rule": "vocab_type", "target": "SPM", "draft": "BPE"}


def test_token_text_from_id_5_differs_is_refused_below_5_it_is_not_compared(tmp_path: Path) -> None:
    target = _gguf(tmp_path / "t.gguf")
    low = _tokens()
    low[4] = "other"  # id 4: llama.cpp starts comparing at SPEC_VOCAB_CHECK_START_TOKEN_ID = 5
    assert _llama_findings(target, _gguf(tmp_path / "low.gguf", tokens=low)) == []
    high = _tokens()
    high[7] = "other"
    (f,) = _llama_findings(target, _gguf(tmp_path / "high.gguf", tokens=high))
    assert f.details == {"rule": "text", "token_id": 7}
    assert "token 7 content differs - target 't7', draft 'other'" in f.message


def _cli(target: Path, draft: Path) -> tuple[int, set[tuple[str, str]]]:
    import json

    out = CliRunner().invoke(app, ["audit", str(target), "--draft", str(draft), "-f", "json"])
    return out.exit_code, {(f["code"], f["severity"]) for f in json.loads(out.stdout)["findings"]}


@pytest.mark.parametrize(("n_target", "n_draft"), [(N, N - 128), (N + 128, N), (N + 100, N)])
def test_a_draft_up_to_128_tokens_shorter_is_accepted_as_llama_cpp_accepts_it(
    tmp_path: Path, n_target: int, n_draft: int
) -> None:
    # llama.cpp loads it (difference <= SPEC_VOCAB_MAX_SIZE_DIFFERENCE = 128, texts equal from id 5); draft-simple
    # then leaves a sequence undrafted after a target token past the draft's vocabulary: a warning, exit 0
    target = _gguf(tmp_path / "t.gguf", tokens=_tokens(n_target))
    draft = _gguf(tmp_path / "d.gguf", tokens=_tokens(n_draft))
    assert _cli(target, draft) == (0, {("DRAFT_VOCAB_MISMATCH", "warning")})


def test_a_token_differing_below_id_5_is_a_warning_as_llama_cpp_does_not_compare_it(tmp_path: Path) -> None:
    low = _tokens()
    low[4] = "other"
    code, found = _cli(_gguf(tmp_path / "t.gguf"), _gguf(tmp_path / "low.gguf", tokens=low))
    assert (code, found) == (0, {("DRAFT_TOKENIZER_DIFFERS", "warning")})


def test_a_refused_pair_keeps_its_vocabulary_errors(tmp_path: Path) -> None:
    high = _tokens(N - 129)
    high[7] = "other"
    code, found = _cli(_gguf(tmp_path / "t.gguf"), _gguf(tmp_path / "d.gguf", tokens=high))
    assert code == 1 and ("DRAFT_VOCAB_MISMATCH", "error") in found
    assert ("LLAMACPP_DRAFT_INCOMPATIBLE", "error") in found


@pytest.mark.parametrize("pre", ["tekken", "chameleon"])
def test_bpe_pre_tokenizers_that_add_bos_by_default(tmp_path: Path, pre: str) -> None:
    # llama-vocab.cpp (@00ad355e) sets add_bos = true for the tekken and chameleon pre-tokenizers as for llama3
    target = _gguf(tmp_path / "t.gguf", model="gpt2", pre=pre)
    draft = _gguf(tmp_path / "d.gguf", model="gpt2", pre="qwen2")
    (f,) = _llama_findings(target, draft)
    assert f.details == {"rule": "bos", "add": [True, False], "id": [11, 11]}


@pytest.mark.parametrize(("model", "pre"), [("gpt2", "granite-embed-multi-311m"), ("gemma4", None)])
def test_the_gemma4_pre_type_adds_bos_even_when_the_gguf_says_not_to(tmp_path: Path, model: str, pre: str) -> None:
    # llama-vocab.cpp: "workaround for Gemma 4": pre_type GEMMA4 (pre gemma4 or granite-embed-multi-311m, and every
    # tokenizer.ggml.model gemma4) forces add_bos = true after tokenizer.ggml.add_bos_token is read
    target = _gguf(tmp_path / "t.gguf", model=model, pre=pre, add_bos_token=False, bos_token_id=1)
    draft = _gguf(tmp_path / "d.gguf", model="gpt2", pre="qwen2", add_bos_token=False, bos_token_id=1)
    (f,) = _llama_findings(target, draft)
    assert f.details == {"rule": "bos", "add": [True, False], "id": [1, 1]}


def _bare(path: Path, *, model: str | None = "llama", tokens: bool = True) -> Path:
    w = gguf.GGUFWriter(path, "llama")
    w.add_block_count(1)
    w.add_embedding_length(HID)
    if model is not None:
        w.add_tokenizer_model(model)
    if tokens:
        w.add_token_list(_tokens())
    w.add_tensor("token_embd.weight", np.zeros((N, HID), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("no-model", "key not found in model: tokenizer.ggml.model"),
        ("unknown", "unknown tokenizer: 'foo'"),
        ("no-tokens", "cannot find tokenizer vocab in model file"),
        ("no-merges", "cannot find tokenizer merges in model file"),
        ("duplicate", "duplicate token in vocabulary: 't7' has ids 7 and 9"),
    ],
)
def test_a_gguf_the_engine_cannot_load_is_named_in_either_place(
    tmp_path: Path, kind: str, said: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # llama-vocab.cpp llama_vocab::impl::load (@00ad355e) throws before any pair rule runs
    bad = tmp_path / f"{kind}.gguf"
    if kind == "no-model":
        _bare(bad, model=None)
    elif kind == "unknown":
        _bare(bad, model="foo")
    elif kind == "no-tokens":
        _bare(bad, tokens=False)
    elif kind == "no-merges":
        _gguf(bad, model="gpt2", merges=False)
    else:
        dup = _tokens()
        dup[9] = "t7"
        _gguf(bad, tokens=dup)
    good = _gguf(tmp_path / "good.gguf")
    for target, draft, side in ((good, bad, "draft"), (bad, good, "target")):
        report = audit_checkpoint(target, draft=draft)
        (f,) = [f for f in report.findings if f.code.startswith("LLAMACPP")]
        assert (f.code, f.severity.value, f.file) == ("LLAMACPP_GGUF_UNLOADABLE", "error", side)
        assert said in f.message and report.exit_code == 1
    # alone, the same GGUF is the same finding (llama-server --model refuses it with no draft at all): it exited 0
    alone = audit_checkpoint(bad)
    (f,) = [f for f in alone.findings if f.code.startswith("LLAMACPP")]
    assert (f.code, f.severity.value, f.file) == ("LLAMACPP_GGUF_UNLOADABLE", "error", "target")
    assert said in f.message and alone.exit_code == 1
    code, out, _ = cli(["audit", str(bad)], capsys, monkeypatch, tmp_path)
    assert code == 1 and "LLAMACPP_GGUF_UNLOADABLE" in out
    assert [f.code for f in audit_checkpoint(good).findings if f.code.startswith("LLAMACPP")] == []


def test_a_bpe_pre_tokenizer_llama_cpp_does_not_know_is_named_alone_and_in_a_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # llama-vocab.cpp llama_vocab::impl::load (@00ad355e) throws "unknown pre-tokenizer type: 'x'" for a BPE
    # vocabulary whose tokenizer.ggml.pre is in none of its branches; audit said nothing (exit 0)
    odd = _gguf(tmp_path / "odd.gguf", model="gpt2", pre="my-new-model")
    alone = audit_checkpoint(odd)
    (f,) = alone.by_code("LLAMACPP_PRE_TOKENIZER_UNKNOWN")
    assert (f.severity.value, f.file, alone.exit_code) == ("warning", "target", 0)
    assert f.details == {"side": "target", "pre": "my-new-model"}
    assert "unknown pre-tokenizer type: 'my-new-model'" in f.message
    good = _gguf(tmp_path / "good.gguf", model="gpt2", pre="qwen2")
    pair = audit_checkpoint(good, draft=odd)
    assert [(f.code, f.file) for f in pair.by_code("LLAMACPP_PRE_TOKENIZER_UNKNOWN")] == [
        ("LLAMACPP_PRE_TOKENIZER_UNKNOWN", "draft")
    ]
    code, out, _ = cli(["audit", str(odd)], capsys, monkeypatch, tmp_path)
    assert code == 0 and "LLAMACPP_PRE_TOKENIZER_UNKNOWN" in out
    # known names (qwen35, one of the embedded engine's own: glm5) and an SPM vocabulary's pre: no finding
    for name, model, pre in (("a", "gpt2", "qwen35"), ("b", "gpt2", "glm5"), ("c", "llama", "whatever")):
        r = audit_checkpoint(_gguf(tmp_path / f"{name}.gguf", model=model, pre=pre))
        assert r.by_code("LLAMACPP_PRE_TOKENIZER_UNKNOWN") == [], name
    # a BPE vocabulary with no tokenizer.ggml.pre loads as 'default', and llama.cpp logs "GENERATION QUALITY WILL BE
    # DEGRADED!": named as its own warning (it said nothing)
    r = audit_checkpoint(_gguf(tmp_path / "d.gguf", model="gpt2", pre=None))
    (f,) = r.by_code("LLAMACPP_PRE_TOKENIZER_UNKNOWN")
    assert (f.severity.value, f.details, r.exit_code) == ("warning", {"side": "target", "pre": None}, 0)
    assert f.message.startswith("the target GGUF names no pre-tokenizer (tokenizer.ggml.pre) for its BPE vocabulary")


def test_an_architecture_the_embedded_engine_does_not_know_is_a_named_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # before: general.architecture 'notanarch' with a loadable llama vocabulary was exit 0 with no word; the engine's
    # loader throws "unknown model architecture: 'notanarch'" (its llm_arch_name table: gguf_architectures.toml)
    odd = _gguf(tmp_path / "odd.gguf", arch="notanarch")
    alone = audit_checkpoint(odd)
    (f,) = alone.by_code("GGUF_ARCH_UNKNOWN")
    assert (f.severity.value, f.file, alone.exit_code) == ("warning", "target", 0)
    assert f.details == {"side": "target", "architecture": "notanarch", "list": "xllamacpp 2026.10.11549", "known": 156}
    assert "unknown model architecture: 'notanarch'" in f.message and "xllamacpp 2026.10.11549" in f.message
    assert "LLM_ARCH_NAMES" in (f.fix or "")
    assert [g.code for g in alone.findings] == ["GGUF_ARCH_UNKNOWN"]  # no other family's rule
    pair = audit_checkpoint(_gguf(tmp_path / "good.gguf"), draft=odd)
    assert [(g.code, g.file) for g in pair.by_code("GGUF_ARCH_UNKNOWN")] == [("GGUF_ARCH_UNKNOWN", "draft")]
    code, out, _ = cli(["audit", str(odd)], capsys, monkeypatch, tmp_path)
    assert code == 0 and "GGUF_ARCH_UNKNOWN" in out and "notanarch" in out
    # names in the engine's table and not in the stored llama-arch.cpp @00395eb2 (k2-horizon), and a two-letter one
    # that `strings` on the library misses (t5): no finding
    for arch in ("llama", "qwen35moe", "k2-horizon", "t5", "bert"):
        r = audit_checkpoint(_gguf(tmp_path / f"{arch}.gguf", arch=arch))
        assert r.by_code("GGUF_ARCH_UNKNOWN") == [], arch


def test_the_architecture_list_is_the_engine_table_it_names() -> None:
    names, source = known_architectures()
    assert len(names) == 156 and "(unknown)" not in names and {"clip", "llama", "k2-horizon"} <= names
    assert source["engine"] == "xllamacpp 2026.10.11549"
    assert source["regenerate"] == "python scripts/gen_gguf_architectures.py"
    assert (ROOT / "scripts" / "gen_gguf_architectures.py").is_file()


def test_the_committed_architecture_list_is_the_installed_engine_table() -> None:
    """scripts/gen_gguf_architectures.py --check: the committed list equals what the installed embedded engine's
    llm_arch_name answers (a wheel upgrade that adds names fails here until the list is regenerated)."""
    pytest.importorskip("xllamacpp")
    import subprocess
    import sys

    script = ROOT / "scripts" / "gen_gguf_architectures.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr
