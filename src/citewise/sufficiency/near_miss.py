"""Near misses: a unit that states the asked thing under another qualifier (issue 34).

An unanswerable question is most often answered by a unit about the right topic that
does not state the asked-for slot for the asked-for qualifier. The unit holds the
question's *head* word but next to it another word of the same kind where the question
has its own qualifier, which the unit and its context (headings, title, edition) do not
hold anywhere:

* another modifier of the same head ("a *decreasing* plurality of legal systems" asked,
  "an *increasing* plurality" stated; "*modern* Europe" / "*medieval* Europe");
* another verb on the same object ("*support* violence" / "*renounced* violence");
* another entity before the same noun ("the *Rumford* engine" / "the *Corliss* engine");
* another value of the same measure ("有效期为*三十年*" / "有效期*十年*",
  "*二十*海里" / "*二十四*海里"): a number is matched as a whole word, never as part of
  a longer one.

:func:`near_misses` counts such substituted question words; the answerability score
(:mod:`citewise.sufficiency.answerability`) multiplies a unit's score by a factor per
miss, so the feature lowers a score and never raises it. English words are compared by
their index stems and word forms (:mod:`citewise.sufficiency.wordforms`), Chinese words
by jieba's segmentation (:mod:`citewise.analysis.zh_words`). Pure and deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from citewise.analysis.question import Question
from citewise.analysis.tokenize import QUESTION_STEMS, tokenize
from citewise.analysis.zh_words import INTERROGATIVE, is_function_word, segment, word_tag
from citewise.sufficiency.figures import NUMBER_WORDS
from citewise.sufficiency.floor import FUNCTION_WORDS, FUNCTION_ZIPF
from citewise.sufficiency.presence import FILLER, english_zipf
from citewise.sufficiency.wordforms import held, related, tokens

__all__ = ["BOUNDARY", "Word", "near_miss_pairs", "near_misses", "substitutions", "words_of"]

#: A run of Han characters (segmented by jieba) or of Latin letters and digits.
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_PIECE = re.compile(
    rf"(?P<han>[{_HAN}]+)|(?P<lat>[^\W_{_HAN}](?:[^\W{_HAN}]|['’.-](?=\w))*)"
    r"|(?P<mark>[,;:.!?()\[\]\"“”，。；：、！？（）《》「」])"
)
#: A number word: digits, or Chinese numerals with an optional measure character.
_NUMBER = re.compile(r"\d|^[〇零一二两三四五六七八九十百千万亿]+[年月日天岁周个条次倍]?$")
#: How many function words may stand between a qualifier and its head in the question.
GAP = 1
#: How many words on either side of the head a short form's full name may span.
ABBREVIATION_WORDS = 3


@dataclass(frozen=True, slots=True)
class Word:
    """One word of a text in order: its comparison ``form`` (an English stem, a Chinese
    word), whether it is a ``content`` word, a ``number``, ``han`` (Chinese), and its
    ``surface`` as written."""

    form: str
    content: bool
    number: bool
    han: bool
    surface: str = ""


#: A clause mark in a word sequence: no qualifier reaches its head across it.
BOUNDARY = Word("", False, False, False)


#: English interrogatives whose next word names the asked category ("what *year*",
#: "how *many*", "which *country*"), as :data:`~citewise.analysis.zh_words.INTERROGATIVE`
#: does for Chinese: the evidence states a value, not that word.
_ASKING = frozenset({"what", "which", "whose", "how"})


def _latin(surface: str, prev: str) -> Word:
    return _latin_word(surface, prev.lower() in _ASKING)


@lru_cache(maxsize=1 << 16)
def _latin_word(surface: str, asking: bool) -> Word:
    """A Latin-script word (``asking``: right after an interrogative), kept per process: a
    pure function of its arguments (issue 35: every unit's headings and context were read
    word by word again for each candidate of each ask)."""
    word = surface.strip(".'’-")
    keys = [k for k in tokenize(word) if k not in QUESTION_STEMS and k not in FILLER]
    low = word.lower()
    function = low in FUNCTION_WORDS or english_zipf(low) >= FUNCTION_ZIPF
    function = function or asking
    form = keys[0] if keys else low
    number = any(ch.isdigit() for ch in word) or low in NUMBER_WORDS
    return Word(form, bool(keys) and not function, number, False, word)


def _han(run: str) -> list[Word]:
    out: list[Word] = []
    prev = ""
    for w in segment(run):
        # the word right after an interrogative names the asked category (哪个*年龄段*)
        category = bool(prev) and INTERROGATIVE.search(prev) is not None
        number = _NUMBER.search(w) is not None
        content = (len(w) >= 2 or number) and not is_function_word(w) and not category
        out.append(Word(w, content, number, True, w))
        prev = w
    return out


def words_of(text: str) -> list[Word]:
    """The words of ``text`` in order (Han runs in jieba words, other runs in words); a
    clause mark (comma, stop, bracket, quote) stands as an empty :data:`BOUNDARY`."""
    out: list[Word] = []
    prev = ""
    for m in _PIECE.finditer(text):
        if m.group("mark"):
            out.append(BOUNDARY)
            prev = ""
            continue
        lat = m.group("lat")
        out.extend([_latin(lat, prev)] if lat else _han(m.group("han")))
        prev = lat or ""
    return out


def _same(a: Word, b: Word) -> bool:
    """Whether two words are one (a form of one English word; one Chinese word, or one
    containing the other unless either is a number)."""
    if a.han != b.han or not a.form or not b.form:
        return False
    if not a.han:
        return related(a.form, b.form)
    if a.number or b.number:
        return a.form == b.form
    return a.form in b.form or b.form in a.form


def _neighbour(words: Sequence[Word], i: int, step: int) -> int | None:
    """The index of the first content word from ``i`` in direction ``step``, past at most
    :data:`GAP` function words and no clause mark."""
    j = i + step
    while 0 <= j < len(words) and abs(j - i) <= GAP + 1:
        if words[j] is BOUNDARY:
            return None
        if words[j].content:
            return j
        j += step
    return None


def _between(words: Sequence[Word], i: int, j: int) -> set[str]:
    """The function words between positions ``i`` and ``j``, but a Chinese particle of one
    character (的, 为, 之: optional between a modifier or value and its head, 有效期为十年
    is 有效期十年); an English article or preposition marks the structure ("the price
    of oil" is not "first oil")."""
    lo, hi = sorted((i, j))
    return {w.form for w in words[lo + 1 : hi] if not (w.han and len(w.form) == 1)}


def _held(w: Word, text: str, stems: set[str], unit_words: Sequence[Word]) -> bool:
    """Whether ``w`` is in the text (a number only as a whole word)."""
    if not w.han:
        return held(w.form, stems)
    if w.number:
        return any(u.form == w.form for u in unit_words)
    return w.form in text


def substitutions(
    asked: Sequence[Word], unit: Sequence[Word], held_in: set[int]
) -> list[tuple[int, str, str]]:
    """The ``asked`` content words not in ``held_in`` whose head word (a content neighbour
    in the question) the ``unit`` holds with another content word of the same kind on the
    same side, one the question does not hold: (index, the question's qualifier and head,
    the unit's word and head as written)."""
    out: list[tuple[int, str, str]] = []
    for i, w in enumerate(asked):
        if not w.content or i in held_in:
            continue
        # a qualifier stands before its head ("modern Europe", "support violence"); a
        # value after its attribute ("有效期为三十年")
        for step in (1, -1) if w.number else (1,):
            h = _neighbour(asked, i, step)
            stated = _replaced(asked, i, h, unit) if h is not None else None
            if stated is not None and h is not None:
                out.append((i, _phrase(asked, i, h), stated))
                break
    return out


def _phrase(words: Sequence[Word], i: int, j: int) -> str:
    """The words from ``i`` to ``j`` (either order) as written, Chinese without spaces."""
    lo, hi = sorted((i, j))
    part = [w for w in words[lo : hi + 1] if w.surface]
    glue = "" if all(w.han for w in part) else " "
    return glue.join(w.surface for w in part)


def _kind(a: Word, b: Word) -> bool:
    """Whether ``b`` can stand where ``a`` does: both numbers or neither, and for Chinese
    the same part of speech when jieba knows both (北方 / 南方, not 留置 / 规定)."""
    if a.number != b.number:
        return False
    if not a.han or a.number:
        return True
    ta, tb = word_tag(a.form)[:1], word_tag(b.form)[:1]
    return not ta or not tb or ta == tb


def _replaced(asked: Sequence[Word], i: int, h: int, unit: Sequence[Word]) -> str | None:
    """The unit's words (as written) that hold the question's head ``asked[h]`` with
    another word where the question has ``asked[i]``: the same side, the same function
    words between them ("有效期为三十年" / "有效期十年", not "price of oil" / "first oil");
    None when the unit has no such words."""
    w, head = asked[i], asked[h]
    step = 1 if h > i else -1
    gap = _between(asked, i, h)
    for k, u in enumerate(unit):
        if not u.content or not _same(u, head):
            continue
        o = _neighbour(unit, k, -step)  # the unit's word where the question has w
        if o is None or not _kind(w, unit[o]) or _between(unit, o, k) != gap:
            continue
        near = unit[max(0, k - ABBREVIATION_WORDS) : k + ABBREVIATION_WORDS + 1]
        if _abbreviates(w, "".join(u.form for u in near)):
            continue
        if not any(_same(unit[o], a) for a in asked if a.content):
            return _phrase(unit, o, k)
    return None


def _abbreviates(w: Word, near: str) -> bool:
    """Whether ``w`` is a short form of words ``near`` the head in the unit (its letters
    or characters in order: 中国 of 中华人民共和国, 人大常委会 of 人民代表大会常务委员会,
    GI of gastrointestinal), which then name the same thing, not another; never a
    number."""
    short = w.han or (w.surface.isupper() and w.surface.isalpha())  # 中国, GI; not "async"
    if w.number or not short or len(w.form) >= len(near):
        return False
    rest = iter(near)
    return all(ch in rest for ch in w.form)


def _found(question: Question, unit: str, context: str) -> list[tuple[int, str, str]]:
    asked = words_of(question.text)
    unit_words = words_of(unit)
    whole = f"{unit}\n{context}"
    stems = tokens(whole)
    context_words = [*unit_words, *words_of(context)] if context else unit_words
    present = {
        i for i, w in enumerate(asked) if w.content and _held(w, whole, stems, context_words)
    }
    return substitutions(asked, unit_words, present)


def near_miss_pairs(
    question: Question, unit: str, context: str = ""
) -> tuple[tuple[str, str], ...]:
    """Each qualifier of the question that ``unit`` replaces by another (see the module),
    once, as (the question's words, the unit's words): ("process pool", "thread pool").
    The qualifier is absent from the unit and its ``context``, and its head word stands
    in the unit next to another word of its kind."""
    out: dict[int, tuple[str, str]] = {}
    for i, said, stated in _found(question, unit, context):
        out.setdefault(i, (said, stated))
    return tuple(out.values())


def near_misses(question: Question, unit: str, context: str = "") -> tuple[str, ...]:
    """The question's qualifiers that ``unit`` replaces by another
    (:func:`near_miss_pairs`), once each as written."""
    asked = words_of(question.text)
    found = _found(question, unit, context)
    return tuple(dict.fromkeys(asked[i].surface for i, _, _ in found))
