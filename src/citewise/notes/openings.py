"""Sections that open by naming their subject (pure): the heading's term is a topic even
when only one document has that section.

Rule (class of text: a reference or guide section whose first sentence states what its
subject is or does, "## Cookies" / "Cookies are exposed as a regular dictionary
interface.", "## Exit Codes" / "When a command is executed ..., then an exit code is
returned.", "## HTTPEndpoint" / "The `HTTPEndpoint` class can be used as ..."): the first
prose piece (a sentence or list item) under a heading, in the heading's own section,
mentions the heading's term, in the plural or the singular. Such a sentence introduces its
subject; a section whose opening is about something else ("## Command Chaining" / "It is
useful to invoke more than one subcommand ...") is a how-to whose title names a task, not
a term a reader looks up. Left out: an opening that reads as an instruction ("Install from
PyPI:", the ``skip`` predicate the compiler passes), and a heading its document repeats
("### Added" under every release of a changelog, "### Answer" under every question of a
FAQ): a repeated title names a kind of section, not a subject. The opening is quoted as
the note's first line (detail :data:`OPENS`), with the next piece of that document that
mentions the term; a note kept only by this rule must still quote two lines besides
section titles (compile.py).

Chosen by reading the section openings of click, starlette and requests (the three docs
corpora with fewer than 50 notes); typer and laws-zh were not used to choose it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

from citewise.notes.extract import Piece, topic_key
from citewise.notes.mentions import mentions

#: The detail of the line that quotes a section's opening sentence.
OPENS = "opens its section"
_PROSE = ("sentence", "item")


def term_forms(key: str) -> tuple[str, ...]:
    """``key`` and, when its last word is an English plural, its singular ("exit codes" →
    "exit code", "proxies" → "proxy"); :func:`mentions` already finds the plural of a
    singular key."""
    if re.search(r"[^\x00-\x7f]", key):
        return (key,)
    if re.search(r"[a-z]ies$", key):
        return (key, key[:-3] + "y")
    if re.search(r"[a-z][^s]s$", key):
        return (key, key[:-1])
    return (key,)


def _opening(pieces: Sequence[Piece], at: int) -> int | None:
    """The index of the first prose piece of the section whose heading is ``pieces[at]``
    (None when the section has none before its first subsection or another document)."""
    heading = pieces[at]
    for j in range(at + 1, len(pieces)):
        p = pieces[j]
        if p.path != heading.path or p.heading_path != heading.heading_path:
            return None
        if p.kind in _PROSE:
            return j
    return None


def section_openings(
    pieces: Sequence[Piece], skip: Callable[[str], bool] | None = None
) -> dict[str, list[int]]:
    """By topic key, the indexes of section openings that name the section's heading (see
    the module docstring), in piece order; an opening for which ``skip`` holds is left
    out."""
    headings = [(i, p, topic_key(p.text)) for i, p in enumerate(pieces) if p.kind == "heading"]
    per_doc = Counter((p.path, key) for _, p, key in headings)
    out: dict[str, list[int]] = {}
    for i, p, key in headings:
        j = _opening(pieces, i)
        if j is None or not key or per_doc[(p.path, key)] > 1:
            continue
        if skip is not None and skip(pieces[j].text):
            continue
        if any(mentions(form, pieces[j].text) for form in term_forms(key)):
            out.setdefault(key, []).append(j)
    return out
