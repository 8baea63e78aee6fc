// SPDX-License-Identifier: BSD-2-Clause
/* mfad private structures: the library's own files include this; users and examples never do. */
#ifndef MFADIMPL_H
#define MFADIMPL_H

#include <mfad.h>
#include <mfad/impl/kernel.h> /* the complete kernel struct: the library is the machinery's other half */
#include <petscis.h>
#include <petsc/private/petscimpl.h> /* PETSCHEADER: MfadEnergy is a PetscObject */
#include "mfadcompat.h"
#include "mfadshared.h" /* what shell/ calls too */

#define MFAD_NAME_LEN      64
#define MFAD_MATERIAL_MAX  16 /* material constants a kernel may take */
/* -mfad_direct_solve_limit's default (shell/defaults.c) */
#define MFAD_DIRECT_SOLVE_LIMIT 1000000

typedef struct _n_MfadContactTerms *MfadContactTerms;
/* src/contactterms.c */
PETSC_INTERN PetscErrorCode MfadEnergyDestroyContact_Private(MfadEnergy E);
PETSC_INTERN PetscErrorCode MfadEnergyGetContactSurface_Private(MfadEnergy E, PetscInt *pt, PetscInt *ee, PetscInt *nv, const PetscInt **gid);

typedef enum { MFAD_OP_VALUE, MFAD_OP_GRADIENT, MFAD_OP_HVP, MFAD_OP_DIAGONAL, MFAD_OP_BLOCKDIAG, MFAD_OP_COUNT } MfadOp;

/* Owned fixed rows of a global output (src/compute.c): what each operation puts there */
typedef enum { MFAD_FIXED_RESIDUAL, MFAD_FIXED_IDENTITY, MFAD_FIXED_ONE, MFAD_FIXED_ZERO } MfadFixedRows;

/* A backend's operations, the table its create function fills (MfadEnergyRegister(), src/backend.c;
   the CPU's in src/cpu.c, CUDA's in src/cuda/backend.cu). The core does the ghost exchange and
   calls these; the data stays where the backend keeps it (E->data: the backend's own state). The
   life-cycle entries may be NULL (nothing to do); a NULL compute entry is an error naming the
   backend and the entry when a computation needs it (MfadBackendCall). */
struct _n_MfadPairPattern; /* MfadPairPattern, below */
typedef struct {
  /* life cycle: after MfadEnergySetUp() built the local numbering and vectors; when it is dropped
     (MfadEnergyReset_Private: copies of the set-up kept by the backend go); when term `term`
     gets a new element set (src/dynamic.c: copies of its connectivity and parameters go); when
     the energy is destroyed or changes type (E->data goes) */
  PetscErrorCode (*setup)(MfadEnergy E);
  PetscErrorCode (*reset)(MfadEnergy E);
  PetscErrorCode (*termchanged)(MfadEnergy E, PetscInt term);
  PetscErrorCode (*destroy)(MfadEnergy E);
  /* xloc holds X (owned and ghost values): check it is finite (-mfad_check_finite), keep the owned
     fixed dofs' penalty 1/2 |x - value|^2 for the next value, put the fixed values in */
  PetscErrorCode (*localfix)(MfadEnergy E);
  /* operation op of every term at xloc: into yloc (gradient, HVP of vloc, whose fixed entries it
     zeroes; diagonal) or blockloc, zeroed first; value (value, gradient): the rank's energy and penalty */
  PetscErrorCode (*runterms)(MfadEnergy E, MfadOp op, PetscReal *value);
  /* the owned fixed rows of the global output Y (X: the point, or the product's V) */
  PetscErrorCode (*fixedrows)(MfadEnergy E, Vec Y, MfadFixedRows rows, Vec X);
  /* the type of xloc, vloc and yloc */
  PetscErrorCode (*localvectype)(MfadEnergy E, VecType *type);
  /* the element-Hessian cache at X (kept while the point and settings hold) and a product
     (MFAD_OP_HVP: yloc <- H vloc, zeroing vloc's fixed entries), diagonal or block diagonal from it */
  PetscErrorCode (*cache)(MfadEnergy E, Vec X);
  PetscErrorCode (*cachedrun)(MfadEnergy E, MfadOp op);
  /* the COO values of the assembled Hessian at X, where a `device` matrix (cuSPARSE) can take them */
  PetscErrorCode (*hessianvalues)(MfadEnergy E, Vec X, PetscBool device, const PetscScalar **values);
  /* optional: the merged values of the assembled Hessian at X, each vertex pair's sum of element
     blocks (vals: pat->npair dof^2), without holding the element Hessians (the CPU's, src/pattern.c);
     NULL: hessianvalues, then the pair sum from them */
  PetscErrorCode (*hessianpairs)(MfadEnergy E, Vec X, const struct _n_MfadPairPattern *pat, double *vals);
  /* residual terms (src/residual.c): a system's transpose product yloc <- J^T vloc (zeroing vloc's
     fixed entries); the stacked least-squares residual R <- r(xloc), its Jacobian's product
     R <- J vloc (zeroing vloc's fixed entries) and transpose product yloc <- J^T R (yloc zeroed
     first); the Jacobian's values, each least-squares term's sqrt(w) J_e (m x N row-major, loop order) */
  PetscErrorCode (*transposeproduct)(MfadEnergy E);
  PetscErrorCode (*residual)(MfadEnergy E, Vec R);
  PetscErrorCode (*residualjvp)(MfadEnergy E, Vec R);
  PetscErrorCode (*residualvjp)(MfadEnergy E, Vec R);
  PetscErrorCode (*residualjacobian)(MfadEnergy E, PetscScalar values[]);
} MfadBackendOps;

/* What a backend's create function sets besides its operations: the defaults the options override */
typedef struct {
  PetscBool coo_merge; /* -mfad_coo_merge's default: values on the host, merged per vertex pair */
  PetscBool atomic;    /* -mfad_scatter's default: atomics (else coloured blocks) */
} MfadBackendDefaults;

/* PetscCall((E)->ops->op args), or an error naming the backend and the entry where it has none
   (`what`: the operation, for the message) */
#define MfadBackendCall(E, op, what, args) \
  do { \
    PetscCheck((E)->ops->op, PetscObjectComm((PetscObject)(E)), PETSC_ERR_SUP, "backend '%s' has no %s (op %s): use -mfad_backend cpu", \
               ((PetscObject)(E))->type_name, what, #op); \
    PetscCall((E)->ops->op args); \
  } while (0)

/* Threaded element loops, by operation (src/compute.c, docs/threads.md): the MfadOp ones, then these */
typedef enum {
  MFAD_SITE_HESSIANS = MFAD_OP_COUNT,
  MFAD_SITE_CACHED_HVP,
  MFAD_SITE_CACHED_DIAGONAL,
  MFAD_SITE_CACHED_BLOCKDIAG,
  MFAD_SITE_FUSEDSUM,
  MFAD_SITE_CSRFILL, /* the assembled values' copy into an aij matrix (src/assemble_csr.c) */
  MFAD_SITE_COUNT
} MfadThreadSite;
/* measured seconds per element of one site on one thread (sec[0]) and on all (sec[1]; 0: not yet) */
typedef struct {
  double sec[2];
  int    warm; /* one-thread runs so far, up to 2: the first (cold caches, first touch) is not timed */
  int    calls, interval, probe;
  double sampled; /* when other processes' running threads were last counted (src/threads.c) */
  int    others;  /* how many there were */
  int    busy;    /* counts in a row that found others */
} MfadThreadChoice;

/* Identifies the point and the settings that explicit element Hessians were computed for. */
typedef struct {
  PetscBool         valid;
  PetscObjectId     id;
  PetscObjectState  state;
  PetscInt          fixed_count, setup_count, elements_state;
  MfadPSDProjection psd;
  PetscReal         psd_eps;
} MfadHessianKey;

typedef struct {
  char        name[MFAD_NAME_LEN];
  MfadKernel  k;
  PetscInt    nelem;
  PetscInt   *conn_global; /* nelem * nvert global vertex ids, in the caller's element order */
  double     *params;      /* nelem * nparam, in the loop's element order once set up */
  PetscReal   weight;
  int         nmaterial; /* the material constants the rest-shape set-up read (-mfad_view) */
  PetscReal   material[MFAD_MATERIAL_MAX];
  /* set up */
  int        *conn;        /* local vertex ids, in the loop's element order */
  int        *voff;        /* conn * dof * sizeof(double), for a kernel with SIMD lanes (MfadLoop.voff), else NULL */
  PetscInt   *order;       /* loop element e is the caller's element order[e] */
  int         nblocks, ncolors;
  int        *block_start, *color_start, *color_blocks;
  double     *block_value;
  int         parallel;    /* some colour has 2 or more blocks: threads have work */
  int        *row;         /* least squares: loop element e's rows are (this term's first row) + row[e] * nout */
  PetscBool   flops_known;
  double      flops[MFAD_MODE_COUNT]; /* per element, by MfadMode */
  /* dynamic element sets (src/dynamic.c) */
  PetscErrorCode (*elements_fn)(MfadEnergy, PetscInt, Vec, void *);
  void       *elements_ctx;
  PetscInt    nupdates;    /* element sets given by MfadEnergySetTermElements() */
} MfadTerm;

/* The energy's parts, each with one owner and one lifetime, so that a change to one concern reads
   one of them: what the user chose (setters, the options table: kept across set-ups), what
   MfadEnergySetUp() builds from the terms and the layout (rebuilt by a new set-up), the explicit
   Hessians and their caches (valid for one point and one set of settings: MfadHessianKey), the state
   of the solve in progress (shell/: the projection switch, Newton-CG, step cuts) and the dynamic
   element sets' counts. */

/* What the user chose: MfadEnergySet...() and the options table (src/options.c) */
typedef struct {
  PetscInt          nthreads, block_size;
  PetscBool         atomic, reorder, check_finite, from_options;
  PetscBool         lanes;                    /* -mfad_lanes: the CPU gradient/HVP on SIMD lanes where the energy has them */
  PetscBool         cuda_sync;                /* -mfad_cuda_sync: the CUDA backend synchronises after each launch */
  PetscBool         scatter_set;              /* -mfad_scatter given: else colours on the CPU, atomics on the GPU */
  PetscBool         gather;                   /* -mfad_scatter gather: the GPU's element outputs summed per dof (colours elsewhere) */
  PetscBool         coo_merge_set, coo_merge; /* MfadEnergySetCOOMerge() (else the backend's default) */
  PetscBool         assemble_csr, vtu_binary; /* MfadEnergySetAssembleCSR(), MfadEnergySetVTUBinary() */
  MfadPSDProjection psd_user;                 /* the projection set (the solve's psd, unless a SNES solve switched it off: psd_steps) */
  PetscReal         psd_eps;
  PetscInt          psd_steps;       /* -mfad_psd_switch steps: project in the first psd_steps Newton steps (-1: not set) */
  MfadPSDSwitch     psd_switch;      /* how a Newton solve chooses between the projected and the exact Hessian (shell/psdswitch.c) */
  PetscBool         psd_chosen;      /* the projection was set by MfadEnergySetPSDProjection() or -mfad_psd_project (not a solver default) */
  PetscBool         solver_defaults; /* -mfad_solver_defaults: SNES/TAO get mfad's solver where the user chose none (shell/defaults.c) */
  PetscInt          direct_limit;    /* -mfad_direct_solve_limit: the most unknowns that default factors */
  PetscBool         step_bound;      /* -mfad_step_bound: SNES's line search starts short of the first wall */
  PetscInt          ls_memory;       /* -mfad_line_search_memory: the nonmonotone full step's reference (shell/nonmonotone.c) */
  PetscReal         decrement_rtol;  /* -mfad_decrement_rtol: SNES and TAO converged at a Newton decrement below rtol |E| (0: off) */
  PetscBool         newton_cg;       /* -mfad_newton_cg: SNES's Newton-CG preconditioned by the projected Hessian's factor (shell/newtoncg.c) */
  PetscInt          hessian_type, pmat_type; /* MfadEnergySetHessianType() (shell/forms.c; -1: not set in code) */
  PetscReal         damping;                 /* lambda I added to every Hessian (Jacobian) form: Levenberg-Marquardt */
} MfadEnergyOptions;

/* What MfadEnergySetUp() builds (src/setup.c): the local layout, and which point it holds */
typedef struct {
  PetscBool              done, fixed_done;
  PetscInt               count;          /* set-ups so far: an assembled matrix's pattern belongs to one */
  PetscInt               fixed_count;    /* fixed-dof set-ups so far: fixed values are part of the point */
  PetscInt               nghost, nlocal; /* local vertices: owned first, then ghosts */
  PetscInt              *ghosts;         /* global ids of ghosts, sorted */
  ISLocalToGlobalMapping ltog;           /* vertex-blocked, bs = dof */
  Vec                    xglob;          /* layout template */
  Vec                    xloc, vloc, yloc;
  VecScatter             scatter;          /* global -> local, blocked by dof */
  VecScatter             ghostscatter;     /* global -> the local ghost entries alone (host local vectors, some rank with ghosts) */
  double                *blockloc;         /* nlocal * dof * dof */
  PetscInt               nfixloc, nfixown; /* fixed local dofs (owned ones first) */
  PetscInt              *fixloc;
  PetscReal             *fixval;
  /* which point xloc holds */
  PetscObjectId    xid;
  PetscObjectState xstate;
  PetscBool        xvalid;
  PetscBool        domain_error;
  PetscReal        fixpen; /* the owned fixed dofs' penalty at that point, where the host holds it */
  /* no rank has ghosts and the local vectors are the host's: each rank's local entries are its own
     in order, and an operation's V and Y lend vloc and yloc their arrays (src/compute.c) */
  PetscBool          inplace;
  Vec                vlent, ylent; /* the vectors whose arrays vloc and yloc hold now, or NULL */
  const PetscScalar *varray;
  PetscScalar       *yarray;
} MfadEnergyLocal;

/* Explicit Hessians (src/hessian.c, src/assemble.c, src/cached.c), each for the point its key names */
typedef struct {
  double        *hess;              /* COO values: each term's weighted N x N element Hessians, then 1 per owned fixed dof */
  PetscCount     nhess, hess_cap;   /* hess's size (0: to be laid out) and room */
  MfadHessianKey hess_key;          /* the point hess holds */
  double        *cache;             /* packed element Hessians (upper triangle by rows) of every term */
  PetscCount     ncache, cache_cap; /* cache's size (-1: to be laid out) and room */
  MfadHessianKey cache_key;
  const double  *pairs;         /* the merged values a fused assembly (hessianpairs) wrote last: a matrix's */
  MfadHessianKey pairs_key;     /* the point they are for */
  double        *chunk;         /* full element Hessians of a few blocks, while the cache is built */
  PetscInt       nchunk;        /* doubles of one thread's chunk (the largest chunk's full Hessians) */
  int            chunk_threads; /* threads chunk has room for */
  int           *chunk_start;   /* block offsets of one chunk, rebased to its first element */
  double        *chunk_value;   /* block energies of one chunk (unused) */
  PetscInt       nchunk_blocks;
} MfadEnergyCaches;

/* The Newton solve in progress (shell/psdswitch.c, shell/newtoncg.c, SNES's pre-check) */
typedef struct {
  MfadPSDProjection psd;            /* the projection in use now */
  PetscInt          psd_left;       /* -mfad_psd_switch steps: projected steps left in this solve */
  PetscBool         psd_exact_last; /* the last Newton step used the exact Hessian */
  PetscInt          psd_nexact, psd_nfallback; /* this solve's exact steps and exact tries that fell back (MfadEnergyGetPSDSwitchCounts()) */
  PetscInt ncg_nfallback, ncg_nescape; /* this solve's Newton-CG steps replaced by the projected one, and escapes (MfadEnergyGetNewtonCGCounts()) */
  PetscInt step_cuts;                  /* steps SNES's pre-check cut at a wall or the contact bound */
} MfadEnergySolve;

/* Dynamic element sets (src/dynamic.c) */
typedef struct {
  PetscInt  elements_state; /* element-set changes so far: explicit Hessians and matrix patterns belong to one */
  PetscInt  elements_term;  /* the term changed last (-1: none), for messages */
  PetscInt  nelem_updates, nghost_rebuilds, npattern_builds, npattern_kept; /* counts for -mfad_view */
  PetscBool updating;                                                       /* inside MfadEnergyUpdateElements(): a provider is running */
} MfadEnergyDynamic;

/* A PetscObject (PetscHeaderCreate): reference counts, prefixes, names, -info and -log_view as for
   any PETSc object; ops[0] is the backend's table (MfadEnergySetType(), src/backend.c) */
struct _p_MfadEnergy {
  PETSCHEADER(MfadBackendOps);
  PetscInt  dof, n, N, rstart; /* owned vertices [rstart, rstart + n) */
  PetscInt  nterms, maxterms;
  MfadTerm *terms;
  /* fixed dofs as given on this rank */
  PetscInt                    nfix_given;
  PetscInt                   *fix_given;
  PetscReal                  *fix_given_val;
  struct _n_MfadContactTerms *contact;          /* MfadEnergyAddContact() (src/contactterms.c), or NULL */
  void                       *data;             /* the backend's own state (the CUDA backend's device copies), or NULL */
  MfadBackendDefaults         backend_defaults; /* set by the backend's create */
  MfadEnergyOptions           opt;
  MfadEnergyLocal             local;
  MfadEnergyCaches            caches;
  MfadEnergySolve             solve;
  MfadEnergyDynamic           dyn;
  /* the thread policy (src/threads.c) */
  PetscInt         threads_used;             /* the most threads an element loop was given (MfadEnergyGetNumThreadsUsed()) */
  MfadThreadChoice threads[MFAD_SITE_COUNT]; /* default thread count: which loops threads pay for */
};

/* The vertex-pair pattern of the assembled Hessian (src/pattern.c): CSR over local vertices, and
   each element block's pair (its index into col) */
typedef struct _n_MfadPairPattern {
  PetscInt    nrow, npair;
  PetscInt   *row_start, *col; /* local vertex ids, each row sorted */
  PetscInt   *slot;            /* term t, element e, block (a, b): slot[slot_start[t] + (e nv + a) nv + b] */
  PetscCount *slot_start;
  PetscCount  slot_cap; /* slot's allocated length: element-set updates rewrite it in place */
} MfadPairPattern;
PETSC_INTERN PetscErrorCode MfadPairPatternCreate_Private(MfadEnergy, MfadPairPattern *);
PETSC_INTERN PetscErrorCode MfadPairPatternDestroy_Private(MfadPairPattern *);
PETSC_INTERN PetscErrorCode MfadPairPatternSum_Private(MfadEnergy, const MfadPairPattern *, const double *, double *);
PETSC_INTERN PetscErrorCode MfadEnergyHessianPairs_CPU(MfadEnergy, Vec, const MfadPairPattern *, double *);
/* aij preallocated from the pair pattern's CSR and filled in place, on any number of ranks (src/assemble_csr.c) */
typedef struct _n_MfadMatCSR *MfadMatCSR;
PETSC_INTERN PetscErrorCode MfadMatCSRCreate_Private(MfadEnergy, Mat, PetscBool, const MfadPairPattern *, const char *, MfadMatCSR *);
PETSC_INTERN PetscErrorCode   MfadMatCSRFill_Private(MfadMatCSR, Mat, const MfadPairPattern *, const double *, int);
PETSC_INTERN PetscErrorCode MfadMatCSRDestroy_Private(MfadMatCSR *);

PETSC_INTERN PetscLogEvent MFAD_Events[MFAD_OP_COUNT], MFAD_SetUpEvent;
PETSC_INTERN PetscLogEvent MFAD_GhostEvent, MFAD_ElementsEvent, MFAD_ElementSetEvent; /* ghost exchange, element loops, a new element set (src/dynamic.c) */
/* src/options.c: the view's line of options */
PETSC_INTERN PetscErrorCode MfadEnergyViewOptions_Private(MfadEnergy E, PetscViewer viewer);
PETSC_INTERN PetscErrorCode MfadInitializePackage(void);
/* MfadEnergyAddTerm() and MfadEnergyAddTermFromRest() for callers that know the global number of
   this rank's first element (`first`, -1: not known), which messages then name (energy.c) */
PETSC_INTERN PetscErrorCode MfadEnergyAddTerm_Private(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[], const PetscReal params[],
                                                      PetscReal weight, PetscInt first, PetscInt *term);
PETSC_INTERN PetscErrorCode MfadEnergyAddTermFromRest_Private(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[],
                                                              const PetscReal rest[], const PetscReal material[], PetscReal weight, PetscInt first,
                                                              PetscInt *term);
/* the ...WithMaterial calls: `nmaterial` constants given, the kernel reads k->nmaterial (energy.c) */
PETSC_INTERN PetscErrorCode MfadEnergyCheckMaterialCount_Private(MfadEnergy E, MfadKernel k, const char caller[], PetscInt nmaterial,
                                                                 const PetscReal material[]);
/* collective: every rank passes the same whole mesh (meshenergy.c) */
struct _n_MfadMesh;
PETSC_INTERN PetscErrorCode MfadMeshCheckSameOnRanks_Private(MPI_Comm comm, struct _n_MfadMesh *mesh, const char caller[]);
PETSC_INTERN PetscErrorCode MfadColourBlocks_Private(PetscInt nelem, int nvert, const int conn[], PetscInt nvertices, PetscInt block_size, int *nblocks,
                                                     int **block_start, int *ncolors, int **color_start, int **color_blocks);
PETSC_INTERN PetscErrorCode MfadEnergySetUpFixed_Private(MfadEnergy E);
/* src/setup.c, shared with the dynamic element sets (src/dynamic.c) */
PETSC_INTERN PetscErrorCode MfadEnergySetUpGhosts_Private(MfadEnergy E, PetscInt nghost, PetscInt *ghosts);
PETSC_INTERN PetscErrorCode MfadTermSetUpLocal_Private(MfadEnergy E, MfadTerm *term);
PETSC_INTERN PetscErrorCode MfadTermResetLocal_Private(MfadTerm *term);
PETSC_INTERN PetscErrorCode MfadTermSetOffsets_Private(MfadEnergy E, MfadTerm *term);
PETSC_INTERN PetscErrorCode MfadEnergyCollectGhosts_Private(MfadEnergy E, PetscInt *nghost, PetscInt **ghosts);

/* src/backend.c: the backend registry (MfadEnergyRegister(); src/backends.h lists the built-in
   ones). A backend's create function may look up another's here to wrap it. */
PETSC_EXTERN PetscFunctionList MfadEnergyList;
PETSC_INTERN PetscErrorCode    MfadEnergyRegisterAll_Private(void);
PETSC_INTERN PetscErrorCode    MfadEnergyRegisterDestroy_Private(void);
PETSC_INTERN PetscErrorCode    MfadEnergyGetTypeNames_Private(const char **names); /* "cpu, cuda, ...": for messages and -help */
PETSC_INTERN PetscErrorCode    MfadEnergyReset_Private(MfadEnergy E); /* src/energy.c: drops what MfadEnergySetUp() built */
/* the built-in backends' create functions */
#define MFAD_BACKEND(name, create) PETSC_INTERN PetscErrorCode create(MfadEnergy E);
#include "backends.h"
#undef MFAD_BACKEND

/* src/cpu.c and the files named: the CPU backend's entries */
PETSC_INTERN PetscErrorCode MfadEnergyLocalFix_CPU(MfadEnergy E);
PETSC_INTERN PetscErrorCode MfadEnergyFixedRows_CPU(MfadEnergy E, Vec Y, MfadFixedRows rows, Vec X);
PETSC_INTERN PetscErrorCode MfadEnergyHessianCache_CPU(MfadEnergy E, Vec X);          /* src/cached.c */
PETSC_INTERN PetscErrorCode MfadEnergyCachedRun_CPU(MfadEnergy E, MfadOp op);         /* src/cached.c */
PETSC_INTERN PetscErrorCode MfadEnergyHessianValues_CPU(MfadEnergy E, Vec X, PetscBool device, const PetscScalar **values); /* src/assemble.c */
PETSC_INTERN PetscErrorCode MfadEnergyTransposeProduct_CPU(MfadEnergy E);                                                   /* src/residual.c */
PETSC_INTERN PetscErrorCode MfadEnergyResidual_CPU(MfadEnergy E, Vec R);                                                    /* src/residual.c */
PETSC_INTERN PetscErrorCode MfadEnergyResidualJVP_CPU(MfadEnergy E, Vec R);                                                 /* src/residual.c */
PETSC_INTERN PetscErrorCode MfadEnergyResidualVJP_CPU(MfadEnergy E, Vec R);                                                 /* src/residual.c */
PETSC_INTERN PetscErrorCode MfadEnergyResidualJacobian_CPU(MfadEnergy E, PetscScalar values[]);                             /* src/residual.c */

/* src/compute.c, shared with the explicit Hessians */
PETSC_INTERN PetscErrorCode MfadEnergyNotFinite_Private(MfadEnergy E, PetscInt i, PetscReal bad);
PETSC_INTERN PetscErrorCode MfadEnergyCheckVec_Private(MfadEnergy E, Vec X, int arg, const char *what);
PETSC_INTERN PetscErrorCode MfadEnergyGlobalToLocal_Private(MfadEnergy E, Vec X);
PETSC_INTERN PetscErrorCode MfadEnergyLocalBegin_Private(MfadEnergy E, Vec V, Vec Y);
PETSC_INTERN PetscErrorCode MfadEnergyLocalToGlobal_Private(MfadEnergy E, Vec Y, MfadFixedRows rows, Vec X);
PETSC_INTERN PetscErrorCode MfadEnergyBlocksLocalToGlobal_Private(MfadEnergy E, PetscScalar blocks[]);
PETSC_INTERN void           MfadTermLoop_Private(MfadEnergy E, const MfadTerm *term, const double *x, const double *v, double *y, MfadLoop *L);

/* src/threads.c: how many threads an element loop gets (docs/threads.md) */
PETSC_INTERN int            MfadEnergyThreads_Private(MfadEnergy E);
PETSC_INTERN int            MfadThreadsBegin_Private(MfadEnergy E, int site, PetscCount nelem, double *t0);
PETSC_INTERN void           MfadThreadsEnd_Private(MfadEnergy E, int site, int nt, PetscCount nelem, double t0);
PETSC_INTERN void           MfadThreadsRestart_Private(double *t0);

/* src/residual.c: residual terms (least squares, systems) */
PETSC_INTERN PetscLogEvent  MFAD_ResidualEvent, MFAD_ResidualJacobianEvent, MFAD_TransposeEvent;
PETSC_INTERN PetscErrorCode MfadEnergyPrepare_Private(MfadEnergy E, Vec X, const char *what);
PETSC_INTERN PetscErrorCode MfadEnergyDampMatrix_Private(MfadEnergy E, Mat A);
/* src/energypred.c: an operation the energy does not have (no objective: a system term; not
   symmetric) is an error naming the term */
PETSC_INTERN PetscErrorCode MfadEnergyCheckObjective_Private(MfadEnergy E, const char *what);
PETSC_INTERN PetscErrorCode MfadEnergyCheckSymmetric_Private(MfadEnergy E, const char *what);

/* src/hessian.c: element Hessians for assembly and the cache */
PETSC_INTERN PetscLogEvent  MFAD_ElementHessianEvent, MFAD_AssembleEvent, MFAD_CachedMultEvent, MFAD_PatternEvent;
PETSC_INTERN PetscErrorCode MfadEnergyHessianKey_Private(MfadEnergy E, Vec X, MfadHessianKey *key);
PETSC_INTERN PetscBool      MfadHessianKeyEqual_Private(const MfadHessianKey *a, const MfadHessianKey *b);
PETSC_INTERN PetscErrorCode MfadTermElementHessians_Private(MfadEnergy E, const MfadTerm *term, int b0, int b1, const double *x, double *H);
PETSC_INTERN void           MfadTermElementHessiansSpan_Private(MfadEnergy E, const MfadTerm *term, int e0, int e1, const double *x, double *H);
PETSC_INTERN void           MfadPSDProjectElements_Private(int n, int ne, double *H, int mode, double eps, int nt, int lanes);
PETSC_INTERN void           MfadTermElementHessiansRange_Private(MfadEnergy E, const MfadTerm *term, int b0, int b1, const double *x, double *H, int nt, int *start, double *value);
PETSC_INTERN PetscErrorCode MfadEnergyResetHessians_Private(MfadEnergy E, PetscBool keep);
PETSC_INTERN PetscCount     MfadPackedSize_Private(int N);
PETSC_INTERN PetscErrorCode MfadEnergyHessianWork_Private(MfadEnergy E);
PETSC_INTERN PetscErrorCode MfadEnergyUnpackCache_Private(MfadEnergy E, double *H); /* src/cached.c */

#define MfadValidEnergy(E, arg) \
  do { \
    PetscCheck((E) && ((PetscObject)(E))->classid == MFAD_CLASSID, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Argument %d is not a valid MfadEnergy (NULL or destroyed)", arg); \
  } while (0)

/* The scatter in force: -mfad_scatter where given; else the backend's: coloured blocks on the CPU
   (locality, deterministic) and atomics on the GPU (the fused HVP 2.8x faster than 30 colour
   launches on an H100 at 1M tets, docs/gpu.md) */
static inline PetscBool MfadEnergyAtomicScatter_Private(MfadEnergy E) { return E->opt.scatter_set ? E->opt.atomic : E->backend_defaults.atomic; }
/* -mfad_scatter gather: on the GPU, the gradient, fused HVP and diagonal write each element's
   outputs and a second kernel sums each dof's in element order (libCEED's restriction transpose):
   deterministic without colours; the CPU, the block diagonal and the cache's products then use colours */
static inline PetscBool MfadEnergyGatherScatter_Private(MfadEnergy E) { return E->opt.scatter_set && E->opt.gather ? PETSC_TRUE : PETSC_FALSE; }

/* What a term is: a least-squares residual (w/2 |r|^2), a nonlinear-system residual (F(x) = 0), else an energy */
/* src/residual.c: the local rows of every least-squares term and each term's first (offset[t]) */
PETSC_INTERN PetscErrorCode MfadEnergyResidualRows_Private(MfadEnergy E, PetscInt *nrows, PetscInt offset[]);
static inline PetscBool MfadTermIsLeastSquares_Private(const MfadTerm *t)
{
  return t->k->nout > 0 && t->k->sum == MFAD_SUM_LEAST_SQUARES ? PETSC_TRUE : PETSC_FALSE;
}
static inline PetscBool MfadTermIsSystem_Private(const MfadTerm *t)
{
  return t->k->nout > 0 && t->k->sum == MFAD_SUM_SYSTEM ? PETSC_TRUE : PETSC_FALSE;
}
/* the first system term, or -1 */
static inline PetscInt MfadEnergyFirstSystemTerm_Private(MfadEnergy E)
{
  for (PetscInt t = 0; t < E->nterms; t++)
    if (MfadTermIsSystem_Private(&E->terms[t])) return t;
  return -1;
}
/* -mfad_coo_merge where set (MfadEnergySetCOOMerge()), else the backend's default */
static inline PetscBool MfadEnergyCOOMerge_Private(MfadEnergy E) { return E->opt.coo_merge_set ? E->opt.coo_merge : E->backend_defaults.coo_merge; }

#endif
