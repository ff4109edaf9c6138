"""Rule 6 (DFlash / EAGLE draft configs, a draft against its target) and rule 7 (vision-language processor configs).

Sources: case C09 and the reports it cites: ikawrakow/ik_llama.cpp PR #2021 (DFlash SWA layers run as full attention),
z-lab/dflash ``dflash/model.py`` (``layer_types``; with no ``is_causal`` key sliding layers are causal and the full
layer is not), NVIDIA/Model-Optimizer PR #1960 (SWA declared in ``dflash_config`` with ``layer_types`` all full),
NVIDIA/TensorRT-LLM PR #16914 (``use_sliding_window`` / ``sliding_window`` / ``layer_types`` rules),
transformers (``max_window_layers`` is ignored when ``layer_types`` is given). Fixture:
``dflash_draft_qwen3_5_27b_target_config.json`` (target_layer_ids [1, 16, 31, 46, 61], block_size 16).
Rule 7: seed 001 (ModelOpt does not emit the processor configs; vLLM fails a VL model at init without them).
"""

from __future__ import annotations

from typing import Any

from specscope.audit.architectures import DraftLayout, config_int, eagle3_fusion, vision_processor_files
from specscope.audit.catalog import finding
from specscope.audit.findings import Finding, Severity
from specscope.audit.rules_position import check_positions
from specscope.audit.rules_shapes import check_hidden_vs_target, dflash_layer_ids
from specscope.audit.rules_vocab import check_vocab_bounds, compare_tokenizers
from specscope.checkpoint import Checkpoint
from specscope.checkpoint.tokenizer import read_tokenizer

__all__ = ["check_draft_config", "check_draft_vs_target", "check_vision_processor"]


def check_draft_config(
    cfg: dict[str, Any], *, target_num_layers: int | None = None, file: str = "config.json", family: str = ""
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """Findings for a DFlash/EAGLE draft ``config.json`` and the per-layer table ``[{layer, type, window, causal}]``.

    Codes: ``DFLASH_LAYER_TYPES_LENGTH`` (ERROR), ``DFLASH_SLIDING_WINDOW_MISSING`` (ERROR),
    ``DFLASH_WINDOW_SMALLER_THAN_BLOCK`` (ERROR), ``DFLASH_SWA_FLAG_CONFLICT`` (WARNING),
    ``DFLASH_MIXED_LAYER_TYPES`` (WARNING), ``DFLASH_SWA_ONLY_IN_DFLASH_CONFIG`` (WARNING),
    ``DFLASH_MAX_WINDOW_LAYERS_IGNORED`` (INFO), ``DRAFT_TARGET_LAYER_OUT_OF_RANGE`` (ERROR),
    ``DFLASH_TARGET_LAYER_IDS_INVALID`` (ERROR), ``EAGLE3_AUX_IDS_INVALID`` (ERROR), ``DFLASH_MASK_TOKEN_OUT_OF_RANGE``
    (ERROR), ``EAGLE3_AUX_IDS_NOT_READ`` (WARNING), ``DFLASH_SLIDING_FLAG_NOT_APPLIED`` (WARNING, ``family``
    "dflash" only: :func:`_sliding_flag`).
    """
    out: list[Finding] = []
    n = cfg.get("num_hidden_layers")
    types = cfg.get("layer_types")
    dflash = cfg.get("dflash_config")
    dcfg: dict[str, Any] = dflash if isinstance(dflash, dict) else {}
    window = cfg.get("sliding_window")
    block = dcfg.get("block_size", cfg.get("block_size"))
    table: list[dict[str, Any]] = []
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
    if family == "dflash" and not isinstance(types, list):
        out += _sliding_flag(cfg, dcfg, file)
    key, ids = dflash_layer_ids(cfg)
    if ids is not None and not isinstance(ids, list):
        out.append(finding("DFLASH_TARGET_LAYER_IDS_INVALID", file=file, ids=repr(ids), kind=type(ids).__name__))
    out += _mask_token(cfg, dcfg, file)
    key = key.rpartition(".")[2]
    if ids is None:
        key, ids = _eagle3_aux_ids(cfg)
        if ids is not None and not isinstance(ids, list):  # "0,1,2" passed with exit 0
            out.append(
                finding("EAGLE3_AUX_IDS_INVALID", file=file, ids_key=key, ids=repr(ids), kind=type(ids).__name__)
            )
    out += _eagle3_nested_taps(cfg, target_num_layers, file)
    out += _eagle3_aux_norm_key(cfg, file) if family == "eagle3_deepseek" else []
    if isinstance(ids, list) and isinstance(target_num_layers, int):
        # the nested list is read by SGLang alone, which taps the input of layer id + 1 (models/llama.py @00239548
        # set_eagle3_layers_to_capture; LlamaModel.forward captures inside range(start_layer, end_layer)): its ids
        # lie in [0, N - 1); the top-level list and the DFlash lists are checked against [0, N)
        nested = key == _NESTED_AUX_KEY
        limit = target_num_layers - 1 if nested else target_num_layers
        bad = [i for i in ids if not isinstance(i, int) or not 0 <= i < limit]
        if bad:
            out.append(
                finding(
                    "DRAFT_TARGET_LAYER_OUT_OF_RANGE/nested" if nested else "DRAFT_TARGET_LAYER_OUT_OF_RANGE",
                    file=file,
                    ids_key=key,
                    bad=bad,
                    ids=ids,
                    layers=target_num_layers,
                    limit=limit,
                    last=target_num_layers - 1,
                    details={"key": key, "ids": ids, "out_of_range": bad},
                )
            )
    return out, table


#: transformers ``Qwen3Config`` class defaults (``models/qwen3/configuration_qwen3.py`` @008e5743): the window and the
#: first layer that slides when ``use_sliding_window`` is true and the config gives neither
_QWEN3_DEFAULT_WINDOW, _QWEN3_DEFAULT_MAX_WINDOW_LAYERS = 4096, 28


def _sliding_flag(cfg: dict[str, Any], dcfg: dict[str, Any], file: str) -> list[Finding]:
    """``DFLASH_SLIDING_FLAG_NOT_APPLIED`` (WARNING): a DFlash draft of ``model_type`` qwen3 asks for sliding-window
    attention with ``use_sliding_window: true`` but gives no ``layer_types`` (and no ``dflash_config.use_swa``).

    vLLM ``qwen3_dflash.py`` @036a00d1 ``_resolve_layer_attention`` never reads ``use_sliding_window``: a layer slides
    when ``dflash_config.use_swa`` is true or ``layer_types[i]`` is ``sliding_attention``. The draft's config is the
    transformers ``Qwen3Config`` (@008e5743), whose ``__post_init__`` fills a missing ``layer_types`` with
    ``sliding_attention`` only for layers at or past ``max_window_layers`` (default 28) when the window is set (default
    4096). A DFlash draft has a handful of layers, so with the default every layer runs full attention: the window is
    silently not applied (exit 0 with no word before). With ``max_window_layers`` inside the draft, the layers past it
    slide and the rest do not (``/derived``; a mix vLLM builds only under its V2 model runner). ``/derived`` is not
    raised when every layer slides: that is what the flag asks for. Another ``model_type`` builds another config class
    and is not judged here."""
    if cfg.get("use_sliding_window") is not True or dcfg.get("use_swa") or cfg.get("model_type") != "qwen3":
        return []
    n = config_int(cfg, "num_hidden_layers")
    window = cfg.get("sliding_window", _QWEN3_DEFAULT_WINDOW)
    first = cfg.get("max_window_layers", _QWEN3_DEFAULT_MAX_WINDOW_LAYERS)
    if n is None or window is None or not isinstance(first, int) or isinstance(first, bool):
        return []  # no window (DFLASH_SLIDING_WINDOW_MISSING's case) or a count not read here
    sliding = [i for i in range(n) if i >= first]
    full = [i for i in range(n) if i < first]
    facts: dict[str, Any] = {"file": file, "window": window, "first": first, "layers": n}
    details: dict[str, Any] = {"sliding_window": window, "max_window_layers": first}
    details["derived_layer_types"] = ["sliding_attention" if i >= first else "full_attention" for i in range(n)]
    if not sliding:
        return [finding("DFLASH_SLIDING_FLAG_NOT_APPLIED", **facts, details=details)]
    if full:
        facts |= {"sliding": sliding, "full": full}
        return [finding("DFLASH_SLIDING_FLAG_NOT_APPLIED/derived", **facts, details=details)]
    return []


#: the key of the EAGLE-3 target layers as SpecForge / SGLang keep them (under ``eagle_config``)
_NESTED_AUX_KEY = "eagle_config.eagle_aux_hidden_state_layer_ids"


def _eagle3_aux_ids(cfg: dict[str, Any]) -> tuple[str, object]:
    """The target layers an EAGLE-3 draft fuses: ``eagle_aux_hidden_state_layer_ids`` at the top level (vLLM
    ``eagle3_utils.get_eagle3_aux_layers_from_config`` reads it from the draft's hf_config; the speculators format puts
    it there), else under ``eagle_config`` (SpecForge / SGLang ``llama_eagle3.py``). ``("", None)`` when absent: the
    engines then use their default layers."""
    top = cfg.get("eagle_aux_hidden_state_layer_ids")
    if top is not None:
        return "eagle_aux_hidden_state_layer_ids", top
    nested = cfg.get("eagle_config")
    if isinstance(nested, dict) and nested.get("eagle_aux_hidden_state_layer_ids") is not None:
        return _NESTED_AUX_KEY, nested["eagle_aux_hidden_state_layer_ids"]
    return "", None


def _eagle3_nested_taps(cfg: dict[str, Any], target_num_layers: int | None, file: str) -> list[Finding]:
    """``EAGLE3_AUX_IDS_NOT_READ`` (WARNING): the target layers an EAGLE-3 draft was trained on are listed only as
    ``eagle_config.eagle_aux_hidden_state_layer_ids`` (SpecForge / TorchSpec / ModelOpt exports). SGLang reads them
    there and captures the input of layer ``id + 1`` (sgl-project/sglang ``models/llama.py``
    ``set_eagle3_layers_to_capture``: "we plus 1 here"); vLLM ``vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py``
    @0cfdd2e1 ``get_eagle3_aux_layers_from_config`` reads the top-level ``eagle_aux_hidden_state_layer_ids`` (the
    input of each listed layer), then ``dflash_config.target_layer_ids`` / ``dspark_target_layer_ids`` /
    ``target_layer_ids`` (each + 1), then ``dflash_config.layer_ids`` / ``eagle_config.layer_ids``, never the nested
    list, and otherwise taps the target's default layers (``get_eagle3_default_aux_hidden_state_layers``: ``(2, N // 2,
    N - 3)`` on Llama-style targets). Named when those defaults differ from what SGLang taps: with the target's depth
    known, any difference; without it, another count than three (which also fails fc's matmul in vLLM)."""
    nested = cfg.get("eagle_config")
    if not isinstance(nested, dict) or cfg.get("eagle_aux_hidden_state_layer_ids") or nested.get("layer_ids"):
        return []
    if any(cfg.get(k) for k in ("target_layer_ids", "dspark_target_layer_ids", "dflash_config")):
        return []
    ids = nested.get("eagle_aux_hidden_state_layer_ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        return []
    taps = [i + 1 for i in ids]
    n = target_num_layers
    default = [2, n // 2, n - 3] if isinstance(n, int) else None
    if taps == default or (default is None and len(ids) == 3):
        return []
    shown = str(default) if default is not None else "its default layers (three on Llama-style targets)"
    return [
        finding(
            "EAGLE3_AUX_IDS_NOT_READ",
            file=file,
            ids=ids,
            taps=taps,
            default=shown,
            details={
                "key": "eagle_config.eagle_aux_hidden_state_layer_ids",
                "ids": ids,
                "nested_taps": taps,
                "default_taps": default,
            },
        )
    ]


def _eagle3_aux_norm_key(cfg: dict[str, Any], file: str) -> list[Finding]:
    """``EAGLE3_AUX_NORM_KEY`` (WARNING): an EAGLE-3 MLA draft declares its per-auxiliary-state norms with the legacy
    ``use_aux_norm`` and no ``fc_norm``: sgl-project/sglang ``kimi_k25_eagle3.py`` @054a1cef builds ``fc_norm.{i}``
    from either key, vllm-project/vllm ``deepseek_eagle3.py`` @03590193 from ``fc_norm`` alone."""
    value = cfg.get("use_aux_norm")
    if not value or cfg.get("fc_norm"):
        return []
    n = eagle3_fusion(cfg, "eagle3_deepseek").n_aux
    return [finding("EAGLE3_AUX_NORM_KEY", file=file, value=value, last=n - 1, details={"use_aux_norm": value})]


def _mask_token(cfg: dict[str, Any], dcfg: dict[str, Any], file: str) -> list[Finding]:
    """``DFLASH_MASK_TOKEN_OUT_OF_RANGE``: vLLM ``qwen3_dflash.py`` @036a00d1 embeds the masked query slots as
    ``embed_tokens(mask_token_id)`` (``dflash_config.mask_token_id``, else the top-level key): an id past the
    embedding's ``vocab_size`` rows is an index error."""
    mask = dcfg.get("mask_token_id", cfg.get("mask_token_id"))
    vocab = config_int(cfg, "vocab_size")
    if mask is None or vocab is None:
        return []
    if isinstance(mask, int) and not isinstance(mask, bool) and 0 <= mask < vocab:
        return []
    return [finding("DFLASH_MASK_TOKEN_OUT_OF_RANGE", file=file, mask=repr(mask), vocab=vocab)]


def check_draft_vs_target(draft_ck: Checkpoint, target_ck: Checkpoint, layout: DraftLayout | None) -> list[Finding]:
    """A separate draft against its target: tokenizers by content, vocabulary bounds (:mod:`.rules_vocab`), the
    width of the target hidden states the draft reads (:mod:`.rules_shapes`), and the context length
    (:mod:`.rules_position`).

    Codes: those of :func:`specscope.audit.rules_vocab.compare_tokenizers` and ``check_vocab_bounds``,
    ``DRAFT_HIDDEN_MISMATCH`` (ERROR), ``DRAFT_CONTEXT_SHORTER`` (WARNING).
    """
    out: list[Finding] = []
    draft_tok, target_tok = read_tokenizer(draft_ck.source), read_tokenizer(target_ck.source)
    bounds = check_vocab_bounds(draft_ck, layout, target_ck.text_config, draft_tok, target_tok)
    tokens = compare_tokenizers(draft_tok, target_tok)
    if any(f.code == "DRAFT_VOCAB_UNVERIFIED" for f in bounds):  # it already says the draft ships no tokenizer
        tokens = [f for f in tokens if f.code != "DRAFT_TOKENIZER_UNVERIFIED"]
    out += tokens + bounds
    out += check_hidden_vs_target(draft_ck.text_config, layout, target_ck.text_config)
    out += check_positions(draft_ck.text_config, layout, target_ck.text_config)
    if layout is not None and layout.family.key == "draft_model":
        out += _architecture(draft_ck.text_config, target_ck.text_config)
        out += _vocab_size(draft_ck.text_config, target_ck.text_config)
    return out


def _vocab_size(draft: dict[str, Any], target: dict[str, Any]) -> list[Finding]:
    """``DRAFT_VOCAB_SIZE_DIFFERS`` (ERROR): a separate draft model whose ``vocab_size`` is not the target's. vLLM
    refuses the pair at startup whatever the tokenizers: vllm-project/vllm ``vllm/config/speculative.py`` @f19b16d9
    ``verify_equal_vocab_size_if_draft_model`` compares ``hf_text_config.vocab_size`` (the text config's) of target
    and draft for method draft_model (the V0 worker asserted the same: vLLM issue #5203). One tokenizer padded two
    ways (Qwen2.5: 151,936 up to 7B, 152,064 from 14B) is refused too."""
    d, t = config_int(draft, "vocab_size"), config_int(target, "vocab_size")
    if d is None or t is None or d == t:
        return []
    details = {"draft_vocab_size": d, "target_vocab_size": t}
    return [finding("DRAFT_VOCAB_SIZE_DIFFERS", file="config.json", draft=d, target=t, details=details)]


def _architecture(draft: dict[str, Any], target: dict[str, Any]) -> list[Finding]:
    """``DRAFT_ARCHITECTURE_DIFFERS``: a separate draft model of another ``model_type`` than its target."""
    d, t = draft.get("model_type"), target.get("model_type")
    if not isinstance(d, str) or not isinstance(t, str) or d == t:
        return []

    def arch(cfg: dict[str, Any]) -> str:
        a = cfg.get("architectures")
        return ", ".join(str(x) for x in a) if isinstance(a, list) and a else "no architectures"

    return [
        finding(
            "DRAFT_ARCHITECTURE_DIFFERS",
            file="config.json",
            draft=d,
            target=t,
            draft_arch=arch(draft),
            target_arch=arch(target),
            details={"draft_model_type": d, "target_model_type": t},
        )
    ]


def check_vision_processor(config: dict[str, Any] | None, files: dict[str, int]) -> list[Finding]:
    """Codes: ``VL_PROCESSOR_CONFIG_MISSING`` (ERROR for ``preprocessor_config.json``, WARNING for the files the
    census's ``vision_processors`` table names for the config's architectures: architectures.vision_processor_files)."""
    if not config or not isinstance(config.get("vision_config"), dict):
        return []
    archs = config.get("architectures")
    names = tuple(a for a in archs if isinstance(a, str)) if isinstance(archs, list) else ()
    out = []
    for name in ("preprocessor_config.json", *vision_processor_files(names)):
        if name not in files:
            severity = Severity.ERROR if name == "preprocessor_config.json" else Severity.WARNING
            out.append(finding("VL_PROCESSOR_CONFIG_MISSING", file=name, severity=severity))
    return out
