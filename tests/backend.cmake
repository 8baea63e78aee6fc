# SPDX-License-Identifier: BSD-2-Clause
# The backend registry (src/backend.c): a backend registered by a program, chosen by name, its
# entries called, a missing one named (test_backend.c). It is written against src/mfadimpl.h, as
# a backend is.
mfad_check_test(test_backend)
target_include_directories(test_backend PRIVATE ${PROJECT_SOURCE_DIR}/src)
