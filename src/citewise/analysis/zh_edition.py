"""Editions named in a Chinese question (issue 34): "1996年那一版", "2024年修订", "修正前",
"现行". Such a phrase says *which text* to read, not what the text must say: the year of
"1996年那一版" sits in the edition's file name or preamble, never in the article asked
about, so the question-side readers (key terms, subject, figures) leave it out
(:func:`without_edition`) and recall holds the question to that edition
(:mod:`citewise.recall.zh_laws`).

The phrases are a class: a four-digit year followed by an edition noun (版, 版本, 文本) or
an enactment verb (修订, 修正, 修改, 通过), with the demonstratives and measure words
between (那一版, 这次修订), or a year with 的 before a law's name (2006年的监督法);
"before the amendment" (修订前, 修正前, 旧版); and the text in force (现行, 最新, 目前,
当前). Chosen on the laws-zh development questions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["EditionAsk", "edition_asked", "without_edition"]

_YEAR_EDITION = re.compile(
    r"(\d{4})\s*年(?:的|那|这)?(?:一|次)?(?:版本?|次?修[订正改](?:的|后|版本?|文本)*|"
    r"通过的?(?:版本?|文本)?|文本)(?:中|里|时)?"
    # "2006年的监督法": a year, 的, then a law's name (a statute, regulation, rules, measures)
    r"|(\d{4})\s*年的(?=[\u4e00-\u9fff]{1,24}?(?:法|条例|规则|办法))"
)
_BEFORE = re.compile(
    r"修[订正改](?:前|以前|之前)(?:的)?(?:版本?|文本)?|旧版|原版|原来的?版本|早期版本"
)
_CURRENT = re.compile(r"现行(?:有效)?(?:的)?(?:版本?|文本)?|最新(?:的)?(?:版本?|文本)|目前有效")


@dataclass(frozen=True, slots=True)
class EditionAsk:
    """The edition a question names: ``kind`` "year" (with ``year``), "before" or
    "current"; ``stated`` is whether the question said so (else "current" by default);
    ``event``: the year names an edition or an enactment step of that year ("2021年修正的",
    "1996年那一版"), not only the text in force then ("2006年的监督法")."""

    kind: Literal["year", "before", "current"]
    year: int | None = None
    stated: bool = False
    event: bool = False


def edition_asked(text: str) -> EditionAsk:
    """The edition ``text`` names (see the module); the text in force by default."""
    m = _YEAR_EDITION.search(text)
    if m:
        return EditionAsk("year", int(m.group(1) or m.group(2)), True, m.group(1) is not None)
    if _BEFORE.search(text):
        return EditionAsk("before", None, True)
    return EditionAsk("current", None, _CURRENT.search(text) is not None)


def without_edition(text: str) -> str:
    """``text`` with its edition phrases blanked (a space each), or as it was."""
    if text.isascii():
        return text
    for pattern in (_YEAR_EDITION, _BEFORE, _CURRENT):
        text = pattern.sub(" ", text)
    return text
