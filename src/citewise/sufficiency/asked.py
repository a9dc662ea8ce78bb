"""The attribute a value question asks for: "What is the default *page size* of the
viewer?", "Which *color* does the printer use?", "Which *version* does it generate?".

Such a question names a thing the documents cover and an attribute of it; text about the
thing that never names the attribute ("the viewer writes to a file-like object") answers
another question. Every word of the attribute may be a common one ("size", "color",
"version"), so the term-presence gates let it pass as a partial answer. The head noun of
the asked attribute must be in the cited text (for a numeric attribute, a number stated in
its prose will do), or the answer abstains.

:func:`asked_attribute` reads the head noun from the question's opening ("What is the
<attribute> of/for/in ...", "Which <attribute> does/do/is ...", "How many <attribute>");
questions of other shapes, and heads that are no property noun (:data:`PROPERTIES`: a
thing, a relation such as "the successor", a value), give None.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from citewise.analysis.question import Question
from citewise.analysis.tokenize import tokenize

__all__ = ["NUMERIC", "PROPERTIES", "asked_attribute", "attribute_cited"]

_OPENING = re.compile(
    r"^\s*(?:what(?:'s| is| are| was)\s+(?:the|a|an)\s+|which\s+|how\s+many\s+)"
    r"(?P<phrase>(?:[A-Za-z][\w-]*\s+){0,3}?[A-Za-z][\w-]*)"
    r"\s+(?:of|for|in|on|does|do|did|is|are|was|were|has|have|had|can|could|may|might|must|"
    r"should|will|would|that|when|to)\b",
    re.IGNORECASE,
)


def asked_attribute(question: Question) -> str | None:
    """The head noun of the attribute a value question asks for, or None."""
    m = _OPENING.match(question.text)
    if m is None:
        return None
    words = m.group("phrase").split()
    head = words[-1]
    low = head.lower()
    singular = low[:-1] if low.endswith("s") else low
    if not head.isalpha() or head[:1].isupper() or not {low, singular} & PROPERTIES:
        return None  # a name ("Which Typer ..."), a thing or a relation ("the successor")
    return head


#: Attributes whose value is a number: prose that states a number states the value ("By
#: default 403 responses will be returned" answers "which status code").
NUMERIC = frozenset(
    (  # noqa: SIM905 - a readable list
        "code codes number count size limit timeout port width height length depth level "
        "age duration interval delay version"
    ).split()
)
_FENCED = re.compile(r"```.*?(?:```|$)|`[^`\n]*`", re.DOTALL)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def attribute_cited(head: str, cited: Iterable[str]) -> bool:
    """Whether the cited texts name the attribute (its stem, as in "sizes" for "size"),
    or, for a numeric attribute, state a number in their prose (outside code)."""
    stems = set(tokenize(head, literals=False))
    texts = list(cited)
    if any(stems & set(tokenize(text)) for text in texts):
        return True
    if head.lower() not in NUMERIC:
        return False
    return any(_NUMBER.search(_FENCED.sub(" ", text)) for text in texts)


#: The property nouns a value question asks for: generic English, never a thing ("which
#: option"), a relation ("the successor") or a value ("the default value").
PROPERTIES = NUMERIC | frozenset({"color", "colour", "format", "encoding", "unit", "style"})
