"""The exact identifier route's query side: clause references named in a question.

A question that names a clause (``12 CFR 1002.4(b)``, ``§ 1002.4(b)(1)``, ``clause 4.2(a)``,
``Article 12``, ``第十二条``) is answered first by exact lookup over stored clause paths,
in the same notation the ingest stage writes (see :mod:`citewise.ingest.clauses`).
"""

from __future__ import annotations

import re

from citewise.ingest.clauses import chinese_to_int

_PARENS = r"(?:\([0-9A-Za-z]{1,5}\))*"
_SECTION = re.compile(rf"(?:§+\s*|\bCFR\s+)(\d+[a-z]?(?:\.\d+)+[a-z]?{_PARENS})")
_KEYWORD = re.compile(
    rf"\b(?:clause|section|sec\.|paragraph|para\.|rule)\s+(\d+(?:\.\d+)*{_PARENS})", re.I
)
_DOTTED = re.compile(rf"(?<![\w.])(\d+\.\d+\.\d+{_PARENS})(?![\w.])")
_ARTICLE = re.compile(r"\b(?:article|art\.)\s*(\d+)\b", re.I)
_CN_ARTICLE = re.compile(r"第([零〇一二两三四五六七八九十百千\d]+)条")


def clause_refs(query: str) -> list[str]:
    """Clause paths a query names, most specific first, without duplicates.

    Each reference is followed by its parents (``1002.4(b)(1)`` → ``1002.4(b)`` →
    ``1002.4``) so that a reference to an unnumbered sub-paragraph still finds its clause.
    """
    found: list[str] = []
    for pattern in (_SECTION, _KEYWORD, _DOTTED):
        for m in pattern.finditer(query):
            found.append(m.group(1))
    for m in _ARTICLE.finditer(query):
        found.append(f"Art.{int(m.group(1))}")
    for m in _CN_ARTICLE.finditer(query):
        raw = m.group(1)
        n = int(raw) if raw.isdigit() else chinese_to_int(raw)
        if n is not None:
            found.append(f"Art.{n}")
    out: list[str] = []
    for ref in found:
        for candidate in _with_parents(ref):
            if candidate not in out:
                out.append(candidate)
    return out


def _with_parents(ref: str) -> list[str]:
    chain = [ref]
    while chain[-1].endswith(")"):
        chain.append(chain[-1][: chain[-1].rindex("(")])
    return chain
