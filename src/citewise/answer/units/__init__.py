"""Answer units that follow the document's structure, kept per version, and the context
each is read with."""
