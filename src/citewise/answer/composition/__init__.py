"""The extractive composer and its profiles: which units an answer of each intent
quotes, its parts, procedures, sections, counted lists and completeness."""
