// SPDX-License-Identifier: BSD-2-Clause
/* Hand-derived gradient and HVP of neohookean_tet (energies/neohookean_tet.c):
     E = V (mu/2 (|F|^2 - 3) - mu log J + lambda/2 log^2 J),  F = Ds B,  B = Dm^{-1} (params 0-8),
     P  = dPsi/dF = mu F + (lambda log J - mu) F^{-T},                 F^{-T} = cof(F) / J,
     dP = mu dF + lambda tr(F^{-1} dF) F^{-T} - (lambda log J - mu) F^{-T} dF^T F^{-T},
   and the vertex forces dE/dx_{k+1} = V (P B^T)_{:,k}, dE/dx_0 = -(sum of the other three); the HVP
   is the same map applied to dP with dF = dDs B, dDs the edge vectors of v. */
#include "hand.h"
#include <math.h>
#include <stddef.h>

#define HAND_NAME             neohookean_tet_hand
#define HAND_AD               neohookean_tet
#define HAND_NPARAM_neohookean_tet_hand 12
#define MFAD_N                12
#define MFAD_NV               4
#define MFAD_ND               3

/* F = Ds B from the element's 4 vertices */
static inline void NHDeformation(const double *x, const double *B, double F[9])
{
  double Ds[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Ds[3 * i + j] = x[3 * (j + 1) + i] - x[i];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) F[3 * i + j] = Ds[3 * i + 0] * B[j] + Ds[3 * i + 1] * B[3 + j] + Ds[3 * i + 2] * B[6 + j];
}

/* cofactor matrix C of F (F^{-T} = C / J); returns J */
static inline double NHCofactor(const double F[9], double C[9])
{
  C[0] = F[4] * F[8] - F[5] * F[7];
  C[1] = F[5] * F[6] - F[3] * F[8];
  C[2] = F[3] * F[7] - F[4] * F[6];
  C[3] = F[2] * F[7] - F[1] * F[8];
  C[4] = F[0] * F[8] - F[2] * F[6];
  C[5] = F[1] * F[6] - F[0] * F[7];
  C[6] = F[1] * F[5] - F[2] * F[4];
  C[7] = F[2] * F[3] - F[0] * F[5];
  C[8] = F[0] * F[4] - F[1] * F[3];
  return F[0] * C[0] + F[1] * C[1] + F[2] * C[2];
}

/* out = V P B^T as vertex vectors: out[3 (k+1) + i] = V (P B^T)_ik, out[i] = -sum_k */
static inline void NHForces(const double P[9], const double *B, double V, double *out)
{
  for (int i = 0; i < 3; i++) {
    double s = 0.0;
    for (int k = 0; k < 3; k++) {
      const double G = V * (P[3 * i] * B[3 * k] + P[3 * i + 1] * B[3 * k + 1] + P[3 * i + 2] * B[3 * k + 2]);
      out[3 * (k + 1) + i] = G;
      s += G;
    }
    out[i] = -s;
  }
}

static inline double hand_value(const double *x, const double *p)
{
  double F[9], C[9], f2 = 0.0;
  NHDeformation(x, p, F);
  const double J = NHCofactor(F, C), mu = p[10], lambda = p[11];
  if (!(J > 0.0)) return INFINITY;
  const double lj = log(J);
  for (int i = 0; i < 9; i++) f2 += F[i] * F[i];
  return p[9] * (0.5 * mu * (f2 - 3.0) - mu * lj + 0.5 * lambda * lj * lj);
}

static inline double hand_gradient(const double *x, const double *p, double *g)
{
  double F[9], C[9], P[9], f2 = 0.0;
  NHDeformation(x, p, F);
  const double J = NHCofactor(F, C), mu = p[10], lambda = p[11];
  if (!(J > 0.0)) { /* as the AD kernel: +inf and no derivative */
    for (int i = 0; i < 12; i++) g[i] = 0.0;
    return INFINITY;
  }
  const double lj = log(J), c = (lambda * lj - mu) / J;
  for (int i = 0; i < 9; i++) {
    P[i] = mu * F[i] + c * C[i];
    f2 += F[i] * F[i];
  }
  NHForces(P, p, p[9], g);
  return p[9] * (0.5 * mu * (f2 - 3.0) - mu * lj + 0.5 * lambda * lj * lj);
}

static inline void hand_hvp(const double *x, const double *v, const double *p, double *hv)
{
  double F[9], C[9], dF[9], T[9], dP[9], tr = 0.0;
  NHDeformation(x, p, F);
  NHDeformation(v, p, dF); /* linear in the vertices: dF = dDs B */
  const double J = NHCofactor(F, C), mu = p[10], lambda = p[11];
  if (!(J > 0.0)) {
    for (int i = 0; i < 12; i++) hv[i] = 0.0;
    return;
  }
  const double iJ = 1.0 / J, c = (lambda * log(J) - mu) * iJ * iJ;
  for (int i = 0; i < 9; i++) tr += C[i] * dF[i]; /* J tr(F^{-1} dF) */
  /* T = C dF^T, then F^{-T} dF^T F^{-T} = T C / J^2 */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) T[3 * i + j] = C[3 * i] * dF[3 * j] + C[3 * i + 1] * dF[3 * j + 1] + C[3 * i + 2] * dF[3 * j + 2];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const double M = T[3 * i] * C[j] + T[3 * i + 1] * C[3 + j] + T[3 * i + 2] * C[6 + j];
      dP[3 * i + j]  = mu * dF[3 * i + j] + lambda * tr * iJ * iJ * C[3 * i + j] - c * M;
    }
  NHForces(dP, p, p[9], hv);
}

#include "handkernel.h"
