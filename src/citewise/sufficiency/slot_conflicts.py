"""Value and entity conflicts across documents for the asked slot (issue 34).

The fact reader (:mod:`citewise.sufficiency.facts`) knows a fixed set of attributes
(ports, owners, winners, versions…); a disagreement about anything else ("the edict was
declared in 1685" against "… in 1598", "Newton formed the theory" against "Hooke formed
the theory") passed as two clean quotes. This module reads disagreement from the shape
of the text instead of from attribute words: two sentences of two different documents
that both concern the question and say *the same thing* except for one short stretch,
where each side states a value of the same kind, state different values for one fact.

The class of text it handles: parallel statements, a sentence and its variant in another
source (a copy edited by someone, two reports of one event, an older and a newer write-up
of one procedure), in any register: the comparison is by word alignment, not by vocabulary.
The rules, each for a named reason:

* **same statement**: the aligned (equal) words are at least :data:`MIN_SHARED` of the
  longer sentence, in at most :data:`MAX_REGIONS` differing stretches of at most
  :data:`MAX_REGION_WORDS` words a side: a paraphrase or another fact about the same
  subject is not a disagreement;
* **a value on both sides, of one kind**, in every differing stretch (a stretch of other
  words, "in staging" against "in production", is a qualifier: two cases): a date (a
  year, month, century…), a number or count, or a name (capitalised words), read by
  :func:`value_kinds`; when the question asks a slot (*when* → date, *how many/much* →
  number, *who/where* → name) the kind must be it;
* **not the question's own scope**: a differing stretch made only of the question's
  words ("2019" against "2020" for a question about 2019) separates two cases, it does
  not contradict;
* **concerns the question**: each sentence, read with the sentence before it (its
  context: the subject is often named there and the value here), holds at least
  :data:`MIN_COVERAGE` of the question's key terms, and one side lies in the pack's
  direct support (the answer rests on it); stale editions are left out (a newer edition
  supersedes, it does not conflict), and so are two editions of one document
  (:func:`citewise.analysis.scope.editions_of_one`: paths alike but for their year or
  version): their values changed between editions, which the edition scope answers.

Thresholds were chosen on the counterfactual SQuAD pairs of ``bench/conflict_pairs.py``
(seed 58) and checked not to fire on the documents, papers, starlette and squad2 pools
(``bench/answers_pool.py``); docs/architecture.md lists them as left-out corpora.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Literal, NamedTuple

from citewise.analysis.question import Question
from citewise.analysis.scope import editions_of_one
from citewise.analysis.tokenize import word_tokens
from citewise.core.search import Hit
from citewise.evidence.augment import hit_fragment
from citewise.evidence.models import EvidencePack, Fragment
from citewise.evidence.sentences import split_sentences
from citewise.sufficiency.answer_type import gives_date, gives_quantity
from citewise.sufficiency.models import ConflictNote, ConflictSide

__all__ = ["MIN_SHARED", "Statement", "slot_conflicts", "value_kinds", "variant_values"]

Kind = Literal["date", "number", "name"]
#: The kinds in the order a value that is several (a bare "1685") is named by.
KIND_ORDER: tuple[Kind, ...] = ("date", "number", "name")
ANY = frozenset(KIND_ORDER)

#: Share of the longer sentence's words that must align: two sentences of one statement.
MIN_SHARED = 0.6
#: Differing stretches allowed between the two sentences, and their length in words.
MAX_REGIONS = 2
MAX_REGION_WORDS = 6
#: Share of the question's key terms each sentence must hold.
MIN_COVERAGE = 0.34
#: How many of recall's best hits are read besides the pack (a side the pack left out).
HITS_READ = 8

_TOKEN = re.compile(r"\w+(?:[.,'’-]\w+)*|[^\w\s]")
_WHEN = (
    r"^\s*(?:when\b|(?:in |by |since |until )?(?:what|which) "
    r"(?:year|date|month|day|century|decade)\b)"
)
_SLOT: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (re.compile(_WHEN, re.I), "date"),
    (re.compile(r"^\s*how (?:many|much)\b", re.I), "number"),
    (re.compile(r"^\s*(?:who|whom|whose|where)\b", re.I), "name"),
)
_VALUE_HINT = re.compile(r"\d|\S\s+[A-Z]")
_NAME_WORD = re.compile(r"^[A-Z\u00c0-\u00de][\w'’.-]*$")


class Statement(NamedTuple):
    """One sentence of one document: its fragment (for the citation), exact offsets and
    text."""

    fragment: Fragment
    start: int
    end: int
    text: str
    direct: bool
    before: str = ""  # the sentence before it in the same fragment (its context)


def asked_slot(question: Question) -> Kind | None:
    """The kind of value the question's opening asks for, or None (any kind)."""
    for pattern, kind in _SLOT:
        if pattern.match(question.text):
            return kind
    return None


def value_kinds(text: str) -> frozenset[Kind]:
    """The kinds of value a differing stretch can state: a date, a number or count, a name
    (a capitalised word that is not a stopword, "The" names nothing, in a stretch that is
    no date: "12 March" is a date). "500" may be a year
    or a count, so both; two sides agree in kind when they share one."""
    kinds: set[Kind] = set()
    if gives_date(text):
        kinds.add("date")
    if gives_quantity(text) or re.search(r"\d", text):
        kinds.add("number")
    if "date" not in kinds and any(_NAME_WORD.match(w) and word_tokens(w) for w in text.split()):
        kinds.add("name")
    return frozenset(kinds)


def _own_case(value: str, asked: set[str]) -> bool:
    """The stretch is only words of the question ("2019" for a question about 2019): it
    names the question's own case, so the other side is another case, not another value."""
    words = set(word_tokens(value))
    return bool(words) and words <= asked


def variant_values(a: str, b: str, question: Question) -> tuple[str, str, Kind] | None:
    """When ``a`` and ``b`` state one fact with different values: (value in a, value in
    b, kind); else None (see the module docstring for the rules)."""
    ta, tb = _tokens(a), _tokens(b)
    if not ta or not tb or not _may_share(ta, tb):
        return None
    sm = SequenceMatcher(None, [t[0] for t in ta], [t[0] for t in tb], autojunk=False)
    shared = sum(size for _, _, size in sm.get_matching_blocks())
    if shared < MIN_SHARED * max(len(ta), len(tb)):
        return None
    regions = [op for op in sm.get_opcodes() if op[0] != "equal"]
    if not regions or len(regions) > MAX_REGIONS:
        return None
    asked = set(word_tokens(question.text))
    slot = asked_slot(question)
    found: tuple[str, str, Kind] | None = None
    for _tag, i1, i2, j1, j2 in regions:
        if max(i2 - i1, j2 - j1) > MAX_REGION_WORDS:
            return None
        va = a[ta[i1][1] : ta[i2 - 1][2]] if i2 > i1 else ""
        vb = b[tb[j1][1] : tb[j2 - 1][2]] if j2 > j1 else ""
        if _own_case(va, asked) or _own_case(vb, asked):
            return None  # the stretch names the question's own case: two scopes
        common = value_kinds(va) & value_kinds(vb) & (ANY if slot is None else {slot})
        if not (va and vb and common):
            return None  # another word differs too ("in staging" / "in production")
        found = found or (va, vb, min(common, key=KIND_ORDER.index))
    return found


_Tokens = tuple[tuple[str, int, int], ...]


@lru_cache(maxsize=4096)
def _tokens(text: str) -> _Tokens:
    """Words and punctuation of a sentence with their offsets (kept: a sentence is
    compared with every other one)."""
    return tuple((m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text))


def _may_state_value(text: str) -> bool:
    """A cheap test before the coverage: a digit, a capitalised word after the first, or
    a first word that is no stopword ("Newton, however, …"); a sentence with none of
    them states no date, number or name."""
    if _VALUE_HINT.search(text):
        return True
    first = text.split(maxsplit=1)[0].strip(",;:()\"'") if text.strip() else ""
    return bool(_NAME_WORD.match(first) and word_tokens(first))


def _may_share(ta: _Tokens, tb: _Tokens) -> bool:
    """A cheap bound before the alignment: the words two sentences share (as multisets)
    reach :data:`MIN_SHARED` of the longer one."""
    need = MIN_SHARED * max(len(ta), len(tb))
    if min(len(ta), len(tb)) < need:
        return False
    common = Counter(t[0] for t in ta) & Counter(t[0] for t in tb)
    return sum(common.values()) >= need


def statements(pack: EvidencePack, hits: Sequence[Hit], stale: Iterable[str]) -> list[Statement]:
    """The sentences of the pack's direct support and of recall's best hits (documents the
    pack may have left out), stale editions and truncated fragments excepted."""
    skip = set(stale)
    out: list[Statement] = []
    seen: set[tuple[str, int, int]] = set()

    def add(frag: Fragment, text: str, base: int, direct: bool) -> None:
        before = ""
        for sp in split_sentences(text, base, blocks=False):
            key = (frag.path, sp.start, sp.end)
            sentence = text[sp.start - base : sp.end - base]
            if key not in seen:
                seen.add(key)
                out.append(Statement(frag, sp.start, sp.end, sentence, direct, before))
            before = sentence

    for f in pack.direct:
        if f.path not in skip and not f.truncated:
            add(f, f.text, f.char_start, True)
    for h in hits[:HITS_READ]:
        if h.path not in skip:
            add(_hit_fragment(h), h.excerpt, h.char_start, False)
    return out


def slot_conflicts(
    question: Question,
    pack: EvidencePack,
    hits: Sequence[Hit] = (),
    stale: Iterable[str] = (),
    known: Sequence[ConflictNote] = (),
) -> list[ConflictNote]:
    """Conflicts between parallel statements of two documents on the asked value, not
    already among ``known`` (the fact reader's)."""
    if not question.key_terms:
        return []
    about = [
        s
        for s in statements(pack, hits, stale)
        if _may_state_value(s.text)
        and question.coverage(f"{s.before} {s.text}").ratio >= MIN_COVERAGE
    ]
    taken = {(side.fragment.path, side.start) for n in known for side in n.sides}
    names = question_names(question.text)
    held = [_names_held(names, st) for st in about]  # read once per statement
    notes: list[ConflictNote] = []
    for i, a in enumerate(about):
        for j in range(i + 1, len(about)):
            b = about[j]
            if a.fragment.path == b.fragment.path or not (a.direct or b.direct):
                continue
            if editions_of_one(a.fragment.path, b.fragment.path):  # changed between editions
                continue
            if held[i] != held[j]:  # two subjects, not one
                continue
            if (a.fragment.path, a.start) in taken or (b.fragment.path, b.start) in taken:
                continue
            found = variant_values(a.text, b.text, question)
            if found is None:
                continue
            notes.append(_note(question, a, b, found))
            taken |= {(a.fragment.path, a.start), (b.fragment.path, b.start)}
    return notes


def question_names(text: str) -> frozenset[str]:
    """The tokens of the names a question uses (capitalised words past its first word):
    the subject it asks about, such as a product or a person."""
    words = text.split()[1:]
    return frozenset(
        t for w in words if _NAME_WORD.match(w.strip("?,.;:!\"'")) for t in word_tokens(w)
    )


def _names_held(names: frozenset[str], s: Statement) -> frozenset[str]:
    """Which of the question's names a statement's document context holds: its path,
    section path, the sentence before it and itself. Two sentences alike but for one
    value whose documents name different subjects of the question (one document titled
    for the asked product, the other for another) state two cases, not a conflict."""
    f = s.fragment
    where = f"{f.path} {' '.join(f.heading_path)} {s.before} {s.text}"
    return names & frozenset(word_tokens(where))


def _note(
    question: Question, a: Statement, b: Statement, found: tuple[str, str, Kind]
) -> ConflictNote:
    va, vb, kind = found
    sides = (
        ConflictSide(a.fragment, a.start, a.end, a.text, va),
        ConflictSide(b.fragment, b.start, b.end, b.text, vb),
    )
    subject = question.intent.subject or question.text
    sentence = (
        f"The sources disagree: {a.fragment.path} gives {va} and {b.fragment.path} gives {vb}."
    )
    return ConflictNote(subject, kind, sentence, sides, f"value_mismatch:{kind}:parallel")


def _hit_fragment(h: Hit) -> Fragment:
    """A recall hit as a fragment a conflict side can be cited from."""
    return hit_fragment(h, role="conflict", reason="conflict_source", rank=float(h.rank))
