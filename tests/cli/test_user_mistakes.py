"""User mistakes found by trying the CLI as a new user: each is one stderr line and exit 2, through ``main``."""

from __future__ import annotations

import pytest

from specscope.cli import main


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    return int(info.value.code or 0), capsys.readouterr().err


def test_counters_on_a_file_that_is_not_text(tmp_path, capsys):
    before, after = tmp_path / "before.prom", tmp_path / "after.prom"
    before.write_bytes(b"\xff\xfe\x00binary")
    after.write_text("vllm:generation_tokens_total 1\n")
    code, err = _run(["counters", str(before), str(after)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith("error: cannot read the scrape file") and "not UTF-8 text" in err


def test_truth_server_port_out_of_range(capsys):
    code, err = _run(["truth-server", "--port", "70000"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--port" in err and "65535" in err


def test_predict_max_k_is_bounded(capsys):
    argv = ["predict", "--per-position", "0.5", "--bytes-per-step", "1GB", "--draft-bytes", "0.1GB"]
    code, err = _run([*argv, "--bandwidth", "100GB/s", "--max-k", "100000"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--max-k" in err and "64" in err


def test_bench_server_url_that_is_not_a_url(capsys, tmp_path):
    code, err = _run(["bench", "--server", "a=http://[::zz]:80", "--out", str(tmp_path)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith("error: --server URL is not valid") and not list(tmp_path.iterdir())


def test_predict_measured_cannot_be_negative(capsys):
    argv = ["predict", "--per-position", "0.5", "--bytes-per-step", "1GB", "--draft-bytes", "0.1GB"]
    code, err = _run([*argv, "--bandwidth", "100GB/s", "--measured", "-5"], capsys)
    assert code == 2 and "--measured" in err
