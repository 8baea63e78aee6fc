# SPDX-License-Identifier: BSD-2-Clause
# The whole-mesh calls (MfadEnergyCreateFromMesh and friends) against closed forms, 1, 2 and 3 ranks
add_executable(test_meshenergy test_meshenergy.c)
target_link_libraries(test_meshenergy PRIVATE mfad m)
target_compile_options(test_meshenergy PRIVATE -Wall -Wextra)
foreach(np 1 2 3)
  mfad_mpi_test(test_meshenergy_${np} ${np} $<TARGET_FILE:test_meshenergy>)
  set_property(TEST test_meshenergy_${np} APPEND PROPERTY LABELS unit)
endforeach()
