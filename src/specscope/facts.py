"""One config's server facts as a typed record (issue 37): what its server said about itself, read by the report,
``predict``, ``advise`` and the exports through attributes, never by a key.

The store keeps the facts as the JSON object the writers made (``run.sqlite`` table ``server_facts``; its shape is
unchanged, so every run stored before reads) and validates them into a :class:`ServerFacts` where they are read
(:func:`specscope.store.schema.facts_record`). The record types every key specscope's own readers use; the whole
stored object stays in :attr:`ServerFacts.stored`, for the engine adapters, which read their own shapes there
(:func:`specscope.adapters.facts.server_spec`: a launch recipe, an embedded engine's config, an endpoint's answer),
and for the JSON report, which prints it as stored. A key neither this record nor :data:`KEPT_KEYS` knows is kept in
``stored`` and named in :attr:`ServerFacts.unknown`, never read as something.

Writers (the census of issue 37): a target's ``facts()`` (kind, URL, model, command line; an embedded engine adds its
versions, config, model file and draft; a launched one its recipe, pid and parsed log facts), ``bench`` (the log's
path in the run), ``--server-log`` (parsed log facts and pools), ``import`` (model, the tool imported from), the
pre-flight comparison (``loaded_vs_census``), and ``predict``'s byte census (``draft_bytes_per_token``, in memory).
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "KEPT_KEYS",
    "DraftFacts",
    "FailureFact",
    "LogFacts",
    "LogPoolFacts",
    "ModelFacts",
    "RunFacts",
    "ServerFacts",
]


@dataclass(frozen=True)
class ModelFacts:
    """The model a server served: an embedded engine's ``{"name", "path", "sha256", "size_bytes"}``, or the id an
    OpenAI-compatible server gave (``name`` only).

    Attributes:
        name: the served model's name or id (None when not said).
        path: its file (None when not said).
        sha256: the file's SHA-256 (None when not computed).
        size_bytes: the file's size (bytes; header included), None when not said.
    """

    name: str | None = None
    path: str | None = None
    sha256: str | None = None
    size_bytes: float | None = None


@dataclass(frozen=True)
class DraftFacts:
    """The draft model an embedded engine loaded (its ``DraftInfo``), or a draft named by id (``name`` only).

    Attributes:
        name: the draft's name or id, when said.
        path: its file, when said.
        quant: its weight type (``Q4_0``...; ``self``; ``file``), when said.
        method: how it was made, when said.
        size_bytes: its file's size (bytes), when said.
        cost_ns_per_token: its measured decode cost alone (ns per token), None when not measured.
    """

    name: str | None = None
    path: str | None = None
    quant: str | None = None
    method: str | None = None
    size_bytes: float | None = None
    cost_ns_per_token: float | None = None


@dataclass(frozen=True)
class FailureFact:
    """A failure signature found in a server log: its code, the 1-based line of its first match, its meaning and
    its fix."""

    code: str
    line_number: int | None = None
    explanation: str = ""
    fix: str = ""


@dataclass(frozen=True)
class LogFacts:
    """What the report reads of a server log's parsed facts (``log_facts``; the full parsed record stays in
    ``ServerFacts.stored["log_facts"]`` for the adapters). Units as named: ``*_gib`` GiB, ``*_tokens`` tokens;
    each None when the log did not say."""

    weights_loaded_gib: float | None = None
    kv_cache_size_tokens: int | None = None
    available_kv_cache_memory_gib: float | None = None
    max_concurrency_requests: float | None = None
    max_concurrency_at_len_tokens: int | None = None
    failures: tuple[FailureFact, ...] = ()


@dataclass(frozen=True)
class LogPoolFacts:
    """What the report reads of one stored server-log pool (``log_pools``, written by ``bench --server-log`` from
    :class:`specscope.launch.logpool.LogPool`; the whole pool stays in ``ServerFacts.stored["log_pools"]`` for the JSON
    report): the engine whose lines it pooled, the line forms read, its low-acceptance alarm (None: none) and its
    counts that contradict each other (``counters``' rules, each named by its line)."""

    engine: str | None = None
    forms: tuple[str, ...] = ()
    alarm: str | None = None
    inconsistencies: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServerFacts:
    """One config's server facts (module doc). Each attribute is None when the facts do not say.

    Attributes:
        kind: the kind of server (``external``, ``embedded``, the launched engine's kind...).
        engine: the embedded engine's description.
        model: the model it served (a stored id string reads as ``ModelFacts(name=id)``).
        draft: the draft model it loaded (a stored id string reads as ``DraftFacts(name=id)``).
        base_url: the URL it was reached at.
        command_line: its command line (a stored list reads joined by spaces).
        k, num_speculative_tokens, draft_max: draft tokens per step (tokens) as a hand-written or imported record
            states them.
        bytes_per_step, model_bytes, model_file_bytes: bytes the target reads per decode step, as recorded (bytes).
        draft_bytes_per_token, draft_bytes, draft_file_bytes: bytes a draft reads per drafted token, as recorded
            (bytes).
        log_facts: what its parsed log said (:class:`LogFacts`), None without a parsed log.
        log_pools: its captured log's pools (:class:`LogPoolFacts`), in the order pooled; empty without a log.
        stored: the whole stored object, as stored (the engine adapters' shapes, the JSON report).
        unknown: the stored top-level keys that neither this record nor :data:`KEPT_KEYS` knows (sorted).
    """

    kind: str | None = None
    engine: str | None = None
    model: ModelFacts | None = None
    draft: DraftFacts | None = None
    base_url: str | None = None
    command_line: str | None = None
    k: int | None = None
    num_speculative_tokens: int | None = None
    draft_max: int | None = None
    bytes_per_step: float | None = None
    model_bytes: float | None = None
    model_file_bytes: float | None = None
    draft_bytes_per_token: float | None = None
    draft_bytes: float | None = None
    draft_file_bytes: float | None = None
    log_facts: LogFacts | None = None
    log_pools: tuple[LogPoolFacts, ...] = ()
    stored: Mapping[str, Any] = field(default_factory=dict, compare=False)
    unknown: tuple[str, ...] = ()

    @property
    def stated_k(self) -> int | None:
        """The first of ``k``, ``num_speculative_tokens``, ``draft_max`` the facts state (tokens), else None."""
        return next((v for v in (self.k, self.num_speculative_tokens, self.draft_max) if v is not None), None)

    @property
    def recorded_target_bytes(self) -> tuple[float, str] | None:
        """The first recorded bytes per decode step of the target (bytes) and the key that held it, else None."""
        named = (
            (self.bytes_per_step, "bytes_per_step"),
            (self.model_bytes, "model_bytes"),
            (self.model_file_bytes, "model_file_bytes"),
        )
        return next(((value, name) for value, name in named if value is not None), None)

    @property
    def recorded_draft_bytes(self) -> float | None:
        """The first recorded bytes per drafted token of the draft (bytes), else None."""
        values = (self.draft_bytes_per_token, self.draft_bytes, self.draft_file_bytes)
        return next((v for v in values if v is not None), None)


@dataclass(frozen=True)
class RunFacts:
    """Every config's server facts in a run (``Run.server_facts``), asked by config: a config without stored facts
    reads as the empty :class:`ServerFacts` (every attribute None), never a key error and never a dict.

    Attributes:
        by_config: config -> its facts, in the order stored (config order).
    """

    by_config: Mapping[str, ServerFacts] = field(default_factory=dict)

    def of(self, config: str) -> ServerFacts:
        """``config``'s facts; the empty record when none are stored."""
        return self.by_config.get(config) or _NONE

    def items(self) -> ItemsView[str, ServerFacts]:
        """(config, facts) pairs, in the order stored."""
        return self.by_config.items()

    def __iter__(self) -> Iterator[str]:
        return iter(self.by_config)

    def __len__(self) -> int:
        return len(self.by_config)

    def __contains__(self, config: object) -> bool:
        return config in self.by_config


_NONE = ServerFacts()


#: stored keys that specscope's writers or the engine adapters use and this record does not type: kept in
#: ``stored`` as provenance (the JSON report prints them) or for the adapters' own readers
KEPT_KEYS = frozenset(
    {
        "name",
        "recipe",
        "log",
        "log_path",
        "pid",
        "startup_s",
        "versions",
        "config",
        "n_ctx_tokens",
        "models",
        "endpoints",
        "script",
        "log_source",
        "loaded_vs_census",
        "imported_from",
        "speculative_config",
    }
)
