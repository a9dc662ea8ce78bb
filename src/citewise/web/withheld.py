"""Which web snapshots are withheld, and the withheld view of their references (issue 38).

Two kinds of mark live in ``<home>/web/snapshots/withheld.json`` beside the snapshots:

- ``addresses``: a taken-down web address (normalised as the fetcher reads URLs,
  :func:`address_key`) -> its mark. Every snapshot whose ``url`` or ``final_url`` is that
  address is withheld, those fetched later too (the verifier no longer fetches it).
- ``snapshots``: a snapshot hash -> its ``expired`` mark (the retention sweep).

A mark is ``{kind, reason, by, at}``; it never holds page text. The snapshot files stay
(the hash still checks), but :class:`~citewise.web.snapshot.SnapshotStore` refuses their
text and :func:`withhold_refs` replaces the text a saved record quotes from them with the
mark. The acts that set and lift marks, with their ledger events, are in
``governance/web_withhold.py``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from citewise.errors import CitewiseError, CorruptContent
from citewise.web.addresses import parse_target

MARKS_FILE = "withheld.json"
#: The fields of a reference that hold page text (a clause quoted, a search snippet).
TEXT_FIELDS = ("text", "snippet")
#: The fields of a comparison (web/compare.py) that quote the page.
COMPARISON_TEXT = ("differences",)
Marks = dict[str, dict[str, dict[str, Any]]]


def address_key(url: str) -> str:
    """One spelling per address: scheme, lower-case host, port and request target as the
    fetcher sends them (fragment dropped); an unparsable URL is kept as written."""
    try:
        return parse_target(url.strip()).url
    except CitewiseError:
        return url.strip()


def load_marks(root: Path) -> Marks:
    path = root / MARKS_FILE
    if not path.exists():
        return {"addresses": {}, "snapshots": {}}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise CorruptContent(f"{path} is not valid JSON ({exc}).") from exc
    return {"addresses": dict(data.get("addresses") or {}),
            "snapshots": dict(data.get("snapshots") or {})}  # fmt: skip


def save_marks(root: Path, marks: Marks) -> None:
    root.mkdir(parents=True, exist_ok=True)
    path = root / MARKS_FILE
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(marks, sort_keys=True, indent=1), encoding="utf-8")
    tmp.replace(path)


def mark_of(marks: Marks, sha256: str, url: str, final_url: str) -> dict[str, Any] | None:
    """The mark withholding this snapshot: its address's takedown first, else its expiry."""
    for u in (url, final_url):
        found = marks["addresses"].get(address_key(u)) if u else None
        if found is not None:
            return found
    return marks["snapshots"].get(sha256)


def withheld_view(ref: Mapping[str, Any], mark: Mapping[str, Any]) -> dict[str, Any]:
    """A reference as shown once withheld: every field but the text, and why."""
    kept = {k: v for k, v in ref.items() if k not in TEXT_FIELDS}
    return kept | {"withheld": {"kind": mark.get("kind"), "reason": mark.get("reason")}}


def withhold_refs(value: Any, marks: Marks) -> Any:
    """``value`` (a saved answer, an export bundle, a verification record) with the text of
    every withheld snapshot reference replaced by its mark. A reference is any mapping with
    a ``url`` (web evidence, a recorded fetch, a search hit with its snippet); other values
    pass unchanged. A comparison beside withheld web evidence loses its quoted
    differences."""
    if isinstance(value, list | tuple):
        return [withhold_refs(v, marks) for v in value]
    if not isinstance(value, Mapping):
        return value
    if isinstance(value.get("url"), str):  # a fetch, web evidence or a search hit
        sha = str(value.get("sha256") or "")
        mark = mark_of(marks, sha, value["url"], str(value.get("final_url") or ""))
        if mark is not None:
            return withheld_view(value, mark)
    out = {k: withhold_refs(v, marks) for k, v in value.items()}
    web, cmp = out.get("web_evidence"), out.get("comparison")
    if isinstance(web, Mapping) and "withheld" in web and isinstance(cmp, Mapping):
        # A comparison's differences quote the page: only its figures stay.
        out["comparison"] = {k: v for k, v in cmp.items() if k not in COMPARISON_TEXT}
    return out
