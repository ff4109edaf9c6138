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

from specscope.audit.catalog import finding
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
        out.append(finding("DFLASH_LAYER_TYPES_LENGTH", file=file, types=len(types), layers=n))
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
            out.append(finding("DFLASH_SLIDING_WINDOW_MISSING", file=file, sliding=len(sliding)))
        if sliding and isinstance(window, int) and isinstance(block, int) and window < block:
            swa_problem = True
            out.append(finding("DFLASH_WINDOW_SMALLER_THAN_BLOCK", file=file, window=window, block=block))
        if sliding and cfg.get("use_sliding_window") is False:
            swa_problem = True
            out.append(finding("DFLASH_SWA_FLAG_CONFLICT", file=file, sliding=len(sliding)))
        if sliding and full and not swa_problem:
            out.append(
                finding(
                    "DFLASH_MIXED_LAYER_TYPES",
                    file=file,
                    n_sliding=len(sliding),
                    n_full=len(full),
                    window=window,
                    sliding=sliding,
                    full=full,
                    layers=len(types),
                    details={"sliding_layers": sliding, "full_layers": full, "sliding_window": window},
                )
            )
        if not sliding and dcfg.get("use_swa"):
            out.append(
                finding(
                    "DFLASH_SWA_ONLY_IN_DFLASH_CONFIG",
                    file=file,
                    window=dcfg.get("swa_window_size"),
                    causal="non-causal" if dcfg.get("causal") is False else "causal",
                    layers=len(types),
                    details={"swa_window_size": dcfg.get("swa_window_size")},
                )
            )
        if "max_window_layers" in cfg:
            out.append(finding("DFLASH_MAX_WINDOW_LAYERS_IGNORED", file=file, layers=cfg["max_window_layers"]))
    ids = dcfg.get("target_layer_ids", cfg.get("target_layer_ids"))
    if isinstance(ids, list) and isinstance(target_num_layers, int):
        bad = [i for i in ids if not isinstance(i, int) or not 0 <= i < target_num_layers]
        if bad:
            out.append(
                finding("DRAFT_TARGET_LAYER_OUT_OF_RANGE", file=file, bad=bad, ids=ids, layers=target_num_layers)
            )
    return out, table


def _size_mismatch(code: str, draft_cfg: dict, target_cfg: dict, key: str) -> list[Finding]:
    """Finding ``code`` when the draft's and the target's integer config values ``key`` (e.g. ``vocab_size``) differ."""
    dv, tv = draft_cfg.get(key), target_cfg.get(key)
    if not (isinstance(dv, int) and isinstance(tv, int)) or dv == tv:
        return []
    return [finding(code, file="config.json", draft=dv, target=tv)]


def check_draft_vs_target(
    draft_cfg: dict, target_cfg: dict, draft_files: dict[str, int], target_files: dict[str, int]
) -> list[Finding]:
    """Vocabulary, hidden size and tokenizer agreement of a separate draft model with its target.

    Codes: ``DRAFT_VOCAB_MISMATCH`` (ERROR), ``DRAFT_HIDDEN_MISMATCH`` (ERROR), ``DRAFT_TOKENIZER_DIFFERS`` (WARNING).
    """
    out: list[Finding] = []
    text_cfg = target_cfg.get("text_config")
    tcfg: dict = text_cfg if isinstance(text_cfg, dict) else target_cfg
    out += _size_mismatch("DRAFT_VOCAB_MISMATCH", draft_cfg, tcfg, "vocab_size")
    if "dflash" in " ".join(draft_cfg.get("architectures") or []).lower():
        out += _size_mismatch("DRAFT_HIDDEN_MISMATCH", draft_cfg, tcfg, "hidden_size")
    for name in ("tokenizer.json", "tokenizer.model"):
        if name in draft_files and name in target_files and draft_files[name] != target_files[name]:
            out.append(
                finding("DRAFT_TOKENIZER_DIFFERS", file=name, draft=draft_files[name], target=target_files[name])
            )
    return out


def check_vision_processor(config: dict | None, files: dict[str, int]) -> list[Finding]:
    """Codes: ``VL_PROCESSOR_CONFIG_MISSING`` (ERROR for ``preprocessor_config.json``, WARNING for the others)."""
    if not config or not isinstance(config.get("vision_config"), dict):
        return []
    out = []
    for name in VL_PROCESSOR_FILES:
        if name not in files:
            severity = Severity.ERROR if name == "preprocessor_config.json" else Severity.WARNING
            out.append(finding("VL_PROCESSOR_CONFIG_MISSING", file=name, severity=severity))
    return out
