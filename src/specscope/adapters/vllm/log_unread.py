"""vLLM log text about speculation that specscope does not read, named so that nothing is dropped unnamed.

Two kinds, each gathered over the whole log into one warning:

- fields of a ``SpecDecoding metrics:`` line beyond the ones vLLM prints at the releases read
  (``SpecDecodingLogging.log`` in vllm/v1/spec_decode/metrics.py, 0.8.0 to main @ ee4ceaae: ``Draft acceptance
  rate``, ``Mean acceptance length``, ``Accepted throughput``, ``Drafted throughput``, ``Accepted``, ``Drafted``,
  ``Rejected``, ``Effective tokens/forward``, ``Per-position acceptance rate``, ``Avg Draft acceptance rate``):
  ``UNREAD_LOG_FIELD`` (forks print running totals or top-k rates there; a later release may add a field). The
  window is still read from the fields it knows.
- other ``SpecDecoding NAME:`` lines (``SpecDecoding cost breakdown: ...``, ``SpecDecoding timing (...): ...`` of
  forks) and ``SpecDecoding metrics:`` lines with neither counts nor a mean length: ``UNREAD_LOG_LINE``.

Each field is a ``Label: value`` item of the line's comma-separated list (a label starts with a letter; the numbers of
a per-position list or of a bracketed list never do).
"""

from __future__ import annotations

import re

from specscope.adapters.logs import OtherOutput, lines_text

__all__ = ["KNOWN_V1_FIELDS", "OTHER_OUTPUTS", "UnreadText"]

#: vLLM's speculative output that is no server log: the summary its offline example prints from ``LLM.get_metrics()``
#: (examples/offline_inference/spec_decode.py: ``num_drafts: N``, ``num_draft_tokens: N``, ``num_accepted_tokens:
#: N``, ``mean acceptance length: X``, ``acceptance at token i: X``)
OTHER_OUTPUTS = (
    OtherOutput(
        "vllm",
        "vLLM's offline spec_decode.py summary",
        r"^\s*num_(?:drafts|draft_tokens|accepted_tokens): \d+\s*$",
        "examples/offline_inference/spec_decode.py",
        "serve the model (vllm serve ... --speculative-config ...) and pass its log, or read the server's counters "
        "with specscope counters BEFORE AFTER",
    ),
)

KNOWN_V1_FIELDS = frozenset(
    {
        "Draft acceptance rate",
        "Mean acceptance length",
        "Accepted throughput",
        "Drafted throughput",
        "Accepted",
        "Drafted",
        "Rejected",
        "Effective tokens/forward",
        "Per-position acceptance rate",
        "Avg Draft acceptance rate",
    }
)
_RE_LABEL = re.compile(r"(?:^|, )([A-Za-z][\w/ -]*?): ")
# "SpecDecoding NAME:" or "SpecDecoding NAME (...):" other than the metrics line
_RE_OTHER = re.compile(r"\bSpecDecoding ([A-Za-z][\w -]*?)(?: \([^)]*\))?: ")


class UnreadText:
    """What a log's speculative lines hold that is not read (module doc), gathered in log order."""

    def __init__(self) -> None:
        self.fields: dict[str, None] = {}  # unread field labels, first seen first
        self.field_lines: list[int] = []  # the lines that printed any of them
        self.lines: dict[str, list[int]] = {}  # unread line name -> its line numbers

    def see_metrics(self, payload: str, line_number: int, read: bool) -> None:
        """A ``SpecDecoding metrics:`` line's ``payload`` (the text after the prefix); ``read``: a window came of it."""
        if not read:
            self.lines.setdefault("SpecDecoding metrics without counts or a mean length", []).append(line_number)
            return
        unread = [label for label in _RE_LABEL.findall(payload) if label not in KNOWN_V1_FIELDS]
        if unread:
            self.fields.update(dict.fromkeys(unread))
            self.field_lines.append(line_number)

    def see_other(self, line: str, line_number: int) -> None:
        """Any other line: named when it is a ``SpecDecoding NAME:`` line."""
        if (m := _RE_OTHER.search(line)) and m.group(1) != "metrics":
            self.lines.setdefault(f"SpecDecoding {m.group(1)}", []).append(line_number)

    def warnings(self) -> list[str]:
        """``UNREAD_LOG_FIELD(...)`` and ``UNREAD_LOG_LINE(...)``, each when there is something to name."""
        out: list[str] = []
        if self.fields:
            named = ", ".join(f"'{f}'" for f in self.fields)
            out.append(
                f"UNREAD_LOG_FIELD(vLLM SpecDecoding metrics {lines_text(self.field_lines)} print fields specscope "
                f"does not read: {named}; the windows' figures come from the fields it reads)"
            )
        if self.lines:
            named = ", ".join(f"'{name}' ({lines_text(numbers)})" for name, numbers in self.lines.items())
            out.append(
                f"UNREAD_LOG_LINE({named}: speculative lines specscope does not read; no figure taken from them)"
            )
        return out
