"""Property tests at the conflict queue's boundaries (issue 38): the pair id names a
pair of spans whatever the order of its sides or the line breaks of their text, and
``--until`` accepts exactly ISO days."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.core.conflict_rules import ConflictRules, Resolution, pair_id
from citewise.errors import UsageError
from citewise.governance.conflicts import parse_day

words = st.lists(st.text(alphabet="abcXYZ019 ", min_size=1, max_size=8), min_size=1, max_size=6)
paths = st.sampled_from(["a.md", "b/c.txt", "法规.md"])


@given(paths, words, paths, words, st.sampled_from([" ", "\n", "  \n "]))
def test_pair_id_ignores_side_order_and_line_breaks(
    p1: str, w1: list[str], p2: str, w2: list[str], gap: str
) -> None:
    t1, t2 = " ".join(w1), " ".join(w2)
    key = pair_id([(p1, t1), (p2, t2)])
    assert key == pair_id([(p2, t2), (p1, gap.join(t1.split()))])
    assert key.startswith("k_") and len(key) == 18


def test_pair_id_changes_when_a_side_s_words_change() -> None:
    assert pair_id([("a.md", "due in 30 days"), ("b.md", "due in 45 days")]) != pair_id(
        [("a.md", "due in 30 days"), ("b.md", "due in 60 days")]
    )


@given(st.dates())
def test_until_reads_every_iso_day(day: date) -> None:
    assert parse_day(day.isoformat()) == day


@given(st.text(max_size=20).filter(lambda t: t.strip()[:10].count("-") != 2))
def test_until_refuses_what_is_no_day(text: str) -> None:
    with pytest.raises(UsageError, match="YYYY-MM-DD"):
        parse_day(text)


def test_a_resolution_holds_through_its_until_day() -> None:
    r = Resolution("k_0", "a.md", "x", "alice", "2030-01-01T00:00:00Z", date(2030, 5, 31))
    rules = {r.id: r}
    assert ConflictRules("degrade", rules, date(2030, 5, 31)).governing("k_0") is r
    assert ConflictRules("degrade", rules, date(2030, 6, 1)).governing("k_0") is None
