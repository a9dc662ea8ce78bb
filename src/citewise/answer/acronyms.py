"""Acronyms a document defines, read both ways (issue 34, surface variants).

A document that writes "Cloud service providers (CSPs) host ..." once and "CSPs must
report ..." afterwards says the same thing under two names: a question asking about
"cloud service providers" is answered by the second sentence, and one asking about
"CSPs" by a sentence that spells the long form out. :func:`definitions` reads the
definitions of the form "Long Form (LF)" (also with a plural "LFs" and quoted "(“LF”)")
from a text, keeping of the words before the parenthesis those whose initials spell the
acronym; :func:`aliases` gives, for a unit, the other name of each defined term it uses.
No word list: the pairs come from the documents themselves.
"""

from __future__ import annotations

import re

__all__ = ["aliases", "definitions"]

#: "(CSPs)", "(“WQPA”)", "(SaaS)": an acronym of two to ten letters (upper case, with
#: lower-case letters inside or a plural "s") in a parenthesis of its own.
_DEFINED = re.compile(r"\(\s*[\"“]?(?P<ac>[A-Z][A-Za-z]{0,8}[A-Z][0-9]*s?)[\"”]?\s*\)")
#: The words a definition's long form may take (letters, hyphens, apostrophes).
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
#: Longest long form read, in words.
MAX_WORDS = 10


def definitions(text: str) -> list[tuple[str, str]]:
    """The (acronym, long form) pairs ``text`` defines: the words right before each
    "(LF)" whose initials (or the initials of their hyphenated parts) spell the acronym's
    capitals; a parenthesis no such words precede defines nothing."""
    out: list[tuple[str, str]] = []
    for m in _DEFINED.finditer(text):
        acronym = m.group("ac")
        letters = "".join(ch for ch in acronym if ch.isupper())
        before = _WORD.findall(text[max(0, m.start() - 120) : m.start()])[-MAX_WORDS:]
        long_form = _spelled(before, letters)
        if long_form:
            out.append((acronym, long_form))
    return list(dict.fromkeys(out))


def _spelled(words: list[str], letters: str) -> str:
    """The shortest tail of ``words`` whose initials spell ``letters`` (small function
    words such as "of" and "and" may be skipped), or ""."""
    for start in range(len(words) - 1, -1, -1):
        tail = words[start:]
        initials = "".join(w[0].upper() for w in tail if not _minor(w) or w[0].isupper())
        if initials == letters.upper():
            return " ".join(tail)
        parts = "".join(p[0].upper() for w in tail for p in w.split("-") if p and not _minor(p))
        if parts == letters.upper():
            return " ".join(tail)
    return ""


def _minor(word: str) -> bool:
    return word.lower() in ("of", "and", "for", "the", "to", "in", "on", "a", "an", "&")


def aliases(text: str, defined: list[tuple[str, str]]) -> list[str]:
    """The other name of each ``defined`` term ``text`` uses: the long form of an acronym
    it writes ("CSPs" -> "Cloud service providers"), the acronym of a long form it spells
    out (case and hyphens aside)."""
    if not defined:
        return []
    flat = _flat(text)
    out: list[str] = []
    for acronym, long_form in defined:
        singular = acronym[:-1] if acronym.endswith("s") else acronym
        if re.search(rf"\b{re.escape(singular)}s?\b", text):
            out.append(long_form)
        elif _flat(long_form) in flat:
            out.append(acronym)
    return out


def _flat(text: str) -> str:
    """``text`` in lower case with hyphens and runs of spaces as one space: "Work
    in-process" and "work-in-process" read alike."""
    return " ".join(re.sub(r"[-‐‑–]", " ", text.lower()).split())
