// SPDX-License-Identifier: BSD-2-Clause
/* ipc_edge_edge: the incremental-potential-contact barrier between two edges (Li et al. 2020,
   "Incremental Potential Contact", ACM TOG 39(4), eq. 6 and the mollifier of its sec. 4.3),
     E = m(x) b(d),   b(d) = -kappa (d - dhat)^2 log(d / dhat) for 0 < d < dhat, 0 for d >= dhat,
   d the squared distance of the pair's distance type (include/mfad/contact.h: endpoint-endpoint,
   endpoint to line, line-line), chosen when the pair was detected and kept while the pair set is;
   m the mollifier in c = |(a1 - a0) x (b1 - b0)|^2: (2 - c / eps_x) c / eps_x below eps_x, else 1,
   so the barrier of nearly parallel edges, whose distance type jumps, fades smoothly to 0 (the
   point-triangle pairs cover them). IPC's eps_x = 1e-3 |a1 - a0|^2 |b1 - b0|^2 at rest; eps_x <= 0
   turns the mollifier off. As in IPC, m is C1 at c = eps_x (m'' jumps from -2 / eps_x^2 to 0), so
   the energy's Hessian jumps there; everywhere else E is C2. E = +inf at d <= 0.
   Vertices (a0, a1, b0, b1); parameters per element (4): type (MFAD_EE_*), dhat^2, kappa, eps_x. */
#include <mfad/energy.h>
#include <mfad/contact.h>

static double ipc_edge_edge(const double x[12], const double p[4])
{
  const double d = mfad_ipc_ee_distance2((int)p[0], x);
  const double b = mfad_ipc_barrier(d, p[1], p[2]);
  if (b == 0.0) return 0.0; /* beyond dhat: 0 whatever the mollifier (keeps 0 * inf out) */
  if (isinf(b)) return b;
  return mfad_ipc_mollifier(x, p[3]) * b;
}

const MfadEnergyInfo ipc_edge_edge_info = {
    .vertices = 4,
    .dof      = 3,
    .params   = 4,
    .energy   = ipc_edge_edge,
    .reverse  = MFAD_REVERSE_NEVER, /* its distance helper returns by case (the edge-edge types), which the adjoint sweep does not take (a helper must
                                       return only at its end) */
    .description =
        "IPC barrier m(x) (-kappa (d - dhat)^2 log(d / dhat)), d the squared edge-edge distance of a fixed type, m IPC's parallel-edge "
        "mollifier; params type, dhat^2, kappa, eps_x",
};
