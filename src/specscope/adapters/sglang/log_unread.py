"""The fields of SGLang's decode-batch line that specscope does not read, named so that nothing is dropped unnamed.

The fields ``log_decode_stats`` prints (``scheduler_metrics_mixin.py``; public copies at index ids 135019089,
33194357993, 479745621 and 61864081288, older ``Decode batch.`` to newer ``Decode batch,`` builds): ``#running-req``,
``#token`` and ``token usage`` (or a hybrid model's ``#full token``, ``full token usage``, ``#swa token``, ``swa
token usage``, ``mamba num``, ``mamba usage``), ``accept len`` and ``accept rate`` with speculation, under PD
disaggregation's decode role ``pre-allocated usage``, ``#prealloc-req``, ``#transfer-req``, ``#retracted-req``,
``waiting-image-req`` for a language-only server, ``cuda graph`` (``cpu graph``, ``npu graph``), ``gen throughput
(token/s)``, ``#queue-req``, and with MFU metrics ``est. decode TFLOPS/s (per GPU)``, ``est. read BW (GB/s per
GPU)``, ``est. write BW (GB/s per GPU)`` and ``fwd occupancy``. Any other ``label: value`` item of the line (a fork's
or a later release's) is gathered over the log into one ``UNREAD_LOG_FIELD`` warning, as vLLM's are
(:mod:`specscope.adapters.vllm.log_unread`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from specscope.adapters.logs import lines_text

__all__ = ["KNOWN_DECODE_FIELDS", "unread_decode_fields"]

KNOWN_DECODE_FIELDS = frozenset(
    {
        *("#running-req", "#token", "token usage", "#full token", "full token usage", "#swa token"),
        *("swa token usage", "mamba num", "mamba usage", "accept len", "accept rate", "pre-allocated usage"),
        *("#prealloc-req", "#transfer-req", "#retracted-req", "waiting-image-req", "cuda graph", "cpu graph"),
        *("npu graph", "gen throughput (token/s)", "#queue-req", "est. decode TFLOPS/s (per GPU)"),
        *("est. read BW (GB/s per GPU)", "est. write BW (GB/s per GPU)", "fwd occupancy"),
    }
)
# the line's items after "Decode batch" (an optional " [N]" iteration, then "." or ","): "label: value, ..."
_RE_BODY = re.compile(r"Decode batch(?: \[\d+\])?[.,] (.*)$")
_RE_LABEL = re.compile(r"(?:^|, )([^:,]+?): ")


def unread_decode_fields(lines: Sequence[str]) -> list[str]:
    """``UNREAD_LOG_FIELD(...)`` naming the decode-batch fields not read (module doc), once over the log; else []."""
    fields: dict[str, None] = {}
    numbers: list[int] = []
    for index, line in enumerate(lines):
        body = _RE_BODY.search(line)
        if body is None:
            continue
        unread = [label for label in _RE_LABEL.findall(body.group(1)) if label not in KNOWN_DECODE_FIELDS]
        if unread:
            fields.update(dict.fromkeys(unread))
            numbers.append(index + 1)
    if not fields:
        return []
    named = ", ".join(f"'{f}'" for f in fields)
    return [
        f"UNREAD_LOG_FIELD(SGLang decode-batch {lines_text(numbers)} print fields specscope does not read: {named}; "
        "the windows' figures come from the fields it reads)"
    ]
