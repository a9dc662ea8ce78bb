"""Which section of a document a how-to answer quotes (answer/profiles.py): the section
where several units answer together (:func:`best_section`), and the code example a
subsection shows when the section itself only says what to do (:func:`subsection_example`).
"""

from __future__ import annotations

import re

from citewise.answer.candidate import Candidate

__all__ = ["SECTION_UNITS", "best_section", "subsection_example"]

#: A code block that shows a session's output (a console run), not code to write.
_OUTPUT_BLOCK = re.compile(r"```(?:console|shell-session|pycon|text|output)\b")


def subsection_example(same_doc: list[Candidate], here: str, first: int) -> list[Candidate]:
    """The first code example after ``first`` in a subsection of section ``here`` (a
    section that says what to do in its lead and shows how in "### Generate docs with
    the command"), before any unit of a section at ``here``'s level or above; with the
    code block right after it in the same subsection when that one answers the question
    better (an example in two files: the program, then its test for "how do I test"; not
    two console runs)."""
    level = next((c.depth for c in same_doc if c.section == here and c.depth), 0)
    if not level:
        return []
    after = sorted((c for c in same_doc if c.span.start > first), key=lambda c: c.span.start)
    for i, c in enumerate(after):
        if c.section != here and 0 < c.depth <= level:
            return []  # the section has ended
        if c.kind == "code" and c.depth > level:
            nxt = next((d for d in after[i + 1 :] if d.span.start >= c.span.end), None)
            if nxt is not None and nxt.kind == "code" and nxt.section == c.section:
                files = not (_OUTPUT_BLOCK.match(c.clean) or _OUTPUT_BLOCK.match(nxt.clean))
                return [c, nxt] if files and nxt.score > c.score else [c]
            return [c]
    return []


#: A how-to's prose section is chosen by the summed scores of its best units, at most
#: this many (not overlapping one another).
SECTION_UNITS = 3


def best_section(pool: list[Candidate]) -> tuple[str, tuple[str, ...]]:
    """The (document, heading path) whose best :data:`SECTION_UNITS` units (none inside
    another) score highest together: a section where several units answer beats one
    sentence elsewhere that shares the question's words (ties: the section of the better
    single unit, then the earlier one in ``pool``)."""
    groups: dict[tuple[str, tuple[str, ...]], list[Candidate]] = {}
    for c in pool:  # best first
        groups.setdefault((c.fragment.doc_id, c.fragment.heading_path), []).append(c)
    order = {key: i for i, key in enumerate(groups)}

    def value(units: list[Candidate]) -> float:
        taken: list[Candidate] = []
        for c in units:
            if not any(c.span.start < t.span.end and t.span.start < c.span.end for t in taken):
                taken.append(c)
            if len(taken) == SECTION_UNITS:
                break
        return sum(c.score for c in taken)

    return max(groups, key=lambda k: (value(groups[k]), groups[k][0].score, -order[k]))
