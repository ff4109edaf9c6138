"""Facts read from a vLLM server log: what loaded, how big the KV cache is, what speculation did, what failed.

Parsing is apart from I/O: :func:`parse_vllm_log` takes the log text, :func:`read_vllm_log` reads a file. The vLLM
lines (their wordings and sources) are read by :mod:`specscope.adapters.vllm.log_facts`; SGLang's decode-batch windows
by :mod:`specscope.adapters.sglang.logs`; this module adds the failure signatures (:mod:`specscope.launch.failures`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from specscope.adapters.logs import StatsSample, split_log_lines
from specscope.adapters.sglang.logs import SglangSpecWindow, sglang_log_facts
from specscope.adapters.vllm.log_facts import VllmLogFacts, parse_vllm_facts
from specscope.adapters.vllm.logs import SpecCumulativeSample, SpecDecodingSample
from specscope.errors import require_path
from specscope.launch.failures import FailureSignature, match_failures

__all__ = [
    "LogFacts",
    "SpecCumulativeSample",
    "SpecDecodingSample",
    "StatsSample",
    "parse_vllm_log",
    "read_vllm_log",
]


class LogFacts(VllmLogFacts):
    """Everything specscope reads from one server log's vLLM lines (:class:`VllmLogFacts`, every field None / empty
    when the log lacks it), with ``sglang_spec_windows`` / ``sglang_speculative`` (an SGLang log's decode-batch windows
    and speculative server args) and ``failures``: the failure signatures found, in log order."""

    sglang_spec_windows: list[SglangSpecWindow] = Field(default_factory=list)
    sglang_speculative: dict[str, Any] | None = None
    failures: list[FailureSignature] = Field(default_factory=list)

    def failure_codes(self) -> list[str]:
        """The ``code`` of each failure found, in log order."""
        return [f.code for f in self.failures]


def parse_vllm_log(text: str) -> LogFacts:
    """Parse a server log into :class:`LogFacts`.

    Args:
        text: the whole log as text (lines separated by ``\\n``; a ``\\r`` inside a line is kept).

    Returns:
        LogFacts. Never raises for unknown lines: a log without any known line gives an all-empty LogFacts.
    """
    lines = split_log_lines(text)  # on "\\n" only: line numbers match editors and grep -n
    base = parse_vllm_facts(lines)
    windows, spec = sglang_log_facts(lines)
    facts = LogFacts(**dict(base), sglang_spec_windows=windows, sglang_speculative=spec)
    facts.failures = match_failures(lines)
    return facts


def read_vllm_log(path: str | Path) -> LogFacts:
    """Read a vLLM log file (UTF-8, undecodable bytes replaced) and parse it with :func:`parse_vllm_log`.

    Raises:
        ConfigError: the file does not exist or is not a regular file.
    """
    fix = "pass the path of a file holding vLLM's stdout/stderr"
    p = require_path(path, "vLLM log not found", expected="a readable vLLM server log file", fix=fix)
    return parse_vllm_log(p.read_bytes().decode("utf-8", errors="replace"))  # keep bare "\r" inside lines
