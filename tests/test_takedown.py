"""Rights, retention and takedown through the library (issue 38): a takedown and a
retention expiry (fixed clock) each withhold a document's versions from search,
evidence, answers, history and resolve, keep its hashes, and write a non-content ledger
event; front-matter ``takedown`` and ``retain_until`` act alone; bad values are refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citewise.core.access import may_read
from citewise.core.rights import Withholding, check_rights, expiry_reason, retain_until, withholding
from citewise.errors import DocumentNotFound, UsageError, Withheld
from citewise.governance.withhold import expire, take_down
from citewise.index.views import access_class
from citewise.kb import Home, KnowledgeBase
from tests.test_review import set_policy, write

pytestmark = pytest.mark.usefixtures("dense_off")

TOKEN = "WOMBATGARNET"
PUBLIC = "# Key rotation\n\nRotate keys every 90 days with the rotate command.\n"
SECRET = f"# Vault plan\n\nThe {TOKEN} vault rotates keys hourly.\n"
SECRET_V2 = SECRET.replace("hourly", "daily")
#: The document's own words (questions carry the token and answers echo questions).
HELD = f"The {TOKEN} vault rotates"


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[KnowledgeBase]:
    """A public guide and a vault plan with two versions (each carries the token)."""
    with Home.open(tmp_path / "home") as h:
        base = h.kb()
        assert base.add([write(tmp_path / "docs", {"guide.md": PUBLIC, "vault.md": SECRET})]).ok
        assert base.add([write(tmp_path / "docs", {"vault.md": SECRET_V2})]).ok
        yield base


def _seen(kb: KnowledgeBase) -> bool:
    hits = kb.search(TOKEN, mode="lexical").hits
    return any(TOKEN in h.excerpt for h in hits)


def _vault_ids(kb: KnowledgeBase) -> list[str]:
    return [n.id for v in (1, 2) for n in kb.nodes("vault.md", v) if TOKEN in n.text]


def test_a_takedown_withholds_every_version_from_every_read_and_keeps_the_hashes(
    kb: KnowledgeBase,
) -> None:
    ids = _vault_ids(kb)
    hashes = [r.hash for r in kb.revisions()]
    assert _seen(kb) and TOKEN in kb.resolve(ids[0]).text
    done = take_down(kb.store, kb.name, "vault.md", "court order 12", by="legal")
    assert done.versions == (1, 2) and done.kind == "taken down"
    assert not _seen(kb)
    assert HELD not in json.dumps(kb.evidence(f"What is the {TOKEN} vault?").to_json())
    answer = kb.ask(f"How often does the {TOKEN} vault rotate keys?")
    assert HELD not in json.dumps(answer.to_json(with_trace=True))
    assert "vault.md" not in {d.path for d in kb.documents() if withholding(d.metadata) is None}
    for cid in ids:  # every version's citations: path and reason, never the text
        with pytest.raises(Withheld) as got:
            kb.resolve(cid)
        assert "taken down" in str(got.value) and "vault.md" in str(got.value)
        assert "court order 12" in str(got.value) and TOKEN not in str(got.value)
    assert kb.resolve(kb.nodes("guide.md")[-1].id).text.startswith("Rotate keys")
    with pytest.raises(Withheld):
        kb.revert("vault.md", 1)  # a withheld version is not republished by a revert
    assert [r.hash for r in kb.revisions()] == hashes  # the history keeps its identity
    (event,) = kb.store.ledger.query_ledger(types=("takedown",), kb=kb.name)
    assert event.principal == "legal"
    assert event.payload["path"] == "vault.md" and event.payload["reason"] == "court order 12"
    assert TOKEN not in json.dumps(event.payload)


def test_a_second_takedown_changes_nothing_and_a_bad_one_is_refused(kb: KnowledgeBase) -> None:
    take_down(kb.store, kb.name, "vault.md", "first", by="legal")
    again = take_down(kb.store, kb.name, "vault.md", "second", by="legal")
    assert again.versions == ()
    assert len(kb.store.ledger.query_ledger(types=("takedown",), kb=kb.name)) == 1
    with pytest.raises(UsageError, match="needs a reason"):
        take_down(kb.store, kb.name, "guide.md", "  ", by="legal")
    with pytest.raises(DocumentNotFound):
        take_down(kb.store, kb.name, "nope.md", "gone", by="legal")


def test_the_same_bytes_synced_again_stay_withheld_and_new_bytes_publish(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    take_down(kb.store, kb.name, "vault.md", "court order", by="legal")
    report = kb.add([write(tmp_path / "docs", {"vault.md": SECRET_V2})])
    assert {f.status for f in report.files if f.path == "vault.md"} == {"unchanged"}
    assert not _seen(kb)
    kb.add([write(tmp_path / "docs", {"vault.md": SECRET.replace("hourly", "weekly")})])
    assert _seen(kb)  # a new version is a deliberate republication


def test_retention_expires_old_versions_by_the_policy_with_a_fixed_clock(
    kb: KnowledgeBase,
) -> None:
    home = kb.home.settings.home
    set_policy(home, "retention:\n  default_days: 30\n")
    today = date.today()
    assert expire(kb.store, home, kb.name, today) == []  # nothing is 30 days old yet
    assert _seen(kb)
    later = date.fromordinal(today.toordinal() + 31)
    done = expire(kb.store, home, kb.name, later)
    assert {d.path for d in done} == {"guide.md", "vault.md"}
    assert not _seen(kb) and not kb.search("rotate", mode="lexical").hits
    events = kb.store.ledger.query_ledger(types=("expired",), kb=kb.name)
    assert {e.payload["path"] for e in events} == {"guide.md", "vault.md"}
    assert all(e.principal == "retention policy" for e in events)
    assert expire(kb.store, home, kb.name, later) == []  # once only


def test_the_sweep_runs_when_a_base_is_opened_on_the_home_clock(kb: KnowledgeBase) -> None:
    home = kb.home
    set_policy(home.settings.home, "retention:\n  default_days: 1\n")
    home.retention.forget(kb.name)
    home.retention.clock = lambda: date.fromordinal(date.today().toordinal() + 5)
    assert not home.kb().search(TOKEN, mode="lexical").hits


def test_front_matter_rights_keys(tmp_path: Path) -> None:
    docs = {
        "old.md": (
            f"---\nretain_until: 2001-01-31\nlicense: CC-BY-4.0\n---\n# Old\n\n{TOKEN} old.\n"
        ),
        "kept.md": f"---\nretain_until: 2999-01-01\n---\n# Kept\n\n{TOKEN} kept.\n",
        "gone.md": (
            f"---\ntakedown: true\ntakedown_reason: withdrawn by author\n---\n# Gone\n\n{TOKEN}.\n"
        ),
    }
    with Home.open(tmp_path / "home") as h:
        kb = h.kb()
        assert kb.add([write(tmp_path / "docs", docs)]).ok
        h.retention.forget(kb.name)
        hits = {hit.path for hit in h.kb().search(TOKEN, mode="lexical").hits}
        assert hits == {"kept.md"}
        assert kb.document("old.md").metadata["license"] == "CC-BY-4.0"
        (event,) = kb.store.ledger.query_ledger(types=("expired",), kb=kb.name)
        assert event.payload["path"] == "old.md"
        assert "retain_until 2001-01-31" in str(event.payload["reason"])
        with pytest.raises(Withheld, match="withdrawn by author"):
            kb.nodes("gone.md")  # the library's own reads follow too
        gone = kb.store.nodes_of_version(kb.name, "gone.md", 1)[-1].id
        with pytest.raises(Withheld, match="withdrawn by author"):
            kb.resolve(gone)


@pytest.mark.parametrize(
    ("front", "problem"),
    [
        ("retain_until: next year", "not a date"),
        ("takedown: maybe", "true or false"),
        ("withheld: {kind: expired}", "reserved"),
    ],
)
def test_bad_rights_metadata_is_refused_naming_the_key(
    tmp_path: Path, front: str, problem: str
) -> None:
    with Home.open(tmp_path / "home") as h:
        report = h.kb().add([write(tmp_path / "d", {"a.md": f"---\n{front}\n---\n# A\n\nText.\n"})])
        (row,) = report.files
        assert row.status == "failed" and problem in (row.message or "")


def test_rules_are_pure_and_fail_closed() -> None:
    assert withholding({}) is None
    assert withholding({"withheld": "junk"}) == Withholding(
        "taken down", "malformed withholding mark"
    )
    assert withholding({"takedown": False}) is None
    day = date(2026, 1, 10)
    assert expiry_reason({}, date(2026, 1, 1), day, None) is None
    assert expiry_reason({}, date(2026, 1, 1), day, 9) is None
    assert expiry_reason({}, date(2026, 1, 1), day, 8) is not None
    # retain_until overrides the default: kept past default_days, expired after the day
    assert expiry_reason({"retain_until": "2026-01-10"}, date(2020, 1, 1), day, 1) is None
    assert expiry_reason({"retain_until": "2026-01-09"}, date(2026, 1, 8), day, None)


def test_a_malformed_policy_leaves_reads_alone_and_fails_retention_apply(
    kb: KnowledgeBase,
) -> None:
    from citewise.errors import BadPolicy

    home = kb.home
    set_policy(home.settings.home, "retention: {default_days: soon}\n")
    home.retention.forget(kb.name)
    assert _seen(home.kb())  # the automatic sweep is skipped (logged), reads go on
    with pytest.raises(BadPolicy, match="default_days"):
        expire(kb.store, home.settings.home, kb.name, date.today())


_values = st.one_of(
    st.none(),
    st.booleans(),
    st.text(max_size=12),
    st.dictionaries(st.sampled_from(["kind", "reason", "by"]), st.text(max_size=8), max_size=3),
    st.lists(st.text(max_size=6), max_size=3),
)


@given(
    st.dictionaries(st.sampled_from(["takedown", "withheld", "title"]), _values),
    st.one_of(st.none(), st.lists(st.sampled_from(["alice", "bob"]), max_size=2)),
)
def test_index_access_classes_give_the_rule_s_answer(
    meta: dict[str, object], access: list[str] | None
) -> None:
    """The index keeps only the keys the rule reads (access_class): the same answer
    (``access`` as ingest stores it: a list of principals)."""
    if access is not None:
        meta = meta | {"access": access}
    for who in (None, "alice"):
        assert may_read(dict(access_class(meta)), who) == may_read(meta, who)


@given(st.dictionaries(st.sampled_from(["retain_until", "takedown", "withheld", "x"]), _values))
def test_the_rights_check_names_a_problem_or_none_and_never_raises(meta: dict[str, object]) -> None:
    problem = check_rights(meta, "a.md", "front matter")
    assert problem is None or problem.startswith("a.md: front matter")
    if problem is None:  # what ingest accepts, the rules read without error
        retain_until(meta)
        withholding(meta)
