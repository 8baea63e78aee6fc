#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The three header tiers (README's layout; docs/Doxyfile.in):
# 1. every machinery header (include/mfad/impl/*.h) refuses a direct inclusion, naming itself;
# 2. users see MfadKernel opaque: <mfad.h> with the getters compiles, a field read does not;
# 3. the forwarding headers at the old paths keep today's files building, with a deprecation
#    warning: a unit of today's mfad-energy (its <mfad/instantiate.h> line), the wrapper today's
#    mfad_add_energy(HEADER) writes, and <mfad/kernel.h> and <mfad/psd.h> included by a user;
#    each compiles, warns, and (the units) defines its kernel.
# usage: headers.sh PYTHON TRANSLATOR CC INCLUDE_DIR WORK_DIR ENERGY_SOURCE ORACLE_HEADER [-I... for PETSc and MPI]
set -u
py=$1 tr=$2 cc=$3 inc=$4 work=$5 energy=$6 oracle=$7
shift 7
petsc=("$@")
rm -rf "$work" && mkdir -p "$work"
fails=0 n=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
compile() { "$cc" -std=gnu11 -Wall -Wextra -fopenmp -I "$inc" "$@" 2>&1; }

# 1. the guard, in every machinery header
for h in "$inc"/mfad/impl/*.h; do
  n=$((n + 1))
  name=mfad/impl/$(basename "$h")
  printf '#include <%s>\nint mfad_headers_unit;\n' "$name" >"$work/guard.c"
  if out=$(compile -c "$work/guard.c" -o "$work/guard.o"); then
    fail "<$name> included on its own compiled: it has no MFAD_IMPL_ALLOWED guard"
  elif ! grep -qF "<$name> is generated-code machinery" <<<"$out"; then
    fail "<$name> included on its own: expected its guard's error '<$name> is generated-code machinery', got:"; echo "$out"
  fi
done

# 2. MfadKernel opaque in the users' tier: the getters compile, a field read is refused
n=$((n + 1))
cat >"$work/user.c" <<'EOF'
#include <mfad.h>
PetscErrorCode UserSizes(MfadKernel k, PetscInt *nvert);
PetscErrorCode UserSizes(MfadKernel k, PetscInt *nvert) { return MfadKernelGetSizes(k, nvert, NULL, NULL); }
#ifdef READ_FIELD
int UserField(MfadKernel k);
int UserField(MfadKernel k) { return k->nvert; }
#endif
EOF
if ! out=$(compile "${petsc[@]}" -c "$work/user.c" -o "$work/user.o"); then
  fail "a user's program with <mfad.h> and MfadKernelGetSizes() did not compile:"; echo "$out"
elif out=$(compile "${petsc[@]}" -DREAD_FIELD -c "$work/user.c" -o "$work/user.o"); then
  fail "a user's program read k->nvert through <mfad.h>: MfadKernel is not opaque"
elif ! grep -qF "_n_MfadKernel" <<<"$out"; then
  fail "k->nvert through <mfad.h>: expected an incomplete-type error naming struct _n_MfadKernel, got:"; echo "$out"
fi

# 3. the forwarding headers: compile, warn, define the kernel
# $1 what, $2 the unit, $3 the deprecated header, $4 the kernel symbol (or empty), then compiler flags
legacy() {
  local what=$1 unit=$2 old=$3 sym=$4 out
  shift 4
  n=$((n + 1))
  if ! out=$(compile "$@" -c "$unit" -o "$work/legacy.o"); then
    fail "$what: did not compile through the forwarding header <$old>:"; echo "$out"; return
  fi
  if ! grep -qF "<$old> is deprecated" <<<"$out"; then
    fail "$what: no deprecation warning for <$old>, got:"; echo "$out"
  fi
  if [ -n "$sym" ] && ! nm "$work/legacy.o" | grep -q " [RDd] $sym\$"; then
    fail "$what: compiled, but the object defines no kernel $sym"
  fi
}
# today's mfad-energy output, its include line as it was before the tiers
if out=$("$py" "$tr" "$energy" -o "$work/legacy_gen.c" --name legacy_gen 2>&1); then
  sed -i -e '/^#define MFAD_IMPL_ALLOWED/d' -e 's|<mfad/impl/instantiate.h>|<mfad/instantiate.h>|' "$work/legacy_gen.c"
  if grep -q "#include <mfad/impl/" "$work/legacy_gen.c"; then
    fail "the translator's output includes more of mfad/impl/ than instantiate.h:"; grep -n "#include <mfad/impl/" "$work/legacy_gen.c"
  fi
  legacy "a unit of today's mfad-energy" "$work/legacy_gen.c" mfad/instantiate.h MfadKernel_legacy_gen -iquote "$work"
else
  fail "mfad-energy $energy:"; echo "$out"
fi
# what mfad_add_energy(... HEADER) wrote into a build folder before the tiers
printf '#define MFAD_ENERGY_NAME   legacy_header\n#define MFAD_ENERGY_HEADER "%s"\n#include <mfad/instantiate.h>\n' "$(basename "$oracle")" >"$work/legacy_header.c"
legacy "a mfad_add_energy(HEADER) unit" "$work/legacy_header.c" mfad/instantiate.h MfadKernel_legacy_header -iquote "$(dirname "$oracle")"
# a user's plain-C file with the old kernel and PSD headers
printf '#include <mfad/kernel.h>\n#include <mfad/psd.h>\nMFAD_KERNEL_DECLARE(mass_spring);\nMfadKernel legacy_k(void);\nMfadKernel legacy_k(void) { return MFAD_KERNEL(mass_spring)->nvert == 2 && MFAD_PSD_MODE_ABS ? MFAD_KERNEL(mass_spring) : 0; }\n' >"$work/legacy_user.c"
legacy "a user's file with <mfad/kernel.h>" "$work/legacy_user.c" mfad/kernel.h ""
legacy "a user's file with <mfad/psd.h>" "$work/legacy_user.c" mfad/psd.h ""

[ "$fails" -eq 0 ] || { echo "$fails of $n header checks failed"; exit 1; }
