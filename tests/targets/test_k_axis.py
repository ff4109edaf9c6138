"""The k axis (issue 16): --k expands speculative configs into NAME-kK, resolved by the engine and the recipes."""

from __future__ import annotations

from pathlib import Path

import pytest

from hangguard import HANG_S
from specscope.engine import get_config
from specscope.engine.config import llama_server_argv
from specscope.errors import ConfigError
from specscope.kaxis import expand_k, parse_k_list, split_k_name
from specscope.launch.recipes import load_recipes, vllm_argv
from specscope.targets import parse_targets
from specscope.targets.k_axis import expand_plan_k


def test_names_parse_and_expand():
    assert split_k_name("draft-k4") == ("draft", 4)
    assert split_k_name("mtp2") == ("mtp2", None)
    assert split_k_name("draft-k0") == ("draft-k0", None)
    assert parse_k_list("4, 1,2") == (1, 2, 4)
    with pytest.raises(ConfigError, match="gives k=1 twice"):  # refused, as a repeated rate or level is
        parse_k_list("4, 1,2,1")
    assert expand_k(["base", "draft"], (1, 2), lambda n: n != "base") == ("base", "draft-k1", "draft-k2")


@pytest.mark.parametrize("bad", ["0", "1,x", "1025", "-1", "²"])
def test_bad_k_is_one_config_error(bad):
    with pytest.raises(ConfigError) as err:
        parse_k_list(bad)
    assert "--k" in str(err.value)


def test_embedded_plan_expands_four_configs():
    plan = expand_plan_k(parse_targets(configs="base,draft"), "1,2,4", ("base",))
    assert plan.configs == ("base", "draft-k1", "draft-k2", "draft-k4")


def test_embedded_engine_starts_each_k_with_its_draft_length():
    cfg = get_config("draft-k2")
    assert (cfg.name, cfg.draft_n_max_tokens, cfg.draft_quant) == ("draft-k2", 2, "Q4_0")
    ngram = get_config("ngram-k3")
    assert (ngram.ngram_mod_n_min_tokens, ngram.ngram_mod_n_max_tokens) == (3, 3)
    argv = llama_server_argv(cfg, model_path=Path("m.gguf"), draft_path=Path("d.gguf"), host="127.0.0.1", port=1)
    assert argv[argv.index("--spec-draft-n-max") + 1] == "2"
    with pytest.raises(ConfigError):
        get_config("base-k2")  # base does not speculate: no k


def test_vllm_recipe_gets_num_speculative_tokens():
    book = load_recipes()
    recipe = book.get("mtp2-k4")
    assert (recipe.name, recipe.num_speculative_tokens, recipe.method) == ("mtp2-k4", 4, "mtp")
    argv = vllm_argv(recipe, port=8000)
    spec = argv[argv.index("--speculative-config") + 1]
    assert '"num_speculative_tokens": 4' in spec or '"num_speculative_tokens":4' in spec
    plan = expand_plan_k(parse_targets(configs="base,mtp2", launch="vllm"), "1,3", ())
    assert plan.configs == ("base", "mtp2-k1", "mtp2-k3")


def test_k_with_a_users_server_is_refused():
    with pytest.raises(ConfigError) as err:
        expand_plan_k(parse_targets(configs="d", servers=["http://127.0.0.1:1"]), "1,2", ())
    assert "--k" in str(err.value)


def test_per_request_recipe_asks_vllm_for_per_response_spec_metrics():
    argv = vllm_argv(load_recipes().get("cpu-ngram-per-request-k2"), port=8000)
    assert argv[argv.index("--per-request-spec-decode-metrics") + 1] == "detailed"
    assert '"num_speculative_tokens":2' in argv[argv.index("--speculative-config") + 1].replace(" ", "")
    assert "--per-request-spec-decode-metrics" not in vllm_argv(load_recipes().get("cpu-ngram"), port=8000)


def test_bench_with_a_bad_k_is_exit_2_in_one_line(tmp_path):
    import subprocess
    import sys

    argv = [sys.executable, "-m", "specscope", "bench", "--configs", "base,draft", "--k", "0", "--out", str(tmp_path)]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=HANG_S)
    assert r.returncode == 2
    assert r.stderr.strip() == (
        "error: --k takes draft lengths in tokens; found: 0; expected: comma-separated whole numbers 1..1024; "
        "fix: e.g. --k 1,2,4"
    )
    assert list(tmp_path.iterdir()) == []  # refused before any run folder or server


def test_the_embedded_engine_runs_every_k_the_axis_takes():
    # EngineConfig held draft_n_max_tokens to 64 while --k took up to K_MAX: bench --k 100 made its run folder, then
    # refused draft-k100 ("draft_n_max_tokens: Input should be less than or equal to 64", exit 2)
    cfg = get_config("draft-k100")
    argv = llama_server_argv(cfg, model_path=Path("m.gguf"), draft_path=Path("d.gguf"), host="127.0.0.1", port=1)
    assert argv[argv.index("--spec-draft-n-max") + 1] == "100"
    assert get_config("ngram-k1024").ngram_mod_n_max_tokens == 1024  # ngram-mod's own bound: 0..1024
    with pytest.raises(ConfigError, match="ngram_mod_n_max_tokens"):
        get_config("ngram").with_updates(ngram_mod_n_max_tokens=1025)  # llama.cpp refuses it at start
