"""An answer quoted from a table must hold the row the question asks for.

A question that names a column and a row ("what is the <column> of <row>?") against a
table whose rows are all about other things: the table matches the question's column
words, so presence and relevance pass, yet no row is about the asked one. When every claim an
answer keeps is table content (rows, or a table / lead-in with its table, shown as
``a | b | c`` lines), none of the quoted data rows holds a key term of the question other
than the header's (the column words), and some key term of the question is in none of the
quoted text, the table does not have the asked row: the answer abstains and names the
words it could not find.
"""

from __future__ import annotations

from collections.abc import Sequence

from citewise.analysis.question import Question
from citewise.analysis.tokenize import tokenize

__all__ = ["absent_row", "asked_terms", "table_lines"]


def table_lines(text: str) -> tuple[list[str], list[str]]:
    """``(header, data)`` rows of one claim's text: lines shown as table cells; a claim of
    two or more such lines opens with its header row, a single one is a data row. A claim
    that quotes code has none (a pipe in a command is no cell border)."""
    if "```" in text or "~~~" in text:
        return [], []  # code ("cmd | grep", a shell pipe) is no table
    rows = [ln for ln in text.splitlines() if " | " in ln and not ln[:1].isspace()]
    if len(rows) >= 2:
        return rows[:1], rows[1:]
    return [], rows


def absent_row(asked: Sequence[tuple[str, str]], claims: Sequence[str]) -> tuple[str, ...]:
    """The question's words (``asked``: index token and the question's own word) that no
    quoted text holds, when ``claims`` are all table content and no quoted data row holds
    an asked token other than the header's (the column asked for); ``()`` otherwise."""
    if not claims or not asked:
        return ()
    header: list[str] = []
    data: list[str] = []
    for text in claims:
        head, rows = table_lines(text)
        if not rows:
            return ()  # a prose claim: the table is not the whole answer
        header.extend(head)
        data.extend(rows)
    in_header = set(tokenize(" ".join(header)))
    subject = [key for key, _ in asked if key not in in_header]  # not a column's words
    if not subject or any(key in set(tokenize(" ".join(data))) for key in subject):
        return ()  # a quoted row names what the question asks about
    quoted = set(tokenize(" ".join(claims)))
    return tuple(dict.fromkeys(word for key, word in asked if key not in quoted))


def asked_terms(question: Question) -> list[tuple[str, str]]:
    """``(token, word)`` of the question's key terms, in the question's own words."""
    words = {t: w for w in question.text.replace("?", " ").split() for t in tokenize(w)}
    return [(t, words.get(t, t)) for t in dict.fromkeys(question.key_terms)]
