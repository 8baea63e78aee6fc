// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/kernel.h
  @brief What generated code and a backend share: the complete compiled kernel (one element
         energy with its entry points for every AD mode) and the description of one element loop.

  Plain C with no PETSc types, so that element code also compiles under nvcc. Machinery: the
  struct is complete here because mfad-energy's output defines a kernel in the user's translation
  unit (mfad/impl/instantiate.h); users see MfadKernel opaque (mfad.h) and read it by getters.
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/kernel.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_KERNEL_H
#define MFAD_KERNEL_H

#ifdef __cplusplus
extern "C" {
#endif

/** The AD modes of one element evaluation. */
typedef enum {
  MFAD_MODE_VALUE    = 0, /**< E_e */
  MFAD_MODE_GRADIENT = 1, /**< E_e, grad E_e */
  MFAD_MODE_HVP      = 2, /**< H_e v_e (fused forward over forward) */
  MFAD_MODE_HESSIAN  = 3, /**< E_e, grad E_e, H_e (full N x N, row-major) */
  MFAD_MODE_DIAGONAL = 4, /**< E_e, the diagonal of H_e (N entries; its own O(N) mode, mfad/impl/ad.h) */
  MFAD_MODE_COUNT    = 5
} MfadMode;

/** How the element outputs of a kernel are summed (an energy file names it in MfadEnergyInfo). */
typedef enum {
  MFAD_SUM_ENERGY        = 0, /**< a scalar energy E_e, summed */
  MFAD_SUM_LEAST_SQUARES = 1, /**< residuals r_e stacked into one vector r; objective 1/2 |r|^2, Gauss-Newton Hessian J^T J */
  MFAD_SUM_SYSTEM        = 2  /**< residuals r_e of N entries summed into the element's unknowns: F(x) = 0 */
} MfadSum;

/** The modes of one residual element evaluation (MfadResidualKernel's element()). */
typedef enum {
  MFAD_RESIDUAL_VALUE       = 0, /**< r_e (m entries) */
  MFAD_RESIDUAL_JVP         = 1, /**< r_e, J_e v_e (one directional lane) */
  MFAD_RESIDUAL_JACOBIAN    = 2, /**< r_e, J_e (m x N, row-major; N lanes) */
  MFAD_RESIDUAL_VJP         = 3, /**< r_e, J_e^T w_e (v holds w_e, m entries) */
  MFAD_RESIDUAL_GAUSSNEWTON = 4  /**< r_e, J_e^T (J_e v_e) */
} MfadResidualMode;

/** One element loop over a term: connectivity in local vertex numbers, local value arrays with
    `dof` entries per vertex (owned vertices first, then ghosts), block colouring for a race-free,
    deterministic scatter. Built by the core; read by the kernels. */
typedef struct {
  int           nelem;        /**< elements in the term on this rank */
  const int    *conn;         /**< nelem * nvert local vertex ids */
  const double *params;       /**< nelem * nparam per-element parameters (NULL if nparam = 0) */
  double        weight;       /**< term weight, multiplies value and every derivative */
  const double *x;            /**< point: local array */
  const double *v;            /**< direction (HVP): local array */
  double       *y;            /**< output: local array (added to), or nelem * N * N element Hessians */
  double       *block_value;  /**< output: energy of each block, summed in block order by the core */
  int           nblocks;      /**< blocks of consecutive elements */
  int           ncolors;      /**< colours: blocks of one colour share no vertex */
  const int    *block_start;  /**< nblocks + 1 element offsets */
  const int    *color_start;  /**< ncolors + 1 offsets into color_blocks */
  const int    *color_blocks; /**< blocks, grouped by colour */
  int           atomic;       /**< 1: one parallel loop with atomic scatter (for comparison) */
  int           nthreads;     /**< OpenMP threads (0: runtime default) */
  int           parallel;     /**< 0: run on the calling thread (no colour has 2 blocks, or tiny) */
  /* stacked residual rows (least-squares terms) */
  const int    *row;          /**< element e's rows are row[e] * m ... (NULL: e * m) */
  const double *w;            /**< stacked input rows (J^T w) */
  /* element Hessians of an energy with features (MfadKernel nfeat > 0): PSD projection of the
     feature Hessian H_F before the pull-back B^T H_F B (PSD as well); 0 everywhere else */
  int           psd;          /**< MfadPSDProjection of the feature Hessian, 0: none */
  double        psd_eps;      /**< its smallest eigenvalue */
  int           scalar;       /**< 1: the scalar loops where the energy also has SIMD lanes (mfad/impl/loop_cpu_lanes.h) */
  const int    *voff;         /**< NULL, or conn's entries times dof * sizeof(double): each vertex's first unknown as a byte offset
                                   into x, v and y, the SIMD lanes' addresses without arithmetic (the core keeps them for a term whose
                                   kernel has lanes) */
} MfadLoop;

typedef void (*MfadLoopFn)(const MfadLoop *);

/** One CUDA launch of an element kernel (src/cuda/): the loop's arrays are device arrays; the
    launch covers `n` elements, element i being elems[i] (one colour: no two share a vertex, so the
    scatter needs no atomics) or i itself when elems is NULL (the whole term: values, element
    Hessians, or the atomic scatter). */
typedef struct {
  MfadLoop    L;          /**< conn, params, weight, x, v, y (device); the colour fields are unused */
  const int  *elems;      /**< n element ids of this launch, or NULL: elements 0 .. n-1 */
  int         n;          /**< elements (threads) of this launch */
  double     *elem_value; /**< per-element weighted energies (value, gradient), or NULL */
  double     *elem_out;   /**< gather scatter: element e's weighted outputs at e * N (gradient, HVP, diagonal) instead of adds into y; NULL otherwise */
  int         atomic;     /**< 1: scatter with atomicAdd (comparison only; not deterministic) */
  int         psd;        /**< element Hessians: PSD projection (MfadPSDProjection) */
  double      psd_eps;    /**< its smallest eigenvalue */
  void       *stream;     /**< cudaStream_t */
  /* the projection, by the backend's batched eigensolver (src/cuda/psd.cu): psd_work holds n
     matrices of dim x dim (row-major), then their projections, then the eigenvalues; psd_project
     projects the first into the second, loading them from y first (from_y) and storing the
     projections back in y (full or packed), or leaving them in psd_work for a pull-back */
  double *psd_work;                                                         /**< n (2 dim^2 + dim) doubles */
  int (*psd_project)(const void *launch, int dim, int packed, int from_y); /**< 0 or a CUDA error */
  void *psd_ctx;                                                            /**< the backend's */
} MfadCudaLaunch;

/** Returns a cudaError_t (0: launched). */
typedef int (*MfadCudaLaunchFn)(const MfadCudaLaunch *);

/** The CUDA entry points of one energy (mfad/impl/loop_cuda.h, compiled by nvcc from the same energy
    header and the same element bodies as the CPU loops). */
struct _n_MfadCudaKernel {
  MfadCudaLaunchFn value;          /**< elem_value[e] = w E_e */
  MfadCudaLaunchFn gradient;       /**< elem_value[e] = w E_e, y += w grad E_e */
  MfadCudaLaunchFn hvp;            /**< y += w H_e v_e */
  MfadCudaLaunchFn diagonal;       /**< y += w diag(H_e) */
  MfadCudaLaunchFn blockdiag;      /**< y[vertex * dof * dof ...] += w vertex blocks of H_e */
  MfadCudaLaunchFn hessian;        /**< y[e * N * N ...] = w H_e (projected), the COO value layout */
  MfadCudaLaunchFn hessian_packed; /**< y[e * N (N + 1) / 2 ...] = upper triangle of w H_e (projected), symmetrised */
  /* a residual's own operators (MfadResidualKernel's cpu_ loops on the device; NULL for a scalar energy) */
  MfadCudaLaunchFn res_residual; /**< y[row(e) m + i] = sqrt(w) r_e,i */
  MfadCudaLaunchFn res_jvp;      /**< y[row(e) m + i] = sqrt(w) (J_e v_e)_i */
  MfadCudaLaunchFn res_vjp;      /**< y += sqrt(w) J_e^T w[row(e) m ...] (L.w), scattered */
  MfadCudaLaunchFn res_jacobian; /**< y[e m N ...] = sqrt(w) J_e */
  MfadCudaLaunchFn res_jtv;      /**< systems: y += w J_e^T v_e (NULL for least squares) */
};

/** The residual entry points of a kernel whose element function has m outputs. The kernel's scalar
    entry points then serve its sum: least squares (1/2 |r_e|^2, J^T r_e, J^T J v_e, J^T J) or a
    system (no value, r_e, J_e v_e, J_e). Weights: a least-squares term of weight w stacks sqrt(w) r_e. */
struct _n_MfadResidualKernel {
  /** One element, host only (tests): r receives r_e (m); out receives J_e v_e (m), J_e (m x N),
      J_e^T w_e (N, w_e in v) or J_e^T J_e v_e (N), by mode. */
  void (*element)(MfadResidualMode mode, const double *x, const double *v, const double *params, double *r, double *out);
  MfadLoopFn cpu_residual; /**< y[row(e) m + i] = sqrt(w) r_e,i */
  MfadLoopFn cpu_jvp;      /**< y[row(e) m + i] = sqrt(w) (J_e v_e)_i */
  MfadLoopFn cpu_vjp;      /**< y += sqrt(w) J_e^T w[row(e) m ...], scattered to the element's unknowns */
  MfadLoopFn cpu_jacobian; /**< y[e m N ...] = sqrt(w) J_e (loop order) */
  MfadLoopFn cpu_jtv;      /**< y += w J_e^T v_e (systems: the transpose product) */
};

/** A compiled element energy. Instances are generated by mfad/impl/instantiate.h (one per energy,
    from one header under energies/ and one mfad_add_energy() line in CMake). */
struct _n_MfadKernel {
  const char *name;        /**< energy name, e.g. "neohookean_tet" */
  const char *description; /**< formula and source, for -mfad_view */
  int         nvert;       /**< vertices per element */
  int         dof;         /**< unknowns per vertex */
  int         nparam;      /**< parameters per element */
  int         rest_dim;    /**< coordinates per vertex in a rest shape (0: no rest-shape set-up) */
  int         nmaterial;   /**< material constants taken by rest-shape set-up */
  /** Parameters of one element from its rest shape (nvert * rest_dim) and material constants;
      returns 0, or a positive code: 1 degenerate (zero or tiny size), 2 inverted. */
  int (*rest)(const double *rest, const double *material, double *params);
  /** One element in any mode, host only (tests, diagnostics): x, v, params of the element;
      value receives E_e (unweighted), out receives N (gradient, HVP, diagonal) or N * N (Hessian) entries. */
  void (*element)(MfadMode mode, const double *x, const double *v, const double *params, double *value, double *out);
  /** Flops of one element in each mode, counted by running the energy once on this element. */
  void (*flops)(const double *x, const double *params, double flops[MFAD_MODE_COUNT]);
  /* CPU element loops (OpenMP) */
  MfadLoopFn cpu_value;      /**< block_value */
  MfadLoopFn cpu_gradient;   /**< block_value, y += grad */
  MfadLoopFn cpu_hvp;        /**< y += H v */
  MfadLoopFn cpu_diagonal;   /**< y += diag(H) */
  MfadLoopFn cpu_blockdiag;  /**< y[vertex * dof * dof ...] += vertex blocks of H */
  MfadLoopFn cpu_hessian;    /**< y[e * N * N ...] = H_e (weighted), block_value */
  /** CUDA entry points, NULL where nvcc did not compile this energy (no CUDA, or NO_CUDA). */
  const struct _n_MfadCudaKernel *cuda;
  /** The first ncellvert vertices of an element are its geometric cell (VTK output); the others
      are auxiliary unknowns, e.g. arap_surface's rotation nodes. Equals nvert for most energies. */
  int ncellvert;
  int                                     nout;     /**< residuals: outputs per element (0: a scalar energy) */
  MfadSum                                 sum;      /**< how element outputs are summed */
  const struct _n_MfadResidualKernel     *residual; /**< residual entry points, NULL for a scalar energy */
  /** AD at nfeat features f = B(p) x (0: at the N unknowns): its cpu_hessian projects the feature
      Hessian when MfadLoop's psd is set, and its CUDA hessian entries when the launch's psd is */
  int nfeat;
  /** 1: its gradient and HVP run forward-over-reverse, at the features or (none declared) at the unknowns
      (mfad-energy wrote an adjoint sweep; mfad/impl/ad_reverse.h), 0: forward-over-forward */
  int reverse;
  /** The element's largest valid step (the energy's .step, NULL if it declares none): the t at which
      x + t d first leaves the energy's domain (a flip, an inversion), +inf if it never does; host. */
  double (*step)(const double *x, const double *d, const double *params);
  /** The projection the solver defaults give this energy (its .projection: 1 clamp, 2 abs, 0 not said) */
  int projection;
  /** The modes whose CPU loops run on SIMD lanes (mfad/impl/loop_cpu_lanes.h; bits: 1 gradient, 2 HVP,
      4 value, 8 element Hessian, 16 Hessian diagonal), as compiled: 0 where mfad-energy wrote no lanes
      body or the target has no 256-bit registers (-mfad_view says which) */
  int lanes;
};

#ifdef __cplusplus
}
#endif

#endif /* MFAD_KERNEL_H */
