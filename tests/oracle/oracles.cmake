# SPDX-License-Identifier: BSD-2-Clause
# The built-in energies ported to plain C whose pre-port bodies (tests/oracle/<name>.h) are kept
# as oracles: tests/energies.cmake (test_kernels) and bench/CMakeLists.txt (bench_port) read it.
set(MFAD_ORACLES neohookean_tet symmetric_dirichlet dirichlet_tri flip_barrier_tri arap_tri membrane_tri bending_dihedral frame_field
    sphere_symmetric_dirichlet sphere_flip_barrier)
