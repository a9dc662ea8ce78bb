"""Legacy binary Office files (.doc, .xls, .ppt) read through LibreOffice.

The old binary formats (OLE compound files) have no maintained pure-Python reader that
keeps structure, so a file is converted with ``soffice --headless --convert-to
docx|xlsx|pptx`` into a private temporary folder and the converted package is parsed
by the DOCX/XLSX/PPTX parser (its locators are those of the converted file: paragraph,
``Sheet1!C7`` cells, slide). ``metadata["converted_from"]`` records the original format.

- **No LibreOffice** (``soffice``/``libreoffice`` not on ``PATH``): the file fails with
  ``DEPENDENCY_MISSING`` naming the Debian package to install; the batch goes on.
- **Budget**: the conversion runs under the file's parse time (``max_seconds``, what is
  left of it) in its own process group, killed whole when the time runs out
  (``PARSE_LIMIT``); the converted package then passes the same zip budgets
  (``zipbudget``) as any DOCX/XLSX/PPTX. LibreOffice gets a throw-away profile
  (``-env:UserInstallation``) so conversions never share or lock the user's profile.
- A file that is not an OLE compound file, or that LibreOffice cannot convert
  (damaged, password-protected), is ``BROKEN_FILE``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from citewise.errors import BrokenFile, DependencyMissing
from citewise.ingest.extracted import Extracted
from citewise.ingest.limits import ParseBudget, limit_error

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
#: legacy suffix -> (the format it is converted to, the Debian package that converts it)
LEGACY = {
    ".doc": ("docx", "libreoffice-writer-nogui"),
    ".xls": ("xlsx", "libreoffice-calc-nogui"),
    ".ppt": ("pptx", "libreoffice-impress-nogui"),
}


def soffice() -> str | None:
    """The LibreOffice program on ``PATH``, if any."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def _missing(name: str, suffix: str) -> DependencyMissing:
    package = LEGACY[suffix][1]
    return DependencyMissing(
        f"{name}: reading a legacy {suffix} file needs LibreOffice (the 'soffice' program), "
        "which is not installed.",
        hint=f"Install it (Debian/Ubuntu: apt-get install {package}, or libreoffice-core "
        f"with the matching component), or save the file as {LEGACY[suffix][0].upper()} "
        "and add that copy.",
    )


def _run(cmd: list[str], cwd: Path, seconds: float, name: str, budget: ParseBudget) -> int:
    """Run ``cmd`` in its own process group; the whole group is killed at the time limit."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(cwd), "LANG": "C.UTF-8"}
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        return proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise limit_error(
            name, "LibreOffice conversion time", "max_seconds", float(budget.limits.max_seconds)
        ) from None


def convert(raw: bytes, name: str, suffix: str, budget: ParseBudget) -> bytes:
    """The file converted to its modern package (see the module docstring)."""
    target, _ = LEGACY[suffix]
    if not raw.startswith(OLE_MAGIC):
        raise BrokenFile(
            f"{name}: not a legacy Office file (no OLE compound-file header).",
            hint="Check the file's extension matches its content.",
        )
    exe = soffice()
    if exe is None:
        raise _missing(name, suffix)
    with tempfile.TemporaryDirectory(prefix="citewise-soffice-") as tmp:
        root = Path(tmp)
        src, out = root / f"in{suffix}", root / "out"
        src.write_bytes(raw)
        out.mkdir()
        cmd = [
            exe,
            "--headless",
            "--norestore",
            "--nolockcheck",
            f"-env:UserInstallation={(root / 'profile').as_uri()}",
            "--convert-to",
            target,
            "--outdir",
            str(out),
            str(src),
        ]
        code = _run(cmd, root, max(budget.seconds_left(), 0.1), name, budget)
        done = out / f"in.{target}"
        if code != 0 or not done.is_file():
            raise BrokenFile(
                f"{name}: LibreOffice could not convert the {suffix} file (exit {code}); "
                "it may be damaged or password-protected.",
                hint=f"Open it in an office suite, save it as {target.upper()}, add that copy.",
            )
        return done.read_bytes()


def parse_legacy(raw: bytes, name: str, suffix: str, budget: ParseBudget) -> Extracted:
    """A legacy file converted, then read by the modern format's parser."""
    from citewise.ingest.package_guard import parse_package

    target, _ = LEGACY[suffix]
    converted = convert(raw, name, suffix, budget)
    budget.check_time()
    doc = parse_package(target, converted, name, budget)
    return Extracted(
        doc.text, doc.nodes, doc.title, {**doc.metadata, "converted_from": suffix.lstrip(".")}
    )


__all__ = ["LEGACY", "OLE_MAGIC", "convert", "parse_legacy", "soffice"]
