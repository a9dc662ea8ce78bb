"""The words a Chinese question asks about, which the quoted unit must hold (issue 34).

The English constraint of :mod:`citewise.sufficiency.constraints` ("the relation asked
about: its rare content words, half of them at least, one rare one") read in Chinese
words. A unit that shares a Chinese question's common words but none of its distinctive
ones answers a neighbouring question: "留置时间不得超过三个月" for "责令候查最长不得超过多长
时间" (候查 is nowhere in it), "每年9月30日为烈士纪念日" for "烈士纪念日全国放假几天".

* the question's **content words** are jieba's (:func:`~citewise.analysis.zh_words.
  content_words`: no function words, interrogatives, asked categories), less any edition
  phrase (:func:`~citewise.analysis.zh_edition.without_edition`: the edition is scope);
* a word is **distinctive** when it is not common Chinese: below :data:`RELATION_ZIPF`
  on wordfreq's Chinese list (offline, in the wheel), and **rare** below :data:`RARE_ZIPF`
  (the same cuts as the English relation words, which are on the same Zipf scale);
* a unit **holds** a word when the word is written in the unit or its headings (exact
  characters, NFKC): a Chinese word is not inflected.

The unit must hold half the distinctive words and, when there are rare ones, one of
them. Thresholds: the English ones (chosen on SQuAD 2.0 and the docs sets), kept; the
Chinese reading was checked on laws-zh and the pool's CMRC sample (seed 34).

**Coverage.** The unit and its headings must also hold a share of *all* the question's
content words, common ones included (:data:`COVERAGE`, ``CITEWISE_ZH_COVERAGE``): a unit
holding the law's or the entity's name but not what is asked of it (最高 / 年龄 / 限制 for
a unit on the minimum age; 面积 / 标准 for a unit on the law's amendment) answers another
question. The Chinese threshold is its own (the English relation rule counts distinctive
words only): chosen on laws-zh and the pool's CMRC sample (seed 34), where every
overreaching unit held under half its question's words and every right CMRC answer half
or more.
"""

from __future__ import annotations

import logging
import os
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from citewise.analysis.zh_edition import without_edition
from citewise.analysis.zh_words import content_words
from citewise.errors import UsageError
from citewise.sufficiency.figures import Constraint

__all__ = [
    "COVERAGE",
    "COVERAGE_ENV",
    "PREFIX",
    "RARE_ZIPF",
    "RELATION_ZIPF",
    "coverage_min",
    "held_words",
    "words_constraint",
    "zh_zipf",
]

#: Chinese words below this Zipf frequency are distinctive ("候查" 2.9, "放假" 3.9,
#: "施行" 4.3); not "规定" 5.5 or "开始" 6.0. The English relation cut, kept.
RELATION_ZIPF = 4.6
#: Distinctive words below this are rare: a unit holds one of them when there are any.
RARE_ZIPF = 4.2
#: The key prefix of a Chinese words constraint (``unmet`` routes it here).
PREFIX = "zh-words:"
#: The share of a Chinese question's content words (two characters or more, common ones
#: included) its unit and headings must hold (see the module; laws-zh and CMRC seed 34).
COVERAGE = 0.5
COVERAGE_ENV = "CITEWISE_ZH_COVERAGE"
#: Key mark of a common content word: counted for :data:`COVERAGE` only.
_COMMON = "+"


def coverage_min() -> float:
    """:data:`COVERAGE`, or ``CITEWISE_ZH_COVERAGE`` when set (a number from 0 to 1; 0
    turns the coverage rule off); any other value is a :class:`UsageError` naming it."""
    raw = os.environ.get(COVERAGE_ENV, "").strip()
    if not raw:
        return COVERAGE
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise UsageError(
            f"{COVERAGE_ENV}={raw!r} is not a number between 0 and 1.",
            hint=f"Set {COVERAGE_ENV} to a number such as {COVERAGE} (the default), or unset it.",
        )
    return value


@lru_cache(maxsize=4096)
def zh_zipf(word: str) -> float:
    """How common ``word`` is in Chinese (Zipf scale; 0 for unknown words). wordfreq
    segments Chinese with its own jieba dictionary: jieba's logging is quieted first."""
    import jieba
    from wordfreq import zipf_frequency

    jieba.setLogLevel(logging.WARNING)

    return float(zipf_frequency(word, "zh", wordlist="small"))


def words_constraint(text: str) -> Constraint | None:
    """The content words of a Chinese question ``text`` as a ``words`` constraint: its
    distinctive words (rare ones marked ``!``) and its common ones (marked ``+``, for the
    coverage rule only); None when it has no content word of two characters."""
    words = list(dict.fromkeys(w for w in content_words(without_edition(text)) if len(w) >= 2))
    if not words:
        return None
    distinctive = [w for w in words if zh_zipf(w) < RELATION_ZIPF]
    keys = " ".join(_mark(w) + w for w in words)
    return Constraint("words", " ".join(distinctive or words), PREFIX + keys)


def _mark(word: str) -> str:
    zipf = zh_zipf(word)
    return "!" if zipf < RARE_ZIPF else "" if zipf < RELATION_ZIPF else _COMMON


def held_words(key: str, texts: Iterable[str], around: Iterable[str] = ()) -> bool:
    """Whether ``texts`` (a unit and its headings) hold half the distinctive words of a
    :func:`words_constraint` key, one of its rare ones when it has any, and, with the
    passage ``around`` it (its paragraph: "本鱼分布于…" is read after the sentence naming
    the fish), :func:`coverage_min` of all its words."""
    hay = unicodedata.normalize("NFKC", "\n".join(texts))
    wide = unicodedata.normalize("NFKC", "\n".join(around)) + "\n" + hay
    keys = key[len(PREFIX) :].split()
    every = [k.lstrip("!" + _COMMON) for k in keys]
    words = [k.lstrip("!") for k in keys if not k.startswith(_COMMON)]
    rare = [k[1:] for k in keys if k.startswith("!")]
    ok = 2 * sum(w in hay for w in words) >= len(words)
    ok = ok and sum(w in wide for w in every) >= coverage_min() * len(every)
    return ok and (not rare or any(w in hay for w in rare))
