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
  local prefix; prefix=$(dirname "$(dirname "$(readlink -f "$bin")")")
  [[ -f $prefix/share/perflint/shim/perflint_probe/__main__.py ]] || fail "$what: no shim under $prefix/share"
  echo "ok: $what ($bin)"
}


# Runs the GitHub Action's shell steps (packaging/action/install.sh, run.sh) as the composite action
# does, with the install inputs given as environment (PERFLINT_TARBALL=... or PERFLINT_WHEEL=...).
check_action() {
  local what=$1; shift
  local gh=$work/gh-$what
  mkdir -p "$gh/runner"
  : > "$gh/path"; : > "$gh/output"
  env "$@" GITHUB_PATH="$gh/path" RUNNER_TEMP="$gh/runner" bash "$src/packaging/action/install.sh" \
    > "$gh/install.log" 2>&1 || { cat "$gh/install.log"; fail "action install ($what)"; }
  local bin; bin=$(head -1 "$gh/path")
  [[ -x $bin/perflint ]] || fail "action install ($what): no perflint in GITHUB_PATH ($bin)"
  (cd "$work/project" && PATH="$bin:/usr/bin:/bin" GITHUB_OUTPUT="$gh/output" PERFLINT_PATHS=. \
     PERFLINT_SARIF="$gh/perflint.sarif" bash "$src/packaging/action/run.sh") > "$gh/run.log" 2>&1 \
    || { cat "$gh/run.log"; fail "action run ($what)"; }
  grep -Eq "^findings=[1-9]" "$gh/output" || fail "action run ($what): output $(cat "$gh/output")"
  grep -q '"ruleId": *"PFL101"' "$gh/perflint.sarif" || fail "action run ($what): no PFL101 in the SARIF"
  grep -q '"uri": *"train.py"' "$gh/perflint.sarif" || fail "action run ($what): SARIF path not relative"
  echo "ok: GitHub Action steps ($what): $(cat "$gh/output")"
}
