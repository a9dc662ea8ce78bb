"""The measure a Chinese *how many* question asks in, and whether a unit states a number
in it (issue 34).

A Chinese count names its measure right after the interrogative: 几*天*, 多少*元*, 多少
*平方米*, 多少*周岁*; 多久 and 多长时间 ask a duration, 多远 a length. The answer states a
number in that measure (十五日, 二百元, 十八周岁, 五年). A unit whose only numbers are in
another measure answers a neighbouring question: "每年9月30日为烈士纪念日" (a date) for
"放假几天", a preamble's dates for "多少平方米".

* :func:`asked_measure` - the measure class a question asks in (:data:`MEASURES`), or
  None when it names none or a generic classifier (几*个*, 多少*种*: any count).
* :func:`states_measure` - whether a text holds a number followed by a measure word of
  that class (个 may stand between: 三个月). A date is no duration: a day after its month
  (9月30日) and a year of three or four digits (2017年, 二〇一七年) are points in time,
  and a month counts as a duration only as 个月.

The classes are the measures of Chinese units of time, age, money, area, length, weight
and headcount (a class each, not any question's words); chosen on the laws-zh development
questions and the CMRC sample (seed 34), whose answerable questions in these measures all
keep their answer.
"""

from __future__ import annotations

import re

__all__ = ["MEASURES", "asked_measure", "states_measure"]

#: Measure class -> its measure words (longest first within a class is not needed: the
#: pattern below sorts them).
MEASURES: dict[str, tuple[str, ...]] = {
    "duration": ("年", "个月", "日", "天", "周", "星期", "小时", "分钟", "秒", "个工作日"),
    "age": ("周岁", "岁"),
    "money": ("元", "万元", "亿元", "美元", "港元"),
    "area": ("平方米", "平方公里", "平方千米", "公顷", "亩"),
    "length": ("米", "公里", "千米", "海里", "厘米", "毫米"),
    "weight": ("吨", "公斤", "千克", "克"),
    "headcount": ("人", "名"),
}
#: Interrogatives that name their measure themselves.
_IMPLIED = {"多久": "duration", "多长时间": "duration", "多远": "length", "多少钱": "money"}

_BY_WORD = {w: k for k, words in MEASURES.items() for w in words}
_WORDS = "|".join(sorted(_BY_WORD, key=len, reverse=True))
_ASK = re.compile(rf"(?:多少|(?<![哪第])几)(?:个)?({_WORDS})")
_N = "〇零一二两三四五六七八九十百千万亿半"
_NUMBER = rf"(?:\d+(?:[.,]\d+)*[{_N}]*|[{_N}]+)(?:余|多)?"
_STATED = re.compile(rf"({_NUMBER})\s*(?:个)?({_WORDS})")
#: A number that is a point in time before a measure word: a year of three or four
#: digits (2017年, 二〇一七年) or the day of a month (9月30日, 十月一日).
_YEAR = re.compile(r"^(?:\d{3,4}|[〇零一二三四五六七八九]{3,4})$")


def asked_measure(text: str) -> str | None:
    """The measure class a Chinese question ``text`` asks its number in, or None."""
    for cue, kind in _IMPLIED.items():
        if cue in text:
            return kind
    m = _ASK.search(text)
    return _BY_WORD[m.group(1)] if m else None


def _is_point(text: str, start: int, number: str, word: str) -> bool:
    """The number at ``start`` names a point in time, not an amount of ``word``."""
    before = text[max(0, start - 1) : start]
    if word in ("日", "天") and before == "月":
        return True
    return word == "年" and _YEAR.match(number) is not None


def states_measure(text: str, kind: str) -> bool:
    """Whether ``text`` states a number in measure class ``kind`` (the caller removes the
    question's own figures first); an unknown class holds nothing."""
    words = MEASURES.get(kind, ())
    for m in _STATED.finditer(text):
        number, word = m.group(1), m.group(2)
        if word not in words:
            continue
        if not _is_point(text, m.start(), number, word):
            return True
    return False
