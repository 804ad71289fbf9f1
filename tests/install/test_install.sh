#!/usr/bin/env bash
# Installs perflint from the artifacts of a built tree and runs the installed copy, never the build
# tree's: `cmake --install` into a prefix that is then moved (relocation), the .deb (cpack, checked
# with dpkg -I, unpacked into an empty root with dpkg -x) and the relocatable tarball (cpack; no
# libtomlplusplus.so or libstdc++.so needed). Usage: test_install.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
source "$src/tests/install/lib.sh"

# 1. cmake --install into a prefix, then moved elsewhere: perflint finds its shim relative to itself.
cmake --install "$build" --prefix "$work/prefix" >/dev/null
mv "$work/prefix" "$work/moved"
p=$work/moved
check_installed "$p/bin/perflint" "cmake --install (moved prefix)"
for f in share/man/man1/perflint.1 share/bash-completion/completions/perflint \
         share/zsh/site-functions/_perflint share/fish/vendor_completions.d/perflint.fish \
         share/doc/perflint/README.md share/doc/perflint/docs/rules/PFL101.md; do
  [[ -s $p/$f ]] || fail "cmake --install: missing $f"
done
if command -v man >/dev/null; then
  grep -q "PyTorch" <<<"$(man -l "$p/share/man/man1/perflint.1" 2>/dev/null)" || fail "man page does not render"
fi
# The bash completion loads and completes subcommands and rule codes (from the installed binary).
PATH="$p/bin:$PATH" bash -c '
  source "$1/share/bash-completion/completions/perflint"
  COMP_WORDS=(perflint ru); COMP_CWORD=1; _perflint; [[ " ${COMPREPLY[*]} " == *" rules "* ]] || exit 1
  COMP_WORDS=(perflint --select PFL1); COMP_CWORD=2; _perflint; [[ " ${COMPREPLY[*]} " == *" PFL101 "* ]] || exit 1
' _ "$p" || fail "bash completion"
if command -v zsh >/dev/null; then zsh -n "$p/share/zsh/site-functions/_perflint" || fail "zsh completion syntax"; fi
if command -v fish >/dev/null; then fish -n "$p/share/fish/vendor_completions.d/perflint.fish" || fail "fish completion syntax"; fi
echo "ok: man page and completions installed"

# 2. The probe runs from the moved prefix (real PyTorch, when /usr/bin/python3 has it).
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  out=$(cd "$work" && "$p/bin/perflint" --no-color --probe --steps 2 --warmup 1 --python /usr/bin/python3 \
          "$src/tests/probe/scripts/debug_flags.py" 2>&1) || true
  grep -q "confirmed" <<<"$out" || fail "probe from the moved prefix: $out"
  echo "ok: probe from the moved prefix"
else
  echo "skip: probe from the moved prefix (no torch in /usr/bin/python3)"
fi

# 3. Packages from the same build: a .deb and a tarball.
(cd "$work" && cpack --config "$build/CPackConfig.cmake" -B "$work/pkg" >/dev/null) || fail "cpack"
deb=$(ls "$work"/pkg/perflint_*.deb)
tgz=$(ls "$work"/pkg/perflint-*.tar.gz)
info=$(dpkg -I "$deb")
depends=$(sed -n 's/^ Depends: //p' <<<"$info")
grep -q "libc6" <<<"$depends" || fail ".deb: Depends should name libc6: '$depends'"
grep -Eq "libtomlplusplus|libcupti|libtorch" <<<"$depends" && fail ".deb: unexpected dependency: '$depends'"
echo "ok: .deb Depends: $depends"
grep -q "perflint-calibrate" <<<"$(dpkg -c "$deb")" && fail ".deb carries perflint-calibrate (LibTorch)"
# apt resolves its dependencies on this machine (simulated: the test installs nothing system-wide).
if command -v apt-get >/dev/null; then
  sim=$(apt-get install -s -q "$deb" 2>&1) || fail "apt-get install -s ./$(basename "$deb"): $sim"
  grep -q "^Inst perflint" <<<"$sim" || fail "apt-get install -s: $sim"
  echo "ok: apt-get install -s ./$(basename "$deb") resolves"
fi
# A real `apt install ./perflint_*.deb` where it is safe: root, on a machine where no perflint
# package is installed (CI's fresh machine: .ci/run sets PERFLINT_TEST_APT_INSTALL=1); removed after.
if [[ ${PERFLINT_TEST_APT_INSTALL:-0} == 1 && $(id -u) -eq 0 ]] && command -v apt-get >/dev/null &&
   [[ $(dpkg-query -W -f='${Status}' perflint 2>/dev/null || true) != *"ok installed"* ]]; then
  out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb" 2>&1) || fail "apt-get install $deb: $out"
  rc=0; (check_installed /usr/bin/perflint ".deb (apt-get install)") || rc=$?
  removed=$(DEBIAN_FRONTEND=noninteractive apt-get purge -y -q perflint 2>&1) || fail "apt-get purge perflint: $removed"
  [[ $rc -eq 0 ]] || fail ".deb installed with apt-get does not work (above)"
  [[ ! -e /usr/bin/perflint ]] || fail "apt-get purge left /usr/bin/perflint"
  echo "ok: apt-get install ./$(basename "$deb"), run, apt-get purge"
else
  echo "skip: real apt-get install (needs root, no perflint package installed, PERFLINT_TEST_APT_INSTALL=1)"
fi
dpkg -x "$deb" "$work/debroot"
check_installed "$work/debroot/usr/bin/perflint" ".deb (dpkg -x into an empty root)"
[[ -s $work/debroot/usr/share/man/man1/perflint.1 ]] || fail ".deb: no man page"

mkdir "$work/tar" && tar -xzf "$tgz" -C "$work/tar"
tbin=$(ls "$work"/tar/*/bin/perflint)
needed=$(readelf -d "$tbin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
grep -Eq "libtomlplusplus|libstdc\+\+|libgcc_s" <<<"$needed" && fail "tarball: perflint needs $needed"
echo "ok: tarball perflint needs only: $needed"
check_installed "$tbin" "tarball"

# 4. The GitHub Action's steps, installing from that tarball.
check_action tarball PERFLINT_TARBALL="$tgz"
echo "PASS"
