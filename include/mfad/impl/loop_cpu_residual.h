// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/loop_cpu_residual.h
  @brief CPU element loops of a residual's own operators (stacked least-squares rows and the
         system's transpose product), around the bodies of mfad/impl/element_residual.h, with the
         colouring macros of mfad/impl/loop_cpu.h: deterministic for any thread count.
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/loop_cpu_residual.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_LOOP_CPU_RESIDUAL_H
#define MFAD_LOOP_CPU_RESIDUAL_H

static inline long mfad_res_row(const MfadLoop *L, int e) { return (long)(L->row ? L->row[e] : e) * MFAD_M; }

static void mfad_cpu_res_residual(const MfadLoop *L)
{
  const double sw = sqrt(L->weight);
  MFAD_CPU_BLOCKS(L, double r[MFAD_M]; double *y = L->y + mfad_res_row(L, e); mfad_res_value(L, e, r);
                  for (int i = 0; i < MFAD_M; i++) y[i] = sw * r[i]; sum_ += L->weight * mfad_res_half_norm2(r));
}

static void mfad_cpu_res_jvp(const MfadLoop *L)
{
  const double sw = sqrt(L->weight);
  MFAD_CPU_BLOCKS(L, double r[MFAD_M]; double jv[MFAD_M]; double *y = L->y + mfad_res_row(L, e); mfad_res_jvp(L, e, L->v, r, jv);
                  for (int i = 0; i < MFAD_M; i++) y[i] = sw * jv[i]);
}

static void mfad_cpu_res_vjp(const MfadLoop *L)
{
  const double sw = sqrt(L->weight);
  MFAD_CPU_COLOURED(L, double r[MFAD_M]; double J[MFAD_M * MFAD_N]; double out[MFAD_N]; mfad_res_jacobian(L, e, r, J);
                    mfad_res_tmul(J, L->w + mfad_res_row(L, e), out); mfad_elem_scatter(L->y, L->conn + (long)e * MFAD_NV, out, sw));
}

static void mfad_cpu_res_jacobian(const MfadLoop *L)
{
  const double sw = sqrt(L->weight);
  MFAD_CPU_BLOCKS(L, double r[MFAD_M]; double *J = L->y + (long)e * MFAD_M * MFAD_N; mfad_res_jacobian(L, e, r, J);
                  for (int i = 0; i < MFAD_M * MFAD_N; i++) J[i] *= sw);
}

#if MFAD_ENERGY_SUM == 2
/* a system (m = N): y += w J_e^T v_e, the transpose product */
static void mfad_cpu_res_jtv(const MfadLoop *L)
{
  MFAD_CPU_COLOURED(L, double r[MFAD_M]; double J[MFAD_M * MFAD_N]; double ve[MFAD_N]; double out[MFAD_N]; mfad_res_jacobian(L, e, r, J);
                    mfad_res_gather(L, e, L->v, ve); mfad_res_tmul(J, ve, out); mfad_elem_scatter(L->y, L->conn + (long)e * MFAD_NV, out, L->weight));
}
#define MFAD_CPU_RES_JTV mfad_cpu_res_jtv
#else
#define MFAD_CPU_RES_JTV 0 /* least squares: products with J^T J are symmetric */
#endif

/* One element in every residual mode, host only (tests) */
static void mfad_residual_host(MfadResidualMode mode, const double *x, const double *v, const double *params, double *r, double *out)
{
  int      conn[MFAD_NV];
  double   J[MFAD_M * MFAD_N];
  MfadLoop L;
  mfad_elem_loop_one(&L, conn, x, v, params);
  switch (mode) {
  case MFAD_RESIDUAL_VALUE:
    mfad_res_value(&L, 0, r);
    break;
  case MFAD_RESIDUAL_JVP:
    mfad_res_jvp(&L, 0, v, r, out);
    break;
  case MFAD_RESIDUAL_JACOBIAN:
    mfad_res_jacobian(&L, 0, r, out);
    break;
  case MFAD_RESIDUAL_VJP:
    mfad_res_jacobian(&L, 0, r, J);
    mfad_res_tmul(J, v, out);
    break;
  case MFAD_RESIDUAL_GAUSSNEWTON:
    mfad_res_gaussnewton(&L, 0, r, out);
    break;
  }
}

static const struct _n_MfadResidualKernel mfad_residual_kernel = {
    mfad_residual_host, mfad_cpu_res_residual, mfad_cpu_res_jvp, mfad_cpu_res_vjp, mfad_cpu_res_jacobian, MFAD_CPU_RES_JTV,
};

#endif /* MFAD_LOOP_CPU_RESIDUAL_H */
