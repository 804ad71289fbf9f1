#!/usr/bin/env bash
# score.sh BINARY — rerun BINARY on the round-6 corpus (same command as the baseline) and score it
# against the hand judgements in judged.tsv and the hand-found misses in misses.tsv.
#   precision = TP / (TP + FP); debatable findings are excluded from it (and listed apart).
#   recall    = found TPs / (found TPs + misses still missing), on the hand-read files only
#               (hand_read.txt); a miss counts as found when BINARY reports its repo, path, code, line.
# Findings with no judgement are printed as UNJUDGED so that a person can judge them.
set -euo pipefail
BIN=${1:?usage: score.sh BINARY}
BIN=$(readlink -f "$BIN")
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
# ROUND_DIR: another round's directory (its corpus, targets.txt, judged.tsv, ...) scored the same way.
HERE=${ROUND_DIR:-$SCRIPTS}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# KEEP=DIR keeps the JSON reports there (to judge new findings by hand)
grep -v '^#' "$HERE/targets.txt" | while IFS=$'\t' read -r repo targets; do
  [ -n "$repo" ] || continue
  # shellcheck disable=SC2086
  (cd "$HERE/corpus/$repo" && "$BIN" --isolated --select ALL --output-format json -o "$OUT/$repo.json" $targets \
     >/dev/null 2>"$OUT/$repo.err") || rc=$?
  if [ ! -s "$OUT/$repo.json" ]; then echo "error: no report for $repo (see below)" >&2; cat "$OUT/$repo.err" >&2; exit 2; fi
done
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$OUT"/*.json "$KEEP"/; fi
python3 "$SCRIPTS/score.py" "$HERE" "$OUT"
