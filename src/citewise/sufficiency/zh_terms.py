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
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from citewise.analysis.zh_edition import without_edition
from citewise.analysis.zh_words import content_words
from citewise.sufficiency.figures import Constraint

__all__ = ["PREFIX", "RARE_ZIPF", "RELATION_ZIPF", "held_words", "words_constraint", "zh_zipf"]

#: Chinese words below this Zipf frequency are distinctive ("候查" 2.9, "放假" 3.9,
#: "施行" 4.3); not "规定" 5.5 or "开始" 6.0. The English relation cut, kept.
RELATION_ZIPF = 4.6
#: Distinctive words below this are rare: a unit holds one of them when there are any.
RARE_ZIPF = 4.2
#: The key prefix of a Chinese words constraint (``unmet`` routes it here).
PREFIX = "zh-words:"


@lru_cache(maxsize=4096)
def zh_zipf(word: str) -> float:
    """How common ``word`` is in Chinese (Zipf scale; 0 for unknown words). wordfreq
    segments Chinese with its own jieba dictionary: jieba's logging is quieted first."""
    import jieba
    from wordfreq import zipf_frequency

    jieba.setLogLevel(logging.WARNING)

    return float(zipf_frequency(word, "zh", wordlist="small"))


def words_constraint(text: str) -> Constraint | None:
    """The distinctive words of a Chinese question ``text`` as a ``words`` constraint
    (rare ones marked ``!``), or None when it has none."""
    words = list(dict.fromkeys(w for w in content_words(without_edition(text)) if len(w) >= 2))
    distinctive = [w for w in words if zh_zipf(w) < RELATION_ZIPF]
    if not distinctive:
        return None
    keys = " ".join(("!" if zh_zipf(w) < RARE_ZIPF else "") + w for w in distinctive)
    return Constraint("words", " ".join(distinctive), PREFIX + keys)


def held_words(key: str, texts: Iterable[str]) -> bool:
    """Whether ``texts`` (a unit and its headings) hold half the words of a
    :func:`words_constraint` key and one of its rare ones when it has any."""
    hay = unicodedata.normalize("NFKC", "\n".join(texts))
    keys = key[len(PREFIX) :].split()
    words = [k.lstrip("!") for k in keys]
    rare = [k[1:] for k in keys if k.startswith("!")]
    ok = 2 * sum(w in hay for w in words) >= len(words)
    return ok and (not rare or any(w in hay for w in rare))
