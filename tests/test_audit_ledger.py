"""The ledger: events written with their changes, signed checkpoints, and tampering
(edit, delete, insert, reorder, hashes rewritten to match) detected against them."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citewise.audit import checkpoint as cp
from citewise.audit import keys
from citewise.core.ledger_entries import canonical_json, encode_entry, ledger_context
from citewise.core.merkle import leaf_hash
from citewise.errors import CitewiseError
from citewise.kb import Home


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Home]:
    monkeypatch.setenv("CITEWISE_DENSE", "off")
    monkeypatch.delenv("CITEWISE_AUDIT_KEY", raising=False)
    h = Home.open(tmp_path / "home")
    yield h
    h.close()


def _docs(root: Path, n: int = 3) -> Path:
    root.mkdir(exist_ok=True)
    for i in range(n):
        (root / f"doc{i}.md").write_text(f"# Doc {i}\n\nThe value of item {i} is {i * 7}.\n")
    return root


def _key(h: Home) -> Path:
    return keys.default_key_path(h.settings.home)


def _types(h: Home) -> list[str]:
    return [e.type for e in h.store.ledger.iter_ledger()]


def test_ingest_delete_revert_are_in_the_ledger(home: Home, tmp_path: Path) -> None:
    kb = home.kb()
    with ledger_context("alice", {"session": "s1", "run": "r9"}):
        kb.add([_docs(tmp_path / "docs")])
    (tmp_path / "docs" / "doc0.md").write_text("# Doc 0\n\nChanged.\n")
    kb.add([tmp_path / "docs"])
    kb.delete("doc1.md")
    kb.revert("doc0.md", 1)
    types = _types(home)
    assert types == [
        "revision",
        "ingest",
        "ingest",
        "ingest",
        "revision",
        "ingest",
        "revision",
        "delete",
        "revision",
        "revert",
    ]
    first = home.store.ledger.ledger_entry(1)
    assert first.principal == "alice" and first.lineage == {"session": "s1", "run": "r9"}
    assert first.payload["path"] == "doc0.md" and len(first.payload["raw_sha256"]) == 64
    last = home.store.ledger.ledger_entry(len(types) - 1)
    assert last.payload["restored_from"] == 1
    assert last.payload["revision_hash"] == kb.revisions()[-1].hash


def test_rolled_back_change_leaves_no_event(home: Home, tmp_path: Path) -> None:
    kb = home.kb()
    kb.add([_docs(tmp_path / "docs", 1)])
    before = home.store.ledger.ledger_size()
    with pytest.raises(CitewiseError):
        kb.delete("missing.md")
    assert home.store.ledger.ledger_size() == before


def test_ledger_is_append_only_in_sql(home: Home, tmp_path: Path) -> None:
    home.kb().add([_docs(tmp_path / "docs", 1)])
    conn = sqlite3.connect(home.settings.home / "citewise.db")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE ledger SET principal = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM ledger")
    conn.close()


def test_checkpoint_key_file_and_proofs(home: Home, tmp_path: Path) -> None:
    home.kb().add([_docs(tmp_path / "docs")])
    c1 = cp.make_checkpoint(home.store.ledger, _key(home))
    assert _key(home).stat().st_mode & 0o777 == 0o600
    assert _types(home)[-1] == "key"
    home.kb().delete("doc2.md")
    c2 = cp.make_checkpoint(home.store.ledger, _key(home))
    assert c2["tree_size"] > c1["tree_size"] and c2["key_id"] == c1["key_id"]
    for seq in range(c2["tree_size"]):
        proof = cp.inclusion(home.store.ledger, seq)
        assert cp.check_inclusion(proof) and proof["root_hash"] == c2["root_hash"]
    cons = cp.consistency(home.store.ledger, c1["tree_size"])
    assert cons["old_root"] == c1["root_hash"] and cp.check_consistency(cons)
    report = cp.verify(home.store.ledger, _key(home))
    assert report.ok, report.problems
    assert report.checkpoints == 2


def test_upgrade_from_schema_1(tmp_path: Path) -> None:
    db = tmp_path / "h" / "citewise.db"
    Home.open(tmp_path / "h").close()
    conn = sqlite3.connect(db)
    for name in ("ledger", "checkpoint", "answer"):
        conn.execute(f"DROP TABLE {name}")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    with Home.open(tmp_path / "h") as h:
        assert h.store.ledger.ledger_size() == 0
        assert not h.verify()


# -- tampering -------------------------------------------------------------------------
Row = dict[str, Any]


def _rows(db: Path) -> list[Row]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    rows = [dict(r) for r in conn.execute("SELECT * FROM ledger ORDER BY seq")]
    conn.close()
    return rows


def _rewrite(db: Path, rows: list[Row], *, renumber: bool = True) -> None:
    """The strongest attacker short of the key: rewrite the whole ledger, renumbering and
    recomputing every stored hash so the table is self-consistent."""
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER IF EXISTS ledger_no_update")
    conn.execute("DROP TRIGGER IF EXISTS ledger_no_delete")
    conn.execute("DELETE FROM ledger")
    for i, r in enumerate(rows):
        seq = i if renumber else r["seq"]
        r = dict(r, payload=canonical_json(json.loads(r["payload"])))
        raw = encode_entry(
            seq,
            r["type"],
            r["kb"],
            r["principal"],
            json.loads(r["lineage"]),
            json.loads(r["payload"]),
            r["ts"],
        )
        conn.execute(
            "INSERT INTO ledger VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                seq,
                r["type"],
                r["kb"],
                r["principal"],
                r["lineage"],
                r["payload"],
                r["ts"],
                leaf_hash(raw).hex(),
            ),
        )
    conn.commit()
    conn.close()


@pytest.fixture
def sealed(home: Home, tmp_path: Path) -> tuple[Home, Path, dict[str, Any]]:
    home.kb().add([_docs(tmp_path / "docs", 4)])
    checkpoint = cp.make_checkpoint(home.store.ledger, _key(home))
    home.kb().delete("doc3.md")  # later entries beyond the checkpoint
    assert cp.verify(home.store.ledger, _key(home)).ok
    return home, home.settings.home / "citewise.db", checkpoint


def _edit(rows: list[Row]) -> list[Row]:
    payload = json.loads(rows[2]["payload"])
    payload["raw_sha256"] = "0" * 64
    rows[2]["payload"] = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return rows


def _delete(rows: list[Row]) -> list[Row]:
    return rows[:1] + rows[2:]


def _insert(rows: list[Row]) -> list[Row]:
    forged = dict(rows[1], payload=json.dumps({"kb": "default", "path": "forged.md"}))
    return [*rows[:2], forged, *rows[2:]]


def _reorder(rows: list[Row]) -> list[Row]:
    rows[1], rows[2] = rows[2], rows[1]
    return rows


def _principal(rows: list[Row]) -> list[Row]:
    rows[0]["principal"] = "mallory"
    return rows


@pytest.mark.parametrize("tamper", [_edit, _delete, _insert, _reorder, _principal])
def test_tampering_is_detected_against_a_checkpoint(
    sealed: tuple[Home, Path, dict[str, Any]], tamper: Any
) -> None:
    home, db, _checkpoint = sealed
    _rewrite(db, tamper(_rows(db)))
    with Home.open(home.settings.home) as h:
        report = cp.verify(h.store.ledger, _key(h))
    assert not report.ok
    assert any("no longer hash to the signed root" in p for p in report.problems)
    assert not any("stored hash" in p for p in report.problems)  # hashes were rewritten


def test_gap_and_stale_stored_hash_are_reported(sealed: tuple[Home, Path, dict[str, Any]]) -> None:
    home, db, _ = sealed
    rows = _rows(db)
    _rewrite(db, _delete(rows), renumber=False)
    with Home.open(home.settings.home) as h:
        problems = cp.verify(h.store.ledger, _key(h)).problems
    assert any("sequence jumps" in p for p in problems)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE ledger SET ts = '2000-01-01' WHERE seq = 0")
    conn.commit()
    conn.close()
    with Home.open(home.settings.home) as h:
        problems = cp.verify(h.store.ledger, _key(h)).problems
    assert any("entry 0: stored hash" in p for p in problems)


def test_truncation_and_forged_checkpoint(sealed: tuple[Home, Path, dict[str, Any]]) -> None:
    home, db, checkpoint = sealed
    rows = _rows(db)
    _rewrite(db, rows[: checkpoint["tree_size"] - 1])
    with Home.open(home.settings.home) as h:
        problems = cp.verify(h.store.ledger, _key(h)).problems
    assert any("entries were removed" in p for p in problems)
    # Rewriting the checkpoint's root to match breaks its signature.
    _rewrite(db, _edit(rows))
    conn = sqlite3.connect(db)
    doc = json.loads(conn.execute("SELECT document FROM checkpoint").fetchone()[0])
    with Home.open(home.settings.home) as h:
        doc["root_hash"] = cp.merkle.root(cp.leaves(h.store.ledger)[: doc["tree_size"]]).hex()
    conn.execute("UPDATE checkpoint SET document = ?", (json.dumps(doc),))
    conn.commit()
    conn.close()
    with Home.open(home.settings.home) as h:
        problems = cp.verify(h.store.ledger, _key(h)).problems
    assert any("signature does not verify" in p for p in problems)


def test_external_checkpoint_catches_a_wiped_checkpoint_table(
    sealed: tuple[Home, Path, dict[str, Any]], tmp_path: Path
) -> None:
    home, db, checkpoint = sealed
    kept = tmp_path / "auditor.json"
    kept.write_text(json.dumps(checkpoint))
    _rewrite(db, _edit(_rows(db)))
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM checkpoint")
    conn.commit()
    conn.close()
    with Home.open(home.settings.home) as h:
        assert cp.verify(h.store.ledger, _key(h)).ok  # nothing to compare
        report = cp.verify(h.store.ledger, _key(h), against=[cp.read_checkpoint_file(kept)])
    assert not report.ok


def test_non_canonical_rewrite_of_an_entry_is_detected(
    sealed: tuple[Home, Path, dict[str, Any]],
) -> None:
    home, db, _ = sealed
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER IF EXISTS ledger_no_update")
    conn.execute("UPDATE ledger SET payload = replace(payload, ',', ', ') WHERE seq = 1")
    conn.commit()
    conn.close()
    with Home.open(home.settings.home) as h:
        problems = cp.verify(h.store.ledger, _key(h)).problems
    assert any("entry 1: stored hash" in p for p in problems)
    assert any("no longer hash to the signed root" in p for p in problems)
