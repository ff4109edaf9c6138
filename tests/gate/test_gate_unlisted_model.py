"""A server whose ``GET /v1/models`` answers 404 but which serves chat (``specscope truth-server``'s default script):
gate asks for the model name bench asks for (``default``, one rule in ``served_model_name``) instead of refusing it.
A server with no chat endpoint at all stays refused (tests/gate/test_gate_not_openai.py)."""

from __future__ import annotations

import httpx

from hangguard import HANG_S
from specscope.gate.backend import HttpxChat
from specscope.targets.servers import ExternalServer, served_model_name
from specscope.truth.process import TruthServer
from specscope.truth.script import TruthScript


def test_gate_and_bench_name_an_unlisted_model_alike():
    with TruthServer(TruthScript()) as ts:
        assert httpx.get(ts.base_url + "/v1/models", timeout=HANG_S).status_code == 404
        with HttpxChat(timeout_s=HANG_S) as chat:
            gate_name = chat.model_name(ts.base_url)
        with ExternalServer("base", ts.base_url) as bench:
            bench_name = bench.model_name
    assert gate_name == bench_name == served_model_name([]) == "default"
