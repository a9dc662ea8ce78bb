"""Signed tree heads (checkpoints), proofs over the ledger, and full verification."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citewise.audit import keys
from citewise.core import merkle
from citewise.core.ledger_entries import canonical_json
from citewise.errors import UsageError
from citewise.store.protocol import Ledger

FORMAT = "citewise-checkpoint/1"
_BODY_KEYS = ("format", "tree_size", "root_hash", "timestamp", "key_id")


def leaves(store: Ledger) -> list[bytes]:
    """Leaf hashes recomputed from every entry's content (stored hashes are not trusted)."""
    return [leaf for _, leaf, _, _, _ in store.iter_leaves()]


def signed_message(checkpoint: dict[str, Any]) -> bytes:
    return canonical_json({k: checkpoint[k] for k in _BODY_KEYS}).encode("utf-8")


def make_checkpoint(store: Ledger, key_path: Path) -> dict[str, Any]:
    """Sign the current tree head, save it in the store and return it (JSON-ready)."""
    key, created = keys.load_or_create(key_path)
    pub = keys.public_hex(key.public_key())
    if created:
        event = {"action": "created", "key_id": keys.key_id(pub), "public_key": pub}
        store.append_event("key", event)
    hashes = leaves(store)
    body: dict[str, Any] = {
        "format": FORMAT,
        "tree_size": len(hashes),
        "root_hash": merkle.root(hashes).hex(),
        "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "key_id": keys.key_id(pub),
    }
    checkpoint = body | {
        "public_key": pub,
        "signature": key.sign(signed_message(body)).hex(),
    }
    store.save_checkpoint(checkpoint)
    return checkpoint


def inclusion(store: Ledger, seq: int, size: int | None = None) -> dict[str, Any]:
    hashes = store.stored_leaves()
    n = len(hashes) if size is None else size
    if not 0 <= seq < n <= len(hashes):
        raise UsageError(
            f"Entry {seq} is not inside a tree of size {n} (the ledger holds {len(hashes)}).",
            hint="Entries are numbered from 0.",
        )
    tree = hashes[:n]
    return {
        "leaf_index": seq,
        "tree_size": n,
        "leaf_hash": hashes[seq].hex(),
        "root_hash": merkle.root(tree).hex(),
        "audit_path": [h.hex() for h in merkle.inclusion_proof(seq, tree)],
        "entry": store.ledger_entry(seq).to_json(),
    }


def consistency(store: Ledger, old_size: int, new_size: int | None = None) -> dict[str, Any]:
    hashes = store.stored_leaves()
    n = len(hashes) if new_size is None else new_size
    if not 0 <= old_size <= n <= len(hashes):
        raise UsageError(
            f"Cannot prove {old_size} -> {n}: the ledger holds {len(hashes)} entries.",
            hint="The old size must not exceed the new size.",
        )
    return {
        "old_size": old_size,
        "new_size": n,
        "old_root": merkle.root(hashes[:old_size]).hex(),
        "new_root": merkle.root(hashes[:n]).hex(),
        "proof": [h.hex() for h in merkle.consistency_proof(old_size, hashes[:n])],
    }


def check_inclusion(proof: dict[str, Any]) -> bool:
    return merkle.verify_inclusion(
        int(proof["leaf_index"]),
        int(proof["tree_size"]),
        bytes.fromhex(proof["leaf_hash"]),
        [bytes.fromhex(h) for h in proof["audit_path"]],
        bytes.fromhex(proof["root_hash"]),
    )


def check_consistency(proof: dict[str, Any]) -> bool:
    return merkle.verify_consistency(
        int(proof["old_size"]),
        int(proof["new_size"]),
        bytes.fromhex(proof["old_root"]),
        bytes.fromhex(proof["new_root"]),
        [bytes.fromhex(h) for h in proof["proof"]],
    )


@dataclass
class VerifyReport:
    entries: int = 0
    root_hash: str = ""
    checkpoints: int = 0
    answers: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "entries": self.entries,
            "root_hash": self.root_hash,
            "checkpoints_checked": self.checkpoints,
            "answers_checked": self.answers,
            "problems": self.problems,
        }


def verify(
    store: Ledger,
    key_path: Path | None = None,
    against: list[dict[str, Any]] | None = None,
) -> VerifyReport:
    """Recompute every leaf from its entry and the tree from the leaves; check each saved
    (and each given) checkpoint's signature and its root at its size; check sequence numbers
    and the binding of saved answers to their ledger events."""
    report = VerifyReport()
    hashes: list[bytes] = []
    answer_events: dict[int, str] = {}
    expected = 0
    for seq, leaf, stored, type_, payload in store.iter_leaves():
        if seq != expected:
            report.problems.append(
                f"entry sequence jumps from {expected - 1} to {seq}: entries missing"
            )
            expected = seq
        if leaf.hex() != stored:
            report.problems.append(f"entry {seq}: stored hash does not match its content")
        if type_ == "answer":
            answer_events[seq] = str(json.loads(payload).get("answer_sha256", ""))
        hashes.append(leaf)
        expected += 1
    report.entries = len(hashes)
    local_pub = keys.local_public_hex(key_path) if key_path is not None else None
    checkpoints = [("saved", c) for c in store.list_checkpoints()]
    checkpoints += [("given", c) for c in against or []]
    sizes = [int(c.get("tree_size", -1)) for _, c in checkpoints]
    roots = merkle.roots_at(hashes, [s for s in sizes if 0 <= s <= len(hashes)] + [len(hashes)])
    report.root_hash = roots[len(hashes)].hex()
    for where, c in checkpoints:
        report.checkpoints += 1
        label = f"{where} checkpoint (size {c.get('tree_size')}, {c.get('timestamp')})"
        try:
            message = signed_message(c)
            pub = str(c["public_key"])
            signature = str(c["signature"])
            size = int(c["tree_size"])
        except (KeyError, TypeError, ValueError):
            report.problems.append(f"{label}: malformed")
            continue
        if c.get("format") != FORMAT or keys.key_id(pub) != c.get("key_id"):
            report.problems.append(f"{label}: format or key id does not match its key")
        if not keys.verify_signature(pub, signature, message):
            report.problems.append(f"{label}: signature does not verify")
        if local_pub is not None and pub != local_pub:
            report.problems.append(f"{label}: signed by a key other than this home's key")
        if size > len(hashes):
            report.problems.append(
                f"{label}: the ledger holds only {len(hashes)} entries; entries were removed"
            )
        elif roots[size].hex() != c.get("root_hash"):
            report.problems.append(
                f"{label}: the first {size} entries no longer hash to the signed root; "
                "an entry was edited, removed, inserted or reordered"
            )
    for answer_id, seq, digest in store.list_answer_bindings():
        report.answers += 1
        if answer_events.get(seq) != digest:
            report.problems.append(
                f"answer {answer_id}: the saved answer does not match its ledger entry {seq}"
            )
    return report


def read_checkpoint_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"Cannot read checkpoint {path}: {exc}.") from exc
    if not isinstance(data, dict):
        raise UsageError(f"{path} does not hold a checkpoint object.")
    return data
