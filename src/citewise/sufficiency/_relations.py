"""Entity-valued facts: who won an event, who wrote or created a thing.

Two documents naming two different winners of the same event disagree exactly as two
documents giving two ports do, so these relations become :class:`Fact` objects with the
relation as the attribute and the named entity as the value:

=======================================  ===================================  ==========
sentence                                 subject                              value
=======================================  ===================================  ==========
``Team Red won the 2019 Lumen Cup.``     ``2019 lumen cup``  (winner)         team red
``The 2019 Lumen Cup was won by X.``     ``2019 lumen cup``  (winner)         x
``The winner of the 2019 Cup was X.``    ``2019 cup``        (winner)         x
``The Handbook was written by Ann Li.``  ``handbook``        (author)         ann li
``2019年灯杯的冠军是红队。``              ``2019年灯杯``       (winner)         红队
=======================================  ===================================  ==========

Entities are capitalised phrases (or a CJK run); anything vaguer is not a value. The
subject keeps the event's year, so the 2019 and 2020 winners never collide.
"""

from __future__ import annotations

import re

from citewise.evidence.sentences import Span
from citewise.sufficiency._model import Fact, Qualifiers

_ENTITY = r"(?:[A-Z][\w'&.-]*)(?:\s+(?:of\s+|de\s+|the\s+|&\s+)?[A-Z0-9][\w'&.-]*){0,5}"
_NAME = r"(?:\d{4}\s+)?[A-Z0-9][\w'-]*(?:\s+(?:of\s+(?:the\s+)?)?[A-Z0-9][\w'-]*){0,6}"
_PASSIVE_VERBS = {
    "won": "winner",
    "written": "author",
    "authored": "author",
    "created": "creator",
    "founded": "creator",
    "invented": "creator",
    "designed": "creator",
    "developed": "creator",
    "directed": "director",
}
_ACTIVE_WIN = re.compile(
    rf"(?P<ent>{_ENTITY})\s+(?:won|wins|has won|had won)\s+(?:the\s+)?(?P<subj>{_NAME})"
)
_PASSIVE = re.compile(
    rf"(?:[Tt]he\s+)?(?P<subj>{_NAME})\s+(?:was|were|is|has been)\s+"
    rf"(?P<verb>{'|'.join(_PASSIVE_VERBS)})\s+by\s+(?:the\s+)?(?P<ent>{_ENTITY})"
)
_WINNER_OF = re.compile(
    rf"\b(?:winner|champion)s?\s+of\s+(?:the\s+)?(?P<subj>{_NAME})\s+(?:was|is|were)\s+"
    rf"(?:the\s+)?(?P<ent>{_ENTITY})"
)
_CJK = r"[\u3400-\u9fff\w]"
_ZH_WINNER = re.compile(
    rf"(?P<subj>{_CJK}{{2,20}}?)的?(?:冠军|获胜者|得主)(?:是|为)(?P<ent>{_CJK}{{1,12}})"
    rf"|(?P<ent2>{_CJK}{{1,12}}?)(?:赢得了?|获得了?)(?P<subj2>{_CJK}{{2,20}}?)的?冠军"
)


_WORD = re.compile(r"\w+")
_WIN_WORDS = frozenset({"won", "wins"})
_WINNER_WORDS = frozenset({"winner", "winners", "champion", "champions"})


def _norm(phrase: str) -> str:
    return " ".join(phrase.lower().split()).strip(" .,;:")


def relations_in(s: str) -> list[tuple[str, str, int, int]]:
    """(subject, attribute, value start, value end) of each relation pattern's match in
    ``s``; a pattern runs only when ``s`` holds its verb or noun as a whole word."""
    found: list[tuple[str, str, int, int]] = []
    runs = set(_WORD.findall(s))
    if "by" in runs and not runs.isdisjoint(_PASSIVE_VERBS):
        for m in _PASSIVE.finditer(s):
            found.append((m.group("subj"), _PASSIVE_VERBS[m.group("verb")], *m.span("ent")))
    for pat, cue in ((_ACTIVE_WIN, _WIN_WORDS), (_WINNER_OF, _WINNER_WORDS)):
        if runs.isdisjoint(cue) or (pat is _WINNER_OF and "of" not in runs):
            continue
        for m in pat.finditer(s):
            found.append((m.group("subj"), "winner", *m.span("ent")))
    if not s.isascii():
        for m in _ZH_WINNER.finditer(s):
            ent = "ent" if m.group("ent") else "ent2"
            subj = m.group("subj") or m.group("subj2")
            found.append((subj, "winner", *m.span(ent)))
    return found


def relation_facts(
    span: Span, base: Qualifiers, doc_path: str, heading: tuple[str, ...]
) -> list[Fact]:
    """Entity-valued facts of one sentence (see the module docstring)."""
    s = span.text
    facts: list[Fact] = []
    seen: set[tuple[str, str]] = set()
    for subject, attribute, a, b in relations_in(s):
        value = _norm(s[a:b])
        key = (_norm(subject), attribute)
        if not value or not key[0] or key in seen or value == key[0]:
            continue
        seen.add(key)
        facts.append(
            Fact(
                subject=key[0],
                attribute=attribute,
                value=value,
                raw_value=s[a:b],
                start=span.start,
                end=span.end,
                text=s,
                value_start=span.start + a,
                value_end=span.start + b,
                qualifiers=base,
                doc_path=doc_path,
                heading_path=heading,
            )
        )
    return facts
