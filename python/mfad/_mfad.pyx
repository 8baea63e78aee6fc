# SPDX-License-Identifier: BSD-2-Clause
# cython: language_level=3, embedsignature=True
"""mfad's C API (mfad.h, mfadpetsc.h, mfadmesh.h) for Python, on petsc4py's objects.

Written as slepc4py is: the energy is a PetscObject (class "MfadEnergy"), so Energy subclasses
petsc4py's Object and petsc4py keeps its reference count and destroys it; Vecs, Mats, SNES, TAO and
DMs are petsc4py's own. A nonzero PetscErrorCode becomes petsc4py.PETSc.Error, whose text is the
message PETSc's error handler gathered (petsc4py's handler, pushed at its initialisation).
"""
from petsc4py.PETSc cimport Object, Comm, Vec, Mat, SNES, TAO, DM, Viewer
from petsc4py.PETSc cimport PetscObject, PetscVec, PetscMat, PetscSNES, PetscTAO, PetscDM, PetscViewer, MPI_Comm, MPI_Datatype, MPI_Op
from petsc4py.PETSc import Error as PetscError
from petsc4py import PETSc
cimport numpy as cnp
import numpy as np
from libc.string cimport memcpy

cdef extern from "Python.h":
    void PyErr_SetNone(object type)
    void PyErr_SetObject(object type, object value)
    # declared without Cython's `except -1`: the exception must stay set when the monitor below
    # returns into PETSc (Cython would report it as unraisable and clear it)
    int PyErr_CheckSignals()

cnp.import_array()

cdef extern from * nogil:
    """
    #include <mfadpetsc.h>
    #include <mfadmesh.h>
    /* petsc4py's code for 'an error already raised in Python' (its custom.h) */
    #define MFADPY_ERR_PYTHON ((PetscErrorCode)(-1))
    """
    ctypedef int PetscErrorCode
    ctypedef long PetscInt
    ctypedef double PetscReal
    ctypedef double PetscScalar
    ctypedef enum PetscBool:
        PETSC_FALSE
        PETSC_TRUE
    PetscErrorCode MFADPY_ERR_PYTHON
    PetscBool PetscInitializeCalled
    PetscBool PetscFinalizeCalled

    ctypedef struct _n_MfadKernel
    ctypedef const _n_MfadKernel *MfadKernel
    ctypedef struct _p_MfadEnergy
    ctypedef _p_MfadEnergy *MfadEnergy
    ctypedef struct _n_MfadMesh:
        PetscInt   dim
        PetscInt   nvert
        PetscInt   ncell
        PetscInt   ncorner
        PetscReal *coords
        PetscInt  *cells
    ctypedef _n_MfadMesh *MfadMesh
    ctypedef enum MfadDMPlexSet:
        MFAD_DMPLEX_CELLS
        MFAD_DMPLEX_EDGES
        MFAD_DMPLEX_EDGE_PAIRS
    ctypedef enum MfadHessianType:
        MFAD_HESSIAN_SHELL
        MFAD_HESSIAN_CACHED
        MFAD_HESSIAN_AIJ
        MFAD_HESSIAN_AUTO

    PetscErrorCode MfadKernelFind(const char name[], MfadKernel *k)
    PetscErrorCode MfadKernelRegister(MfadKernel k)
    PetscErrorCode MfadKernelGetName(MfadKernel k, const char *name[])
    PetscErrorCode MfadKernelGetSizes(MfadKernel k, PetscInt *nvert, PetscInt *dof, PetscInt *nparam)
    PetscErrorCode MfadKernelGetMaterialCount(MfadKernel k, PetscInt *nmaterial)
    PetscErrorCode MfadKernelGetRestDimension(MfadKernel k, PetscInt *rest_dim)

    PetscErrorCode MfadEnergyCreate(MPI_Comm comm, PetscInt dof, PetscInt n, PetscInt N, MfadEnergy *E)
    ctypedef struct _p_MfadContact
    ctypedef _p_MfadContact *MfadContact
    PetscInt PETSC_DECIDE
    PetscInt PETSC_DETERMINE
    PetscErrorCode MfadContactCreate(MPI_Comm comm, MfadContact *C)
    PetscErrorCode MfadContactDestroy(MfadContact *C)
    PetscErrorCode MfadContactSetSurface(MfadContact C, PetscInt nv, const PetscInt gid[], PetscInt ntri, const PetscInt tri[], PetscInt nedge, const PetscInt edge[], PetscInt npoint, const PetscInt point[])
    PetscErrorCode MfadContactSetBarrier(MfadContact C, PetscReal dhat, PetscReal kappa)
    PetscErrorCode MfadContactSetRestCoordinates(MfadContact C, const PetscReal rest[])
    PetscErrorCode MfadEnergyAddContact(MfadEnergy E, MfadContact C, PetscInt *pt, PetscInt *ee)
    PetscErrorCode MfadEnergyGetContactDetections(MfadEnergy E, PetscInt *n)
    PetscErrorCode MfadEnergyGetStepCuts(MfadEnergy E, PetscInt *n)
    PetscErrorCode MfadEnergyAddTerm(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[], const PetscReal params[], PetscReal weight, PetscInt *term)
    PetscErrorCode MfadEnergyAddTermFromRestWithMaterial(MfadEnergy E, MfadKernel k, PetscInt nelem, const PetscInt conn[], const PetscReal rest[], PetscInt nmaterial, const PetscReal material[], PetscReal weight, PetscInt *term)
    PetscErrorCode MfadEnergySetTermParams(MfadEnergy E, PetscInt term, const PetscReal params[])
    PetscErrorCode MfadEnergySetTermName(MfadEnergy E, PetscInt term, const char name[])
    PetscErrorCode MfadEnergySetTermElements(MfadEnergy E, PetscInt term, PetscInt nelem, const PetscInt conn[], const PetscReal params[])
    PetscErrorCode MfadEnergySetTermElementsFunction(MfadEnergy E, PetscInt term, PetscErrorCode (*fn)(MfadEnergy, PetscInt, PetscVec, void *), void *ctx)
    PetscErrorCode MfadEnergyUpdateElements(MfadEnergy E, PetscVec X)
    PetscErrorCode PetscObjectReference(PetscObject obj)
    PetscErrorCode MfadEnergySetFixedDofs(MfadEnergy E, PetscInt n, const PetscInt dofs[], const PetscReal values[])
    PetscErrorCode MfadEnergySetOptionsPrefix(MfadEnergy E, const char prefix[])
    PetscErrorCode MfadEnergySetFromOptions(MfadEnergy E)
    PetscErrorCode MfadEnergySetUp(MfadEnergy E)
    PetscErrorCode MfadEnergyView(MfadEnergy E, PetscViewer viewer)
    PetscErrorCode MfadEnergyGetSizes(MfadEnergy E, PetscInt *dof, PetscInt *n, PetscInt *N)
    PetscErrorCode MfadEnergyCreateVecs(MfadEnergy E, PetscVec *X, PetscVec *G)
    PetscErrorCode MfadEnergyApplyFixedValues(MfadEnergy E, PetscVec X)
    PetscErrorCode MfadEnergyComputeObjective(MfadEnergy E, PetscVec X, PetscReal *f)
    PetscErrorCode MfadEnergyComputeGradient(MfadEnergy E, PetscVec X, PetscVec G)
    PetscErrorCode MfadEnergyComputeObjectiveGradient(MfadEnergy E, PetscVec X, PetscReal *f, PetscVec G)
    PetscErrorCode MfadEnergyComputeHessianProduct(MfadEnergy E, PetscVec X, PetscVec V, PetscVec Y)
    PetscErrorCode MfadEnergyComputeHessianDiagonal(MfadEnergy E, PetscVec X, PetscVec D)
    PetscErrorCode MfadEnergyCreateMatrix(MfadEnergy E, PetscMat *A)
    PetscErrorCode MfadEnergyComputeHessian(MfadEnergy E, PetscVec X, PetscMat A)
    PetscErrorCode MfadEnergyCreateResidualVec(MfadEnergy E, PetscVec *R)
    PetscErrorCode MfadEnergyComputeResidual(MfadEnergy E, PetscVec X, PetscVec R)

    PetscErrorCode MfadEnergyCreateHessianMat(MfadEnergy E, MfadHessianType type, PetscMat *H)
    PetscErrorCode MfadHessianSetPoint(PetscMat H, PetscVec X)
    PetscErrorCode MfadEnergySetSNES(MfadEnergy E, PetscSNES snes)
    PetscErrorCode MfadEnergySetTao(MfadEnergy E, PetscTAO tao)
    PetscErrorCode MfadEnergySetTaoResidual(MfadEnergy E, PetscTAO tao)

    PetscErrorCode MfadMeshCreate(PetscInt dim, PetscInt nvert, PetscInt ncorner, PetscInt ncell, MfadMesh *mesh)
    PetscErrorCode MfadMeshDestroy(MfadMesh *mesh)
    PetscErrorCode MfadMeshRead(const char path[], MfadMesh *mesh)
    PetscErrorCode MfadMeshCreateBox(PetscInt nx, PetscInt ny, PetscInt nz, const PetscReal lo[3], const PetscReal hi[3], MfadMesh *mesh)
    PetscErrorCode MfadEnergyCreateFromMesh(MPI_Comm comm, MfadMesh mesh, PetscInt dof, MfadEnergy *E)
    PetscErrorCode MfadEnergyAddTermFromMeshWithMaterial(MfadEnergy E, MfadMesh mesh, MfadKernel k, PetscInt nmaterial, const PetscReal material[], PetscReal weight, PetscInt *term)
    PetscErrorCode MfadMeshGetCellRange(MPI_Comm comm, MfadMesh mesh, PetscInt *cstart, PetscInt *cend)
    PetscErrorCode MfadEnergyCopyCoordinatesFromMesh(MfadEnergy E, MfadMesh mesh, PetscVec X)
    PetscErrorCode MfadEnergyGetOwnershipRange(MfadEnergy E, PetscInt *vstart, PetscInt *vend)
    PetscErrorCode MfadEnergyComputeTutteStart(MfadEnergy E, MfadMesh mesh, PetscVec X)
    PetscErrorCode MfadEnergyWriteVTU(MfadEnergy E, PetscInt term, PetscVec X, PetscVec X0, const char path[])
    PetscErrorCode MfadEnergyCreateFromDMPlex(PetscDM dm, PetscInt dof, MfadEnergy *E)
    PetscErrorCode MfadEnergyCopyCoordinatesFromDMPlex(MfadEnergy E, PetscDM dm, PetscVec X)
    PetscErrorCode MfadEnergyAddTermFromDMPlexWithMaterial(MfadEnergy E, PetscDM dm, MfadKernel k, MfadDMPlexSet set, PetscInt nmaterial, const PetscReal material[], PetscReal weight, PetscInt *term)

    # the solvers' monitors, for Ctrl-C
    PetscErrorCode PetscObjectGetComm(PetscObject obj, MPI_Comm *comm)
    int MPI_Allreduce(void *send, void *recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
    MPI_Datatype MPI_INT
    MPI_Op MPI_MAX
    PetscErrorCode SNESMonitorSet(PetscSNES snes, PetscErrorCode (*f)(PetscSNES, PetscInt, PetscReal, void *), void *ctx, PetscErrorCode (*d)(void **))
    PetscErrorCode PetscTime(double *t)
    PetscErrorCode TaoSetMonitor(PetscTAO tao, PetscErrorCode (*f)(PetscTAO, void *), void *ctx, PetscErrorCode (*d)(void **))


cdef int CHKERR(PetscErrorCode ierr) except -1:
    """A nonzero code as petsc4py.PETSc.Error (PETSc's message in its text), or the Python
    exception a callback already raised (KeyboardInterrupt from the monitors below)."""
    if ierr == 0:
        return 0
    if ierr == MFADPY_ERR_PYTHON:
        return -1
    raise PetscError(<long>ierr)


# Ctrl-C during a solve: Python's SIGINT handler only sets a flag, which nothing checks while
# SNESSolve or TaoSolve runs in C. A monitor on every iteration checks it; the KeyboardInterrupt it
# raises stops the solve with petsc4py's code for a Python exception, and CHKERR passes it on. The
# flag is reduced over the solver's communicator, so that every rank stops at the same iteration
# (a rank that went on alone would wait in a collective for ever), those that saw no signal with a
# KeyboardInterrupt of their own.
cdef PetscErrorCode _interrupt(PetscObject solver) noexcept with gil:
    cdef MPI_Comm comm
    cdef int mine = 0, anyone = 0
    if PyErr_CheckSignals() < 0:
        mine = 1
    if PetscObjectGetComm(solver, &comm) != 0 or MPI_Allreduce(&mine, &anyone, 1, MPI_INT, MPI_MAX, comm) != 0:
        anyone = mine
    if anyone and not mine:
        PyErr_SetNone(KeyboardInterrupt)
    return MFADPY_ERR_PYTHON if anyone else 0


cdef PetscErrorCode _snes_interrupt(PetscSNES snes, PetscInt it, PetscReal fnorm, void *ctx) noexcept with gil:
    return _interrupt(<PetscObject>snes)


cdef PetscErrorCode _tao_interrupt(PetscTAO tao, void *ctx) noexcept with gil:
    return _interrupt(<PetscObject>tao)


# A term's element provider written in Python: called by mfad (MfadEnergyUpdateElements(), before
# each Newton step under SNES and TAO) with the energy, the term and the point. An exception it
# raises stays set as the provider returns petsc4py's code for a Python exception, so that it
# leaves the solve (snes.solve, tao.solve) as itself.
cdef PetscErrorCode _elements_provider(MfadEnergy E, PetscInt term, PetscVec X, void *ctx) noexcept with gil:
    cdef Vec x = Vec()
    try:
        fn, ref = <object>ctx
        CHKERR(PetscObjectReference(<PetscObject>X))  # the Vec's reference, which petsc4py drops
        x.vec = X
        fn(ref(), int(term), x)
    except BaseException as e:
        PyErr_SetObject(type(e), e)
        return MFADPY_ERR_PYTHON
    return 0


cdef cnp.ndarray _ints(object a):
    return np.ascontiguousarray(a, dtype=PETSc.IntType)


cdef cnp.ndarray _reals(object a):
    return np.ascontiguousarray(a, dtype=PETSc.RealType)


cdef inline PetscInt *_ip(cnp.ndarray a):
    return <PetscInt *>cnp.PyArray_DATA(a)


cdef inline PetscReal *_rp(cnp.ndarray a):
    return <PetscReal *>cnp.PyArray_DATA(a)


_loaded = {}  # shared object -> Kernel: each loaded once per process


cdef class Kernel:
    """A compiled element energy: Kernel("neohookean_tet") for a built-in or registered one,
    Kernel.from_c(source_or_path) for a plain-C energy translated and compiled on the fly."""
    cdef MfadKernel k
    cdef readonly object library  # the shared object of a kernel compiled from C (kept loaded)

    def __init__(self, name=None):
        if name is not None:
            CHKERR(MfadKernelFind(name.encode(), &self.k))

    @staticmethod
    def from_c(source_or_path, comm=None):
        """Translates a plain-C energy (a file's path, or its text) with mfad-energy, compiles it
        with the C compiler mfad was built with and loads it; cached by content hash under
        mfad.cache_dir(). Collective on comm (default PETSc.COMM_WORLD): one rank compiles, the
        others wait. Raises mfad.TranslationError (mfad-energy's file:line:column message) or
        mfad.CompileError (the compiler's)."""
        import ctypes
        from mfad import _build
        cdef Kernel self
        so, name = _build.build(source_or_path, comm)
        if so not in _loaded:
            lib = ctypes.CDLL(so)
            self = Kernel()
            self.k = <MfadKernel><size_t>ctypes.addressof(ctypes.c_char.in_dll(lib, "MfadKernel_" + name))
            self.library = lib
            # registered: Kernel(name), -mfad_view and options-driven programs find it by name
            CHKERR(MfadKernelRegister(self.k))
            _loaded[so] = self
        return _loaded[so]

    def _check(self):
        if self.k == NULL:
            raise ValueError("mfad.Kernel: no kernel (give a name or use Kernel.from_c())")

    @property
    def name(self):
        cdef const char *s = NULL
        self._check()
        CHKERR(MfadKernelGetName(self.k, &s))
        return s.decode()

    @property
    def sizes(self):
        """(vertices per element, unknowns per vertex, parameters per element)."""
        cdef PetscInt nv = 0, dof = 0, np_ = 0
        self._check()
        CHKERR(MfadKernelGetSizes(self.k, &nv, &dof, &np_))
        return int(nv), int(dof), int(np_)

    @property
    def nmaterial(self):
        cdef PetscInt n = 0
        self._check()
        CHKERR(MfadKernelGetMaterialCount(self.k, &n))
        return int(n)

    @property
    def rest_dim(self):
        cdef PetscInt n = 0
        self._check()
        CHKERR(MfadKernelGetRestDimension(self.k, &n))
        return int(n)

    def __repr__(self):
        return "mfad.Kernel(%r)" % self.name if self.k != NULL else "mfad.Kernel()"


cdef object _mesh_arrays(MfadMesh m):
    """(V, F) copies of a mesh's arrays; destroys the mesh."""
    try:
        V = np.empty((m.nvert, m.dim), dtype=PETSc.RealType)
        F = np.empty((m.ncell, m.ncorner), dtype=PETSc.IntType)
        if m.nvert:
            memcpy(cnp.PyArray_DATA(V), m.coords, m.nvert * m.dim * sizeof(PetscReal))
        if m.ncell:
            memcpy(cnp.PyArray_DATA(F), m.cells, m.ncell * m.ncorner * sizeof(PetscInt))
    finally:
        CHKERR(MfadMeshDestroy(&m))
    return V, F


def read_mesh(path):
    """(V, F) of a mesh file read by mfad's readers (MfadMeshRead(): .obj, .off, .node, .msh,
    .mesh): vertices (nvert x dim) and cells (ncell x 3 or 4), 0-based, as mfad's C programs see them."""
    cdef MfadMesh m = NULL
    CHKERR(MfadMeshRead(str(path).encode(), &m))
    return _mesh_arrays(m)


def box_mesh(n, lo=(0.0, 0.0, 0.0), hi=(1.0, 1.0, 1.0)):
    """(V, F) of the box [lo, hi] of n[0] x n[1] x n[2] cubes, each cut into 6 positively oriented
    tets (MfadMeshCreateBox(), the C tutorial's mesh)."""
    cdef MfadMesh m = NULL
    cdef cnp.ndarray l = _reals(lo), h = _reals(hi)
    if l.size != 3 or h.size != 3 or len(n) != 3:
        raise ValueError("mfad.box_mesh: n, lo and hi have 3 entries each")
    CHKERR(MfadMeshCreateBox(n[0], n[1], n[2], _rp(l), _rp(h), &m))
    return _mesh_arrays(m)


_SETS = {"cells": MFAD_DMPLEX_CELLS, "edges": MFAD_DMPLEX_EDGES, "edge_pairs": MFAD_DMPLEX_EDGE_PAIRS}
_FORMS = {"shell": MFAD_HESSIAN_SHELL, "cached": MFAD_HESSIAN_CACHED, "aij": MFAD_HESSIAN_AIJ, "auto": MFAD_HESSIAN_AUTO}


cdef class Energy(Object):
    """An energy: a weighted sum of terms (a kernel on a set of elements) over a mesh's vertices,
    with its value, gradient, exact Hessian products and Hessians as petsc4py objects.

    Energy(comm, V, F, dof=None): every rank passes the whole mesh, libigl's V (nvert x dim
    coordinates) and F (ncell x 3 or 4 vertex ids); each rank owns a contiguous range of vertices
    (MfadEnergyCreateFromMesh()). Energy.from_dmplex(dm, dof): a distributed petsc4py DMPlex."""
    cdef MfadEnergy E
    cdef MfadMesh mesh
    cdef object dm
    cdef dict providers  # term -> (fn, weak reference to the energy): kept alive for the C side

    def __cinit__(self):
        self.obj = <PetscObject *>&self.E
        self.E = NULL
        self.mesh = NULL

    def __dealloc__(self):
        # the energy itself is petsc4py's to destroy (Object.__dealloc__); the mesh is ours
        if self.mesh != NULL and PetscInitializeCalled and not PetscFinalizeCalled:
            MfadMeshDestroy(&self.mesh)

    def __init__(self, comm=None, V=None, F=None, dof=None):
        cdef Comm c
        cdef cnp.ndarray v, f
        if V is None and F is None:
            return  # Energy.from_dmplex()
        c = PETSc.Comm(comm) if comm is not None else PETSc.COMM_WORLD
        v = _reals(V)
        f = _ints(F)
        if v.ndim != 2 or f.ndim != 2 or v.shape[1] not in (2, 3) or f.shape[1] not in (2, 3, 4):
            raise ValueError("mfad.Energy: V must be nvert x 2 or 3 and F ncell x 2, 3 or 4; got %s and %s" % (np.shape(V), np.shape(F)))
        if f.size and (f.min() < 0 or f.max() >= v.shape[0]):
            raise ValueError("mfad.Energy: F has vertex ids outside [0, %d)" % v.shape[0])
        CHKERR(MfadMeshCreate(v.shape[1], v.shape[0], f.shape[1], f.shape[0], &self.mesh))
        if v.size:
            memcpy(self.mesh.coords, cnp.PyArray_DATA(v), v.size * sizeof(PetscReal))
        if f.size:
            memcpy(self.mesh.cells, cnp.PyArray_DATA(f), f.size * sizeof(PetscInt))
        CHKERR(MfadEnergyCreateFromMesh(c.comm, self.mesh, v.shape[1] if dof is None else dof, &self.E))

    @staticmethod
    def from_dmplex(DM dm, dof):
        """An energy on a distributed DMPlex's vertices (MfadEnergyCreateFromDMPlex()); terms
        from its cells, edges or edge pairs: add_term(kernel, set="cells")."""
        cdef Energy self = Energy()
        CHKERR(MfadEnergyCreateFromDMPlex(dm.dm, dof, &self.E))
        self.dm = dm
        return self

    @staticmethod
    def create(comm, nvert, dof):
        """An energy over nvert vertices (global) with dof unknowns each and no mesh, PETSc's split
        of the vertices (MfadEnergyCreate()); terms from add_term(kernel, elements=, params=)."""
        cdef Energy self = Energy()
        cdef Comm c = PETSc.Comm(comm) if comm is not None else PETSc.COMM_WORLD
        CHKERR(MfadEnergyCreate(c.comm, dof, PETSC_DECIDE, nvert, &self.E))
        return self

    # ------------------------------------------------------------ sizes and vectors
    @property
    def sizes(self):
        """(dof per vertex, vertices owned here, vertices in all)."""
        cdef PetscInt dof = 0, n = 0, N = 0
        CHKERR(MfadEnergyGetSizes(self.E, &dof, &n, &N))
        return int(dof), int(n), int(N)

    @property
    def ownership_range(self):
        """This rank's vertices [vstart, vend) (global ids)."""
        cdef PetscInt a = 0, b = 0
        CHKERR(MfadEnergyGetOwnershipRange(self.E, &a, &b))
        return int(a), int(b)

    def create_vec(self):
        """A Vec of the energy's layout (dof entries per owned vertex)."""
        cdef Vec x = Vec()
        CHKERR(MfadEnergyCreateVecs(self.E, &x.vec, NULL))
        return x

    def coordinates(self):
        """The mesh's (or DM's) coordinates as a Vec of the energy's layout: the rest shape."""
        cdef Vec x = self.create_vec()
        if self.mesh != NULL:
            CHKERR(MfadEnergyCopyCoordinatesFromMesh(self.E, self.mesh, x.vec))
        elif self.dm is not None:
            CHKERR(MfadEnergyCopyCoordinatesFromDMPlex(self.E, (<DM>self.dm).dm, x.vec))
        else:
            raise ValueError("mfad.Energy.coordinates: no mesh")
        return x

    def tutte_start(self):
        """A flip-free start of a map of a disk-topology surface to the plane (dof 2): Tutte's
        embedding, and 3 fixed dofs that pin the rigid motions (MfadEnergyComputeTutteStart())."""
        cdef Vec x = self.create_vec()
        if self.mesh == NULL:
            raise ValueError("mfad.Energy.tutte_start: needs an energy made from V, F")
        CHKERR(MfadEnergyComputeTutteStart(self.E, self.mesh, x.vec))
        return x

    # ------------------------------------------------------------ terms
    def add_term(self, Kernel kernel, material=None, weight=1.0, elements=None, params=None, set=None, name=None):
        """Adds `kernel` as a term; returns its index.
        Elements: the mesh's cells (F, or the DM's `set`: "cells", "edges", "edge_pairs") or
        `elements` (nelem x nvert global vertex ids, every rank the same array; each rank adds its
        share). Parameters: from the rest shape (V) and `material` for a kernel with a rest-shape
        set-up, or `params` (nelem x nparam) given. A residual kernel is added the same way."""
        cdef PetscInt term = -1, nmat = 0, nv = 0, np_ = 0, rd = 0, start, end, size, rank
        cdef cnp.ndarray mat = _reals([] if material is None else np.atleast_1d(material))
        cdef cnp.ndarray conn, prm, rest
        cdef PetscReal *mp = _rp(mat) if mat.size else NULL
        kernel._check()
        nmat = mat.size
        if elements is None and params is None:
            if self.mesh != NULL:
                CHKERR(MfadEnergyAddTermFromMeshWithMaterial(self.E, self.mesh, kernel.k, nmat, mp, weight, &term))
            elif self.dm is not None:
                CHKERR(MfadEnergyAddTermFromDMPlexWithMaterial(self.E, (<DM>self.dm).dm, kernel.k, _SETS[set or "cells"], nmat, mp, weight, &term))
            else:
                raise ValueError("mfad.Energy.add_term: no mesh: give elements")
        else:
            nv, _, np_ = kernel.sizes
            conn = _ints(self.cells() if elements is None else elements).reshape(-1, nv)
            size, rank = self.comm.getSize(), self.comm.getRank()
            if elements is None and self.mesh != NULL:
                CHKERR(MfadMeshGetCellRange((<Comm>self.comm).comm, self.mesh, &start, &end))
            else:
                start, end = (conn.shape[0] * rank) // size, (conn.shape[0] * (rank + 1)) // size
            conn = np.ascontiguousarray(conn[start:end])
            if params is not None:
                prm = np.ascontiguousarray(_reals(params).reshape(-1, np_)[start:end])
                CHKERR(MfadEnergyAddTerm(self.E, kernel.k, end - start, _ip(conn), _rp(prm) if prm.size else NULL, weight, &term))
            elif kernel.rest_dim > 0:
                if self.mesh == NULL:
                    raise ValueError("mfad.Energy.add_term: rest shapes need an energy made from V, F (or give params)")
                rd = kernel.rest_dim
                V = np.zeros((self.mesh.nvert, rd))
                V[:, :min(rd, self.mesh.dim)] = self.vertices()[:, :rd]
                rest = _reals(V[conn])
                CHKERR(MfadEnergyAddTermFromRestWithMaterial(self.E, kernel.k, end - start, _ip(conn), _rp(rest), nmat, mp, weight, &term))
            else:
                CHKERR(MfadEnergyAddTerm(self.E, kernel.k, end - start, _ip(conn), NULL, weight, &term))
        if name is not None:
            CHKERR(MfadEnergySetTermName(self.E, term, name.encode()))
        return int(term)

    def set_term_params(self, term, params):
        """Replaces a term's per-element parameters (this rank's elements, in their order)."""
        cdef cnp.ndarray p = _reals(params)
        CHKERR(MfadEnergySetTermParams(self.E, term, _rp(p)))

    def set_term_elements(self, term, elements, params=None):
        """Replaces a term's elements on this rank (nelem x nvert global vertex ids, its own, possibly
        none) and their parameters (nelem x nparam; None for a kernel that takes none). Collective:
        every rank calls it. Use for contact pairs and other interaction terms."""
        cdef cnp.ndarray conn = _ints(elements).ravel()
        cdef cnp.ndarray prm
        cdef PetscInt nv = 0
        nv = np.shape(elements)[1] if np.ndim(elements) == 2 else 1
        if params is None:
            CHKERR(MfadEnergySetTermElements(self.E, term, conn.size // max(nv, 1), _ip(conn) if conn.size else NULL, NULL))
        else:
            prm = _reals(params).ravel()
            CHKERR(MfadEnergySetTermElements(self.E, term, conn.size // max(nv, 1), _ip(conn) if conn.size else NULL, _rp(prm) if prm.size else NULL))

    def set_elements_function(self, term, fn):
        """Sets a term's element provider: fn(energy, term, X) gives the term's elements at the point X
        (a petsc4py Vec) by calling energy.set_term_elements(); mfad calls it before each Newton step
        under SNES and TAO, and update_elements() calls it. None removes it."""
        import weakref
        if self.providers is None:
            self.providers = {}
        if fn is None:
            CHKERR(MfadEnergySetTermElementsFunction(self.E, term, NULL, NULL))
            self.providers.pop(term, None)
            return
        entry = (fn, weakref.ref(self))
        CHKERR(MfadEnergySetTermElementsFunction(self.E, term, _elements_provider, <void *>entry))
        self.providers[term] = entry

    def update_elements(self, Vec x):
        """Calls every term's element provider at x (collective)."""
        CHKERR(MfadEnergyUpdateElements(self.E, x.vec))

    def add_contact(self, triangles, dhat, kappa, edges=None, points=None, rest=None):
        """Adds IPC contact of a triangle surface (ntri x 3 global vertex ids, every rank the same
        arrays; dof 3): two terms (point-triangle, edge-edge) whose pairs closer than dhat are
        detected before each Newton step, and the continuous-collision bound on each SNES line
        search (MfadEnergyAddContact()). `edges` (nedge x 2) and `points` (vertex ids) default to
        every triangle edge and every vertex of a triangle or edge. `rest`: nvert x 3 rest
        coordinates for the edge-edge mollifier. Returns the two terms' indices."""
        cdef MfadContact C = NULL
        cdef PetscInt pt = -1, ee = -1, nv = 0
        cdef cnp.ndarray tri = _ints(triangles).reshape(-1, 3)
        cdef cnp.ndarray edg, pts, r
        # the defaults made here: the library derives them on one rank only
        if edges is None:
            edges = np.unique(np.sort(tri[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1), axis=0) if tri.size else np.zeros((0, 2))
        edg = _ints(edges).reshape(-1, 2)
        if points is None:
            points = np.unique(np.concatenate([tri.ravel(), edg.ravel()]))
        pts = _ints(points).ravel()
        cdef int mine = self.comm.getRank() == 0  # rank 0 gives the whole surface
        nv = self.sizes[2]
        CHKERR(MfadContactCreate((<Comm>self.comm).comm, &C))
        try:
            if mine:
                CHKERR(MfadContactSetSurface(C, nv, NULL, tri.shape[0], _ip(tri) if tri.size else NULL, edg.shape[0], _ip(edg) if edg.size else NULL,
                                             pts.size, _ip(pts) if pts.size else NULL))
            else:
                CHKERR(MfadContactSetSurface(C, 0, NULL, 0, NULL, 0, NULL, 0, NULL))
            CHKERR(MfadContactSetBarrier(C, dhat, kappa))
            if rest is not None and mine:
                r = _reals(rest)
                CHKERR(MfadContactSetRestCoordinates(C, _rp(r)))
            CHKERR(MfadEnergyAddContact(self.E, C, &pt, &ee))
        finally:
            CHKERR(MfadContactDestroy(&C))  # the energy holds its own reference
        return int(pt), int(ee)

    @property
    def contact_detections(self):
        """The contact detections made so far (0 without contact)."""
        cdef PetscInt n = 0
        CHKERR(MfadEnergyGetContactDetections(self.E, &n))
        return int(n)

    @property
    def step_cuts(self):
        """The SNES steps cut so far at an energy's wall or the contact's bound."""
        cdef PetscInt n = 0
        CHKERR(MfadEnergyGetStepCuts(self.E, &n))
        return int(n)

    def vertices(self):
        """A copy of V (energies made from V, F)."""
        if self.mesh == NULL:
            raise ValueError("mfad.Energy: no V, F")
        V = np.empty((self.mesh.nvert, self.mesh.dim), dtype=PETSc.RealType)
        memcpy(cnp.PyArray_DATA(V), self.mesh.coords, V.size * sizeof(PetscReal))
        return V

    def cells(self):
        """A copy of F (energies made from V, F)."""
        if self.mesh == NULL:
            raise ValueError("mfad.Energy: no V, F")
        F = np.empty((self.mesh.ncell, self.mesh.ncorner), dtype=PETSc.IntType)
        memcpy(cnp.PyArray_DATA(F), self.mesh.cells, F.size * sizeof(PetscInt))
        return F

    def set_fixed(self, dofs, values=None):
        """Fixes global dofs (vertex * dof + d) at `values` (None: zero); replaces any set before."""
        cdef cnp.ndarray d = _ints(dofs).ravel()
        cdef cnp.ndarray v
        if values is None:
            CHKERR(MfadEnergySetFixedDofs(self.E, d.size, _ip(d), NULL))
        else:
            v = _reals(values).ravel()
            if v.size != d.size:
                raise ValueError("mfad.Energy.set_fixed: %d dofs but %d values" % (d.size, v.size))
            CHKERR(MfadEnergySetFixedDofs(self.E, d.size, _ip(d), _rp(v)))

    def apply_fixed_values(self, Vec x):
        """Copies the fixed values into x."""
        CHKERR(MfadEnergyApplyFixedValues(self.E, x.vec))
        return x

    def set_options_prefix(self, prefix):
        CHKERR(MfadEnergySetOptionsPrefix(self.E, prefix.encode()))

    def set_from_options(self):
        CHKERR(MfadEnergySetFromOptions(self.E))

    def set_up(self):
        CHKERR(MfadEnergySetUp(self.E))

    def view(self, Viewer viewer=None):
        CHKERR(MfadEnergyView(self.E, viewer.vwr if viewer is not None else NULL))

    # ------------------------------------------------------------ evaluations
    def objective(self, Vec x):
        """E(x) (+inf where an element is invalid)."""
        cdef PetscReal f = 0
        CHKERR(MfadEnergyComputeObjective(self.E, x.vec, &f))
        return float(f)

    def gradient(self, Vec x, Vec out=None):
        """grad E(x) as a Vec (into `out` if given)."""
        if out is None:
            out = self.create_vec()
        CHKERR(MfadEnergyComputeGradient(self.E, x.vec, out.vec))
        return out

    def objective_gradient(self, Vec x, Vec out=None):
        """(E(x), grad E(x)) in one pass."""
        cdef PetscReal f = 0
        if out is None:
            out = self.create_vec()
        CHKERR(MfadEnergyComputeObjectiveGradient(self.E, x.vec, &f, out.vec))
        return float(f), out

    def hessian_product(self, Vec x, Vec v, Vec out=None):
        """H(x) v by the fused forward-over-forward product (no Hessian formed)."""
        if out is None:
            out = self.create_vec()
        CHKERR(MfadEnergyComputeHessianProduct(self.E, x.vec, v.vec, out.vec))
        return out

    def hessian_diagonal(self, Vec x, Vec out=None):
        if out is None:
            out = self.create_vec()
        CHKERR(MfadEnergyComputeHessianDiagonal(self.E, x.vec, out.vec))
        return out

    def hessian(self, Vec x, Mat A=None):
        """The assembled Hessian at x as a petsc4py Mat (made on the first call; pass it back to refill)."""
        if A is None:
            A = Mat()
            CHKERR(MfadEnergyCreateMatrix(self.E, &A.mat))
        CHKERR(MfadEnergyComputeHessian(self.E, x.vec, A.mat))
        return A

    def hessian_shell(self, Vec x=None, form="shell"):
        """The Hessian as a matrix-free Mat (MATSHELL: MatMult = the fused product at x); form
        "cached", "aij" or "auto" for mfad's other forms. Move it with hessian_set_point()."""
        cdef Mat H = Mat()
        CHKERR(MfadEnergyCreateHessianMat(self.E, _FORMS[form], &H.mat))
        if x is not None:
            CHKERR(MfadHessianSetPoint(H.mat, x.vec))
        return H

    @staticmethod
    def hessian_set_point(Mat H, Vec x):
        CHKERR(MfadHessianSetPoint(H.mat, x.vec))

    def residual(self, Vec x, Vec out=None):
        """The stacked least-squares residual r(x) (terms of residual kernels)."""
        if out is None:
            out = Vec()
            CHKERR(MfadEnergyCreateResidualVec(self.E, &out.vec))
        CHKERR(MfadEnergyComputeResidual(self.E, x.vec, out.vec))
        return out

    # ------------------------------------------------------------ solvers
    def set_snes(self, SNES snes):
        """Wires the energy into a petsc4py SNES (MfadEnergySetSNES(): mfad's default solver
        unless options or code choose another), with a monitor that turns Ctrl-C into KeyboardInterrupt."""
        CHKERR(MfadEnergySetSNES(self.E, snes.snes))
        CHKERR(SNESMonitorSet(snes.snes, _snes_interrupt, NULL, NULL))

    def set_tao(self, TAO tao):
        """Wires the energy into a petsc4py TAO (MfadEnergySetTao()), Ctrl-C as for SNES."""
        CHKERR(MfadEnergySetTao(self.E, tao.tao))
        CHKERR(TaoSetMonitor(tao.tao, _tao_interrupt, NULL, NULL))

    def set_tao_residual(self, TAO tao):
        """Wires the least-squares terms into a TAO least-squares solver (brgn, pounders)."""
        CHKERR(MfadEnergySetTaoResidual(self.E, tao.tao))
        CHKERR(TaoSetMonitor(tao.tao, _tao_interrupt, NULL, NULL))

    def _time_c_loop(self, op, Vec x, Vec v, Vec out, int n):
        """Seconds for n calls of the C function behind gradient ("gradient") or hessian_product
        ("hvp"), made in a C loop with no Python between them: bench/python_overhead.py's yardstick."""
        cdef double t0 = 0, t1 = 0
        cdef int i, hvp = op == "hvp"
        CHKERR(PetscTime(&t0))
        for i in range(n):
            if hvp:
                CHKERR(MfadEnergyComputeHessianProduct(self.E, x.vec, v.vec, out.vec))
            else:
                CHKERR(MfadEnergyComputeGradient(self.E, x.vec, out.vec))
        CHKERR(PetscTime(&t1))
        return t1 - t0

    # ------------------------------------------------------------ output
    def write_vtu(self, path, Vec x, Vec x0=None, term=0):
        """Writes term `term`'s cells at positions x as a .vtu (gathered on rank 0, atomically)."""
        CHKERR(MfadEnergyWriteVTU(self.E, term, x.vec, x0.vec if x0 is not None else NULL, str(path).encode()))
