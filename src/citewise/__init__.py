"""citewise: an evidence-grounded knowledge base with exact, checkable citations."""

from citewise.errors import CitewiseError

__all__ = ["CitewiseError", "__version__"]
__version__ = "0.1.0"
