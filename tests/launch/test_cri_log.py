"""A container log file as a Kubernetes node keeps it (``/var/log/pods/.../0.log``, the CRI logging format: each line
``TIMESTAMP STREAM TAG CONTENT``, the first tag ``P`` for a partial line and ``F`` for the part that ends it;
kubernetes ``pkg/kubelet/kuberuntime/logs/logs.go`` ``parseCRILog``) is read as the lines the server wrote.

A line the runtime split (containerd splits a line at ``max_container_log_line_size``, 16 KiB by default) was read
as separate lines: a ``SpecDecoding metrics`` window whose counts fell in the second part was lost (``serve
--parse-log`` refused the file as holding no server-log line), and a JSON-formatter record behind the CRI prefix was
never read as a record. Now the ``P`` parts of a stream are joined to its next ``F`` line, always, whatever their
length, and the joined line is named by the line it starts on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clirun import cli
from parselog import LOGS
from specscope.adapters.logs import split_log_lines


def _facts(path: Path, capsys, monkeypatch, tmp_path: Path) -> tuple[int, dict[str, object]]:
    code, out, _ = cli(["serve", "--parse-log", path, "-f", "json"], capsys, monkeypatch, tmp_path)
    doc = json.loads(out)
    doc.pop("path", None)
    doc.pop("log", None)
    return code, doc


def _cri(text: str, part: int | None) -> str:
    """``text`` as the runtime writes it: each line on stdout, split into ``P`` parts of ``part`` characters."""
    out = []
    for n, line in enumerate(text.split("\n")[:-1]):
        stamp = f"2026-12-06T10:00:{n % 60:02d}.{n:09d}Z"
        chunks = [line[i : i + part] for i in range(0, len(line), part)] if part else [line]
        chunks = chunks or [""]
        out += [f"{stamp} stdout P {c}" for c in chunks[:-1]] + [f"{stamp} stdout F {chunks[-1]}"]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("name", ["vllm_0320_json_formatter_ngram.log", "vllm_083_eagle_zero_accept.log"])
@pytest.mark.parametrize("part", [None, 40])
def test_a_cri_container_log_reads_as_the_server_wrote_it(name, part, capsys, monkeypatch, tmp_path):
    log = LOGS / name
    cri = tmp_path / "0.log"
    cri.write_text(_cri(log.read_text("utf-8"), part), "utf-8")
    want = _facts(log, capsys, monkeypatch, tmp_path)
    got = _facts(cri, capsys, monkeypatch, tmp_path)
    if part:  # a statistic is named by the line of the file its first part is on
        lines = cri.read_text("utf-8").split("\n")
        numbers = _line_numbers(got[1])
        assert numbers and all(n == 1 or " stdout F " in lines[n - 2] for n in numbers)
        assert len(numbers) == len(_line_numbers(want[1]))
        got, want = _without_line_numbers(got), _without_line_numbers(want)
    assert got == want and got[1]


def _line_numbers(doc: object) -> list[int]:
    if isinstance(doc, dict):
        return [n for k, v in doc.items() for n in ([v] if k == "line_number" else _line_numbers(v)) if n is not None]
    return [n for v in doc for n in _line_numbers(v)] if isinstance(doc, list) else []


def _without_line_numbers(doc: object) -> object:
    if isinstance(doc, dict):
        return {k: _without_line_numbers(v) for k, v in doc.items() if k != "line_number"}
    if isinstance(doc, list | tuple):
        return [_without_line_numbers(v) for v in doc]
    return doc


def test_partial_lines_join_per_stream_and_keep_their_line_number():
    text = (
        "2026-12-06T10:00:00.000000001Z stdout P SpecDecoding metrics: Draft acceptance rate: 50.0%, Ac\n"
        "2026-12-06T10:00:00.000000002Z stderr F WARNING something else\n"
        "2026-12-06T10:00:00.000000003Z stdout F cepted: 1500 tokens, Drafted: 3000 tokens\n"
        "2026-12-06T10:00:01+00:00 stdout F:x plain\n"
        "not a CRI line stdout F kept as it is\n"
    )
    assert split_log_lines(text) == [
        "SpecDecoding metrics: Draft acceptance rate: 50.0%, Accepted: 1500 tokens, Drafted: 3000 tokens",
        "WARNING something else",
        "",
        "plain",
        "not a CRI line stdout F kept as it is",
        "",
    ]
