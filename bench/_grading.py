"""Pure grading helpers shared by the answer benchmarks (issue 15).

Nothing here touches the knowledge base or the shared data, so the grader is unit-tested
on hand-made answers (tests/test_bench_grader.py).

* :func:`grade` labels one answer: ``right`` / ``partial`` / ``miscited`` /
  ``wrong_abstention`` for answerable questions, ``correct_abstention`` / ``overreach``
  for the others.
* :func:`check_citation` checks a citation against the source text: the excerpt is the
  text at its character offsets, its sha256 is the excerpt's, and its line numbers are
  the lines of those offsets.
* :func:`squad_normalize` / :func:`gold_in_answer` follow the SQuAD evaluation script's
  normalisation (lowercase, no punctuation, no articles, single spaces).
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Label = Literal[
    "right", "partial", "miscited", "wrong_abstention", "correct_abstention", "overreach"
]
LABELS: tuple[Label, ...] = (
    "right",
    "partial",
    "miscited",
    "wrong_abstention",
    "correct_abstention",
    "overreach",
)

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class Location:
    """An expected (or cited) place: a file relative to the corpus root and 1-based lines."""

    file: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    corpus: str
    question: str
    answerable: bool
    profile: str = ""
    expected: tuple[Location, ...] = ()
    must_contain: tuple[str, ...] = ()
    any_of: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Grade:
    label: Label
    located: bool  # a citation overlaps an expected location
    missing: tuple[str, ...]  # must_contain items (or "any_of: ...") absent from the answer


#: Whitespace with a CJK character on either side: Chinese and Japanese text has no word
#: spaces, so a line break or a PDF's spacing inside a CJK phrase is not a word boundary.
_CJK = "\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_SPACE = re.compile(rf"(?<=[{_CJK}]) | (?=[{_CJK}])")


def normalise(text: str) -> str:
    """Lowercase, drop Markdown backticks, collapse whitespace; no space beside a CJK
    character (CJK text has no word spaces)."""
    return _CJK_SPACE.sub("", " ".join(text.replace("`", "").lower().split()))


def contains_phrase(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` after :func:`normalise`, not inside a longer word.

    A phrase that starts (ends) with a letter or digit must not be preceded (followed) by
    one, so ``"on"`` does not match inside ``"option"`` while ``"0.17.0"`` matches.
    """
    hay, needle = normalise(text), normalise(phrase)
    if not needle:
        return True
    left = r"(?<![0-9a-z_])" if needle[0].isalnum() else ""
    right = r"(?![0-9a-z_])" if needle[-1].isalnum() else ""
    return re.search(left + re.escape(needle) + right, hay) is not None


def overlaps(cited: Location, expected: Location) -> bool:
    return (
        cited.file == expected.file and cited.start <= expected.end and expected.start <= cited.end
    )


def grade(
    q: Question,
    outcome: str,
    answer: str,
    cited: Iterable[Location],
    contains: Callable[[str, str], bool] = contains_phrase,
) -> Grade:
    """Label one answer to ``q`` (see the module docstring for the labels); ``contains``
    tells whether a must_contain / any_of item is in the answer (a set with its own
    normalisation, such as SQuAD's, passes its own)."""
    answered = outcome == "answered"
    if not q.answerable:
        return Grade("overreach" if answered else "correct_abstention", False, ())
    if not answered:
        return Grade("wrong_abstention", False, ())
    located = any(overlaps(c, e) for c in cited for e in q.expected)
    missing = [m for m in q.must_contain if not contains(answer, m)]
    if q.any_of and not any(contains(answer, m) for m in q.any_of):
        missing.append("any_of: " + " | ".join(q.any_of))
    if not located:
        return Grade("miscited", False, tuple(missing))
    return Grade("partial" if missing else "right", True, tuple(missing))


def line_of(text: str, offset: int) -> int:
    """1-based line number of character ``offset`` (``\\r\\n``, ``\\r`` or ``\\n`` breaks)."""
    return 1 + len(_LINE_BREAK.findall(text, 0, offset))


@dataclass(frozen=True, slots=True)
class CitationCheck:
    exact: bool
    problem: str = ""


def check_citation(
    source: str,
    *,
    char_start: int,
    char_end: int,
    line_start: int,
    line_end: int,
    excerpt: str,
    sha256: str,
) -> CitationCheck:
    """Is the citation exactly the source's text at its offsets, hash and lines?"""
    if not 0 <= char_start <= char_end <= len(source):
        return CitationCheck(False, f"offsets {char_start}-{char_end} outside the file")
    if source[char_start:char_end] != excerpt:
        return CitationCheck(False, "excerpt differs from the file at its offsets")
    if hashlib.sha256(excerpt.encode("utf-8")).hexdigest() != sha256:
        return CitationCheck(False, "sha256 is not the excerpt's")
    first = line_of(source, char_start)
    last = first + len(_LINE_BREAK.findall(excerpt))
    if (line_start, line_end) != (first, last):
        return CitationCheck(
            False, f"lines {line_start}-{line_end} but the offsets are on {first}-{last}"
        )
    return CitationCheck(True)


def check_cited(source: str, cited: Any) -> CitationCheck:
    """:func:`check_citation` for one of the product's citations (its offsets, lines,
    excerpt and hash)."""
    return check_citation(
        source,
        char_start=cited.char_start,
        char_end=cited.char_end,
        line_start=cited.line_start,
        line_end=cited.line_end,
        excerpt=cited.excerpt,
        sha256=cited.sha256,
    )


def squad_normalize(text: str) -> str:
    """SQuAD's answer normalisation: lowercase, no punctuation, no a/an/the, one space."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def gold_in_answer(answer: str, golds: Sequence[str]) -> bool:
    """Does any gold answer text occur (normalised, on word boundaries) in ``answer``?"""
    hay = f" {squad_normalize(answer)} "
    return any(g and f" {g} " in hay for g in (squad_normalize(x) for x in golds))


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]
