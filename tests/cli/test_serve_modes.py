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
