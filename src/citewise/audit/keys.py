"""The Ed25519 checkpoint key, kept in its own file apart from the database.

Default ``<home>/keys/audit_ed25519`` (PKCS#8 PEM, created on first use with mode 0600 in
a 0700 directory); ``CITEWISE_AUDIT_KEY`` or an explicit path overrides it. The public key
is also written beside it as ``<key>.pub`` (hex of the raw 32 bytes) so a verifier needs no
secret.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from citewise.errors import UsageError

KEY_ENV = "CITEWISE_AUDIT_KEY"


def default_key_path(home: Path) -> Path:
    env = os.environ.get(KEY_ENV, "").strip()
    return Path(env).expanduser() if env else home / "keys" / "audit_ed25519"


def public_hex(key: Ed25519PublicKey) -> str:
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw.hex()


def key_id(public_key_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(public_key_hex)).hexdigest()[:16]


def load_private(path: Path) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError) as exc:
        raise UsageError(
            f"Cannot read the audit key {path}: {exc}.",
            hint="Point --key at the Ed25519 key that signed this home's checkpoints.",
        ) from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise UsageError(f"{path} is not an Ed25519 private key.")
    return key


def load_or_create(path: Path) -> tuple[Ed25519PrivateKey, bool]:
    """The signing key at ``path``, created (0600) if absent; ``(key, created)``."""
    if path.exists():
        return load_private(path), False
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    pub = path.with_name(path.name + ".pub")
    pub.write_text(public_hex(key.public_key()) + "\n", encoding="ascii")
    return key, True


def local_public_hex(path: Path) -> str | None:
    """This home's public key, from the private key or its ``.pub`` file; None if neither."""
    if path.exists():
        return public_hex(load_private(path).public_key())
    pub = path.with_name(path.name + ".pub")
    if pub.exists():
        return pub.read_text(encoding="ascii").strip()
    return None


def verify_signature(public_key_hex: str, signature_hex: str, message: bytes) -> bool:
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key_hex))
        key.verify(bytes.fromhex(signature_hex), message)
    except (InvalidSignature, ValueError):
        return False
    return True
