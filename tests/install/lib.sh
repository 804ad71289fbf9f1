# Shared by the install tests: a scratch directory with a project to lint, and check_installed.
# Expects $src (the source tree) set by the caller.
work=$(mktemp -d "${TMPDIR:-/tmp}/perflint-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# A project to lint, outside the source tree: one finding of PFL101 and a config that ignores PFL4.
mkdir -p "$work/project"
cp "$src/examples/train.py" "$work/project/train.py"
printf '[tool.perflint]\nignore = ["PFL4"]\n' > "$work/project/pyproject.toml"

# Runs an installed perflint (BIN) with nothing of the build tree reachable: on the project, on
# --version, rules, `rule`, and checks the probe's shim and docs sit where the binary looks for them.
check_installed() {
  local bin=$1 what=$2 out rc
  [[ -x $bin ]] || fail "$what: no executable $bin"
  grep -q "0\.[0-9]" <<<"$("$bin" --version)" || fail "$what: --version"
  rc=0; out=$(cd "$work/project" && env -i PATH=/usr/bin:/bin "$bin" --no-color train.py) || rc=$?
  [[ $rc -eq 1 ]] || fail "$what: expected exit 1 on findings, got $rc: $out"
  grep -q "PFL101" <<<"$out" || fail "$what: no PFL101 finding in: $out"
  grep -q "PFL4" <<<"$out" && fail "$what: the project's config (ignore PFL4) was not applied"
  grep -qi "num_workers" <<<"$("$bin" rule PFL101)" || fail "$what: rule docs"
  local prefix; prefix=$(dirname "$(dirname "$bin")")
  [[ -f $prefix/share/perflint/shim/perflint_probe/__main__.py ]] || fail "$what: no shim under $prefix/share"
  echo "ok: $what ($bin)"
}

