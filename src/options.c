// SPDX-License-Identifier: BSD-2-Clause
/* The options tables: the energy's options and the mesh readers', each listed once, with what
   drives their reading (MfadEnergySetFromOptions() through each option's setter), -help, the
   check of a value given without one, and the listing tools and tests read
   (MfadOptionTableGetEntry()). The solver glue's table is in shell/options.c. An option added to
   a table is read, listed, checked and tested with nothing else to change. */
#include "mfadimpl.h"

/* PETSc's PetscOptionsEnum(), PetscOptionsInt() ... take "-name" with no value as "not given"
   (or as the first choice): a silent default where the user asked for something. An option that
   needs a value and has none is an error naming what it takes. */
PetscErrorCode MfadOptionsRequireValue_Private(MPI_Comm comm, const char prefix[], const char name[], const char takes[])
{
  const char *value = NULL;
  PetscBool   set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsFindPair(NULL, prefix, name, &value, &set));
  PetscCheck(!set || (value && value[0]), comm, PETSC_ERR_ARG_WRONG, "-%s%s needs a value: %s", prefix ? prefix : "", name + 1, takes);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One option inside an options block: -help from the entry (PetscOptionsObject: the block's) */
static PetscErrorCode MfadOptionRead_Private(MfadOptionItems PetscOptionsObject, const MfadOption *o, MfadOptionValue *v, PetscBool *set)
{
  PetscFunctionBegin;
  switch (o->type) {
  case MFAD_OPTION_BOOL:
    PetscCall(PetscOptionsBool(o->name, o->help, o->setter, v->b, &v->b, set));
    break;
  case MFAD_OPTION_INT:
    PetscCall(PetscOptionsInt(o->name, o->help, o->setter, v->i, &v->i, set));
    break;
  case MFAD_OPTION_REAL:
    PetscCall(PetscOptionsReal(o->name, o->help, o->setter, v->r, &v->r, set));
    break;
  case MFAD_OPTION_CHOICE:
    PetscCheck(v->i >= 0 && v->i < o->nchoice, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "%s: value %" PetscInt_FMT " is not one of its %" PetscInt_FMT " choices", o->name, v->i, o->nchoice);
    PetscCall(PetscOptionsEList(o->name, o->help, o->setter, o->choices, o->nchoice, o->choices[v->i], &v->i, set));
    break;
  case MFAD_OPTION_NAME:
    PetscCall(PetscOptionsName(o->name, o->help, o->setter, set));
    v->b = *set;
    break;
  case MFAD_OPTION_TYPE: { /* -help lists the names registered now; not PetscOptionsFList(), whose -help PETSc 3.18 prints to stdout */
    char        help[320];
    const char *names;
    PetscCall(MfadEnergyGetTypeNames_Private(&names));
    PetscCall(PetscSNPrintf(help, sizeof(help), "%s (%s)", o->help, names));
    PetscCall(PetscOptionsString(o->name, help, o->setter, v->s, v->s, sizeof(v->s), set));
  } break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What the "needs a value" error says option o takes: its choices, or the table's words */
static PetscErrorCode MfadOptionTakes_Private(const MfadOption *o, char takes[], size_t len)
{
  PetscFunctionBegin;
  takes[0] = 0;
  if (o->type != MFAD_OPTION_CHOICE) PetscCall(PetscStrncpy(takes, o->takes ? o->takes : "a value", len));
  for (PetscInt c = 0; o->type == MFAD_OPTION_CHOICE && c < o->nchoice; c++) {
    size_t l;
    PetscCall(PetscStrlen(takes, &l));
    PetscCall(PetscSNPrintf(takes + l, len - l, "%s%s", c ? "|" : "", o->choices[c]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadOptionsRead_Private(MPI_Comm comm, const char prefix[], MfadOptionTable t, MfadOptionValue v[], PetscBool set[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < t->n; i++) {
    const MfadOption *o = &t->entries[i];
    char              takes[256];
    if (o->type == MFAD_OPTION_BOOL || o->type == MFAD_OPTION_NAME) continue; /* given alone: true, or a default viewer */
    PetscCall(MfadOptionTakes_Private(o, takes, sizeof(takes)));
    PetscCall(MfadOptionsRequireValue_Private(comm, prefix, o->name, takes));
  }
  PetscOptionsBegin(comm, prefix, t->title, "Mfad");
  for (PetscInt i = 0; i < t->n; i++) PetscCall(MfadOptionRead_Private(PetscOptionsObject, &t->entries[i], &v[i], &set[i]));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadOptionTableGetSize(MfadOptionTable t, PetscInt *n)
{
  PetscFunctionBegin;
  MfadValidPointer(t, 1);
  MfadValidPointer(n, 2);
  *n = t->n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadOptionTableGetEntry(MfadOptionTable t, PetscInt i, const char **name, MfadOptionType *type, PetscInt *nchoice,
                                       const char *const **choices, const char **setter)
{
  const MfadOption *o;

  PetscFunctionBegin;
  MfadValidPointer(t, 1);
  PetscCheck(i >= 0 && i < t->n, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadOptionTableGetEntry: %s has no option %" PetscInt_FMT " (it has %" PetscInt_FMT ")", t->title, i, t->n);
  o = &t->entries[i];
  if (name) *name = o->name;
  if (type) *type = o->type;
  if (nchoice) *nchoice = o->type == MFAD_OPTION_CHOICE ? o->nchoice : 0;
  if (choices) *choices = o->type == MFAD_OPTION_CHOICE ? o->choices : NULL;
  if (setter) *setter = o->setter;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ the energy's options */
/* An option of the energy: `get` puts its value into *v, `set` gives *v to its setter */
#define MFAD_OPTION_ACCESS(fn, get, set) \
  static PetscErrorCode fn(MfadEnergy E, PetscBool assign, MfadOptionValue *v) \
  { \
    PetscFunctionBegin; \
    if (assign) PetscCall(set); \
    else get; \
    PetscFunctionReturn(PETSC_SUCCESS); \
  }

MFAD_OPTION_ACCESS(MfadOptBackend, PetscCall(PetscStrncpy(v->s, ((PetscObject)E)->type_name, sizeof(v->s))), MfadEnergySetType(E, v->s))
MFAD_OPTION_ACCESS(MfadOptNumThreads, v->i = E->opt.nthreads, MfadEnergySetNumThreads(E, v->i))
MFAD_OPTION_ACCESS(MfadOptBlockSize, v->i = E->opt.block_size, MfadEnergySetBlockSize(E, v->i))
MFAD_OPTION_ACCESS(MfadOptScatter,
                   v->i = MfadEnergyGatherScatter_Private(E)   ? MFAD_SCATTER_GATHER
                          : MfadEnergyAtomicScatter_Private(E) ? MFAD_SCATTER_ATOMIC
                                                               : MFAD_SCATTER_COLOUR,
                   MfadEnergySetScatter(E, (MfadScatter)v->i))
MFAD_OPTION_ACCESS(MfadOptReorder, v->b = E->opt.reorder, MfadEnergySetReorder(E, v->b))
MFAD_OPTION_ACCESS(MfadOptCheckFinite, v->b = E->opt.check_finite, MfadEnergySetCheckFinite(E, v->b))
MFAD_OPTION_ACCESS(MfadOptLanes, v->b = E->opt.lanes, MfadEnergySetLanes(E, v->b))
MFAD_OPTION_ACCESS(MfadOptCUDASync, v->b = E->opt.cuda_sync, MfadEnergySetCUDASync(E, v->b))
/* the projection and its epsilon: one setter, each option keeping the other's value; the epsilon
   alone chooses no type (a solver default's stays in force) */
MFAD_OPTION_ACCESS(MfadOptPSDProject, v->i = E->opt.psd_user, MfadEnergySetPSDProjection(E, (MfadPSDProjection)v->i, E->opt.psd_eps))
MFAD_OPTION_ACCESS(MfadOptPSDEpsilon, v->r = E->opt.psd_eps, MfadEnergySetPSDEpsilon_Private(E, v->r))
MFAD_OPTION_ACCESS(MfadOptPSDSteps, v->i = E->opt.psd_steps, MfadEnergySetPSDProjectionSteps(E, v->i))
MFAD_OPTION_ACCESS(MfadOptPSDSwitch, v->i = E->opt.psd_switch, MfadEnergySetPSDSwitch(E, (MfadPSDSwitch)v->i))
MFAD_OPTION_ACCESS(MfadOptSolverDefaults, v->b = E->opt.solver_defaults, MfadEnergySetSolverDefaults(E, v->b))
MFAD_OPTION_ACCESS(MfadOptStepBound, v->b = E->opt.step_bound, MfadEnergySetStepBound(E, v->b))
MFAD_OPTION_ACCESS(MfadOptLineSearchMemory, v->i = E->opt.ls_memory, MfadEnergySetLineSearchMemory(E, v->i))
MFAD_OPTION_ACCESS(MfadOptDecrementRtol, v->r = E->opt.decrement_rtol, MfadEnergySetDecrementTolerance(E, v->r))
MFAD_OPTION_ACCESS(MfadOptNewtonCG, v->b = E->opt.newton_cg, MfadEnergySetNewtonCG(E, v->b))
MFAD_OPTION_ACCESS(MfadOptDirectLimit, v->i = E->opt.direct_limit, MfadEnergySetDirectSolveLimit(E, v->i))
MFAD_OPTION_ACCESS(MfadOptDamping, v->r = E->opt.damping, MfadEnergySetDamping(E, v->r))
MFAD_OPTION_ACCESS(MfadOptCOOMerge, v->b = MfadEnergyCOOMerge_Private(E), MfadEnergySetCOOMerge(E, v->b))
MFAD_OPTION_ACCESS(MfadOptAssembleCSR, v->b = E->opt.assemble_csr, MfadEnergySetAssembleCSR(E, v->b))
MFAD_OPTION_ACCESS(MfadOptVTUBinary, v->b = E->opt.vtu_binary, MfadEnergySetVTUBinary(E, v->b))

static const char *const MfadScatters[] = {"colour", "atomic", "gather"}; /* MFAD_SCATTER_COLOUR, ... */

/* In the order the setters run: the projection before its steps, the steps before the switch
   (-mfad_psd_switch steps needs the count) */
/* clang-format off */
static const MfadOption MfadEnergyOptionList[] = {
    {"-mfad_backend", MFAD_OPTION_TYPE, "Where element loops run: a registered backend", "MfadEnergySetType", "a registered backend (MfadEnergyRegister())", 0, NULL, {0}, MfadOptBackend},
    {"-mfad_num_threads", MFAD_OPTION_INT, "OpenMP threads of element loops (0: OpenMP's count where measured faster, docs/threads.md)",
     "MfadEnergySetNumThreads", "an integer >= 0 (0: as measured faster)", 0, NULL, {0}, MfadOptNumThreads},
    {"-mfad_block_size", MFAD_OPTION_INT, "Consecutive elements per coloured block", "MfadEnergySetBlockSize", "an integer >= 1", 0, NULL, {0}, MfadOptBlockSize},
    {"-mfad_scatter", MFAD_OPTION_CHOICE,
     "Scatter: coloured blocks (deterministic; the CPU's default), atomics (the GPU's default) or, on the GPU, a gather per dof (deterministic)",
     "MfadEnergySetScatter", NULL, 3, MfadScatters, {0}, MfadOptScatter},
    {"-mfad_reorder", MFAD_OPTION_BOOL, "Sort elements by their first local vertex for locality", "MfadEnergySetReorder", NULL, 0, NULL, {0}, MfadOptReorder},
    {"-mfad_check_finite", MFAD_OPTION_BOOL, "Check the point for NaN/Inf before each evaluation", "MfadEnergySetCheckFinite", NULL, 0, NULL, {0},
     MfadOptCheckFinite},
    {"-mfad_lanes", MFAD_OPTION_BOOL, "CPU gradient, HVP, value and element Hessians on SIMD lanes, one element a lane, where the energy has them (else the scalar loop)",
     "MfadEnergySetLanes", NULL, 0, NULL, {0}, MfadOptLanes},
    {"-mfad_cuda_sync", MFAD_OPTION_BOOL, "CUDA backend: synchronise after each kernel launch, so that a fault names its kernel (debugging)", "MfadEnergySetCUDASync",
     NULL, 0, NULL, {0}, MfadOptCUDASync},
    {"-mfad_psd_project", MFAD_OPTION_CHOICE, "Project element Hessians to PSD before caching or assembly", "MfadEnergySetPSDProjection", NULL, 3,
     MfadPSDProjections, {0}, MfadOptPSDProject},
    {"-mfad_psd_epsilon", MFAD_OPTION_REAL, "Smallest eigenvalue left by the PSD projection", "MfadEnergySetPSDProjection", "a real >= 0", 0, NULL, {0},
     MfadOptPSDEpsilon},
    {"-mfad_psd_project_steps", MFAD_OPTION_INT,
     "SNES, TAO: project only in the first n Newton steps, then the exact Hessian (-1: always project); -mfad_psd_switch steps",
     "MfadEnergySetPSDProjectionSteps", "an integer >= -1 (-1: always project)", 0, NULL, {0}, MfadOptPSDSteps},
    {"-mfad_psd_switch", MFAD_OPTION_CHOICE,
     "SNES, TAO: each Newton step's Hessian, projected or exact: auto (inertia where the solver factors with it, else never), never, steps "
     "(-mfad_psd_project_steps), inertia",
     "MfadEnergySetPSDSwitch", NULL, 4, MfadPSDSwitches, {0}, MfadOptPSDSwitch},
    {"-mfad_solver_defaults", MFAD_OPTION_BOOL,
     "SNES, TAO: where the user chose no Hessian form or linear solver, mfad's (a factorisation with inertia up to -mfad_direct_solve_limit "
     "unknowns, else the automatic form with a Krylov cap)",
     "MfadEnergySetSolverDefaults", NULL, 0, NULL, {0}, MfadOptSolverDefaults},
    {"-mfad_step_bound", MFAD_OPTION_BOOL,
     "SNES, TAO nls: the line search starts at 0.8 of the step where the first element would leave its energy's domain (energies that declare it)",
     "MfadEnergySetStepBound", NULL, 0, NULL, {0}, MfadOptStepBound},
    {"-mfad_line_search_memory", MFAD_OPTION_INT,
     "SNES newtonls (bt), TAO nls: the full step is taken where E is below the largest E of the last m points by Armijo's decrease (nonmonotone; "
     "1: monotone; not with -mfad_newton_cg)",
     "MfadEnergySetLineSearchMemory", "an integer from 1 (monotone) to 16", 0, NULL, {0}, MfadOptLineSearchMemory},
    {"-mfad_decrement_rtol", MFAD_OPTION_REAL,
     "SNES newtonls, TAO nls: converged after a Newton step whose predicted decrease of E (g . H^-1 g / 2) is at most rtol |E| (0: off)",
     "MfadEnergySetDecrementTolerance", "a real >= 0 (0: off)", 0, NULL, {0}, MfadOptDecrementRtol},
    {"-mfad_newton_cg", MFAD_OPTION_BOOL,
     "SNES: Newton-CG on the exact Hessian preconditioned by the Cholesky factor of the projected one, the projected step where CG fails or meets "
     "negative curvature",
     "MfadEnergySetNewtonCG", NULL, 0, NULL, {0}, MfadOptNewtonCG},
    {"-mfad_direct_solve_limit", MFAD_OPTION_INT, "SNES, TAO: the most unknowns mfad's default solver factors directly", "MfadEnergySetDirectSolveLimit",
     "an integer >= 0", 0, NULL, {0}, MfadOptDirectLimit},
    {"-mfad_damping", MFAD_OPTION_REAL, "Levenberg-Marquardt: lambda I added to every Hessian (Jacobian) form; with least-squares terms J^T J + lambda I",
     "MfadEnergySetDamping", "a real >= 0", 0, NULL, {0}, MfadOptDamping},
    {"-mfad_coo_merge", MFAD_OPTION_BOOL,
     "MfadEnergyCreateMatrix: one COO entry per nonzero, element Hessians summed by mfad (the CPU's default); 0: one per element entry",
     "MfadEnergySetCOOMerge", NULL, 0, NULL, {0}, MfadOptCOOMerge},
    {"-mfad_assemble_csr", MFAD_OPTION_BOOL,
     "MfadEnergyCreateMatrix: merged entries preallocated from mfad's CSR, on any ranks (aij, baij, sbaij); 0: PETSc's COO", "MfadEnergySetAssembleCSR",
     NULL, 0, NULL, {0}, MfadOptAssembleCSR},
    {"-mfad_vtu_binary", MFAD_OPTION_BOOL, "MfadEnergyWriteVTU: base64 binary arrays instead of ASCII", "MfadEnergySetVTUBinary", NULL, 0, NULL, {0},
     MfadOptVTUBinary},
    /* viewed by MfadEnergySetUp() (PetscObjectViewFromOptions()); here for -help */
    {"-mfad_view", MFAD_OPTION_NAME, "View the energy at the end of each set-up (-mfad_view [ascii[:file[:format]]])", "MfadEnergySetUp", NULL, 0, NULL,
     {0}, NULL},
};
/* clang-format on */
static const struct _n_MfadOptionTable MfadEnergyOptionTable = {
    "mfad energy options", (PetscInt)(sizeof(MfadEnergyOptionList) / sizeof(MfadEnergyOptionList[0])), MfadEnergyOptionList};

/* ------------------------------------------------------------------ the mesh readers' options */
/* read where a mesh is read (src/readfile.c, src/dmplex.c: no energy exists then, so no prefix);
   listed here for -help and the check of a missing value */
/* clang-format off */
static const MfadOption MfadMeshOptionList[] = {
    {"-mfad_mesh_max_line", MFAD_OPTION_INT, "Mesh readers: the longest line read (bytes); a longer one is an error", "MfadMeshRead", "an integer >= 1 (bytes)",
     0, NULL, {.i = 64 << 20}, NULL},
    {"-mfad_mesh_check_manifold", MFAD_OPTION_BOOL, "Mesh readers: refuse a surface with an edge in more than 2 triangles (tet meshes are always checked)",
     "MfadMeshCheckManifold", NULL, 0, NULL, {.b = PETSC_FALSE}, NULL},
    {"-mfad_dmplex_max_degree", MFAD_OPTION_INT, "DMPlex energies: the largest vertex degree accepted (lowers PETSc's limit, never raises it)",
     "MfadEnergyCreateFromDMPlex", "an integer >= 1", 0, NULL, {.i = PETSC_MAX_INT}, NULL},
};
/* clang-format on */
static const struct _n_MfadOptionTable MfadMeshOptionTable = {"mfad mesh readers", (PetscInt)(sizeof(MfadMeshOptionList) / sizeof(MfadMeshOptionList[0])),
                                                              MfadMeshOptionList};

PetscErrorCode MfadEnergyGetOptionTable(MfadOptionTable *table)
{
  PetscFunctionBegin;
  MfadValidPointer(table, 1);
  *table = &MfadEnergyOptionTable;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMeshGetOptionTable(MfadOptionTable *table)
{
  PetscFunctionBegin;
  MfadValidPointer(table, 1);
  *table = &MfadMeshOptionTable;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define MFAD_MAX_TABLE 32

/* Every option of the energy's table, read in one block, then given to its setter in the table's
   order where given (an option not given leaves the setting made in code); the mesh readers'
   options listed for -help and checked for a missing value */
PetscErrorCode MfadEnergySetFromOptions(MfadEnergy E)
{
  const MfadOptionTable t = &MfadEnergyOptionTable, m = &MfadMeshOptionTable;
  MfadOptionValue       v[MFAD_MAX_TABLE];
  PetscBool             set[MFAD_MAX_TABLE];

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(t->n <= MFAD_MAX_TABLE && m->n <= MFAD_MAX_TABLE, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "MFAD_MAX_TABLE %d is less than a table's %" PetscInt_FMT " options", MFAD_MAX_TABLE, PetscMax(t->n, m->n));
  PetscCall(PetscArrayzero(v, MFAD_MAX_TABLE));
  for (PetscInt i = 0; i < t->n; i++)
    if (t->entries[i].access) PetscCall(t->entries[i].access(E, PETSC_FALSE, &v[i])); /* the current value: -help's default */
  PetscCall(MfadOptionsRead_Private(PetscObjectComm((PetscObject)E), ((PetscObject)E)->prefix, t, v, set));
  for (PetscInt i = 0; i < t->n; i++)
    if (set[i] && t->entries[i].access) PetscCall(t->entries[i].access(E, PETSC_TRUE, &v[i]));
  for (PetscInt i = 0; i < m->n; i++) v[i] = m->entries[i].dflt;
  PetscCall(MfadOptionsRead_Private(PetscObjectComm((PetscObject)E), NULL, m, v, set));
  E->opt.from_options = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One line of the view: every option of the energy's table with the energy's value, as it would
   be given ("-mfad_block_size 1024"), so that a view shows what each setter set */
PetscErrorCode MfadEnergyViewOptions_Private(MfadEnergy E, PetscViewer viewer)
{
  const MfadOptionTable t = &MfadEnergyOptionTable;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "options:"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
  for (PetscInt i = 0; i < t->n; i++) {
    const MfadOption *o = &t->entries[i];
    MfadOptionValue   v;
    if (!o->access) continue;
    PetscCall(o->access(E, PETSC_FALSE, &v));
    switch (o->type) {
    case MFAD_OPTION_BOOL:
      PetscCall(PetscViewerASCIIPrintf(viewer, " %s %d", o->name, (int)v.b));
      break;
    case MFAD_OPTION_INT:
      PetscCall(PetscViewerASCIIPrintf(viewer, " %s %" PetscInt_FMT, o->name, v.i));
      break;
    case MFAD_OPTION_REAL:
      PetscCall(PetscViewerASCIIPrintf(viewer, " %s %g", o->name, (double)v.r));
      break;
    case MFAD_OPTION_CHOICE:
      PetscCall(PetscViewerASCIIPrintf(viewer, " %s %s", o->name, v.i >= 0 && v.i < o->nchoice ? o->choices[v.i] : "?"));
      break;
    case MFAD_OPTION_TYPE:
      PetscCall(PetscViewerASCIIPrintf(viewer, " %s %s", o->name, v.s));
      break;
    case MFAD_OPTION_NAME:
      break;
    }
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
  PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
