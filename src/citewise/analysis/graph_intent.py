"""The graph's reading of a question: which relations serve it, and whether it asks for depth.

This is a second classifier, kept apart from :mod:`citewise.analysis.intent` on purpose
(each keeps the results it had when the question was still read in several places): it
has an ``edition`` kind (supersedes, repeals, "latest version") that picks edition
relations, and wider cues tuned for choosing graph neighbours, while the pipeline's kinds
decide budgets, gates and the answer's form. They differ on some questions: "What is the
latest version of X?" is ``definition`` to the pipeline and ``edition`` here, "Fix the
sync error" ``generic`` there and ``how_to`` here, "What happens when the cursor
expires?" ``generic`` there and ``causal`` here, "Analyze the failure" deep there and not
here. Both run once, in :func:`citewise.analysis.question.analyse`;
:func:`citewise.graph.select.graph_context` reads this one's result from the analysed
question.
"""

from __future__ import annotations

import re

__all__ = ["graph_deep", "graph_intent"]

_INTENT_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "edition",
        re.compile(
            r"\b(supersed\w*|replac\w*|repeal\w*|amend\w*|latest|current (version|edition)|"
            r"still (valid|in force|apply|applies)|obsolete|outdated|which edition)\b|"
            r"取代|废止|修订|最新版|现行"
        ),
    ),
    (
        "compare",
        re.compile(
            r"\b(compare\w*|comparison|versus|vs\.?|difference\w*|differ\w*|better than|"
            r"pros and cons|trade-?offs?|which one)\b|比较|区别|对比|不同|差异"
        ),
    ),
    (
        "causal",
        re.compile(
            r"\b(why|cause[sd]?|causing|reasons?|because|leads? to|led to|result(s|ed)? in|"
            r"due to|what happens)\b|为什么|原因|导致|造成|引起"
        ),
    ),
    (
        "how_to",
        re.compile(
            r"\b(how (do|can|should|to|would)|steps?|procedure|set ?up|configure|install|"
            r"deploy|upgrade|enable|disable|fix)\b|如何|怎么|步骤|配置"
        ),
    ),
    ("definition", re.compile(r"\b(what (is|are)|define|definition|meaning of)\b|什么是|定义")),
)
_DEEP = re.compile(r"\b(in[- ]depth|in detail|deep[- ]dive|comprehensive|thorough)\b|详细|深入")


def graph_intent(query: str) -> str:
    """A graph-oriented intent: edition, compare, causal, how_to, definition or generic."""
    q = query.lower()
    for name, pattern in _INTENT_RULES:
        if pattern.search(q):
            return name
    return "generic"


def graph_deep(query: str) -> bool:
    """Whether ``query`` asks for depth (widens the graph's neighbour windows)."""
    return bool(_DEEP.search(query.lower()))
