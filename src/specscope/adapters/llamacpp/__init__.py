"""The adapter of llama.cpp's server: its whole surface, filled into the engine-neutral records."""

#: the engine's name as people write it (docs/engines.md)
DISPLAY = "llama.cpp"
