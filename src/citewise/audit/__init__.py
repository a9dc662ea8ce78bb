"""Audit: an append-only ledger in a Merkle tree (RFC 6962), signed checkpoints, pinned
answers, stale-citation checks, export and replay."""
