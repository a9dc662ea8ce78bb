"""The action a how-to asks about and whether the evidence's procedures do it: the verb of
"how do I <verb> <object>" (:func:`action_term`), whether that verb is generic
(:func:`generic_action`), how many asked terms one passage holds together
(:func:`cohesion`), and a how-to answered by another task's numbered steps
(:func:`procedure_mismatch`). Read by the sufficiency gates (:mod:`.gates`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from citewise.analysis.intent import Intent
from citewise.analysis.tokenize import term_coverage, tokenize
from citewise.evidence.models import Fragment
from citewise.sufficiency.models import Reason
from citewise.sufficiency.presence import FILLER, GENERIC_ZIPF, english_zipf

__all__ = ["action_term", "cohesion", "generic_action", "procedure_mismatch"]

_NUMBERED = re.compile(r"^\s*(?:\d{1,3}[.)]|step\s+\d+)\s", re.M | re.I)
#: The English how-to cues whose next word is the action asked about ("how do I <verb> ...").
_HOW_CUE = re.compile(r"^how (?:do|can|should|would|could|to|does one)$")


def action_term(intent: Intent) -> str | None:
    """The verb of an English "how do I <verb> <object>" question: its first subject term."""
    if intent.kind != "how_to" or not _HOW_CUE.match(intent.cue) or len(intent.subject_terms) < 2:
        return None
    term = intent.subject_terms[0]
    return term if term.isascii() and term.isalpha() else None


def generic_action(intent: Intent) -> bool:
    """Whether a how-to's verb is a generic one ("send", "check", "configure"): steps that
    do the task need not use the word."""
    word = intent.subject.split()[0] if intent.subject else ""
    return bool(word) and (english_zipf(word) >= GENERIC_ZIPF or action_term(intent) in FILLER)


def cohesion(terms: Sequence[str], frags: Sequence[Fragment]) -> int:
    """The most of ``terms`` (index tokens) that one fragment holds (its text and its
    heading path).

    Terms scattered one per passage ("rotate" in one, "token" in another) are not evidence
    about the subject they name together; the subject gate alone counts them anywhere.
    """
    best = 0
    wanted = set(terms)
    for f in frags:
        held = set(tokenize(f.text)) | set(tokenize(" ".join(f.heading_path)))
        best = max(best, len(wanted & held))
    return best


def procedure_mismatch(intent: Intent, fragments: Sequence[Fragment]) -> Reason | None:
    """A how-to whose numbered steps never name the action asked about (neither in a step
    nor in the steps' headings), while no section of the steps' documents in the evidence is
    headed by it either, would be answered with another task's procedure: the reason, or
    None. A section headed by the action ("Verify") may answer in prose; evidence without
    numbered steps is left to the other gates."""
    action = action_term(intent)
    steps = [f for f in fragments if _NUMBERED.search(f.text)]
    if action is None or not steps or cohesion((action,), steps) > 0 or generic_action(intent):
        return None
    docs = {f.doc_id for f in steps}
    headed = term_coverage(
        action, [" ".join(f.heading_path) for f in fragments if f.doc_id in docs]
    )
    if headed.matched:
        return None
    return Reason(
        "action_absent", f"the steps found are for another task, not '{action}'", (action,)
    )
