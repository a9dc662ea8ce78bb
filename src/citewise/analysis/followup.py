"""Follow-up questions rewritten into standalone ones, deterministically.

In a conversation, "And on Linux?", "What about the rollback?", "那测试环境呢？" or
"Where does it write its log?" only make sense after the turn before. :func:`rewrite`
turns such a follow-up into a question that stands alone, using the previous turn's
standalone question and its condition set, and says which rule it used:

- ``condition_switch``: the follow-up only states a condition ("and on Linux?",
  "那测试环境呢？"): the previous question under that condition (the same kind replaced);
- ``subject_switch``: "what about Y?" / "那Y呢？" with no condition: the previous question
  about Y instead of its subject;
- ``pronoun``: "it", "they", "它"… stand for the previous subject;
- ``none``: the follow-up already stands alone.

The previous turn's conditions are inherited; the follow-up's own override them.
Pure and deterministic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from citewise.analysis.conditions import Condition, ConditionSet, conditions_in
from citewise.analysis.intent import classify_intent

__all__ = ["Rewrite", "rewrite"]


@dataclass(frozen=True, slots=True)
class Rewrite:
    """A follow-up, the standalone question it became, and the conditions in force."""

    original: str
    standalone: str
    rule: str  # condition_switch | subject_switch | pronoun | none
    conditions: ConditionSet

    def to_json(self) -> dict[str, Any]:
        return {
            "original": self.original,
            "standalone": self.standalone,
            "rule": self.rule,
            "conditions": self.conditions.to_json(),
        }


_ELLIPSIS_EN = re.compile(
    r"^\s*(?:and|but|ok(?:ay)?,?)?\s*(?:what|how)\s+about\s+(?P<a>.+?)\s*[?？.]?\s*$"
    r"|^\s*(?:and|but)\s+(?P<b>(?:on|in|for|under|with|as of)\s+.+?)\s*[?？.]?\s*$",
    re.IGNORECASE,
)
_ELLIPSIS_ZH = re.compile(r"^\s*(?:那么?|还有)?\s*(?P<a>.+?)\s*呢\s*[?？]?\s*$")
_PRONOUN_EN = re.compile(r"\b(it|they|them|this|that)\b(?!\s+(?:is|are)\s+(?:a|an|the)\b)", re.I)
_PRONOUN_ZH = re.compile(r"它们|它|该(?:项|功能|服务)?|这个|其")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


def _without(text: str, conditions: ConditionSet) -> str:
    """``text`` with the words that state ``conditions`` taken out."""
    for c in conditions.conditions:
        if c.text and c.source == "question":
            text = re.sub(r"\s*" + re.escape(c.text), "", text, flags=re.IGNORECASE)
    return re.sub(r"\s{2,}", " ", text).strip()


def _subject(previous: str, conditions: ConditionSet) -> str:
    subject = _without(classify_intent(previous).subject, conditions)
    if _CJK.search(subject) or not subject:
        return subject
    return "the " + _ARTICLE.sub("", subject)


_PREP = re.compile(r"^(?:on|in|for|under|with|as of|在)\s*", re.IGNORECASE)
_FILLER = re.compile(
    r"(?:\b(?:on|in|for|under|with|the|as|of)\b|在|中|上|下|的|[\s,.;:?？])+", re.I
)


def _find_subject(previous: str, prev_set: ConditionSet) -> tuple[int, int] | None:
    """Where the previous question's subject (without its conditions) stands in it; the
    subject's words may be separated by articles the intent reading dropped."""
    intent = classify_intent(previous)
    words = _without(intent.subject, prev_set).split()
    if intent.kind == "how_to" and len(words) > 1:
        words = words[1:]  # "install fleet agent": the verb stays, its object changes
    if not words:
        return None
    glue = r"" if _CJK.search(previous) else r"\s+(?:(?:the|a|an)\s+)?"
    m = re.search(glue.join(re.escape(w) for w in words), previous, re.IGNORECASE)
    return (m.start(), m.end()) if m else None


def _switch(previous: str, prev_set: ConditionSet, new: ConditionSet, words: str) -> str:
    """``previous`` under ``new``'s conditions: each stated kind's words replaced, the
    others appended before the question mark (``words``: the follow-up's own, when it
    states one condition)."""
    text = previous
    add: list[str] = []
    for c in new.conditions:
        old = [p for p in prev_set.conditions if p.kind == c.kind and p.source == "question"]
        said = c.text
        if old and old[0].text in text:
            prep = _PREP.match(old[0].text)
            if prep and not _PREP.match(said):
                said = prep.group(0) + said
            text = text.replace(old[0].text, said, 1)
        else:
            add.append(words.strip(" ?？") if len(new.conditions) == 1 else said)
    if add and _CJK.search(previous):
        said = "、".join(a.removeprefix("在").removesuffix("中") for a in add)
        text = f"在{said}中，{text}"
    elif add:
        mark = "?" if text.rstrip().endswith("?") else ""
        text = text.rstrip("? ") + " " + " ".join(add) + mark
    return text


def rewrite(previous: str, prev_set: ConditionSet, follow_up: str) -> Rewrite:
    """``follow_up`` as a standalone question after ``previous`` (standalone) asked
    under ``prev_set``; its conditions are ``prev_set`` overridden by its own."""
    own = conditions_in(follow_up)
    inherited = ConditionSet(
        tuple(Condition(c.kind, c.value, c.text, "inherited") for c in prev_set.conditions)
    )
    in_force = own.over(inherited)
    m = _ELLIPSIS_EN.match(follow_up) or _ELLIPSIS_ZH.match(follow_up)
    if m:
        rest = m.group("a") or m.group("b") or ""
        if own.conditions and not _FILLER.sub("", _without(rest, own)):
            text = _switch(previous, prev_set, own, rest)
            return Rewrite(follow_up, text, "condition_switch", in_force)
        if not own.conditions:
            found = _find_subject(previous, prev_set)
            if found:
                text = previous[: found[0]] + _ARTICLE.sub("", rest) + previous[found[1] :]
                return Rewrite(follow_up, text, "subject_switch", in_force)
    pattern = _PRONOUN_ZH if _CJK.search(follow_up) else _PRONOUN_EN
    p = pattern.search(follow_up)
    if p:
        subject = _subject(previous, prev_set)
        if subject:
            text = follow_up[: p.start()] + subject + follow_up[p.end() :]
            return Rewrite(follow_up, text, "pronoun", in_force)
    return Rewrite(follow_up, follow_up, "none", in_force)
