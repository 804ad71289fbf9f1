#!/usr/bin/env bash
# The action's install step: puts perflint on PATH (through $GITHUB_PATH) from, in this order,
#   PERFLINT_TARBALL  a release tarball (URL or path), extracted under $RUNNER_TEMP
#   PERFLINT_WHEEL    a wheel (URL or path), installed with pipx
#   PERFLINT_SOURCE   this repository: its wheel is built (setup.py drives CMake) and installed with
#                     pipx; build dependencies come from apt-get where missing
set -euo pipefail
tmp=${RUNNER_TEMP:-$(mktemp -d)}
: "${GITHUB_PATH:?GITHUB_PATH is not set (run inside GitHub Actions, or set it to a file)}"
fetch() {  # URL-or-path DEST
  if [[ $1 == http://* || $1 == https://* ]]; then curl -fsSL --retry 3 -o "$2" "$1"; else cp "$1" "$2"; fi
}
if [[ -n ${PERFLINT_TARBALL:-} ]]; then
  mkdir -p "$tmp/perflint"
  fetch "$PERFLINT_TARBALL" "$tmp/perflint.tar.gz"
  tar -xzf "$tmp/perflint.tar.gz" -C "$tmp/perflint" --strip-components=1
  bin=$tmp/perflint/bin
elif [[ -n ${PERFLINT_WHEEL:-} ]]; then
  name=$(basename "${PERFLINT_WHEEL%%\?*}")
  fetch "$PERFLINT_WHEEL" "$tmp/$name"
  pipx install --force "$tmp/$name" >&2
  bin=${PIPX_BIN_DIR:-$HOME/.local/bin}
else
  src=${PERFLINT_SOURCE:?set PERFLINT_TARBALL, PERFLINT_WHEEL or PERFLINT_SOURCE}
  missing=()
  for p in cmake ninja-build g++ libcli11-dev libtomlplusplus-dev npm; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})) && command -v apt-get >/dev/null; then
    sudo_cmd=""; [[ $(id -u) -ne 0 ]] && sudo_cmd=sudo
    $sudo_cmd apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  fi
  python3 -m pip wheel --no-deps -w "$tmp/dist" "$src" >&2
  pipx install --force "$(ls "$tmp"/dist/perflint-*.whl)" >&2
  bin=${PIPX_BIN_DIR:-$HOME/.local/bin}
fi
[[ -x $bin/perflint ]] || { echo "::error::perflint was not installed in $bin" >&2; exit 1; }
echo "$bin" >> "$GITHUB_PATH"
"$bin/perflint" --version
