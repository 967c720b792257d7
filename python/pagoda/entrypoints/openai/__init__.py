"""vLLM's OpenAI-compatible server entry points."""
