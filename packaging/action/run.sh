#!/usr/bin/env bash
# The action's run step: perflint --output-format sarif over PERFLINT_PATHS (default .), writing
# PERFLINT_SARIF; findings do not fail this step (the upload comes first), errors (exit 2) do.
# Sets the step output `findings`.
set -euo pipefail
sarif=${PERFLINT_SARIF:-perflint.sarif}
read -r -a paths <<<"${PERFLINT_PATHS:-.}"
read -r -a args <<<"${PERFLINT_ARGS:-}"
rc=0
perflint --output-format sarif -o "$sarif" "${args[@]}" "${paths[@]}" || rc=$?
if ((rc > 1)); then
  echo "::error::perflint failed (exit $rc)"
  exit "$rc"
fi
findings=$(python3 -c 'import json,sys; print(sum(len(r.get("results", [])) for r in json.load(open(sys.argv[1]))["runs"]))' "$sarif")
echo "findings=$findings" >> "${GITHUB_OUTPUT:-/dev/null}"
echo "perflint: $findings finding(s), SARIF report in $sarif"
