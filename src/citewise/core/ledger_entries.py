"""Ledger entries: the event types, canonical JSON, and the exact bytes a leaf hashes."""

from __future__ import annotations

import getpass
import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from citewise.core.merkle import leaf_hash

#: Event types written today. ``access`` carries allowed / denied / redacted decisions.
EVENT_TYPES = (
    "ingest",
    "revision",
    "delete",
    "revert",
    "kb_delete",
    "search",
    "evidence",
    "answer",
    "feedback",
    "access",
    "key",
    "route",
    "web_verification",
)
#: Lineage ids an entry may carry: the ledger context's (session, run, trace) and those
#: callers pass per request (issue 22: conversation, turn, task, parent).
LINEAGE_KEYS = ("session", "conversation", "turn", "task", "parent", "run", "trace")


def canonical_json(obj: object) -> str:
    """Sorted keys, no insignificant whitespace, UTF-8 kept as is: one text per value."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    seq: int
    type: str
    kb: str | None
    principal: str
    lineage: dict[str, str]
    payload: dict[str, Any]
    ts: str
    entry_hash: str = ""  # as stored (hex); verification recomputes it

    def entry_bytes(self) -> bytes:
        return encode_entry(
            self.seq, self.type, self.kb, self.principal, self.lineage, self.payload, self.ts
        )

    def leaf(self) -> bytes:
        return leaf_hash(self.entry_bytes())

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "type": self.type,
            "kb": self.kb,
            "principal": self.principal,
            "lineage": self.lineage,
            "payload": self.payload,
            "ts": self.ts,
            "entry_hash": self.entry_hash,
        }


def encode_entry(
    seq: int,
    type_: str,
    kb: str | None,
    principal: str,
    lineage: Mapping[str, str],
    payload: Mapping[str, Any],
    ts: str,
) -> bytes:
    """The bytes of one leaf: canonical JSON of every column except the stored hash."""
    doc = {
        "seq": seq,
        "type": type_,
        "kb": kb,
        "principal": principal,
        "lineage": dict(lineage),
        "payload": dict(payload),
        "ts": ts,
    }
    return canonical_json(doc).encode("utf-8")


def encode_stored(
    seq: int,
    type_: str,
    kb: str | None,
    principal: str,
    lineage_json: str,
    payload_json: str,
    ts: str,
) -> bytes:
    """The same bytes as :func:`encode_entry`, built from the stored canonical JSON texts
    without parsing them (the verifier's fast path). A stored text that is not exactly the
    canonical form it was written in therefore changes the leaf."""
    d = json.dumps
    return (
        f'{{"kb":{d(kb, ensure_ascii=False)},"lineage":{lineage_json},'
        f'"payload":{payload_json},"principal":{d(principal, ensure_ascii=False)},'
        f'"seq":{seq},"ts":{d(ts, ensure_ascii=False)},"type":{d(type_, ensure_ascii=False)}}}'
    ).encode()


@dataclass(frozen=True, slots=True)
class LedgerContext:
    """Who is acting and under which lineage ids (all optional)."""

    principal: str | None = None
    lineage: dict[str, str] = field(default_factory=dict)


_CONTEXT: ContextVar[LedgerContext | None] = ContextVar("citewise_ledger_context", default=None)


def default_principal() -> str:
    env = os.environ.get("CITEWISE_PRINCIPAL", "").strip()
    if env:
        return env
    try:
        return f"local:{getpass.getuser()}"
    except (KeyError, OSError):
        return "local"


def current_context() -> LedgerContext:
    return _CONTEXT.get() or LedgerContext()


def clean_lineage(lineage: Mapping[str, object] | None) -> dict[str, str]:
    if not lineage:
        return {}
    unknown = set(lineage) - set(LINEAGE_KEYS)
    if unknown:
        raise ValueError(f"unknown lineage keys {sorted(unknown)}; use {', '.join(LINEAGE_KEYS)}")
    return {k: str(v) for k, v in lineage.items() if v is not None and str(v) != ""}


def new_entry(
    seq: int,
    type_: str,
    payload: Mapping[str, Any],
    *,
    kb: str | None = None,
    principal: str | None = None,
    lineage: Mapping[str, object] | None = None,
) -> LedgerEntry:
    """The entry a backend stores at ``seq`` (every backend builds its entries here).

    The principal is the given one, else the ledger context's, else the local user; the
    lineage the given one, else the context's; the payload is reduced to plain JSON values
    (a value JSON cannot hold raises ``TypeError`` before anything is written)."""
    ctx = current_context()
    who = principal or ctx.principal or default_principal()
    lin = dict(ctx.lineage) | clean_lineage(lineage)  # a request's ids over the context's
    ts = datetime.now(UTC).isoformat(timespec="milliseconds")
    body = json.loads(canonical_json(dict(payload)))
    digest = leaf_hash(encode_entry(seq, type_, kb, who, lin, body, ts)).hex()
    return LedgerEntry(seq, type_, kb, who, lin, body, ts, digest)


@contextmanager
def ledger_context(
    principal: str | None = None, lineage: Mapping[str, object] | None = None
) -> Iterator[LedgerContext]:
    """Attribute the store's events (ingest, delete, revert) written inside to a principal
    and lineage ids."""
    ctx = LedgerContext(principal, clean_lineage(lineage))
    token = _CONTEXT.set(ctx)
    try:
        yield ctx
    finally:
        _CONTEXT.reset(token)
