"""MTP head layers stored past the count the engine builds, judged for every family whose loader was read for it
(architectures.toml ``past_layers``), on each family's complete checkpoint from tests/audit/test_families.py.

Before (issue 36 leftover): only Qwen3-Next, Qwen3.5 and DeepSeek were judged; a GLM-4.5 head with a second stored
layer (``model.layers.{N+1}.*`` with ``num_nextn_predict_layers: 1``), a MiMo head with ``model.mtp_layers.1.*``, an
ERNIE head with ``model.mtp_block.1.*`` ... were exit 0 with no word, though MiMo's, ERNIE's, EXAONE's and
LongCat-Flash's loaders raise on them (the server does not start) and GLM's, openPangu's and Step-3.5's skip them.

Per family: the complete checkpoint exits 0 with no MTP_LAYERS_NOT_BUILT; with one more stored layer (layer 0's
tensors copied to the first index past the count built) the loader's verdict is named: ``MTP_LAYERS_NOT_BUILT``
(error, exit 1) where it raises, ``/fixed`` (error) where it also reads no more whatever the key declares,
``/skipped`` (warning, exit 0) where it skips them. A family whose loader was not read stays unjudged, and the
generated table says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from specscope.audit import audit_checkpoint, families
from specscope.audit.architectures import Family, main_layer_prefix

from .ckmaker import write
from .test_families import CASES

DOC = Path(__file__).parents[2] / "docs" / "architectures.md"

#: the verdict each family's loader gives (read from the loader named in architectures.toml ``engines``)
EXPECTED = {
    "deepseek_mtp": "skips",
    "deepseek_v4_mtp": "skips",
    "bailing_mtp": "skips",
    "glm4_moe_mtp": "skips",
    "openpangu_mtp": "skips",
    "step3p5_mtp": "skips",
    "intern_s2_mtp": "skips",
    "intern_s2_mobius_mtp": "skips",
    "mimo_mtp": "raises",
    "exaone_mtp": "raises",
    "ernie_mtp": "raises-fixed",
    "longcat_flash_mtp": "raises-fixed",
}
JUDGED = sorted(k for k, f in families().items() if f.kind == "mtp" and f.past_layers and k in CASES)


def _verdict(fam: Family) -> str:
    return fam.past_layers + ("-fixed" if fam.layers_fixed else "")


def _with_past_layer(key: str) -> tuple[dict[str, list[int]], dict, int, str]:
    """The family's complete checkpoint plus one stored layer at the first draft index past the count declared."""
    case, fam = CASES[key], families()[key]
    cfg = case.config.get("text_config", case.config)
    declared = int(cfg.get(fam.layers_key) or fam.default_layers or 1)
    n_main = int(cfg["num_hidden_layers"])
    main = main_layer_prefix(set(case.shapes))

    def prefix(i: int) -> str:
        return fam.layer_prefix.format(head=fam.head_prefix, i=i, n=n_main + i, main=main)

    first, past = prefix(0), prefix(declared)
    extra = {past + n.removeprefix(first): s for n, s in case.shapes.items() if n.startswith(first)}
    assert extra and not set(extra) & set(case.shapes), key
    return case.shapes | extra, case.config, declared, past


def test_every_family_whose_loader_was_read_is_judged_as_read() -> None:
    assert {k: _verdict(families()[k]) for k in JUDGED} == EXPECTED


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_complete_exits_0_and_a_layer_past_the_built_count_is_named(tmp_path: Path, key: str) -> None:
    case = CASES[key]
    ok = audit_checkpoint(write(tmp_path / "ok", case.shapes, case.config))
    assert ok.exit_code == 0 and ok.by_code("MTP_LAYERS_NOT_BUILT") == [], key
    shapes, cfg, declared, past = _with_past_layer(key)
    r = audit_checkpoint(write(tmp_path / "past", shapes, cfg))
    (f,) = r.by_code("MTP_LAYERS_NOT_BUILT")  # the variants (/skipped, /fixed) report the base code
    severity, exit_code = {"skips": ("warning", 0), "raises": ("error", 1), "raises-fixed": ("error", 1)}[EXPECTED[key]]
    assert (f.severity.value, r.exit_code) == (severity, exit_code), key
    assert f.details["stored_past"] == [declared] and f.details["built"] == declared, key
    assert f.details["prefixes"] == [past] and all(t.startswith(past) for t in f.details["tensors"]), key
    assert f.details["family"] == key
    assert f.fix is not None and f.consequence is not None
    if EXPECTED[key] == "raises-fixed":
        assert f.fix.startswith(f"re-export the checkpoint without layer(s) {declared} (the engine's loader for ")
        assert "does not make it load the others" in f.fix and "raises on the first" in f.consequence
    elif EXPECTED[key] == "raises":
        assert f.fix.startswith(f"set {families()[key].layers_key}: {declared + 1} in config.json"), key
        assert "raises on the first" in f.consequence
    else:
        assert f.consequence.startswith("the engine's loader skips them"), key


def test_the_generated_table_names_each_family_verdict_and_the_unread_ones() -> None:
    doc = DOC.read_text(encoding="utf-8")
    for key, fam in families().items():
        if fam.kind != "mtp":
            continue
        (row,) = [line for line in doc.splitlines() if line.startswith(f"| `{key}` |")]
        if not fam.past_layers:
            assert "not judged (the loader was not read for it)" in row, key
        elif fam.layers_fixed:
            assert "`MTP_LAYERS_NOT_BUILT/fixed` (error)" in row, key
        elif fam.past_layers == "raises":
            assert "the loader raises: `MTP_LAYERS_NOT_BUILT` (error)" in row, key
        else:
            assert "`MTP_LAYERS_NOT_BUILT/skipped` (warning)" in row, key


def test_longcat_builds_one_layer_whatever_the_config_declares(tmp_path: Path) -> None:
    """vLLM longcat_flash_mtp.py @0bb55d60 builds one MTP layer (num_mtp_layers = 1) whatever num_nextn_predict_layers
    says. Declared 2 with layer 0 stored was MTP_INCOMPLETE (exit 1, layer 1 'missing'); with layers 0 and 1 stored it
    was exit 0, though the loader raises KeyError on model.mtp.layers.1.*. Now: the first is complete (exit 0), the
    second is MTP_LAYERS_NOT_BUILT/fixed naming layer 1."""
    case = CASES["longcat_flash_mtp"]
    cfg = {**case.config, "num_nextn_predict_layers": 2}
    one = audit_checkpoint(write(tmp_path / "one", case.shapes, cfg))
    assert one.exit_code == 0 and one.by_code("MTP_INCOMPLETE") == [] and one.by_code("MTP_LAYERS_NOT_BUILT") == []
    shapes, _, _, past = _with_past_layer("longcat_flash_mtp")
    r = audit_checkpoint(write(tmp_path / "two", shapes, cfg))
    (f,) = r.by_code("MTP_LAYERS_NOT_BUILT")
    assert (f.severity.value, r.exit_code, f.details["stored_past"], f.details["built"]) == ("error", 1, [1], 1)
    assert past == "model.mtp.layers.1." and f.fix is not None and f.fix.startswith("re-export the checkpoint")


def test_ernie_reads_index_0_only_whatever_the_config_declares(tmp_path: Path) -> None:
    """vLLM ernie_mtp.py @028aedf6 builds num_nextn_predict_layers layers but _rewrite_spec_layer_name renames
    model.mtp_block.0. only: with ``num_nextn_predict_layers: 2`` and model.mtp_block.1.* stored, load_weights looks up
    model.mtp_block.1.* in params_dict and raises KeyError. That checkpoint was exit 0 with no word (layer 1 was within
    the count declared); now it is MTP_LAYERS_NOT_BUILT/fixed naming layer 1, one layer read. A head with no layer
    count stays what it was: the loader reads the key with no default, so it is an undeclared head (warning)."""
    case = CASES["ernie_mtp"]
    cfg = {**case.config, "num_nextn_predict_layers": 2}
    shapes, _, _, past = _with_past_layer("ernie_mtp")
    r = audit_checkpoint(write(tmp_path / "two", shapes, cfg))
    (f,) = r.by_code("MTP_LAYERS_NOT_BUILT")
    assert (f.severity.value, r.exit_code) == ("error", 1)
    assert (f.details["stored_past"], f.details["built"], past) == ([1], 1, "model.mtp_block.1.")
    assert f.fix is not None and f.fix.startswith("re-export the checkpoint without layer(s) 1 (")  # the /fixed fix
    keyless = {k: v for k, v in case.config.items() if k != "num_nextn_predict_layers"}
    before = audit_checkpoint(write(tmp_path / "keyless", case.shapes, keyless))
    assert (before.exit_code, [x.code for x in before.findings]) == (0, ["MTP_UNDECLARED"])
