#!/usr/bin/env bash
# score.sh BINARY — rerun BINARY on the round-53 corpus and score it against judged.tsv and misses.tsv
# (the round-6 scorer, run on this directory; see ../validation-round6/score.sh).
ROUND_DIR=$(cd "$(dirname "$0")" && pwd) exec bash "$(dirname "$0")/../validation-round6/score.sh" "$@"
