#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The assembled Hessian's pattern set-up against one assembly (issue 19's goal: no slower), for
# each matrix type, rank count and path: mfad's CSR (-mfad_assemble_csr 1, the default) and PETSc's
# COO (0). One bench_dynamic run each (medians of REPS updates inside it): a re-preallocation for
# new pairs, one assembly at fixed elements (element Hessians + fill), and their ratio. From the
# build directory of the PETSc to measure:
#   BIN=build/tests MPIEXEC=mpiexec REPS=9 sh bench/pattern.sh [-n 26 -pairs 5000]
BIN=${BIN:-build/tests}
MPIEXEC=${MPIEXEC:-mpiexec}
REPS=${REPS:-9}
ARGS=${*:--n 26 -pairs 5000}
echo "# bench_dynamic $ARGS -reps $REPS; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-6s %-5s %12s %12s %12s\n' ranks type path "set-up ms" "assembly ms" "set-up/asm"
for np in 1 2; do
  for type in aij baij sbaij; do
    for csr in 1 0; do
      # shellcheck disable=SC2086
      out=$($MPIEXEC -n $np "$BIN/bench_dynamic" $ARGS -reps "$REPS" -mat_type $type -mfad_assemble_csr $csr < /dev/null 2>&1) || {
        echo "FAILED: $np ranks, $type, csr $csr" >&2
        echo "$out" | tail -3 >&2
        exit 1
      }
      asm=$(echo "$out" | sed -n 's/.*assembly at fixed elements \([0-9.]*\) ms.*/\1/p')
      set=$(echo "$out" | sed -n 's/.*re-preallocation \([0-9.]*\) ms.*/\1/p')
      path=$([ $csr = 1 ] && echo CSR || echo COO)
      printf '%-6s %-6s %-5s %12s %12s %12s\n' $np $type $path "$set" "$asm" "$(echo "$set $asm" | awk '{printf "%.2f", $1 / $2}')"
    done
  done
done
