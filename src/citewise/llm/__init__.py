"""Optional, bounded LLM generation over a frozen minimal evidence set (see docs/llm.md)."""
