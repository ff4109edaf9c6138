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


def test_report_on_an_empty_database_leaves_it_empty(tmp_path, capsys):
    run = tmp_path / "r"
    run.mkdir()
    (run / "manifest.json").write_text('{"schema_version": 2, "kind": "bench"}')
    (run / "run.sqlite").write_bytes(b"")
    code, err = _run(["report", str(run)], capsys)
    assert code == 2 and err.startswith(f"error: {run / 'run.sqlite'} is empty")
    assert (run / "run.sqlite").stat().st_size == 0


@pytest.mark.parametrize(
    "argv", [["--mix", "prose=inf"], ["--mix", "prose=nan"], ["--mix", "prose=1", "--slo", "ttft=-2s"]]
)
def test_advise_rejects_non_finite_mix_and_negative_slo(argv, tmp_path, capsys):
    from factmaker import cell_facts
    from specscope.store import create_run

    run = create_run(tmp_path / "r", {"kind": "bench"})
    for cfg in ("base", "ngram"):
        run.save_cell(cell_facts(cfg, "prose", 1, 0, 10.0))
    run.close()
    code, err = _run(["advise", str(tmp_path / "r"), *argv], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_bench_negative_seed_is_refused_before_a_run_folder_exists(capsys, tmp_path):
    code, err = _run(
        ["bench", "--server", "a=http://127.0.0.1:9", "--seed", "-5", "--out", str(tmp_path / "o")], capsys
    )
    assert code == 2 and err.startswith("error: invalid value for --seed")
    assert not (tmp_path / "o").exists()
