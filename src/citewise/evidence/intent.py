"""A simple rule-based intent classifier (English and Chinese) and the answer profiles.

The first matching rule wins, in this order: deep, compare, causal, how_to, definition;
anything else is generic. A later issue refines this; it only picks a budget today.
"""

from __future__ import annotations

import re

from citewise.evidence.models import Intent, Profile

_RULES: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    (
        "deep",
        re.compile(
            r"\b(explain\w* in (depth|detail)|in[- ]depth|in detail|analy[sz]\w*|deep[- ]dive|"
            r"comprehensive\w*|thorough\w*|elaborate)\b|详细|深入|分析|全面|详尽|剖析"
        ),
    ),
    (
        "compare",
        re.compile(
            r"\b(compare\w*|comparison|versus|vs\.?|difference\w*|differ\w*|better than|"
            r"pros and cons|trade-?offs?)\b|比较|区别|对比|不同|差异|哪个好"
        ),
    ),
    (
        "causal",
        re.compile(
            r"\b(why|cause[sd]?|causing|reasons?|because|leads? to|led to|result(s|ed)? in|"
            r"root cause|due to)\b|为什么|原因|导致|为何|造成|引起"
        ),
    ),
    (
        "how_to",
        re.compile(
            r"\b(how (do|can|should|to|would)|steps? to|set ?up|configure|install|enable|"
            r"disable|troubleshoot|fix)\b|如何|怎么|怎样|步骤|配置|设置"
        ),
    ),
    (
        "definition",
        re.compile(
            r"\b(what (is|are|does)|define|definition|meaning of|stands? for|what's)\b|"
            r"什么是|是什么|定义|含义|指什么|意思"
        ),
    ),
)

_PROFILE: dict[str, Profile] = {"deep": "deep", "causal": "causal"}


def classify_intent(query: str) -> Intent:
    """definition | how_to | compare | causal | generic | deep."""
    q = query.lower()
    for intent, pattern in _RULES:
        if pattern.search(q):
            return intent
    return "generic"


def profile_for(intent: Intent) -> Profile:
    """deep and causal questions get larger budgets; the rest use the base profile."""
    return _PROFILE.get(intent, "base")
