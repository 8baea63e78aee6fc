// SPDX-License-Identifier: BSD-2-Clause
/* MfadEnergyView: terms, sizes, options, load balance, colouring, backend, flops per element: what
   exists (a view sets nothing up). */
#include <stdio.h>
#include <string.h>
#include "mfadimpl.h"

/* Load balance over the ranks: min / average / max of elements (all terms), owned and ghost
   vertices; ghosts are what each product exchanges (twice: gather, then add back). */
static PetscErrorCode MfadEnergyViewLoadBalance_Private(MfadEnergy E, PetscViewer viewer)
{
  PetscMPIInt size;
  PetscReal   mine[3] = {0, (PetscReal)E->n, (PetscReal)E->local.nghost}, lo[3], hi[3], sum[3];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)E), &size));
  for (PetscInt t = 0; t < E->nterms; t++) mine[0] += E->terms[t].nelem;
  PetscCall(MPIU_Allreduce(mine, lo, 3, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)E)));
  PetscCall(MPIU_Allreduce(mine, hi, 3, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)E)));
  PetscCall(MPIU_Allreduce(mine, sum, 3, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)E)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "load balance over %d ranks (min / avg / max): elements %.0f / %.1f / %.0f (max/avg %.3f), owned vertices %.0f / %.1f / %.0f, ghost vertices %.0f / %.1f / %.0f (ghosts/owned %.3f)\n", size,
                                   (double)lo[0], (double)(sum[0] / size), (double)hi[0], sum[0] > 0 ? (double)(hi[0] * size / sum[0]) : 1.0, (double)lo[1], (double)(sum[1] / size), (double)hi[1], (double)lo[2],
                                   (double)(sum[2] / size), (double)hi[2], sum[1] > 0 ? (double)(sum[2] / sum[1]) : 0.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Flops per element of terms not yet evaluated, at the point the energy holds (as the first
   evaluation counts them: the term's first element in loop order) */
static PetscErrorCode MfadEnergyViewCountFlops_Private(MfadEnergy E)
{
  const PetscScalar *x;

  PetscFunctionBegin;
  if (!E->local.xvalid) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(VecGetArrayRead(E->local.xloc, &x));
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm  *term = &E->terms[t];
    MfadKernel k    = term->k;
    double     xe[24]; /* MFAD_N <= 24 (mfad/impl/ad.h) */
    if (term->flops_known || !term->nelem) continue;
    for (int a = 0; a < k->nvert; a++)
      for (int d = 0; d < k->dof; d++) xe[a * k->dof + d] = PetscRealPart(x[(size_t)term->conn[a] * k->dof + d]);
    k->flops(xe, k->nparam ? term->params : NULL, term->flops);
    term->flops_known = PETSC_TRUE;
  }
  PetscCall(VecRestoreArrayRead(E->local.xloc, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyView(MfadEnergy E, PetscViewer viewer)
{
  PetscBool   ascii;
  PetscMPIInt rank, size;
  PetscInt    nfix = 0;
  PetscViewerFormat format;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PetscObjectComm((PetscObject)E), &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadEnergyViewCountFlops_Private(E));
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)E), &rank));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)E), &size));
  PetscCall(MPIU_Allreduce(&E->local.nfixown, &nfix, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)E)));
  PetscCall(PetscObjectPrintClassNamePrefixType((PetscObject)E, viewer)); /* "MfadEnergy Object: name (prefix) n MPI processes" */
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (E->local.done)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "%" PetscInt_FMT " vertices x %" PetscInt_FMT " dofs, %" PetscInt_FMT " fixed dofs, %" PetscInt_FMT " terms\n",
                                     E->N, E->dof, nfix, E->nterms));
  else /* the fixed dofs are counted (owners found) at set-up */
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "%" PetscInt_FMT " vertices x %" PetscInt_FMT " dofs, %" PetscInt_FMT
                                     " terms; not set up (MfadEnergySetUp(): ghosts, colouring, fixed dofs)\n",
                                     E->N, E->dof, E->nterms));
  PetscCall(PetscViewerASCIIPrintf(
      viewer, "backend %s, threads %" PetscInt_FMT " (0: one or OpenMP's count, as measured faster), scatter %s, block size %" PetscInt_FMT "\n",
      ((PetscObject)E)->type_name, E->opt.nthreads,
      MfadEnergyGatherScatter_Private(E)   ? "gather (GPU; colours elsewhere)"
      : MfadEnergyAtomicScatter_Private(E) ? "atomic"
                                           : "coloured blocks",
      E->opt.block_size));
  PetscCall(MfadEnergyViewOptions_Private(E, viewer));
  for (PetscInt t = 0; t < E->nterms; t++) {
    MfadTerm *term = &E->terms[t];
    PetscInt  nglob;
    PetscCall(MPIU_Allreduce(&term->nelem, &nglob, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)E)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "term %" PetscInt_FMT " '%s': kernel %s (%d vertices, %d params), %" PetscInt_FMT " elements, weight %g\n", t, term->name, term->k->name, term->k->nvert,
                                     term->k->nparam, nglob, (double)term->weight));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    if (term->k->nout == 0 && term->k->description[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "E_e = %s\n", term->k->description));
    if (term->nmaterial > 0) { /* the constants the rest-shape set-up read (this rank's; every rank passes them) */
      char   line[MFAD_MATERIAL_MAX * 26 + 16] = "material:";
      size_t len;
      /* C's %.15g: every digit a double's value is sure of, no PETSc trailing "." */
      for (int i = 0; i < term->nmaterial; i++) {
        PetscCall(PetscStrlen(line, &len));
        (void)snprintf(line + len, sizeof(line) - len, " %.15g", (double)term->material[i]);
      }
      PetscCall(PetscViewerASCIIPrintf(viewer, "%s\n", line));
    }
    if (term->k->nout > 0 && term->k->sum == MFAD_SUM_SYSTEM)
      PetscCall(PetscViewerASCIIPrintf(viewer, "residual of %d outputs summed into the element's unknowns (a system F(x) = 0, Jacobian J_e): r_e = %s\n", term->k->nout, term->k->description));
    else if (term->k->nout > 0)
      PetscCall(PetscViewerASCIIPrintf(viewer, "least-squares residual of %d outputs (w/2 |r_e|^2, Gauss-Newton J_e^T J_e): r_e = %s\n", term->k->nout, term->k->description));
    if (term->k->nfeat > 0)
      PetscCall(PetscViewerASCIIPrintf(viewer, "AD at %d features (pulled back to %d unknowns); gradient and HVP %s\n", term->k->nfeat, term->k->nvert * term->k->dof,
                                       term->k->reverse ? "forward-over-reverse (one tangent; the flop counts below are forward-over-forward's)" : "forward-over-forward"));
    if (term->k->lanes) { /* what the kernel's CPU loops run on SIMD lanes, as compiled (mfad/impl/loop_cpu_lanes.h) */
      static const char *const modes[]   = {"gradient", "HVP", "value", "element Hessians", "Hessian diagonal"};
      char                     line[160] = "";
      for (int m = 0; m < 5; m++)
        if (term->k->lanes & (1 << m)) (void)snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", line[0] ? ", " : "", modes[m]);
      PetscCall(PetscViewerASCIIPrintf(viewer, "CPU loops on SIMD lanes (-mfad_lanes %s): %s\n", E->opt.lanes ? "true" : "false: off", line));
    }
    if (term->flops_known && term->k->nout > 0 && term->k->sum == MFAD_SUM_SYSTEM)
      PetscCall(PetscViewerASCIIPrintf(viewer, "flops per element: F %.0f, JVP %.0f, Jacobian %.0f\n", term->flops[1], term->flops[2], term->flops[3]));
    else if (term->flops_known && term->k->nout > 0)
      PetscCall(PetscViewerASCIIPrintf(viewer, "flops per element: value %.0f, gradient %.0f, Gauss-Newton product %.0f, J^T J %.0f\n", term->flops[0], term->flops[1], term->flops[2], term->flops[3]));
    else if (term->flops_known)
      PetscCall(PetscViewerASCIIPrintf(viewer, "flops per element (every derivative lane counted, an upper bound): value %.0f, gradient %.0f, HVP %.0f, diagonal %.0f, Hessian %.0f\n", term->flops[0], term->flops[1], term->flops[2], term->flops[4], term->flops[3]));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  {
    /* explicit Hessians: what the cached and assembled forms store per element (totals: rank 0) */
    double bytes_cache = 0, bytes_full = 0;
    for (PetscInt t = 0; t < E->nterms; t++) {
      const int N = E->terms[t].k->nvert * E->terms[t].k->dof;
      bytes_cache += 8.0 * E->terms[t].nelem * N * (N + 1) / 2;
      bytes_full += 8.0 * E->terms[t].nelem * N * N;
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "explicit Hessians: PSD projection %s (epsilon %g)\n", MfadPSDProjections[E->solve.psd], (double)E->opt.psd_eps));
    if (E->opt.damping > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "damping (Levenberg-Marquardt): %g I added to every Hessian form\n", (double)E->opt.damping));
    PetscCall(PetscViewerASCIIPrintf(viewer, "element-Hessian cache (packed symmetric, N(N+1)/2 doubles) per element:"));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
    for (PetscInt t = 0; t < E->nterms; t++) {
      const int N = E->terms[t].k->nvert * E->terms[t].k->dof;
      PetscCall(PetscViewerASCIIPrintf(viewer, "%s %s %d B", t ? "," : "", E->terms[t].name, 8 * N * (N + 1) / 2));
    }
    PetscCall(PetscViewerASCIIPrintf(
        viewer, "; rank 0: %.3g MB (%s); element Hessians held for assembly (N x N per element; CPU: -mfad_coo_merge 0 only) %.3g MB (%s)\n",
        bytes_cache / 1048576, E->caches.cache ? "allocated" : "not allocated", bytes_full / 1048576,
        E->caches.hess ? "allocated" : "not allocated"));
    PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
  }
  {
    PetscBool dynamic;
    PetscCall(MfadEnergyHasElementsFunction(E, &dynamic));
    if (dynamic || E->dyn.nelem_updates) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "dynamic element sets:"));
      PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_FALSE));
      for (PetscInt t = 0; t < E->nterms; t++)
        if (E->terms[t].elements_fn || E->terms[t].nupdates) PetscCall(PetscViewerASCIIPrintf(viewer, " '%s' %" PetscInt_FMT " updates%s,", E->terms[t].name, E->terms[t].nupdates, E->terms[t].elements_fn ? " (provider)" : ""));
      PetscCall(PetscViewerASCIIPrintf(viewer, " ghost exchange rebuilt %" PetscInt_FMT " times, assembled pattern re-preallocated %" PetscInt_FMT " times and kept %" PetscInt_FMT " times\n", E->dyn.nghost_rebuilds, E->dyn.npattern_builds,
                                       E->dyn.npattern_kept));
      PetscCall(PetscViewerASCIIUseTabs(viewer, PETSC_TRUE));
    }
  }
  if (!E->local.done) { /* no ghosts nor colours yet */
    PetscCall(PetscViewerASCIIPopTab(viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MfadEnergyViewLoadBalance_Private(E, viewer));
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (size > 4 && format != PETSC_VIEWER_ASCII_INFO_DETAIL) { /* one line per rank: only when asked (-mfad_view ::ascii_info_detail) or few */
    PetscCall(PetscViewerASCIIPopTab(viewer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "per rank: owned vertices, ghost vertices, elements, blocks/colours of each term\n"));
  PetscCall(PetscViewerASCIIPushSynchronized(viewer));
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "  [%d] %" PetscInt_FMT " owned, %" PetscInt_FMT " ghosts,", rank, E->n, E->local.nghost));
  for (PetscInt t = 0; t < E->nterms; t++) PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, " %" PetscInt_FMT " (%d/%d)", E->terms[t].nelem, E->terms[t].nblocks, E->terms[t].ncolors));
  PetscCall(PetscViewerASCIISynchronizedPrintf(viewer, "\n"));
  PetscCall(PetscViewerFlush(viewer));
  PetscCall(PetscViewerASCIIPopSynchronized(viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mfad_view is MfadEnergySetUp()'s (once per set-up, in every program): a program's own call for it
   prints nothing more. Another name views at each call. */
PetscErrorCode MfadEnergyViewFromOptions(MfadEnergy E, const char name[])
{
  PetscBool setup_view = PETSC_TRUE;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  if (name) PetscCall(PetscStrcmp(name, "-mfad_view", &setup_view));
  if (!setup_view) PetscCall(PetscObjectViewFromOptions((PetscObject)E, NULL, name));
  PetscFunctionReturn(PETSC_SUCCESS);
}
