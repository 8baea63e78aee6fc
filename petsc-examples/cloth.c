// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "A sheet of cloth draping under gravity, by implicit Euler: each time step minimises the\n"
    "incremental potential 1/(2 dt^2) |x - x_pred|_M^2 + W(x), x_pred = x_n + dt v_n, with mfad's\n"
    "exact gradients and Hessian-vector products (SNES newtonls + CG + Jacobi by default, or TAO).\n"
    "W: a StVK membrane on the triangles (energies/membrane_tri.c), discrete-shell bending on\n"
    "the interior edges (energies/bending_dihedral.c), optional bending springs between second\n"
    "neighbours (energies/mass_spring.c) and gravity on lumped masses. The sheet is an nx x ny grid\n"
    "of squares of side L / nx, each split into 2 triangles, flat at rest: horizontal (the xy plane)\n"
    "or, with -vertical, hanging in the xz plane below its top edge. Options:\n"
    "  -nx <20>, -ny <20>   squares along x and along the other side\n"
    "  -L <1>               sheet side along x [m] (squares are L / nx wide)\n"
    "  -rho <0.2>           areal density [kg/m^2]\n"
    "  -stretch <1000>      membrane Young's modulus times thickness [N/m]\n"
    "  -nu <0.3>            membrane Poisson ratio\n"
    "  -bend <1e-4>         dihedral bending stiffness k [N m] (0: none)\n"
    "  -bend_springs <0>    stiffness of springs between second neighbours [N/m] (0: none)\n"
    "  -pin <corners>       corners | edge | none: fixed vertices (corners: the 4 corners of a\n"
    "                       horizontal sheet, the 2 top ones of a vertical one; edge: the row at y = 0\n"
    "                       (the top edge of a vertical sheet)\n"
    "  -vertical            hang the sheet in the xz plane instead of laying it flat\n"
    "  -g <-9.81>           gravity along z [m/s^2]\n"
    "  -ts_steps <20>       implicit-Euler steps from rest (0: statics, the equilibrium)\n"
    "  -dt <0.01>           time step [s]\n"
    "  -use_tao             minimise each step with TAO (default -tao_type nls)\n"
    "  -o <file.vtu>        write the final sheet (MfadEnergyWriteVTU)\n"
    "  -o_steps <prefix>    write the sheet after every step, <prefix>_0001.vtu ...\n"
    "Contact (SNES only):\n"
    "  -contact             self-contact: IPC barriers on the point-triangle and edge-edge pairs of the\n"
    "                       sheet closer than -dhat (found anew at each Newton step), each line-search\n"
    "                       step capped where a pair would pass through (continuous collision)\n"
    "  -sphere <0>          radius [m] of a fixed sphere under the sheet's centre (0: none; implies\n"
    "                       -contact): an IPC barrier on every vertex, steps capped before it enters\n"
    "  -sphere_gap <0.05>   the sphere's top below the sheet [m]\n"
    "  -dhat <h/4>          the barriers' activation distance [m] (h the square's side)\n"
    "  -kappa <10 m g / dhat^3>  barrier stiffness (m a vertex's mass): at dhat / 2 ~40 times its weight\n"
    "  With contact, each step starts from the last position (collision-free), not the prediction;\n"
    "  defaults -mfad_psd_project abs -mfad_psd_project_steps 3 (projected, then exact Newton);\n"
    "  and prints contact_distance (the smallest pair distance) and sphere_distance.\n"
    "The Hessian is -mfad_hessian auto unless -mfad_hessian, -mfad_pmat or -pc_type is given.\n"
    "mfad's options and every SNES/KSP/PC/TAO option apply. Each step prints 'cloth: step ...'; the\n"
    "last line is the summary: vertices, triangles, hinges, energy (potential: strain + bending\n"
    "+ gravity), kinetic (1/2 v^T M v), com_displacement and com_velocity (z of the centre of\n"
    "mass), sag (the lowest z displacement), bottom_displacement (mean z displacement of the row\n"
    "farthest from y = 0), residual (|grad E| / the load, the largest over steps), iterations\n"
    "(the most of any step) and reason (the smallest of any step; > 0: converged); with contact also\n"
    "min_contact_distance and min_sphere_distance over all steps (> 0: nothing passed through).\n\n";

#include <mfadmesh.h>
#include "stepper.h"
#include "contactstep.h"
#include <petsctime.h>

typedef enum { PIN_CORNERS, PIN_EDGE, PIN_NONE } PinType;
static const char *const PinTypes[] = {"corners", "edge", "none"};

typedef struct {
  PetscInt  nx, ny, steps;
  PetscReal L, h, rho, stretch, nu, bend, springs, grav, dt;
  PinType   pin;
  PetscBool vertical, use_tao;
} Sheet;

static inline PetscInt SheetVertex(const Sheet *s, PetscInt i, PetscInt j) { return j * (s->nx + 1) + i; }

static inline void SheetRest(const Sheet *s, PetscInt v, PetscReal X[3])
{
  const PetscInt i = v % (s->nx + 1), j = v / (s->nx + 1);
  X[0] = s->h * i;
  X[1] = s->vertical ? 0.0 : s->h * j;
  X[2] = s->vertical ? -s->h * j : 0.0;
}

/* Lumped mass: rho A / 3 from each incident triangle; square (i, j) has triangles
   (00, 10, 11) and (00, 11, 01), so corners 00 and 11 of a square touch 2, corners 10 and 01 one. */
static PetscReal SheetMass(const Sheet *s, PetscInt v)
{
  const PetscInt i = v % (s->nx + 1), j = v / (s->nx + 1);
  PetscInt       count = 0;
  for (PetscInt a = i - 1; a <= i; a++)
    for (PetscInt b = j - 1; b <= j; b++) {
      if (a < 0 || b < 0 || a >= s->nx || b >= s->ny) continue;
      count += (i - a) == (j - b) ? 2 : 1;
    }
  return s->rho * 0.5 * s->h * s->h / 3.0 * count;
}

static PetscBool SheetPinned(const Sheet *s, PetscInt v)
{
  const PetscInt i = v % (s->nx + 1), j = v / (s->nx + 1);
  switch (s->pin) {
  case PIN_EDGE:
    return (PetscBool)(j == 0);
  case PIN_CORNERS:
    return (PetscBool)((i == 0 || i == s->nx) && (j == 0 || (!s->vertical && j == s->ny)));
  default:
    return PETSC_FALSE;
  }
}

/* Appends an element's vertices and rest coordinates. */
static void AddElement(const Sheet *s, PetscInt nv, const PetscInt v[], PetscInt *n, PetscInt conn[], PetscReal rest[])
{
  for (PetscInt a = 0; a < nv; a++) {
    conn[*n * nv + a] = v[a];
    SheetRest(s, v[a], &rest[3 * (*n * nv + a)]);
  }
  (*n)++;
}

/* This rank's terms: the squares, hinges and springs whose lowest vertex it owns. Hinges
   (e0, e1, o0, o1), faces (e0, e1, o0) and (e1, e0, o1) with the triangles' own orientation: the
   diagonal of each square, its bottom edge (j > 0) and its left edge (i > 0). Returns the
   membrane and inertia terms' indices. */
static PetscErrorCode BuildEnergy(MfadEnergy E, const Sheet *s, PetscInt vstart, PetscInt vend, PetscReal mass[], PetscInt *membrane,
                                  PetscInt *inertia)
{
  MfadKernel kmem, kbend, kspring, kgrav, kin;
  PetscInt   ntri = 0, nhinge = 0, nspring = 0, nfix = 0, *tconn, *hconn, *sconn, *vconn, *fixed;
  PetscReal *trest, *hrest, *srest, *gparam, *fixval, material[2];

  PetscFunctionBeginUser;
  PetscCall(MfadKernelFind("membrane_tri", &kmem));
  PetscCall(MfadKernelFind("bending_dihedral", &kbend));
  PetscCall(MfadKernelFind("mass_spring", &kspring));
  PetscCall(MfadKernelFind("gravity", &kgrav));
  PetscCall(MfadKernelFind("inertia", &kin));
  PetscCall(PetscMalloc6(6 * (vend - vstart), &tconn, 18 * (vend - vstart), &trest, 12 * (vend - vstart), &hconn, 36 * (vend - vstart), &hrest,
                         4 * (vend - vstart), &sconn, 12 * (vend - vstart), &srest));
  for (PetscInt v = vstart; v < vend; v++) {
    const PetscInt i = v % (s->nx + 1), j = v / (s->nx + 1);
    if (i < s->nx && j < s->ny) {
      const PetscInt v00 = v, v10 = v + 1, v01 = SheetVertex(s, i, j + 1), v11 = v01 + 1;
      const PetscInt t1[3] = {v00, v10, v11}, t2[3] = {v00, v11, v01}, diag[4] = {v00, v11, v01, v10};
      AddElement(s, 3, t1, &ntri, tconn, trest);
      AddElement(s, 3, t2, &ntri, tconn, trest);
      AddElement(s, 4, diag, &nhinge, hconn, hrest);
      if (j > 0) { /* bottom edge, shared with (00, 11, 01) of square (i, j - 1) */
        const PetscInt bottom[4] = {v00, v10, v11, SheetVertex(s, i, j - 1)};
        AddElement(s, 4, bottom, &nhinge, hconn, hrest);
      }
      if (i > 0) { /* left edge, shared with (00, 10, 11) of square (i - 1, j) */
        const PetscInt left[4] = {v01, v00, v11, v - 1};
        AddElement(s, 4, left, &nhinge, hconn, hrest);
      }
    }
    if (i + 2 <= s->nx) {
      const PetscInt sp[2] = {v, v + 2};
      AddElement(s, 2, sp, &nspring, sconn, srest);
    }
    if (j + 2 <= s->ny) {
      const PetscInt sp[2] = {v, SheetVertex(s, i, j + 2)};
      AddElement(s, 2, sp, &nspring, sconn, srest);
    }
  }
  /* plane-stress Lame constants of the membrane */
  material[0] = s->stretch / (2 * (1 + s->nu));
  material[1] = s->stretch * s->nu / (1 - s->nu * s->nu);
  PetscCall(MfadEnergyAddTermFromRest(E, kmem, ntri, tconn, trest, material, 1.0, membrane));
  if (s->bend > 0) PetscCall(MfadEnergyAddTermFromRest(E, kbend, nhinge, hconn, hrest, &s->bend, 1.0, NULL));
  if (s->springs > 0) PetscCall(MfadEnergyAddTermFromRest(E, kspring, nspring, sconn, srest, &s->springs, 1.0, NULL));
  PetscCall(PetscFree6(tconn, trest, hconn, hrest, sconn, srest));

  /* gravity f = m g on each owned vertex; inertia 1/2 m / dt^2 |x - x_pred|^2 (x_pred set per step) */
  PetscCall(PetscMalloc2(vend - vstart, &vconn, 4 * (vend - vstart), &gparam));
  for (PetscInt v = vstart; v < vend; v++) {
    vconn[v - vstart]            = v;
    mass[v - vstart]             = SheetMass(s, v);
    gparam[3 * (v - vstart)]     = 0;
    gparam[3 * (v - vstart) + 1] = 0;
    gparam[3 * (v - vstart) + 2] = mass[v - vstart] * s->grav;
  }
  PetscCall(MfadEnergyAddTerm(E, kgrav, vend - vstart, vconn, gparam, 1.0, NULL));
  *inertia = -1;
  if (s->steps > 0) {
    for (PetscInt v = vstart; v < vend; v++) {
      gparam[4 * (v - vstart)] = mass[v - vstart] / (s->dt * s->dt);
      SheetRest(s, v, &gparam[4 * (v - vstart) + 1]);
    }
    PetscCall(MfadEnergyAddTerm(E, kin, vend - vstart, vconn, gparam, 1.0, inertia));
  }
  PetscCall(PetscFree2(vconn, gparam));

  /* pins: fixed dofs at the rest positions */
  for (PetscInt v = vstart; v < vend; v++) nfix += 3 * SheetPinned(s, v);
  PetscCall(PetscMalloc2(nfix, &fixed, nfix, &fixval));
  nfix = 0;
  for (PetscInt v = vstart; v < vend; v++) {
    PetscReal X[3];
    if (!SheetPinned(s, v)) continue;
    SheetRest(s, v, X);
    for (int d = 0; d < 3; d++) fixed[nfix] = 3 * v + d, fixval[nfix++] = X[d];
  }
  PetscCall(MfadEnergySetFixedDofs(E, nfix, fixed, fixval));
  PetscCall(PetscFree2(fixed, fixval));
  PetscFunctionReturn(0);
}

/* This rank's contact surface: vertices [vstart, vend) and the ones after them its squares and
   edges reach (local number l is global vstart + l), the triangles of the squares whose corner 00
   it owns, the edges from its vertices to the right, up and up-right (the diagonal), each grid edge
   once, and its own vertices as points. Caller frees gid, rest, tri, edge, point. */
static PetscErrorCode SheetSurface(const Sheet *s, PetscInt vstart, PetscInt vend, PetscInt *nv, PetscInt **gid, PetscReal **rest, PetscInt *ntri,
                                   PetscInt **tri, PetscInt *nedge, PetscInt **edge, PetscInt *npoint, PetscInt **point)
{
  const PetscInt N = (s->nx + 1) * (s->ny + 1), n = vend - vstart;

  PetscFunctionBeginUser;
  *nv = n + PetscMin(s->nx + 2, N - vend);
  PetscCall(PetscMalloc5(*nv, gid, 3 * *nv, rest, 6 * n, tri, 6 * n, edge, n, point));
  for (PetscInt l = 0; l < *nv; l++) {
    (*gid)[l] = vstart + l;
    SheetRest(s, vstart + l, &(*rest)[3 * l]);
  }
  *ntri = *nedge = 0;
  for (PetscInt l = 0; l < n; l++) {
    const PetscInt v = vstart + l, i = v % (s->nx + 1), j = v / (s->nx + 1), up = l + s->nx + 1;
    (*point)[l] = l;
    if (i < s->nx) (*edge)[2 * *nedge] = l, (*edge)[2 * *nedge + 1] = l + 1, (*nedge)++;
    if (j < s->ny) (*edge)[2 * *nedge] = l, (*edge)[2 * *nedge + 1] = up, (*nedge)++;
    if (i < s->nx && j < s->ny) {
      const PetscInt t[6] = {l, l + 1, up + 1, l, up + 1, up};
      for (int k = 0; k < 6; k++) (*tri)[3 * *ntri + k] = t[k];
      *ntri += 2;
      (*edge)[2 * *nedge] = l, (*edge)[2 * *nedge + 1] = up + 1, (*nedge)++;
    }
  }
  *npoint = n;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Summed over ranks: [0] sum m u_z, [1] sum m v_z, [2] 1/2 v^T M v, [3] sum m, [4] the inertia
   term's value, [5] sum of u_z over the row j = ny, [6] its vertex count; [7] min u_z (separately) */
static PetscErrorCode Measure(MPI_Comm comm, const Sheet *s, PetscInt vstart, PetscInt n, const PetscScalar x[], const PetscReal vel[],
                              const PetscReal xpred[], const PetscReal mass[], PetscReal sum[8])
{
  PetscReal local[7] = {0}, lmin = PETSC_MAX_REAL;

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < n; l++) {
    PetscReal X[3], uz;
    SheetRest(s, vstart + l, X);
    uz = PetscRealPart(x[3 * l + 2]) - X[2];
    local[0] += mass[l] * uz;
    local[3] += mass[l];
    for (int d = 0; d < 3; d++) {
      if (vel) local[2] += 0.5 * mass[l] * vel[3 * l + d] * vel[3 * l + d];
      if (xpred) local[4] += 0.5 * mass[l] / (s->dt * s->dt) * PetscSqr(PetscRealPart(x[3 * l + d]) - xpred[3 * l + d]);
    }
    if (vel) local[1] += mass[l] * vel[3 * l + 2];
    if ((vstart + l) / (s->nx + 1) == s->ny) local[5] += uz, local[6] += 1;
    lmin = PetscMin(lmin, uz);
  }
  PetscCall(MPIU_Allreduce(local, sum, 7, MPIU_REAL, MPIU_SUM, comm));
  PetscCall(MPIU_Allreduce(&lmin, &sum[7], 1, MPIU_REAL, MPIU_MIN, comm));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  Sheet          s                       = {20, 20, 20, 1.0, 0, 0.2, 1000, 0.3, 1e-4, 0, -9.81, 0.01, PIN_CORNERS, PETSC_FALSE, PETSC_FALSE};
  PetscBool      write                   = PETSC_FALSE;
  char           out[PETSC_MAX_PATH_LEN] = "";
  PetscInt       N, n = PETSC_DECIDE, vstart, its = 0, reason = 1, membrane, inertia, pin = PIN_CORNERS, nsteps;
  PetscReal     *mass, *vel, *xpred, *xold, *iparam, energy, sum[8], gnorm0, gnorm, residual = 0;
  MfadEnergy     E;
  Vec            X, X0, G;
  Solver         S;
  const char    *reason_name = "";
  PetscBool      meshopt, contact = PETSC_FALSE, steps_out = PETSC_FALSE;
  char           prefix[PETSC_MAX_PATH_LEN] = "";
  PetscReal      radius = 0, gap = 0.05, dhat = 0, kappa = 0, dpair_min = PETSC_MAX_REAL, dsph_min = PETSC_MAX_REAL;
  Contact        ct;
  PetscLogDouble t0, t1;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "Cloth options", NULL);
  PetscCall(PetscOptionsInt("-nx", "squares along x", NULL, s.nx, &s.nx, NULL));
  PetscCall(PetscOptionsInt("-ny", "squares along the other side", NULL, s.ny, &s.ny, NULL));
  PetscCall(PetscOptionsReal("-L", "sheet side along x [m]", NULL, s.L, &s.L, NULL));
  PetscCall(PetscOptionsReal("-rho", "areal density [kg/m^2]", NULL, s.rho, &s.rho, NULL));
  PetscCall(PetscOptionsReal("-stretch", "membrane Young's modulus times thickness [N/m]", NULL, s.stretch, &s.stretch, NULL));
  PetscCall(PetscOptionsReal("-nu", "membrane Poisson ratio", NULL, s.nu, &s.nu, NULL));
  PetscCall(PetscOptionsReal("-bend", "dihedral bending stiffness [N m]", NULL, s.bend, &s.bend, NULL));
  PetscCall(PetscOptionsReal("-bend_springs", "second-neighbour spring stiffness [N/m]", NULL, s.springs, &s.springs, NULL));
  PetscCall(PetscOptionsEList("-pin", "pinned vertices", NULL, PinTypes, 3, PinTypes[s.pin], &pin, NULL));
  PetscCall(PetscOptionsBool("-vertical", "hang the sheet in the xz plane", NULL, s.vertical, &s.vertical, NULL));
  PetscCall(PetscOptionsReal("-g", "gravity along z [m/s^2]", NULL, s.grav, &s.grav, NULL));
  PetscCall(PetscOptionsInt("-ts_steps", "implicit-Euler steps (0: statics)", NULL, s.steps, &s.steps, NULL));
  PetscCall(PetscOptionsReal("-dt", "time step [s]", NULL, s.dt, &s.dt, NULL));
  PetscCall(PetscOptionsBool("-use_tao", "minimise with TAO", NULL, s.use_tao, &s.use_tao, NULL));
  PetscCall(PetscOptionsString("-o", "write the final sheet as .vtu", NULL, out, out, sizeof out, &write));
  PetscCall(PetscOptionsString("-o_steps", "write the sheet after every step as <prefix>_NNNN.vtu", NULL, prefix, prefix, sizeof prefix, &steps_out));
  PetscCall(PetscOptionsBool("-contact", "self-contact (IPC barriers, continuous collision)", NULL, contact, &contact, NULL));
  PetscCall(PetscOptionsReal("-sphere", "radius of a fixed sphere under the sheet (0: none)", NULL, radius, &radius, NULL));
  PetscCall(PetscOptionsReal("-sphere_gap", "the sphere's top below the sheet [m]", NULL, gap, &gap, NULL));
  PetscCall(PetscOptionsReal("-dhat", "contact activation distance [m] (default h / 4)", NULL, dhat, &dhat, NULL));
  PetscCall(PetscOptionsReal("-kappa", "barrier stiffness (default 10 m g / dhat^3)", NULL, kappa, &kappa, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mesh", &meshopt));
  PetscOptionsEnd();
  /* the pins, the hinges and the row measurements are the grid's: no read sheet (yet) */
  PetscCheck(!meshopt, comm, PETSC_ERR_SUP,
             "cloth simulates the generated -nx x -ny sheet only; -mesh is not supported (elastic, smooth, param, arap, arap_surface, frames and sphere "
             "read meshes)");
  s.pin = (PinType)pin;
  PetscCheck(s.nx >= 1 && s.ny >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-nx %" PetscInt_FMT " and -ny %" PetscInt_FMT " must be >= 1", s.nx, s.ny);
  PetscCheck(s.L > 0 && s.rho > 0 && s.stretch > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-L %g, -rho %g and -stretch %g must be > 0", (double)s.L,
             (double)s.rho, (double)s.stretch);
  PetscCheck(s.nu > -1 && s.nu < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-nu %g must be in (-1, 1) (plane stress)", (double)s.nu);
  PetscCheck(s.bend >= 0 && s.springs >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bend %g and -bend_springs %g must be >= 0", (double)s.bend,
             (double)s.springs);
  PetscCheck(s.steps >= 0 && s.dt > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_steps %" PetscInt_FMT " must be >= 0 and -dt %g > 0", s.steps,
             (double)s.dt);
  PetscCheck(s.steps > 0 || s.pin != PIN_NONE, comm, PETSC_ERR_ARG_INCOMP,
             "-pin none leaves statics without a minimiser (the sheet falls): use -ts_steps");
  PetscCheck(!write || out[0], comm, PETSC_ERR_ARG_WRONG, "-o needs a file name");
  PetscCheck(!steps_out || prefix[0], comm, PETSC_ERR_ARG_WRONG, "-o_steps needs a file name prefix");
  s.h = s.L / s.nx;
  if (radius > 0) contact = PETSC_TRUE;
  PetscCheck(radius >= 0 && dhat >= 0 && kappa >= 0 && gap > 0, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-sphere %g, -dhat %g and -kappa %g must be >= 0, -sphere_gap %g > 0", (double)radius, (double)dhat, (double)kappa, (double)gap);
  PetscCheck(!contact || !s.use_tao, comm, PETSC_ERR_SUP, "-contact caps SNES's line-search steps (continuous collision): not with -use_tao");
  PetscCheck(!contact || s.steps > 0, comm, PETSC_ERR_ARG_INCOMP, "-contact and -sphere simulate a fall: use -ts_steps > 0");
  if (contact && dhat == 0) dhat = 0.25 * s.h; /* below the rest sheet's closest non-adjacent pair, h / sqrt(2) */
  if (contact && kappa == 0) kappa = 10 * s.rho * s.h * s.h * PetscAbsReal(s.grav) / (dhat * dhat * dhat);

  N = (s.nx + 1) * (s.ny + 1);
  PetscCall(PetscSplitOwnership(comm, &n, &N));
  PetscCallMPI(MPI_Scan(&n, &vstart, 1, MPIU_INT, MPI_SUM, comm));
  vstart -= n;
  PetscCall(MfadEnergyCreate(comm, 3, n, N, &E));
  PetscCall(MfadEnergySetHessianType(E, MFAD_HESSIAN_AUTO, MFAD_HESSIAN_AUTO)); /* the cheapest per Newton step; -mfad_hessian overrides it */
  if (contact) { /* folds make the Hessian indefinite (CG stopped at step 30 of the default drape);
                    projected Newton alone then took > 50 steps per time step near rest: projected,
                    then exact steps (80 time steps: 6-9 Newton steps each); options override */
    PetscCall(MfadEnergySetPSDProjection(E, MFAD_PSD_ABS, 0));
    PetscCall(MfadEnergySetPSDProjectionSteps(E, 3));
  }
  PetscCall(PetscMalloc5(n, &mass, 3 * n, &vel, 3 * n, &xpred, 3 * n, &xold, 4 * n, &iparam));
  PetscCall(BuildEnergy(E, &s, vstart, vstart + n, mass, &membrane, &inertia));
  if (contact) {
    PetscInt   nv = 0, ntri = 0, nedge = 0, npoint = 0, *gid, *tri, *edge, *point;
    PetscReal *rest, centre[3] = {0.5 * s.L, 0.5 * s.h * s.ny, -gap - radius};
    PetscCall(SheetSurface(&s, vstart, vstart + n, &nv, &gid, &rest, &ntri, &tri, &nedge, &edge, &npoint, &point));
    PetscCall(ContactCreate(E, nv, gid, rest, ntri, tri, nedge, edge, npoint, point, dhat, kappa, centre, radius, &ct));
    PetscCall(PetscFree5(gid, rest, tri, edge, point));
  }
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergySetUp(E));

  /* the rest shape, at rest */
  PetscCall(MfadEnergyCreateVecs(E, &X, &G));
  {
    PetscScalar *x;
    PetscCall(VecGetArray(X, &x));
    for (PetscInt l = 0; l < n; l++) {
      PetscReal Xr[3];
      SheetRest(&s, vstart + l, Xr);
      for (int d = 0; d < 3; d++) x[3 * l + d] = Xr[d], vel[3 * l + d] = 0, xpred[3 * l + d] = Xr[d];
    }
    PetscCall(VecRestoreArray(X, &x));
  }
  PetscCall(VecDuplicate(X, &X0));
  PetscCall(VecCopy(X, X0));
  PetscCall(MfadEnergyComputeGradient(E, X, G));
  PetscCall(VecNorm(G, NORM_2, &gnorm0)); /* the load: gravity on the free dofs */
  PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view"));

  /* converged at |grad E| < 1e-6 of the load, statics too: see stepper.h */
  PetscCall(SolverCreate(E, s.use_tao, 1e-6 * gnorm0, NULL, X, &S));

  PetscCall(PetscTime(&t0));
  nsteps = PetscMax(s.steps, 1); /* statics: one solve without the inertia term */
  for (PetscInt step = 1; step <= nsteps; step++) {
    PetscScalar *x;
    PetscInt     sits = 0, sreason = 0;
    const char  *sname = "";

    if (s.steps > 0) PetscCall(ImplicitEulerPredict(E, inertia, n, mass, s.dt, vel, X, xold, xpred, iparam));
    if (contact) PetscCall(ContactStepStart(X, xold));
    PetscCall(SolverSolve(&S, X, &sits, &sreason, &sname));
    PetscCall(MfadEnergyComputeObjective(E, X, &energy));
    PetscCall(MfadEnergyComputeGradient(E, X, G));
    PetscCall(VecNorm(G, NORM_2, &gnorm));
    residual = PetscMax(residual, gnorm0 > 0 ? gnorm / gnorm0 : gnorm);
    its      = PetscMax(its, sits);
    if (step == 1 || sreason < reason) reason = sreason, reason_name = sname;
    if (s.steps > 0) PetscCall(ImplicitEulerVelocity(n, s.dt, X, xold, vel));
    PetscCall(VecGetArray(X, &x));
    PetscCall(Measure(comm, &s, vstart, n, x, s.steps ? vel : NULL, s.steps ? xpred : NULL, mass, sum));
    PetscCall(VecRestoreArray(X, &x));
    energy -= sum[4];
    if (contact) {
      PetscReal dp, dsph;
      PetscCall(ContactMeasure(&ct, X, &dp, &dsph));
      dpair_min = PetscMin(dpair_min, dp);
      dsph_min  = PetscMin(dsph_min, dsph);
      PetscCall(PetscPrintf(comm, "cloth: step %" PetscInt_FMT " contact_distance %.6e sphere_distance %.6e\n", step, (double)dp, (double)dsph));
    }
    if (steps_out) {
      char path[PETSC_MAX_PATH_LEN + 16];
      PetscCall(PetscSNPrintf(path, sizeof path, "%s_%04" PetscInt_FMT ".vtu", prefix, step));
      PetscCall(MfadEnergyWriteVTU(E, membrane, X, X0, path));
    }
    if (s.steps > 0)
      PetscCall(PetscPrintf(
          comm,
          "cloth: step %" PetscInt_FMT
          " time %.6e energy %.12e kinetic %.12e com_displacement %.12e com_velocity %.12e sag %.12e residual %.3e iterations %" PetscInt_FMT
          " reason %" PetscInt_FMT " %s\n",
          step, (double)(step * s.dt), (double)energy, (double)sum[2], (double)(sum[0] / sum[3]), (double)(sum[1] / sum[3]), (double)sum[7],
          (double)(gnorm / gnorm0), sits, sreason, sname));
  }
  PetscCall(PetscTime(&t1));

  if (write) PetscCall(MfadEnergyWriteVTU(E, membrane, X, X0, out));
  PetscCall(PetscPrintf(comm, "cloth: solve %.3f s\n", (double)(t1 - t0)));
  PetscCall(PetscPrintf(comm,
                        "cloth: vertices %" PetscInt_FMT " triangles %" PetscInt_FMT " hinges %" PetscInt_FMT
                        " energy %.12e kinetic %.12e com_displacement %.12e com_velocity %.12e"
                        " sag %.12e bottom_displacement %.12e residual %.3e iterations %" PetscInt_FMT " reason %" PetscInt_FMT " %s\n",
                        N, 2 * s.nx * s.ny, 3 * s.nx * s.ny - s.nx - s.ny, (double)energy, (double)sum[2], (double)(sum[0] / sum[3]),
                        (double)(sum[1] / sum[3]), (double)sum[7], (double)(sum[5] / sum[6]), (double)residual, its, reason, reason_name));
  if (contact) {
    PetscInt updates, rebuilds, repre, kept, detections, capped;
    PetscCall(MfadEnergyGetElementsCounts(E, &updates, &rebuilds, &repre, &kept));
    PetscCall(MfadEnergyGetContactDetections(E, &detections));
    PetscCall(MfadEnergyGetStepCuts(E, &capped));
    PetscCall(PetscPrintf(comm,
                          "cloth: contact dhat %.6e kappa %.6e min_contact_distance %.6e min_sphere_distance %.6e detections %" PetscInt_FMT
                          " capped_steps %" PetscInt_FMT " ghost_rebuilds %" PetscInt_FMT " repreallocations %" PetscInt_FMT "\n",
                          (double)dhat, (double)kappa, (double)dpair_min, (double)dsph_min, detections, capped, rebuilds, repre));
    PetscCall(ContactDestroy(&ct));
  }

  PetscCall(SolverDestroy(&S));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&X0));
  PetscCall(VecDestroy(&G));
  PetscCall(PetscFree5(mass, vel, xpred, xold, iparam));
  PetscCall(MfadEnergyDestroy(&E));
  if (reason <= 0) PetscCall(PetscFPrintf(comm, PETSC_STDERR, "cloth: the solve did not converge: %s\n", reason_name));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1;
}
