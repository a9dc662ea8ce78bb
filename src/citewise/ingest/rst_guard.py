"""reST parsing with a wall-clock limit that holds inside docutils.

docutils cannot be interrupted, and its grid tables cost about 20 s per MB on the
benchmark machine (docs/benchmarks.md, "Hostile reStructuredText"), so a large hostile
file could run far past ``ingest.limits.max_seconds`` before the budget is checked.
A file of more than :data:`IN_PROCESS_CHARS` characters is therefore parsed in a child
Python process (``python -m citewise.ingest.rst_guard``) that is killed when the file's
time runs out (``PARSE_LIMIT``, nothing stored); smaller files, which docutils parses in
well under a second, stay in process. The child is a fresh interpreter given the input on
stdin (not a ``multiprocessing`` worker: those re-import the caller's main module and fork
beside the server's threads); it returns the parsed nodes, plain dataclasses, pickled.
"""

from __future__ import annotations

import pickle
import sys

from citewise.config import ParseLimits
from citewise.errors import BrokenFile
from citewise.ingest.decode import LineIndex
from citewise.ingest.limits import ParseBudget, run_in_child
from citewise.ingest.tree import RawNode

#: Files up to this many characters are parsed in process (about 0.5 s of docutils at
#: worst, for tables); larger ones in a child process stopped at the time limit.
IN_PROCESS_CHARS = 256 * 1024

Parsed = tuple[list[RawNode], str | None]


def parse_rst_guarded(text: str, body_offset: int, index: LineIndex, budget: ParseBudget) -> Parsed:
    """:func:`citewise.ingest.rst.parse_rst` within ``budget``'s time, even inside
    docutils (see the module docstring). An error of the child (a parse limit, a broken
    file) is raised here as it was raised there."""
    from citewise.ingest.rst import indent_depth, parse_rst

    if len(text) - body_offset <= IN_PROCESS_CHARS:
        return parse_rst(text, body_offset, index, budget)
    budget.depth(indent_depth(text[body_offset:]))  # refused here, no child started
    job = pickle.dumps((text, body_offset, budget.name, budget.limits))
    done = run_in_child("citewise.ingest.rst_guard", job, budget.name, budget)
    if done.returncode != 0 or not done.stdout:
        raise BrokenFile(
            f"{budget.name}: the reStructuredText parser stopped (exit {done.returncode}).",
            hint="Check that the file is valid reST, or split it.",
        )
    status, value = pickle.loads(done.stdout)  # our own child's output
    if status == "error":
        raise value
    budget.check_time()
    result: Parsed = value
    return result


def _main() -> None:
    """The child: (text, body offset, name, limits) pickled on stdin; ("ok", nodes and
    title) or ("error", exception) pickled on stdout."""
    from citewise.ingest.rst import parse_rst

    text, body_offset, name, limits = pickle.loads(sys.stdin.buffer.read())
    assert isinstance(limits, ParseLimits)
    try:
        out: tuple[str, object] = (
            "ok",
            parse_rst(text, body_offset, None, ParseBudget(name, limits)),
        )
    except Exception as exc:  # returned to the parent, which raises it for this file
        out = ("error", exc)
    sys.stdout.buffer.write(pickle.dumps(out))


if __name__ == "__main__":
    _main()


__all__ = ["IN_PROCESS_CHARS", "parse_rst_guarded"]
