"""Chinese answer types (issue 34): the type of value a Chinese question asks for, and
whether a unit holds one.

Two small pure functions, in the same vocabulary as the English recogniser of
:mod:`citewise.sufficiency.answer_type` (the values are ``AnswerType``'s: ``"time"``,
``"number"``, ``"agent"``, ``"place"``; plus ``"ordinal"`` for 第几, a numbered
reference, which is a number the English side never asks for):

* :func:`expected_type` - 何时 / 什么时候 / 哪一年 / 几月 → ``time``; 第几 → ``ordinal``;
  多少 / 几 / 多长 / 多久 → ``number``; 谁 / 哪个机关 / 什么人 → ``agent``; 哪里 / 何处 /
  什么地方 → ``place``; anything else ``None``. The time cues are read before the
  number ones (几月 and 几点 ask when, not how many), and 哪几 (which several) asks for
  a list, not a count.
* :func:`unit_has_type` - whether a text holds a value of that type other than the
  question's own figures: a **time** is a year with its 年 (two digits or more, Arabic
  or Chinese: 2017年, 二〇一三年), a month, a day after its month, an ISO date, an era
  or season, a clock time, a weekday, or a point given by an event (之日, 届满, 以前,
  以后 …); a **number** is an Arabic figure or a Chinese numeral (十五日, 三十, 三分之二,
  百分之) that is not a numbered reference (第十条); an **ordinal** is such a reference;
  an **agent** a person or organisation (jieba's ``nr``/``nt`` tags, or a word ending
  in a body or office: 机关, 委员会, 法院, 主席 …); a **place** a place name (jieba's
  ``ns``) or a word ending in a place noun (省, 市, 县, 镇 …), or 位于.

Chosen on the laws-zh questions and CMRC dev question shapes (the cue lists are the
language's interrogatives, not any question's words); checked on the RGB-style CMRC set
of seed 71 as left-out (``bench/rgb_zh.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from citewise.sufficiency.zh_measure import asked_measure, states_measure

__all__ = [
    "ZH_TYPES",
    "ZhType",
    "expected_type",
    "gate_kind",
    "present_types",
    "question_figures_zh",
    "type_cue",
    "unit_has_type",
]

ZhType = Literal["time", "number", "ordinal", "agent", "place"]
ZH_TYPES: tuple[ZhType, ...] = ("time", "number", "ordinal", "agent", "place")

_N = "〇零一二两三四五六七八九十百千万亿"
_DIGIT = "〇零一二三四五六七八九"

# --------------------------------------------------------------------- question cues
_TIME_Q = re.compile(
    r"何时|什么时候|什么时间|什么日期|哪一?年|哪个年代|什么年代|哪一?天|哪一?日|哪个月|"
    r"几月|几号|几点|何年|何日|何月|多会儿|几时"
)
_ORDINAL_Q = re.compile(r"第几")
_NUMBER_Q = re.compile(r"多少|(?<!哪)几(?!乎|何|率)|多长|多久|多大|多高|多远|多重|多深|多宽|多少倍")
_AGENT_Q = re.compile(
    r"谁|何人|哪位|(?:哪个|哪一个|哪些|什么|哪一|何种)(?:国家)?(?:机关|部门|单位|组织|机构|人|"
    r"委员会|法院|政府|团体|公司|国家)"
)
_PLACE_Q = re.compile(
    r"哪里|哪儿|何处|何地|什么地方|在哪|位于哪|(?:哪个|哪一个|哪些|什么)(?:城市|省|省份|地区|"
    r"地方|国家和地区|县|市|地点|位置)"
)


def _cue(text: str) -> tuple[ZhType, str] | None:
    for pattern, kind in (
        (_TIME_Q, "time"),
        (_ORDINAL_Q, "ordinal"),
        (_PLACE_Q, "place"),
        (_AGENT_Q, "agent"),
        (_NUMBER_Q, "number"),
    ):
        m = pattern.search(text)
        if m:
            return kind, m.group(0)  # type: ignore[return-value]
    return None


def expected_type(text: str) -> ZhType | None:
    """The type of value a Chinese ``text`` asks for (see the module), or None."""
    found = _cue(text)
    return found[0] if found else None


#: A *which body* question (哪个机关, 什么部门): the answer names an authority or body.
_BODY_Q = re.compile(
    r"(?:哪个|哪一个|哪些|什么|哪一|何种)(?:国家)?(?:机关|部门|单位|组织|机构|委员会|法院|政府)"
)


def gate_kind(text: str) -> str | None:
    """The slot a Chinese question's answer unit must hold (a hard gate), or None:
    ``time``, ``ordinal``, ``number`` or ``number/<measure>`` when the count names its
    measure (:mod:`citewise.sufficiency.zh_measure`: 几天, 多少平方米), and ``agent`` for a
    *which body* question (哪个机关); 谁 and 哪里 stay soft (a weight for the score)."""
    kind = expected_type(text)
    if kind == "number":
        measure = asked_measure(text)
        return f"number/{measure}" if measure else "number"
    if kind in ("time", "ordinal"):
        return kind
    return "agent" if kind == "agent" and _BODY_Q.search(text) else None


def type_cue(text: str) -> str:
    """The text's own words that ask for the type ("什么时候", "多少"), or ""."""
    found = _cue(text)
    return found[1] if found else ""


# ------------------------------------------------------------------------ unit values
_TIME_T = re.compile(
    rf"(?:\d{{2,4}}|[{_DIGIT}]{{2,4}})\s*年|(?:\d{{1,2}}|[{_N}]{{1,3}})\s*月(?!薪)|"
    rf"月\s*(?:\d{{1,2}}|[{_N}]{{1,3}})\s*[日号]|\d{{4}}[-/.]\d{{1,2}}|"
    r"世纪|年代|年间|时期|朝代|[春夏秋冬][季天]|今年|去年|明年|当年|次年|同年|翌年|前年|"
    rf"上午|下午|凌晨|晚上|中午|\d{{1,2}}[:：]\d{{2}}|\d{{1,2}}[点时](?!钟头)|"
    # a clock time in Chinese numerals says 点钟 / 点半 / 时许 / 时…分: a bare 一点 is "a
    # little" or "a point" (每一点), no time
    rf"[{_N}]{{1,3}}(?:点钟|点半|[点时][{_N}]{{1,3}}分|时许)|"
    r"星期|周[一二三四五六日]|每(?:年|月|周|日|天)|之日|之时|届满|以前|以后|之前|之后|期间|"
    r"当日|当天|次日|即日|同日|起施行|开始施行|生效"
)
_REFERENCE = re.compile(rf"第\s*(?:\d+|[{_N}]+)\s*[条款项章节编目次届]?")
_NUMBER_T = re.compile(
    rf"\d|[{_N}]{{2,}}|[{_N}](?=[个人名位次项种条款年月日天岁倍元届级类部章节周时分秒米吨家所座票席成])|"
    rf"分之|百分|半数|过半|多数|若干|数[十百千万]|[{_N}]+(?:余|多)"
)
_AGENT_SUFFIX = re.compile(
    r"(?:机关|委员会|政府|法院|检察院|部门|部|局|署|厅|院|办公室|公司|大学|学院|学校|协会|"
    r"组织|机构|单位|军|党|总理|主席|委员长|部长|院长|检察长|局长|主任|人员|公民|代表|会|"
    r"人大|国务院|首长|领导|皇帝|国王|作者|创始人)$"
)
_PLACE_SUFFIX = re.compile(
    r"(?:省|市|县|区|镇|乡|村|州|国|岛|山|河|江|湖|海|港|城|路|街|洲|半岛|地区|流域|盆地|"
    r"平原|高原|沙漠)$"
)
_PLACE_T = re.compile(r"位于|坐落|境内|地处")


def _without(text: str, asked: Iterable[str]) -> str:
    """``text`` with the question's own figures removed (a year the question names is its
    subject, not the answer)."""
    for figure in asked:
        if figure:
            text = text.replace(figure, " ")
    return text


def unit_has_type(text: str, kind: str, asked: Iterable[str] = ()) -> bool:
    """Whether ``text`` holds a value of type ``kind`` (a :data:`ZH_TYPES` name) other
    than the question's own figures ``asked``. An unknown type holds nothing."""
    text = _without(text, asked)
    if kind == "time":
        return _TIME_T.search(text) is not None
    if kind == "ordinal":
        return _REFERENCE.search(text) is not None
    if kind == "number":
        return _NUMBER_T.search(_REFERENCE.sub(" ", text)) is not None
    if kind.startswith("number/"):  # a count in its measure (zh_measure)
        return states_measure(text, kind.partition("/")[2])
    if kind in ("agent", "place"):
        return _named(text, kind)
    return False


def _named(text: str, kind: str) -> bool:
    """A person or organisation (``agent``) or a place (``place``) among the words of
    ``text`` by jieba's dictionary tags or the word's ending."""
    from citewise.analysis.zh_words import segment, word_tag

    if kind == "place" and _PLACE_T.search(text):
        return True
    tags = ("nr", "nt") if kind == "agent" else ("ns",)
    suffix = _AGENT_SUFFIX if kind == "agent" else _PLACE_SUFFIX
    for word in segment(text):
        if word_tag(word).startswith(tags) or (len(word) >= 2 and suffix.search(word)):
            return True
    return False


def present_types(text: str) -> frozenset[str]:
    """Every :data:`ZH_TYPES` value ``text`` holds (for a reader that joins the English
    recogniser: ``answer_type.Reader.present``)."""
    return frozenset(k for k in ZH_TYPES if unit_has_type(text, k))


def question_figures_zh(text: str) -> tuple[str, ...]:
    """The text's own years and dates as written ("1996年", "二〇一三年"): a unit
    holding only these gives no time of its own."""
    found = (m.group(0) for m in _TIME_T.finditer(text))
    return tuple(f for f in found if re.search(f"\\d|[{_N}]", f))
