"""Evidence shown as the reader sees it (server/display.py): the web page sends the
excerpts of an evidence pack and gets safe HTML back. The route reads no knowledge base:
it renders only the text it is sent, for a caller the server admits. The answer is a tree
of allowed elements and strings, never HTML for the page to parse."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from citewise.facade.caller import Caller
from citewise.server.deps import get_caller
from citewise.server.display import shape_of, to_tree

router = APIRouter()
CallerDep = Annotated[Caller, Depends(get_caller)]

#: An evidence pack holds at most a few dozen fragments of a few thousand characters;
#: these bounds leave room and refuse abuse with the server's 400 naming the limit.
MAX_ITEMS = 200
MAX_CHARS = 200_000


class DisplayItem(BaseModel):
    text: str = Field(max_length=MAX_CHARS, description="The excerpt as cited.")
    path: str = Field(default="", max_length=4096, description="Its document's path.")
    locator: dict[str, Any] | None = Field(default=None, description="Its locator, if any.")


class DisplayBody(BaseModel):
    items: list[DisplayItem] = Field(max_length=MAX_ITEMS)


@router.post("/display", tags=["web"])
def display(body: DisplayBody, caller: CallerDep) -> dict[str, Any]:
    """Each excerpt as a tree of allowed elements (server/display.py) with the shape it
    was shown in (``markdown``: rendered without raw HTML or images; ``pdf``: line breaks
    inside paragraphs joined; ``text``: as written)."""
    del caller  # admission only: the route reads no knowledge base
    shown = []
    for item in body.items:
        shape = shape_of(item.path, item.locator)
        shown.append({"shape": shape, "tree": to_tree(item.text, shape)})
    return {"items": shown}
