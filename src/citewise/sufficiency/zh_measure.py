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

__all__ = [
    "MEASURES",
    "asked_measure",
    "numeral_value",
    "question_amounts",
    "states_amount",
    "states_measure",
]

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
#: Nouns that name an amount of money (a wage, a price, a fee, a fine): "工资是多少",
#: "缴纳多少费用" ask a sum of money as 多少元 does.
_MONEY_NOUN = "工资|薪酬|薪金|报酬|奖金|费用|价格|售价|票价|价钱|罚款|罚金|金额|税款|成本|收入"
_MONEY_Q = re.compile(
    rf"(?:{_MONEY_NOUN})(?:标准)?(?:是|为|有|大约|约|共|总共)?多少(?!倍)|多少(?:{_MONEY_NOUN})"
)

_BY_WORD = {w: k for k, words in MEASURES.items() for w in words}
_WORDS = "|".join(sorted(_BY_WORD, key=len, reverse=True))
_ASK = re.compile(rf"(?:多少|(?<![哪第])几)(?:个)?({_WORDS})")
_N = "〇零一二两三四五六七八九十百千万亿半"
_NUMBER = rf"(?:\d+(?:[.,]\d+)*[{_N}]*|[{_N}]+)(?:余|多)?"
_STATED = re.compile(rf"({_NUMBER})\s*(?:个)?({_WORDS})")
#: A number that is a point in time before a measure word: a year of three or four
#: digits (2017年, 二〇一七年) or the day of a month (9月30日, 十月一日).
#: A sum written with its currency sign first ($0.37, ￥200, US$5).
_CURRENCY = re.compile(r"(?:US|HK|NT)?[$￥¥€£]\s*\d")
_YEAR = re.compile(r"^(?:\d{3,4}|[〇零一二三四五六七八九]{3,4})$")


def asked_measure(text: str) -> str | None:
    """The measure class a Chinese question ``text`` asks its number in, or None."""
    for cue, kind in _IMPLIED.items():
        if cue in text:
            return kind
    m = _ASK.search(text)
    if m:
        return _BY_WORD[m.group(1)]
    return "money" if _MONEY_Q.search(text) else None


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
    if kind == "money" and _CURRENCY.search(text):
        return True
    for m in _STATED.finditer(text):
        number, word = m.group(1), m.group(2)
        if word not in words:
            continue
        if not _is_point(text, m.start(), number, word):
            return True
    return False


# ----------------------------------------------------------- the question's own amounts
_DIGITS = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "两": 2}
_UNITS = {"十": 10, "百": 100, "千": 1000}
_BIG = {"万": 10_000, "亿": 100_000_000}
#: Measure words read as one (a count of days is 日 or 天, an age 岁 or 周岁).
_SAME = {"天": "日", "周岁": "岁", "星期": "周"}
_DETERMINERS = frozenset("哪每第这那同几多某各")
_BOUND = re.compile(r"\s*(?:个)?(?:以上|以下|至|到|－|-|~|～)")


def numeral_value(text: str) -> float | None:
    """The value of an Arabic or Chinese numeral ("30", "三十", "二十五", "一万五千",
    "二〇一三"), or None when it is none."""
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return float(text)
    if not text or any(c not in _DIGITS and c not in _UNITS and c not in _BIG for c in text):
        return None
    if all(c in _DIGITS for c in text):  # digit by digit: 二〇一三
        return float("".join(str(_DIGITS[c]) for c in text))
    total = section = digit = 0
    for c in text:
        if c in _DIGITS:
            digit = _DIGITS[c]
        elif c in _UNITS:
            section += (digit or 1) * _UNITS[c]
            digit = 0
        else:
            total += (section + digit) * _BIG[c]
            section = digit = 0
    return float(total + section + digit)


def _amounts(text: str) -> list[tuple[str, float, str, int, int]]:
    """Each amount of ``text`` that is no point in time: (as written, value, measure word
    read as one, start, end)."""
    out = []
    for m in _STATED.finditer(text):
        number, word = m.group(1), m.group(2)
        value = numeral_value(re.sub(r"[,余多]", "", number))
        if value is None or _is_point(text, m.start(), number, word):
            continue
        out.append((m.group(0), value, _SAME.get(word, word), m.start(), m.end()))
    return out


def question_amounts(text: str) -> tuple[str, ...]:
    """The amounts a Chinese question states in Chinese numerals with their measure
    ("有效期为三十年" -> 三十年, "二十海里"): what it asks about, which the unit must state
    (figures in Arabic digits are the English figure constraint's)."""
    found = _amounts(text)
    # 哪一年, 每一年, 第一年, 这一天: a determiner before 一 makes no amount
    return tuple(
        a[0]
        for a in found
        if not re.search(r"\d", a[0]) and text[max(0, a[3] - 1) : a[3]] not in _DETERMINERS
    )


def states_amount(text: str, amount: str) -> bool:
    """Whether ``text`` states ``amount`` (a :func:`question_amounts` value): the same
    value in the same measure, or a range or bound in that measure that holds it
    (二十六周岁至四十五周岁 holds 三十岁; 四十六周岁以上 holds 五十岁)."""
    asked = _amounts(amount)
    if not asked:
        return amount in text
    _, value, word, _, _ = asked[0]
    found = [a for a in _amounts(text) if a[2] == word]
    if any(a[1] == value for a in found):
        return True
    for (_, low, _, _, end), nxt in zip(found, [*found[1:], None], strict=False):
        bound = _BOUND.match(text, end)
        if bound is None:
            continue
        kind = bound.group(0).strip().lstrip("个")
        if kind == "以上" and value >= low:
            return True
        if kind == "以下" and value <= low:
            return True
        if nxt is not None and kind not in ("以上", "以下") and low <= value <= nxt[1]:
            return True
    return False
