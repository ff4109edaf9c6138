"""Every server kind has the ServerTarget shape (checked on real objects, the truth server started)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import httpx
import pytest

from hangguard import HANG_S
from specscope.engine import EmbeddedServer, get_config
from specscope.errors import ServerStartError
from specscope.launch.process import VllmServer
from specscope.launch.recipes import Recipe
from specscope.seam import ServerTarget
from specscope.targets import ExternalServer
from specscope.truth import TruthServer


def test_every_kind_has_the_shape(tmp_path: Path) -> None:
    recipe = Recipe(name="r", model="m", vllm_command=[sys.executable, "-c", "pass"])
    vllm = VllmServer(recipe, tmp_path / "v.log", port=8123)
    embedded = EmbeddedServer(get_config("base"), tmp_path / "e.log")
    external = ExternalServer("mine", "http://127.0.0.1:9/v1")
    for target in (vllm, embedded, external, TruthServer()):
        assert isinstance(target, ServerTarget), type(target).__name__
    assert (vllm.kind, vllm.metrics_url, vllm.log_path) == ("vllm", "http://127.0.0.1:8123/metrics", tmp_path / "v.log")
    assert (embedded.kind, embedded.name, embedded.log_path) == ("embedded", "base", tmp_path / "e.log")
    assert (external.kind, external.base_url, external.metrics_url) == (
        "external",
        "http://127.0.0.1:9",
        "http://127.0.0.1:9/metrics",
    )


def test_truth_server_target_answers_on_its_urls() -> None:
    with TruthServer() as ts:
        assert ts.alive() is True and ts.kind == "truth"
        assert ts.facts()["base_url"] == ts.base_url
        assert httpx.get(ts.metrics_url, timeout=HANG_S).status_code == 200
        assert ts.log_path is not None and ts.log_path.is_file()
    assert ts.alive() is False


@pytest.mark.timing  # asserts wall-clock bounds
def test_truth_server_start_timeout_really_fires() -> None:
    server = TruthServer(start_timeout_s=0.05)  # far less than a Python start-up: it cannot announce in time
    t0 = time.monotonic()
    with pytest.raises(ServerStartError) as info:
        server.start()
    assert time.monotonic() - t0 < 0.05 + 1.0
    assert info.value.message == "the ground-truth server not healthy after 0.05 s"
    assert info.value.found == "no LISTENING line after 0.05 s"
    assert server.alive() is False
