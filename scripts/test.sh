#!/usr/bin/env bash
# Builds perflint and its tests (installing what is missing), runs every test with ctest, then the
# sanitizer step (scripts/ci-sanitize.sh: the fuzz targets with ASan + UBSan, about 2 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests
(cd build && ctest --output-on-failure --parallel "$(nproc)" --timeout 300)
scripts/ci-sanitize.sh
