"""On/off switches read from the environment (``CITEWISE_DENSE=off`` ...).

One parser for all of them, so that a misspelt value ("of", "flase") is an error that
names the variable and the values it takes, not a silent "off" (or "on").
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from citewise.errors import UsageError

__all__ = ["OFF", "ON", "SWITCHES", "check_switches", "env_switch"]

ON = ("on", "1", "true", "yes")
OFF = ("off", "0", "false", "no")

#: Every on/off variable the product reads (``CITEWISE_MEANING`` also takes a model folder,
#: so it is read by :mod:`citewise.answer.meaning.check` itself).
SWITCHES = (
    "CITEWISE_DENSE",
    "CITEWISE_ENCODER_INT8",
    "CITEWISE_OCR",
    "CITEWISE_PASSAGES",
    "CITEWISE_PGVECTOR",
)


def env_switch(name: str, default: bool, env: Mapping[str, str] | None = None) -> bool:
    """The switch ``name``: ``default`` when unset or empty; :class:`UsageError` for a
    value that is neither on nor off."""
    raw = (os.environ if env is None else env).get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ON:
        return True
    if raw in OFF:
        return False
    raise UsageError(
        f"{name}={raw!r} is neither on nor off.",
        hint=f"Set {name} to on or off ({'/'.join(ON[1:])} and {'/'.join(OFF[1:])} are read "
        f"too), or unset it for the default ({'on' if default else 'off'}).",
    )


def check_switches(env: Mapping[str, str] | None = None) -> None:
    """Fail before any work when a switch of :data:`SWITCHES` holds a value that is
    neither on nor off (each is read again where it applies)."""
    for name in SWITCHES:
        env_switch(name, False, env)
