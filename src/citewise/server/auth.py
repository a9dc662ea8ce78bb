"""API keys and principals for the HTTP and MCP servers (a key authenticates as a
:class:`~citewise.facade.caller.Caller`, the facade's access scope).

Keys live in ``<home>/keys.yaml``, stored as the sha256 of a 256-bit random token (the
token itself is shown once, when ``citewise keys add`` creates it, and never stored or
logged). A key names a *principal* (matched against documents' front-matter ``access:``
lists) and the knowledge bases it may use (``*`` = all, which also allows creating,
changing and deleting knowledge bases).

With no keys configured every caller is the anonymous local user: all knowledge bases,
only documents without an ``access:`` list, and only loopback clients are answered
(checked per request by :mod:`citewise.server.guards`). Authentication never switches off
at run time: once a store has seen a key (at start-up or later), it keeps requiring one,
even when the last key is removed or the keys file is deleted (fail closed).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from citewise.errors import CitewiseError, Unauthorized, UsageError
from citewise.facade.caller import LOCAL, ROLES, Caller, Role

KEYS_FILE = "keys.yaml"
TOKEN_PREFIX = "cw_"


@dataclass(frozen=True, slots=True)
class KeyRecord:
    name: str
    principal: str
    kbs: tuple[str, ...]
    sha256: str
    #: reader, editor or admin (facade/caller.py); a key stored without one is admin.
    role: Role = "admin"


def hash_key(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class KeyStore:
    """The keys file of one home. Reads are cheap; the file is re-read when it changes."""

    def __init__(self, home: Path) -> None:
        self.path = home / KEYS_FILE
        self._stamp: tuple[float, int] | None = None
        self._records: list[KeyRecord] = []
        self._required = False
        self._required = self.required

    @property
    def required(self) -> bool:
        """Whether callers must present a key: true once any key was seen, for good."""
        if not self._required:
            try:
                self._required = bool(self.records())
            except CitewiseError:  # an unreadable keys file never means "no keys"
                self._required = True
        return self._required

    def records(self) -> list[KeyRecord]:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._stamp, self._records = None, []
            return []
        stamp = (st.st_mtime, st.st_size)
        if stamp != self._stamp:
            self._records = _parse(self.path.read_text("utf-8"))
            self._stamp = stamp
        return list(self._records)

    @property
    def configured(self) -> bool:
        return bool(self.records())

    def authenticate(self, token: str | None) -> Caller:
        """The caller a presented token belongs to; UNAUTHORIZED when none matches."""
        records = self.records()
        if not records and not self.required:
            return LOCAL
        if not records:
            raise Unauthorized(
                "This server requires an API key, and none is configured now.",
                hint="Add one with 'citewise keys add'; restart the server to serve without.",
            )
        if not token:
            raise Unauthorized(
                "An API key is required.",
                hint="Send it as 'Authorization: Bearer KEY' or 'X-API-Key: KEY'.",
            )
        digest = hash_key(token)
        found: KeyRecord | None = None
        for r in records:  # compare every record in constant time
            if hmac.compare_digest(r.sha256, digest):
                found = r
        if found is None:
            raise Unauthorized("The API key is not valid.", hint="Ask for a key.")
        return Caller(found.name, found.principal, frozenset(found.kbs), found.role)

    def add(self, name: str, principal: str, kbs: list[str], role: str = "admin") -> str:
        """Create a key; returns the token (shown once, stored only as its sha256)."""
        checked = parse_role(role)
        if not name.strip() or not principal.strip():
            raise UsageError("A key needs a name and a principal.")
        if not kbs:
            raise UsageError("A key needs at least one knowledge base.", hint="Use --kbs '*'.")
        records = self.records()
        if any(r.name == name for r in records):
            raise UsageError(f"A key named {name!r} exists.", hint="Remove it first.")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        records.append(KeyRecord(name, principal, tuple(kbs), hash_key(token), checked))
        self._write(records)
        return token

    def remove(self, name: str) -> None:
        records = self.records()
        kept = [r for r in records if r.name != name]
        if len(kept) == len(records):
            raise UsageError(f"No key named {name!r}.")
        self._write(kept)

    def _write(self, records: list[KeyRecord]) -> None:
        data = {
            "keys": [
                {
                    "name": r.name,
                    "principal": r.principal,
                    "kbs": list(r.kbs),
                    "role": r.role,
                    "sha256": r.sha256,
                }
                for r in records
            ]
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(yaml.safe_dump(data, sort_keys=False), "utf-8")
        tmp.chmod(0o600)
        tmp.replace(self.path)
        self._stamp = None


def _parse(text: str) -> list[KeyRecord]:
    try:
        data: Any = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise UsageError(f"{KEYS_FILE} is not valid YAML.") from exc
    out: list[KeyRecord] = []
    for i, item in enumerate(data.get("keys") or []):
        if not isinstance(item, dict):
            raise UsageError(f"{KEYS_FILE}: entry {i + 1} is not a mapping.")
        digest = str(item.get("sha256", "")).lower()
        if len(digest) != 64 or any(ch not in "0123456789abcdef" for ch in digest):
            raise UsageError(f"{KEYS_FILE}: entry {i + 1} needs a 64-hex sha256.")
        kbs = item.get("kbs") or []
        kb_list = [kbs] if isinstance(kbs, str) else [str(k) for k in kbs]
        out.append(
            KeyRecord(
                name=str(item.get("name") or f"key{i + 1}"),
                principal=str(item.get("principal") or item.get("name") or ""),
                kbs=tuple(kb_list),
                sha256=digest,
                role=parse_role(str(item.get("role") or "admin"), f"{KEYS_FILE}: entry {i + 1}: "),
            )
        )
    return out


def parse_role(value: str, where: str = "") -> Role:
    """``value`` as a role; anything else is a usage error listing the roles."""
    for role in ROLES:
        if value.strip().lower() == role:
            return role
    raise UsageError(
        f"{where}unknown role {value[:40]!r}.",
        hint=f"Use one of: {', '.join(ROLES)}.",
    )
