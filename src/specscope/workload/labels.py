"""Workload labels: a cell's ``workload`` is its base workload plus ``@``-separated variant parts.

``"prose@2k@t0.6@think"``: pack ``prose``, prompts extended to 2048 input tokens (``--context-tokens``), temperature
0.6 (``--temperatures``), thinking on (``--thinking``). A part that is absent was not set on the cell. Bench
writes labels (:mod:`specscope.bench.workloads`); the report reads them back for its tables by category,
context length, temperature and phase.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Variant", "parse_label"]


@dataclass(frozen=True)
class Variant:
    """The parts of a workload label (``context_tokens`` in tokens; None: not set on this cell)."""

    base: str
    context_tokens: int | None = None
    temperature: float | None = None
    thinking: bool = False

    def label(self) -> str:
        from specscope.workload.context import context_label

        parts = [self.base]
        if self.context_tokens is not None:
            parts.append(context_label(self.context_tokens))
        if self.temperature is not None:
            parts.append(f"t{self.temperature:g}")
        if self.thinking:
            parts.append("think")
        return "@".join(parts)


def parse_label(label: str) -> Variant:
    """``"prose@2k@t0.6@think"`` -> ``Variant("prose", 2048, 0.6, True)``."""
    from specscope.workload.context import parse_context

    base, *parts = label.split("@")
    ctx: int | None = None
    temp: float | None = None
    think = False
    for part in parts:
        if part == "think":
            think = True
        elif part.startswith("t"):
            temp = float(part[1:])
        else:
            ctx = parse_context(part)
    return Variant(base, ctx, temp, think)
