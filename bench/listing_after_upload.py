"""Cost of the first document listing after an upload (issue 32): time and peak RSS.

Uploads every PDF of the shared documents and papers folders (restricted by the upload's
``metadata`` field where the code under test takes one); then, as a reader and as a
non-reader, uploads one small file (a write: it clears the server's caches) and lists
documents, reporting the listing's wall time and the rise of peak RSS during it
(``VmHWM``, reset through ``/proc/self/clear_refs`` before each listing).

    PYTHONPATH=src python -m bench.listing_after_upload [DATA_ROOT]

DATA_ROOT defaults to ``$CITEWISE_DATA`` or ``<repo>/../shared/data``; without its PDFs the
benchmark prints a message and exits 0. Results: docs/benchmarks.md.
"""

from __future__ import annotations

import inspect
import io
import os
import sys
import tempfile
import time
from pathlib import Path

from bench._beir import data_root


def _hwm_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def _reset_hwm() -> None:
    Path("/proc/self/clear_refs").write_text("5")


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else data_root()
    pdfs = sorted((root / "documents" / "pdf").glob("*.pdf")) + sorted(
        (root / "papers").glob("*.pdf")
    )
    if not pdfs:
        print(f"skipped: no PDFs under {root}")
        return 0
    os.environ["CITEWISE_DENSE"] = "off"
    from citewise.facade.caller import Caller
    from citewise.facade.service import Service, Upload
    from citewise.kb import Home

    with tempfile.TemporaryDirectory() as tmp:
        home = Home.open(Path(tmp) / "home")
        service = Service(home)
        admin = Caller(name="admin", principal="finance", kbs=frozenset({"*"}))
        other = Caller(name="bob", principal="bob", kbs=frozenset({"*"}))
        takes_fields = "metadata" in inspect.signature(service.upload).parameters
        fields = {"metadata": '{"access": ["finance"]}'} if takes_fields else {}
        added = 0
        for pdf in pdfs:
            report = service.upload(
                admin, "default", [Upload(pdf.name, io.BytesIO(pdf.read_bytes()))], **fields
            )
            added += sum(f.status == "added" for f in report.files)
        print(f"{added} PDFs stored ({sum(p.stat().st_size for p in pdfs) / 1e6:.1f} MB)")
        for n, (label, caller) in enumerate((("reader", admin), ("non-reader", other))):
            note = Upload(f"note{n}.md", io.BytesIO(b"# Note\n\nA write.\n"))
            service.upload(admin, "default", [note])  # a write: the caches are cleared
            _reset_hwm()
            before = _hwm_kb()
            started = time.perf_counter()
            total = service.documents(caller, "default")["total"]
            took = time.perf_counter() - started
            print(
                f"listing as {label}: {total} documents, {took:.2f} s, "
                f"peak RSS +{(_hwm_kb() - before) / 1024:.0f} MB"
            )
        home.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
