"""citewise: an evidence-grounded knowledge base with exact, checkable citations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from citewise.errors import CitewiseError

if TYPE_CHECKING:
    from citewise.kb import Home, KnowledgeBase

__all__ = ["CitewiseError", "Home", "KnowledgeBase", "__version__", "installed_version"]
__version__ = "0.1.0"


def installed_version() -> str:
    """The installed distribution's version (``importlib.metadata``), which is what the
    user's package manager reports; ``__version__`` when running from an uninstalled
    source tree. The CLI's ``--version``, ``/health`` and the MCP server info all use it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("citewise")
    except PackageNotFoundError:
        return __version__


def __getattr__(name: str) -> Any:
    """``Home`` and ``KnowledgeBase`` load the library on first use, so that importing a
    light submodule (``citewise.errors``, ``citewise.cli``) does not load all of it."""
    if name in ("Home", "KnowledgeBase"):
        from citewise import kb

        return getattr(kb, name)
    raise AttributeError(f"module 'citewise' has no attribute {name!r}")
