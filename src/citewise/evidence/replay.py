"""The replay id: a hash of the normalized selected evidence, never of a timestamp."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from citewise.evidence.models import Fragment


def normalize_query(query: str) -> str:
    """NFKC, lowercase, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", query).lower().split())


def replay_id(
    query: str, revision: int, config: Mapping[str, Any], fragments: Iterable[Fragment]
) -> str:
    """sha256 over the canonical JSON of (normalized query, revision, config, evidence).

    Evidence is each fragment's citation id, role and the sha256 of its text, in pack
    order; the same corpus revision, question and configuration give the same id.
    """
    doc = {
        "query": normalize_query(query),
        "revision": revision,
        "config": config,
        "evidence": [
            [f.citation_id, f.role, hashlib.sha256(f.text.encode("utf-8")).hexdigest()]
            for f in fragments
        ],
    }
    canon = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "rp_" + hashlib.sha256(canon.encode("utf-8")).hexdigest()
