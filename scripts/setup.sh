#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian machine: installs what is missing (Debian packages, the pinned
# npm sources of tree-sitter), then configures and builds perflint into build/.
#   scripts/setup.sh            build perflint
#   scripts/setup.sh --tests    also what the tests need (real PyTorch for probe tests)
set -euo pipefail
cd "$(dirname "$0")/.."

want_tests=0
[[ "${1:-}" == "--tests" ]] && want_tests=1

# Tools are checked by command (a machine may have them from elsewhere, e.g. Node.js from its own
# repository, whose npm conflicts with Debian's); libraries by Debian package.
missing=()
declare -A tools=([cmake]=cmake [ninja]=ninja-build [g++]=g++ [git]=git [node]=nodejs [npm]=npm)
for t in cmake ninja g++ git node npm; do
  command -v "$t" >/dev/null 2>&1 || missing+=("${tools[$t]}")
done
# libtorch-dev (Debian's CPU LibTorch) builds perflint-calibrate, the micro-benchmarks behind
# `perflint calibrate`; perflint itself does not link it.
for p in libcli11-dev libtomlplusplus-dev libgtest-dev libtorch-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The probe tests run a real PyTorch: Debian's python3-torch (torch 1.13 for /usr/bin/python3).
if ((want_tests)); then
  dpkg-query -W -f='${Status}' python3-torch 2>/dev/null | grep -q "install ok installed" || missing+=(python3-torch)
  # The HTML report test opens the report in a real headless browser (Debian's chromium).
  dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q "install ok installed" || missing+=(chromium)
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# tree-sitter C sources, pinned by third_party/package-lock.json (integrity hashes); no scripts run.
stamp=third_party/node_modules/.perflint-lock
if [[ ! -f $stamp ]] || ! cmp -s third_party/package-lock.json "$stamp"; then
  echo "setup: fetching pinned tree-sitter sources (npm ci --ignore-scripts)" >&2
  (cd third_party && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  cp third_party/package-lock.json "$stamp"
fi

build_type=${PERFLINT_BUILD_TYPE:-Release}
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$build_type" >&2
fi
cmake --build build --parallel >&2
