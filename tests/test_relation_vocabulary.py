"""The relation vocabulary (issue 34): every entry's phrases and their inflections read as
its type, the passive and the inverse phrases flip direction, Chinese 被 does the same, and
a relation question is oriented by where its subject stands."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewise.analysis.question import analyse
from citewise.analysis.relations import VOCABULARY, find_relations, label_relation
from citewise.answer.relation.words import asked_relation, oriented


def _inflections(word: str) -> list[str]:
    """Regular English inflections of a verb or noun (third person/plural, past, -ing)."""
    if word.endswith("e"):
        return [word + "s", word + "d", word[:-1] + "ing"]
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return [word[:-1] + "ies", word[:-1] + "ied", word + "ing"]
    return [word + "s", word + "ed", word + "ing"]


#: Phrases whose first word is no regular verb: prepositions, adverbs, nouns and adjectives
#: ("part of", "then", "vs", "prerequisite"), irregular pasts ("led", "made"), and short
#: words whose final consonant doubles ("set up" -> "setting up").
_IRREGULAR = (
    "part member component subset contained included made led dependent due because then next "
    "before after vs versus different unlike opposite alternative instead rather similar "
    "analogous like same equivalent akin prerequisite successor predecessor replacement "
    "dependency requirement needed set contrasting compared therefore see come go"
)
_NOT_REGULAR = frozenset(_IRREGULAR.split())


def _entries() -> list[tuple[str, str, bool]]:
    """(phrase, kind, inverse) of every English phrase of the vocabulary."""
    out: list[tuple[str, str, bool]] = []
    for t in VOCABULARY:
        out += [(p, t.kind, False) for p in (*t.forward, *t.label_only)]
        out += [(p, t.kind, True) for p in (*t.inverse, *t.label_only_inverse)]
    return out


@pytest.mark.parametrize(("phrase", "kind", "inverse"), _entries())
def test_every_phrase_and_its_inflections_read_as_its_type(
    phrase: str, kind: str, inverse: bool
) -> None:
    assert label_relation(phrase) == (kind, inverse)
    first, *rest = phrase.split()
    if first in _NOT_REGULAR or rest[-1:] in (["of"], ["to"], ["for"], ["in"]):
        return
    for form in _inflections(first):
        inflected = " ".join([form, *rest])
        assert label_relation(inflected) == (kind, inverse), inflected
    # the passive flips the direction: "X is required by Y" is "Y requires X"
    past = _inflections(first)[1]
    assert label_relation(" ".join(["is", past, *rest, "by"])) == (kind, not inverse)


@pytest.mark.parametrize(
    ("word", "kind", "inverse"),
    [(w, t.kind, False) for t in VOCABULARY for w in t.zh]
    + [(w, t.kind, True) for t in VOCABULARY for w in t.zh_inverse],
)
def test_every_chinese_word_reads_as_its_type_and_bei_flips_it(
    word: str, kind: str, inverse: bool
) -> None:
    assert label_relation(word) == (kind, inverse)
    assert label_relation("被" + word) == (kind, not inverse)


@pytest.mark.parametrize(
    ("label", "kind", "inverse"),
    [
        ("succeeded by", "replaces", True),  # X succeeded by Y == Y replaces X
        ("succeeds", "replaces", False),
        ("degrades", "degrades", False),
        ("degraded by", "degrades", True),
        ("followed by", "precedes", False),  # X followed by Y == X precedes Y
        ("follows", "precedes", True),
        ("consists of", "part_of", True),
        ("depended on", "requires", False),
        ("on failure, leads to", "causes", False),
        ("uses", "uses", False),
        ("configured by", "configures", True),
        ("被取代", "supersedes", True),
        ("由压缩器组成", "part_of", True),
        ("approved by legal", None, None),
    ],
)
def test_labels_by_meaning(label: str, kind: str | None, inverse: bool | None) -> None:
    got = label_relation(label)
    assert (got[0], got[1]) == (kind, inverse) if got else kind is None


@settings(deadline=None)  # a loaded machine must not fail the property
@given(
    entry=st.sampled_from(
        [(p, k, i) for p, k, i in _entries() if p.split()[0] not in _NOT_REGULAR]
    ),
    condition=st.sampled_from(["", "on failure, ", "after 5 retries: ", "if enabled; "]),
    case=st.sampled_from([str.lower, str.upper, str.title]),
)
def test_a_condition_before_the_verb_does_not_change_the_type(
    entry: tuple[str, str, bool], condition: str, case: object
) -> None:
    phrase, kind, inverse = entry
    assert callable(case)
    assert label_relation(condition + case(phrase)) == (kind, inverse)


@settings(deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_any_text_reads_without_error(text: str) -> None:
    for hit in find_relations(text):
        assert 0 <= hit.start < hit.end <= len(text) + 4  # NFKC may lengthen a little


@pytest.mark.parametrize(
    ("question", "subject", "kinds", "direction"),
    [
        ("What replaced Ledger Classic?", "Ledger Classic", ("supersedes", "replaces"), "in"),
        (
            "Ledger Classic was succeeded by what?",
            "Ledger Classic",
            ("supersedes", "replaces"),
            "in",
        ),
        ("What did Ledger Nova supersede?", "Ledger Nova", ("supersedes", "replaces"), "out"),
        ("What does Ledger Nova require before first use?", "Ledger Nova", ("requires",), "out"),
        ("Before first use, what does Ledger Nova need?", "Ledger Nova", ("requires",), "out"),
        ("Which component relies on the key vault?", "key vault", ("requires",), "in"),
        ("What degrades Ledger Nova?", "Ledger Nova", ("degrades",), "in"),
        ("What is Ledger Nova degraded by?", "Ledger Nova", ("degrades",), "in"),
        ("What does journal fragmentation weaken?", "journal fragmentation", ("degrades",), "out"),
        ("What configures the snapshot import?", "snapshot import", ("configures",), "in"),
        # the relation word inside the subject's own title is not the asked phrase
        (
            "What replaced the replacement queue?",
            "replacement queue",
            ("supersedes", "replaces"),
            "in",
        ),
        ("What does the dependency checker depend on?", "dependency checker", ("requires",), "out"),
        ("什么取代了经典账本？", "经典账本", ("supersedes", "replaces"), "in"),
        ("经典账本被什么取代了？", "经典账本", ("supersedes", "replaces"), "in"),
        ("新星账本依赖什么？", "新星账本", ("requires",), "out"),
        ("什么会降低新星账本的性能？", "新星账本", ("degrades",), "in"),
        ("新星账本包含哪些部分？", "新星账本", ("part_of",), "in"),
    ],
)
def test_questions_are_oriented_by_their_subject(
    question: str, subject: str, kinds: tuple[str, ...], direction: str
) -> None:
    asked = asked_relation(analyse(question))
    assert asked is not None
    seen = oriented(asked, analyse(question), subject)
    assert (seen.kinds, seen.direction) == (kinds, direction)


@pytest.mark.parametrize(
    "question",
    [
        "How do I configure the snapshot import?",  # a procedure, not what configures it
        "Which requirement did the committee publish last?",  # a noun, not the verb
        "Which page replacement algorithm does the paper evaluate?",
        "Who is the on-call engineer this week?",  # a hyphenated compound, no verb
        "Which settings break behind the proxy used during a failover?",  # a participle
        "What is the ledger service?",
        "什么是账本服务？",
    ],
)
def test_questions_that_ask_no_relation(question: str) -> None:
    assert asked_relation(analyse(question)) is None
