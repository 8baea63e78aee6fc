// SPDX-License-Identifier: BSD-2-Clause
/* test energy ad_ops with N = 16 unknowns (8 vertices x 2 dofs) */
#define AD_OPS_NV  8
#define AD_OPS_DOF 2
#include "ad_ops.h"
