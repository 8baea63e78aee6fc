// SPDX-License-Identifier: BSD-2-Clause
/* test energy ad_ops with N = 12 unknowns (4 vertices x 3 dofs) */
#define AD_OPS_NV  4
#define AD_OPS_DOF 3
#include "ad_ops.h"
