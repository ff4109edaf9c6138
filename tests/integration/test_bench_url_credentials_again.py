"""A run whose ``--server`` URL held credentials (issue 37 A3): the run stores them masked (``http://***@host``),
so ``--like`` and ``--resume`` never send the mask as a password; they ask for the URL again, and with it the
truth server receives the real credentials (HTTP Basic, RFC 7617) on every chat request."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from clirun import cli
from specscope.truth import ResponsePlan, TruthScript, TruthServer

pytestmark = pytest.mark.integration

USER, PASSWORD = "alice", "pw-7d1e-secret"
BASIC = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()


def _bench(argv: list[str], capsys, monkeypatch, tmp_path: Path) -> tuple[int, str, str]:
    return cli(["bench", *argv], capsys, monkeypatch, tmp_path)


def test_like_and_resume_ask_for_the_credentials_again_and_send_them(tmp_path, capsys, monkeypatch) -> None:
    script = TruthScript(default=ResponsePlan(output_tokens=4))
    with TruthServer(script) as ts:
        url = ts.base_url.replace("http://", f"http://{USER}:{PASSWORD}@")
        base = ["--workloads", "prose", "--max-concurrency", "1", "--repeats", "1", "--max-tokens", "4", "-f", "json"]
        code, _, err = _bench(
            ["--server", f"base={url}", *base, "--out", tmp_path / "a"], capsys, monkeypatch, tmp_path
        )
        assert code == 0, err
        (run,) = (tmp_path / "a").iterdir()
        assert PASSWORD not in (run / "manifest.json").read_text()

        code, _, err = _bench(["--like", run, "--out", tmp_path / "b"], capsys, monkeypatch, tmp_path)
        assert code == 2 and not (tmp_path / "b").exists()
        text = " ".join(err.split())
        assert f"the server URL of {run} held credentials, which a run never stores" in text
        assert "found: base=http://***@127.0.0.1:" in text and "--server base=URL" in text

        code, _, err = _bench(["--resume", run], capsys, monkeypatch, tmp_path)
        assert code == 2 and "held credentials, which a run never stores" in err

        served_before = len(ts.served())
        code, _, err = _bench(
            ["--like", run, "--server", f"base={url}", "--out", tmp_path / "b"], capsys, monkeypatch, tmp_path
        )
        assert code == 0, err
        sent = ts.served()[served_before:]
        assert sent and {r["authorization"] for r in sent} == {BASIC}  # warm-up and measured requests alike

        code, _, err = _bench(["--resume", run, "--server", f"base={url}"], capsys, monkeypatch, tmp_path)
        assert code == 0, err  # the URL given again equals the run's once masked: not "differs from the run's"
