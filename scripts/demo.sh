#!/usr/bin/env bash
# make demo: build a knowledge base from the example corpus and show cited output.
set -euo pipefail
# Works from any working directory: the corpus is found next to this script.
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CW="$1"
case "$CW" in */*) CW="$(cd "$(dirname "$CW")" && pwd)/$(basename "$CW")" ;; esac
HOME_DIR="$2"
export CITEWISE_HOME="$HOME_DIR"
rm -rf "$HOME_DIR"
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "citewise add examples/corpus"
"$CW" add "$REPO/examples/corpus"

say "citewise docs list"
"$CW" docs list

say "citewise stats"
"$CW" stats

say 'citewise search "what happens when a sync cursor expires?" -k 3'
"$CW" search "what happens when a sync cursor expires?" -k 3

say 'citewise search "如何排查指标异常" -k 2   (Chinese, no dictionary)'
"$CW" search "如何排查指标异常" -k 2

say 'citewise search "clause 3.1" -k 1   (exact clause lookup)'
"$CW" search "clause 3.1" -k 1

say 'citewise evidence "what happens when a sync cursor expires?" --no-decisions'
"$CW" evidence "what happens when a sync cursor expires?" --no-decisions

say "citewise graph show sync-modes.md"
"$CW" graph show sync-modes.md

say "citewise docs show data-retention-policy.md --nodes (clause paths from legal numbering)"
"$CW" docs show data-retention-policy.md --nodes --limit 8 || true

NODE=$("$CW" docs show data-retention-policy.md --nodes --json | python3 -c '
import json, sys
nodes = json.load(sys.stdin)["nodes"]
print(next(n["id"] for n in nodes if n.get("clause_path") and n["kind"] == "paragraph"))')
say "citewise cite resolve $NODE"
"$CW" cite resolve "$NODE"

say 'citewise ask "How do I upgrade a Harbor node to 2.4.1?"'
"$CW" ask "How do I upgrade a Harbor node to 2.4.1?"

say 'citewise ask "What is the default retry limit?"   (a superseded edition says otherwise: it is set aside, and the answer says which and why)'
"$CW" ask "What is the default retry limit?"

say 'citewise ask "What is the default retry limit?" --lang zh   (the same answer; citewise'"'"'s own words in Chinese)'
"$CW" ask "What is the default retry limit?" --lang zh

say 'citewise ask "How do I configure Kafka in Harbor?"   (not in the corpus: says so)'
"$CW" ask "How do I configure Kafka in Harbor?" || true
