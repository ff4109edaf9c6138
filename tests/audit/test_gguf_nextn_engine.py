"""The NextN-head rule (:mod:`specscope.audit.rules_llamacpp_nextn`) against the embedded engine itself: each file of
tests/audit/test_gguf_nextn.py is loaded by the engine's own model loader (``llama_model_load_from_file`` of the
xllamacpp shared library, called through ctypes in a child process with the library's default model parameters) and
the engine's answer -- loaded or refused, and the log line -- is the one the finding quotes.

``llama_model_params`` is passed by value; the child gives the engine a 512-byte buffer filled by
``llama_model_default_params`` (a larger struct than the engine's: a by-value struct of that size travels in memory,
and the engine reads only its own fields)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hangguard import HANG_S
from specscope.audit import audit_checkpoint
from specscope.audit.findings import Severity

from .test_gguf_nextn import glm4moe

pytest.importorskip("xllamacpp")
pytestmark = pytest.mark.integration

_LOAD = """
import ctypes, glob, os, sys, xllamacpp
lib = ctypes.CDLL(glob.glob(os.path.join(os.path.dirname(xllamacpp.__file__), "xllamacpp*.so"))[0])
class Params(ctypes.Structure):
    _fields_ = [("raw", ctypes.c_char * 512)]
lib.llama_model_default_params.restype = Params
lib.llama_model_load_from_file.argtypes = [ctypes.c_char_p, Params]
lib.llama_model_load_from_file.restype = ctypes.c_void_p
lib.llama_backend_init()
model = lib.llama_model_load_from_file(sys.argv[1].encode(), lib.llama_model_default_params())
print("LOADED" if model else "REFUSED", file=sys.stderr, flush=True)
"""


def _engine(path: Path) -> tuple[bool, str]:
    """(loaded, the engine's log) for the GGUF at ``path``."""
    out = subprocess.run([sys.executable, "-c", _LOAD, str(path)], capture_output=True, text=True, timeout=HANG_S)
    log = out.stderr
    assert "LOADED" in log or "REFUSED" in log or out.returncode != 0, log[-2000:]  # refused, or aborted
    return "LOADED" in log, log


# (file options, the engine loads it, a line of its log, audit's findings as (code, severity, rule))
CASES = [
    ({}, True, "n_layer_all           = 3", []),
    ({"drop": ("blk.2.nextn.shared_head_norm.weight",)}, True, "n_layer               = 2", []),
    (
        {"drop": ("blk.2.nextn.enorm.weight",)},
        False,
        "check_tensor_dims: tensor 'blk.2.nextn.enorm.weight' not found",
        [("LLAMACPP_NEXTN_TENSORS", Severity.ERROR, "missing")],
    ),
    (
        {"heads": 2, "drop": ("blk.3.nextn.eh_proj.weight",)},
        False,
        "check_tensor_dims: tensor 'blk.3.nextn.eh_proj.weight' not found",
        [("LLAMACPP_NEXTN_TENSORS", Severity.ERROR, "missing")],
    ),
    (
        {"drop": ("blk.2.nextn.eh_proj.weight",)},
        True,
        "model has unused tensor blk.2.nextn.enorm.weight",
        [("LLAMACPP_NEXTN_TENSORS", Severity.WARNING, "no-head")],
    ),
    (
        {"key": None},
        False,
        "wrong number of tensors; expected 53, got 49",
        [("LLAMACPP_NEXTN_LAYERS", Severity.ERROR, "undeclared")],
    ),
    (
        {"heads": 2, "key": 1},
        False,
        "wrong number of tensors",
        [("LLAMACPP_NEXTN_LAYERS", Severity.ERROR, "undeclared")],
    ),
    (
        {"drop": ("blk.2.",)},  # llama.cpp issue #21172: a head block with no tensor at all
        True,
        "n_layer               = 2",
        [("LLAMACPP_NEXTN_TENSORS", Severity.WARNING, "no-head")],
    ),
    (
        {"old_names": True},  # llama.cpp PR #14939: the head under its names before the nextn. rename
        False,
        "wrong number of tensors; expected 53, got 49",
        [("LLAMACPP_NEXTN_TENSORS", Severity.ERROR, "old-names")],
    ),
    (
        {"key": 5},
        False,
        "GGML_ASSERT(hparams.n_layer_nextn <= hparams.n_layer_all) failed",
        [("LLAMACPP_NEXTN_LAYERS", Severity.ERROR, "count")],
    ),
    (
        {"key": 2},
        True,
        "model has unused tensor blk.1.attn_norm.weight",
        [("LLAMACPP_NEXTN_LAYERS", Severity.ERROR, "trunk")],
    ),
]


@pytest.mark.parametrize(("options", "loads", "line", "findings"), CASES)
def test_audit_says_what_the_engine_does_with_the_file(
    tmp_path: Path, options: dict[str, object], loads: bool, line: str, findings: list[tuple[str, Severity, str]]
) -> None:
    path = glm4moe(tmp_path / "t.gguf", **options)  # type: ignore[arg-type]
    loaded, log = _engine(path)
    assert loaded is loads
    assert line in log
    report = audit_checkpoint(str(path))
    assert [(f.code, f.severity, (f.details or {}).get("rule")) for f in report.findings] == findings
