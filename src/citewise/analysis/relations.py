"""The relation vocabulary: what a diagram label, a front-matter type or a question's verb
means, as one of a small set of relation types with a direction.

Every relation type names its phrases once, in base form; inflections are read through the
Snowball stemmer the index already uses (:func:`citewise.analysis.tokenize.stems`), so
"requires", "required" and "requiring" all read as ``requires`` without a table of forms.
Direction is part of the meaning:

- a phrase of ``forward`` states ``X kind Y`` when written ``X phrase Y`` ("X requires Y");
- a phrase of ``inverse`` states ``Y kind X`` ("X follows Y" is "Y precedes X"; "X consists
  of Y" is "Y is part of X");
- a verb followed by ``by`` (the English passive) flips its phrase's direction: "X is
  succeeded by Y" is "Y replaces X", "X is followed by Y" is "X precedes Y";
- in Chinese, 被 or 由 before the verb does the same ("X被Y取代" is "Y replaces X").

``label_only`` phrases (adverbs such as "then", "before", "see") type a diagram label but are
too common in questions to mean that a question asks about the relation; ``wh_only`` types
(use, configure) ask a relation only as the verb of a what/which question, since "How do I
configure X?" asks for a procedure, not for what configures X.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from citewise.analysis.relation_types import BY_KIND, VOCABULARY, RelationKind, RelationType
from citewise.analysis.tokenize import stems


@dataclass(frozen=True, slots=True)
class Hit:
    """One vocabulary phrase found in a text: its type, whether it states the relation from
    the target's side (after the passive rule), whether it may type a question, and the
    character span of the phrase."""

    kind: RelationKind
    inverse: bool
    asked: bool
    start: int
    end: int
    #: the phrase's first word is the vocabulary word or an inflection of it ("requires",
    #: "required"), not a noun the stemmer folds into it ("requirement", "replacement")
    inflected: bool = True


_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
# The English passive: a verb followed by "by" (only between a verb and "by" may the
# auxiliary-free participle stand: "superseded by", "is followed by").
_PASSIVE_MARK = "by"
_ZH_PASSIVE = re.compile(r"[被由]")


@lru_cache(maxsize=1)
def _english() -> tuple[
    tuple[tuple[frozenset[str], ...], RelationKind, bool, bool, bool, str], ...
]:
    """(stems of each word, kind, inverse, asked, verb, first word) of every English
    phrase, longest first. The first word's stems are those of its regular inflections
    too, where the stemmer splits them ("reference" -> refer, "referenced" -> referenc)."""
    out: list[tuple[tuple[frozenset[str], ...], RelationKind, bool, bool, bool, str]] = []
    for t in VOCABULARY:
        groups = (
            (t.forward, False, True),
            (t.inverse, True, True),
            (t.label_only, False, False),
            (t.label_only_inverse, True, False),
        )
        for phrases, inverse, asked in groups:
            for p in phrases:
                first, *rest = p.split()
                words = (frozenset(stems(_regular(first))), *(frozenset({w}) for w in stems(rest)))
                verb = len(p.split()) == 1 or p.split()[-1] not in {"of", "to", "for", "in"}
                out.append((words, t.kind, inverse, asked, verb, p.split()[0]))
    out.sort(key=lambda e: -len(e[0]))
    return tuple(out)


@lru_cache(maxsize=1)
def _chinese() -> tuple[tuple[str, RelationKind, bool], ...]:
    out = [(w, t.kind, False) for t in VOCABULARY for w in t.zh]
    out += [(w, t.kind, True) for t in VOCABULARY for w in t.zh_inverse]
    return tuple(sorted(out, key=lambda e: -len(e[0])))


def _regular(word: str) -> list[str]:
    """``word`` and its regular English inflections (-s, -ed, -ing)."""
    if word.endswith("e"):
        return [word, word + "s", word + "d", word[:-1] + "ing"]
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return [word, word[:-1] + "ies", word[:-1] + "ied", word + "ing"]
    return [word, word + "s", word + "ed", word + "ing"]


#: What English adds to a word to inflect it (plural, third person, past, participle).
_ENDINGS = frozenset({"", "s", "es", "d", "ed", "ing", "ies", "ied"})


def _inflection(surface: str, word: str) -> bool:
    """Whether ``surface`` is ``word`` or an inflection of it ("requires", "relied",
    "dependencies"), not a derived word sharing its stem ("requirement")."""
    root = word[:-1] if word[-1:] in ("e", "y") and len(word) > 3 else word
    return surface.startswith(root) and surface[len(root) :].lstrip("e") in _ENDINGS


def _compound(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is joined to a neighbouring word by a hyphen."""
    return text[start - 1 : start] == "-" or text[end : end + 1] == "-"


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().replace("_", " ")


@lru_cache(maxsize=1 << 14)
def find_relations(text: str) -> tuple[Hit, ...]:
    """Every vocabulary phrase in ``text``, in text order (a longer phrase wins where two
    start at the same word), each with its direction after the passive rule."""
    t = normalise(text)
    spans = [m.span() for m in _WORD.finditer(t) if m.group().isascii()]
    words = stems([t[a:b] for a, b in spans])
    hits: list[Hit] = []
    i = 0
    while i < len(words):
        for phrase, kind, inverse, asked, verb, first in _english():
            n = len(phrase)
            if i + n > len(words) or any(
                w not in a for w, a in zip(words[i : i + n], phrase, strict=True)
            ):
                continue
            by = i + n < len(words) and words[i + n] == _PASSIVE_MARK and verb
            end = spans[i + n][1] if by else spans[i + n - 1][1]
            surface = t[spans[i][0] : spans[i][1]]
            if _compound(t, spans[i][0], end):
                break  # a hyphenated compound ("on-call", "follow-up") is no verb
            hits.append(
                Hit(kind, inverse != by, asked, spans[i][0], end, _inflection(surface, first))
            )
            i += n - 1
            break
        i += 1
    for word, kind, inverse in _chinese():
        for m in re.finditer(re.escape(word), t):
            if any(h.start <= m.start() < h.end for h in hits):
                continue  # inside a longer Chinese phrase already read
            passive = bool(_ZH_PASSIVE.search(t[max(0, m.start() - 12) : m.start()]))
            hits.append(Hit(kind, inverse != passive, True, m.start(), m.end()))
    return tuple(sorted(hits, key=lambda h: (h.start, -h.end)))


def label_relation(label: str) -> tuple[RelationKind, bool] | None:
    """``(kind, reversed)`` of a diagram label or relation type, ``None`` if it names no
    relation. A label may carry a condition before the verb ("on failure, causes"), so its
    comma-separated clauses are read from the last one back; in a clause the first phrase
    counts."""
    clauses = [c for c in re.split(r"[,;:，；：]", normalise(label)) if c.strip()]
    for clause in reversed(clauses):
        hits = find_relations(clause)
        if hits:
            return hits[0].kind, hits[0].inverse
    return None


def relation_name(kind: str, *, inverse: bool = False, chinese: bool = False) -> str:
    """How an answer says the relation, source first (``inverse``: target first)."""
    t = BY_KIND.get(kind)
    if t is None:
        return kind.replace("_", " ")
    if chinese:
        return t.zh_name
    return t.names[1 if inverse else 0]


__all__ = [
    "BY_KIND",
    "VOCABULARY",
    "Hit",
    "RelationKind",
    "RelationType",
    "find_relations",
    "label_relation",
    "relation_name",
]
