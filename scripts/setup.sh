#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian machine: installs what is missing (Debian packages, the pinned
# npm sources of tree-sitter), then configures and builds perflint into build/.
#   scripts/setup.sh            build what a user runs: perflint, the probe shim (and, where the CUDA
#                               toolkit is, the CUPTI library); no tests, no LibTorch
#   scripts/setup.sh --tests    also the tests, benchmarks and perflint-calibrate (LibTorch), and what
#                               the tests need (real PyTorch, pre-commit, pipx, virtualenv)
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
packages=(libcli11-dev libtomlplusplus-dev)
# For the tests: GoogleTest; libtorch-dev (Debian's CPU LibTorch) builds perflint-calibrate, the
# micro-benchmarks behind `perflint calibrate` (perflint itself does not link it); the probe tests
# run a real PyTorch (python3-torch, torch 1.13 for /usr/bin/python3); the install tests build a
# .deb (dpkg-dev), a wheel (setuptools, wheel, pip) and install it with pipx, and run pre-commit.
if ((want_tests)); then
  packages+=(libgtest-dev libtorch-dev python3-torch dpkg-dev file python3-setuptools python3-wheel
             python3-pip python3-virtualenv pipx pre-commit
             clang libclang-rt-14-dev  # clang + runtimes: the sanitizer/fuzz step (scripts/ci-sanitize.sh)
             chromium)  # the HTML report test opens the report in a real headless browser
fi
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
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
if ((want_tests)); then
  # Always (re)configured: a build/ made by the user build gets the tests and perflint-calibrate added.
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$build_type" -DPERFLINT_BUILD_TESTS=ON \
        -DPERFLINT_BUILD_BENCH=ON -DPERFLINT_CALIBRATE=ON >&2
elif [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$build_type" >&2
fi
cmake --build build --parallel >&2
