// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/contact.h
  @brief Squared distances of incremental potential contact (IPC), its barrier and edge-edge
         mollifier, over doubles: what the contact energies (energies/ipc_point_triangle.c,
         energies/ipc_edge_edge.c) and the contact detection (src/contact.c) share.

  Li et al. 2020, "Incremental Potential Contact", ACM TOG 39(4), sec. 4 and supplement: the
  distance between a point and a triangle (two edges) is the distance of one of 7 (9) pairs of
  sub-simplices; which one (the "distance type") is chosen once, when the pair is detected, and
  kept fixed while the pair set is: then each energy is a smooth function of its 12 unknowns.
  Every function here is plain C over doubles (the energy translator differentiates those the
  energies call); the type selection (..._type) reads values only.
  Vertex order: point-triangle (p, t0, t1, t2); edge-edge (a0, a1, b0, b1), edges a0-a1, b0-b1.
**/
#ifndef MFAD_CONTACT_H
#define MFAD_CONTACT_H

#include <math.h>

/* point-triangle distance types: the point to a triangle vertex, edge or plane */
#define MFAD_PT_P_T0   0 /**< |p - t0|^2 */
#define MFAD_PT_P_T1   1 /**< |p - t1|^2 */
#define MFAD_PT_P_T2   2 /**< |p - t2|^2 */
#define MFAD_PT_P_E0   3 /**< p to the line t0-t1 */
#define MFAD_PT_P_E1   4 /**< p to the line t1-t2 */
#define MFAD_PT_P_E2   5 /**< p to the line t2-t0 */
#define MFAD_PT_P_T    6 /**< p to the plane of the triangle */
#define MFAD_PT_NTYPES 7
/* edge-edge distance types: endpoint-endpoint, endpoint to the other line, line to line */
#define MFAD_EE_A0_B0  0 /**< |a0 - b0|^2 */
#define MFAD_EE_A0_B1  1 /**< |a0 - b1|^2 */
#define MFAD_EE_A1_B0  2 /**< |a1 - b0|^2 */
#define MFAD_EE_A1_B1  3 /**< |a1 - b1|^2 */
#define MFAD_EE_A_B0   4 /**< b0 to the line a0-a1 */
#define MFAD_EE_A_B1   5 /**< b1 to the line a0-a1 */
#define MFAD_EE_A0_B   6 /**< a0 to the line b0-b1 */
#define MFAD_EE_A1_B   7 /**< a1 to the line b0-b1 */
#define MFAD_EE_A_B    8 /**< line a0-a1 to line b0-b1 */
#define MFAD_EE_NTYPES 9

/* parameter layout of the two barrier energies (per element) */
#define MFAD_IPC_PT_PARAMS 3 /**< type, dhat^2, kappa */
#define MFAD_IPC_EE_PARAMS 4 /**< type, dhat^2, kappa, eps_x (mollifier threshold; <= 0: none) */

/** |a - b|^2 */
static inline double mfad_ipc_pp2(const double a[3], const double b[3])
{
  const double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  return d0 * d0 + d1 * d1 + d2 * d2;
}

/** squared distance of p to the line e0-e1: |(e0 - p) x (e1 - p)|^2 / |e1 - e0|^2 */
static inline double mfad_ipc_pe2(const double p[3], const double e0[3], const double e1[3])
{
  double a[3], b[3], e[3], c[3];
  for (int i = 0; i < 3; i++) {
    a[i] = e0[i] - p[i];
    b[i] = e1[i] - p[i];
    e[i] = e1[i] - e0[i];
  }
  for (int i = 0; i < 3; i++) c[i] = a[(i + 1) % 3] * b[(i + 2) % 3] - a[(i + 2) % 3] * b[(i + 1) % 3];
  return (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) / (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
}

/** squared distance of w0 to the plane through q spanned by u and v: ((w0 - q) . n)^2 / |n|^2,
    n = u x v (point-plane with u, v two triangle edges; line-line with u, v the two edges) */
static inline double mfad_ipc_plane2(const double w0[3], const double q[3], const double u[3], const double v[3])
{
  double n[3];
  for (int i = 0; i < 3; i++) n[i] = u[(i + 1) % 3] * v[(i + 2) % 3] - u[(i + 2) % 3] * v[(i + 1) % 3];
  const double s = (w0[0] - q[0]) * n[0] + (w0[1] - q[1]) * n[1] + (w0[2] - q[2]) * n[2];
  return s * s / (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

/** squared point-triangle distance of the given type, x = (p, t0, t1, t2) */
static inline double mfad_ipc_pt_distance2(int type, const double x[12])
{
  double u[3], v[3];
  if (type == MFAD_PT_P_T0) return mfad_ipc_pp2(&x[0], &x[3]);
  if (type == MFAD_PT_P_T1) return mfad_ipc_pp2(&x[0], &x[6]);
  if (type == MFAD_PT_P_T2) return mfad_ipc_pp2(&x[0], &x[9]);
  if (type == MFAD_PT_P_E0) return mfad_ipc_pe2(&x[0], &x[3], &x[6]);
  if (type == MFAD_PT_P_E1) return mfad_ipc_pe2(&x[0], &x[6], &x[9]);
  if (type == MFAD_PT_P_E2) return mfad_ipc_pe2(&x[0], &x[9], &x[3]);
  for (int i = 0; i < 3; i++) {
    u[i] = x[6 + i] - x[3 + i];
    v[i] = x[9 + i] - x[3 + i];
  }
  return mfad_ipc_plane2(&x[0], &x[3], u, v);
}

/** squared edge-edge distance of the given type, x = (a0, a1, b0, b1) */
static inline double mfad_ipc_ee_distance2(int type, const double x[12])
{
  double u[3], v[3];
  if (type == MFAD_EE_A0_B0) return mfad_ipc_pp2(&x[0], &x[6]);
  if (type == MFAD_EE_A0_B1) return mfad_ipc_pp2(&x[0], &x[9]);
  if (type == MFAD_EE_A1_B0) return mfad_ipc_pp2(&x[3], &x[6]);
  if (type == MFAD_EE_A1_B1) return mfad_ipc_pp2(&x[3], &x[9]);
  if (type == MFAD_EE_A_B0) return mfad_ipc_pe2(&x[6], &x[0], &x[3]);
  if (type == MFAD_EE_A_B1) return mfad_ipc_pe2(&x[9], &x[0], &x[3]);
  if (type == MFAD_EE_A0_B) return mfad_ipc_pe2(&x[0], &x[6], &x[9]);
  if (type == MFAD_EE_A1_B) return mfad_ipc_pe2(&x[3], &x[6], &x[9]);
  for (int i = 0; i < 3; i++) {
    u[i] = x[3 + i] - x[i];
    v[i] = x[9 + i] - x[6 + i];
  }
  return mfad_ipc_plane2(&x[6], &x[0], u, v);
}

/** IPC's barrier on squared distances: -kappa (d - dhat)^2 log(d / dhat) for 0 < d < dhat, 0 for
    d >= dhat (C2 there), +inf for d <= 0 (touching or, with a fixed type, passed through) */
static inline double mfad_ipc_barrier(double d, double dhat, double kappa)
{
  if (!(d > 0.0)) return INFINITY;
  if (d >= dhat) return 0.0;
  const double t = d - dhat;
  return -kappa * t * t * log(d / dhat);
}

/** IPC's edge-edge mollifier (eq. 19 of the supplement): with c = |(a1 - a0) x (b1 - b0)|^2,
    m = (2 - c / eps_x) c / eps_x for c < eps_x, else 1. It takes the barrier of nearly parallel
    edges smoothly to 0, where the edge-edge distance type (and its gradient) jumps; the
    point-triangle pairs of a closed surface cover that configuration. eps_x <= 0: 1. */
static inline double mfad_ipc_mollifier(const double x[12], double epsx)
{
  double u[3], v[3], n[3];
  if (!(epsx > 0.0)) return 1.0;
  for (int i = 0; i < 3; i++) {
    u[i] = x[3 + i] - x[i];
    v[i] = x[9 + i] - x[6 + i];
  }
  for (int i = 0; i < 3; i++) n[i] = u[(i + 1) % 3] * v[(i + 2) % 3] - u[(i + 2) % 3] * v[(i + 1) % 3];
  const double c = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
  if (c >= epsx) return 1.0;
  const double r = c / epsx;
  return (2.0 - r) * r;
}

/** The point-triangle distance type of x = (p, t0, t1, t2): the region of the closest point
    (Ericson, "Real-Time Collision Detection" 2005, sec. 5.1.5). Values only. */
static inline int mfad_ipc_pt_type(const double x[12])
{
  const double *p = &x[0], *a = &x[3], *b = &x[6], *c = &x[9];
  double        ab[3], ac[3], ap[3], bp[3], cp[3];
  for (int i = 0; i < 3; i++) {
    ab[i] = b[i] - a[i];
    ac[i] = c[i] - a[i];
    ap[i] = p[i] - a[i];
    bp[i] = p[i] - b[i];
    cp[i] = p[i] - c[i];
  }
#define MFAD_DOT_(u, v) (u[0] * v[0] + u[1] * v[1] + u[2] * v[2])
  const double d1 = MFAD_DOT_(ab, ap), d2 = MFAD_DOT_(ac, ap), d3 = MFAD_DOT_(ab, bp), d4 = MFAD_DOT_(ac, bp), d5 = MFAD_DOT_(ab, cp),
               d6 = MFAD_DOT_(ac, cp);
#undef MFAD_DOT_
  if (d1 <= 0.0 && d2 <= 0.0) return MFAD_PT_P_T0;
  if (d3 >= 0.0 && d4 <= d3) return MFAD_PT_P_T1;
  if (d6 >= 0.0 && d5 <= d6) return MFAD_PT_P_T2;
  const double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return MFAD_PT_P_E0;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return MFAD_PT_P_E2;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) return MFAD_PT_P_E1;
  return MFAD_PT_P_T; /* va, vb, vc > 0: their sum |ab x ac|^2 > 0, the plane is defined */
}

/** The edge-edge distance type of x = (a0, a1, b0, b1): where the closest points of the two
    segments lie (Ericson sec. 5.1.9, clamped). Edges with |a x b|^2 <= 1e-12 |a|^2 |b|^2 (angle
    below 1e-6) count as parallel and get an endpoint type: line-line is ill-conditioned there.
    A zero-length edge is treated as its first endpoint. Values only. */
static inline int mfad_ipc_ee_type(const double x[12])
{
  double d1[3], d2[3], r[3];
  for (int i = 0; i < 3; i++) {
    d1[i] = x[3 + i] - x[i];
    d2[i] = x[9 + i] - x[6 + i];
    r[i]  = x[i] - x[6 + i];
  }
  const double a = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2], e = d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2];
  const double f = d2[0] * r[0] + d2[1] * r[1] + d2[2] * r[2], c = d1[0] * r[0] + d1[1] * r[1] + d1[2] * r[2];
  const double b = d1[0] * d2[0] + d1[1] * d2[1] + d1[2] * d2[2], denom = a * e - b * b;
  double       s = 0.0, t = 0.0;
  int          sc, tc; /* 0: at the first endpoint, 1: at the second, 2: inside */
  if (!(a > 0.0) && !(e > 0.0)) return MFAD_EE_A0_B0;
  if (!(a > 0.0)) {
    t = f / e;
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
  } else if (!(e > 0.0)) {
    s = -c / a;
    s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
  } else {
    if (denom > 1e-12 * a * e) {
      s = (b * f - c * e) / denom;
      s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
    }
    t = (b * s + f) / e;
    if (t < 0.0) {
      t = 0.0;
      s = -c / a;
      s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
    } else if (t > 1.0) {
      t = 1.0;
      s = (b - c) / a;
      s = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
    }
  }
  sc = s <= 0.0 ? 0 : (s >= 1.0 ? 1 : 2);
  tc = t <= 0.0 ? 0 : (t >= 1.0 ? 1 : 2);
  if (sc < 2 && tc < 2) return sc == 0 ? (tc == 0 ? MFAD_EE_A0_B0 : MFAD_EE_A0_B1) : (tc == 0 ? MFAD_EE_A1_B0 : MFAD_EE_A1_B1);
  if (sc == 2 && tc < 2) return tc == 0 ? MFAD_EE_A_B0 : MFAD_EE_A_B1;
  if (sc < 2) return sc == 0 ? MFAD_EE_A0_B : MFAD_EE_A1_B;
  if (!(denom > 1e-12 * a * e)) return MFAD_EE_A0_B; /* parallel: s = 0 above, so not reached */
  return MFAD_EE_A_B;
}

#endif /* MFAD_CONTACT_H */
