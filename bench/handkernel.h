// SPDX-License-Identifier: BSD-2-Clause
/* The frame of a hand-written kernel: the bench's 'hand-written' bound runs plain-C derivative
   code through mfad's own element loops (mfad/impl/loop_cpu.h: coloured blocks, OpenMP, weighted
   scatter), so that a comparison with the AD kernel is of derivative code, not of loops.
   A file defines HAND_NAME (its kernel's name), HAND_AD (the AD kernel it reproduces), MFAD_N,
   MFAD_NV, MFAD_ND and the element functions hand_value, hand_gradient, hand_hvp on gathered
   element arrays, then includes this header, which defines the kernel BenchKernel_<HAND_NAME>.
   Only value, gradient and HVP are hand-written: the Hessian modes (diagonal, blocks, element
   Hessians) call the AD kernel's element function, one element at a time. */
#include <math.h>
#define MFAD_IMPL_ALLOWED 1 /* a hand-written kernel and its CPU loops: the machinery itself */
#include <mfad/impl/kernel.h>

#define MFAD_CAT_(a, b) a##b
#define MFAD_CAT(a, b)  MFAD_CAT_(a, b)
#define MFAD_STR_(a)    #a
#define MFAD_STR(a)     MFAD_STR_(a)
#define MFAD_NP         MFAD_CAT(HAND_NPARAM_, HAND_NAME)

#define HAND_AD_KERNEL (&MFAD_CAT(MfadKernel_, HAND_AD)) /* MFAD_KERNEL() would not expand HAND_AD */
extern const struct _n_MfadKernel MFAD_CAT(MfadKernel_, HAND_AD);

static inline void mfad_elem_gather(const MfadLoop *L, const double *a, int e, double *out)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  for (int i = 0; i < MFAD_NV; i++)
    for (int d = 0; d < MFAD_ND; d++) out[i * MFAD_ND + d] = a[(long)c[i] * MFAD_ND + d];
}

static inline void mfad_elem_scatter(double *y, const int *c, const double *out, double w)
{
  for (int a = 0; a < MFAD_NV; a++)
    for (int d = 0; d < MFAD_ND; d++) y[(long)c[a] * MFAD_ND + d] += w * out[a * MFAD_ND + d];
}

static inline void mfad_elem_scatter_blocks(double *y, const int *c, const double *H, double w)
{
  for (int a = 0; a < MFAD_NV; a++)
    for (int d = 0; d < MFAD_ND; d++)
      for (int f = 0; f < MFAD_ND; f++) y[((long)c[a] * MFAD_ND + d) * MFAD_ND + f] += w * H[(a * MFAD_ND + d) * MFAD_N + a * MFAD_ND + f];
}

static inline double mfad_elem_value(const MfadLoop *L, int e)
{
  double xs[MFAD_N];
  mfad_elem_gather(L, L->x, e, xs);
  return hand_value(xs, L->params + (long)e * MFAD_NP);
}

static inline double mfad_elem_gradient(const MfadLoop *L, int e, double *g)
{
  double xs[MFAD_N];
  mfad_elem_gather(L, L->x, e, xs);
  return hand_gradient(xs, L->params + (long)e * MFAD_NP, g);
}

static inline void mfad_elem_hvp(const MfadLoop *L, int e, double *hv)
{
  double xs[MFAD_N], vs[MFAD_N];
  mfad_elem_gather(L, L->x, e, xs);
  mfad_elem_gather(L, L->v, e, vs);
  hand_hvp(xs, vs, L->params + (long)e * MFAD_NP, hv);
}

/* not hand-written: the AD kernel's element Hessian */
static inline double mfad_elem_hessian(const MfadLoop *L, int e, double *H)
{
  double xs[MFAD_N], E;
  mfad_elem_gather(L, L->x, e, xs);
  HAND_AD_KERNEL->element(MFAD_MODE_HESSIAN, xs, NULL, L->params + (long)e * MFAD_NP, &E, H);
  return E;
}

/* not hand-written: the diagonal of that Hessian */
static inline void mfad_elem_diagonal(const MfadLoop *L, int e, double *dg)
{
  double H[MFAD_N * MFAD_N];
  (void)mfad_elem_hessian(L, e, H);
  for (int i = 0; i < MFAD_N; i++) dg[i] = H[i * MFAD_N + i];
}

#include <mfad/impl/loop_cpu.h>

static void hand_element_host(MfadMode mode, const double *x, const double *v, const double *params, double *value, double *out)
{
  switch (mode) {
  case MFAD_MODE_VALUE:
    *value = hand_value(x, params);
    break;
  case MFAD_MODE_GRADIENT:
    *value = hand_gradient(x, params, out);
    break;
  case MFAD_MODE_HVP:
    hand_hvp(x, v, params, out);
    *value = hand_value(x, params);
    break;
  default: /* Hessian, diagonal: not hand-written */
    HAND_AD_KERNEL->element(mode, x, v, params, value, out);
    break;
  }
}

static void hand_flops_host(const double *x, const double *params, double flops[MFAD_MODE_COUNT]) { HAND_AD_KERNEL->flops(x, params, flops); }

/* parameters come with MfadEnergyAddTerm() (the AD kernel's rest set-up makes them) */
const struct _n_MfadKernel MFAD_CAT(BenchKernel_, HAND_NAME) = {
    MFAD_STR(HAND_NAME), "hand-written gradient and HVP of " MFAD_STR(HAND_AD), MFAD_NV, MFAD_ND, MFAD_NP, 0, 0, 0, hand_element_host,
                                                                      hand_flops_host, mfad_cpu_value, mfad_cpu_gradient, mfad_cpu_hvp,
                                                                      mfad_cpu_diagonal, mfad_cpu_blockdiag, mfad_cpu_hessian,
                                                                      NULL, /* no CUDA entry points: the hand-written bound is a CPU comparison */
                                                                      MFAD_NV, 0,               /* a scalar energy */
                                                                      MFAD_SUM_ENERGY, NULL, 0, /* derivatives at the unknowns */
                                                                      0,                        /* hand-written, no adjoint sweep */
                                                                      NULL,                     /* no step bound */
                                                                      0,                        /* the library's default projection */
                                                                      0,                        /* no SIMD lanes: a scalar loop */
};
