"""Results made by other tools, stored as a run that ``report`` and ``advise`` judge like any other
(``specscope import FILE... --config NAME --out RUN``).

Modules:

- :mod:`~specscope.importers.shapes`: which tool wrote a file, by content; the shapes and their sources;
- :mod:`~specscope.importers.vllm_serve`: ``vllm bench serve --save-result`` JSON;
- :mod:`~specscope.importers.sglang_serving`: SGLang ``bench_serving --output-file`` JSONL;
- :mod:`~specscope.importers.aiperf_export`: AIPerf ``profile_export_aiperf.json``;
- :mod:`~specscope.importers.aiperf_records`: AIPerf's per-request ``profile_export.jsonl`` (one cell per file);
- :mod:`~specscope.importers.guidellm_report`: GuideLLM's JSON report (one cell per benchmark);
- :mod:`~specscope.importers.peers`: the peer tools' files that hold no cell, named when refused;
- :mod:`~specscope.importers.record`: one record in specscope's names and units;
- :mod:`~specscope.importers.write`: the records stored as cells through the run store (:mod:`specscope.store`).

Only facts are stored (the tool's totals and per-request arrays, in seconds and tokens); every figure is derived
when the run is read (:mod:`specscope.stats.imported`), and what a file does not record is named, never filled.
"""

from specscope.importers.shapes import SHAPES, read_records
from specscope.importers.write import ImportedCell, baseline_gaps, import_files

__all__ = ["SHAPES", "ImportedCell", "baseline_gaps", "import_files", "read_records"]
