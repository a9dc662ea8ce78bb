"""Question intent: what kind of answer is asked for, and what it is about.

The pipeline's classifier, run once per question by :func:`citewise.analysis.question.analyse`:
the evidence stage picks its budget profile from it
(:func:`citewise.evidence.budget.profile_for`), sufficiency gates and the answer composer
read its kind and subject.

Rule-based on purpose (no model): the cue lists below are small, bilingual
(English / Chinese) and ordered, so a result can always be explained by the cue
that fired (``Intent.cue``).

Order of precedence, first match wins: ``non_kb`` (whole-message whitelist) →
``compare`` → ``causal`` → ``definition`` (how a text defines a term) → ``how_to`` →
``definition`` → ``generic``.  Compare
and causal come first because their questions usually *also* contain a
definition or how-to cue ("What is the difference…", "Why does … how …").

``non_kb`` is a narrow whitelist matched against the *whole* normalised message
(greetings, thanks, "help", "what can you do", "how do I use citewise"): a
message that merely contains "hello" or "help" is a knowledge-base question.

``deep`` is set by explicit depth requests ("explain in depth", "analyze",
"详细解释", "深入分析"), independent of the kind.

:func:`subject_terms` strips question words and intent cues and returns the
remaining key terms (stemmed words, literals, CJK bigrams via
:func:`citewise.analysis.tokenize.key_terms`) so a later check can ask whether the
evidence mentions the subject at all.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from citewise.analysis.tokenize import key_terms
from citewise.analysis.zh_edition import without_edition
from citewise.analysis.zh_words import subject_form

__all__ = [
    "Intent",
    "IntentKind",
    "classify_intent",
    "subject_terms",
    "subject_text",
]


#: What kind of answer a question asks for.
IntentKind = Literal["definition", "how_to", "compare", "causal", "generic", "non_kb"]

_PUNCT_EDGES = " \t\r\n?!.,;:~…？！。，；：、\"'“”‘’()（）"

#: Whole messages (normalised: lower-case, edge punctuation and "please" removed).
_NON_KB = frozenset(
    {
        "hi", "hello", "hey", "hiya", "yo", "good morning", "good afternoon",
        "good evening", "hi there", "hello there", "hey there", "thanks", "thank you",
        "thanks a lot", "thank you very much", "many thanks", "thx", "ty", "cheers",
        "ok thanks", "ok thank you", "bye", "goodbye",
        "help", "help me", "what can you do", "what do you do", "who are you",
        "what are you", "how do i use citewise", "how do i use this",
        "how to use citewise", "how can i use citewise", "how does citewise work",
        "what is citewise", "citewise help",
        "你好", "您好", "嗨", "哈喽", "谢谢", "多谢", "谢谢你", "感谢", "再见",
        "帮助", "你能做什么", "你可以做什么", "你是谁", "怎么用", "如何使用citewise",
        "怎么使用citewise", "citewise怎么用",
    }
)  # fmt: skip

_DEEP = re.compile(
    r"\b(?:in[- ]depth|in detail|detailed|deep[- ]dive|thorough\w*|analy[sz]\w*|"
    r"elaborate|comprehensive\w*)\b|详细|深入|分析|全面|详尽|剖析|展开"
)

# (kind, pattern) in precedence order.  English patterns run on lower-cased text.
_RULES: tuple[tuple[IntentKind, re.Pattern[str]], ...] = (
    (
        "compare",
        re.compile(
            r"\b(?:differences?|differ|compare[ds]?|comparison|comparing|versus|vs\.?|"
            r"better than|contrast)\b|区别|差别|差异|不同|对比|比较|相比|\bvs\b"
        ),
    ),
    (
        "causal",
        re.compile(
            r"\b(?:why|cause[sd]?|causing|reasons?|root cause|how come|leads? to|led to|"
            r"results? in)\b|为什么|为何|原因|导致|造成|引起"
        ),
    ),
    (
        # how a text defines a term ("How do the age discrimination rules define age?",
        # "How is yield defined?"): a definition, not a how-to; "How do I define a
        # flag?" (the asker defines something) stays a how-to
        "definition",
        re.compile(
            r"\bhow (?:do|does|did) (?!(?:i|we|you|one)\b)[^?]*\bdefine\b|"
            r"\bhow (?:is|are|was|were) [^?]*\bdefined\b"
        ),
    ),
    (
        "how_to",
        re.compile(
            r"\bhow (?:do|can|should|would|could|to|does one)\b|\bsteps?\b|\bprocedure\b|"
            r"\binstructions?\b|\bguide\b|^(?:configure|set up|setup|install|enable|disable|"
            r"create|run|deploy|upgrade)\b|如何|怎么|怎样|步骤|方法|流程"
        ),
    ),
    (
        "definition",
        re.compile(
            r"^(?:what|who) (?:is|are|was|were)\b|^what does .+ mean\b|\bmeaning of\b|"
            r"\bdefin(?:e|ition)\b|\bstands? for\b|^explain\b|什么是|是什么|是啥|含义|定义|"
            r"指的是|意思|解释|介绍"
        ),
    ),
)

# Words and phrases that carry the intent, not the subject.
_EN_STRIP = re.compile(
    r"\b(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|"
    r"can|could|should|would|will|shall|may|might|i|we|you|me|my|our|your|please|tell|"
    r"explain|describe|define|definition|meaning|mean|means|steps?|procedure|"
    r"instructions?|guide|differences?|differ|between|compare[ds]?|comparison|versus|"
    r"vs|reasons?|causes?|caused|causing|root|come|in[- ]depth|in detail|detail|"
    r"detailed|deep[- ]dive|thorough(?:ly)?|analy[sz]e|analysis|elaborate|"
    r"comprehensive(?:ly)?|about|regarding|stand|stands|for|the|a|an|and|or|of|to|"
    r"there|any|some|way|ways|need|want|know|like|get|does one|hello|hi|hey|thanks|"
    r"thank)\b",
)
_ZH_STRIP = re.compile(
    r"什么是|是什么|是啥|什么|为什么|为何|原因|导致|造成|引起|如何|怎么样|怎么|怎样|"
    r"步骤|方法|流程|区别|差别|差异|不同|对比|比较|相比|含义|定义|指的是|意思|详细|"
    r"深入|具体|分析|解释|介绍|说明|请问|请|一下|吗|呢|吧|啊|的|和|与|及|跟|是|有|哪些|"
    r"哪个|我|你|我们|能|可以|应该|需要"
)


@dataclass(frozen=True, slots=True)
class Intent:
    """Classified question: ``kind``, depth request, the cue that fired, subject."""

    kind: IntentKind
    deep: bool
    cue: str
    subject: str
    subject_terms: tuple[str, ...]


#: A thank-you or goodbye with at most a short courtesy tail ("thanks, that was helpful"),
#: never a question.
_COURTESY = re.compile(
    r"(?:thanks|thank you|many thanks|cheers)(?! (?:but|how|what|why|where|when|which|who)\b)"
    r"(?: \w+){0,5}|(?:谢谢|多谢|感谢)(?!.*(?:什么|如何|怎么|吗|为什么))[^？?]{0,10}"
)


def _norm(text: str) -> str:
    s = unicodedata.normalize("NFKC", text).lower().strip(_PUNCT_EDGES)
    return re.sub(r"\s+", " ", s)


def _whitelist_form(text: str) -> str:
    s = _norm(text)
    s = re.sub(r"^(?:please|pls|请)\s*|\s*(?:please|pls)$", "", s).strip(_PUNCT_EDGES)
    s = re.sub(r"\s*[,，!！.。]\s*", " ", s).strip()
    return s.replace("citewise ", "citewise") if s.startswith(("如何", "怎么")) else s


def subject_text(text: str) -> str:
    """The question with question words and intent cues removed (readable form)."""
    s = _norm(text)
    # Chinese: jieba's words; function words, interrogatives and the intent cues of
    # _ZH_STRIP go as whole words, never a piece of one (和 in 共和国, 有 in 有效期)
    # and an edition it names ("1996年那一版") is the text to read, not its subject
    if not s.isascii():
        s = subject_form(without_edition(s), lambda w: _ZH_STRIP.fullmatch(w) is not None)
    s = _EN_STRIP.sub(" ", s)
    s = re.sub(r"[?？!！。，,;；:：、\"“”()（）]", " ", s)
    return re.sub(r"\s+", " ", s).strip(_PUNCT_EDGES)


def subject_terms(text: str) -> tuple[str, ...]:
    """Key terms of the question's subject (stemmed words, literals, CJK bigrams)."""
    return tuple(key_terms(subject_text(text)))


def classify_intent(text: str) -> Intent:
    """Classify a question's ``text`` (English or Chinese; the analyser behind
    ``Question.intent``, run by :func:`~citewise.analysis.question.analyse`); see the module
    docstring for rules."""
    norm = _norm(text)
    deep_match = _DEEP.search(norm)
    deep = deep_match is not None
    form = _whitelist_form(text)
    if form in _NON_KB or _COURTESY.fullmatch(form):
        return Intent("non_kb", False, form, "", ())
    kind: IntentKind = "generic"
    cue = ""
    for rule_kind, pattern in _RULES:
        m = pattern.search(norm)
        if m:
            kind, cue = rule_kind, m.group(0)
            break
    subject = subject_text(text)
    return Intent(kind, deep, cue, subject, tuple(key_terms(subject)))
