"""imp57: GuideLLM 0.4-0.6 reports' loop shape, two sweeps that share no rate, and a new user's files of the peer
tools' other releases and layouts.

Fixtures: tests/data/imports (SOURCES.md)."""

from __future__ import annotations

import json

from clirun import cli
from paths import DATA

IMPORTS = DATA / "imports"


def _import(tmp_path, capsys, monkeypatch, *args) -> tuple[int, str]:
    code, out, err = cli(["import", *args], capsys, monkeypatch, tmp_path)
    return code, " ".join((out + err).split())


def test_guidellm_0_5_throughput_without_a_rate_is_every_request_at_once_not_the_worker_limit(
    tmp_path, capsys, monkeypatch
):
    """GuideLLM 0.5.3 ``--profile throughput`` without ``--rate``: the report keeps the command line (``args``) and
    each benchmark's ``config.profile`` (``ThroughputProfile``, ``max_concurrency`` null), not 0.7+'s scenario; the
    strategy's ``max_concurrency`` 512 is the worker group's limit. It was imported as N=512 (cell c512): now N=8,
    the 8 requests sent, with the limit named."""
    run = tmp_path / "run"
    path = IMPORTS / "guidellm_0.5.3_throughput_uncapped.json"
    code, text = _import(tmp_path, capsys, monkeypatch, path, "--config", "base", "--out", run)
    assert code == 0, text
    assert "base/imported/c8/r0" in text and "c512" not in text, text
    assert (
        "throughput with no cap (the benchmark's profile max_concurrency is null): every request sent at once, N=8 "
        "(the requests sent); the strategy's max_concurrency 512 is GuideLLM's own worker limit, not a level the "
        "client was set to" in text
    ), text
    assert [e["load"] for e in json.loads((run / "manifest.json").read_text())["imports"]] == ["N=8"]


def test_guidellm_0_5_sweep_throughput_benchmark_is_read_uncapped_too(tmp_path, capsys, monkeypatch):
    """0.5.3's default sweep (``SweepProfile.max_concurrency`` null, ``profiles.py`` @ v0.5.3) runs its throughput
    strategy uncapped: with ``--closed-loop`` its cells are N=1 and N=8, never N=512."""
    run = tmp_path / "run"
    path = IMPORTS / "guidellm_0.5.3_sweep.json"
    code, text = _import(tmp_path, capsys, monkeypatch, path, "--config", "base", "--out", run, "--closed-loop")
    assert code == 0, text
    assert "base/imported/c1/r0" in text and "base/imported/c8/r0" in text and "c512" not in text, text
