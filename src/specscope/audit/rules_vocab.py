"""Draft <-> target vocabulary: tokenizers by content, vocabulary sizes as padding bounds, reduced-vocabulary maps.

Rules and their sources:

- **Tokenizers by content** (:mod:`specscope.checkpoint.tokenizer`): over the ids both define, the same id must mean
  the same token; the first differing ids are named with both tokens (``DRAFT_TOKENIZER_DIFFERS``, ERROR: a draft
  token id that means another token is rejected by the target, acceptance ~0). bos / eos / pad ids and the chat
  template's marker tokens are compared too (``DRAFT_SPECIAL_TOKENS_DIFFER``, WARNING: the draft stops or formats
  turns differently; the target still verifies every token).
- **Sizes are padding bounds**: ``vocab_size`` and embedding rows are often padded past the tokenizer (to a multiple
  of 64 or 128 for tensor-parallel sharding; vLLM pads ``VocabParallelEmbedding`` itself), so a size difference is
  no finding here when the tokenizers agree (a separate draft model's ``vocab_size`` must still equal the target's:
  vLLM's own startup check, ``DRAFT_VOCAB_SIZE_DIFFERS`` in :mod:`.rules_draft`). What breaks is a draft that
  cannot embed an id the target produces: its embedding has fewer rows than the target's tokenizer has ids
  (``DRAFT_VOCAB_MISMATCH``, ERROR: an index error or a wrapped id). Without tokenizer files on both sides a size
  difference cannot be told from a different vocabulary (``DRAFT_VOCAB_UNVERIFIED``, WARNING).
- **Reduced vocabularies** (EAGLE-3 ``draft_vocab_size`` < ``vocab_size``): the head scores ``draft_vocab_size``
  tokens and ``d2t`` maps draft id ``i`` to target id ``i + d2t[i]``; ``t2d`` is a bool mask over the target
  vocabulary. vLLM ``llama_eagle3.py`` @00bd1493 loads ``d2t`` as ``draft_id_to_target_id`` (zeros, i.e. identity,
  when the checkpoint has none) and skips ``t2d``; SGLang ``llama_eagle3.py`` @03d5a777 builds ``hot_token_id = d2t +
  arange`` and skips ``t2d``. So ``d2t`` must be present, of length ``draft_vocab_size``, map into ``[0, vocab_size)``
  without repeats, in increasing order (every exporter, EAGLE's and SpecForge's, writes the kept target ids sorted
  and trains head row ``i`` on the ``i``-th of them; a permuted map sends rows to tokens they were not trained on);
  ``t2d``, when present, must mark exactly those ids; ``lm_head`` must have ``draft_vocab_size`` rows
  (``DRAFT_VOCAB_MAP``, ERROR each). Medusa: ``token_map`` is required when ``truncated_vocab_size < vocab_size``
  (vLLM ``medusa.py`` asserts it at load).
- Where SGLang takes the head (``llama_eagle3.py`` @03d5a777: the embedding table when ``tie_word_embeddings``, the
  target's only when ``draft_vocab_size`` is null, else its own ``ParallelLMHead``) while vLLM builds
  ``lm_head`` [draft_vocab_size, hidden] whatever the flag (@00bd1493) and shares the target's when the draft has
  none: a stored head under ``tie_word_embeddings: true`` (``DRAFT_VOCAB_MAP/tied-head``: configs copied from a
  tied target, SpecForge PR #140, NeMo-Automodel PR #2319) and a missing full-vocabulary head under a declared
  ``draft_vocab_size`` (``DRAFT_VOCAB_MAP/declared-head``: SGLang PR #27908) are WARNINGs.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import numpy as np

from specscope.audit.architectures import DraftLayout, alias_name, config_int
from specscope.audit.catalog import finding
from specscope.audit.findings import Finding
from specscope.checkpoint import Checkpoint
from specscope.checkpoint.index import network_config
from specscope.checkpoint.tokenizer import TokenizerView, same_token

__all__ = ["compare_tokenizers", "check_vocab_bounds", "check_vocab_map", "embedding_rows", "eagle3_reduced"]

_SHOWN = 5


#: where a checkpoint's vocabulary is looked for, by kind of checkpoint (the words of ``DRAFT_TOKENIZER_UNVERIFIED``).
TOKENIZER_PLACES = {
    "safetensors": "tokenizer.json, vocab.json, tokenizer.model or tiktoken.model",
    "gguf": "tokenizer.ggml.* metadata",
}
_RESTORE = {
    "safetensors": "copy the publisher's tokenizer files (tokenizer.json, tokenizer_config.json) next to the {side}, "
    "then audit again",
    "gguf": "re-convert the {side} with llama.cpp's convert_hf_to_gguf.py (it writes tokenizer.ggml.*), then audit "
    "again",
}


def _absent(draft: TokenizerView | None, target: TokenizerView | None, kind: str) -> Finding:
    """``DRAFT_TOKENIZER_UNVERIFIED`` for a side that carries no vocabulary at all."""
    places = TOKENIZER_PLACES[kind]
    missing = [side for side, view in (("draft", draft), ("target", target)) if view is None]
    sides = " and the ".join(missing)
    found = "; ".join(
        f"{side}: {view.source if view is not None else 'no ' + places}"
        for side, view in (("draft", draft), ("target", target))
    )
    return finding(
        "DRAFT_TOKENIZER_UNVERIFIED/absent",
        file=draft.source if draft is not None else None,
        why=f"the {sides} {'carries' if len(missing) == 1 else 'carry'} no vocabulary ({places})",
        found_text=found,
        places=places,
        fix=_RESTORE[kind].format(side=sides),
        details={"missing": missing},
    )


def compare_tokenizers(
    draft: TokenizerView | None, target: TokenizerView | None, *, kind: str = "safetensors"
) -> list[Finding]:
    """``DRAFT_TOKENIZER_DIFFERS`` / ``DRAFT_SPECIAL_TOKENS_DIFFER`` / ``DRAFT_TOKENIZER_UNVERIFIED`` (see module);
    ``kind`` (``safetensors`` / ``gguf``) words where a missing vocabulary was looked for."""
    if draft is None or target is None:
        return [_absent(draft, target, kind)]
    if draft.unreadable or target.unreadable:
        if draft.fingerprint and draft.fingerprint == target.fingerprint:
            return []
        side, view = ("draft", draft) if draft.unreadable else ("target", target)
        fix = (
            "pip install 'specscope[tokenizers]' (it installs sentencepiece), then audit again"
            if view.fingerprint
            else f"re-download the {side}'s {view.source} from its publisher, then audit again"
        )
        why = f"{side} {view.source}: {view.unreadable}"
        return [finding("DRAFT_TOKENIZER_UNVERIFIED", file=draft.source, why=why, target_file=target.source, fix=fix)]
    shared = min(draft.size, target.size)
    differ = [i for i in range(shared) if not same_token(draft.tokens.get(i), target.tokens.get(i))]
    out: list[Finding] = []
    if differ:
        first = differ[0]
        pairs = [{"id": i, "draft": draft.tokens.get(i), "target": target.tokens.get(i)} for i in differ[:_SHOWN]]
        shown = "; ".join(f"id {i}: draft {draft.shown(i)}, target {target.shown(i)}" for i in differ[:_SHOWN])
        out.append(
            finding(
                "DRAFT_TOKENIZER_DIFFERS",
                file=draft.source,
                n=len(differ),
                shared=shared,
                first=first,
                draft_token=draft.shown(first),
                target_token=target.shown(first),
                shown=shown,
                draft_file=draft.source,
                target_file=target.source,
                details={"differing_ids": len(differ), "shared_ids": shared, "first": pairs},
            )
        )
    specials = _special_differences(draft, target)
    if specials:
        out.append(
            finding(
                "DRAFT_SPECIAL_TOKENS_DIFFER",
                file=draft.source,
                what="; ".join(specials),
                details={"differences": specials},
            )
        )
    return out


def _special_differences(draft: TokenizerView, target: TokenizerView) -> list[str]:
    out = []
    for label, d, t in (
        ("bos", draft.bos_id, target.bos_id),
        ("eos", draft.eos_ids, target.eos_ids),
        ("pad", draft.pad_id, target.pad_id),
    ):
        if d not in (None, ()) and t not in (None, ()) and d != t:
            out.append(f"{label} id: draft {d}, target {t}")
    only_t = sorted(set(target.template_markers) - set(draft.tokens.values()))
    if only_t:
        out.append(f"chat-template markers the draft's vocabulary lacks: {', '.join(only_t[:_SHOWN])}")
    return out


def embedding_rows(ck: Checkpoint, layout: DraftLayout | None) -> tuple[int | None, str]:
    """Rows of the draft's own input embedding (None when it has none: shared) and where the number came from."""
    for name, info in ck.tensors().items():
        plain = alias_name(layout.family, name) if layout is not None else name
        if plain.endswith("embed_tokens.weight") and not plain.startswith(("mtp.", "model.mtp_layers.")):
            if info.shape:
                return info.shape[0], name
    return None, "no embedding tensor"


def check_vocab_bounds(
    draft_ck: Checkpoint,
    layout: DraftLayout | None,
    target_cfg: dict[str, Any],
    draft_tok: TokenizerView | None,
    target_tok: TokenizerView | None,
) -> list[Finding]:
    """``DRAFT_VOCAB_MISMATCH`` (the draft cannot embed every id the target produces), ``DRAFT_VOCAB_UNVERIFIED``
    (the draft ships no tokenizer and its size differs from the target's) or ``DRAFT_VOCAB_EXCEEDS_TARGET`` (the
    draft's tokenizer defines ids the target's does not: the draft can propose them). Beside
    ``DRAFT_VOCAB_EXCEEDS_TARGET/head`` (the draft's head is larger than the target's vocabulary) the
    ``DRAFT_VOCAB_UNVERIFIED`` warning (the sizes differ, padding or not) would judge the same fact again and is
    left out; the tokenizers' own comparison (``DRAFT_TOKENIZER_UNVERIFIED``) stays, a separate fact."""
    target_vocab = config_int(target_cfg, "vocab_size")
    head = _head_past_target(draft_ck, layout, target_vocab)
    bounds = _bounds(draft_ck, layout, target_vocab, target_cfg, draft_tok, target_tok)
    if head:
        bounds = [f for f in bounds if f.code != "DRAFT_VOCAB_UNVERIFIED"]
    return head + bounds


_OWN_HEAD = re.compile(r"^(?:lm_head|lm_heads\.\d+|head\.\d+)\.weight$")


def _head_past_target(ck: Checkpoint, layout: DraftLayout | None, target_vocab: int | None) -> list[Finding]:
    """``DRAFT_VOCAB_EXCEEDS_TARGET/head`` (ERROR): a separate draft's own output head (``lm_head``, Medusa
    ``lm_heads.{h}``, MLP speculator ``head.{i}``) with more rows than the target's ``vocab_size``. vLLM drafts the
    argmax over the head's rows (``medusa.py`` @01dbb081, ``mlp_speculator.py`` @0531c222, ``llama_eagle3.py``
    @00bd1493), and the target embeds that id at the verify step. A head mapped to target ids by ``d2t`` / ``token_map``
    is judged by ``DRAFT_VOCAB_MAP``; a plain draft model by ``DRAFT_VOCAB_SIZE_DIFFERS``."""
    if layout is None or target_vocab is None or layout.family.kind != "draft" or layout.family.key == "draft_model":
        return []
    tensors = ck.tensors()
    plain = {alias_name(layout.family, n): n for n in tensors}
    if "d2t" in plain or "token_map" in plain:
        return []
    heads = sorted((n, tensors[n].shape[0]) for p, n in plain.items() if _OWN_HEAD.match(p) and tensors[n].shape)
    past = [(n, r) for n, r in heads if r > target_vocab]
    if not past:
        return []
    name, rows = past[0]
    facts: dict[str, Any] = {"rows": rows, "rows_last": rows - 1, "target_vocab": target_vocab, "n": len(past)}
    return [finding("DRAFT_VOCAB_EXCEEDS_TARGET/head", file=name, tensor=name, **facts, details=dict(facts))]


def _bounds(
    draft_ck: Checkpoint,
    layout: DraftLayout | None,
    target_vocab: int | None,
    target_cfg: dict[str, Any],
    draft_tok: TokenizerView | None,
    target_tok: TokenizerView | None,
) -> list[Finding]:
    rows, where = embedding_rows(draft_ck, layout)
    draft_vocab = rows if rows is not None else config_int(draft_ck.text_config, "vocab_size")
    where = where if rows is not None else "config.json vocab_size"
    if draft_vocab is None:
        return []
    if target_tok is not None and target_tok.size and draft_vocab < target_tok.size:
        basis = f"the target's {target_tok.source} defines ids 0..{target_tok.size - 1}"
        return [
            finding(
                "DRAFT_VOCAB_MISMATCH",
                file="config.json",
                draft=draft_vocab,
                target=target_tok.size,
                where=where,
                basis=basis,
                details={"draft_rows": draft_vocab, "target_ids": target_tok.size, "draft_rows_from": where},
            )
        ]
    target_size = target_vocab if target_vocab is not None else (target_tok.size if target_tok else None)
    if draft_tok is None and target_size is not None and draft_vocab != target_size:
        return [
            finding("DRAFT_VOCAB_UNVERIFIED", file="config.json", draft=draft_vocab, target=target_size, where=where)
        ]
    return _beyond_target(draft_tok, target_tok, target_vocab)


def _beyond_target(
    draft_tok: TokenizerView | None, target_tok: TokenizerView | None, target_vocab: int | None
) -> list[Finding]:
    """``DRAFT_VOCAB_EXCEEDS_TARGET``: ids the draft's tokenizer defines past the target's tokenizer (WARNING: a
    drafted one is rejected) or past the target's ``vocab_size`` (ERROR: out of range at the verify step)."""
    if draft_tok is None or target_tok is None or draft_tok.unreadable or target_tok.unreadable:
        return []
    extra = sorted(i for i in draft_tok.tokens if i >= target_tok.size)
    if not extra:
        return []
    past_rows = target_vocab is not None and extra[-1] >= target_vocab
    shown = ", ".join(f"{i} {draft_tok.shown(i)}" for i in extra[:_SHOWN])
    return [
        finding(
            "DRAFT_VOCAB_EXCEEDS_TARGET/rows" if past_rows else "DRAFT_VOCAB_EXCEEDS_TARGET",
            file=draft_tok.source,
            n=len(extra),
            first=extra[0],
            last=extra[-1],
            shown=shown,
            target_last=target_tok.size - 1,
            target_vocab=target_vocab,
            target_file=target_tok.source,
            details={"draft_only_ids": len(extra), "first": extra[0], "last": extra[-1], "target_ids": target_tok.size},
        )
    ]


def eagle3_reduced(cfg: dict[str, Any] | None) -> tuple[int | None, int | None]:
    """``(vocab_size, draft_vocab_size)`` of an EAGLE-3 config (draft size defaults to the full vocabulary); the
    vllm-project/speculators format keeps ``vocab_size`` in ``transformer_layer_config`` (read through
    :func:`specscope.checkpoint.index.network_config`)."""
    net = network_config(cfg)
    vocab = config_int(net, "vocab_size")
    dv = config_int(net, "draft_vocab_size")
    return vocab, dv if dv is not None else vocab


def _head_rows(ck: Checkpoint, layout: DraftLayout) -> tuple[int | None, str | None]:
    for name, info in ck.tensors().items():
        if alias_name(layout.family, name) == "lm_head.weight" and info.shape:
            return info.shape[0], name
    return None, None


def _declared_full_head_absent(cfg: dict[str, Any], rows: int | None, vocab: int, draft_vocab: int) -> list[Finding]:
    """``DRAFT_VOCAB_MAP/declared-head`` (WARNING): a full-vocabulary EAGLE-3 draft with no ``lm_head`` of its own
    whose config still declares ``draft_vocab_size`` and does not tie its embeddings. vLLM shares the target's head
    when the draft has none (``llm_base_proposer._maybe_share_lm_head``, ``has_own_lm_head``); SGLang
    ``llama_eagle3.py`` @03d5a777 takes the target's head only when ``draft_vocab_size`` is null, else builds its own
    ``ParallelLMHead`` and loads nothing into it (sgl-project/sglang issue #27829, PR #27908:
    ``nvidia/Kimi-K2.6-Eagle3`` served at acceptance 0.00)."""
    declared = network_config(cfg).get("draft_vocab_size")
    if rows is not None or declared is None or draft_vocab != vocab or network_config(cfg).get("tie_word_embeddings"):
        return []
    return [_map_finding("declared-head", "lm_head.weight", draft_vocab=draft_vocab)]


def _map_finding(variant: str, tensor: str | None, **facts: Any) -> Finding:
    return finding(f"DRAFT_VOCAB_MAP/{variant}", file="config.json", tensor=tensor, **facts)


def _check_d2t(d2t: np.ndarray, vocab: int, draft_vocab: int) -> list[Finding]:
    if d2t.dtype == np.bool_ or len(d2t) != draft_vocab:
        return [_map_finding("length", "d2t", n=len(d2t), draft_vocab=draft_vocab, dtype=str(d2t.dtype))]
    targets = np.arange(draft_vocab, dtype=np.int64) + d2t.astype(np.int64)
    bad = np.flatnonzero((targets < 0) | (targets >= vocab))
    if bad.size:
        i = int(bad[0])
        return [_map_finding("range", "d2t", n=int(bad.size), first=i, value=int(targets[i]), vocab=vocab)]
    uniq, counts = np.unique(targets, return_counts=True)
    if uniq.size != targets.size:
        dup = int(uniq[counts > 1][0])
        return [_map_finding("duplicate", "d2t", n=int(targets.size - uniq.size), value=dup)]
    steps = np.flatnonzero(np.diff(targets) <= 0)
    if steps.size:
        i = int(steps[0])
        return [
            _map_finding(
                "order", "d2t", n=int(steps.size), first=i, a=int(targets[i]), b=int(targets[i + 1]), next_id=i + 1
            )
        ]
    return []


def _check_t2d(t2d: np.ndarray, d2t: np.ndarray | None, vocab: int, draft_vocab: int) -> list[Finding]:
    if len(t2d) != vocab:
        return [_map_finding("t2d", "t2d", what=f"{len(t2d)} entries for a vocabulary of {vocab}")]
    marked = int(np.count_nonzero(t2d))
    if marked != draft_vocab:
        return [_map_finding("t2d", "t2d", what=f"{marked} ids marked, draft_vocab_size is {draft_vocab}")]
    if d2t is not None and len(d2t) == draft_vocab:
        targets = np.arange(draft_vocab, dtype=np.int64) + d2t.astype(np.int64)
        inside = targets[(targets >= 0) & (targets < vocab)]
        unmarked = inside[~t2d.astype(bool)[inside]]
        if unmarked.size:
            what = f"d2t maps to {unmarked.size} target ids t2d does not mark (first {int(unmarked[0])})"
            return [_map_finding("t2d", "t2d", what=what)]
    return []


def _check_medusa(ck: Checkpoint, cfg: dict[str, Any], names: dict[str, str]) -> list[Finding]:
    """Medusa, per vLLM ``medusa.py`` @01dbb081: every head is ``ParallelLMHead(truncated_vocab_size, hidden)``
    (``truncated_vocab_size`` defaults to ``vocab_size``); with ``truncated_vocab_size < vocab_size`` the checkpoint
    must carry ``token_map`` (asserted at load), ``truncated_vocab_size`` target ids scattered into a ``vocab_size``
    logit row, and a head stored with more rows is sliced by it (``weight[token_map]``)."""
    vocab = config_int(cfg, "vocab_size")
    trunc = config_int(cfg, "truncated_vocab_size") or vocab
    if vocab is None or trunc is None:
        return []
    out: list[Finding] = []
    reduced = trunc < vocab
    token_map = ck.read_index_array(names["token_map"]) if reduced and "token_map" in names else None
    if reduced and "token_map" not in names:
        out.append(_map_finding("missing-medusa", "token_map", name="token_map", draft_vocab=trunc, vocab=vocab))
    elif token_map is not None:
        ids = token_map.astype(np.int64)
        bad = np.flatnonzero((ids < 0) | (ids >= vocab))
        what = None
        if token_map.dtype == np.bool_:
            what = "a bool mask, not target ids"
        elif len(token_map) != trunc:
            what = f"{len(token_map)} entries for truncated_vocab_size {trunc}"
        elif bad.size:
            what = f"{bad.size} ids outside [0, {vocab}); first token_map[{int(bad[0])}] = {int(ids[bad[0]])}"
        if what:
            out.append(_map_finding("medusa-map", "token_map", what=what, draft_vocab=trunc, vocab=vocab))
    allowed = {trunc} | ({vocab} if token_map is not None else set())
    heads = sorted((n, i.shape[0]) for n, i in ck.tensors().items() if _is_medusa_head(names, n) and i.shape)
    wrong = [(n, r) for n, r in heads if r not in allowed]
    if wrong:
        name, rows = wrong[0]
        want = " or ".join(str(a) for a in sorted(allowed))
        out.append(_map_finding("medusa-head-rows", name, n=len(wrong), rows=rows, want=want, draft_vocab=trunc))
    return out


def _is_medusa_head(names: dict[str, str], stored: str) -> bool:
    plain = next((p for p, s in names.items() if s == stored), stored)
    return plain.startswith("lm_heads.") and plain.endswith(".weight")


def check_vocab_map(ck: Checkpoint, layout: DraftLayout | None) -> list[Finding]:
    """``DRAFT_VOCAB_MAP`` findings for an EAGLE-3 draft's ``d2t`` / ``t2d`` / head rows, or a Medusa ``token_map``;
    each placed in the file that stores its tensor (``config.json`` when the tensor is absent: the config's vocab
    sizes ask for it)."""
    if layout is None or not layout.family.vocab_map or not ck.tensors():
        return []
    names = {alias_name(layout.family, n): n for n in ck.tensors()}
    out = []
    for f in _vocab_map_findings(ck, layout, names):
        stored = names.get(f.tensor or "", f.tensor)
        shard = ck.shard_of(stored) if stored else None
        out.append(replace(f, file=shard) if shard else f)
    return out


def _vocab_map_findings(ck: Checkpoint, layout: DraftLayout, names: dict[str, str]) -> list[Finding]:
    cfg = ck.text_config
    if layout.family.vocab_map == "medusa":
        return _check_medusa(ck, cfg, names)
    vocab, draft_vocab = eagle3_reduced(cfg)
    if vocab is None or draft_vocab is None:
        return []
    out: list[Finding] = []
    rows, head = _head_rows(ck, layout)
    if rows is not None and rows != draft_vocab:
        out.append(_map_finding("head-rows", head, rows=rows, draft_vocab=draft_vocab))
    out += _declared_full_head_absent(cfg, rows, vocab, draft_vocab)
    if rows is not None and network_config(cfg).get("tie_word_embeddings") is True:
        out.append(_map_finding("tied-head", head, rows=rows))  # SGLang llama_eagle3.py @03d5a777 ties it
    d2t = ck.read_index_array(names["d2t"]) if "d2t" in names else None
    if draft_vocab < vocab and "d2t" not in names:
        out.append(_map_finding("missing", "d2t", name="d2t", draft_vocab=draft_vocab, vocab=vocab))
    elif "d2t" in names and d2t is None:
        info = ck.tensor(names["d2t"])
        shape, dtype = (list(info.shape), info.dtype) if info else ([], "?")
        variant = "rank" if len(shape) != 1 else "dtype"
        out.append(_map_finding(variant, "d2t", shape=shape, draft_vocab=draft_vocab, dtype=dtype))
    elif d2t is not None:
        out += _check_d2t(d2t, vocab, draft_vocab)
    if "t2d" in names:
        t2d = ck.read_index_array(names["t2d"])
        if t2d is None:
            out.append(_map_finding("t2d", "t2d", what="not a 1-D bool or integer tensor"))
        else:
            out += _check_t2d(t2d, d2t, vocab, draft_vocab)
    return out
