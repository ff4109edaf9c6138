"""The bandwidth roofline of decode, the one in specscope (light: no numpy / scipy, so the audit can use it)."""

from __future__ import annotations

from specscope.errors import ConfigError

__all__ = ["roofline_tok_s"]


def roofline_tok_s(bytes_per_step: float, bandwidth_bytes_s: float) -> float:
    """Bandwidth roofline of single-stream, no-draft decode (tokens/s): the one roofline in specscope.

    ``roofline_tok_s = bandwidth_bytes_s / bytes_per_step``: each decode step emits one token and reads every
    weight byte the target uses once, so memory bandwidth bounds the rate. Example: 4.8e12 bytes/s (4.8 TB/s)
    over 16e9 bytes (16 GB) read per step gives 300.0 tokens/s. The audit's byte census
    (``specscope.audit.census.roofline_tokens_per_s``) and :mod:`specscope.stats.predict` use this function.

    Args:
        bytes_per_step: bytes one target forward pass reads (bytes per token, batch 1).
        bandwidth_bytes_s: memory bandwidth (bytes/s; 1 GB/s = 1e9 bytes/s).

    Raises:
        ConfigError: a non-positive input.
    """
    if bytes_per_step <= 0 or bandwidth_bytes_s <= 0:
        raise ConfigError(
            "bytes per step and bandwidth must be positive",
            found=f"{bytes_per_step} bytes, {bandwidth_bytes_s} bytes/s",
            expected="> 0",
            fix="pass e.g. --bytes-per-step 17.61GB --bandwidth 273GB/s",
        )
    return bandwidth_bytes_s / bytes_per_step
