"""An API key with a control character (a key read from a file with its final newline) is refused by name, exit 2,
before any request, in bench and gate alike, and the error never shows the key. Before: every request failed and
the run said the server "cannot be reached" (``LocalProtocolError: Illegal header value b'Bearer ...'``), the key
in the message."""

from __future__ import annotations

import pytest

from clirun import cli
from specscope.truth import ResponsePlan, TruthScript, TruthServer

KEY = "LineBreakKey4321"


@pytest.mark.parametrize("command", ["bench", "gate"])
@pytest.mark.parametrize(
    ("key", "where"), [(KEY + "\n", "'\\n' at position 17"), ("ab\x01cd", "'\\x01' at position 3")]
)
def test_a_key_with_a_control_character_is_refused_before_any_request(
    command, key, where, tmp_path, capsys, monkeypatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with TruthServer(TruthScript(default=ResponsePlan(output_tokens=4))) as ts:
        argv = [command, "--server", ts.base_url, "--api-key", key, "--out", tmp_path / "runs"]
        argv += ["--workloads", "prose", "--repeats", "1"] if command == "bench" else ["--gate", "arithmetic"]
        code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
        sent = len(ts.served())
    assert code == 2 and sent == 0
    assert (
        f"error: the API key (--api-key) holds a control character (a line break?); found: a key of {len(key)} "
        f"characters, {where}; expected: a key an HTTP header can carry"
    ) in err
    assert key.strip() not in err
