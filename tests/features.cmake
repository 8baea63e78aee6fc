# SPDX-License-Identifier: BSD-2-Clause
# Energies at features (MfadEnergyInfo .features/.feature, docs in include/mfad/energy.h): the
# ported built-in energies are checked against their pre-port bodies in every mode by test_kernels
# (tests/oracle/) and their projected Hessians by test_hessian; here mfad-energy's refusals of a
# feature map that is not linear in x, each at the user's file:line (tests/features/*.c).
_mfad_find_translator()
add_test(NAME features_errors
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/features_errors.sh ${MFAD_TRANSLATOR_PYTHON} ${MFAD_ENERGY_TRANSLATOR} ${CMAKE_CURRENT_BINARY_DIR}/features-work)
set_tests_properties(features_errors PROPERTIES LABELS "unit")
# the ported neohookean_tet and mass_spring as plain C (E = psi(fmap(x))) against their kernels,
# and the feature-space PSD projection (tests/test_features.c)
mfad_check_test(test_features)
