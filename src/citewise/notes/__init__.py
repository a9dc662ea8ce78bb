"""Topic notes compiled from the sources without an LLM (issue 40): every line of a note
is a verbatim quotation with its exact citation; ``rebuild`` keeps them current."""
