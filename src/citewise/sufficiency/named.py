"""Which names a question relies on the knowledge base never mentions (the names
themselves are read once, by :func:`citewise.analysis.named.named_terms`).

A near-miss question ("How do I calibrate the Lumen X9 laser?" when only the S200 and
S800 are documented) names something the corpus does not hold; the ``subject_absent``
gate refuses it instead of answering about a neighbouring subject.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from citewise.analysis.tokenize import is_cjk_char

if TYPE_CHECKING:
    from citewise.context import StageContext


def absent_terms(
    kb: StageContext, terms: tuple[str, ...], principal: str | None = None
) -> tuple[str, ...]:
    """Named terms that occur nowhere ``principal`` may read (a near-miss question): a term
    only a hidden document holds is as absent as one no document holds."""
    index = kb.index
    index.sync()
    readable = index.readable(principal)
    allowed = None if len(readable) == len(index.chunks) else readable
    missing = []
    for t in terms:
        if any(is_cjk_char(ch) for ch in t):
            continue  # CJK bigrams are not index tokens on their own; coverage handles them
        if not index.lexical.search_tokens([t], k=1, allowed=allowed):
            missing.append(t)
    return tuple(missing)
