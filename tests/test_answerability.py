"""Answer types, structural non-answers and the answerability score (issue 34).

Texts come from two kinds of corpus at least: documentation (starlette/click-style
sentences) and reports or papers (dated, counted statements)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.analysis.question import analyse
from citewise.errors import UsageError
from citewise.kb import Home
from citewise.sufficiency.answer_type import READERS, AnswerType, Reader, expected, present
from citewise.sufficiency.answerability import (
    Signals,
    answerability,
    answerable_min,
    refusal,
    setting,
)
from citewise.sufficiency.constraints import question_constraints, unmet
from citewise.sufficiency.structure import structural, title_line

T = AnswerType


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When does the on-call rotation change?", T.TIME),
        ("When does a Starlette background task run?", T.TIME),
        ("When was End-to-End Arguments in System Design published?", T.TIME),
        ("How often are Chubby KeepAlives exchanged by default?", T.TIME),
        ("How many replicas of each chunk does GFS store?", T.NUMBER),
        ("What percentage of requests time out?", T.NUMBER),
        ("Who wrote End-to-End Arguments in System Design?", T.AGENT),
        ("Which company maintains Starlette?", T.AGENT),
        ("Where should my CLI application store its configuration files?", T.PLACE),
        ("In which file are the settings kept?", T.PLACE),
        ("Is the session middleware thread-safe?", T.YES_NO),
        ("What is a sync cursor?", T.DEFINITION),
        # a "when" inside the question is its condition, not the type asked
        ("What response does the middleware send when the Host header is invalid?", None),
        ("How do I add an option?", None),
    ],
)
def test_the_expected_type_of_a_question(question: str, kind: AnswerType | None) -> None:
    assert expected(analyse(question)) is kind


def test_a_time_is_a_date_clock_weekday_frequency_duration_or_occasion() -> None:
    for text in (
        "The on-call engineer changes every Monday at 10:00.",  # a folder of notes
        "The prohibition takes effect two years after enactment.",  # a statute
        "Background tasks run after the response has been sent.",  # documentation
        "Blocks are generated every 10 minutes.",  # a paper
        "Reports are filed weekly.",
        "The paper appeared in 1984.",
    ):
        assert T.TIME in present(text), text
    for text in ("On-call rotation", "The handler returns a plain text response."):
        assert T.TIME not in present(text), text


def test_numbers_agents_places_and_definitions_are_read_from_the_text() -> None:
    assert T.NUMBER in present("GFS stores three replicas of each chunk.")
    assert T.NUMBER in present("The directive affects 73 airplanes of U.S. registry.")
    assert T.NUMBER not in present("The master keeps the metadata in memory.")
    assert T.AGENT in present("The paper was written by Jerome Saltzer and David Reed.")
    assert T.PLACE in present("The team meets in room 4B on Thursdays.")
    assert T.PLACE in present("Configuration goes to ~/.config/app/settings.toml.")
    assert T.DEFINITION in present("A sync cursor is a position in the change log.")


def test_a_script_without_a_reader_expects_nothing_and_a_reader_plugs_in() -> None:
    han = READERS.pop("han")
    try:
        assert expected(analyse("会议什么时候开始？")) is None
        READERS["han"] = Reader(
            lambda t: T.TIME if "什么时候" in t else None, lambda t: frozenset()
        )
        assert expected(analyse("会议什么时候开始？")) is T.TIME
    finally:
        READERS["han"] = han


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("On-call rotation", "heading"),
        ("Replica placement", "heading"),
        ("Figure 3: Write throughput per chunkserver", "caption"),
        ("Table 2 Firearm checks by state, November 2015", "caption"),
        ("The following options are accepted:", "lead_in"),
        ("See also: [Routing](routing.md), [Requests](requests.md)", "links"),
        ("https://www.starlette.io/ https://click.palletsprojects.com/", "links"),
        ("3.2 Replica placement .......... 14", "toc"),
        ("4.1 Namespace Management and Locking 10", "toc"),
    ],
)
def test_structural_lines_by_class(text: str, kind: str) -> None:
    assert structural(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "The on-call engineer changes every Monday at 10:00.",
        "Defaults to 10",  # a short statement: it has a verb
        "GFS stores three replicas of each chunk.",
        "See the routing guide for how paths are matched against the request.",
    ],
)
def test_statements_are_no_structural_line(text: str) -> None:
    assert structural(text) is None


def test_chinese_lines_are_structural_only_by_their_node_kind() -> None:
    assert structural("第五条 公民担任人民陪审员，应当具备下列条件：") is None
    assert structural("人民陪审员法") is None
    assert structural("人民陪审员法", "heading") == "heading"


def test_a_node_kind_decides_before_the_shape() -> None:
    assert structural("The routing table is rebuilt on startup.", "heading") == "heading"
    assert structural("Write throughput per chunkserver", "caption") == "caption"
    assert not title_line("The routing table is rebuilt on startup.")


def test_the_score_gates_types_and_scores_structure_down() -> None:
    when = Signals(0.9, T.TIME, present("On-call rotation"), structural("On-call rotation"))
    assert refusal(when) == "structure:heading" and answerability(when) == 0.0
    count = Signals(0.9, T.NUMBER, present("The master keeps metadata in memory."))
    assert refusal(count) == "type:number" and answerability(count) == 0.0
    plain = Signals(0.8, T.DEFINITION, present("Sync cursors"), "heading")
    assert refusal(plain) == "" and answerability(plain) == pytest.approx(0.4)
    lead = "You can save configuration files in the directory of `get_app_dir()`:"
    where = Signals(0.8, T.PLACE, present(lead), structural(lead))
    assert where.structure == "lead_in" and refusal(where) == ""  # it holds a place
    assert refusal(Signals(0.8, T.PLACE, present("Run it like this:"), "lead_in"))
    who = Signals(0.8, T.AGENT, frozenset({T.YES_NO}))
    assert answerability(who) == pytest.approx(0.64)


def test_thresholds_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert answerable_min() == 0.3
    monkeypatch.setenv("CITEWISE_ANSWERABLE_MIN", "0.45")
    assert answerable_min() == 0.45
    monkeypatch.setenv("CITEWISE_ANSWERABLE_STRUCTURAL", "high")
    with pytest.raises(UsageError, match="CITEWISE_ANSWERABLE_STRUCTURAL"):
        setting("CITEWISE_ANSWERABLE_STRUCTURAL")


#: Words that say no time and no number (no digits, no number or time words).
_PLAIN = (  # noqa: SIM905 (a word list reads better as text)
    "the engineer rotation handler request response team chunk master replica paper "
    "option command server client document changes runs keeps stores sends "
    "returns reads writes owns and of for with to in on a an this that its their"
).split()
_TIMES = ("every Monday at 10:00", "in 2013", "after 30 days", "weekly", "at 5 pm")
_NUMBERS = ("three", "73", "40,000", "12 percent", "twice")


@given(st.lists(st.sampled_from(_PLAIN), min_size=1, max_size=14), st.sampled_from(_TIMES))
def test_a_when_question_is_never_answered_by_a_unit_without_a_time(
    words: list[str], time: str
) -> None:
    text = " ".join(words).capitalize() + "."
    for q in ("When does the rotation change?", "When did the team change the handler?"):
        constraints = question_constraints(analyse(q))
        assert unmet(constraints, text), (q, text)
        assert refusal(Signals(1.0, expected(analyse(q)), present(text)))
    # "when does" takes any time; "when did" (past events) a calendar date
    assert not unmet(
        question_constraints(analyse("When does the rotation change?")), f"{text[:-1]} {time}."
    )
    assert not unmet(
        question_constraints(analyse("When did the team change it?")), f"{text[:-1]} in 2013."
    )


@given(st.lists(st.sampled_from(_PLAIN), min_size=1, max_size=14), st.sampled_from(_NUMBERS))
def test_a_how_many_question_is_never_answered_by_a_unit_without_a_number(
    words: list[str], number: str
) -> None:
    text = " ".join(words).capitalize() + "."
    for q in ("How many replicas does the master keep?", "How much memory does a chunk use?"):
        constraints = question_constraints(analyse(q))
        assert unmet(constraints, text), (q, text)
        assert refusal(Signals(1.0, expected(analyse(q)), present(text)))
        assert not unmet(constraints, f"{text[:-1]} {number} times."), (q, number)


def test_the_on_call_folder_answers_when_with_the_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The issue's three-file folder: the text file's title line is no answer to "when"."""
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    folder = tmp_path / "team"
    folder.mkdir()
    (folder / "oncall.txt").write_text(
        "On-call rotation\n\nThe on-call engineer changes every Monday at 10:00.\n"
        "Pages go to the primary first, then the secondary after 15 minutes.\n",
        encoding="utf-8",
    )
    (folder / "deploys.md").write_text(
        "# Deploys\n\nDeploys run from the main branch through the release pipeline.\n",
        encoding="utf-8",
    )
    (folder / "handbook.txt").write_text(
        "Team handbook\n\nThe team meets in room 4B on Thursdays.\n", encoding="utf-8"
    )
    with Home.open(tmp_path / "home") as home:
        kb = home.kb()
        assert kb.add([folder]).ok
        answer = kb.ask("When does the on-call rotation change?")
        assert answer.outcome == "answered", answer.answer
        assert "every Monday at 10:00" in answer.answer
        assert all(c.excerpt.strip() != "On-call rotation" for c in answer.citations)
        assert all(c.path == "oncall.txt" for c in answer.citations)


def test_a_when_question_over_a_title_and_no_time_abstains_naming_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A title line and a sentence without a time: no unit says when, so the ask
    abstains and the reason says so (it never quotes the title as the time)."""
    from tests.conftest import one_file_kb

    kb = one_file_kb(
        tmp_path,
        monkeypatch,
        "Release schedule\n\nReleases of the release branch are cut by the release manager.\n",
        name="releases.txt",
    )
    answer = kb.ask("When is the release branch cut?")
    assert answer.outcome != "answered", answer.answer
    assert "Release schedule" not in answer.answer
    assert "no passage found says when" in answer.answer


def test_a_chinese_question_is_typed_by_the_chinese_reader() -> None:
    from citewise.sufficiency.answer_type import AnswerType, expected_of, present

    assert expected_of("本法自何时起施行？") == AnswerType.TIME
    assert expected_of("第几条规定了监督程序？") == AnswerType.NUMBER  # an ordinal is a number
    assert expected_of("哪个机关负责监督？") == AnswerType.AGENT
    assert AnswerType.TIME in present("本法自2007年1月1日起施行。")
    assert AnswerType.TIME not in present("本法由全国人民代表大会常务委员会负责解释。")
