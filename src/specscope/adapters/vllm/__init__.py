"""The adapter of vLLM: its whole surface, filled into the engine-neutral records."""

#: the engine's name as people write it (docs/engines.md)
DISPLAY = "vLLM"
