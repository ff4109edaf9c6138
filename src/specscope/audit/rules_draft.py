"""Rule 6 (DFlash / EAGLE draft configs, draft vs target) and rule 7 (vision-language processor configs).

Sources: case C09 and the reports it cites: ikawrakow/ik_llama.cpp PR #2021 (DFlash SWA layers run as full attention),
z-lab/dflash ``dflash/model.py`` (``layer_types``; with no ``is_causal`` key sliding layers are causal and the full
layer is not), NVIDIA/Model-Optimizer PR #1960 (SWA declared in ``dflash_config`` with ``layer_types`` all full),
NVIDIA/TensorRT-LLM PR #16914 (``use_sliding_window`` / ``sliding_window`` / ``layer_types`` rules),
transformers (``max_window_layers`` is ignored when ``layer_types`` is given). Fixture:
``dflash_draft_qwen3_5_27b_target_config.json`` (target_layer_ids [1, 16, 31, 46, 61], block_size 16).
Rule 7: seed 001 (ModelOpt does not emit the processor configs; vLLM fails a VL model at init without them).
"""

from __future__ import annotations

from specscope.audit.findings import Finding, Severity

__all__ = ["is_draft_config", "check_draft_config", "check_draft_vs_target", "check_vision_processor"]

VL_PROCESSOR_FILES = ("preprocessor_config.json", "processor_config.json", "video_preprocessor_config.json")


def is_draft_config(cfg: dict | None) -> bool:
    """True for DFlash / EAGLE draft configs (architecture name or a ``dflash_config`` / ``eagle_config`` block)."""
    if not cfg:
        return False
    archs = " ".join(str(a) for a in cfg.get("architectures") or []).lower()
    return "dflash" in archs or "eagle" in archs or "dflash_config" in cfg or "eagle_config" in cfg


def check_draft_config(
    cfg: dict, *, target_num_layers: int | None = None, file: str = "config.json"
) -> tuple[list[Finding], list[dict]]:
    """Findings for a DFlash/EAGLE draft ``config.json`` and the per-layer table ``[{layer, type, window, causal}]``.

    Codes: ``DFLASH_LAYER_TYPES_LENGTH`` (ERROR), ``DFLASH_SLIDING_WINDOW_MISSING`` (ERROR),
    ``DFLASH_WINDOW_SMALLER_THAN_BLOCK`` (ERROR), ``DFLASH_SWA_FLAG_CONFLICT`` (WARNING),
    ``DFLASH_MIXED_LAYER_TYPES`` (WARNING), ``DFLASH_SWA_ONLY_IN_DFLASH_CONFIG`` (WARNING),
    ``DFLASH_MAX_WINDOW_LAYERS_IGNORED`` (INFO), ``DRAFT_TARGET_LAYER_OUT_OF_RANGE`` (ERROR).
    """
    out: list[Finding] = []
    n = cfg.get("num_hidden_layers")
    types = cfg.get("layer_types")
    dflash = cfg.get("dflash_config")
    dcfg: dict = dflash if isinstance(dflash, dict) else {}
    window = cfg.get("sliding_window")
    block = dcfg.get("block_size", cfg.get("block_size"))
    table: list[dict] = []
    if isinstance(types, list) and isinstance(n, int) and len(types) != n:
        out.append(
            Finding(
                Severity.ERROR,
                "DFLASH_LAYER_TYPES_LENGTH",
                f"layer_types has {len(types)} entries, num_hidden_layers is {n}",
                file=file,
                found=f"{len(types)} layer types",
                expected=f"{n} (one per layer)",
                consequence="engines index layer_types per layer: a crash, or layers silently given the wrong "
                "attention",
                fix="give one layer_types entry per draft layer",
            )
        )
    if isinstance(types, list):
        sliding = [i for i, t in enumerate(types) if t == "sliding_attention"]
        full = [i for i, t in enumerate(types) if t == "full_attention"]
        explicit_causal = cfg.get("is_causal")
        for i, t in enumerate(types):
            is_sliding = t == "sliding_attention"
            table.append(
                {
                    "layer": i,
                    "type": t,
                    "window": window if is_sliding else None,
                    "causal": explicit_causal if isinstance(explicit_causal, bool) else is_sliding,
                }
            )
        swa_problem = False
        if sliding and window is None:
            swa_problem = True
            out.append(
                Finding(
                    Severity.ERROR,
                    "DFLASH_SLIDING_WINDOW_MISSING",
                    f"{len(sliding)} sliding_attention layers declared but sliding_window is null",
                    file=file,
                    found="sliding_window: null",
                    expected="an integer window (e.g. 4096)",
                    consequence="engines run the sliding layers with full attention: acceptance drops at long context",
                    fix="set sliding_window to the window the draft was trained with",
                )
            )
        if sliding and isinstance(window, int) and isinstance(block, int) and window < block:
            swa_problem = True
            out.append(
                Finding(
                    Severity.ERROR,
                    "DFLASH_WINDOW_SMALLER_THAN_BLOCK",
                    f"sliding_window {window} < block_size {block}",
                    file=file,
                    found=f"sliding_window {window}",
                    expected=f">= block_size {block}",
                    consequence="a draft block does not fit inside the attention window",
                    fix="fix sliding_window",
                )
            )
        if sliding and cfg.get("use_sliding_window") is False:
            swa_problem = True
            out.append(
                Finding(
                    Severity.WARNING,
                    "DFLASH_SWA_FLAG_CONFLICT",
                    f"use_sliding_window: false contradicts {len(sliding)} sliding_attention layers",
                    file=file,
                    found="use_sliding_window: false",
                    expected="true (or no sliding layers)",
                    consequence="engines honoring the flag run these layers with full attention",
                    fix="set use_sliding_window: true",
                )
            )
        if sliding and full and not swa_problem:
            out.append(
                Finding(
                    Severity.WARNING,
                    "DFLASH_MIXED_LAYER_TYPES",
                    f"{len(sliding)} sliding + {len(full)} full attention layers (window {window})",
                    file=file,
                    found=f"layers {sliding} sliding, {full} full",
                    expected="an engine that applies per-layer windows",
                    consequence="engines or converters that ignore layer_types/sliding_window run all "
                    f"{len(types)} layers as full attention and lose acceptance for contexts > {window} tokens",
                    fix="serve with an engine version that honours layer_types (llama.cpp iSWA, vLLM >= PR #40898)",
                    details={"sliding_layers": sliding, "full_layers": full, "sliding_window": window},
                )
            )
        if not sliding and dcfg.get("use_swa"):
            out.append(
                Finding(
                    Severity.WARNING,
                    "DFLASH_SWA_ONLY_IN_DFLASH_CONFIG",
                    f"SWA declared only via dflash_config (window {dcfg.get('swa_window_size')}, "
                    f"{'non-causal' if dcfg.get('causal') is False else 'causal'}) while layer_types says full on all "
                    f"{len(types)} layers",
                    file=file,
                    found="dflash_config.use_swa: true; layer_types all full_attention",
                    expected="one convention",
                    consequence="engines reading layer_types (transformers, vLLM, llama.cpp) run full attention; "
                    "ModelOpt/TensorRT-LLM read dflash_config.use_swa",
                    fix="also declare the sliding layers in layer_types, or drop use_swa",
                    details={"swa_window_size": dcfg.get("swa_window_size")},
                )
            )
        if "max_window_layers" in cfg:
            out.append(
                Finding(
                    Severity.INFO,
                    "DFLASH_MAX_WINDOW_LAYERS_IGNORED",
                    f"max_window_layers ({cfg['max_window_layers']}) is ignored because layer_types is present",
                    file=file,
                )
            )
    ids = dcfg.get("target_layer_ids", cfg.get("target_layer_ids"))
    if isinstance(ids, list) and isinstance(target_num_layers, int):
        bad = [i for i in ids if not isinstance(i, int) or not 0 <= i < target_num_layers]
        if bad:
            out.append(
                Finding(
                    Severity.ERROR,
                    "DRAFT_TARGET_LAYER_OUT_OF_RANGE",
                    f"target_layer_ids {bad} outside the target's {target_num_layers} layers",
                    file=file,
                    found=str(ids),
                    expected=f"ids in [0, {target_num_layers})",
                    consequence="the draft reads hidden states the target does not have: crash or garbage drafts",
                    fix="use the draft built for this target",
                )
            )
    return out, table


def _size_mismatch(
    code: str, what: str, draft_target: tuple[object, object], *, consequence: str, fix: str
) -> list[Finding]:
    """One ERROR finding when the draft's and the target's integer config values (e.g. ``vocab_size``) differ."""
    dv, tv = draft_target
    if not (isinstance(dv, int) and isinstance(tv, int)) or dv == tv:
        return []
    key = what.rsplit(" ", 1)[-1]
    return [
        Finding(
            Severity.ERROR,
            code,
            f"{what} {dv} != target {key} {tv}",
            file="config.json",
            found=str(dv),
            expected=str(tv),
            consequence=consequence,
            fix=fix,
        )
    ]


def check_draft_vs_target(
    draft_cfg: dict, target_cfg: dict, draft_files: dict[str, int], target_files: dict[str, int]
) -> list[Finding]:
    """Vocabulary, hidden size and tokenizer agreement of a separate draft model with its target.

    Codes: ``DRAFT_VOCAB_MISMATCH`` (ERROR), ``DRAFT_HIDDEN_MISMATCH`` (ERROR), ``DRAFT_TOKENIZER_DIFFERS`` (WARNING).
    """
    out: list[Finding] = []
    text_cfg = target_cfg.get("text_config")
    tcfg: dict = text_cfg if isinstance(text_cfg, dict) else target_cfg
    out += _size_mismatch(
        "DRAFT_VOCAB_MISMATCH",
        "draft vocab_size",
        (draft_cfg.get("vocab_size"), tcfg.get("vocab_size")),
        consequence="draft token ids do not mean the same tokens: acceptance ~0 or an index error",
        fix="use a draft trained for this target's tokenizer",
    )
    if "dflash" in " ".join(draft_cfg.get("architectures") or []).lower():
        out += _size_mismatch(
            "DRAFT_HIDDEN_MISMATCH",
            "DFlash draft hidden_size",
            (draft_cfg.get("hidden_size"), tcfg.get("hidden_size")),
            consequence="the draft cannot consume the target's hidden states",
            fix="use the draft built for this target",
        )
    for name in ("tokenizer.json", "tokenizer.model"):
        if name in draft_files and name in target_files and draft_files[name] != target_files[name]:
            out.append(
                Finding(
                    Severity.WARNING,
                    "DRAFT_TOKENIZER_DIFFERS",
                    f"{name} differs in size: draft {draft_files[name]} bytes, target {target_files[name]} bytes",
                    file=name,
                    found=f"{draft_files[name]} bytes",
                    expected=f"{target_files[name]} bytes",
                    consequence="a different tokenizer makes drafts mismatch the target's tokens",
                    fix="check that draft and target share one tokenizer",
                )
            )
    return out


def check_vision_processor(config: dict | None, files: dict[str, int]) -> list[Finding]:
    """Codes: ``VL_PROCESSOR_CONFIG_MISSING`` (ERROR for ``preprocessor_config.json``, WARNING for the others)."""
    if not config or not isinstance(config.get("vision_config"), dict):
        return []
    out = []
    for name in VL_PROCESSOR_FILES:
        if name not in files:
            out.append(
                Finding(
                    Severity.ERROR if name == "preprocessor_config.json" else Severity.WARNING,
                    "VL_PROCESSOR_CONFIG_MISSING",
                    f"vision-language checkpoint without {name}",
                    file=name,
                    found="file absent",
                    expected=f"{name} (copy it from the original model)",
                    consequence="vLLM fails to initialise a vision-language model without its processor configs",
                    fix=f"copy {name} from the base model repository",
                )
            )
    return out
