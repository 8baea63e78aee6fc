// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/element_residual.h
  @brief The element bodies of a residual (an element function with MFAD_ENERGY_OUTPUTS = m
         outputs): value, Jacobian-vector product (dual numbers: one lane), element Jacobian
         (gradient numbers: N lanes) and, from them, the scalar bodies the element loops of
         mfad/impl/loop_cpu.h and mfad/impl/loop_cuda.h run, for the kernel's sum:
         - least squares: 1/2 |r_e|^2, J_e^T r_e, J_e^T (J_e v_e) (Gauss-Newton), J_e^T J_e;
         - system: no value, r_e, J_e v_e, J_e (not symmetric).
         Included by mfad/impl/element.h in place of the energy bodies.
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/element_residual.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_ELEMENT_RESIDUAL_H
#define MFAD_ELEMENT_RESIDUAL_H

#define MFAD_M MFAD_ENERGY_OUTPUTS
#if MFAD_M < 1 || MFAD_M > 24
#error "mfad/impl/element_residual.h: a residual has 1 to 24 outputs per element"
#endif
#if MFAD_ENERGY_SUM == 2 && MFAD_M != MFAD_N
#error "mfad/impl/element_residual.h: a system residual has one output per element unknown (outputs = vertices * dof)"
#endif

/* r receives r_e */
MFAD_HD static MFAD_INLINE void mfad_res_value(const MfadLoop *L, int e, double *MFAD_RESTRICT r)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  double     xs[MFAD_N];
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++) xs[a * MFAD_ND + d] = L->x[(long)c[a] * MFAD_ND + d];
  mfad_energy_val(xs, mfad_elem_params(L, e), r);
}

/* r receives r_e, jv receives J_e v_e (v: a local array in the vertex layout) */
MFAD_HD static MFAD_INLINE void mfad_res_jvp(const MfadLoop *L, int e, const double *MFAD_RESTRICT v, double *MFAD_RESTRICT r,
                                             double *MFAD_RESTRICT jv)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  mfad_dual  xs[MFAD_N], R[MFAD_M];
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++)
  {
    const long k = (long)c[a] * MFAD_ND + d;
    mfad_dual_seed(&xs[a * MFAD_ND + d], L->x[k], v[k]);
  }
  mfad_energy_dual(xs, mfad_elem_params(L, e), R);
  MFAD_UNROLL for (int i = 0; i < MFAD_M; i++)
  {
    r[i]  = R[i].v;
    jv[i] = R[i].t;
  }
}

/* r receives r_e, J the m x N element Jacobian, row-major */
MFAD_HD static MFAD_INLINE void mfad_res_jacobian(const MfadLoop *L, int e, double *MFAD_RESTRICT r, double *MFAD_RESTRICT J)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  mfad_grad  xs[MFAD_N], R[MFAD_M];
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++)
      mfad_grad_seed(&xs[a * MFAD_ND + d], L->x[(long)c[a] * MFAD_ND + d], a * MFAD_ND + d);
  mfad_energy_grad(xs, mfad_elem_params(L, e), R);
  MFAD_UNROLL for (int i = 0; i < MFAD_M; i++)
  {
    r[i]                                                           = R[i].v;
    MFAD_UNROLL for (int j = 0; j < MFAD_N; j++) J[i * MFAD_N + j] = MFAD_LANE(R[i].g, j);
  }
}

/* out = J^T w (J m x N) */
MFAD_HD static MFAD_INLINE void mfad_res_tmul(const double *MFAD_RESTRICT J, const double *MFAD_RESTRICT w, double *MFAD_RESTRICT out)
{
  MFAD_UNROLL for (int j = 0; j < MFAD_N; j++) out[j] = 0.0;
  MFAD_UNROLL for (int i = 0; i < MFAD_M; i++) MFAD_UNROLL for (int j = 0; j < MFAD_N; j++) out[j] += J[i * MFAD_N + j] * w[i];
}

/* The element's entries of a local array in the vertex layout */
MFAD_HD static MFAD_INLINE void mfad_res_gather(const MfadLoop *L, int e, const double *MFAD_RESTRICT v, double *MFAD_RESTRICT ve)
{
  const int *c                                                                                                    = L->conn + (long)e * MFAD_NV;
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++) ve[a * MFAD_ND + d] = v[(long)c[a] * MFAD_ND + d];
}

/* out = J_e^T J_e v_e; r receives r_e */
MFAD_HD static MFAD_INLINE void mfad_res_gaussnewton(const MfadLoop *L, int e, double *MFAD_RESTRICT r, double *MFAD_RESTRICT out)
{
  double J[MFAD_M * MFAD_N], ve[MFAD_N], jv[MFAD_M];
  mfad_res_jacobian(L, e, r, J);
  mfad_res_gather(L, e, L->v, ve);
  MFAD_UNROLL for (int i = 0; i < MFAD_M; i++)
  {
    jv[i] = 0.0;
    MFAD_UNROLL for (int j = 0; j < MFAD_N; j++) jv[i] += J[i * MFAD_N + j] * ve[j];
  }
  mfad_res_tmul(J, jv, out);
}

MFAD_HD static MFAD_INLINE double mfad_res_half_norm2(const double *r)
{
  double s = 0.0;
  MFAD_UNROLL for (int i = 0; i < MFAD_M; i++) s += r[i] * r[i];
  return 0.5 * s;
}

#if MFAD_ENERGY_SUM == 2
/* ---------------------------------------------------------------- system: F = sum of r_e, Jacobian J_e */
/* col receives J_e e_k (dual numbers: one lane) */
MFAD_HD static MFAD_INLINE void mfad_elem_hessian_column(const MfadLoop *L, int e, int k, double *MFAD_RESTRICT col)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  mfad_dual  xs[MFAD_N], R[MFAD_M];
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++)
  {
    const int i = a * MFAD_ND + d;
    mfad_dual_seed(&xs[i], L->x[(long)c[a] * MFAD_ND + d], i == k ? 1.0 : 0.0);
  }
  mfad_energy_dual(xs, mfad_elem_params(L, e), R);
  MFAD_UNROLL for (int i = 0; i < MFAD_M; i++) col[i] = R[i].t;
}
MFAD_HD static MFAD_INLINE double mfad_elem_value(const MfadLoop *L, int e)
{
  (void)L;
  (void)e;
  return 0.0; /* no objective: the core refuses to compute one */
}
MFAD_HD static MFAD_INLINE double mfad_elem_gradient(const MfadLoop *L, int e, double *MFAD_RESTRICT g)
{
  mfad_res_value(L, e, g);
  return 0.0;
}
MFAD_HD static MFAD_INLINE void mfad_elem_hvp(const MfadLoop *L, int e, double *MFAD_RESTRICT hv)
{
  double r[MFAD_M];
  mfad_res_jvp(L, e, L->v, r, hv);
}
MFAD_HD static MFAD_INLINE double mfad_elem_hessian(const MfadLoop *L, int e, double *MFAD_RESTRICT H)
{
  double r[MFAD_M];
  mfad_res_jacobian(L, e, r, H);
  return 0.0;
}
/* dg receives the diagonal of J_e (one Jacobian in gradient numbers) */
MFAD_HD static MFAD_INLINE void mfad_elem_diagonal(const MfadLoop *L, int e, double *MFAD_RESTRICT dg)
{
  double r[MFAD_M], J[MFAD_M * MFAD_N];
  mfad_res_jacobian(L, e, r, J);
  MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) dg[i] = J[i * MFAD_N + i];
}
#else
/* ---------------------------------------------------------------- least squares: 1/2 |r_e|^2, Gauss-Newton */
MFAD_HD static MFAD_INLINE double mfad_elem_value(const MfadLoop *L, int e)
{
  double r[MFAD_M];
  mfad_res_value(L, e, r);
  return mfad_res_half_norm2(r);
}
MFAD_HD static MFAD_INLINE double mfad_elem_gradient(const MfadLoop *L, int e, double *MFAD_RESTRICT g)
{
  double r[MFAD_M], J[MFAD_M * MFAD_N];
  mfad_res_jacobian(L, e, r, J);
  mfad_res_tmul(J, r, g);
  return mfad_res_half_norm2(r);
}
MFAD_HD static MFAD_INLINE void mfad_elem_hvp(const MfadLoop *L, int e, double *MFAD_RESTRICT hv)
{
  double r[MFAD_M];
  mfad_res_gaussnewton(L, e, r, hv);
}
/* col receives J_e^T (J_e e_k), from the element Jacobian (gradient numbers: N lanes) */
MFAD_HD static MFAD_INLINE void mfad_elem_hessian_column(const MfadLoop *L, int e, int k, double *MFAD_RESTRICT col)
{
  double r[MFAD_M], J[MFAD_M * MFAD_N], jk[MFAD_M];
  mfad_res_jacobian(L, e, r, J);
  MFAD_UNROLL for (int i = 0; i < MFAD_M; i++) jk[i] = J[i * MFAD_N + k];
  mfad_res_tmul(J, jk, col);
}
MFAD_HD static MFAD_INLINE double mfad_elem_hessian(const MfadLoop *L, int e, double *MFAD_RESTRICT H)
{
  double r[MFAD_M], J[MFAD_M * MFAD_N];
  mfad_res_jacobian(L, e, r, J);
  MFAD_UNROLL_HESS for (int j = 0; j < MFAD_N; j++) MFAD_UNROLL for (int k = j; k < MFAD_N; k++)
  {
    double s = 0.0;
    MFAD_UNROLL for (int i = 0; i < MFAD_M; i++) s += J[i * MFAD_N + j] * J[i * MFAD_N + k];
    H[j * MFAD_N + k] = H[k * MFAD_N + j] = s;
  }
  return mfad_res_half_norm2(r);
}
/* dg receives the diagonal of J_e^T J_e: the squared column norms of J_e */
MFAD_HD static MFAD_INLINE void mfad_elem_diagonal(const MfadLoop *L, int e, double *MFAD_RESTRICT dg)
{
  double r[MFAD_M], J[MFAD_M * MFAD_N];
  mfad_res_jacobian(L, e, r, J);
  MFAD_UNROLL for (int j = 0; j < MFAD_N; j++)
  {
    double s = 0.0;
    MFAD_UNROLL for (int i = 0; i < MFAD_M; i++) s += J[i * MFAD_N + j] * J[i * MFAD_N + j];
    dg[j] = s;
  }
}
#endif

#endif /* MFAD_ELEMENT_RESIDUAL_H */
