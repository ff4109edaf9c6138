"""The facts a server log states (not its statistics: :mod:`specscope.adapters.logs`), as one record of every log
adapter's fields, found through the registry.

Each engine whose log states facts has a ``log_facts`` module (``specscope.adapters.<engine>.log_facts``) with
``FACTS`` (a pydantic model of its fields, every field None / empty by default, names its own: no two engines share
one) and ``read_facts(lines) -> FACTS``. :data:`EngineLogFacts` is the record inheriting every registered engine's
``FACTS`` (fields in registry order: vLLM's, then SGLang's, as they have always been); :func:`engine_log_facts` reads
every adapter's facts of the lines into it. A new engine's log facts are found from its folder alone: nothing here
names them. The log's failure signatures and the file itself are read in :mod:`specscope.launch.logfacts`, whose
``LogFacts`` adds the failures.

Typing: the type checker sees the fields the engine-neutral readers read by name (``launch.capacity``,
``launch.kv_table``, ``cli.serve``: vLLM's start-up and KV-cache facts); an engine's other fields are read by its own
adapter through its own ``FACTS`` class (the record is an instance of every one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from specscope.adapters.registry import engine_modules
from specscope.adapters.vllm.log_facts import MISSING_LOG
from specscope.adapters.vllm.logs import SpecCumulativeSample, SpecDecodingSample

__all__ = [
    "MISSING_LOG",
    "EngineLogFacts",
    "SpecCumulativeSample",
    "SpecDecodingSample",
    "engine_log_facts",
    "facts_classes",
]

_DOC = """Everything the adapters read from one server log as facts: each registered engine's ``FACTS`` fields, in
registry order; every field None / empty when the log lacks it."""


def facts_classes() -> list[tuple[str, type[BaseModel]]]:
    """``(engine, FACTS)`` of every registered engine with a ``log_facts`` module, in registry order.

    Raises:
        TypeError: two engines declare the same field (one would silently overwrite the other's facts).
    """
    out: list[tuple[str, type[BaseModel]]] = [(engine, mod.FACTS) for engine, mod in engine_modules("log_facts")]
    owner: dict[str, str] = {}
    for engine, cls in out:
        for name in cls.model_fields:
            if name in owner:
                raise TypeError(f"log fact {name!r} is declared by both {owner[name]} and {engine}")
            owner[name] = engine
    return out


def _compose() -> type[BaseModel]:
    """The class inheriting every ``FACTS`` (the last base's fields come first, hence reversed registry order)."""
    bases = tuple(cls for _, cls in reversed(facts_classes()))
    return type("EngineLogFacts", bases, {"__module__": __name__, "__qualname__": "EngineLogFacts", "__doc__": _DOC})


if TYPE_CHECKING:
    from specscope.adapters.vllm.log_facts import VllmLogFacts

    class EngineLogFacts(VllmLogFacts):
        """The record as the type checker sees it (see the module doc); at run time :func:`_compose`'s class."""

else:
    EngineLogFacts = _compose()


def engine_log_facts(lines: Sequence[str]) -> EngineLogFacts:
    """Every adapter's facts of ``lines`` (split by :func:`specscope.adapters.logs.split_log_lines`)."""
    values: dict[str, Any] = {}
    for _, mod in engine_modules("log_facts"):
        values.update(dict(mod.read_facts(lines)))
    return EngineLogFacts(**values)
