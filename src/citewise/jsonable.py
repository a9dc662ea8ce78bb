"""Plain JSON values from the library's dataclasses: one rule shared by the CLI's
``--json``, the HTTP API and the MCP tools, so the three print the same JSON."""

from __future__ import annotations

import dataclasses
from typing import Any


def to_jsonable(obj: Any) -> Any:
    """Dataclasses become dicts of their fields (but fields marked
    ``metadata={"json": False}``), tuples become lists, dict keys strings."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {
            f.name: to_jsonable(getattr(obj, f.name))
            for f in dataclasses.fields(obj)
            if f.metadata.get("json", True)
        }
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_jsonable(v) for v in obj]
    return obj
