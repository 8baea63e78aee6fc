#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The GPU check (docs/gpu.md): one command on a machine with an NVIDIA GPU, even a bare one (CUDA
# toolkit, CMake, ninja, Python; no PETSc, no MPI, no network), in at most ~5 minutes:
#   bash scripts/gpu-check.sh              on the GPU machine
#   bash scripts/gpu-check.sh --prepare    here, before: the energies translated into gpucheck-carry/
#                                          (for a GPU machine whose Python has no pycparser)
#   bash scripts/gpu-check.sh --dry-run    here, without a GPU: every step that can run does, under
#                                          the CUDA emulation where it needs a device
# Steps:
# 1. builds the kernel-level check (tests/gpu: the built-in energies, the residual tests' res_lsq
#    and res_sys, and tests/gpu/kernelcheck.cu, no PETSc) with nvcc for this device's architecture
#    into build-gpucheck (ninja, all cores), with ptxas's resource report, and applies the
#    resource gate (scripts/cuda-resources.py); lists its libraries (ldd: the CUDA runtime,
#    cuSOLVER and libc only);
# 2. runs it: every energy's CUDA entry points against the CPU element bodies to 1e-12, then the
#    Neo-Hookean (1M tets) and cloth (1M springs) workloads timed against the roofline bound;
# 3. runs it small under compute-sanitizer's memcheck, where the tool is installed and may attach
#    (a sandboxed runtime that refuses it is "skipped" with the tool's reason, not a failure);
# 4. with a PETSc (PETSC_DIR[/PETSC_ARCH]; with or without CUDA): mfad built with CUDA against it
#    into build-cuda, test_cuda (1 rank; 2 where mpiexec exists), the elastic example on the GPU
#    against the CPU's energy; without one, says that it skipped them and why;
# 5. ends with one table: every energy x entry point (largest relative difference to the CPU, or
#    FAIL), the workloads (ms per call, elements/s, the HVP's fraction of the bound) and each step.
# Exit status non-zero when a check failed (a skipped step is not a failure). Output on stdout.
# Environment: MFAD_GPUCHECK_BUILD (default <repo>/build-gpucheck), MFAD_GPUCHECK_ARGS (extra
# arguments of gpu_kernelcheck, e.g. "-reps 50"), MFAD_JOBS (default nproc), PETSC_DIR/PETSC_ARCH,
# MFAD_CUDA_BUILD_DIR (step 4, default <repo>/build-cuda), MFAD_BUILD_DIR (--dry-run's emulation:
# the library's build, default <repo>/build).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=gpu
case "${1:-}" in
--dry-run) mode=dry ;;
--prepare) mode=prepare ;;
"") ;;
*)
  echo "usage: $0 [--dry-run | --prepare]" >&2
  exit 2
  ;;
esac
build=${MFAD_GPUCHECK_BUILD:-$root/build-gpucheck}
carry=$root/gpucheck-carry
jobs=${MFAD_JOBS:-$(nproc)}
nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
PATH=$(dirname "$nvcc"):$PATH
export CUDACXX=$nvcc PATH
start=$SECONDS
fail=0
rows=() # the summary's step rows: "step|result|detail"
step() { # step <name> <ok|FAIL|skipped> <detail>
  rows+=("$1|$2|$3")
  echo "gpu-check: $2: $1${3:+ ($3)}"
  [ "$2" = FAIL ] && fail=1
  return 0
}
t0=$SECONDS
since() { echo "$((SECONDS - t0)) s"; }

# --prepare: the energies translated here (tools/mfad-energy needs pycparser), for the GPU machine
prepare() {
  local b=$build-prepare targets
  mkdir -p "$b"
  if ! cmake -S "$root/tests/gpu" -B "$b" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 >"$b/gpu-check.log" 2>&1 ||
    ! mapfile -t targets < <(ninja -C "$b" -t targets all | sed -n 's/^\(mfad_translate_[a-z0-9_]*\):.*/\1/p') ||
    ! ninja -C "$b" "${targets[@]}" >>"$b/gpu-check.log" 2>&1; then
    tail -n 20 "$b/gpu-check.log"
    echo "gpu-check: FAILED: translating the energies (log: $b/gpu-check.log)" >&2
    return 1
  fi
  rm -rf "$carry/units" && mkdir -p "$carry/units" && cp "$b"/energies/mfad_energy_*.c "$b"/mfad_energy_*.c "$carry/units/" &&
    rm -f "$carry"/units/mfad_energy_*_hessian.c
  echo "gpu-check: $(find "$carry/units" -name '*.c' | wc -l) translated energies in $carry/units ($(du -sk "$carry" | cut -f1) KB): carry gpucheck-carry"
}
if [ $mode = prepare ]; then
  prepare
  exit $?
fi

echo "gpu-check: $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname), $(nproc) cores, $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/CUDA \1/p')"
# ---- the device
arch=
if [ $mode = gpu ]; then
  if ! gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader 2>&1 | head -n 1) || [ -z "$gpu" ]; then
    echo "gpu-check: no GPU answers nvidia-smi ($gpu): this mode needs one; --dry-run checks what runs without one" >&2
    exit 1
  fi
  echo "gpu-check: device: $gpu"
  arch=$(echo "$gpu" | awk -F', ' '{gsub(/\./, "", $4); print $4}')
fi
arch=${arch:-90} # the dry run: the H100/H200's

# ---- 1. the kernel-level check, built with nvcc for this architecture
units=()
if [ -d "$carry/units" ]; then
  units=(-DMFAD_GPUCHECK_UNITS="$carry/units")
elif ! python3 -c 'import pycparser' 2>/dev/null; then
  step "build the kernel check" FAIL "no gpucheck-carry/units and no pycparser to translate the energies: run --prepare where pycparser is and carry gpucheck-carry"
fi
t0=$SECONDS
mkdir -p "$build"
if [ $fail = 0 ]; then
  if cmake -S "$root/tests/gpu" -B "$build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES="$arch" -DMFAD_GPUCHECK_RESOURCE_REPORT=ON "${units[@]}" >"$build/gpu-check.log" 2>&1 &&
    ninja -C "$build" -j "$jobs" >>"$build/gpu-check.log" 2>&1; then
    step "build the kernel check (sm_$arch, $jobs jobs)" ok "$(since); $(grep -c 'MFAD_GPUCHECK_ENERGY' "$build/gpucheck_energies.h") energies"
  else
    grep -E -A3 'error' "$build/gpu-check.log" | head -n 40 || tail -n 30 "$build/gpu-check.log"
    step "build the kernel check (sm_$arch)" FAIL "$(since); log $build/gpu-check.log"
  fi
fi
check=$build/gpu_kernelcheck
if [ -x "$check" ]; then
  python3 "$root/scripts/cuda-resources.py" "$build" --known "$root/scripts/cuda-resources-known.txt" >"$build/resources.txt" 2>&1
  s=$?
  grep -E 'FAIL|passes now' "$build/resources.txt" | head -n 20
  step "resource gate (cuda-resources.py)" "$([ $s = 0 ] && echo ok || echo FAIL)" "$(tail -n 1 "$build/resources.txt" | sed 's/^cuda-resources: //; s/|/,/g'); table: $build/resources.txt"
  libs=$(ldd "$check" | awk '{print $1}' | grep -v -E '^(linux-vdso|/lib64/ld-linux)' | sed 's/\.so.*//' | sort -u | tr '\n' ' ')
  missing=$(ldd "$check" | grep 'not found' | awk '{print $1}' | tr '\n' ' ')
  step "libraries of gpu_kernelcheck (ldd)" "$([ -z "$missing" ] && echo ok || echo FAIL)" "${libs% }${missing:+; not found: $missing}"
fi

# ---- 2. the check on the device
table=
if [ -x "$check" ]; then
  t0=$SECONDS
  # shellcheck disable=SC2086 # (the arguments, split)
  "$check" ${MFAD_GPUCHECK_ARGS:-} >"$build/kernelcheck.txt" 2>&1
  s=$?
  grep -v '^|' "$build/kernelcheck.txt" | grep -v '^$'
  case $s in
  0) step "kernel check on the device" ok "$(since)"; table=$build/kernelcheck.txt ;;
  77) step "kernel check on the device" skipped "$(sed -n 's/^kernelcheck: SKIPPED: //p' "$build/kernelcheck.txt")" ;;
  *) step "kernel check on the device" FAIL "exit status $s, $(since)"; table=$build/kernelcheck.txt ;;
  esac

  # ---- 3. memcheck, small
  if ! command -v compute-sanitizer >/dev/null; then
    step "compute-sanitizer memcheck" skipped "compute-sanitizer is not installed"
  elif [ $s = 77 ]; then
    step "compute-sanitizer memcheck" skipped "no device"
  else
    t0=$SECONDS
    timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$check" -n 16 -box 2 2 2 -cloth 8 -reps 1 >"$build/memcheck.txt" 2>&1
    s=$?
    errors=$(sed -n 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$build/memcheck.txt" | tail -n 1)
    if [ "$errors" = 0 ] && [ $s = 0 ]; then
      step "compute-sanitizer memcheck (16 elements per energy)" ok "0 errors, $(since)"
    elif [ -n "$errors" ] && [ "$errors" != 0 ]; then
      grep -m 20 '^=========' "$build/memcheck.txt"
      step "compute-sanitizer memcheck" FAIL "$errors errors ($build/memcheck.txt)"
    elif [ -n "$errors" ]; then # the tool ran it: the check itself failed under it
      step "compute-sanitizer memcheck" FAIL "0 memory errors, but the check exited with status $s under it ($build/memcheck.txt)"
    else # no summary: the tool did not attach (a sandboxed runtime, an unsupported driver)
      why=$(grep -m 1 -i -E 'error|not supported|unable|denied|fail' "$build/memcheck.txt" | sed 's/^=* *//; s/|/,/g')
      step "compute-sanitizer memcheck" skipped "the tool ran no check (exit status $s): ${why:-$(tail -n 1 "$build/memcheck.txt")}"
    fi
  fi
fi

# ---- the dry run: the same check under the CUDA emulation (the library's build, ctest gpu_kernelcheck_emu)
if [ $mode = dry ]; then
  lib=${MFAD_BUILD_DIR:-$root/build}
  t0=$SECONDS
  if MFAD_BUILD_DIR=$lib MFAD_BUILD_TARGETS=gpu_kernelcheck_emu bash "$root/scripts/build.sh" >"$build/emulation.log" 2>&1 &&
    [ -x "$lib/tests/gpu_kernelcheck_emu" ]; then
    "$lib/tests/gpu_kernelcheck_emu" -n 256 -box 6 6 8 -cloth 40 -reps 3 >"$build/kernelcheck-emu.txt" 2>&1
    s=$?
    step "kernel check under the emulation ($lib)" "$([ $s = 0 ] && echo ok || echo FAIL)" "$(since); $(tail -n 1 "$build/kernelcheck-emu.txt" | sed 's/^kernelcheck: //')"
    table=$build/kernelcheck-emu.txt
  else
    tail -n 20 "$build/emulation.log"
    step "kernel check under the emulation" FAIL "building gpu_kernelcheck_emu in $lib failed ($build/emulation.log)"
  fi
  size=$(git -C "$root" archive HEAD | wc -c)
  extra=$([ -d "$carry" ] && du -sk "$carry" | cut -f1)
  step "what the run tool carries" ok "git archive HEAD: $((size / 1024)) KB; gpucheck-carry: ${extra:-0} KB; limit 64 MiB"
fi

# ---- 4. the PETSc-level path (mfad itself with CUDA), where a PETSc is present
if [ -z "${PETSC_DIR:-}" ]; then
  step "PETSc-level checks (test_cuda, elastic)" skipped "no PETSC_DIR: no PETSc on this machine (the kernel check above needs none; scripts/petsc-cuda.sh builds one where the network reaches)"
elif [ $mode = dry ]; then
  step "PETSc-level checks (test_cuda, elastic)" skipped "--dry-run: stage 2 (scripts/test-cuda.sh) builds and runs them under the emulation"
else
  petsc=$PETSC_DIR${PETSC_ARCH:+/$PETSC_ARCH}
  cbuild=${MFAD_CUDA_BUILD_DIR:-$root/build-cuda}
  pcuda=0
  grep -q '^#define PETSC_HAVE_CUDA 1' "$petsc/include/petscconf.h" && pcuda=1
  export PKG_CONFIG_PATH=$petsc/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} LD_LIBRARY_PATH=$petsc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
  export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
  t0=$SECONDS
  mkdir -p "$cbuild"
  if MFAD_BUILD_DIR=$cbuild MFAD_CMAKE_ARGS="${MFAD_CMAKE_ARGS:-} -DMFAD_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=$arch" MFAD_JOBS=$jobs \
    MFAD_BUILD_TARGETS="test_cuda elastic" bash "$root/scripts/build.sh" >"$cbuild/gpu-check.log" 2>&1; then
    step "mfad with CUDA against $petsc (PETSc CUDA: $pcuda)" ok "$(since)"
    CK_FORK=no "$cbuild/tests/test_cuda" >"$cbuild/test_cuda.txt" 2>&1
    s=$?
    tail -n 3 "$cbuild/test_cuda.txt"
    step "test_cuda, 1 rank" "$([ $s = 0 ] && echo ok || echo FAIL)" "exit status $s (77: no device)"
    if command -v mpiexec >/dev/null; then
      CK_FORK=no mpiexec --oversubscribe -n 2 "$cbuild/tests/test_cuda" </dev/null >"$cbuild/test_cuda2.txt" 2>&1
      s=$?
      step "test_cuda, 2 ranks on this GPU" "$([ $s = 0 ] && echo ok || echo FAIL)" "exit status $s"
    else
      step "test_cuda, 2 ranks" skipped "no mpiexec (a PETSc with MPIUNI): the multi-rank checks stay in the emulation (test_cuda_emu_2)"
    fi
    elastic=$cbuild/petsc-examples/elastic
    energy() { sed -n 's/.* energy \([^ ]*\) .*/\1/p' | tail -n 1; }
    ref=$("$elastic" -n 8 -m 32 -ksp_type cg 2>&1 | energy)
    variants=("" "-mfad_hessian cached" "-mfad_scatter gather")
    [ $pcuda = 1 ] && variants+=("-vec_type cuda" "-mfad_hessian cached -vec_type cuda" "-mfad_hessian aij -mat_type aijcusparse -vec_type cuda")
    for o in "${variants[@]}"; do
      # shellcheck disable=SC2086 # (the options, split)
      e=$("$elastic" -n 8 -m 32 -ksp_type cg -mfad_backend cuda $o 2>&1 | energy)
      if python3 -c "import sys; r, e = float('${ref:-nan}'), float('${e:-nan}'); sys.exit(0 if abs(e - r) <= 1e-10 * abs(r) else 1)"; then s=ok; else s=FAIL; fi
      step "elastic -mfad_backend cuda $o" $s "energy $e, CPU $ref"
    done
  else
    grep -E -A3 'error' "$cbuild/gpu-check.log" | head -n 30
    step "mfad with CUDA against $petsc" FAIL "$(since); log $cbuild/gpu-check.log"
  fi
fi

# ---- 5. one table
echo
echo "## gpu-check summary ($mode mode, $((SECONDS - start)) s)"
echo
if [ -n "$table" ]; then
  grep '^|' "$table"
else
  echo "| energy | (no kernel check ran) |"
  echo "|---|---|"
fi
for r in "${rows[@]}"; do
  IFS='|' read -r name result detail <<<"$r"
  echo "| *$name* | **$result** | $detail |"
done
echo
[ $fail = 0 ] && echo "gpu-check: all checks passed ($((SECONDS - start)) s)" || echo "gpu-check: some checks FAILED ($((SECONDS - start)) s)"
exit $fail
