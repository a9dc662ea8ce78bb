"""Listeners told of every finished ask run: metrics and traces read the runner's record.

The runner (:mod:`citewise.answer.steps.runner`) times each step once; a listener gets the
final :class:`~citewise.answer.steps.state.AskState` and that record after the run, so
Prometheus histograms and OpenTelemetry spans use the same step times and never time a
step again. Listeners are held weakly when they are bound methods (an app's metrics
object that is gone stops listening), and a listener that raises is logged and skipped:
observing never changes or fails an answer.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citewise.answer.steps.record import Run
    from citewise.answer.steps.state import AskState

__all__ = ["Listener", "listen", "notify", "unlisten"]

Listener = Callable[["AskState", "Run"], None]

log = logging.getLogger(__name__)
_lock = threading.Lock()
_listeners: list[Callable[[], Listener | None]] = []


def _ref(listener: Listener) -> Callable[[], Listener | None]:
    if hasattr(listener, "__self__") and hasattr(listener, "__func__"):
        return weakref.WeakMethod(listener)
    return lambda: listener


def listen(listener: Listener) -> None:
    """Call ``listener(state, run)`` after every ask run in this process."""
    with _lock:
        _listeners.append(_ref(listener))


def unlisten(listener: Listener) -> None:
    """Stop calling ``listener`` (no error when it was not listening)."""
    with _lock:
        _listeners[:] = [r for r in _listeners if r() not in (None, listener)]


def _alive() -> list[Listener]:
    with _lock:
        found = [(r, r()) for r in _listeners]
        _listeners[:] = [r for r, f in found if f is not None]
        return [f for _, f in found if f is not None]


def notify(state: AskState, run: Run) -> None:
    """Tell every listener of a finished run; a failing listener is logged, never raised."""
    for listener in _alive():
        try:
            listener(state, run)
        except Exception:  # observing must not fail an answer
            log.exception("ask run listener %r failed", _name(listener))


def _name(listener: Any) -> str:
    return getattr(listener, "__qualname__", type(listener).__name__)
