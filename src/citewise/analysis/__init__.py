"""Text and question analysis shared by the stages, below all of them.

- :mod:`~citewise.analysis.tokenize`: the tokenizer (stemmed words, literals, CJK
  bigrams), key terms and term coverage, read by the index and by every stage;
- :mod:`~citewise.analysis.intent`, :mod:`~citewise.analysis.graph_intent`,
  :mod:`~citewise.analysis.named`: the readings of a question;
- :mod:`~citewise.analysis.question`: :func:`~citewise.analysis.question.analyse`, which
  runs them once into the :class:`~citewise.analysis.question.Question` every stage reads;
- :mod:`~citewise.analysis.asof`: the dates a question is asked about ("as of 2023").

Nothing here imports another part of citewise but `errors.py` (the import-graph test
checks it).
"""
