// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad.h
  @brief mfad core API: an energy summed over element terms on a distributed vertex set, with
         its value, gradient, exact Hessian-vector products, Hessian diagonal and vertex blocks.

  Vectors are PETSc Vecs with `dof` entries per vertex, vertices owned in a contiguous PETSc
  layout (entry vertex * dof + d). Fixed (Dirichlet) dofs keep prescribed values: the energy is
  evaluated with those values in place, the gradient's fixed entries are x_i - xfixed_i, and
  the Hessian's fixed rows and columns are the identity, so every operator is symmetric and the
  exact derivative of the functions SNES and TAO see.
**/
#ifndef MFAD_H
#define MFAD_H

#include <petscmat.h>

/* PETSc 3.19 introduced PETSC_SUCCESS; code written for current PETSc also builds on 3.18 */
#ifndef PETSC_SUCCESS
#define PETSC_SUCCESS 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** A compiled element energy, opaque: read it with MfadKernelGetName() and the other getters.
    (Its struct is machinery, mfad/impl/kernel.h: generated code defines one per energy.) */
typedef const struct _n_MfadKernel *MfadKernel;
/** Declares the kernel of an energy compiled elsewhere: MFAD_KERNEL_DECLARE(neohookean_tet); */
#define MFAD_KERNEL_DECLARE(name) extern const struct _n_MfadKernel MfadKernel_##name
/** The kernel of energy `name`, e.g. MFAD_KERNEL(mass_spring). */
#define MFAD_KERNEL(name) (&MfadKernel_##name)

/** An energy: a weighted sum of terms (kernel x element set) over distributed vertices. */
typedef struct _p_MfadEnergy *MfadEnergy;

/** Where element loops run. */
typedef enum { MFAD_BACKEND_CPU = 0, MFAD_BACKEND_CUDA = 1 } MfadBackend;
extern const char *const MfadBackends[];

/** @brief PetscInitialize(), with a faster start where the program runs as one process without a
    launcher (an MPI singleton: `./prog`, not `mpiexec -n 1 ./prog`): Open MPI then starts no
    daemon and probes no network devices (0.08 s instead of 0.39 s for PetscInitialize() and
    PetscFinalize(), Open MPI 4.1). Sets, only where unset and only outside a launcher,
    OMPI_MCA_ess_singleton_isolated=1 and OMPI_MCA_pml=ob1 in the environment (the singleton can
    then spawn no processes); other MPIs ignore them. End with PetscFinalize(). */
PetscErrorCode MfadInitialize(int *argc, char ***args, const char file[], const char help[]);
/** @brief The environment part of MfadInitialize(), for a program that calls MPI_Init() or
    PetscInitialize() itself (call it before them). No PETSc call: returns nonzero if setenv() failed. */
PetscErrorCode MfadInitializeMPIEnvironment(void);
/** @brief Looks up a built-in or registered kernel by name (for options-driven programs).
    @param[in] name  energy name, e.g. "neohookean_tet"
    @param[out] k    the kernel */
PetscErrorCode MfadKernelFind(const char name[], MfadKernel *k);
/** @brief Registers a user kernel so that MfadKernelFind() and -mfad_view know it. */
PetscErrorCode MfadKernelRegister(MfadKernel k);
/** @brief The number of material constants kernel `k`'s rest-shape set-up reads (0: none): the
    length of the `material` array that MfadEnergyAddTermFromRest() and its relatives read.
    @param[in]  k          kernel
    @param[out] nmaterial  its count */
PetscErrorCode MfadKernelGetMaterialCount(MfadKernel k, PetscInt *nmaterial);
/** @brief The energy's name, e.g. "neohookean_tet" (the name MfadKernelFind() looks up).
    @param[in]  k     kernel
    @param[out] name  its name (the kernel's; do not free) */
PetscErrorCode MfadKernelGetName(MfadKernel k, const char *name[]);
/** @brief The sizes of kernel `k`'s elements, for laying out a term's arrays: connectivity is
    nvert ids per element, parameters nparam values per element, unknowns dof per vertex.
    Pass NULL for a size not wanted.
    @param[in]  k       kernel
    @param[out] nvert   vertices per element
    @param[out] dof     unknowns per vertex
    @param[out] nparam  parameters per element */
PetscErrorCode MfadKernelGetSizes(MfadKernel k, PetscInt *nvert, PetscInt *dof, PetscInt *nparam);
/** @brief The coordinates per vertex kernel `k`'s rest-shape set-up reads (0: it has none, and
    MfadEnergyAddTermFromRest() refuses it): the `rest` array of MfadEnergyAddTermFromRest() has
    nvert * rest_dim entries per element.
    @param[in]  k         kernel
    @param[out] rest_dim  its count */
PetscErrorCode MfadKernelGetRestDimension(MfadKernel k, PetscInt *rest_dim);
/** @brief Prints the names of all known kernels. */
PetscErrorCode MfadKernelList(PetscViewer viewer);

/** @brief Creates an energy on `comm` over `N` vertices with `dof` (1-3) unknowns each. The energy is
    a PetscObject (class "MfadEnergy", type its backend): PetscObject calls apply to it.
    @param[in] comm   communicator
    @param[in] dof    unknowns per vertex
    @param[in] n      vertices owned by this rank (or PETSC_DECIDE)
    @param[in] N      global vertices (or PETSC_DETERMINE)
    @param[out] E     the energy */
PetscErrorCode MfadEnergyCreate(MPI_Comm comm, PetscInt dof, PetscInt n, PetscInt N, MfadEnergy *E);
/** @brief Adds a reference (for objects that keep E alive; PetscObjectReference()); MfadEnergyDestroy() drops one. */
PetscErrorCode MfadEnergyReference(MfadEnergy E);
/** @brief Destroys the energy (when its last reference goes) and sets *E to NULL. */
PetscErrorCode MfadEnergyDestroy(MfadEnergy *E);

/** @brief Adds a term: kernel `k` on this rank's `nelem` elements.
    Use when per-element parameters are known; elements are this rank's own (never repeated
    on another rank). Data are copied. An element that repeats a vertex is an error naming the
    term, the element (this rank's number and the rank, on several ranks) and the vertex.
    @param[in] k        kernel (its dof must equal the energy's)
    @param[in] nelem    elements on this rank (may be 0: conn and params are then not read)
    @param[in] conn     nelem * nvert global vertex ids, distinct within an element
    @param[in] params   nelem * nparam parameters (NULL if the kernel takes none)
    @param[in] weight   multiplies the term
    @param[out] term    index of the term (may be NULL) */
PetscErrorCode MfadEnergyAddTerm(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[], const PetscReal params[], PetscReal weight,
                                 PetscInt *term);
/** @brief Adds a term whose parameters the kernel computes from each element's rest shape.
    Use for elastic energies (rest shape Dm^-1, volume) given rest coordinates. A degenerate rest
    element is an error naming the term, element (on several ranks: this rank's number and the
    rank) and vertices.
    Reads exactly the kernel's count of material constants (MfadKernelGetMaterialCount()), however
    long the array is: prefer MfadEnergyAddTermFromRestWithMaterial(), which checks the length.
    @param[in] rest      nelem * nvert * rest_dim rest coordinates, element by element
    @param[in] material  the kernel's nmaterial constants, shared by all elements (shown by -mfad_view) */
PetscErrorCode MfadEnergyAddTermFromRest(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[], const PetscReal rest[],
                                         const PetscReal material[], PetscReal weight, PetscInt *term);
/** @brief MfadEnergyAddTermFromRest() with the length of `material`: a count other than the
    kernel's (MfadKernelGetMaterialCount()) is an error naming the function, the term, the kernel
    and both counts, as is a constant that is not finite. Use it for new code.
    @param[in] nmaterial  the number of constants in material
    @param[in] material   nmaterial constants, shared by all elements (shown by -mfad_view) */
PetscErrorCode MfadEnergyAddTermFromRestWithMaterial(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[], const PetscReal rest[],
                                                     PetscInt nmaterial, const PetscReal material[], PetscReal weight, PetscInt *term);
/** @brief Replaces a term's per-element parameters (same layout and element order as given to
    MfadEnergyAddTerm()), before or after set-up. Use between solves of a time stepper (the inertia
    term's predicted positions, moving pin targets); connectivity and sizes stay.
    @param[in] term    index returned by MfadEnergyAddTerm()
    @param[in] params  nelem * nparam parameters */
PetscErrorCode MfadEnergySetTermParams(MfadEnergy E, PetscInt term, const PetscReal params[]);
/** @name Dynamic element sets
    A term whose elements change between evaluations (contact pairs from a spatial search): add it
    with MfadEnergyAddTerm() (0 elements is fine), then give its elements anew, directly or from a
    provider that mfad calls before each Newton step under SNES and TAO. Every operation (objective,
    gradient, fused and cached products, assembled Hessian, PSD projection) uses the current set.
    The ghost exchange is rebuilt only when the set of ghost vertices changed, and a matrix from
    MfadEnergyCreateMatrix() is re-preallocated (log event MfadMatPattern) at its next
    MfadEnergyComputeHessian() only when its vertex-pair pattern changed; counts in -mfad_view. */
/**@{*/
/** @brief Replaces a term's elements: count (may change, 0 included), connectivity and parameters.
    Collective: every rank calls it (with its own elements, possibly none). Use for contact pairs
    and other interaction terms; data are copied. A bad set (negative count, vertex id out of range,
    NaN parameter, on any rank) is an error naming the term and leaves the term as it was.
    @param[in] term    index returned by MfadEnergyAddTerm()
    @param[in] nelem   elements on this rank
    @param[in] conn    nelem * nvert global vertex ids
    @param[in] params  nelem * nparam parameters (NULL if the kernel takes none) */
PetscErrorCode MfadEnergySetTermElements(MfadEnergy E, PetscInt term, PetscInt nelem, const PetscInt conn[], const PetscReal params[]);
/** @brief Sets a term's element provider: `fn(E, term, X, ctx)` gives the elements at the point X
    (a global Vec) by calling MfadEnergySetTermElements() (or leaves them). Called, collectively, by
    MfadEnergyUpdateElements(): under MfadEnergySetSNES() and MfadEnergySetTao() before each Newton
    step's Hessian. NULL removes it. */
PetscErrorCode MfadEnergySetTermElementsFunction(MfadEnergy E, PetscInt term, PetscErrorCode (*fn)(MfadEnergy E, PetscInt term, Vec X, void *ctx), void *ctx);
/** @brief Calls every term's element provider at X (collective). Use before an evaluation at a new
    point when not under SNES or TAO, or from a line search that moves the point far. */
PetscErrorCode MfadEnergyUpdateElements(MfadEnergy E, Vec X);
/** @brief Whether some term has an element provider. */
PetscErrorCode MfadEnergyHasElementsFunction(MfadEnergy E, PetscBool *flg);
/** @brief A counter that grows with every element-set change: a Hessian operator made at one
    point compares it to know its elements are still those of its point. */
PetscErrorCode MfadEnergyGetElementsState(MfadEnergy E, PetscInt *state);
/** @brief What element-set changes cost so far (each may be NULL): changes given
    (MfadEnergySetTermElements() calls), ghost-exchange rebuilds, re-preallocations of matrices
    from MfadEnergyCreateMatrix() (their vertex-pair pattern changed) and fills that kept the
    preallocation (the same pairs). Also printed by -mfad_view. */
PetscErrorCode MfadEnergyGetElementsCounts(MfadEnergy E, PetscInt *updates, PetscInt *ghost_rebuilds, PetscInt *repreallocations, PetscInt *kept);
/** @brief A term's current elements on this rank (global vertex ids, the caller's order; borrowed). */
PetscErrorCode MfadEnergyGetTermElements(MfadEnergy E, PetscInt term, PetscInt *nelem, const PetscInt *conn[]);
/**@}*/
/** @brief Sets a term's name for messages and -mfad_view (default: the kernel's). */
PetscErrorCode MfadEnergySetTermName(MfadEnergy E, PetscInt term, const char name[]);
/** @brief Fixes dofs (global indices vertex * dof + d) at `values` (NULL: zero). Any rank may
    name any dof; calling again replaces the whole set (e.g. to move boundary values). */
PetscErrorCode MfadEnergySetFixedDofs(MfadEnergy E, PetscInt n, const PetscInt dofs[], const PetscReal values[]);
/** @brief Sets where element loops run (-mfad_backend). CUDA is an error unless compiled and a
    device is present. */
PetscErrorCode MfadEnergySetBackend(MfadEnergy E, MfadBackend backend);
/** @brief The backend E computes on (-mfad_backend); an error for a registered backend that has no MfadBackend value (MfadEnergyGetType() names every
 * one). */
PetscErrorCode MfadEnergyGetBackend(MfadEnergy E, MfadBackend *backend);
/** A backend by name (-mfad_backend): the built-in ones below, or one given to MfadEnergyRegister(). */
typedef const char *MfadEnergyType;
#define MFAD_ENERGY_CPU  "cpu"  /**< element loops on the host, OpenMP threads (the default) */
#define MFAD_ENERGY_CUDA "cuda" /**< element loops on a CUDA device (an error where not compiled or no device) */
/** @brief Sets where element loops run by name (-mfad_backend); the same as MfadEnergySetBackend()
    for the built-in ones. An unknown name is an error that lists the registered ones.
    @param[in] E     energy
    @param[in] type  a registered backend, e.g. MFAD_ENERGY_CPU */
PetscErrorCode MfadEnergySetType(MfadEnergy E, MfadEnergyType type);
/** @brief The name of the backend E computes on. */
PetscErrorCode MfadEnergyGetType(MfadEnergy E, MfadEnergyType *type);
/** @brief Registers a backend (PETSc's MatRegister()): `create` fills the energy's operations
    (src/mfadimpl.h's MfadBackendOps) and its state; MfadEnergySetType() and -mfad_backend then
    take `name`. Use it to add a backend without changing mfad's files.
    @param[in] name    the backend's name
    @param[in] create  its create function */
PetscErrorCode MfadEnergyRegister(const char name[], PetscErrorCode (*create)(MfadEnergy));
/** @brief Sets the OpenMP threads of element loops of at least 16,384 elements (-mfad_num_threads; 0, the default: one thread or OpenMP's count, whichever is measured faster per operation, docs/threads.md). */
PetscErrorCode MfadEnergySetNumThreads(MfadEnergy E, PetscInt nthreads);
/** @brief The most OpenMP threads any element loop of E has been given so far (1 where none was
    threaded: loops under 16,384 elements, one thread chosen or measured faster). */
PetscErrorCode MfadEnergyGetNumThreadsUsed(MfadEnergy E, PetscInt *nthreads);
/** @brief Consecutive elements per coloured block of the element loops (-mfad_block_size, default
    src/colour.c's): the unit that threads and the deterministic scatter take; any size >= 1 gives
    the same sum, blocked differently. Takes effect at the next set-up (a new size resets it). */
PetscErrorCode MfadEnergySetBlockSize(MfadEnergy E, PetscInt bs);
/** How element outputs are summed into vertices. */
typedef enum {
  MFAD_SCATTER_DEFAULT = -1, /**< the backend's: coloured blocks on the CPU, atomics on the GPU */
  MFAD_SCATTER_COLOUR  = 0,  /**< coloured blocks of elements that share no vertex (deterministic) */
  MFAD_SCATTER_ATOMIC  = 1,  /**< atomic adds (the order of a sum may change from run to run) */
  MFAD_SCATTER_GATHER  = 2   /**< the GPU: each dof sums its elements' outputs (deterministic); coloured blocks elsewhere */
} MfadScatter;
/** @brief Sets how element outputs are summed into vertices (-mfad_scatter colour|atomic|gather). */
PetscErrorCode MfadEnergySetScatter(MfadEnergy E, MfadScatter scatter);
/** @brief Sorts each term's elements by their first local vertex for locality (-mfad_reorder,
    default true); the sum is the same, in another order. Takes effect at the next set-up. */
PetscErrorCode MfadEnergySetReorder(MfadEnergy E, PetscBool flg);
/** @brief Checks the point for NaN/Inf before each evaluation, an error naming the vertex and dof
    (-mfad_check_finite, default true). */
PetscErrorCode MfadEnergySetCheckFinite(MfadEnergy E, PetscBool flg);
/** -mfad_lanes: the CPU gradient, HVP, value and element Hessians (those clamped in feature space excepted) of an
    energy built with SIMD lanes (mfad_add_energy(... LANES), the modes measured faster)
    run several elements at once, one a lane (default on; off: the scalar element loop, the same values
    to round-off). */
PetscErrorCode MfadEnergySetLanes(MfadEnergy E, PetscBool flg);
/** @brief The CUDA backend synchronises after each kernel launch, so that a kernel's fault is an
    error naming its term, kernel and operation rather than a later call (-mfad_cuda_sync, default
    false: for debugging, as each synchronisation costs a launch's latency). No effect on the CPU. */
PetscErrorCode MfadEnergySetCUDASync(MfadEnergy E, PetscBool flg);
/** @brief Sets the options prefix of the energy's options. */
PetscErrorCode MfadEnergySetOptionsPrefix(MfadEnergy E, const char prefix[]);
/** @brief Gets the options prefix (NULL if none; borrowed). */
PetscErrorCode MfadEnergyGetOptionsPrefix(MfadEnergy E, const char *prefix[]);
/** @brief Reads every option of the energy's table (src/options.c; MfadEnergyGetOptionTable()
    lists them), each through its setter, and lists under -help the mesh readers' options too. An
    option that takes a value but is given without one is an error naming what it takes. */
PetscErrorCode MfadEnergySetFromOptions(MfadEnergy E);
/** @brief Builds ghosting, local connectivity and colouring; called by the Compute functions
    when needed. At its end, -mfad_view (with E's prefix) views the energy: once per set-up. */
PetscErrorCode MfadEnergySetUp(MfadEnergy E);
/** @brief Prints terms, sizes, options, colouring, backend and flops per element: what exists (an
    energy not set up says so; this call sets nothing up). Collective. */
PetscErrorCode MfadEnergyView(MfadEnergy E, PetscViewer viewer);
/** @brief Views the energy if the option `name` (prefixed) is given, at each call. With NULL or
    "-mfad_view" it does nothing: MfadEnergySetUp() views -mfad_view, once per set-up, in every
    program (a program's own call for it, as before, prints nothing more). */
PetscErrorCode MfadEnergyViewFromOptions(MfadEnergy E, const char name[]);
/** @brief Whether MfadEnergyCreateMatrix() gives PETSc one COO entry per nonzero, mfad summing
    the element Hessians into it (-mfad_coo_merge; default the backend's: merged on the CPU, one
    entry per element entry with CUDA, which refuses merged entries). */
PetscErrorCode MfadEnergySetCOOMerge(MfadEnergy E, PetscBool flg);
/** @brief Whether MfadEnergyCreateMatrix() preallocates and fills a host aij, baij or sbaij with
    merged entries from mfad's vertex-pair CSR (-mfad_assemble_csr, default true), else through
    PETSc's COO. */
PetscErrorCode MfadEnergySetAssembleCSR(MfadEnergy E, PetscBool flg);
/** @brief Whether MfadEnergyWriteVTU() writes base64 binary arrays instead of ASCII
    (-mfad_vtu_binary, default false). */
PetscErrorCode MfadEnergySetVTUBinary(MfadEnergy E, PetscBool flg);

/* ---------------------------------------------------------------- the options tables */
/** The class of MfadEnergy objects (PetscObjectGetClassId(), PetscValidHeaderSpecific()). */
PETSC_EXTERN PetscClassId MFAD_CLASSID;
/** What an option takes. */
typedef enum {
  MFAD_OPTION_BOOL,   /**< 0|1 (given alone: 1) */
  MFAD_OPTION_INT,    /**< an integer: needs a value */
  MFAD_OPTION_REAL,   /**< a real: needs a value */
  MFAD_OPTION_CHOICE, /**< one of a list: needs a value */
  MFAD_OPTION_NAME,   /**< no value, or an optional one (a viewer: -mfad_view [ascii[:file[:format]]]) */
  MFAD_OPTION_TYPE    /**< a registered type's name (-mfad_backend: MfadEnergyRegister()): needs a value */
} MfadOptionType;
/** A table of options: the one place that lists them, drives their reading, -help and the check of
    a missing value. */
typedef const struct _n_MfadOptionTable *MfadOptionTable;
/** @brief The energy's options (read by MfadEnergySetFromOptions()); for tools and tests that list
    every option. */
PetscErrorCode MfadEnergyGetOptionTable(MfadOptionTable *table);
/** @brief The number of options in a table. */
PetscErrorCode MfadOptionTableGetSize(MfadOptionTable table, PetscInt *n);
/** @brief Option i of a table: its name ("-mfad_block_size"), what it takes, its choices (a
    MFAD_OPTION_CHOICE's, else 0 and NULL) and the function that sets it or where it acts (the
    manual page -help names). Any output may be NULL. */
PetscErrorCode MfadOptionTableGetEntry(MfadOptionTable table, PetscInt i, const char **name, MfadOptionType *type, PetscInt *nchoice,
                                       const char *const **choices, const char **setter);

/** @brief Gets the communicator, dofs per vertex and vertex counts. */
PetscErrorCode MfadEnergyGetComm(MfadEnergy E, MPI_Comm *comm);
PetscErrorCode MfadEnergyGetSizes(MfadEnergy E, PetscInt *dof, PetscInt *n, PetscInt *N);
/** @brief Creates vectors of the energy's layout (either may be NULL). */
PetscErrorCode MfadEnergyCreateVecs(MfadEnergy E, Vec *X, Vec *G);
/** @brief Copies the fixed values into X (the rest of X is untouched). */
PetscErrorCode MfadEnergyApplyFixedValues(MfadEnergy E, Vec X);

/** @brief f = E(X) (+ 1/2 |x_fixed - values|^2); +inf where an element is invalid (inverted). */
PetscErrorCode MfadEnergyComputeObjective(MfadEnergy E, Vec X, PetscReal *f);
/** @brief G = grad E(X) (fixed entries: x_i - value_i). */
PetscErrorCode MfadEnergyComputeGradient(MfadEnergy E, Vec X, Vec G);
/** @brief f and G in one pass. */
PetscErrorCode MfadEnergyComputeObjectiveGradient(MfadEnergy E, Vec X, PetscReal *f, Vec G);
/** @brief Y = H(X) V by the fused forward-over-forward product; no Hessian is formed. */
PetscErrorCode MfadEnergyComputeHessianProduct(MfadEnergy E, Vec X, Vec V, Vec Y);
/** @brief D = diag H(X), from element Hessians. */
PetscErrorCode MfadEnergyComputeHessianDiagonal(MfadEnergy E, Vec X, Vec D);
/** @brief The dof x dof diagonal blocks of H(X), one per owned vertex, row-major, in `blocks`
    (n * dof * dof entries, caller's memory). */
PetscErrorCode MfadEnergyComputeHessianBlockDiagonal(MfadEnergy E, Vec X, PetscScalar blocks[]);
/** @brief Whether the last Objective/Gradient evaluation met an invalid element (E = +inf or
    not finite): SNES callbacks turn this into a domain error. */
PetscErrorCode MfadEnergyGetDomainError(MfadEnergy E, PetscBool *flg);

/** How element Hessians are made positive semi-definite before caching or assembly. */
typedef enum {
  MFAD_PSD_NONE  = 0, /**< the exact Hessian */
  MFAD_PSD_CLAMP = 1, /**< eigenvalues below epsilon raised to epsilon */
  MFAD_PSD_ABS   = 2  /**< eigenvalues replaced by max(|lambda|, epsilon) */
} MfadPSDProjection;
extern const char *const MfadPSDProjections[];

/** @brief Sets the per-element PSD projection of explicit Hessians (-mfad_psd_project,
    -mfad_psd_epsilon): each element Hessian is eigen-decomposed and its eigenvalues clamped or
    made absolute. Applies to MfadEnergyComputeHessian() and the element-Hessian cache, never to
    the fused product (which forms no element Hessian). Use it for Newton on nonconvex energies.
    The option -mfad_psd_epsilon alone sets the epsilon of the projection in force: the one chosen,
    or a solver default's (MfadEnergySetSNES(), MfadEnergySetTao()). */
PetscErrorCode MfadEnergySetPSDProjection(MfadEnergy E, MfadPSDProjection type, PetscReal epsilon);
PetscErrorCode MfadEnergyGetPSDProjection(MfadEnergy E, MfadPSDProjection *type, PetscReal *epsilon);
/** How a SNES or TAO Newton solve chooses, step by step, between the PSD-projected Hessian (descent
    far from a minimum) and the exact one (quadratic convergence near it; projected Newton alone is
    linear there). Applies when a projection is set (MfadEnergySetPSDProjection()). */
typedef enum {
  MFAD_PSD_SWITCH_AUTO  = 0, /**< inertia where the solver factors an assembled Hessian by a Cholesky that reports it, else never (the default) */
  MFAD_PSD_SWITCH_NEVER = 1, /**< projected in every step */
  MFAD_PSD_SWITCH_STEPS = 2, /**< projected in the first n steps, exact after them (MfadEnergySetPSDProjectionSteps()) */
  MFAD_PSD_SWITCH_INERTIA =
      3 /**< exact where the exact Hessian is positive definite (the factor's inertia) and its step descends, projected elsewhere */
} MfadPSDSwitch;
extern const char *const MfadPSDSwitches[];

/** @brief Sets how a Newton solve (SNES, or TAO's nls/ntr/ntl) chooses each step's Hessian
    (-mfad_psd_switch auto|never|steps|inertia; default auto).
    inertia: exact steps are tried where the last step reduced |g| by less than a factor 4 (slower
    than quadratic) and went the whole Newton step (one cut by a wall or backtracked is far from a
    minimum), or the last exact step went through; the factorisation's inertia (MUMPS's LDL^T,
    or PETSc's own Cholesky, alone or inside PCREDUNDANT on several ranks) says whether the exact
    Hessian is positive definite, and if not the projected one is assembled and factored instead
    for that step; with SNES an exact step that does not descend (PETSc's LDL^T does not pivot and
    can miss a negative eigenvalue near zero) is replaced by the projected one before the line
    search (chained before any line-search pre-check set on it). A failed try waits 1, 2, 4, 4 ...
    steps before the next. It needs the solver to factor the assembled Hessian (-mfad_hessian aij,
    -ksp_type preonly -pc_type cholesky with MUMPS or PETSc's solver, or -pc_type redundant around
    it); with MUMPS on several ranks mfad sets ICNTL(13) = 1, which its inertia needs, unless
    -mat_mumps_icntl_13 is given. inertia with any other solver is an error at the first linear
    solve; auto then projects in every step. steps: see MfadEnergySetPSDProjectionSteps(). */
PetscErrorCode MfadEnergySetPSDSwitch(MfadEnergy E, MfadPSDSwitch type);
PetscErrorCode MfadEnergyGetPSDSwitch(MfadEnergy E, MfadPSDSwitch *type);
/** @brief Projected, then exact Newton (-mfad_psd_project_steps; SNES and TAO's Newton methods), the
    switch `steps`: in each solve the projection applies to the first `steps` Newton steps, the
    exact Hessian to the later ones; an exact step whose linear solve fails (CG meeting negative
    curvature) sends the next `steps` steps back to the projection, and such a failure does not end
    the solve (TAO's trust-region CG, stcg, steps along negative curvature instead of failing).
    Sets the switch too: steps for a count >= 0, never for -1 (always project); the same as
    MfadEnergySetPSDSwitch() with the count, kept for programs written before it. */
PetscErrorCode MfadEnergySetPSDProjectionSteps(MfadEnergy E, PetscInt steps);
PetscErrorCode MfadEnergyGetPSDProjectionSteps(MfadEnergy E, PetscInt *steps);
/** @brief The Newton steps of the last (or current) SNES or TAO solve of E that used the exact Hessian
    under -mfad_psd_switch inertia or auto, and those that tried it and fell back to the projection. */
PetscErrorCode MfadEnergyGetPSDSwitchCounts(MfadEnergy E, PetscInt *exact, PetscInt *fallbacks);
/** @brief The largest step t along D from X before an element leaves its energy's domain (a
    triangle flips, a tet inverts): the smallest over the elements of every term whose energy
    declares its wall (MfadEnergyInfo.step) and over the ranks; PETSC_INFINITY if none limits it. Fixed dofs
    do not move. Computed on the host from each rank's ghosted vertices (any backend). Collective. */
PetscErrorCode MfadEnergyComputeStepBound(MfadEnergy E, Vec X, Vec D, PetscReal *t);
/** @brief Whether SNES's (and TAO nls's) line search starts short of the first wall (-mfad_step_bound; default
    true): before each line search of newtonls, a step X - Y that would take an element out of its
    domain is cut to 0.8 of the bound (MfadEnergyComputeStepBound() along -Y), so that backtracking
    starts from a valid point instead of cutting by 10 from +inf (symmetric Dirichlet on a scanned
    patch: 16 Newton steps instead of 39; 0.8 is Smith & Schaefer's factor, 0.9 took 372 steps on
    sock.obj where 0.8 takes 305). The pre-check runs after the projection switch's descent
    check and before any pre-check set on the line search, whenever that was set. TAO nls (no
    line-search pre-check there): the line search's first trial step (TaoLineSearchSetInitialStepLength())
    is cut the same way after each Newton step's linear solve; with TAO's default More-Thuente line
    search a full step onto +inf otherwise ends the solve (a user's param program: DIVERGED_LS_FAILURE
    at step 1 on spot_jitter.obj and sock.obj, elastic on the Spot tets too; 16, 168 and 67 steps with it). */
PetscErrorCode MfadEnergySetStepBound(MfadEnergy E, PetscBool flg);
/** @brief The most points a nonmonotone line search remembers (MfadEnergySetLineSearchMemory()) */
#define MFAD_LINE_SEARCH_MEMORY_MAX 16
/** @brief The nonmonotone full step of SNES newtonls (line search bt) and TAO nls
    (-mfad_line_search_memory; default 10; 1: off): a Newton step's full step that the line search
    would refuse (E rises, or falls by less than Armijo's decrease) is taken where E there is below
    the largest E of the last m points by Armijo's decrease (Grippo, Lampariello and Lucidi's
    nonmonotone line search, 1986); every other step, and one cut short of a wall
    (MfadEnergySetStepBound()), is the line search's as before. A monotone line search along an energy's soft
    mode (the Spot tets hanging from a clamp swing) cuts every third exact step to 0.2-0.5:
    elastic took 70 SNES and 65 TAO steps with m = 1, 55 and 54 with m = 10 (64 and 58 with 4).
    Not under -mfad_newton_cg (its steps along negative curvature: sphere's Spot 49 steps
    monotone, 77 with m = 10). m from 1 to MFAD_LINE_SEARCH_MEMORY_MAX. */
PetscErrorCode MfadEnergySetLineSearchMemory(MfadEnergy E, PetscInt m);
PetscErrorCode MfadEnergyGetLineSearchMemory(MfadEnergy E, PetscInt *m);
/** @brief A stop at the Newton decrement for SNES newtonls and TAO nls (-mfad_decrement_rtol; default
    0: off): converged after the Newton step whose predicted decrease of E, g . d / 2 for the step
    d = H^-1 g with the Hessian H it was solved with (projected or exact), is at most rtol |E|.
    g . d is the squared Newton decrement, and near a minimum where Newton converges quadratically
    E - E* is about g . d / 2 (Boyd and Vandenberghe, 9.5.1): rtol is then the energy's relative
    accuracy, the same on every mesh and at every scale (E scales with the mesh, as |g| does with
    its units). Where projected Newton converges linearly each step predicts a fraction of what is
    left: param (symmetric Dirichlet) at rtol 1e-4 stopped 2e-9 to 2.7e-3 relative above the
    minimum on six meshes (docs/examples.md). A relative test needs E* away from 0: where the
    minimum is 0, E - E* is the whole of E and SNES's and TAO's own tests end the solve. Only a
    step whose linear solve converged and that descends counts, not one along negative curvature
    (-mfad_newton_cg) nor (TAO) a later line search in the same iteration (nls's fall-back
    directions); the step's line search must succeed; the step is taken (its factorisation is paid
    for). SNES's and TAO's own tests still apply. The reason is SNES_CONVERGED_USER (PETSc 3.23 on;
    SNES_CONVERGED_SNORM_RELATIVE before it) or TAO_CONVERGED_USER; -info names the test. Set up by
    MfadEnergySetSNES() and MfadEnergySetTao(); a convergence test set after them replaces it. */
PetscErrorCode MfadEnergySetDecrementTolerance(MfadEnergy E, PetscReal rtol);
PetscErrorCode MfadEnergyGetDecrementTolerance(MfadEnergy E, PetscReal *rtol);
/** @brief How many steps SNES's pre-check has cut so far (at a wall or the contact bound). */
PetscErrorCode MfadEnergyGetStepCuts(MfadEnergy E, PetscInt *n);
PetscErrorCode MfadEnergyGetStepBound(MfadEnergy E, PetscBool *flg);
/** @brief Newton-CG for SNES (-mfad_newton_cg; default false): each Newton step solves with the exact
    Hessian (the fused shell product) by CG preconditioned with the Cholesky factor of the
    PSD-projected Hessian (assembled), so that the first CG iterate is the projected Newton step (a
    descent direction however indefinite the exact Hessian) and CG goes on to the exact Newton
    step (quadratic convergence near the minimum, where projected Newton is linear). Where CG fails
    or meets negative curvature, the projected step P^{-1} g replaces CG's step if its quadratic
    model is lower; where the step taken then predicts no decrease above the energy's round-off (a
    saddle), Steihaug's CG with the radius |X| walks along the negative curvature (an escape), and
    a line search that fails after an escape is convergence at round-off. The round-off stop
    (MfadEnergySetSNES()) is not taken after negative curvature. Set up by MfadEnergySetSNES()
    unless chosen otherwise: -mfad_hessian shell -mfad_pmat aij, -mfad_psd_project abs, KSP stcg
    without a radius, PC Cholesky (MUMPS with null-pivot detection, ICNTL(24) = 1; else PETSc's
    with a nonzero shift, in PCREDUNDANT on several ranks); any of them chosen by option or in code
    wins. Measured against PETSc's trust regions with the same operator and preconditioner
    (docs/guide.md): petsc-examples/sphere.c on Spot 49 Newton steps, where SNES newtontr stops at
    step 2 on an energy of +inf and TAO ntr takes 54; arap_surface's rigid motion of Spot 16
    against 31 and 31. SNES newtonls only (TAO: -tao_type ntr, its equal there). */
PetscErrorCode MfadEnergySetNewtonCG(MfadEnergy E, PetscBool flg);
PetscErrorCode MfadEnergyGetNewtonCG(MfadEnergy E, PetscBool *flg);
/** @brief The last (or current) SNES solve's Newton-CG steps whose CG step was replaced by the projected
    one, and its escapes along negative curvature (MfadEnergySetNewtonCG()). */
PetscErrorCode MfadEnergyGetNewtonCGCounts(MfadEnergy E, PetscInt *fallbacks, PetscInt *escapes);
/** @brief Whether MfadEnergySetSNES() and MfadEnergySetTao() give the solver mfad's defaults where
    the user chose none (-mfad_solver_defaults; default true): for an energy of at most
    MfadEnergySetDirectSolveLimit() unknowns with no Hessian form (-mfad_hessian, -mfad_pmat) and no
    linear solver chosen, the assembled Hessian, PSD-projected per element unless a projection was
    chosen (MfadEnergySetPSDProjection()), factored by a sparse Cholesky that reports its inertia
    (MUMPS where PETSc has it, else PETSc's own with nested dissection, on several ranks inside
    PCREDUNDANT), so that -mfad_psd_switch auto takes exact Newton steps where the exact Hessian is
    positive definite and projected ones elsewhere; otherwise, with no form chosen, the automatic
    form (where the chosen preconditioner needs entries, a factorisation, the assembled one,
    PSD-projected unless a projection was chosen). Always, unless given:
    for SNES at most 500 Krylov iterations per linear solve (-ksp_max_it), a failed linear solve
    does not end the solve (-snes_max_linear_solve_fail; the truncated step goes to the line
    search), and 200 Newton steps (-snes_max_it); TAO's KSP keeps its cap (nls takes a capped solve
    for a failed step: arap on a scan took 2,240 steps with a cap of 500, 799 without). For TAO the factorisation is nls's or bnls's, when that
    type is known as E is wired in (set in code or -tao_type). Defaults are set in code on the
    solver's objects, never in the options database: any option overrides them, read when the
    solver is set from options (before or after this call), and so does a type set in code after
    this call. A choice is an option given, or a type set in code before this call other than the
    solver's own (GMRES for a SNES, whose SetFromOptions gives an unset KSP GMRES; STCG for TAO's
    Newton methods; ILU or block Jacobi for the PC, the placeholder of a PC with no matrix). */
PetscErrorCode MfadEnergySetSolverDefaults(MfadEnergy E, PetscBool flg);
PetscErrorCode MfadEnergyGetSolverDefaults(MfadEnergy E, PetscBool *flg);
/** @brief The most unknowns (global) for which the default solver factors the Hessian directly
    (-mfad_direct_solve_limit; default 1,000,000): beyond it, the automatic form with a Krylov
    method and Jacobi. */
PetscErrorCode MfadEnergySetDirectSolveLimit(MfadEnergy E, PetscInt n);
PetscErrorCode MfadEnergyGetDirectSolveLimit(MfadEnergy E, PetscInt *n);

/** @brief Creates the assembled Hessian's matrix: n * dof local rows, block size dof, the pattern
    of the element connectivity preallocated once by MatSetPreallocationCOO() (on the CPU one COO
    entry per nonzero, element Hessians summed by mfad: -mfad_coo_merge; log event MfadMatPattern;
    host aij, baij and sbaij are preallocated from mfad's CSR instead, aij filled in place: -mfad_assemble_csr);
    fixed rows and columns are the identity. The type comes from -mat_type (with the energy's prefix): aij
    (default), baij, sbaij (upper triangle), aijcusparse where PETSc has CUDA.
    @param[out] A  the matrix; fill it with MfadEnergyComputeHessian() */
PetscErrorCode MfadEnergyCreateMatrix(MfadEnergy E, Mat *A);
/** @brief A = H(X) (element Hessians, PSD-projected if set, summed by MatSetValuesCOO()). Use for
    factorisations and multigrid; allocates nothing after the first call.
    @param[in] A  a matrix made by MfadEnergyCreateMatrix() for E */
PetscErrorCode MfadEnergyComputeHessian(MfadEnergy E, Vec X, Mat A);
/** @brief Computes and stores the element Hessians at X (packed symmetric, PSD-projected if set),
    unless they are stored for X already. Use when many products follow at one point. */
PetscErrorCode MfadEnergyComputeHessianCache(MfadEnergy E, Vec X);
/** @brief Y = H(X) V from the stored element Hessians (computed first if not stored for X). */
PetscErrorCode MfadEnergyCachedHessianProduct(MfadEnergy E, Vec X, Vec V, Vec Y);
/** @brief D = diag H(X) from the stored element Hessians. */
PetscErrorCode MfadEnergyCachedHessianDiagonal(MfadEnergy E, Vec X, Vec D);
/** @brief The vertex blocks of H(X) (as MfadEnergyComputeHessianBlockDiagonal()) from the stored
    element Hessians. */
PetscErrorCode MfadEnergyCachedHessianBlockDiagonal(MfadEnergy E, Vec X, PetscScalar blocks[]);

/** @name Residuals
    Terms whose kernel is a residual (an element function of m outputs, `.residual` in
    mfad/energy.h) are added with MfadEnergyAddTerm() like energies; the kernel's sum decides what
    they mean. A least-squares term of weight w adds w/2 |r_e|^2 to the objective, J_e^T r_e to the
    gradient and the Gauss-Newton matrix J_e^T J_e to the Hessian (every Hessian form, SNES and TAO
    work unchanged), and stacks sqrt(w) r_e into the residual vector r below. A system term
    (F(x) = 0) adds w r_e to the gradient slot, which is then the function F, and w J_e to the
    Hessian slot, which is then the (not symmetric) Jacobian; the energy has no objective. */
/**@{*/
/** @brief Levenberg-Marquardt damping: lambda I added to every Hessian (Jacobian) form, on the
    free dofs (-mfad_damping); with least-squares terms, J^T J + lambda I. Default 0. */
PetscErrorCode MfadEnergySetDamping(MfadEnergy E, PetscReal lambda);
PetscErrorCode MfadEnergyGetDamping(MfadEnergy E, PetscReal *lambda);
/** @brief Whether the energy has an objective (no system term). */
PetscErrorCode MfadEnergyHasObjective(MfadEnergy E, PetscBool *flg);
/** @brief Whether its Hessian (Jacobian) is symmetric (no system term). */
PetscErrorCode MfadEnergyIsSymmetric(MfadEnergy E, PetscBool *flg);
/** @brief Y = H(X)^T V: the transpose product of a system's Jacobian (the product itself when symmetric). CPU backend. */
PetscErrorCode MfadEnergyComputeHessianTransposeProduct(MfadEnergy E, Vec X, Vec V, Vec Y);
/** @brief Rows of the stacked least-squares residual: this rank's (its elements' outputs) and all. */
PetscErrorCode MfadEnergyGetResidualSizes(MfadEnergy E, PetscInt *m, PetscInt *M);
/** @brief A Vec with the residual's row layout. */
PetscErrorCode MfadEnergyCreateResidualVec(MfadEnergy E, Vec *R);
/** @brief R = r(X): each least-squares term's sqrt(w) r_e, stacked (term by term, elements in the
    order each rank gave them). Fixed dofs at their values. CPU backend. */
PetscErrorCode MfadEnergyComputeResidual(MfadEnergy E, Vec X, Vec R);
/** @brief Y = J(X) V (rows), one dual-number pass per element; fixed dofs' columns are zero. */
PetscErrorCode MfadEnergyComputeResidualJacobianProduct(MfadEnergy E, Vec X, Vec V, Vec Y);
/** @brief Y = J(X)^T W (dofs); fixed rows of Y are zero. */
PetscErrorCode MfadEnergyComputeResidualJacobianTransposeProduct(MfadEnergy E, Vec X, Vec W, Vec Y);
/** @brief The residual's Jacobian as an AIJ matrix (rows of r x dofs), pattern set by COO. */
PetscErrorCode MfadEnergyCreateResidualJacobian(MfadEnergy E, Mat *J);
/** @brief J = J(X), element Jacobians summed by MatSetValuesCOO(). */
PetscErrorCode MfadEnergyComputeResidualJacobian(MfadEnergy E, Vec X, Mat J);
/**@}*/

/** @name Contact
    Pairs of a triangle surface closer than dhat, for the IPC barrier energies
    `ipc_point_triangle` and `ipc_edge_edge` (energies/, distances in mfad/contact.h): each pair is
    an element of 4 global vertex ids and its parameters, ready for a term (MfadEnergyAddTerm() with
    the kernel of its kind). Detection uses a hashed grid (never all pairs); on several ranks each
    rank gives its own part of the surface, primitives near another rank's part are sent there
    through a PetscSF, and a pair across ranks is found once, on one of its two ranks. Typical use: detect
    at the start of each Newton step, cap each line search at MfadContactStepBound(). */
/**@{*/
/** A contact detector: a surface, dhat and kappa, and the pairs of the last detection. */
typedef struct _p_MfadContact *MfadContact;
/** The two kinds of pairs, with their kernels and parameters (per pair) */
typedef enum {
  MFAD_CONTACT_POINT_TRIANGLE = 0, /**< (p, t0, t1, t2), kernel ipc_point_triangle; params type (MFAD_PT_*), dhat^2, kappa */
  MFAD_CONTACT_EDGE_EDGE      = 1  /**< (a0, a1, b0, b1), kernel ipc_edge_edge; params type (MFAD_EE_*), dhat^2, kappa, eps_x */
} MfadContactKind;
/** @brief Creates a contact detector on `comm` (collective in Detect/StepBound). */
PetscErrorCode MfadContactCreate(MPI_Comm comm, MfadContact *C);
/** @brief Destroys it and sets *C to NULL. */
PetscErrorCode MfadContactDestroy(MfadContact *C);
/** @brief Sets this rank's surface over its `nv` vertices (coordinates x[3 v + d] in later calls):
    `gid` their global ids (NULL: 0 .. nv-1), `ntri` triangles `tri` (3 vertex numbers each),
    `nedge` edges `edge` (2 each; PETSC_DETERMINE: every triangle edge once, one rank only) and
    `npoint` points `point` (PETSC_DETERMINE: every vertex of a triangle or edge, one rank only).
    On several ranks each triangle, edge and point must be given on exactly one rank; a vertex may
    appear on several with the same global id. Pairs that share a vertex are never reported. */
PetscErrorCode MfadContactSetSurface(MfadContact C, PetscInt nv, const PetscInt gid[], PetscInt ntri, const PetscInt tri[], PetscInt nedge,
                                     const PetscInt edge[], PetscInt npoint, const PetscInt point[]);
/** @brief Sets the barrier: activation distance `dhat` (a distance: pairs closer than dhat are
    reported, with dhat^2 in their parameters) and stiffness `kappa`. */
PetscErrorCode MfadContactSetBarrier(MfadContact C, PetscReal dhat, PetscReal kappa);
/** @brief Rest coordinates (3 per vertex, NULL: none) for IPC's edge-edge mollifier threshold
    eps_x = 1e-3 |a|^2 |b|^2 of rest edge lengths; without them eps_x = 0 (no mollifier). */
PetscErrorCode MfadContactSetRestCoordinates(MfadContact C, const PetscReal rest[]);
/** @brief Finds every point-triangle and edge-edge pair closer than dhat at x (this rank's
    vertex coordinates, 3 each), with its distance type; collective. NaN coordinates are an error. */
PetscErrorCode MfadContactDetect(MfadContact C, const PetscReal x[]);
/** @brief This rank's pairs of a kind from the last MfadContactDetect(): count, connectivity
    (4 global vertex ids per pair) and parameters; borrowed, valid until the next detection. */
PetscErrorCode MfadContactGetPairs(MfadContact C, MfadContactKind kind, PetscInt *n, const PetscInt *conn[], const PetscReal *params[]);
/** @brief The smallest distance (not squared) of the last detection's pairs, over all ranks (dhat
    if none); collective. */
PetscErrorCode MfadContactGetMinimumDistance(MfadContact C, PetscReal *d);
/** @brief A conservative continuous-collision step bound: alpha in [0, 1] such that moving from
    x to x + t dx for every t <= alpha makes no point pass through a triangle and no edge through an
    edge, and keeps at least about a tenth of each pair's distance (additive CCD, Li et al. 2021);
    1 if nothing can meet. Collective. Cap a line search's step at alpha. */
PetscErrorCode MfadContactStepBound(MfadContact C, const PetscReal x[], const PetscReal dx[], PetscReal *alpha);
/** @brief Adds C's contact to E (3 unknowns per vertex; C's surface and barrier set, its vertices'
    global ids E's vertices): two terms, `ipc_point_triangle` and `ipc_edge_edge` (their indices in
    pt and ee, either may be NULL), whose elements are the pairs closer than dhat, detected anew at
    X before each Newton step of SNES or TAO (an element provider; MfadEnergyUpdateElements()
    elsewhere), and the continuous-collision bound: before each SNES line search (newtonls) a step
    along which a point could pass through a triangle or an edge through an edge is capped at
    MfadContactStepBound(), with the energies' walls (MfadEnergySetStepBound()), so that the barriers'
    +inf is never met by backtracking alone. E holds a reference to C (destroy yours when done).
    One contact per energy. */
PetscErrorCode MfadEnergyAddContact(MfadEnergy E, MfadContact C, PetscInt *pt, PetscInt *ee);
/** @brief How many detections E's contact made so far (0 without one). */
PetscErrorCode MfadEnergyGetContactDetections(MfadEnergy E, PetscInt *n);
/**@}*/

/* MfadMeshBoxTets(), MfadMeshBoxVertices(): generated box meshes as arrays, in the mesh library
   (libmfadmesh, which libmfad links) */
#include <mfadmeshbox.h>

#ifdef __cplusplus
}
#endif

#endif /* MFAD_H */
