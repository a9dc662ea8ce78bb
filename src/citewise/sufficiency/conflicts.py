"""Conflicting facts: same subject and attribute, different value, same scope.

Input: :class:`citewise.sufficiency.facts.Fact` objects from any number of
sections and documents.  Two facts conflict when

1. their **subject keys** are equal (:func:`subject_key`: lower-cased, stemmed
   words without stopwords, ``default``/``current`` and the attribute's own
   nouns — so "API port" ≈ "api ports", "sync service owner" ≈ "sync service" for
   owners; endpoint paths and dotted config keys are compared literally, so
   ``/api/v1/sync`` and ``/api/v2/sync`` are *different subjects*);
2. their **attribute** (value kind: port, count, format, …) is equal;
3. their normalised **values** differ;
4. their **scopes** do not separate them (:func:`scopes_separate`).

Scope policy (conservative — a conflict is only reported when the two
statements can be read as talking about the same situation):

* environment, platform, version: different values separate, and so does one
  stated vs one unstated — an unqualified statement is read as the general case
  and a qualified one as an override ("port 8443; in staging 9443");
* time: unstated is read as ``current``; historical / planned / current differ
  ("previously 3, now 5" is a change, not a contradiction);
* condition: the phrase a sentence opens with ("At 12 weeks,", "Among women with
  X,") separates like environment — one measure at two time points, thresholds or
  subpopulations is two findings, not a contradiction.

Synonyms (:data:`SYNONYMS`) are deliberately few and exact-phrase: only the
retry-limit family ("max attempts", "maximum retries", "number of retries"…),
matched as the *end* of the subject phrase, so "sync max attempts" ≈ "sync retry
limit" but never ≈ plain "retry limit".  Two facts from the same sentence or
row never conflict with each other (a sentence listing "JSON and YAML" states
two supported values, not a contradiction), nor do rows of one table or items of
one list (``Fact.group``: they enumerate); a table, list or sentence that gives
several values for one subject in one scope lists options, none of which
contradicts anything elsewhere.  Version values only conflict when
both subjects name a role ("minimum", "latest", "required"…) — a product has
many versions.  A subject that is only the
attribute's noun ("the port is 8443") is compared within its own document only
(:func:`is_generic_subject`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from citewise.analysis.tokenize import literal_tokens, word_tokens
from citewise.sufficiency.facts import Fact, Qualifiers

__all__ = [
    "SYNONYMS",
    "Conflict",
    "comparable_value",
    "find_conflicts",
    "is_generic_subject",
    "scopes_separate",
    "subject_key",
]

#: phrase → canonical phrase (matched at the end of a subject, whole words).
SYNONYMS: dict[str, str] = {
    phrase: "retry limit"
    for phrase in (
        "retry limit", "retry count", "retries limit", "max retries", "maximum retries",
        "max attempts", "maximum attempts", "max retry attempts", "maximum retry attempts",
        "number of retries", "maximum number of retries", "max number of retries",
        "retry attempts", "attempt limit", "retries", "max_attempts", "max_retries",
        "重试次数", "重试上限", "最大重试次数", "重试次数上限",
    )
}  # fmt: skip

_ATTRIBUTE_NOUNS: dict[str, frozenset[str]] = {
    "port": frozenset({"port", "ports", "number", "端口", "端口号"}),
    "owner": frozenset({"owner", "owners", "ownership", "maintainer", "maintainers", "负责人"}),
    "format": frozenset({"format", "payload", "payloads", "body", "encoding", "格式"}),
    "engine": frozenset({"engine", "storage", "database", "db", "backend", "store", "存储"}),
    "protocol": frozenset({"protocol", "transport", "协议"}),
    "endpoint": frozenset({"endpoint", "route", "url", "接口"}),
    "location": frozenset({"location", "directory", "dir", "path", "file", "路径"}),
    "status_code": frozenset({"status", "code", "状态码"}),
    "version": frozenset({"version", "版本"}),
    "date": frozenset({"date", "日期"}),
}
_SCOPE_WORDS = frozenset({"default", "defaults", "current", "currently", "默认"})
_ROLE = re.compile(
    r"\b(?:minimum|min|latest|current|required|recommended|supported|default|stable|lts)\b|"
    r"最低|最新|当前|推荐",
    re.IGNORECASE,
)
_LITERAL_SUBJECT = re.compile(r"^(?:[A-Z]+ )?/\S*$|^[\w\-]+(?:\.[\w\-]+)+$")


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two facts that state different values for the same thing in the same scope.

    ``reason`` is machine-readable: ``"value_mismatch:<attribute>:<scope>"`` where
    scope is ``unscoped`` (no qualifiers on either side) or ``same_scope``.
    """

    a: Fact
    b: Fact
    subject: str
    attribute: str
    reason: str

    @property
    def citations(self) -> tuple[tuple[str, int, int], tuple[str, int, int]]:
        """``(doc_path, start, end)`` of both facts' sentences/rows."""
        return (
            (self.a.doc_path, self.a.start, self.a.end),
            (self.b.doc_path, self.b.start, self.b.end),
        )

    @property
    def values(self) -> tuple[str, str]:
        return (self.a.value, self.b.value)


def _canonical(phrase: str) -> str:
    """Replace a synonym at the end of ``phrase`` by its canonical form."""
    for syn, canon in sorted(SYNONYMS.items(), key=lambda kv: -len(kv[0])):
        if phrase == syn:
            return canon
        cjk = re.match(r"[\u3400-\u9fff]", syn) is not None
        if phrase.endswith(syn) and (cjk or phrase[-len(syn) - 1] in " ._"):
            return phrase[: -len(syn)].rstrip(" ._的") + " " + canon
    return phrase


def subject_key(subject: str, attribute: str) -> str:
    """The comparable form of a fact's subject (see module docstring)."""
    s = " ".join(subject.split())
    if _LITERAL_SUBJECT.match(s):
        return s  # endpoint paths and config keys: exact identity
    low = s.lower()
    nouns = _ATTRIBUTE_NOUNS.get(attribute, frozenset())
    kept = [w for w in low.split() if w not in _SCOPE_WORDS]
    stripped = [w for w in kept if w not in nouns]
    phrase = _canonical(" ".join(stripped or kept))
    for noun in nouns:  # CJK: attribute nouns glued to the subject
        if re.search(r"[\u3400-\u9fff]", noun) and phrase.endswith(noun) and phrase != noun:
            phrase = phrase[: -len(noun)].rstrip("的 ")
    cjk = [w for w in phrase.split() if re.search(r"[\u3400-\u9fff]", w)]
    words = word_tokens(phrase) + literal_tokens(phrase) + cjk
    return " ".join(words) if words else phrase


def is_generic_subject(subject: str, attribute: str) -> bool:
    """True when the subject is only the attribute's own noun ("port", "owner").

    Such a fact says nothing about *which* thing it describes, so it is only
    compared with facts of the same document (where it plausibly means the same
    thing), never across documents.
    """
    nouns = _ATTRIBUTE_NOUNS.get(attribute, frozenset())
    words = [w for w in subject.lower().split() if w not in _SCOPE_WORDS]
    return not [w for w in words if w not in nouns]


def scopes_separate(a: Qualifiers, b: Qualifiers) -> str | None:
    """The first qualifier dimension that separates ``a`` and ``b``, or None."""
    if a.environment != b.environment:
        return "environment"
    if a.platform != b.platform:
        return "platform"
    if a.version != b.version:
        return "version"
    if (a.time or "current") != (b.time or "current"):
        return "time"
    if a.condition != b.condition:
        return "condition"
    return None


def _unscoped(q: Qualifiers) -> bool:
    return q == Qualifiers()


_TEAM_SUFFIX = re.compile(r"(?:\s+(?:team|group|squad|department|dept\.?|团队|组))+$")


def comparable_value(attribute: str, value: str) -> str:
    """The form of ``value`` two facts are compared in.

    Owners are compared without a trailing team noun ("Fleet Platform" =
    "Fleet Platform team"); every other value is already normalised.
    """
    if attribute == "owner":
        return _TEAM_SUFFIX.sub("", value.strip()) or value
    return value


def _options(groups: Iterable[list[Fact]]) -> set[int]:
    """Facts (by ``id``) that one table, list or sentence gives as alternatives.

    A table or list (``Fact.group``) that gives several values for one subject
    in one scope enumerates options ("PostgreSQL (backend: postgres)", "SQLite
    (backend: sqlite)"); none of them is *the* value, so they contradict nothing.
    The same holds for one sentence: "mortality was 29 in boys and 69 in girls",
    "(males 3.8, females 3.4), … (males 1.9, females 1.6)" vary something the
    qualifiers do not capture (population, stratum, comparison), so neither value
    is the subject's value in general.  Values separated by a qualifier ("9443 in
    staging and 8443 in production", "was 3, now 5") are not options.
    """
    values: dict[tuple[object, ...], set[str]] = defaultdict(set)
    members: dict[tuple[object, ...], list[Fact]] = defaultdict(list)
    for group in groups:
        for f in group:
            unit: object = f.group if f.group >= 0 else ("sentence", f.start)
            key = subject_key(f.subject, f.attribute)
            ident: tuple[object, ...] = (key, f.attribute, f.doc_path, unit, f.qualifiers)
            values[ident].add(comparable_value(f.attribute, f.value))
            members[ident].append(f)
    return {id(f) for k, fs in members.items() if len(values[k]) > 1 for f in fs}


def _roles(f: Fact) -> frozenset[str]:
    return frozenset(m.group(0).lower() for m in _ROLE.finditer(f"{f.subject} {f.text}"))


def _same_role(a: Fact, b: Fact) -> bool:
    """Two versions conflict only as the same role of one thing ("current" and "current";
    never "minimum" against "recommended"). The role may sit in the subject or, when the
    subject lost it as a time qualifier ("the current version of X is 4.2"), the sentence."""
    ra, rb = _roles(a), _roles(b)
    return bool(ra) and ra == rb


def find_conflicts(facts: Iterable[Fact]) -> list[Conflict]:
    """All pairs of facts that conflict, in input order (see module docstring)."""
    groups: dict[tuple[str, str, str], list[Fact]] = defaultdict(list)
    for fact in facts:
        doc = fact.doc_path if is_generic_subject(fact.subject, fact.attribute) else ""
        groups[(subject_key(fact.subject, fact.attribute), fact.attribute, doc)].append(fact)
    options = _options(groups.values())
    out: list[Conflict] = []
    seen: set[tuple[object, ...]] = set()
    for (key, attribute, _doc), group in groups.items():
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                if comparable_value(attribute, a.value) == comparable_value(attribute, b.value):
                    continue
                if id(a) in options or id(b) in options:
                    continue  # alternatives listed by one table / list
                if a.doc_path == b.doc_path and (
                    (a.start == b.start and a.end == b.end) or (a.group >= 0 and a.group == b.group)
                ):
                    continue  # same sentence / row, or one table / list enumerating values
                if attribute == "version" and not _same_role(a, b):
                    continue  # a product has many versions; only a role ("minimum") is single
                if a.doc_path == b.doc_path and min(a.group, b.group) >= 0 and a.group != b.group:
                    continue  # two tables or lists of one document: each states its own case
                if scopes_separate(a.qualifiers, b.qualifiers):
                    continue
                ident = (
                    key,
                    attribute,
                    frozenset(((a.doc_path, a.start, a.value), (b.doc_path, b.start, b.value))),
                )
                if ident in seen:
                    continue
                seen.add(ident)
                scope = (
                    "unscoped"
                    if _unscoped(a.qualifiers) and _unscoped(b.qualifiers)
                    else ("same_scope")
                )
                out.append(Conflict(a, b, key, attribute, f"value_mismatch:{attribute}:{scope}"))
    return out
