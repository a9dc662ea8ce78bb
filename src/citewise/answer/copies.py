"""Identical documents answer once: the note naming the other copies of a cited text.

The evidence pack keeps one of two documents whose stored text is identical (the same
sha256; :mod:`citewise.evidence.keep_top`) and remembers the pair. The answer cites the
kept copy once and says where else the same text is, instead of quoting one sentence
twice as [1] [2].
"""

from __future__ import annotations

from collections.abc import Iterable

from citewise.evidence.models import EvidencePack

__all__ = ["copies_note"]


def copies_note(pack: EvidencePack, cited_paths: Iterable[str]) -> str:
    """ "(The same text is in B.)" for each cited path with copies left out of the pack;
    empty when none."""
    cited = list(dict.fromkeys(cited_paths))
    notes = []
    for path in cited:
        others = [copy for kept, copy in pack.copies if kept == path and copy not in cited]
        if others:
            notes.append(f"(The same text is in {_names(others)}.)")
    return " ".join(notes)


def _names(paths: list[str]) -> str:
    if len(paths) == 1:
        return paths[0]
    return ", ".join(paths[:-1]) + " and " + paths[-1]
