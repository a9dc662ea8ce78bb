"""A small token estimator and middle truncation (pure functions).

``estimate_tokens`` approximates what an LLM tokenizer would count, without a vocabulary:

* every run of non-CJK letters/digits (a "word") counts 1.3 tokens - English BPE
  vocabularies average about 1.3 tokens per word;
* every CJK character (Han, kana, Hangul) counts 1 token;
* other non-space symbols (punctuation, markup, operators) count 1 token per 3
  characters, so code and tables are not undercounted.

The sum is rounded up. It is an estimate, used only to keep packs under their caps.
"""

from __future__ import annotations

import math
import re

_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK = re.compile(f"[{_CJK_CLASS}]")
_WORD = re.compile(f"[^\\W_{_CJK_CLASS}]+")
_SYMBOL = re.compile(f"[^\\w\\s{_CJK_CLASS}]|_")

WORD_TOKENS = 1.3
SYMBOLS_PER_TOKEN = 3


def estimate_tokens(text: str) -> int:
    """Estimated LLM tokens of ``text`` (see the module docstring)."""
    if not text:
        return 0
    words = len(_WORD.findall(text))
    cjk = 0 if text.isascii() else len(_CJK.findall(text))
    symbols = len(_SYMBOL.findall(text))
    return math.ceil(words * WORD_TOKENS + cjk + symbols / SYMBOLS_PER_TOKEN)


def _snap_head(text: str, end: int) -> int:
    """Move a head cut back to a whitespace boundary if one is near."""
    floor = max(1, end - 40)
    for i in range(end, floor - 1, -1):
        if text[i - 1].isspace() or text[i - 1] in "。！？.!?;；":
            return i
    return end


def _snap_tail(text: str, start: int) -> int:
    """Move a tail cut forward to just after a whitespace boundary if one is near."""
    ceil = min(len(text) - 1, start + 40)
    for i in range(start, ceil + 1):
        if i > 0 and (text[i - 1].isspace() or text[i - 1] in "。！？.!?;；"):
            return i
    return start


def middle_cut(
    text: str, max_tokens: int, max_chars: int, marker_tokens: int = 2
) -> tuple[int, int] | None:
    """Where to cut ``text`` so that head + marker + tail fits both caps.

    Returns ``(head_end, tail_start)`` as offsets into ``text`` with
    ``0 < head_end < tail_start < len(text)`` (about 60% of the kept text is head),
    or None when ``text`` already fits (never cut) - callers check that first - or when
    the caps are too small to keep a meaningful head and tail (under 8 tokens).
    """
    n = len(text)
    if n < 4 or max_tokens < 8 + marker_tokens or max_chars < 16:
        return None

    def fits(keep: int) -> tuple[int, int] | None:
        h = max(1, int(keep * 0.6))
        t = max(1, keep - h)
        head_end = _snap_head(text, h)
        tail_start = _snap_tail(text, n - t)
        if not 0 < head_end < tail_start < n:
            return None
        kept = head_end + (n - tail_start)
        if kept > max_chars - 8:  # the marker's characters
            return None
        tok = estimate_tokens(text[:head_end]) + estimate_tokens(text[tail_start:])
        return (head_end, tail_start) if tok + marker_tokens <= max_tokens else None

    lo, hi, best = 2, min(n - 2, max_chars), None
    while lo <= hi:  # the largest kept length that fits
        mid = (lo + hi) // 2
        got = fits(mid)
        if got is not None:
            best, lo = got, mid + 1
        else:
            hi = mid - 1
    if best is None or estimate_tokens(text[: best[0]]) < 1:
        return None
    return best
