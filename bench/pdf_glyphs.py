"""Checked PDF text (issue 36): per shared PDF, pages checked, pages re-extracted by the
second extractor, characters changed, and pages left suspect.

Reads the PDFs under ``$CITEWISE_DATA`` (default ``../shared/data``): ``documents/pdf``
and ``papers``; skips cleanly without them. ``--cjk`` limits the run to files with CJK
text. Run: ``.venv/bin/python -m bench.pdf_glyphs [--cjk]``.
"""

from __future__ import annotations

import argparse

from bench._beir import data_root
from citewise.errors import CitewiseError
from citewise.ingest.pdf import parse_pdf
from citewise.ingest.pdf_glyphs import script_of


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cjk", action="store_true", help="only files with CJK text")
    args = ap.parse_args()
    data = data_root()
    files = sorted((data / "documents" / "pdf").glob("*.pdf")) + sorted(
        (data / "papers").glob("*.pdf")
    )
    if not files:
        print(f"skipped: no PDFs under {data}")
        return
    print("| file | pages checked | pages re-extracted | characters changed | pages suspect |")
    print("|---|---|---|---|---|")
    for path in files:
        try:
            doc = parse_pdf(path.read_bytes(), path.name)
        except CitewiseError as exc:
            if not args.cjk:
                print(f"| `{path.name}` | not read ({exc.code}) | | | |")
            continue
        if args.cjk and not any(script_of(c) == "cjk" for c in doc.text):
            continue
        check = doc.metadata["text_check"]
        suspect = [s["page"] for s in doc.metadata.get("text_suspect", [])]
        print(
            f"| `{path.name}` | {check['pages_checked']} | {len(check['pages_reextracted'])} "
            f"| {check['chars_changed']} | {len(suspect)} |"
        )


if __name__ == "__main__":
    main()
