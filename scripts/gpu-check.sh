#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The GPU check (docs/gpu.md), one command on a machine with an NVIDIA GPU:
#   bash scripts/gpu-check.sh
# 1. builds mfad with CUDA into build-cuda against a PETSc configured with CUDA (scripts/petsc-cuda.sh;
#    or keeps an existing CUDA build there, MFAD_CUDA_BUILD_DIR; MFAD_GPU_CHECK_REBUILD=1 rebuilds);
# 2. runs test_cuda on the device, 1 and 2 ranks: every CUDA entry point against the CPU backend to
#    1e-12 (Skipped, i.e. no device, is a failure here), and under compute-sanitizer's memcheck
#    where it is installed;
# 3. solves the elastic example on the GPU (host and CUDA vectors; fused, cached and cuSPARSE-assembled
#    Hessians) and checks each energy against the CPU solve's to 1e-10;
# 4. runs the GPU benchmarks: bench_loops (1M tets: value, gradient, fused HVP, colours vs atomics vs gather),
#    bench_hessian_forms (fused, cached, assembled, PSD), bench_cuda_cached_mult (fused kernel vs
#    cuBLAS), and prints the HVP against bench_gpu_estimate's roofline bound.
# Output on standard output; exit status non-zero when a check failed.
# Open MPI as shipped by Debian and Ubuntu is not CUDA-aware: PETSc 3.26 then stops unless told
# -use_gpu_aware_mpi 0, which this script adds to PETSC_OPTIONS.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MFAD_CUDA_BUILD_DIR:-$root/build-cuda}
fail=0
check() { # check <what> <status>
  if [ "$2" -eq 0 ]; then echo "gpu-check: ok: $1"; else echo "gpu-check: FAILED: $1 (status $2)"; fail=1; fi
}
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}

if ! nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; then
  echo "gpu-check: no GPU answers nvidia-smi: this script needs one (without a GPU, scripts/test-cuda.sh checks what can be checked)" >&2
  exit 1
fi

if [ "${MFAD_GPU_CHECK_REBUILD:-0}" = 1 ] || [ ! -x "$build/tests/test_cuda" ]; then
  if [ -n "${PETSC_DIR:-}" ]; then
    petsc=$PETSC_DIR${PETSC_ARCH:+/$PETSC_ARCH}
  else
    petsc=$(bash "$root/scripts/petsc-cuda.sh" | tail -n 1) || { echo "gpu-check: FAILED: no PETSc with CUDA (scripts/petsc-cuda.sh)" >&2; exit 1; }
  fi
  grep -q '^#define PETSC_HAVE_CUDA 1' "$petsc/include/petscconf.h" || { echo "gpu-check: $petsc has no CUDA" >&2; exit 1; }
  export PKG_CONFIG_PATH=$petsc/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} LD_LIBRARY_PATH=$petsc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  MFAD_BUILD_DIR=$build MFAD_CMAKE_ARGS="${MFAD_CMAKE_ARGS:-} -DMFAD_ENABLE_CUDA=ON -DMFAD_CUDA_RESOURCE_REPORT=ON" \
    MFAD_JOBS=${MFAD_JOBS:-$(nproc)} bash "$root/scripts/build.sh" >"$build.log" 2>&1 ||
    { tail -n 30 "$build.log"; echo "gpu-check: FAILED: the CUDA build (log: $build.log)" >&2; exit 1; }
  echo "gpu-check: built $build against $petsc"
fi
[ -x "$build/tests/test_cuda" ] || { echo "gpu-check: $build has no tests/test_cuda (a build without tests?)" >&2; exit 1; }
if ls "$build"/CMakeFiles/mfad.dir/energies/*.ptxas >/dev/null 2>&1; then
  python3 "$root/scripts/cuda-resources.py" "$build" | tail -n 1
fi

echo "gpu-check: ---- test_cuda (CUDA against CPU, 1e-12)"
CK_FORK=no "$build/tests/test_cuda" 2>&1 | tail -n 3
s=${PIPESTATUS[0]}
check "test_cuda, 1 rank (77 = no device answered)" "$s"
CK_FORK=no mpiexec --oversubscribe -n 2 "$build/tests/test_cuda" </dev/null 2>&1 | tail -n 2
check "test_cuda, 2 ranks on this GPU" "${PIPESTATUS[0]}"
if command -v compute-sanitizer >/dev/null; then
  CK_FORK=no compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/test_cuda" 2>&1 | tail -n 2
  check "compute-sanitizer memcheck of test_cuda" "${PIPESTATUS[0]}"
else
  echo "gpu-check: compute-sanitizer not installed: memcheck skipped"
fi

echo "gpu-check: ---- elastic on the GPU against the CPU (energy to 1e-10)"
elastic=$build/petsc-examples/elastic
energy() { sed -n 's/.* energy \([^ ]*\) .*/\1/p' | tail -n 1; }
ref=$("$elastic" -n 8 -m 32 -ksp_type cg 2>&1 | energy) # -ksp_type: Newton-CG, not the statics defaults (a CPU factorisation)
for o in "" "-vec_type cuda" "-mfad_hessian cached" "-mfad_hessian cached -vec_type cuda" "-mfad_hessian aij -mat_type aijcusparse -vec_type cuda" "-mfad_scatter atomic -vec_type cuda"; do
  t0=$(date +%s.%N)
  e=$("$elastic" -n 8 -m 32 -ksp_type cg -mfad_backend cuda $o 2>&1 | energy)
  t1=$(date +%s.%N)
  python3 -c "import sys; r, e = float('$ref'), float('${e:-nan}'); sys.exit(0 if abs(e - r) <= 1e-10 * abs(r) else 1)"
  check "elastic -mfad_backend cuda $o: energy $e (CPU $ref), $(python3 -c "print(f'{$t1 - $t0:.2f}')") s" $?
done

echo "gpu-check: ---- benchmarks"
echo "gpu-check: bench_loops, host vectors (each product stages x, v and y through the device)"
"$build/bench/bench_loops" -n 40 -m 105 -mfad_backend cuda -reps 5 2>&1 | tail -n 11
echo "gpu-check: bench_loops, CUDA vectors (zero-copy)"
"$build/bench/bench_loops" -n 40 -m 105 -mfad_backend cuda -vec_type cuda 2>&1 | tee "$build/gpu-check-loops.txt" | tail -n 11
"$build/bench/bench_hessian_forms" -n 40 -m 105 -mfad_backend cuda -mat_type aijcusparse -vec_type cuda 2>&1 | tail -n 6
"$build/bench/bench_cuda_cached_mult" 2>&1 | tail -n 2
bound=$("$build/bench/bench_gpu_estimate" 2>/dev/null | awk -F'|' '$2 ~ /neohookean_tet/ {gsub(/ /, "", $8); gsub(/ /, "", $9); print $8, $9; exit}')
hvp=$(awk '/^atomic scatter, 1 thread/ {print $(NF-2)}' "$build/gpu-check-loops.txt")
if [ -n "$bound" ] && [ -n "$hvp" ]; then
  read -r reuse stream <<<"$bound"
  python3 -c "h = float('$hvp'); r = float('$reuse') * 1.008e-3; s = float('$stream') * 1.008e-3
print(f'gpu-check: roofline: fused HVP (atomic scatter), Neo-Hookean, 1.008M tets: {h:.3f} ms measured; bound {r:.3f} ms (perfect reuse) / {s:.3f} ms (streamed): {100 * r / h:.0f}% / {100 * s / h:.0f}% of the bound')"
fi
[ $fail -eq 0 ] && echo "gpu-check: all checks passed" || echo "gpu-check: some checks FAILED"
exit $fail
