"""The run folder: a manifest plus a SQLite database of observed facts, committed cell by cell.

Layout of a run folder::

    RUN/
      manifest.json      everything needed to reproduce: options, versions, server command lines, machine
                         (a pydantic model with a schema version: specscope.store.manifest)
      run.sqlite         per cell the /metrics scrapes, client self-check and observed crash / reasons; per stream
                         its record; server facts (one transaction per finished cell)
      logs/              server logs (one file per server start)
      .specscope.lock    the writer's lock (flock) and its pid (specscope.store.lock)

The store holds facts, never figures: every summary is derived when the run is read
(``specscope.stats.cells.summarize_run``). A run killed at any point loses at most the cell in flight;
``specscope bench --resume RUN`` skips every cell already in ``run.sqlite``. Readers open a run read-only and never
change it; one writer at a time holds the lock (``specscope.store.run``'s docstring).
"""

from specscope.store.manifest import SCHEMA_VERSION, ManifestError, RunManifest
from specscope.store.run import DB_NAME, MANIFEST_NAME, Run, create_run, is_run_folder, open_run, write_json_atomic

__all__ = [
    "MANIFEST_NAME",
    "DB_NAME",
    "SCHEMA_VERSION",
    "ManifestError",
    "RunManifest",
    "Run",
    "create_run",
    "open_run",
    "is_run_folder",
    "write_json_atomic",
]
