"""API keys: from the environment, else from ``<home>/secrets.yaml`` (mode 0600).

Keys are looked up by the *name* a route stores (``api_key_env``); the key itself is never
written to routes, traces, exports, logs or error messages. :func:`redact` removes every
known key from text before it leaves this package.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

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
    for s in secrets:
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
