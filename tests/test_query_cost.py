"""Per-query store reads do not grow with the corpus (issue 17).

Stale and superseded sets, MMR token sets, extracted facts and the change generation are
kept per published index state, so once a state is published an ``ask`` reads only what its
evidence needs. A counting proxy (a real SQLite store behind it) counts every store call and
every row a call returns; the same questions on a corpus five times larger must cost the
same reads.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from citewise.core.search import SearchFilters
from citewise.kb import Home
from citewise.store.protocol import Store
from citewise.store.sqlite import SQLiteStore

QUESTIONS = (
    "How long do refunds take?",
    "What is the boiling point of the coolant?",
    "Who won the 2019 regional chess final?",
    "How do I calibrate the flux sensor?",
)


class CountingStore:
    """The Store protocol, forwarded; counts calls and returned rows per method."""

    def __init__(self, inner: Store) -> None:
        self._inner = inner
        self.calls: Counter[str] = Counter()
        self.rows: Counter[str] = Counter()

    @property
    def ledger(self) -> Any:
        return self._inner.ledger

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if not callable(attr):
            return attr

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            got = attr(*args, **kwargs)
            if isinstance(got, Iterator):
                got = list(got)
                self.rows[name] += len(got)
                return iter(got)
            if isinstance(got, list):
                self.rows[name] += len(got)
            return got

        return counted

    def reads(self) -> int:
        return sum(self.calls.values()) + sum(self.rows.values())


def _corpus(root: Path, fillers: int) -> Path:
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "refunds-2023.md").write_text(
        "---\nstatus: superseded\n---\n# Refund policy 2023\n\nRefunds take 30 days.\n", "utf-8"
    )
    (docs / "refunds-2024.md").write_text(
        "---\nrelations:\n  - type: supersedes\n    target: refunds-2023.md\n---\n"
        "# Refund policy 2024\n\n"
        "Refunds take 14 days from the day the item arrives.\n",
        "utf-8",
    )
    (docs / "coolant-a.md").write_text(
        "# Coolant datasheet\n\nThe boiling point of the coolant is 106 °C.\n", "utf-8"
    )
    (docs / "coolant-b.md").write_text(
        "# Coolant notes\n\nThe boiling point of the coolant is 112 °C.\n", "utf-8"
    )
    (docs / "chess.md").write_text(
        "# Regional chess final 2019\n\nThe 2019 regional chess final was won by Ana Ruiz.\n",
        "utf-8",
    )
    (docs / "secret.md").write_text(
        "---\naccess: [staff]\n---\n# Flux sensor calibration\n\n"
        "1. Zero the flux sensor.\n2. Apply the 5 V reference.\n3. Record the offset.\n",
        "utf-8",
    )
    for i in range(fillers):
        (docs / f"filler-{i:04d}.md").write_text(
            f"# Gearbox {i} maintenance\n\nGearbox {i} needs oil every {i % 9 + 2} months. "
            f"Inspect the seals of unit {i} for wear.\n",
            "utf-8",
        )
    return docs


def _reads_per_ask(tmp_path: Path, fillers: int) -> tuple[int, int, Counter[str], list[str]]:
    root = tmp_path / f"n{fillers}"
    docs = _corpus(root, fillers)
    sqlite = SQLiteStore(root / "home" / "citewise.db")
    steps = [0]

    def step() -> int:
        steps[0] += 1
        return 0

    # SQLite virtual-machine steps (in 100s): a COUNT or scan inside one call shows here.
    sqlite._conn.set_progress_handler(step, 100)
    counting = CountingStore(sqlite)
    with Home.open(root / "home", store=cast(Store, counting)) as home:
        kb = home.kb()
        assert kb.add([docs]).ok
        asks: list[Callable[[], Any]] = [
            *(lambda q=q: kb.ask(q) for q in QUESTIONS),
            lambda: kb.ask(QUESTIONS[3], filters=SearchFilters(principal="staff")),
            lambda: kb.search(QUESTIONS[1]),
        ]
        for run in asks:  # the first pass publishes the state (a walk per generation)
            run()
        counting.calls.clear()
        counting.rows.clear()
        steps[0] = 0
        outcomes = [str(getattr(run(), "outcome", "")) for run in asks]
        outcomes.append(home.index("default").dense.status)  # the route each size ran
        return counting.reads(), steps[0], counting.calls + counting.rows, outcomes


@pytest.mark.slow
@pytest.mark.parametrize("dense", ["off", pytest.param("on", marks=pytest.mark.model)])
def test_store_reads_per_ask_do_not_grow_with_the_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dense: str
) -> None:
    """Dense on too: the query vector, the vector ranking and the answer units' meaning
    scores read nothing from the store per ask (vectors are loaded with the state)."""
    monkeypatch.setenv("CITEWISE_DENSE", dense)
    small, small_steps, small_by, small_out = _reads_per_ask(tmp_path, 40)
    large, large_steps, large_by, large_out = _reads_per_ask(tmp_path, 200)
    assert small_out == large_out  # the same answers, so the same evidence is read
    assert "answered" in small_out
    assert small_out[-1] == ("ok" if dense == "on" else "disabled")
    assert large == small, f"reads grew with the corpus: {small_by} -> {large_by}"
    assert large_steps <= small_steps * 1.2, f"SQLite work grew: {small_steps} -> {large_steps}"


def test_cached_stale_sets_follow_what_each_caller_may_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The superseded set is cached per set of readable access classes: a current edition
    a caller may not read supersedes nothing for it, whichever caller filled the cache."""
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide-v1.md").write_text("# Guide\n\nThe limit is 10 requests.\n", "utf-8")
    (docs / "guide-v2.md").write_text(
        "---\naccess: [staff]\nrelations:\n  - type: supersedes\n    target: guide-v1.md\n---\n"
        "# Guide 2\n\nThe limit is 20.\n",
        "utf-8",
    )
    with Home.open(tmp_path / "home") as home:
        assert home.kb().add([docs]).ok
        index = home.index("default")
        index.sync()
        assert index.stale_documents("staff") == {"guide-v1.md"}
        assert index.stale_documents(None) == frozenset()
        assert index.stale_documents("someone-else") == frozenset()
        assert index.stale_documents("staff") == {"guide-v1.md"}
