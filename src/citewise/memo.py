"""A bounded memo for pure functions of one short text (display cleaning, markup
stripping): an answer shows and checks the same sentences in several stages and again for
the next question on the same documents. Only for functions whose result depends on the
text alone and is immutable (a ``str``, ``bool`` or tuple)."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import TypeVar

R = TypeVar("R")

#: Texts up to this many characters are memoised, the last :data:`SIZE` of them per
#: function (a few MB); longer ones are computed each time.
MAX_CHARS = 2000
SIZE = 8192


def text_memo(fn: Callable[[str], R]) -> Callable[[str], R]:
    """``fn`` with its results for short texts kept (``__wrapped__`` is the plain ``fn``)."""
    cached = lru_cache(maxsize=SIZE)(fn)

    @wraps(fn)
    def call(text: str) -> R:
        return cached(text) if len(text) <= MAX_CHARS else fn(text)

    return call


__all__ = ["MAX_CHARS", "SIZE", "text_memo"]
