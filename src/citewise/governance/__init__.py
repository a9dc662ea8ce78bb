"""Governance of a knowledge base: its policy (``policy.yaml``), the publication gate
(candidate revisions held for review) and quarantine (files held for their parse
warnings or size), with the review queue that publishes or discards them.

Held material never enters the store: it waits as files under the home
(``kbs/<kb>/review/``), so no read path (search, evidence, answers, graph, resolve,
export, conversations) can reach it before a publisher approves or releases it.
"""
