"""A memory ceiling and a hard time limit for parsing large ZIP packages.

The size checks of ``zipbudget`` bound what a package expands to, but not what a parser
makes of it: ElementTree and lxml hold about six times the XML they read, openpyxl
about 38 times, and they report to the parse budget only between whole parts
(measured: an ODT whose ``content.xml`` is 40 MB of short spans took +254 MB and 20 s
in process, docs/benchmarks.md "Parse budgets (issue 32)"). A package whose central
directory declares more than :data:`IN_PROCESS_BYTES` expanded (4 MiB for XLSX) is
therefore parsed in a child Python process whose address space is capped at
``max_parse_memory_mb`` (``RLIMIT_AS``) and which is killed when the file's time runs
out; past either the file fails alone with ``PARSE_LIMIT``. Smaller packages, every
ordinary office file and book seen so far, stay in process. Like ``rst_guard``, the
child is a fresh interpreter given the job on stdin (not a ``multiprocessing`` worker,
which would re-import the caller's main module and fork beside the server's threads),
returning the result pickled.
"""

from __future__ import annotations

import importlib
import pickle
import resource
import sys
from typing import Any

from citewise.config import ParseLimits
from citewise.errors import BrokenFile
from citewise.ingest.extracted import Extracted
from citewise.ingest.limits import ParseBudget, limit_error, run_in_child
from citewise.ingest.zipbudget import declared_total

#: Packages declaring at most this many expanded bytes are parsed in process (the
#: largest ordinary package of the shared corpora expands to 5.3 MB).
IN_PROCESS_BYTES = 16 * 1024 * 1024
#: Formats whose library holds much more per byte: openpyxl keeps an object per cell,
#: about 38 bytes of memory per byte of sheet XML (measured: a 16 MB sheet of a million
#: short cells, within ``max_sheet_cells``, added 600 MB in process).
IN_PROCESS_BYTES_BY_FORMAT = {"xlsx": 4 * 1024 * 1024}

_PARSERS = {
    "docx": ("citewise.ingest.docx", "parse_docx"),
    "xlsx": ("citewise.ingest.xlsx", "parse_xlsx"),
    "pptx": ("citewise.ingest.pptx", "parse_pptx"),
    "epub": ("citewise.ingest.epub", "parse_epub"),
    "odt": ("citewise.ingest.odt", "parse_odt"),
    "ods": ("citewise.ingest.ods", "parse_ods"),
    "odp": ("citewise.ingest.odp", "parse_odp"),
}


def _parser(fmt: str) -> Any:
    module, func = _PARSERS[fmt]
    return getattr(importlib.import_module(module), func)


def _memory_error(budget_name: str, limits: ParseLimits) -> Exception:
    return limit_error(
        budget_name,
        "the parse's memory",
        "max_parse_memory_mb",
        limits.max_parse_memory_mb,
    )


def parse_package(fmt: str, raw: bytes, name: str, budget: ParseBudget) -> Extracted:
    """``fmt``'s parser on ``raw``: in process for a small package, else in a child with
    a memory ceiling, stopped at the file's time limit (see the module docstring)."""
    in_process = IN_PROCESS_BYTES_BY_FORMAT.get(fmt, IN_PROCESS_BYTES)
    if declared_total(raw, name, budget.limits) <= in_process:
        result: Extracted = _parser(fmt)(raw, name, budget)
        return result
    job = pickle.dumps((fmt, raw, name, budget.limits))
    done = run_in_child("citewise.ingest.package_guard", job, name, budget)
    if done.returncode != 0 or not done.stdout:
        if b"MemoryError" in done.stderr:
            raise _memory_error(name, budget.limits)
        raise BrokenFile(
            f"{name}: the {fmt.upper()} parser stopped (exit {done.returncode}).",
            hint=f"Check the file opens in its application, re-save it as {fmt.upper()}.",
        )
    status, value = pickle.loads(done.stdout)  # our own child's output
    if status == "memory":
        raise _memory_error(name, budget.limits)
    if status == "error":
        raise value
    budget.check_time()
    extracted: Extracted = value
    return extracted


def _cap_address_space(megabytes: int) -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = megabytes * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _main() -> None:
    """The child: (format, bytes, name, limits) pickled on stdin; ("ok", Extracted),
    ("error", exception) or ("memory", None) pickled on stdout."""
    fmt, raw, name, limits = pickle.loads(sys.stdin.buffer.read())
    assert isinstance(limits, ParseLimits)
    parse = _parser(fmt)  # the libraries load before the ceiling is set
    out: tuple[str, object]
    try:
        _cap_address_space(limits.max_parse_memory_mb)
        out = ("ok", parse(raw, name, ParseBudget(name, limits)))
    except MemoryError:
        out = ("memory", None)
    except Exception as exc:  # returned to the parent, which raises it for this file
        out = ("error", exc)
    try:
        data = pickle.dumps(out)
    except MemoryError:
        data = pickle.dumps(("memory", None))
    sys.stdout.buffer.write(data)


if __name__ == "__main__":
    _main()


__all__ = ["IN_PROCESS_BYTES", "parse_package"]
