"""Analysis of a question: conditions it states (time, edition) as pure functions."""
