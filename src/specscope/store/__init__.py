"""The run folder: a manifest plus a SQLite database of cells and streams, committed cell by cell.

Layout of a run folder::

    RUN/
      manifest.json      everything needed to reproduce: options, versions, server command lines, machine
      run.sqlite         cells, streams and server facts (one transaction per finished cell)
      logs/              server logs (one file per server start)

A run killed at any point loses at most the cell in flight; ``specscope bench --resume RUN`` skips every
cell already in ``run.sqlite``.
"""

from specscope.store.run import DB_NAME, MANIFEST_NAME, Run, create_run, open_run, write_json_atomic

__all__ = ["MANIFEST_NAME", "DB_NAME", "Run", "create_run", "open_run", "write_json_atomic"]
