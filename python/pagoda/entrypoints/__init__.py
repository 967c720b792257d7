"""Entry points with vLLM's module paths (vllm.entrypoints...)."""
