# SPDX-License-Identifier: BSD-2-Clause
# Contact: the IPC barrier energies (closed forms, derivatives in every distance type), detection
# against a brute-force search (random soup, Spot), the continuous-collision step bound, bad input
mfad_check_test(test_contact)
target_compile_definitions(test_contact PRIVATE MFAD_TEST_MESHES="${CMAKE_CURRENT_SOURCE_DIR}/meshes")
target_link_libraries(test_contact PRIVATE OpenMP::OpenMP_C) # omp_set_num_threads: 1 vs 3 threads
# 2 and 3 ranks find the same pairs (each once), step bound and minimum distance as one rank
add_executable(test_contact_mpi test_contact_mpi.c)
target_link_libraries(test_contact_mpi PRIVATE mfad m)
target_compile_options(test_contact_mpi PRIVATE -Wall -Wextra)
target_compile_definitions(test_contact_mpi PRIVATE MFAD_TEST_MESHES="${CMAKE_CURRENT_SOURCE_DIR}/meshes")
foreach(np 1 2 3)
  mfad_mpi_test(test_contact_mpi_${np} ${np} $<TARGET_FILE:test_contact_mpi>)
endforeach()
# bench/contact.c runs (never timed here): detection, step bound, barrier terms in an energy, 1 and 2 ranks
if(MFAD_BUILD_EXAMPLES)
  mfad_mpi_test(bench_contact_smoke 1 $<TARGET_FILE:bench_contact> -n 12 -sheets 2 -reps 1)
  mfad_mpi_test(bench_contact_smoke_np2 2 $<TARGET_FILE:bench_contact> -n 12 -sheets 2 -reps 1)
endif()
# the cloth example's sphere obstacle (energies/ipc_point_sphere.c): closed form, finite differences
mfad_check_test(test_ipc_sphere)
# MfadEnergyAddContact through a user's SNES with no solver option: the collision bound keeps a
# pulled point above a triangle (without it, it tunnels), 1 and 2 ranks
add_executable(test_contactterms test_contactterms.c)
target_link_libraries(test_contactterms PRIVATE mfad PkgConfig::CHECK m)
target_compile_options(test_contactterms PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_contactterms_${np} ${np} $<TARGET_FILE:test_contactterms>)
endforeach()
