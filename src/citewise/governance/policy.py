"""The per-knowledge-base policy: ``<home>/kbs/<kb>/policy.yaml``, read into a typed model.

Every key is checked: an unknown key, a value of the wrong type or outside its choices is
a ``BAD_POLICY`` error naming the key, what it holds and the fix. A missing file is the
default policy (``publication: open``, nothing quarantined): today's behaviour.

Enforced today: ``publication``, ``quarantine``, ``retention`` (governance/withhold.py),
``conflicts`` (governance/conflicts.py), ``redaction`` (governance/redaction.py) and
``verification`` (governance/verification.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import yaml

from citewise.errors import BadPolicy

POLICY_FILE = "policy.yaml"
Publication = Literal["open", "review"]
Conflicts = Literal["degrade", "needs_review"]
Verification = Literal["off", "regulatory", "always"]
Redaction = Literal["off", "metadata"]
PUBLICATION: tuple[Publication, ...] = ("open", "review")
CONFLICTS: tuple[Conflicts, ...] = ("degrade", "needs_review")
VERIFICATION: tuple[Verification, ...] = ("off", "regulatory", "always")
REDACTION: tuple[Redaction, ...] = ("off", "metadata")
#: Keys that are read and shown but not acted on yet (none since verification routing).
NOT_ENFORCED: tuple[str, ...] = ()
#: A policy file larger than this is refused (it is a few lines; anything else is a mistake).
MAX_POLICY_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class QuarantineRules:
    """Which parse warnings (and sizes) hold a file out of answers until released."""

    ocr_degraded: bool = False  # pages read by OCR (PDF ``ocr_pages``)
    repaired_extraction: bool = False  # pages re-extracted by a second extractor
    parse_warnings: bool = False  # pages not read or read suspect (needs_ocr, text_suspect)
    max_bytes: int | None = None  # files larger than this (raw bytes)

    @property
    def active(self) -> bool:
        return (
            self.ocr_degraded
            or self.repaired_extraction
            or self.parse_warnings
            or self.max_bytes is not None
        )


@dataclass(frozen=True, slots=True)
class Retention:
    default_days: int | None = None
    #: Days a web snapshot is kept after its fetch (None: kept); governance/web_withhold.py.
    web_days: int | None = None


@dataclass(frozen=True, slots=True)
class Policy:
    """A knowledge base's policy; the defaults are today's behaviour."""

    publication: Publication = "open"
    publishers: tuple[str, ...] = ()
    quarantine: QuarantineRules = field(default_factory=QuarantineRules)
    conflicts: Conflicts = "degrade"
    verification: Verification = "off"
    retention: Retention = field(default_factory=Retention)
    #: ``metadata``: a reader without access sees a matching restricted document's title,
    #: reason and owner (governance/redaction.py); ``off``: it looks absent.
    redaction: Redaction = "off"

    @property
    def gated(self) -> bool:
        """Whether an ingest can hold anything back (review mode, or any quarantine rule)."""
        return self.publication == "review" or self.quarantine.active

    def may_publish(self, principal: str | None, *, admin: bool) -> bool:
        """A publisher approves, rejects and releases: a principal named in ``publishers``;
        when the list is empty, any caller with the admin role (the local user is one)."""
        if self.publishers:
            return principal is not None and principal in self.publishers
        return admin

    def to_json(self) -> dict[str, Any]:
        return {
            "publication": self.publication,
            "publishers": list(self.publishers),
            "quarantine": {
                "ocr_degraded": self.quarantine.ocr_degraded,
                "repaired_extraction": self.quarantine.repaired_extraction,
                "parse_warnings": self.quarantine.parse_warnings,
                "max_bytes": self.quarantine.max_bytes,
            },
            "conflicts": self.conflicts,
            "verification": self.verification,
            "retention": {
                "default_days": self.retention.default_days,
                "web_days": self.retention.web_days,
            },
            "redaction": self.redaction,
            "not_enforced": list(NOT_ENFORCED),
        }


def policy_path(home: Path, kb: str) -> Path:
    """Where ``kb``'s policy lives (KB names are ``[a-z0-9_-]``, safe as a folder name)."""
    return home / "kbs" / kb / POLICY_FILE


def load_policy(home: Path, kb: str) -> Policy:
    """``kb``'s policy, or the default when it has no ``policy.yaml``."""
    path = policy_path(home, kb)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Policy()
    except OSError as exc:
        raise BadPolicy(
            f"{path}: cannot read the policy ({exc.strerror or exc}).",
            hint="Check the file's permissions, or remove it for the default policy.",
        ) from exc
    if len(raw) > MAX_POLICY_BYTES:
        raise BadPolicy(
            f"{path}: {len(raw):,} bytes is over the {MAX_POLICY_BYTES:,}-byte limit.",
            hint="A policy is a few lines of YAML; see docs/governance.md.",
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadPolicy(f"{path}: not UTF-8 text.", hint="Save it as UTF-8.") from exc
    return parse_policy(text, str(path))


def parse_policy(text: str, source: str = POLICY_FILE) -> Policy:
    """The policy in ``text`` (YAML), checked key by key (see the module docstring)."""
    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise BadPolicy(
            f"{source}: not valid YAML ({str(exc).splitlines()[0]}).",
            hint="Fix the YAML syntax; see docs/governance.md for an example.",
        ) from exc
    top = _mapping(data if data is not None else {}, source, "the file")
    keys = ("publication", "publishers", *_SECTIONS, "conflicts", "verification", "redaction")
    _known(top, source, "", keys)
    kept = _section(top, "retention", ("default_days", "web_days"), source)
    return Policy(
        publication=_choice(top, "publication", PUBLICATION, "open", source),
        publishers=_publishers(top.get("publishers", []), source),
        quarantine=_quarantine(top.get("quarantine", {}), source),
        conflicts=_choice(top, "conflicts", CONFLICTS, "degrade", source),
        verification=_choice(top, "verification", VERIFICATION, "off", source),
        redaction=_choice(top, "redaction", REDACTION, "off", source),
        retention=Retention(
            _count(kept.get("default_days"), "retention.default_days", source),
            _count(kept.get("web_days"), "retention.web_days", source),
        ),
    )


_SECTIONS = ("quarantine", "retention")
_QUARANTINE_FLAGS = ("ocr_degraded", "repaired_extraction", "parse_warnings")


def _mapping(value: object, source: str, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise BadPolicy(
            f"{source}: {what} must be a mapping of names to values, not {type(value).__name__}.",
            hint="Write it as 'key: value' lines; see docs/governance.md.",
        )
    return cast(Mapping[str, Any], value)


def _known(data: Mapping[str, Any], source: str, prefix: str, allowed: tuple[str, ...]) -> None:
    for key in data:
        if key not in allowed:
            raise BadPolicy(
                f"{source}: unknown key {prefix + key!r}.",
                hint=f"Use one of: {', '.join(prefix + a for a in allowed)}.",
            )


def _section(top: Mapping[str, Any], name: str, keys: tuple[str, ...], source: str) -> Any:
    data = _mapping(top.get(name) or {}, source, f"{name!r}")
    _known(data, source, f"{name}.", keys)
    return data.get(keys[0]) if len(keys) == 1 else data


def _choice(
    data: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str, source: str
) -> Any:
    value = data.get(key, default)
    if value is False and "off" in choices:
        value = "off"  # YAML 1.1 reads a bare off (and no) as false
    if value not in choices:
        raise BadPolicy(
            f"{source}: {key!r} is {value!r}.",
            hint=f"Set {key} to one of: {', '.join(choices)}.",
        )
    return value


def _publishers(value: object, source: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(p, str) and p.strip() for p in value):
        raise BadPolicy(
            f"{source}: 'publishers' must be a list of principal names.",
            hint="Write it as publishers: [alice, compliance-team].",
        )
    return tuple(p.strip() for p in value)


def _flag(data: Mapping[str, Any], key: str, source: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise BadPolicy(
            f"{source}: 'quarantine.{key}' is {value!r}.",
            hint=f"Set quarantine.{key} to true or false.",
        )
    return value


def _count(value: object, key: str, source: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BadPolicy(
            f"{source}: {key!r} is {value!r}.",
            hint=f"Set {key} to a whole number of at least 1, or null for none.",
        )
    return value


def _quarantine(value: object, source: str) -> QuarantineRules:
    data = _mapping(value or {}, source, "'quarantine'")
    _known(data, source, "quarantine.", (*_QUARANTINE_FLAGS, "max_bytes"))
    return QuarantineRules(
        ocr_degraded=_flag(data, "ocr_degraded", source),
        repaired_extraction=_flag(data, "repaired_extraction", source),
        parse_warnings=_flag(data, "parse_warnings", source),
        max_bytes=_count(data.get("max_bytes"), "quarantine.max_bytes", source),
    )
