"""Facts stated in one sentence (:mod:`citewise.sufficiency.facts` explains the facts and
their rules): each typed value of the sentence, with the subject left of it in its clause
(or the sentence's previous subject), unless the number is a statistic, a bound, a
confidence level, a count inside a noun phrase or an annotation in brackets; qualified by
the nearest mentions and the sentence's framing condition."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from citewise.evidence.sentences import Span
from citewise.sufficiency._model import Fact, Qualifiers, _mask, _words
from citewise.sufficiency._numbers import (
    Tails,
    bracket_depths,
    framing_condition,
    is_bound,
    is_confidence_level,
    is_statistic_label,
    is_unlinked_count,
)
from citewise.sufficiency._qualifiers import _Dim, _Mention, _mentions
from citewise.sufficiency._subjects import _PRONOUN, _subject_for
from citewise.sufficiency._values import Value as _Value
from citewise.sufficiency._values import candidates as value_candidates
from citewise.sufficiency._values import chosen as chosen_values

__all__ = ["sentence_facts"]

_CLAUSE_SPLIT = re.compile(r"[;；,，]|\s(?:but|while|whereas|and|whilst)\s|\(|\)", re.I)


def _clauses(s: str) -> list[tuple[int, int]]:
    bounds = [0]
    for m in _CLAUSE_SPLIT.finditer(s):
        bounds.extend((m.start(), m.end()))
    bounds.append(len(s))
    return [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]


def _pick(dim: _Dim, pos: int, clause: tuple[int, int], mentions: list[_Mention]) -> str | None:
    own = [m for m in mentions if m.dim == dim]
    if not own:
        return None
    inside = [m for m in own if clause[0] <= m.start and m.end <= clause[1]]
    if inside:
        return min(inside, key=lambda m: abs(m.start - pos)).value
    before = [m for m in own if m.end <= clause[0]]
    if before:
        return max(before, key=lambda m: m.start).value
    if len({m.value for m in own}) == 1:
        return own[0].value
    return None


@dataclass(slots=True)
class _Sentence:
    """One masked sentence read once: its chosen values, qualifier mentions, clauses and
    framing condition (its bracket depths only when a value may be an annotation)."""

    s: str
    values: list[_Value]
    mentions: list[_Mention]
    clauses: list[tuple[int, int]]
    condition: str | None
    tails: Tails
    depths: list[int] | None = None

    @classmethod
    def read(cls, s: str, found: list[_Value]) -> _Sentence:
        mentions = _mentions(s)
        masked = [(m.start, m.end) for m in mentions if m.dim == "version"]
        values = chosen_values(found, masked)
        tails = Tails(s)
        clauses = _clauses(s)
        condition = framing_condition(s)
        if condition and any(m.dim != "time" for m in _mentions(condition)):
            condition = None  # "In staging," is an environment, already a qualifier
        return cls(s, values, mentions, clauses, condition, tails)

    def clause_of(self, value: _Value) -> tuple[int, int]:
        return next((c for c in self.clauses if c[0] <= value.start < c[1]), (0, len(self.s)))

    def own_subject(self, value: _Value, clause: tuple[int, int]) -> str | None:
        """The subject phrase left of ``value`` in its clause (offsets made clause-relative)."""
        start, end = clause
        in_clause = [v for v in self.values if start <= v.start and v.end <= end]
        rel = _Value(value.kind, value.value, value.start - start, value.end - start, 0)
        rel_vals = [_Value(v.kind, v.value, v.start - start, v.end - start, 0) for v in in_clause]
        return _subject_for(self.s[start:end], rel, rel_vals, self._mentions_in(clause))

    def _mentions_in(self, clause: tuple[int, int]) -> list[_Mention]:
        start, end = clause
        return [
            _Mention(m.dim, m.value, m.start - start, m.end - start)
            for m in self.mentions
            if start <= m.start and m.end <= end
        ]

    def annotation(self, value: _Value, clause: tuple[int, int]) -> bool:
        """A value in brackets in a clause with no qualifier mention: "(95% CI 1.26 to
        2.23)", "(n = 53)" annotate the value before, they state none."""
        if self._mentions_in(clause):
            return False
        self.depths = bracket_depths(self.s) if self.depths is None else self.depths
        return self.depths[value.start] > 0

    def not_a_value(self, value: _Value, clause: tuple[int, int], subject: str) -> bool:
        """A number that states no value of ``subject``: no subject at all, a bare number
        with a noise subject, a statistic or bound, a confidence level, a count inside a
        noun phrase."""
        s, tails = self.s, self.tails
        if not re.search(r"[^\W\d_]", subject):
            return True  # "–" of "30–90 s", stray symbols: no subject
        if _is_bare_number_noise(subject) and value.kind in ("count", "duration", "endpoint"):
            return True
        if value.kind in _NUMERIC_KINDS and (
            is_statistic_label(subject) or is_bound(tails.before(value.start, clause[0]))
        ):
            return True  # "P < 0.05", "n = 150", "CD4 ≤500": statistics and bounds, not values
        if value.kind == "percent" and is_confidence_level(s[value.end :]):
            return True  # the 95 of "95% CI" is a convention, not a proportion
        # "the 6846 women": a number inside a noun phrase states no value
        return value.kind == "count" and is_unlinked_count(
            tails.before(value.start, clause[0]), s[value.end :]
        )

    def qualifiers(self, value: _Value, clause: tuple[int, int]) -> Qualifiers:
        """The value's nearest environment, version, platform and time mentions, and the
        sentence's framing condition."""
        mentions = self.mentions
        return Qualifiers(
            _pick("environment", value.start, clause, mentions),
            _pick("version", value.start, clause, mentions),
            _pick("platform", value.start, clause, mentions),
            _pick("time", value.start, clause, mentions),  # type: ignore[arg-type]
            self.condition,
        )


def sentence_facts(
    span: Span, base: Qualifiers, prev_subject: str | None, doc_path: str, heading: tuple[str, ...]
) -> list[Fact]:
    """The facts of one sentence unit; ``prev_subject`` is the previous sentence's last
    subject (a pronoun may refer to it)."""
    s = _mask(span.text)
    found = value_candidates(s)
    if not found:
        return []  # no value, no fact (the rest below only qualifies values)
    sentence = _Sentence.read(s, found)
    facts: list[Fact] = []
    subject_prev = prev_subject
    for value in sentence.values:
        clause = sentence.clause_of(value)
        subject = sentence.own_subject(value, clause)
        if subject is None and sentence.annotation(value, clause):
            continue
        if subject is None or subject == _PRONOUN:
            # Empty phrase: continue this sentence's subject; a pronoun may also
            # refer to the previous sentence's last subject.
            inherited = subject_prev if (facts or subject == _PRONOUN) else None
            if inherited is None:
                continue
            subject = inherited
            if facts and value.kind == "count" and facts[-1].attribute in ("port", "status_code"):
                value = replace(value, kind=facts[-1].attribute)
        if sentence.not_a_value(value, clause, subject):
            continue
        subject, value = _refined(s, value, clause, subject)
        subject_prev = subject
        quals = sentence.qualifiers(value, clause).over(base)
        facts.append(_fact(span, value, subject, quals, doc_path, heading))
    return facts


def _refined(s: str, value: _Value, clause: tuple[int, int], subject: str) -> tuple[str, _Value]:
    """A status code's condition joins its subject ("503 when overloaded": the condition is
    part of what the code is the value *of*); a dotted count of a version subject is a
    version ("the current version is 4.2")."""
    if value.kind == "status_code":
        cond = _CONDITION.search(s[value.end : clause[1]])
        if cond:
            subject = subject + " " + " ".join(cond.group(0).lower().split())
    if value.kind == "count" and _VERSION_SUBJECT.search(subject) and "." in value.value:
        value = replace(value, kind="version")
    return subject, value


def _fact(
    span: Span,
    value: _Value,
    subject: str,
    quals: Qualifiers,
    doc_path: str,
    heading: tuple[str, ...],
) -> Fact:
    return Fact(
        subject=subject,
        attribute=value.kind,
        value=value.value,
        raw_value=span.text[value.start : value.end],
        start=span.start,
        end=span.end,
        text=span.text,
        value_start=span.start + value.start,
        value_end=span.start + value.end,
        qualifiers=quals,
        doc_path=doc_path,
        heading_path=heading,
    )


_VERSION_SUBJECT = re.compile(r"\b(?:version|release)s?\b|版本", re.IGNORECASE)
_NUMERIC_KINDS = frozenset(
    _words("count duration length size percent temperature voltage frequency volume mass")
)
_CONDITION = re.compile(r"\b(?:when|if|on|for|after|unless)\b[^.;,]*", re.IGNORECASE)


def _is_bare_number_noise(subject: str) -> bool:
    return bool(
        re.fullmatch(
            r"[\d\s.]*|steps?|sections?|items?|pages?|figures?|tables?|see|refer|use|run|"
            r"click|press|type|waits?|read|repeat|choose|select|calls?|exits?|returns?|"
            r"prints?|install|send|sends|retry",
            subject,
        )
    )
