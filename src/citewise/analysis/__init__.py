"""Text and question analysis shared by the stages, below all of them.

- :mod:`~citewise.analysis.tokenize`: the tokenizer (stemmed words, literals, CJK
  bigrams), key terms and term coverage, read by the index and by every stage;
- :mod:`~citewise.analysis.intent`, :mod:`~citewise.analysis.graph_intent`,
  :mod:`~citewise.analysis.named`: the readings of a question;
- :mod:`~citewise.analysis.question`: :func:`~citewise.analysis.question.analyse`, which
  runs them once into the :class:`~citewise.analysis.question.Question` every stage reads.

Nothing here imports another part of citewise (the import-graph test checks it).
"""
