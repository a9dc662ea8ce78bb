"""The second source: web search, the SSRF-safe fetcher, snapshots and verification."""
