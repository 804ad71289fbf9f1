#!/usr/bin/env bash
# Builds perflint and its tests (installing what is missing), then runs every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
cd build
ctest --output-on-failure --parallel "$(nproc)" --timeout 300
