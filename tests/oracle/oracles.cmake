# SPDX-License-Identifier: BSD-2-Clause
# The built-in energies ported to plain C whose pre-port bodies (tests/oracle/<name>.h) are kept
# as oracles: tests/energies.cmake (test_kernels) and bench/CMakeLists.txt (bench_port) read it.
set(MFAD_ORACLES neohookean_tet symmetric_dirichlet dirichlet_tri flip_barrier_tri arap_tri membrane_tri bending_dihedral frame_field
    sphere_symmetric_dirichlet sphere_flip_barrier mass_spring pin_spring gravity inertia stable_neohookean_tet stvk_tet corotated_tet
    volume_barrier_tet sphere_penalty arap_surface)
# those registered with ROLL_HESSIAN_ROWS in energies/CMakeLists.txt: their oracle and bench
# kernels are compiled the same way (like for like, and a fraction of the compile time)
set(MFAD_ORACLES_ROLL_HESSIAN_ROWS arap_surface)
