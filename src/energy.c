// SPDX-License-Identifier: BSD-2-Clause
/* MfadEnergy: creation, terms, fixed dofs, setters, destruction (the options table: src/options.c). */
#include "mfadimpl.h"
#include <stdlib.h>

const char *const MfadBackends[] = {"cpu", "cuda", "MfadBackend", "MFAD_BACKEND_", NULL};
const char *const MfadPSDProjections[] = {"none", "clamp", "abs", "MfadPSDProjection", "MFAD_PSD_", NULL};
const char *const MfadPSDSwitches[]    = {"auto", "never", "steps", "inertia", "MfadPSDSwitch", "MFAD_PSD_SWITCH_", NULL};

PetscErrorCode MfadEnergyCreate(MPI_Comm comm, PetscInt dof, PetscInt n, PetscInt N, MfadEnergy *E)
{
  MfadEnergy e;
  PetscInt   rend;

  PetscFunctionBegin;
  MfadValidPointer(E, 5);
  *E = NULL;
  PetscCall(MfadInitializePackage());
  PetscCheck(dof >= 1 && dof <= 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyCreate: dofs per vertex must be 1, 2 or 3, not %" PetscInt_FMT, dof);
  PetscCheck(n == PETSC_DECIDE || n >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyCreate: negative local vertex count %" PetscInt_FMT, n);
  PetscCheck(N == PETSC_DETERMINE || N >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyCreate: negative global vertex count %" PetscInt_FMT, N);
  PetscCheck(n != PETSC_DECIDE || N != PETSC_DETERMINE, comm, PETSC_ERR_ARG_WRONG, "MfadEnergyCreate: give the local or the global vertex count");
  PetscCall(PetscSplitOwnership(comm, &n, &N));
  PetscCall(PetscHeaderCreate(e, MFAD_CLASSID, "MfadEnergy", "Mesh energy differentiated per element", "Mfad", comm, MfadEnergyDestroy, MfadEnergyView));
  e->dof = dof;
  e->n   = n;
  e->N   = N;
  PetscCallMPI(MPI_Scan(&n, &rend, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)e)));
  e->rstart       = rend - n;
  PetscCall(MfadEnergySetType(e, MFAD_ENERGY_CPU));
  {
    /* MPI ranks usually fill the cores already: one thread per rank unless OMP_NUM_THREADS says otherwise */
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)e), &size));
    if (size > 1 && !getenv("OMP_NUM_THREADS")) e->opt.nthreads = 1;
  }
  e->opt.block_size      = 1024;
  e->caches.ncache       = -1; /* the cache not laid out yet */
  e->opt.psd_steps       = -1;
  e->opt.psd_switch      = MFAD_PSD_SWITCH_AUTO;
  e->opt.solver_defaults = PETSC_TRUE;
  e->opt.direct_limit    = MFAD_DIRECT_SOLVE_LIMIT;
  e->opt.step_bound      = PETSC_TRUE;
  e->opt.ls_memory       = 10;
  e->opt.hessian_type    = -1;
  e->opt.pmat_type       = -1;
  e->opt.reorder         = PETSC_TRUE;
  e->opt.check_finite    = PETSC_TRUE;
  e->opt.lanes           = PETSC_TRUE;
  e->opt.assemble_csr    = PETSC_TRUE;
  e->dyn.elements_term   = -1;
  *E              = e;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Drops everything MfadEnergySetUp() built, so that the next Compute rebuilds it. */
PetscErrorCode MfadEnergyReset_Private(MfadEnergy E)
{
  PetscFunctionBegin;
  if (E->ops->reset) PetscCall(E->ops->reset(E)); /* the backend's copies of the set-up */
  for (PetscInt t = 0; t < E->nterms; t++) PetscCall(MfadTermResetLocal_Private(&E->terms[t]));
  PetscCall(PetscFree(E->local.ghosts));
  PetscCall(ISLocalToGlobalMappingDestroy(&E->local.ltog));
  PetscCall(VecDestroy(&E->local.xglob));
  PetscCall(VecDestroy(&E->local.xloc));
  PetscCall(VecDestroy(&E->local.vloc));
  PetscCall(VecDestroy(&E->local.yloc));
  PetscCall(VecScatterDestroy(&E->local.scatter));
  PetscCall(VecScatterDestroy(&E->local.ghostscatter));
  PetscCall(PetscFree(E->local.blockloc));
  PetscCall(PetscFree2(E->local.fixloc, E->local.fixval));
  PetscCall(MfadEnergyResetHessians_Private(E, PETSC_FALSE));
  E->local.nfixloc    = 0;
  E->local.nfixown    = 0;
  E->local.done       = PETSC_FALSE;
  E->local.fixed_done = PETSC_FALSE;
  E->local.xvalid     = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* For objects that keep the energy alive (the Hessian shell, SNES and TAO contexts); the same as
   PetscObjectReference() */
PetscErrorCode MfadEnergyReference(MfadEnergy E)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCall(PetscObjectReference((PetscObject)E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyDestroy(MfadEnergy *E)
{
  MfadEnergy e;

  PetscFunctionBegin;
  if (!E || !*E) PetscFunctionReturn(PETSC_SUCCESS);
  e = *E;
  MfadValidEnergy(e, 1);
  if (--((PetscObject)e)->refct > 0) {
    *E = NULL;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MfadEnergyReset_Private(e));
  if (e->ops->destroy) PetscCall(e->ops->destroy(e));
  PetscCall(MfadEnergyDestroyContact_Private(e));
  for (PetscInt t = 0; t < e->nterms; t++) {
    PetscCall(PetscFree(e->terms[t].conn_global));
    PetscCall(PetscFree(e->terms[t].params));
  }
  PetscCall(PetscFree(e->terms));
  PetscCall(PetscFree2(e->fix_given, e->fix_given_val));
  PetscCall(PetscHeaderDestroy(E)); /* frees e, sets *E to NULL */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* How a message names this rank's element e of a term being added: by the global number where the
   caller knows it (first >= 0: MfadEnergyAddTermFromMesh() adds cells first, first + 1, ...), else
   by rank on several ranks, as "element 0" of rank 2 is not the mesh's element 0 (the other ranks'
   counts would need a collective, and these errors are raised on one rank) */
static PetscErrorCode MfadEnergyElementName_Private(MfadEnergy E, PetscInt first, PetscInt e, char buf[], size_t len)
{
  PetscMPIInt size, rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)E), &size));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)E), &rank));
  if (first >= 0) PetscCall(PetscSNPrintf(buf, len, "element %" PetscInt_FMT, first + e));
  else if (size == 1) PetscCall(PetscSNPrintf(buf, len, "element %" PetscInt_FMT, e));
  else PetscCall(PetscSNPrintf(buf, len, "local element %" PetscInt_FMT " of rank %d", e, rank));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* element e's vertices, "v0 v1 ..." */
static PetscErrorCode MfadElementVertices_Private(PetscInt nv, const PetscInt conn[], PetscInt e, char buf[], size_t len)
{
  PetscFunctionBegin;
  buf[0] = 0;
  for (PetscInt a = 0; a < nv; a++) {
    size_t l;
    PetscCall(PetscStrlen(buf, &l));
    PetscCall(PetscSNPrintf(buf + l, len - l, "%s%" PetscInt_FMT, a ? " " : "", conn[e * nv + a]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadEnergyNewTerm_Private(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[], PetscInt first, MfadTerm **term,
                                                PetscInt *index)
{
  MfadTerm *t;

  PetscFunctionBegin;
  PetscCheck(k && k->name, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_NULL, "MfadEnergyAddTerm: NULL kernel");
  PetscCheck(k->dof == E->dof, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "MfadEnergyAddTerm: kernel '%s' has %d dofs per vertex but the energy has %" PetscInt_FMT, k->name, k->dof, E->dof);
  PetscCheck(nelem >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyAddTerm: kernel '%s': negative element count %" PetscInt_FMT, k->name,
             nelem);
  PetscCheck(nelem == 0 || conn, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadEnergyAddTerm: kernel '%s': %" PetscInt_FMT " elements but no connectivity", k->name, nelem);
  PetscCheck(k->nout == 0 || (k->nout >= 1 && k->nout <= 24 && k->residual), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "MfadEnergyAddTerm: kernel '%s' has %d outputs per element but no residual entry points (outputs: 0 for an energy, 1 to 24 for a residual)", k->name, k->nout);
  PetscCheck(k->sum != MFAD_SUM_SYSTEM || k->nout == k->nvert * k->dof, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "MfadEnergyAddTerm: kernel '%s' is a system residual of %d outputs; a system residual has one output per element unknown (%d)", k->name, k->nout, k->nvert * k->dof);
  PetscCheck((PetscInt64)nelem * k->nvert < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyAddTerm: kernel '%s': %" PetscInt_FMT " elements overflow PetscInt indexing", k->name, nelem);
  /* a repeated vertex makes a degenerate element (a tet of volume 0: energy +inf, or a silently
     zero spring); the readers refuse it, and so does the API */
  for (PetscInt e = 0; e < nelem; e++)
    for (PetscInt a = 1; a < k->nvert; a++)
      for (PetscInt b = 0; b < a; b++)
        if (PetscUnlikely(conn[e * k->nvert + a] == conn[e * k->nvert + b])) {
          char name[64], verts[256];
          PetscCall(MfadEnergyElementName_Private(E, first, e, name, sizeof(name)));
          PetscCall(MfadElementVertices_Private(k->nvert, conn, e, verts, sizeof(verts)));
          SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                  "term '%s': %s repeats vertex %" PetscInt_FMT " (vertices %s): an element's vertices must be distinct", k->name, name,
                  conn[e * k->nvert + a], verts);
        }
  if (E->nterms == E->maxterms) {
    MfadTerm *terms;
    PetscInt  max = E->maxterms ? 2 * E->maxterms : 4;
    PetscCall(PetscCalloc1(max, &terms));
    if (E->nterms) PetscCall(PetscArraycpy(terms, E->terms, E->nterms));
    PetscCall(PetscFree(E->terms));
    E->terms    = terms;
    E->maxterms = max;
  }
  PetscCall(MfadEnergyReset_Private(E)); /* a new term changes ghosts and colouring */
  t = &E->terms[E->nterms];
  PetscCall(PetscMemzero(t, sizeof(*t)));
  PetscCall(PetscStrncpy(t->name, k->name, sizeof(t->name)));
  t->k     = k;
  t->nelem = nelem;
  PetscCall(PetscMalloc1((size_t)nelem * k->nvert, &t->conn_global));
  if (nelem) PetscCall(PetscArraycpy(t->conn_global, conn, (size_t)nelem * k->nvert));
  PetscCall(PetscMalloc1((size_t)nelem * k->nparam, &t->params));
  *term  = t;
  *index = E->nterms++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyAddTerm(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[], const PetscReal params[], PetscReal weight, PetscInt *term)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyAddTerm_Private(E, k, nelem, conn, params, weight, -1, term));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MfadEnergyAddTerm(); `first`: the global number of this rank's first element where the caller
   knows it (messages name elements by it), else -1 */
PetscErrorCode MfadEnergyAddTerm_Private(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[], const PetscReal params[],
                                         PetscReal weight, PetscInt first, PetscInt *term)
{
  MfadTerm *t;
  PetscInt  index;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(!(nelem > 0 && k && k->nparam > 0 && !params), PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadEnergyAddTerm: kernel '%s' takes %d parameters per element but params is NULL", k->name, k->nparam);
  PetscCheck(PetscIsNormalReal(weight) || weight == 0.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyAddTerm: weight %g is not finite", (double)weight);
  PetscCheck(!(k && k->sum == MFAD_SUM_LEAST_SQUARES && weight < 0), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadEnergyAddTerm: kernel '%s' is a least-squares residual: its weight w scales 1/2 |r|^2 and must be >= 0, not %g", k->name, (double)weight);
  PetscCall(MfadEnergyNewTerm_Private(E, k, nelem, conn, first, &t, &index));
  t->weight = weight;
  for (PetscInt i = 0; i < nelem * k->nparam; i++) {
    if (PetscUnlikely(PetscIsInfOrNanReal(params[i]))) {
      char name[64];
      PetscCall(MfadEnergyElementName_Private(E, first, i / k->nparam, name, sizeof(name)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "term '%s': %s parameter %" PetscInt_FMT " is %g", t->name, name, i % k->nparam,
              (double)params[i]);
    }
    t->params[i] = params[i];
  }
  if (term) *term = index;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The uncounted calls read exactly the kernel's k->nmaterial constants: a shorter array was read
   past its end (issue 46: 2 constants for a kernel reading 3 converged to a wrong energy). The
   counted calls check the caller's count against the kernel's first. */
PetscErrorCode MfadEnergyCheckMaterialCount_Private(MfadEnergy E, MfadKernel k, const char caller[], PetscInt nmaterial, const PetscReal material[])
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(k && k->name, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "%s: NULL kernel", caller);
  PetscCheck(nmaterial == k->nmaterial, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "%s: term %" PetscInt_FMT " (kernel '%s') reads %d material constants, %" PetscInt_FMT " given", caller, E->nterms, k->name,
             k->nmaterial, nmaterial);
  /* only a rest-shape set-up reads them */
  PetscCheck(!k->rest || nmaterial == 0 || material, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "%s: term %" PetscInt_FMT " (kernel '%s'): %" PetscInt_FMT " material constants but material is NULL", caller, E->nterms, k->name,
             nmaterial);
  for (PetscInt i = 0; material && i < nmaterial; i++)
    PetscCheck(!PetscIsInfOrNanReal(material[i]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "%s: term %" PetscInt_FMT " (kernel '%s'): material constant %" PetscInt_FMT " is %g", caller, E->nterms, k->name, i,
               (double)material[i]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyAddTermFromRest(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[], const PetscReal rest[], const PetscReal material[], PetscReal weight,
                                         PetscInt *term)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyAddTermFromRest_Private(E, k, nelem, conn, rest, material, weight, -1, term));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyAddTermFromRestWithMaterial(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[], const PetscReal rest[],
                                                     PetscInt nmaterial, const PetscReal material[], PetscReal weight, PetscInt *term)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyCheckMaterialCount_Private(E, k, "MfadEnergyAddTermFromRestWithMaterial", nmaterial, material));
  PetscCall(MfadEnergyAddTermFromRest_Private(E, k, nelem, conn, rest, material, weight, -1, term));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MfadEnergyAddTermFromRest(); `first` as for MfadEnergyAddTerm_Private() */
PetscErrorCode MfadEnergyAddTermFromRest_Private(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[], const PetscReal rest[],
                                                 const PetscReal material[], PetscReal weight, PetscInt first, PetscInt *term)
{
  MfadTerm *t;
  PetscInt  index;
  double    mat[MFAD_MATERIAL_MAX] = {0};

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(k && k->rest, PETSC_COMM_SELF, PETSC_ERR_SUP, "MfadEnergyAddTermFromRest: kernel '%s' has no rest-shape set-up; use MfadEnergyAddTerm() with parameters", k ? k->name : "(null)");
  PetscCheck(nelem == 0 || rest, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadEnergyAddTermFromRest: kernel '%s': no rest coordinates", k->name);
  PetscCheck(k->nmaterial == 0 || material, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadEnergyAddTermFromRest: kernel '%s' takes %d material constants but material is NULL", k->name, k->nmaterial);
  PetscCheck(k->nvert * k->rest_dim <= 64, PETSC_COMM_SELF, PETSC_ERR_SUP, "kernel '%s': rest shapes of more than 64 coordinates", k->name);
  PetscCheck(k->nmaterial <= MFAD_MATERIAL_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "kernel '%s': more than %d material constants", k->name,
             MFAD_MATERIAL_MAX);
  for (int i = 0; i < k->nmaterial; i++) {
    PetscCheck(!PetscIsInfOrNanReal(material[i]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "kernel '%s': material constant %d is %g", k->name, i, (double)material[i]);
    mat[i] = material[i];
  }
  PetscCheck(PetscIsNormalReal(weight) || weight == 0.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyAddTermFromRest: weight %g is not finite", (double)weight);
  PetscCall(MfadEnergyNewTerm_Private(E, k, nelem, conn, first, &t, &index));
  t->weight    = weight;
  t->nmaterial = k->nmaterial;
  for (int i = 0; i < k->nmaterial; i++) t->material[i] = material[i];
  for (PetscInt e = 0; e < nelem; e++) {
    const PetscReal *r = rest + (size_t)e * k->nvert * k->rest_dim;
    double           rs[64];
    int              code;
    char             name[64];
    for (int i = 0; i < k->nvert * k->rest_dim; i++) {
      if (PetscUnlikely(PetscIsInfOrNanReal(r[i]))) {
        PetscCall(MfadEnergyElementName_Private(E, first, e, name, sizeof(name)));
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "term '%s': %s (vertex %" PetscInt_FMT "): rest coordinate is %g", t->name, name,
                conn[e * k->nvert + i / k->rest_dim], (double)r[i]);
      }
      rs[i] = r[i];
    }
    code = k->rest(rs, mat, t->params + (size_t)e * k->nparam);
    if (code) {
      char verts[256];
      PetscCall(MfadElementVertices_Private(k->nvert, conn, e, verts, sizeof(verts)));
      PetscCall(MfadEnergyElementName_Private(E, first, e, name, sizeof(name)));
      E->nterms--; /* the failed term is not kept */
      PetscCall(PetscFree(t->conn_global));
      PetscCall(PetscFree(t->params));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "term '%s': %s has a degenerate or inverted rest shape (kernel code %d: %s) (vertices %s)",
              k->name, name, code, code == 2 ? "inverted" : "zero or tiny size", verts);
    }
  }
  if (term) *term = index;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetTermName(MfadEnergy E, PetscInt term, const char name[])
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(term >= 0 && term < E->nterms, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergySetTermName: no term %" PetscInt_FMT " (the energy has %" PetscInt_FMT ")", term, E->nterms);
  PetscCall(PetscStrncpy(E->terms[term].name, name, sizeof(E->terms[term].name)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetFixedDofs(MfadEnergy E, PetscInt n, const PetscInt dofs[], const PetscReal values[])
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergySetFixedDofs: negative count %" PetscInt_FMT, n);
  PetscCheck(n == 0 || dofs, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "MfadEnergySetFixedDofs: %" PetscInt_FMT " dofs but no indices", n);
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(dofs[i] >= 0 && dofs[i] < E->N * E->dof, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergySetFixedDofs: dof %" PetscInt_FMT " (entry %" PetscInt_FMT ") is outside [0, %" PetscInt_FMT ")", dofs[i], i, E->N * E->dof);
    PetscCheck(!values || !PetscIsInfOrNanReal(values[i]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergySetFixedDofs: value of dof %" PetscInt_FMT " is %g", dofs[i], (double)values[i]);
  }
  PetscCall(PetscFree2(E->fix_given, E->fix_given_val));
  PetscCall(PetscMalloc2(n, &E->fix_given, n, &E->fix_given_val));
  for (PetscInt i = 0; i < n; i++) {
    E->fix_given[i]     = dofs[i];
    E->fix_given_val[i] = values ? values[i] : 0.0;
  }
  E->nfix_given  = n;
  E->local.fixed_done = PETSC_FALSE;
  E->local.xvalid     = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetNumThreads(MfadEnergy E, PetscInt nthreads)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(nthreads >= 0, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergySetNumThreads: %" PetscInt_FMT " threads", nthreads);
  if (nthreads != E->opt.nthreads) PetscCall(PetscArrayzero(E->threads, MFAD_SITE_COUNT)); /* measure the new count afresh */
  E->opt.nthreads = nthreads;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetNumThreadsUsed(MfadEnergy E, PetscInt *nthreads)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(nthreads, 2);
  *nthreads = PetscMax(E->threads_used, 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetBlockSize(MfadEnergy E, PetscInt bs)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(bs >= 1, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE, "-mfad_block_size %" PetscInt_FMT " must be >= 1", bs);
  if (bs != E->opt.block_size) PetscCall(MfadEnergyReset_Private(E)); /* the colouring is by blocks */
  E->opt.block_size = bs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetScatter(MfadEnergy E, MfadScatter scatter)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(scatter >= MFAD_SCATTER_DEFAULT && scatter <= MFAD_SCATTER_GATHER, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE,
             "MfadEnergySetScatter: no scatter %d", (int)scatter);
  E->opt.scatter_set = (PetscBool)(scatter != MFAD_SCATTER_DEFAULT);
  E->opt.atomic      = (PetscBool)(scatter == MFAD_SCATTER_ATOMIC);
  E->opt.gather      = (PetscBool)(scatter == MFAD_SCATTER_GATHER);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetReorder(MfadEnergy E, PetscBool flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (flg != E->opt.reorder) PetscCall(MfadEnergyReset_Private(E)); /* the element order is set up */
  E->opt.reorder = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetCheckFinite(MfadEnergy E, PetscBool flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  E->opt.check_finite = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetLanes(MfadEnergy E, PetscBool flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  E->opt.lanes = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetCUDASync(MfadEnergy E, PetscBool flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  E->opt.cuda_sync = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetOptionsPrefix(MfadEnergy E, const char prefix[])
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)E, prefix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetOptionsPrefix(MfadEnergy E, const char *prefix[])
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(prefix, 2);
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)E, prefix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetCOOMerge(MfadEnergy E, PetscBool flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  E->opt.coo_merge_set = PETSC_TRUE; /* CUDA's refusal of merged entries is at MfadEnergyCreateMatrix(): the backend may change before */
  E->opt.coo_merge     = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetAssembleCSR(MfadEnergy E, PetscBool flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  E->opt.assemble_csr = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetVTUBinary(MfadEnergy E, PetscBool flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  E->opt.vtu_binary = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetPSDProjection(MfadEnergy E, MfadPSDProjection type, PetscReal epsilon)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(type >= MFAD_PSD_NONE && type <= MFAD_PSD_ABS, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergySetPSDProjection: unknown projection %d", (int)type);
  PetscCheck(epsilon >= 0 && !PetscIsInfOrNanReal(epsilon), PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE, "-mfad_psd_epsilon %g must be finite and >= 0", (double)epsilon);
  E->solve.psd      = type;
  E->opt.psd_user   = type;
  E->opt.psd_eps    = epsilon;
  E->opt.psd_chosen = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mfad_psd_epsilon alone: the epsilon of the projection in force, the one chosen or, where none
   was, the solver default's (MfadEnergySetPSDProjectionDefault_Private keeps it). Through
   MfadEnergySetPSDProjection() it also chose the type in force before any default, none: param
   with -mfad_psd_epsilon 1e-8 took exact Newton steps from its Tutte start and ended
   DIVERGED_LINE_SEARCH on bunny_cut.obj */
PetscErrorCode MfadEnergySetPSDEpsilon_Private(MfadEnergy E, PetscReal epsilon)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (E->opt.psd_chosen) PetscCall(MfadEnergySetPSDProjection(E, E->opt.psd_user, epsilon));
  else {
    PetscCheck(epsilon >= 0 && !PetscIsInfOrNanReal(epsilon), PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE,
               "-mfad_psd_epsilon %g must be finite and >= 0", (double)epsilon);
    E->opt.psd_eps = epsilon;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* shell/defaults.c: a solver default's projection, which the user's choice (before or after) overrides:
   clamp where every scalar term's energy declares it (MfadEnergyInfo.projection), else abs. abs turns
   each negative eigenvalue into a stiff direction, which keeps a factor of the sum definite where
   clamp's zeros would leave it singular (a free spring chain: MUMPS failed on it; PETSc's LDL^T,
   which does not pivot, stopped elastic's Neo-Hookean bar at |g| 2e-7 of its start), but shortens
   the steps far from a minimum: symmetric Dirichlet from a Tutte start took 16/305/63/82 Newton
   steps with abs and 15/129/52/56 with clamp (param on spot_jitter, sock, bunny_cut,
   armadillo_cut_low), so it declares clamp. */
PetscErrorCode MfadEnergySetPSDProjectionDefault_Private(MfadEnergy E, PetscBool *chosen)
{
  MfadPSDProjection type = MFAD_PSD_CLAMP;
  PetscBool         any  = PETSC_FALSE;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *chosen = E->opt.psd_chosen;
  if (E->opt.psd_chosen) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt k = 0; k < E->nterms; k++) {
    const struct _n_MfadKernel *kern = E->terms[k].k;
    if (kern->nout > 0) continue; /* a residual's Gauss-Newton Hessian: nothing to project */
    any = PETSC_TRUE;
    if (kern->projection != MFAD_PSD_CLAMP) type = MFAD_PSD_ABS;
  }
  if (!any) type = MFAD_PSD_ABS;
  E->solve.psd    = type;
  E->opt.psd_user = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* shell/forms.c: the Hessian forms set in code (-1: none), read as the defaults of -mfad_hessian, -mfad_pmat */
PetscErrorCode MfadEnergySetHessianTypes_Private(MfadEnergy E, PetscInt jac, PetscInt pmat)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  E->opt.hessian_type = jac;
  E->opt.pmat_type    = pmat;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetHessianTypes_Private(MfadEnergy E, PetscInt *jac, PetscInt *pmat)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *jac  = E->opt.hessian_type;
  *pmat = E->opt.pmat_type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetStepBound(MfadEnergy E, PetscBool flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  E->opt.step_bound = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetStepBound(MfadEnergy E, PetscBool *flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *flg = E->opt.step_bound;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetLineSearchMemory(MfadEnergy E, PetscInt m)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(m >= 1 && m <= MFAD_LINE_SEARCH_MEMORY_MAX, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE,
             "mfad: -mfad_line_search_memory %" PetscInt_FMT ": must be 1 (monotone) to %d", m, MFAD_LINE_SEARCH_MEMORY_MAX);
  E->opt.ls_memory = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetLineSearchMemory(MfadEnergy E, PetscInt *m)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *m = E->opt.ls_memory;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetDecrementTolerance(MfadEnergy E, PetscReal rtol)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(rtol >= 0 && !PetscIsInfOrNanReal(rtol), PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE,
             "mfad: -mfad_decrement_rtol %g: must be a finite real >= 0 (0: off)", (double)rtol);
  E->opt.decrement_rtol = rtol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetDecrementTolerance(MfadEnergy E, PetscReal *rtol)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(rtol, 2);
  *rtol = E->opt.decrement_rtol;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetNewtonCG(MfadEnergy E, PetscBool flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  E->opt.newton_cg = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetNewtonCG(MfadEnergy E, PetscBool *flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *flg = E->opt.newton_cg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* shell/newtoncg.c: adds to this solve's counts (reset: from zero) */
PetscErrorCode MfadEnergyCountNewtonCG_Private(MfadEnergy E, PetscBool reset, PetscInt fallbacks, PetscInt escapes)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (reset) E->solve.ncg_nfallback = 0, E->solve.ncg_nescape = 0;
  E->solve.ncg_nfallback += fallbacks;
  E->solve.ncg_nescape += escapes;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetNewtonCGCounts(MfadEnergy E, PetscInt *fallbacks, PetscInt *escapes)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (fallbacks) *fallbacks = E->solve.ncg_nfallback;
  if (escapes) *escapes = E->solve.ncg_nescape;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetSolverDefaults(MfadEnergy E, PetscBool flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  E->opt.solver_defaults = flg;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetSolverDefaults(MfadEnergy E, PetscBool *flg)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *flg = E->opt.solver_defaults;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetDirectSolveLimit(MfadEnergy E, PetscInt n)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(n >= 0, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE, "-mfad_direct_solve_limit %" PetscInt_FMT " must be >= 0", n);
  E->opt.direct_limit = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetDirectSolveLimit(MfadEnergy E, PetscInt *n)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *n = E->opt.direct_limit;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetDamping(MfadEnergy E, PetscReal lambda)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(lambda >= 0 && !PetscIsInfOrNanReal(lambda), PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE, "-mfad_damping %g must be finite and >= 0", (double)lambda);
  E->opt.damping = lambda;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetDamping(MfadEnergy E, PetscReal *lambda)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *lambda = E->opt.damping;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetPSDProjection(MfadEnergy E, MfadPSDProjection *type, PetscReal *epsilon)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (type) *type = E->opt.psd_user;
  if (epsilon) *epsilon = E->opt.psd_eps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the projection of this Newton step: psd_user, or none in an exact step of -mfad_psd_project_steps */
PetscErrorCode MfadEnergyGetPSDProjectionInUse_Private(MfadEnergy E, MfadPSDProjection *type)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *type = E->solve.psd;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetPSDProjectionSteps(MfadEnergy E, PetscInt *steps)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *steps = E->opt.psd_steps;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetPSDProjectionInUse_Private(MfadEnergy E, MfadPSDProjection type)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  E->solve.psd = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The projection of Newton step `it` of a SNES or TAO solve under -mfad_psd_switch steps: projected in
   the first psd_steps steps, then exact; an exact step whose linear solve failed restarts the
   count */
PetscErrorCode MfadEnergyChooseProjection_Private(MfadEnergy E, PetscInt it, PetscBool failed)
{
  PetscFunctionBegin;
  if (E->opt.psd_switch != MFAD_PSD_SWITCH_STEPS || E->opt.psd_steps < 0 || E->opt.psd_user == MFAD_PSD_NONE) PetscFunctionReturn(PETSC_SUCCESS);
  if (it == 0) E->solve.psd_left = E->opt.psd_steps;
  else if (E->solve.psd_exact_last && failed) {
    PetscCall(PetscInfo(E, "mfad: the exact Hessian's linear solve failed: %" PetscInt_FMT " projected steps\n", E->opt.psd_steps));
    E->solve.psd_left = E->opt.psd_steps;
  }
  E->solve.psd_exact_last = E->solve.psd_left > 0 ? PETSC_FALSE : PETSC_TRUE;
  if (E->solve.psd_left > 0) E->solve.psd_left--;
  E->solve.psd = E->solve.psd_exact_last ? MFAD_PSD_NONE : E->opt.psd_user;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetPSDProjectionSteps(MfadEnergy E, PetscInt steps)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(steps >= -1, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE, "-mfad_psd_project_steps %" PetscInt_FMT " must be >= -1 (-1: always project)", steps);
  E->opt.psd_steps  = steps;
  E->opt.psd_switch = steps >= 0 ? MFAD_PSD_SWITCH_STEPS : MFAD_PSD_SWITCH_NEVER;
  E->solve.psd      = E->opt.psd_user;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* shell/psdswitch.c: adds to this solve's counts (reset: from zero) */
PetscErrorCode MfadEnergyCountPSDSwitch_Private(MfadEnergy E, PetscBool reset, PetscInt exact, PetscInt fallbacks)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (reset) E->solve.psd_nexact = 0, E->solve.psd_nfallback = 0;
  E->solve.psd_nexact += exact;
  E->solve.psd_nfallback += fallbacks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetPSDSwitchCounts(MfadEnergy E, PetscInt *exact, PetscInt *fallbacks)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (exact) *exact = E->solve.psd_nexact;
  if (fallbacks) *fallbacks = E->solve.psd_nfallback;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergySetPSDSwitch(MfadEnergy E, MfadPSDSwitch type)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(type >= MFAD_PSD_SWITCH_AUTO && type <= MFAD_PSD_SWITCH_INERTIA, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE,
             "MfadEnergySetPSDSwitch: unknown switch %d", (int)type);
  PetscCheck(type != MFAD_PSD_SWITCH_STEPS || E->opt.psd_steps >= 0, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_WRONG,
             "-mfad_psd_switch steps needs the count of projected steps: -mfad_psd_project_steps n (MfadEnergySetPSDProjectionSteps())");
  E->opt.psd_switch = type;
  E->solve.psd      = E->opt.psd_user;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetPSDSwitch(MfadEnergy E, MfadPSDSwitch *type)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *type = E->opt.psd_switch;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetComm(MfadEnergy E, MPI_Comm *comm)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  *comm = PetscObjectComm((PetscObject)E);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyGetSizes(MfadEnergy E, PetscInt *dof, PetscInt *n, PetscInt *N)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (dof) *dof = E->dof;
  if (n) *n = E->n;
  if (N) *N = E->N;
  PetscFunctionReturn(PETSC_SUCCESS);
}
