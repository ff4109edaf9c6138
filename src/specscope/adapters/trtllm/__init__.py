"""The adapter of TensorRT-LLM's trtllm-serve: its whole surface, filled into the engine-neutral records."""

#: the engine's name as people write it (docs/engines.md)
DISPLAY = "TensorRT-LLM"
