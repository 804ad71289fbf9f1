#!/usr/bin/env bash
# The Python wheel and the self-installing pre-commit hook, offline (no PyPI):
#  1. `setup.py sdist` (checked to carry the tree-sitter C sources), then `pip wheel
#     --no-build-isolation` from the unpacked sdist. By default the wheel packages the perflint
#     already built in BUILD_DIR (PERFLINT_PREBUILT_DIR: setup.py runs `cmake --install` only), so
#     CI compiles perflint once; PERFLINT_TEST_SDIST_COMPILE=1 compiles it from the sdist alone
#     instead (a second full build: minutes on 2 cores);
#  2. `pipx install` of that wheel into a scratch PIPX_HOME, and the `perflint` pipx puts on PATH run;
#     the GitHub Action's steps installing the same wheel;
#  3. real `pre-commit` in a scratch git repository against this repository at its HEAD commit,
#     with the `perflint` hook (language: python): pre-commit clones the repository and pip-installs
#     it (setup.py, packaging BUILD_DIR's perflint as in 1). Fails on findings, passes when clean,
#     applies --fix.
# Usage: test_wheel_precommit.sh BUILD_DIR   (uses /usr/bin/python3: Debian's setuptools, wheel, pip)
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
source "$src/tests/install/lib.sh"
py=/usr/bin/python3
for tool in pipx pre-commit git cmake; do
  command -v $tool >/dev/null || { echo "SKIP: $tool is not installed (scripts/setup.sh --tests installs it)"; exit 77; }
done
$py -c "import setuptools, wheel, pip" 2>/dev/null || { echo "SKIP: $py lacks setuptools/wheel/pip"; exit 77; }
# Offline: no index, and the build backend comes from the environment, not from PyPI.
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_BUILD_ISOLATION=0
t0=$SECONDS

# 1. sdist -> wheel. CMAKE_*_COMPILER_LAUNCHER=ccache when the machine has it; no LTO (CI time).
(cd "$src" && $py setup.py -q egg_info --egg-base "$work" sdist -d "$work/sdist" >/dev/null 2>&1) \
  || fail "setup.py sdist"
sdist=$(ls "$work"/sdist/perflint-*.tar.gz)
contents=$(tar -tzf "$sdist")
grep -q "third_party/node_modules/tree-sitter-python/src/parser.c" <<<"$contents" || fail "sdist: no tree-sitter-python sources"
grep -q "third_party/node_modules/tree-sitter/vendor/tree-sitter/lib/src/lib.c" <<<"$contents" || fail "sdist: no tree-sitter runtime sources"
mkdir "$work/unpacked" && tar -xzf "$sdist" -C "$work/unpacked"
if [[ ${PERFLINT_TEST_SDIST_COMPILE:-0} == 1 ]]; then
  # CMAKE_*_COMPILER_LAUNCHER=ccache when the machine has it; no LTO.
  if command -v ccache >/dev/null; then
    export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  fi
  export PERFLINT_CMAKE_BUILD_DIR=$work/wheel-build
  export PERFLINT_CMAKE_ARGS="-DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF"
  prebuilt=$work/wheel-build
else
  export PERFLINT_PREBUILT_DIR=$build
  prebuilt=$build
fi
(cd "$work"/unpacked/perflint-* && $py -m pip wheel -q --no-deps -w "$work/dist" . > "$work/wheel.log" 2>&1) \
  || { tail -30 "$work/wheel.log"; fail "pip wheel from the sdist"; }
unset PERFLINT_CMAKE_BUILD_DIR PERFLINT_CMAKE_ARGS PERFLINT_PREBUILT_DIR
whl=$(ls "$work"/dist/perflint-*-py3-none-linux_*.whl) || fail "no platform wheel in $work/dist"
listing=$($py -m zipfile -l "$whl")
for f in perflint-0.1.0.data/data/bin/perflint perflint-0.1.0.data/data/share/perflint/shim/perflint_probe/__main__.py; do
  grep -q "$f" <<<"$listing" || fail "wheel: missing $f"
done
grep -q "perflint-calibrate" <<<"$listing" && fail "wheel: carries perflint-calibrate (LibTorch)"
echo "ok: sdist -> wheel $(basename "$whl") ($((SECONDS - t0)) s)"

# 2. pipx install ./perflint-*.whl: a working perflint on PATH.
t1=$SECONDS
export PIPX_HOME=$work/pipx PIPX_BIN_DIR=$work/pipx-bin
pipx install "$whl" > "$work/pipx.log" 2>&1 || { cat "$work/pipx.log"; fail "pipx install"; }
[[ -L $work/pipx-bin/perflint ]] || fail "pipx put no perflint in PIPX_BIN_DIR"
check_installed "$work/pipx-bin/perflint" "pipx install of the wheel"
# Through pipx's symlink, perflint resolves its own path (/proc/self/exe) and finds the venv's shim.
[[ -f $work/pipx/venvs/perflint/share/perflint/shim/perflint_probe/__main__.py ]] || fail "pipx: no shim in the venv"
echo "ok: pipx ($((SECONDS - t1)) s)"
# The GitHub Action's steps, installing that wheel with pipx.
check_action wheel PERFLINT_WHEEL="$whl" PIPX_HOME="$work/pipx-action" PIPX_BIN_DIR="$work/pipx-action-bin"

# 3. pre-commit, against this repository at HEAD.
if ! head=$(git -C "$src" rev-parse HEAD 2>/dev/null); then
  echo "skip: pre-commit ($src is not a git repository)"; echo PASS; exit 0
fi
t2=$SECONDS
export PRE_COMMIT_HOME=$work/pre-commit-home PERFLINT_PREBUILT_DIR=$prebuilt
repo=$work/user-repo
mkdir "$repo" && cd "$repo"
git init -q . && git config user.email t@example.com && git config user.name t
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $src
    rev: $head
    hooks:
      - id: perflint
YAML
cp "$src/examples/clean_train.py" clean.py
git add -A && git commit -qm clean
# Clean: passes (this run also builds the hook's environment).
pre-commit run --all-files > "$work/pc1.log" 2>&1 || { cat "$work/pc1.log"; fail "pre-commit on a clean file"; }
grep -q "Passed" "$work/pc1.log" || fail "pre-commit: no Passed line: $(cat "$work/pc1.log")"
[[ -x $(ls "$PRE_COMMIT_HOME"/repo*/py_env-*/bin/perflint) ]] || fail "pre-commit did not install perflint in its env"
# Findings: fails and prints them.
cp "$src/examples/train.py" train.py && git add train.py
rc=0; pre-commit run --files train.py > "$work/pc2.log" 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "pre-commit on findings: expected exit 1, got $rc: $(cat "$work/pc2.log")"
grep -q "PFL101" "$work/pc2.log" || fail "pre-commit on findings: no PFL101: $(cat "$work/pc2.log")"
# --fix through args: the file is changed in place (pre-commit reports the modification).
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $src
    rev: $head
    hooks:
      - id: perflint
        args: [--fix, --exit-zero]
YAML
git add -A
before=$(sha1sum < train.py)
rc=0; pre-commit run --files train.py > "$work/pc3.log" 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "pre-commit --fix: expected failure (files modified), got $rc: $(cat "$work/pc3.log")"
[[ $(sha1sum < train.py) != "$before" ]] || fail "pre-commit --fix did not change train.py"
grep -q "files were modified by this hook" "$work/pc3.log" || fail "pre-commit --fix: $(cat "$work/pc3.log")"
echo "ok: pre-commit (language: python) at $head: clean passes, findings fail, --fix applies ($((SECONDS - t2)) s)"
echo "PASS ($((SECONDS - t0)) s)"
