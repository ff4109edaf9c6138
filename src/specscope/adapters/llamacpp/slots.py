"""llama.cpp's ``GET /slots`` (``tools/server/server.cpp``, b9251): what each slot says about speculation."""

from __future__ import annotations

from typing import Any

__all__ = ["slots_spec_config"]


def slots_spec_config(slots: Any) -> dict[str, Any]:
    """What llama.cpp's ``GET /slots`` says about speculation per slot: ``params["speculative.n_max"]`` (the configured
    k), ``speculative.n_min``, ``speculative.p_min``, newer builds' ``speculative.types``, and the slot's
    ``speculative`` flag (a draft is loaded). Returns ``{"slots": n, "speculative": [flags], "n_max": [values],
    "types": [values], "reasons": [...]}``; a field absent or of the wrong type is None in its list, with
    ``WRONG_TYPE`` named."""
    out: dict[str, Any] = {"slots": 0, "speculative": [], "n_max": [], "types": [], "reasons": []}
    if not isinstance(slots, list):
        out["reasons"].append(f"WRONG_TYPE(/slots: {type(slots).__name__}, expected a list)")
        return out
    for i, slot in enumerate(slots):
        params = slot.get("params") if isinstance(slot, dict) else None
        if not isinstance(params, dict):
            out["reasons"].append(f"WRONG_TYPE(slot {i}: no params object)")
            params = {}
        n_max = params.get("speculative.n_max")
        if n_max is not None and (isinstance(n_max, bool) or not isinstance(n_max, int)):
            out["reasons"].append(f"WRONG_TYPE(slot {i}: speculative.n_max {n_max!r})")
            n_max = None
        flag = slot.get("speculative") if isinstance(slot, dict) else None
        out["slots"] += 1
        out["speculative"].append(flag if isinstance(flag, bool) else None)
        out["n_max"].append(n_max)
        out["types"].append(params.get("speculative.types"))
    return out
