// SPDX-License-Identifier: BSD-2-Clause
/* PETSc version shim: the library's sources are written against current PETSc (3.26) and build
   unchanged, without deprecation warnings, against 3.18 (Debian 12) and everything between.
   Each entry names the release that introduced the current spelling. */
#ifndef MFADCOMPAT_H
#define MFADCOMPAT_H

#include <petscversion.h>
#if PETSC_VERSION_LT(3, 18, 0)
#error "mfad needs PETSc 3.18 or newer"
#endif
#include <petscviewer.h>
#include <petsc/private/petscimpl.h> /* PetscValidHeaderSpecific, PetscObjectStateGet: still there in 3.26 */

/* 3.19: PETSC_SUCCESS */
#ifndef PETSC_SUCCESS
#define PETSC_SUCCESS 0
#endif

/* argument checks (PetscValidPointer and friends were renamed PetscAssertPointer in 3.20) */
#define MfadValidPointer(p, arg) PetscCheck((p) != NULL, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Null pointer: argument # %d", (int)(arg))

/* 3.25: PetscErrorMessage()'s message became a const char * (a char * before) */
#if PETSC_VERSION_LT(3, 25, 0)
typedef char *MfadErrorText;
#else
typedef const char *MfadErrorText;
#endif

/* 3.23: SNES_CONVERGED_USER, a convergence test's own reason; before it, the decrement stop
   (MfadEnergySetDecrementTolerance()) says SNES_CONVERGED_SNORM_RELATIVE, as the round-off stop does */
#if PETSC_VERSION_LT(3, 23, 0)
#define MFAD_SNES_CONVERGED_DECREMENT SNES_CONVERGED_SNORM_RELATIVE
#else
#define MFAD_SNES_CONVERGED_DECREMENT SNES_CONVERGED_USER
#endif

/* 3.22: PetscOptionsGetViewer() became PetscOptionsCreateViewer() (same arguments; the viewer is
   released with PetscViewerDestroy() in every version) */
#if PETSC_VERSION_LT(3, 22, 0)
#define PetscOptionsCreateViewer PetscOptionsGetViewer
#endif

/* 3.22: MPIU_Allreduce() returns an MPI error code, for PetscCallMPI(), in optimized builds (a
   PetscErrorCode, for PetscCall(), before and in debugging builds). PetscCall(MPIU_Allreduce())
   still stops on an error in every version, with a less telling message; MPI errors abort by
   default anyway. */

/* 3.23: the context destroy functions of MatShellSetContextDestroy() and of PetscContainers
   receive the context's address (PetscCtxDestroyFn) instead of the context. Same C type
   (void *), so the compiler cannot tell: write them as PetscErrorCode f(void *arg) and read the
   context with MfadCtxDestroyArg(arg). PetscContainerSetUserDestroy() (deprecated in 3.23)
   became PetscContainerSetCtxDestroy(): use MfadContainerSetCtxDestroy(c, f). Other callbacks
   moved on other releases (SNESSetConvergenceTest()'s destroy in 3.25; monitors always took
   the address): check before using MfadCtxDestroyArg() for them. */
#if PETSC_VERSION_LT(3, 23, 0)
#define MfadContainerSetCtxDestroy(c, f) PetscContainerSetUserDestroy((c), (f))
#define MfadCtxDestroyArg(arg)           (arg)
#else
#define MfadContainerSetCtxDestroy(c, f) PetscContainerSetCtxDestroy((c), (f))
#define MfadCtxDestroyArg(arg)           (*(void **)(arg))
#endif

/* 3.23: a monitor's context destroy function is a PetscCtxDestroyFn, PetscErrorCode f(void *), given
   the context's address; before, PetscErrorCode f(void **). Declare it f(MfadMonitorDestroyArg arg)
   and read the context as *(T **)arg. */
#if PETSC_VERSION_LT(3, 23, 0)
typedef void **MfadMonitorDestroyArg;
#else
typedef void *MfadMonitorDestroyArg;
#endif

/* 3.21: TaoSetMonitor() became TaoMonitorSet() */
#if PETSC_VERSION_LT(3, 21, 0)
#define MfadTaoMonitorSet(t, f, c, d) TaoSetMonitor((t), (f), (c), (d))
#else
#define MfadTaoMonitorSet(t, f, c, d) TaoMonitorSet((t), (f), (c), (d))
#endif

/* 3.23: PetscOptionItems became a pointer type: an options handler's second argument
   (PetscObjectAddOptionsHandler()) is PetscOptionItems, before PetscOptionItems * */
#if PETSC_VERSION_LT(3, 23, 0)
typedef PetscOptionItems *MfadOptionItems;
#else
typedef PetscOptionItems MfadOptionItems;
#endif

/* 3.24: MatShellSetOperation() takes a PetscErrorCodeFn * instead of a void (*)(void); both are
   void (*)(void), so keep casting operations to void (*)(void) (not to PetscErrorCodeFn *, which
   was PetscErrorCode (*)(void) in 3.23). */

/* 3.25: SNES_LINESEARCH_FAILED_DOMAIN became FAILED_FUNCTION_DOMAIN, FAILED_OBJECTIVE_DOMAIN and
   FAILED_JACOBIAN_DOMAIN (and FAILED_NANORINF): a line search that failed outside the domain */
#if PETSC_VERSION_LT(3, 25, 0)
#define MfadLineSearchFailedDomain(r) ((r) == SNES_LINESEARCH_FAILED_DOMAIN)
#else
#define MfadLineSearchFailedDomain(r) \
  ((r) == SNES_LINESEARCH_FAILED_FUNCTION_DOMAIN || (r) == SNES_LINESEARCH_FAILED_OBJECTIVE_DOMAIN || \
   (r) == SNES_LINESEARCH_FAILED_JACOBIAN_DOMAIN || (r) == SNES_LINESEARCH_FAILED_NANORINF)
#endif

#endif
