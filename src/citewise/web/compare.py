"""Text comparison of a knowledge-base clause with a web clause.

Both texts are normalised (markup and entities removed, Unicode NFKC, case folded, quotes,
dashes, soft hyphens and line-break hyphenation undone, footnote markers dropped, then
every run of punctuation and whitespace made one separator, except that a sentence or
clause end (``.`` ``;`` ``:`` ``?`` ``!`` and their CJK forms before a space or the end)
stays a token, so a quote that ends where the web sentence goes on does not match; CJK
text is compared character by character). The similarity is a Dice ratio over the aligned
window: the knowledge-base tokens are aligned with the web tokens (``difflib``, no junk
heuristic), and ``2 * matched / (kb tokens + tokens of the web window they align to)``.
A quote found word for word inside a longer web clause scores 1.0; a word inserted,
removed or changed inside it lowers the score.

:data:`MATCH_THRESHOLD` was measured (``bench/web_similarity.py``, docs/regulations.md)
on 1,438 clauses of real regulations: every formatting variant scores 1.0 after
normalisation, while a one-word amendment inside a long clause scores up to 0.998, so any
threshold below 1.0 would let some amendment pass. Matching therefore means "the quoted
words, normalised, appear unchanged"; the similarity is still reported for the record.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher

#: Measured; see the module docstring and docs/regulations.md, "Text comparison".
MATCH_THRESHOLD = 1.0

_TAG = re.compile(r"<[^>]{0,2000}>")
_FOOTNOTE = re.compile(r"\[\d{1,3}\]|[¹²³⁴⁵⁶⁷⁸⁹⁰]+")
_HYPHEN_BREAK = re.compile(r"(\w)-\s*\n\s*(\w)")
_TOKEN = re.compile(r"[^\W_]+|[.;:?!。；：？！](?=\s|$|[\u3400-\u9fff])")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")


@dataclass(frozen=True, slots=True)
class Comparison:
    similarity: float
    threshold: float
    matches: bool
    kb_tokens: int
    web_tokens: int
    #: Up to five differing passages: (knowledge base words, web words).
    differences: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "similarity": round(self.similarity, 4),
            "threshold": self.threshold,
            "matches": self.matches,
            "kb_tokens": self.kb_tokens,
            "web_tokens": self.web_tokens,
            "differences": [list(d) for d in self.differences],
        }


def tokens(text: str) -> list[str]:
    """The normalised tokens of ``text`` (see the module docstring)."""
    s = html.unescape(_TAG.sub(" ", text))
    s = unicodedata.normalize("NFKC", s.replace("\u00ad", ""))
    s = _FOOTNOTE.sub(" ", s)
    s = _HYPHEN_BREAK.sub(r"\1\2", s)
    out: list[str] = []
    for word in _TOKEN.findall(s.casefold()):
        if not word[0].isalnum():
            out.append(".")  # a sentence or clause end: "applicants." != "applicants or"
        elif _CJK.search(word):
            out.extend(_split_cjk(word))
        else:
            out.append(word)
    return out


def _split_cjk(word: str) -> list[str]:
    parts: list[str] = []
    run = ""
    for ch in word:
        if _CJK.match(ch):
            if run:
                parts.append(run)
                run = ""
            parts.append(ch)
        else:
            run += ch
    if run:
        parts.append(run)
    return parts


def normalise(text: str) -> str:
    return " ".join(tokens(text))


def contains(haystack: str, needle: str) -> bool:
    """Whether ``needle`` occurs in ``haystack`` after normalisation (snippet check)."""
    n = normalise(needle)
    return bool(n) and f" {n} " in f" {normalise(haystack)} "


def compare(kb_text: str, web_text: str, threshold: float = MATCH_THRESHOLD) -> Comparison:
    a, b = tokens(kb_text), tokens(web_text)
    if not a or not b:
        return Comparison(0.0, threshold, False, len(a), len(b))
    sm = SequenceMatcher(None, a, b, autojunk=False)
    blocks = [m for m in sm.get_matching_blocks() if m.size]
    if not blocks:
        return Comparison(0.0, threshold, False, len(a), len(b))
    matched = sum(m.size for m in blocks)
    lo, hi = blocks[0].b, blocks[-1].b + blocks[-1].size
    score = 2 * matched / (len(a) + (hi - lo))
    diffs = _differences(a, b[lo:hi])
    return Comparison(score, threshold, score >= threshold, len(a), len(b), diffs)


def _differences(a: list[str], b: list[str]) -> tuple[tuple[str, str], ...]:
    sm = SequenceMatcher(None, a, b, autojunk=False)
    out = [
        (" ".join(a[i1:i2]), " ".join(b[j1:j2]))
        for op, i1, i2, j1, j2 in sm.get_opcodes()
        if op != "equal"
    ]
    return tuple(out[:5])
