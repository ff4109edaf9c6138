"""One folder per engine: everything specscope knows of a server it talks to.

Each subpackage (``vllm``, ``sglang``, ``llamacpp``, ``trtllm``, ``openai``) holds that engine's whole surface:
request dialects and endpoints, stream and per-response fields, per-request speculative records, metric names and
body shapes (Prometheus text and JSON), log lines in every form its releases print, server facts, and how to
recognise the engine from a response, a scrape or a log. Each adapter fills the engine-neutral records; nothing
outside ``specscope.adapters`` names an engine or one of its metrics.

The registry of adapters is :mod:`specscope.adapters.registry`. Engine-neutral modules here: ``declare`` (the
per-field :class:`~specscope.adapters.declare.Row`), ``names`` (the readers' name tables built from the rows),
``drained`` (endpoints that drain on read: slices and their pooling), ``facts`` (server facts into one record),
``per_response`` (per-response speculative fields: the shared reader and the list of the adapters' readers), ``logs``
(log records, the log adapters and their summaries), ``log_facts`` (the adapters' log-fact records put together) and
``doc`` (docs/engines.md's generated sections). Each engine's folder holds
``metrics`` (``PREFIXES``, ``ROWS``, ``ENABLE_METRICS``, ``UNLABELLED_TRAFFIC``, ``UNLABELLED_TRAFFIC_SIGN`` where
only a caveat of the scrape shows that traffic, ``COPY_LABELS`` where its ranks write copies of one count; JSON
readers, and ``DRAINED_UNLABELLED_TRAFFIC`` in their terms, where the engine serves JSON) and, where it has server facts
specscope stores, ``facts``; where it writes speculative fields into its responses, ``per_response``; where its log
states facts, ``log_facts`` (``FACTS``, ``read_facts``); where its log prints statistics without counts,
``log_summary`` (``SUMMARY``).
"""
