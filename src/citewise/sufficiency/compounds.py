"""Sibling compounds: a question about "the process pool" answered with text about "the
thread pool".

Documentation names its things with two-word compounds ("thread pool", "help page",
"background task"), and a near-miss question names a sibling the documents never speak of
("process pool", "man page"). Every word of it is in the knowledge base, and the cited
text holds the head noun, so term presence alone lets the answer through. The sign is in
the cited text: wherever it uses the head noun, the same other modifier stands before it,
and the question's own modifier appears nowhere in it.

:func:`sibling_compound` finds such a pair among the question's adjacent content words.
A modifier is a content word: not a function word, quantifier or ordinal ("a", "several",
"single", "other"), so "a response" or "multiple background tasks" never counts as a
sibling of "single response" or "several background tasks".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from citewise.analysis.question import Question
from citewise.analysis.tokenize import LUCENE_ENGLISH_STOPWORDS, QUESTION_STEMS, tokenize

__all__ = ["Sibling", "sibling_compound"]

#: Words that qualify a noun without naming a kind of it.
_NOT_MODIFIERS = frozenset(
    (  # noqa: SIM905 - a readable list
        "a an the this that these those my your our their its his her some any all each "
        "every no none both either neither several many much more most few fewer less least "
        "single multiple one two three first second last next previous other another same "
        "different own certain various whole only main new old given specific particular "
        "such what which whose how why when where who whom i we you he she it they me us "
        "them do does did is are was were be been being have has had can could should would "
        "will shall may might must not from into onto with without within for of on in at "
        "by to as per via than then so if or and but default"
    ).split()
)
#: The cited text names the sibling at least this often (a heading counts): a compound
#: met once may be a passing phrase ("the flag value"), not the thing the text is about.
MIN_USES = 2
#: Words after which the next two words form a noun phrase.
_DETERMINERS = frozenset(
    (  # noqa: SIM905 - a readable list
        "a an the this that these those my your our their its his her each every some any "
        "no which what whose default"
    ).split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*(?:'s|’s)?")


@dataclass(frozen=True, slots=True)
class Sibling:
    asked: str  # "process pool", the question's words
    cited: str  # "thread pool", as the cited text says it


def _stem(word: str) -> str:
    toks = tokenize(re.sub(r"(?:'s|’s)$", "", word), literals=False)
    return toks[0] if len(toks) == 1 else ""


def _content(word: str) -> bool:
    w = re.sub(r"(?:'s|’s)$", "", word.lower())
    return (
        w.isalpha()
        and len(w) >= 3
        and w not in _NOT_MODIFIERS
        and w not in LUCENE_ENGLISH_STOPWORDS
        and bool(_stem(w))
        and _stem(w) not in QUESTION_STEMS
    )


def _words(text: str) -> list[str]:
    """Word tokens in order; a sentence or clause break (punctuation other than a
    backtick, quote or apostrophe) is an empty string, so no pair spans it."""
    out: list[str] = []
    pos = 0
    clean = text.replace("`", "").replace("*", "")
    for m in _WORD.finditer(clean):
        if re.search(r"[^\s\"'“”‘’]", clean[pos : m.start()]):
            out.append("")
        out.append(m.group(0))
        pos = m.end()
    return out


def sibling_compound(question: Question, cited: Iterable[str]) -> Sibling | None:
    """The first adjacent pair "X Y" of the question (both content words, X a modifier
    right after a determiner or a possessive) whose head Y the ``cited`` texts use only
    as "Z Y", one and the same content word Z other than X, at least :data:`MIN_USES`
    times, while X itself (or a word of its family) is nowhere in them; None when there
    is no such pair."""
    texts = list(cited)
    seq = _words(" \n ".join(texts))
    stems = [(_stem(w) if w else "") for w in seq]
    held = set(stems)
    qwords = _words(question.text)
    for k in range(1, len(qwords) - 1):
        w, x, y = qwords[k - 1], qwords[k], qwords[k + 1]
        if not (x and y and _content(x) and _content(y)) or y[:1].isupper():
            continue
        if not _opens_noun_phrase(w):
            continue  # "do I keep part of ...": a verb and its object, not a compound
        xs, ys = _stem(x), _stem(y)
        if ys not in held or any(_kin(xs, s) for s in held if s):
            continue
        before = [
            stems[i - 1] if i > 0 and seq[i - 1] and _content(seq[i - 1]) else ""
            for i, s in enumerate(stems)
            if s == ys
        ]
        if len(set(before)) == 1 and before[0] and len(before) >= MIN_USES:
            z = next(i for i, s in enumerate(stems) if s == ys)
            return Sibling(f"{x} {y}", f"{seq[z - 1]} {seq[z]}".lower())
    return None


def _opens_noun_phrase(word: str) -> bool:
    """Whether the word before a modifier starts a noun phrase: a determiner, a possessive
    ("Starlette's"), or a quantifier ("the default thread pool" too)."""
    w = word.lower()
    return w.endswith(("'s", "’s")) or w in _DETERMINERS


def _kin(a: str, b: str) -> bool:
    """Stems of one word family ("environ" and "environment"): one begins the other."""
    short, long_ = sorted((a, b), key=len)
    return (len(short) >= 4 and long_.startswith(short)) or a == b
