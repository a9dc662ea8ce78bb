"""Relation questions answered from the knowledge graph: the edges, the relation words,
and the composer's hook."""
