"""Whole-knowledge-base operations beside the facade: folder sync (``folder``: read a folder
and reconcile a knowledge base with it; ``mirror``: run it through the stages; ``watch``:
rerun it on changes) and store migration (``migrate``: copy a home between backends)."""
