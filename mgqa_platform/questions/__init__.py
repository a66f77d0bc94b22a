"""Question generation: template catalog, answer formats, executors and the generator."""
