"""Chinese words of a question (issue 34): jieba segmentation for the question side only.

The index keeps its CJK unigrams and bigrams (:mod:`citewise.analysis.tokenize`); what a
question *asks about* is read in words: "国歌法从什么时候开始施行" is 国歌 / 法 / 从 / 什么 /
时候 / 开始 / 施行, not the bigrams 法从, 从什, 么时 that cross word boundaries. A word is
a content word unless it is

* a **function word** by jieba's part-of-speech tag: pronouns ``r`` (什么, 谁, 哪里, 本…
  pronouns never name a subject), particles ``u*`` / ``y`` (的, 了, 吗), prepositions
  ``p``, conjunctions ``c``, interjections ``e``, onomatopoeia ``o``;
* an **interrogative** (:data:`INTERROGATIVE`): a word opening with a question morpheme
  (哪…, 几…, 第几…, 多少, 多长…, 何…, 是否, 是不是 …), whatever jieba tags it (多长时间 is
  tagged a noun, 哪几个 an idiom, 第几条 a numeral);
* the **asked category** right after an interrogative determiner (什么 *时候*, 哪一 *年*,
  什么 *处罚*): it names the type of the answer, which the evidence states as a value,
  not as that word (the analogue of "which *year*");
* a single character (it matches almost any Chinese text), unless it is the only
  content the text has.

Segmentation uses jieba's dictionary only (``HMM=False``): deterministic, and an unknown
run splits into characters instead of an invented word. jieba is imported and its
dictionary loaded lazily, once, quietly; its cache file is set explicitly in the
system's temporary directory (never beside the sources or in the user's home).
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jieba

__all__ = [
    "INTERROGATIVE",
    "content_words",
    "is_function_word",
    "segment",
    "subject_form",
    "word_bigrams",
    "word_of",
    "word_tag",
]

#: Han characters (the runs jieba segments; other text is left to the English tokenizer).
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
#: Interrogative words and particles, as a class: a word *opening* with a question
#: morpheme (哪, 几, 第几, 多少, 多长/多久/多大/多高/多远/多重/多深/多宽/多宽, 何, 什么, 怎,
#: 谁, 为何, 是否/能否/可否/是不是/有没有) or a sentence-final question particle.
INTERROGATIVE = re.compile(
    r"^(?:哪|几|第几|多少|多长|多久|多大|多高|多远|多重|多深|多宽|多老|何|什么|甚么|怎|谁|"
    r"为何|为什么|是否|能否|可否|是不是|有没有|能不能|会不会|请问)|^(?:吗|呢|吧|么|啊|呀)$"
)
#: jieba part-of-speech tags of function words: pronoun, particles, preposition,
#: conjunction, interjection, onomatopoeia, punctuation.
_FUNCTION_TAGS = frozenset({"r", "u", "uj", "ul", "uz", "ud", "ug", "uv", "y", "p", "c", "e", "o"})
#: Tags of a word that can name the asked category after an interrogative (nouns,
#: measure words, time words): 什么*时候*, 哪*年*, 哪一*版*.
_CATEGORY_TAGS = ("n", "q", "t", "m")

_LOCK = threading.Lock()
_STATE: dict[str, object] = {}


def _tokenizer() -> jieba.Tokenizer:
    """jieba's tokenizer, its dictionary loaded once (thread-safe), logging silenced and
    the cache file placed in the temporary directory."""
    tok = _STATE.get("tok")
    if tok is None:
        with _LOCK:
            tok = _STATE.get("tok")
            if tok is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                new = jieba.Tokenizer()
                uid = os.getuid() if hasattr(os, "getuid") else 0
                new.cache_file = os.path.join(tempfile.gettempdir(), f"citewise-jieba-{uid}.cache")
                new.initialize()
                _STATE["tok"] = tok = new
    return tok


@lru_cache(maxsize=1)
def _tags() -> dict[str, str]:
    """Word -> part-of-speech tag from jieba's own dictionary (no HMM tagging)."""
    import jieba.posseg

    return dict(jieba.posseg.dt.word_tag_tab)


@lru_cache(maxsize=4096)
def _segment_run(run: str) -> tuple[str, ...]:
    return tuple(_tokenizer().lcut(run, HMM=False))


def segment(text: str) -> list[str]:
    """The words of every Han run of ``text``, in order (other characters are skipped)."""
    out: list[str] = []
    for run in _HAN.findall(text):
        out.extend(_segment_run(run))
    return out


def word_tag(word: str) -> str:
    """jieba's dictionary part-of-speech tag of ``word`` ("" when it has none)."""
    return _tags().get(word, "")


def is_function_word(word: str) -> bool:
    """A pronoun, particle, preposition, conjunction or interrogative (see the module)."""
    return INTERROGATIVE.search(word) is not None or _tags().get(word, "") in _FUNCTION_TAGS


#: Interrogative determiners: an interrogative that a category noun can follow
#: (什么*时候*, 哪一*年*, 几*年*, 多少*人*, 何种*方式*); not 谁, 是否 or a particle.
_DETERMINER = re.compile(r"^(?:什么|甚么|何种|何等|哪|第?几|多少|多[长久大高远重深宽])")


def _is_category(word: str, after: str) -> bool:
    """``word`` names the asked category: a noun, measure or time word right after an
    interrogative determiner (:data:`_DETERMINER`)."""
    return _DETERMINER.search(after) is not None and _tags().get(word, "n").startswith(
        _CATEGORY_TAGS
    )


def _marked(text: str, extra: Callable[[str], bool] | None = None) -> list[tuple[str, bool]]:
    """Each word of ``text``'s Han runs with whether it is content (lone characters
    included); a run boundary is marked as a dropped empty word. ``extra`` drops more."""
    out: list[tuple[str, bool]] = []
    for run in _HAN.findall(text):
        prev = ""
        for word in _segment_run(run):
            drop = is_function_word(word) or (bool(prev) and _is_category(word, prev))
            drop = drop or (extra is not None and extra(word))
            # "哪一个机关": 哪 / 一 / 个 / 机关: a numeral between determiner and category
            prev = prev if word in ("一", "个") and _DETERMINER.search(prev) else word
            out.append((word, not drop))
        out.append(("", False))
    return out


def content_words(text: str) -> list[str]:
    """The content words of ``text``'s Han runs, in order, repeats kept (see the module:
    no function words, interrogatives or asked categories; lone characters only when
    the text has no longer content word: then the first)."""
    kept = _joined(_marked(text))
    return [w for w in kept if len(w) >= 2] or kept[:1]


#: jieba tags of a single character that is part of a name the dictionary lacks (a noun
#: or name morpheme, an abbreviation, or no tag at all): 雨 / 侨, 石山 / 麟, 国歌 / 法.
_NOMINAL = ("n", "j")


def _nominal(word: str) -> bool:
    tag = word_tag(word)
    return len(word) == 1 and (tag == "" or tag.startswith(_NOMINAL))


def _noun(word: str) -> bool:
    return word_tag(word).startswith(_NOMINAL)


def _joined(marked: list[tuple[str, bool]]) -> list[str]:
    """The content words of ``marked``, a noun or name character joined to the content
    word it touches (the one before it unless that is a verb, as 是 in 是/参; else a noun
    after it): the dictionary does not know most personal names, rare compounds and short
    law titles, which it splits into characters that alone are no evidence."""
    out: list[str] = []
    touching = False  # the last word kept is right before this one
    lone = False  # ... and it is a lone noun character waiting for its neighbour
    for word, ok in marked:
        if not ok:
            touching = lone = False
            continue
        after_verb = word_tag(out[-1]) == "v" if out else False  # a verb, not "vn" (监察)
        if touching and not after_verb and (_nominal(word) or (lone and _noun(word))):
            out[-1] += word
            lone = False
        else:
            out.append(word)
            lone = _nominal(word)
        touching = True
    return out


def subject_form(text: str, extra: Callable[[str], bool] | None = None) -> str:
    """``text`` with each Chinese word that is no content word (or that ``extra`` drops)
    replaced by a space, the rest as written: the readable subject ("什么是同步重试" ->
    "同步重试"); text around the Han runs is kept as it stands (an identifier glued to
    Chinese stays glued, as the index reads it)."""
    marked = iter(_marked(text, extra))
    out: list[str] = []
    pos = 0
    for m in _HAN.finditer(text):
        out.append(text[pos : m.start()])
        for word, ok in marked:
            if not word:
                break  # the end of this run
            out.append(word if ok else " ")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def word_bigrams(word: str) -> list[str]:
    """The index tokens a word is found by: itself when one or two characters, else its
    own adjacent bigrams (never a bigram across a word boundary)."""
    if len(word) <= 2:
        return [word]
    return [word[i : i + 2] for i in range(len(word) - 1)]


def word_of(text: str) -> dict[str, str]:
    """Index token (a bigram, or a one-character word) -> the word of ``text`` it comes
    from (first occurrence wins): the question's own words for a reason."""
    out: dict[str, str] = {}
    for word in segment(text):
        for tok in word_bigrams(word):
            out.setdefault(tok, word)
    return out
