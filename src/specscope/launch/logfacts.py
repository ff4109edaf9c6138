"""Facts read from a server log: what loaded, how big the KV cache is, what speculation did, what failed.

Parsing is apart from I/O: :func:`parse_log_facts` takes the log text, :func:`read_log_facts` reads a file (the
package exports them under their first names, ``specscope.launch.parse_vllm_log`` / ``read_vllm_log``). Each
engine's lines (their wordings and sources) are read by its adapter, put together by
:mod:`specscope.adapters.log_facts`; this module adds the failure signatures (:mod:`specscope.launch.failures`).
"""

from __future__ import annotations

import codecs
from pathlib import Path

from pydantic import Field

from specscope.adapters.log_facts import (
    MISSING_LOG,
    EngineLogFacts,
    SpecCumulativeSample,
    SpecDecodingSample,
    engine_log_facts,
)
from specscope.adapters.logs import StatsSample, split_log_lines
from specscope.errors import require_path
from specscope.launch.failures import FailureSignature, match_failures

__all__ = [
    "LogFacts",
    "SpecCumulativeSample",
    "SpecDecodingSample",
    "StatsSample",
    "log_text",
    "parse_log_facts",
    "read_log_facts",
]


class LogFacts(EngineLogFacts):
    """Everything specscope reads from one server log (:class:`EngineLogFacts`: each adapter's fields, every field
    None / empty when the log lacks it), with ``failures``: the failure signatures found, in log order."""

    failures: list[FailureSignature] = Field(default_factory=list)

    def failure_codes(self) -> list[str]:
        """The ``code`` of each failure found, in log order."""
        return [f.code for f in self.failures]


def parse_log_facts(text: str) -> LogFacts:
    """Parse a server log into :class:`LogFacts`.

    Args:
        text: the whole log as text (lines separated by ``\\n``; a ``\\r`` inside a line is kept).

    Returns:
        LogFacts. Never raises for unknown lines: a log without any known line gives an all-empty LogFacts.
    """
    lines = split_log_lines(text)  # on "\\n" only: line numbers match editors and grep -n
    facts = LogFacts(**dict(engine_log_facts(lines)))
    facts.failures = match_failures(lines)
    return facts


def log_text(data: bytes) -> str:
    """A log file's text: UTF-8, undecodable bytes replaced, a lone carriage return kept inside its line; UTF-16
    when the file starts with its byte-order mark (``FF FE`` or ``FE FF``: Windows PowerShell 5 writes ``docker logs
    C > server.log`` so), whose every line read as UTF-8 was NULs between letters and matched no engine's form."""
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8", errors="replace")


def read_log_facts(path: str | Path) -> LogFacts:
    """Read a server log file (:func:`log_text`: UTF-8, undecodable bytes replaced, or UTF-16) and parse it with
    :func:`parse_log_facts`.

    Raises:
        ConfigError: the file does not exist or is not a regular file.
    """
    what, expected, fix = MISSING_LOG
    p = require_path(path, what, expected=expected, fix=fix)
    return parse_log_facts(log_text(p.read_bytes()))
