"""citewise: an evidence-grounded knowledge base with exact, checkable citations."""

from citewise.errors import CitewiseError
from citewise.kb import Home, KnowledgeBase

__all__ = ["CitewiseError", "Home", "KnowledgeBase", "__version__"]
__version__ = "0.1.0"
