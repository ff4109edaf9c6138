"""An unknown recipe key names the closest field, and an engine key says recipes launch vLLM (user62).

``serve`` recipes are vLLM command lines (``specscope.launch.recipes.Recipe``); a SGLang or llama.cpp user who writes
``engine = "sglang"`` was told "Extra inputs are not permitted; expected: fields of
specscope.launch.recipes.Recipe", a class name, not the fields or what to do instead.
"""

from __future__ import annotations

import pytest

from specscope.errors import ConfigError
from specscope.launch.recipes import parse_recipes


def test_a_misspelt_key_names_the_field():
    with pytest.raises(ConfigError) as info:
        parse_recipes('[recipes.a]\nmodel = "m"\nmethod = "mtp"\nnum_speculative_token = 2\n', source="r.toml")
    text = str(info.value)
    assert "found: r.toml: num_speculative_token: not a recipe field" in text
    assert "fix: did you mean num_speculative_tokens? (edit [recipes.a] in r.toml)" in text


@pytest.mark.parametrize("key", ["engine", "backend", "server"])
def test_an_engine_key_says_recipes_are_vllm(key: str):
    with pytest.raises(ConfigError) as info:
        parse_recipes(f'[recipes.sg]\nmodel = "m"\n{key} = "sglang"\n', source="sg.toml")
    text = str(info.value)
    assert f"found: sg.toml: {key}: not a recipe field" in text
    assert "a recipe is a `vllm serve` command line" in text
    assert "bench --server NAME=URL" in text and "serve --parse-log LOG" in text
