"""API keys: from the environment, else from ``<home>/secrets.yaml`` (mode 0600).

Keys are looked up by the *name* a route stores (``api_key_env``); the key itself is never
written to routes, traces, exports, logs or error messages. :func:`redact` removes every
known key from text before it leaves this package: the client scrubs each model reply
(a model may echo its request headers), and exports scrub again with
:func:`~citewise.llm.routes.known_secrets`. Credentials in an endpoint URL
(``http://user:pass@host``) are secrets too: they are shown as
``http://[REDACTED]@host`` (:func:`public_url`) and their plain and Basic-auth forms are
masked like keys (:func:`url_secrets`).
"""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import yaml

from citewise.errors import SecretsError

SECRETS_FILE = "secrets.yaml"
MASK = "[REDACTED]"


def secrets_path(home: Path) -> Path:
    return home / SECRETS_FILE


def _from_file(home: Path) -> dict[str, str]:
    path = secrets_path(home)
    if not path.is_file():
        return {}
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise SecretsError(
            f"{path} is readable by others (mode {mode:o}).",
            hint=f"Run: chmod 600 {path}",
        )
    try:
        data = yaml.safe_load(path.read_text("utf-8")) or {}
    except yaml.YAMLError:
        # Never echo the parser's message: it may quote the file's content.
        raise SecretsError(f"{path} is not valid YAML.", hint="Use lines NAME: value.") from None
    if not isinstance(data, dict):
        raise SecretsError(f"{path} must map names to keys.", hint="Use lines NAME: value.")
    return {str(k): str(v) for k, v in data.items() if v is not None}


def resolve_key(name: str, home: Path) -> str | None:
    """The key named ``name``: environment first, then the home's secrets file."""
    if not name:
        return None
    value = os.environ.get(name)
    if value:
        return value
    return _from_file(home).get(name) or None


def write_secret(home: Path, name: str, value: str) -> Path:
    """Store ``name: value`` in the secrets file, created 0600."""
    path = secrets_path(home)
    data: dict[str, Any] = dict(_from_file(home))
    data[name] = value
    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        yaml.safe_dump(data, fh)
    os.chmod(path, 0o600)
    return path


def redact(text: str, secrets: list[str]) -> str:
    for s in sorted(secrets, key=len, reverse=True):  # "user:pass" before "pass"
        if s and len(s) >= 4:
            text = text.replace(s, MASK)
    return text


def redact_obj(obj: Any, secrets: list[str]) -> Any:
    """A copy of a JSON-like value with every known secret masked."""
    if not any(s and len(s) >= 4 for s in secrets):
        return obj
    if isinstance(obj, str):
        return redact(obj, secrets)
    if isinstance(obj, dict):
        return {redact_obj(k, secrets): redact_obj(v, secrets) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [redact_obj(v, secrets) for v in obj]
    return obj


def public_url(url: str) -> str:
    """``url`` without its userinfo (``user:pass@``), for display, traces and logs."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return parts._replace(netloc=f"{MASK}@{host}").geturl()


def url_secrets(url: str) -> list[str]:
    """The credential strings an endpoint URL carries: its userinfo as written, decoded,
    the password alone, and the Basic-auth token a client sends for it."""
    netloc = urlsplit(url).netloc
    if "@" not in netloc:
        return []
    info = netloc.rsplit("@", 1)[0]
    user, _, password = info.partition(":")
    plain = f"{unquote(user)}:{unquote(password)}"
    out = [info, plain, base64.b64encode(plain.encode("utf-8")).decode("ascii")]
    out += [password, unquote(password)] if password else [user, unquote(user)]
    return sorted({s for s in out if s}, key=len, reverse=True)


def stored_keys(home: Path) -> list[str]:
    """The key values the home's secrets file holds (raises ``SecretsError`` for a bad
    file); :func:`citewise.llm.routes.known_secrets` adds the routes' keys."""
    return list(_from_file(home).values())
