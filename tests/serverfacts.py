"""Server facts for tests, written in their stored shape (config -> JSON object) and validated as the store reads
them (:func:`specscope.store.schema.facts_record`), so that a test hands stats and report the typed records they
take."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from specscope.facts import RunFacts, ServerFacts
from specscope.store.manifest import RunManifest, manifest_record
from specscope.store.schema import facts_record


def server_facts(stored: Mapping[str, Any]) -> ServerFacts:
    """One config's facts from their stored shape."""
    return facts_record(stored)


def run_facts(by_config: Mapping[str, Mapping[str, Any]] | None = None) -> RunFacts:
    """Every config's facts from their stored shapes (config -> object)."""
    return RunFacts({c: facts_record(f) for c, f in (by_config or {}).items()})


def manifest(**fields: Any) -> RunManifest:
    """A bench run's manifest record with ``fields`` set (validated as a stored manifest is)."""
    return manifest_record({"schema_version": 2, "kind": "bench", **fields})
