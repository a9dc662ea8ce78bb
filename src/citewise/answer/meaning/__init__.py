"""Whether the quoted units answer the question by meaning: the check, what it reads,
its support measure, the next candidate, and its place in ``ask``."""
