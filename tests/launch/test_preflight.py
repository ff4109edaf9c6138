"""Pre-flight audit before a recipe is launched: `serve` and `bench --launch vllm` refuse a checkpoint whose MTP
head lacks ``mtp.fc.weight`` (seed 000) with exit 2 and the finding, before any process starts (CliRunner)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from typer.testing import CliRunner

from specscope.audit.preflight import preflight
from specscope.cli import app
from specscope.errors import SpecscopeError

_spec = importlib.util.spec_from_file_location("qwen36_builder", Path(__file__).parents[1] / "audit" / "qwen36.py")
assert _spec is not None and _spec.loader is not None
qwen36 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(qwen36)

MTP_MODEL = "PassingByPixels/Qwen3.6-27B-Architect-Polaris2-Fable-B-F451-NVFP4-MTP"


def _cli(*args: str) -> tuple[int, str]:
    """Exit code and output as `specscope` prints them (main() maps a SpecscopeError to its code and one line)."""
    r = CliRunner().invoke(app, list(args))
    if isinstance(r.exception, SpecscopeError):
        return r.exception.exit_code, r.output + "error: " + r.exception.one_line()
    return r.exit_code, r.output


def _recipes(tmp_path: Path, model: Path, *, method: str = "mtp") -> Path:
    k = "num_speculative_tokens = 2\n" if method == "mtp" else ""
    # vllm_command points at a program that does not exist: if anything were launched, the error would differ
    p = tmp_path / "r.toml"
    p.write_text(
        f'[recipes.m]\nmodel = "{model}"\nmethod = "{method}"\n{k}vllm_command = ["{tmp_path / "no-such-vllm"}"]\n'
    )
    return p


def test_shipped_mtp_recipe_names_the_build_with_the_fusion_weight():
    r = CliRunner().invoke(app, ["serve", "mtp2", "--print", "--format", "json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["argv"][2] == MTP_MODEL
    assert doc["speculative_config"] == {"method": "mtp", "num_speculative_tokens": 2}


def test_serve_refuses_mtp_recipe_on_checkpoint_without_fc(tmp_path):
    ck = qwen36.build(tmp_path / "ck", nvfp4=True, with_fc=False)
    code, out = _cli("serve", "m", "--recipes", str(_recipes(tmp_path, ck)), "--log", str(tmp_path / "l"))
    assert code == 2
    assert out.startswith("error: pre-flight audit refuses recipe 'm': MTP_INCOMPLETE: ")
    assert "missing: mtp.fc.weight" in out and "--no-preflight" in out
    assert not (tmp_path / "l").exists()  # no server was started, no log written


def test_no_preflight_skips_the_audit_and_goes_on_to_launch(tmp_path):
    ck = qwen36.build(tmp_path / "ck", nvfp4=True, with_fc=False)
    code, out = _cli(
        "serve", "m", "--recipes", str(_recipes(tmp_path, ck)), "--log", str(tmp_path / "l"), "--no-preflight"
    )
    assert "pre-flight audit skipped (--no-preflight) for m" in out
    assert code == 2 and "refuses" not in out  # it went on to launch the (missing) vllm program


def test_bench_launch_vllm_refuses_before_a_run_folder_exists(tmp_path):
    ck = qwen36.build(tmp_path / "ck", nvfp4=True, with_fc=False)
    recipes = str(_recipes(tmp_path, ck))
    code, out = _cli(
        "bench", "--launch", "vllm", "--recipes", recipes, "--configs", "m", "--out", str(tmp_path / "runs")
    )
    assert code == 2
    assert "error: pre-flight audit refuses recipe 'm': MTP_INCOMPLETE" in out and "mtp.fc.weight" in out
    assert not (tmp_path / "runs").exists()


def test_preflight_results_by_method(tmp_path):
    good = qwen36.build(tmp_path / "good", nvfp4=True, with_fc=True)
    assert preflight(str(good), None, "mtp").describe()["status"] == "passed"
    assert preflight(str(good), None, "ngram").describe()["status"] == "not needed"
    plain = tmp_path / "plain"
    plain.mkdir()
    cfg = qwen36.config()
    del cfg["text_config"]["mtp_num_hidden_layers"]
    (plain / "config.json").write_text(json.dumps(cfg))
    res = preflight(str(plain), None, "mtp")
    assert [f.code for f in res.blocking] == ["PREFLIGHT_NO_MTP_HEAD"]


FAKE = Path(__file__).resolve().parent / "fake_vllm.py"


def _fake_recipes(tmp_path: Path, model: Path) -> Path:
    import sys

    p = tmp_path / "fake.toml"
    p.write_text(
        f'[recipes.m]\nmodel = "{model}"\nmethod = "mtp"\nnum_speculative_tokens = 2\n'
        f'vllm_command = ["{sys.executable}", "{FAKE}"]\n'
    )
    return p


def test_gate_recipe_refused_before_launch(tmp_path):
    ck = qwen36.build(tmp_path / "ck", nvfp4=True, with_fc=False)
    out = tmp_path / "runs"
    code, text = _cli(
        "gate", "--launch", "vllm", "--configs", "m", "--recipes", str(_fake_recipes(tmp_path, ck)), "--out", str(out)
    )
    assert code == 2 and "error: pre-flight audit refuses recipe 'm': MTP_INCOMPLETE" in text
    assert not list(out.glob("*/vllm-m.log"))  # nothing was launched


def test_gate_no_preflight_is_recorded_in_the_run(tmp_path):
    ck = qwen36.build(tmp_path / "ck", nvfp4=True, with_fc=False)
    args = [
        "gate",
        "--launch",
        "vllm",
        "--configs",
        "m",
        "--recipes",
        str(_fake_recipes(tmp_path, ck)),
        "--no-preflight",
    ]
    args += ["--gate", "arithmetic", "--limit", "1", "--out", str(tmp_path / "runs"), "--format", "json"]
    code, text = _cli(*args)
    assert code in (0, 1), text
    doc = json.loads(text[text.index("{") :])
    manifest = json.loads((Path(doc["run_folder"]) / "manifest.json").read_text())
    assert manifest["preflight"]["m"]["status"] == "skipped (--no-preflight)"


def _dflash_draft(root: Path, layer_types: list[str]) -> Path:
    """A DFlash draft config for the small Qwen3.6 target (hidden 64, vocab 32, 4 layers), seed 000's layout."""
    root.mkdir(parents=True)
    cfg = {
        "architectures": ["DFlashDraftModel"],
        "model_type": "qwen3",
        "dflash_config": {"block_size": 16, "mask_token_id": 31, "target_layer_ids": [1, 2]},
        "hidden_size": qwen36.H,
        "vocab_size": qwen36.V,
        "num_hidden_layers": len(layer_types),
        "num_target_layers": qwen36.L,
        "layer_types": layer_types,
        "sliding_window": 2048,
        "use_sliding_window": True,
    }
    (root / "config.json").write_text(json.dumps(cfg))
    return root


def test_dflash_draft_with_mixed_layer_types_is_refused(tmp_path):
    target = qwen36.build(tmp_path / "target")
    mixed = _dflash_draft(tmp_path / "mixed", ["sliding_attention", "full_attention"])
    res = preflight(str(target), str(mixed), "dflash")
    assert [f.code for f in res.blocking] == ["DFLASH_MIXED_LAYER_TYPES"]
    assert res.blocking[0].fix.startswith(f"specscope surgery dflash-layers {mixed} --all-sliding --out NEW_FOLDER")
    fixed = _dflash_draft(tmp_path / "fixed", ["sliding_attention", "sliding_attention"])
    assert preflight(str(target), str(fixed), "dflash").ok


def _dense_draft(root: Path, tokens: list[str]) -> Path:
    """A one-layer dense draft model for the small Qwen3.6 target (hidden 64, vocab 32), with its tokenizer."""
    shapes = {"model.embed_tokens.weight": ("BF16", [qwen36.V, qwen36.H]), "model.norm.weight": ("BF16", [qwen36.H])}
    shapes |= {"lm_head.weight": ("BF16", [qwen36.V, qwen36.H])}
    for name, spec in qwen36._layer("model.layers.0.", True).items():
        shapes[name] = spec
    root.mkdir(parents=True)
    qwen36.write_shard(root / "model.safetensors", shapes)
    cfg = {"architectures": ["LlamaForCausalLM"], "hidden_size": qwen36.H, "num_hidden_layers": 1}
    (root / "config.json").write_text(json.dumps({**cfg, "vocab_size": qwen36.V, "tie_word_embeddings": False}))
    _tokenizer(root, tokens)
    return root


def _tokenizer(root: Path, tokens: list[str]) -> None:
    doc = {"model": {"type": "BPE", "vocab": {t: i for i, t in enumerate(tokens)}}, "added_tokens": []}
    (root / "tokenizer.json").write_text(json.dumps(doc))


def test_draft_with_another_tokenizer_is_refused_before_launch(tmp_path):
    target = qwen36.build(tmp_path / "target")
    _tokenizer(target, [f"t{i}" for i in range(qwen36.V)])
    same = _dense_draft(tmp_path / "same", [f"t{i}" for i in range(qwen36.V)])
    assert preflight(str(target), str(same), "draft").ok
    other = _dense_draft(tmp_path / "other", [f"u{i}" for i in range(qwen36.V)])
    res = preflight(str(target), str(other), "draft")
    assert [f.code for f in res.blocking] == ["DRAFT_TOKENIZER_DIFFERS"]
    assert "first at id 0: draft 'u0', target 't0'" in res.blocking[0].message


def test_method_that_names_another_family_is_refused(tmp_path):
    target = qwen36.build(tmp_path / "target")
    draft = _dflash_draft(tmp_path / "dflash", ["sliding_attention", "sliding_attention"])
    res = preflight(str(target), str(draft), "eagle3")
    assert "PREFLIGHT_METHOD_FAMILY" in [f.code for f in res.blocking]
    (f,) = [f for f in res.blocking if f.code == "PREFLIGHT_METHOD_FAMILY"]
    assert f.message == f"the recipe's method is eagle3 but {draft} is a dflash draft"
