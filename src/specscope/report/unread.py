"""Named warnings for stored keys that no reader of this specscope knows (issue 37: "a field you do not understand
is a named warning").

A run folder written by a newer specscope, or edited by hand, may hold keys this version does not read: a server's
facts (:attr:`specscope.facts.ServerFacts.unknown`) and a cell's client facts
(:attr:`specscope.records.ClientFacts.extra`). Each is kept as stored (the JSON report prints it) and never read for a
figure; these notes say so, once per place, with the keys, so that a figure that seems to ignore a stored value is
explained. A top-level manifest field this version does not know is named the same way
(:meth:`specscope.store.manifest.RunManifest.unknown_fields`; writing to such a run is refused). (An unknown bench
option in the manifest is named in ``RunOptions.unknown``; the manifest's typed parts keep their writers' own keys,
which are provenance, not unknown input.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from specscope.facts import RunFacts
from specscope.stats.summary import CellSummary

__all__ = ["unread_notes"]

_MAX_KEYS = 8  # keys named per note; the rest counted


def _keys(keys: Iterable[str]) -> str:
    """``a, b, c`` for up to :data:`_MAX_KEYS` keys (sorted), then ``and N more``."""
    ordered = sorted(set(keys))
    shown = ", ".join(repr(k) for k in ordered[:_MAX_KEYS])
    more = len(ordered) - _MAX_KEYS
    return shown + (f" and {more} more" if more > 0 else "")


def unread_notes(cells: Sequence[CellSummary], facts: RunFacts, manifest_fields: Sequence[str] = ()) -> list[str]:
    """One note per place that holds keys this specscope does not read (module doc); [] for a run of this version.

    Args:
        cells: the run's cell summaries (their client facts).
        facts: the run's server facts per config.
        manifest_fields: the manifest's top-level fields this version does not know.
    """
    notes = []
    if manifest_fields:
        notes.append(
            f"manifest.json: {_keys(manifest_fields)} not read (fields this specscope does not know: written by a "
            "newer version or by hand); kept as stored in the JSON report, no figure uses them"
        )
    notes += [
        f"server facts of {config}: {_keys(f.unknown)} not read (keys this specscope does not know: written by a "
        "newer version or by hand); kept as stored in the JSON report, no figure uses them"
        for config, f in sorted(facts.items())
        if f.unknown
    ]
    by_key: dict[str, int] = {}
    for c in cells:
        for k in c.client.extra if c.client is not None else ():
            by_key[k] = by_key.get(k, 0) + 1
    if by_key:
        lo, hi = min(by_key.values()), max(by_key.values())
        many = f" (in {lo if lo == hi else f'{lo}-{hi}'} of {len(cells)} cells)"
        notes.append(
            f"cell client facts: {_keys(by_key)} not read{many} (keys this specscope does not know: written by a "
            "newer version or by hand); kept as stored, no figure uses them"
        )
    return notes
