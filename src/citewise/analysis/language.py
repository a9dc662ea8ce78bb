"""The language a user reads citewise's own words in (issue 39): English or Chinese.

Only the wording of statuses, refusals, degradations and page labels follows it; quoted
document text is never translated. The default is the question's own script: a question
holding Han characters (and no kana or Hangul, whose readers are not served by a Chinese
catalogue) reads Chinese, every other question English. A caller overrides it with an
explicit choice (``--lang``, the ``lang`` argument) or an HTTP ``Accept-Language`` header.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from citewise.errors import UsageError

__all__ = ["LANGS", "Lang", "from_accept_language", "language_of", "parse_lang"]

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = get_args(Lang)

#: Han ideographs (CJK Unified Ideographs and Extension A, compatibility ideographs).
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: Kana and Hangul: a Japanese or Korean question is not read as Chinese.
_KANA_HANGUL = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uac00-\ud7af\u1100-\u11ff]")
#: One ``Accept-Language`` item: a language range and an optional quality value.
_RANGE = re.compile(
    r"^\s*([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*$"
)


def language_of(text: str) -> Lang:
    """The language of the question ``text``: ``zh`` when it holds a Han character and
    no kana or Hangul, else ``en``."""
    if text.isascii():
        return "en"
    return "zh" if _HAN.search(text) and not _KANA_HANGUL.search(text) else "en"


def parse_lang(value: str) -> Lang:
    """An explicit choice (``--lang``, an API's ``lang``): ``en`` or ``zh``, any case, a
    region or script suffix allowed (``zh-CN``, ``zh-Hans``, ``en_GB``); anything else is
    a :class:`UsageError` naming the values accepted."""
    head = value.strip().replace("_", "-").split("-", 1)[0].lower()
    if head in LANGS:
        return head
    raise UsageError(f"Unknown language {value!r}.", hint="Use 'en' (English) or 'zh' (Chinese).")


def from_accept_language(header: str | None) -> Lang | None:
    """The first supported language of an HTTP ``Accept-Language`` header by quality
    (ties keep the header's order), or None when it names none (or is absent or
    malformed: a header never makes a request fail)."""
    if not header:
        return None
    ranked: list[tuple[float, int, Lang]] = []
    for i, item in enumerate(header.split(",")[:32]):
        m = _RANGE.match(item)
        if m is None:
            continue
        head = m.group(1).split("-", 1)[0].lower()
        try:
            q = float(m.group(2)) if m.group(2) else 1.0
        except ValueError:
            continue
        if head in LANGS and 0.0 < q <= 1.0:
            ranked.append((-q, i, head))
    return min(ranked)[2] if ranked else None
