"""Numbers in prose that are not the value of a comparable fact.

:mod:`citewise.sufficiency.facts` reads a unitless number as a ``count`` of the noun
phrase on its left ("the retry limit is 3").  Scientific and clinical prose is full of
numbers that are not: test statistics, sample sizes, bounds, years, ordinal labels and
parts of names.  Each rule here is a small pure function with its rationale; the
SciFact tally that motivated them is in ``docs/benchmarks.md`` (Answers on SciFact).
"""

from __future__ import annotations

import re
from bisect import bisect_left

__all__ = [
    "SCI_NOTATION",
    "TAIL",
    "Tails",
    "bracket_depths",
    "concerns_question",
    "framing_condition",
    "in_brackets",
    "is_bound",
    "is_compound_modifier",
    "is_confidence_level",
    "is_label_number",
    "is_statistic_label",
    "is_unlinked_count",
    "is_year",
    "sci_value",
]

#: Non-space characters a match of an end-anchored check of the text before a value holds
#: at most (``_LINKED``'s "defaults to approximately" holds 23; every such pattern is
#: words and symbols with whitespace between, nothing unbounded).
TAIL = 32
#: Below this many characters the text before a value is passed whole (cheaper than
#: finding its tail).
_SHORT = 4 * TAIL
_NONSPACE = re.compile(r"\S")


class Tails:
    """The text before positions of one sentence, cut to what an end-anchored check (a
    pattern ending in ``\\s*$`` whose matches hold at most :data:`TAIL` non-space
    characters) can see: its last ``TAIL`` non-space characters and the one before them (a
    match cannot start there, but ``\\b`` reads it). ``pattern.search(tails.before(e, s))``
    is ``pattern.search(text[s:e])`` for such patterns, and the checks of each number cost
    the same in a long sentence as in a short one (the whole prefix was scanned before)."""

    __slots__ = ("_marks", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._marks: list[int] | None = None  # offsets of the non-space characters

    def before(self, end: int, start: int = 0) -> str:
        """``text[start:end]``, or its tail when longer than any check can match."""
        if end - start <= _SHORT:
            return self.text[start:end]
        if self._marks is None:
            self._marks = [m.start() for m in _NONSPACE.finditer(self.text)]
        k = bisect_left(self._marks, end)  # non-space characters before ``end``
        cut = self._marks[k - TAIL - 1] if k > TAIL else start
        return self.text[max(start, cut) : end]


def bracket_depths(text: str) -> list[int]:
    """``depths[pos]``: how many "(" / "[" are open before ``pos`` (as :func:`in_brackets`
    counts them), for every ``pos`` from 0 to ``len(text)``, in one pass."""
    depths = [0] * (len(text) + 1)
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
        depths[i + 1] = depth
    return depths


#: Statistic symbols and abbreviations ("P = 0.02", "n = 150", "OR 1.2", "r = 0.38").
_STATISTIC = re.compile(
    r"(?:p|p\s*\(?trend\)?|p\s+(?:for\s+)?(?:trend|interaction)|p[\s-]?values?|n|r|r2|r²|"
    r"or|aor|hr|ahr|rr|irr|ci|sd|se|sem|iqr|β|beta|χ2|χ²|chi2|chi-square|wald χ²|t|f|z|df|"
    r"i2|i²|auc|kappa|κ|rho|ρ|tau|τ|mean|median|range|total|(?:95\s*%\s*)?ci|"
    r"(?:95\s*%\s*)?(?:confidence|credible|prediction) intervals?|odds ratios?|"
    r"hazard ratios?|relative risks?|risk ratios?|rate ratios?|standard deviation|"
    r"standard error|interquartile range)",
    re.IGNORECASE,
)


def is_statistic_label(subject: str) -> bool:
    """True when ``subject`` names a statistic, or is a lone letter, not a thing.

    Rationale: a p-value, a sample size ("n = 150"), an odds ratio or a correlation is a
    property of one test or one study arm, not of the subject the sentence is about.  Two
    papers (or two comparisons in one paper) reporting ``P = 0.01`` and ``P = 0.03``
    state nothing contradictory.  A one-letter subject ("x" of "1.5 x 10", "d" of
    "D 100") is a symbol, not a noun phrase naming what a value measures.
    """
    core = re.sub(r"[<>≤≥⩽⩾=:()\[\]]", " ", subject).strip()
    core = " ".join(core.split())
    if not core:
        return True
    if len(core) == 1 and core.isalpha():
        return True
    return _STATISTIC.fullmatch(core) is not None


_BOUND = re.compile(
    r"(?:[<>≤≥⩽⩾]=?|\b(?:less|more|greater|fewer|lower|higher|smaller|larger)\s+than|"
    r"\b(?:below|above|exceeding|under|over)|\bp\s*(?:less|greater)\s+than)\s*$",
    re.IGNORECASE,
)


def is_bound(before: str) -> bool:
    """True when the text right before a value makes it a bound ("< 0.05", "≤500").

    Rationale: an inequality states a threshold or a range, not the value; ``P < 0.05``
    and ``P < 0.001``, or ``CD4 ≤350`` and ``CD4 ≤500``, are both true at once.
    ("at most 5" / "up to 5" are kept: in configuration text they state the limit.)
    """
    return _BOUND.search(before) is not None


_LABEL_NOUNS = re.compile(
    r"(?:\b(?:week|weeks|day|days|month|months|year|years|grade|grades|type|types|stage|"
    r"stages|round|rounds|cycle|cycles|visit|visits|class|wave|arm|exon|exons|intron|"
    r"chromosome|codon|generation|lane|passage|group|cohort|tier|category|quartile|"
    r"quintile|tertile|decile|cin|nyha|d|p)|"
    r"\bpostnatal\s+day|\bday)\s*$",
    re.IGNORECASE,
)


def is_label_number(before: str) -> bool:
    """True when a number directly follows a label noun that it names ("week 12").

    Rationale: "week 12", "grade 3", "type 1 diabetes", "year 1953", "D 100" use the number
    as an ordinal identifier (which week, which grade), as "step 3" does; it is not a
    value the sentence states about its subject.  Only a directly adjacent label counts:
    "the grade is 3" still states a value.
    """
    return _LABEL_NOUNS.search(before) is not None


_YEAR_BEFORE = re.compile(
    r"(?:[(\[]|\bet al\.?,?|\b(?:during|between|until|till|circa|through|since|year|years)|"
    r"\b(?:18|19|20)\d\d\s*(?:and|to|or|[–-]))\s*$",
    re.IGNORECASE,
)


def is_year(number: str, before: str, after: str) -> bool:
    """True for a four-digit 1800-2099 integer that reads as a year.

    It does when a year word precedes it ("between 1995", "since 2010", "1995 and
    2000"), it is in brackets or a citation ("(2015)", "et al., 2004") or it opens a
    year range ("1986-2000"); "in 2015" / "from 2015" are excluded as values already.
    Rationale: a year dates a study, a registry or a citation; it is never a count of
    the subject.  A bare "is 2048" stays a value (a buffer size is not a year).
    """
    if re.fullmatch(r"(?:18|19|20)\d\d", number) is None:
        return False
    closes = re.match(r"\s*(?:[)\]]|[–-]\s*(?:18|19|20)\d\d)", after)
    return bool(_YEAR_BEFORE.search(before) or closes)


def is_compound_modifier(after: str) -> bool:
    """True when a number is glued to a following word by a hyphen ("7-day", "4-phosphate").

    Rationale: "a 7-day point prevalence", "a 3-week run-in", "a 2-fold increase",
    "phosphatidylinositol 4,5-bisphosphate" use the number inside an adjective or a
    chemical name; it describes the next word and states no value of the subject.
    """
    return re.match(r"(?:,\d+)*-[^\W\d_]", after) is not None


#: Scientific notation: "4.64 × 10−4", "1.5 x 10(12)", "5 × 10^-8", "6.2 × 10(-28)".
SCI_NOTATION = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*[×xX*]\s*10\s*(?:\^|\(|\s)?\s*([−\-–]?\s?\d+)\)?(?![\d.])"
)


def sci_value(m: re.Match[str]) -> str:
    """The normalised text of a :data:`SCI_NOTATION` match ("4.64e-4").

    Rationale: mantissa and exponent are one number; read apart they become two unrelated
    counts ("4.64" and "4") that then "disagree" with every other number nearby.
    """
    exponent = re.sub(r"[−–\s]", lambda x: "-" if x.group(0) in "−–" else "", m.group(2))
    return f"{m.group(1)}e{int(exponent)}"


def concerns_question(subject_terms: set[str], question_terms: set[str], coverage: float) -> bool:
    """True when a conflict's subject is something the question asks about.

    It is when the subject shares a key term with the question, or at least half of the
    subject's key terms occur in the question (``coverage``).  Rationale: a subject
    without key terms ("p", "n", "there") cannot be shown to be what the question asks
    about; the coverage of an empty term set is vacuously 1.0, which let every such
    disagreement through.
    """
    if not subject_terms:
        return False
    return bool(subject_terms & question_terms) or coverage >= 0.5


_LINKED = re.compile(
    r"(?:\b(?:is|are|was|were|be|been|being|has|have|had|equals?|equalled|becomes?|became|"
    r"to|of|set to|defaults? to|totals?|totalled|numbered|uses|accepts|returns|expects|"
    r"sends|stores|requires|supports|runs|holds|keeps|allows|retains|needs|takes|serves|"
    r"handles|processes|caches|spawns|starts|opens|limits|caps|reserves|contains|includes)|"
    r"[=:：])"
    r"\s*(?:about|around|approximately|approx\.?|roughly|only|exactly|nearly|almost|just|"
    r"up to|at most|at least)?\s*$",
    re.IGNORECASE,
)
_NOT_A_NOUN = re.compile(
    r"\s+(?:and|or|in|per|of|to|vs\.?|versus|for|at|on|with|from|by|than|but|after|"
    r"before|during|among|when|if|while|whereas|respectively|times|fold|x)\b",
    re.IGNORECASE,
)


_DETERMINED = re.compile(r"\b(?:the|these|those|all|each|every|both|its|their|our)\s*$", re.I)


def is_unlinked_count(before: str, after: str) -> bool:
    """True when a unitless number only counts the noun after it ("the 6846 women").

    Rationale: "deletion of the N-terminal 23 amino acids", "among the 6846 women",
    "improved 0.26 points" use the number inside a noun phrase; nothing states it as the
    value of the phrase on its left.  A fact needs a link ("is", "=", ":", "has", "uses",
    "set to"…) right before the number ("the cluster has 3 nodes"), or no counted noun
    after it ("Retry limit 3", "males 3.8,").  A number right after a determiner ("the
    294 with levels of …") is inside a noun phrase whatever follows it.
    """
    if _DETERMINED.search(before):
        return True  # "the 294 with levels of …": the noun is elided, still a noun phrase
    if not re.match(r"\s+[^\W\d_]{2,}", after) or _NOT_A_NOUN.match(after):
        return False
    return _LINKED.search(before) is None


def is_confidence_level(after: str) -> bool:
    """True when a percentage names a confidence level ("95% CI", "95% confidence interval").

    Rationale: the 95 of "95% CI" is the interval's coverage, fixed by convention; it is
    not a proportion of anything the sentence is about.
    """
    return re.match(r"\s*(?:CI|CrI|PI|confidence|credible|prediction)\b", after, re.I) is not None


def in_brackets(text: str, pos: int) -> bool:
    """True when ``pos`` lies inside an unclosed "(" or "[" of ``text``.

    Used so a value in a bracket that has no subject of its own does not inherit the
    sentence's subject: "(95% CI 86.3% to 92.1%)", "(SD, 260)", "(n = 53)" annotate the
    value before them, they are not further values of its subject.
    """
    depth = 0
    for ch in text[:pos]:
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
    return depth > 0


_FRAMING = re.compile(
    r"^\s*(?-i:(?:[A-Z]{2,}\s+){1,4})?"  # an abstract's section label: "RESULTS", "MAIN OUTCOMES"
    r"((?:at|in|among|for|after|during|within|following|before|over|under|with|without|"
    r"compared with|in the case of)\s+[^,;:]{1,60}?),",
    re.IGNORECASE,
)
_DISCOURSE = re.compile(
    r"^(?:in|for|at|with|by|on)\s+(?:addition|contrast|summary|conclusion|particular|general|"
    r"practice|example|instance|short|brief|total|fact|turn|comparison|default|this\b.*|"
    r"that\b.*|these\b.*|our\b.*|the present\b.*|all cases|most cases|any case|"
    r"some cases|other words|the meantime|present|first|the end|last|least|most|short)$",
    re.IGNORECASE,
)


def framing_condition(sentence: str) -> str | None:
    """The condition a sentence opens with ("At 12 weeks," → ``"at 12 weeks"``), or None.

    Rationale: "At 12 weeks, abstinence was 43.2%" and "At 26 weeks, abstinence was
    27.6%" report one measure at two time points; "At 14 ng/L, sensitivity was 89.5%"
    and "At 3-5 ng/L, …97.4%" at two thresholds; "In boys, …" a subpopulation.  The
    framing phrase is a scope, compared like environment or version.  Discourse openers
    ("In addition,", "In this study,", "By default,") are not conditions.
    """
    m = _FRAMING.match(sentence)
    if not m:
        return None
    phrase = " ".join(m.group(1).lower().split())
    if _DISCOURSE.match(phrase):
        return None
    return phrase
