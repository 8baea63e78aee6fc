// SPDX-License-Identifier: BSD-2-Clause
/* test energy ad_ops with N = 1 unknowns (1 vertices x 1 dofs) */
#define AD_OPS_NV  1
#define AD_OPS_DOF 1
#include "ad_ops.h"
