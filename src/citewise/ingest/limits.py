"""Per-file parse budget: nesting depth, node count, wall time and OCR time.

Every format parser gets one :class:`ParseBudget` and reports to it as it goes (an
element opened at some depth, a node made, a step done), so a hostile file stops at
the first limit it passes, with :class:`~citewise.errors.ParseLimitExceeded` naming the
file, the limit and the setting that raises it, instead of growing memory or time
without bound. The clock is injectable so tests check the time limit without timing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from citewise.config import LIMIT_ENV, ParseLimits
from citewise.errors import ParseLimitExceeded

#: Steps between two clock reads (a clock read costs more than a counter bump).
_CLOCK_EVERY = 256


def limit_error(name: str, what: str, setting: str, limit: float) -> ParseLimitExceeded:
    """The one message shape: file, what went past which limit, and how to raise it."""
    shown = f"{limit:g}" if isinstance(limit, float) else f"{limit:,}"
    return ParseLimitExceeded(
        f"{name}: {what} exceeds the parse limit ingest.limits.{setting} = {shown}.",
        hint=(
            f"Simplify or split the file, or raise the limit with "
            f"{LIMIT_ENV[setting]}=<larger value> if the file is trusted."
        ),
    )


@dataclass(slots=True)
class ParseBudget:
    """What one file's parse may still spend; raises when a limit is passed."""

    name: str
    limits: ParseLimits = field(default_factory=ParseLimits)
    clock: Callable[[], float] = time.monotonic
    nodes: int = 0
    max_depth_seen: int = 0
    ocr_seconds: float = 0.0  # OCR time spent so far (charged to ocr_seconds_per_file)
    _steps: int = 0
    _deadline: float = 0.0

    def __post_init__(self) -> None:
        self._deadline = self.clock() + self.limits.max_seconds

    def depth(self, depth: int) -> None:
        """An element / block is open ``depth`` levels deep."""
        if depth > self.max_depth_seen:
            self.max_depth_seen = depth
            if depth > self.limits.max_depth:
                raise limit_error(
                    self.name, f"nesting depth {depth}", "max_depth", self.limits.max_depth
                )

    def node(self, count: int = 1) -> None:
        """``count`` more nodes were made."""
        self.nodes += count
        if self.nodes > self.limits.max_nodes:
            raise limit_error(
                self.name,
                f"more than {self.limits.max_nodes:,} nodes",
                "max_nodes",
                self.limits.max_nodes,
            )
        self.step()

    @property
    def steps(self) -> int:
        """Units of work reported so far."""
        return self._steps

    def step(self) -> None:
        """A unit of parse work was done; the clock is read every few hundred steps."""
        self._steps += 1
        if self._steps % _CLOCK_EVERY == 0:
            self.check_time()

    def text(self, node_chars: int, file_chars: int) -> None:
        """The nodes' texts add up to ``node_chars`` for a file of ``file_chars``."""
        ratio = self.limits.max_text_ratio
        if node_chars > ratio * max(file_chars, 1) + 1_000_000:
            raise limit_error(
                self.name,
                f"node text ({node_chars // max(file_chars, 1)}x the file, from nesting)",
                "max_text_ratio",
                ratio,
            )

    @contextmanager
    def set_aside(self) -> Iterator[None]:
        """Time spent inside is not charged to ``max_seconds`` (the deadline moves by
        it): for work with its own allowance, such as OCR of one page
        (``ocr_seconds_per_page``, enforced by the caller)."""
        started = self.clock()
        try:
            yield
        finally:
            self._deadline += max(0.0, self.clock() - started)

    def ocr_allowance(self) -> tuple[float, str]:
        """Seconds the next page's OCR may take and the setting that sets it: the
        per-page allowance, or what is left of the per-file one when that is less. Raises
        when the file's OCR time is spent."""
        per_page, per_file = self.limits.ocr_seconds_per_page, self.limits.ocr_seconds_per_file
        left = per_file - self.ocr_seconds
        if left <= 0:
            raise limit_error(self.name, "OCR time", "ocr_seconds_per_file", float(per_file))
        if left < per_page:
            return left, "ocr_seconds_per_file"
        return per_page, "ocr_seconds_per_page"

    @contextmanager
    def ocr(self) -> Iterator[None]:
        """OCR of one page: its time is charged to the file's ``ocr_seconds_per_file``
        instead of ``max_seconds``, so the whole parse takes at most the two together.
        Raises when the file's OCR time is passed."""
        started = self.clock()
        with self.set_aside():
            yield
        self.ocr_seconds += max(0.0, self.clock() - started)
        per_file = self.limits.ocr_seconds_per_file
        if self.ocr_seconds > per_file:
            raise limit_error(self.name, "OCR time", "ocr_seconds_per_file", float(per_file))

    def seconds_left(self) -> float:
        """Wall time this file's parse may still take (0 or less: none)."""
        return self._deadline - self.clock()

    def check_time(self) -> None:
        if self.clock() > self._deadline:
            raise limit_error(
                self.name, "parse time", "max_seconds", float(self.limits.max_seconds)
            )


def run_in_child(
    module: str, job: bytes, name: str, budget: ParseBudget
) -> subprocess.CompletedProcess[bytes]:
    """``python -m module`` with ``job`` on its standard input and this interpreter's path,
    killed at what is left of ``budget``'s time (then PARSE_LIMIT on ``max_seconds``): the
    child-process parse shared by the reST guard and the package guard."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        return subprocess.run(
            [sys.executable, "-m", module],
            input=job,
            capture_output=True,
            timeout=max(budget.seconds_left(), 0.001),
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:  # the child is killed by run()
        raise limit_error(
            name, "parse time", "max_seconds", float(budget.limits.max_seconds)
        ) from None


__all__ = ["ParseBudget", "limit_error", "run_in_child"]
