"""What two stages share, at the bottom of the layer order (above ``analysis/``, below every
stage): the parsed-document records and their locator (``records``, ``locator``), the stored
records (``stored``), the search filters and results (``search``), the access rule
(``access``), the ledger entry format and Merkle tree (``ledger_entries``, ``merkle``),
secret redaction (``secrets``) and the ``Reranker`` protocol (``reranker``). Nothing here
imports a stage; see docs/architecture.md, "Layers and the dependency rule"."""
