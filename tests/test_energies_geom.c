// SPDX-License-Identifier: BSD-2-Clause
/* The geometry-processing energies' invariances and exact values, each a property of the formula
   that the random-element checks of test_kernels.c (closed forms, derivatives vs finite
   differences) do not single out:
   - dirichlet_tri: 0 for a constant map, the rest area for the identity and for any rigid motion of
     the rest triangle, and its Hessian is the cotangent Laplacian (entries -cot(theta_k)/2);
   - arap_tri: 0 with zero gradient at rigid motions of the rest triangle, 2 A (s - 1)^2 under a
     uniform scaling by s;
   - arap_surface: 0 with zero gradient at rigid motions x = Q r + t when every rotation node holds
     Q's Gibbs vector, and when each corner's base rotation R0_a (parameters) and rotation node u_a
     make R(u_a) R0_a = Q, nonzero when one u_a is off; 4 A (s - 1)^2 under a uniform scaling by s with identity rotations (the
     cotangent identity sum_k cot(theta_k) |e_k|^2 = 4 A), with zero gradient in the rotations
     there (R = I is each cell's best rotation of a scaling);
   - flip_barrier_tri: 0 at rotations of the rest triangle, -A log(s^2) under a scaling by s;
   - sphere_penalty: 0 with zero gradient on the sphere;
   - frame_field: 0 with zero gradient for a field transported along the edge (u_g = r u_f),
     unchanged by a common rotation of both faces' fields.
   Tolerances: values O(1), ~50 roundings: 1e-13 absolute (~500 eps) unless said otherwise. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* tests energies element by element: the complete kernel (machinery) */
#include <mfad/impl/kernel.h>

#define TOL 1e-13

/* a non-planar-aligned rest triangle in 3-D: vertices 0, 1, 2 */
static const double Rest[9] = {0.1, -0.2, 0.3, 1.2, 0.1, 0.5, 0.4, 0.9, -0.2};

static MfadKernel Find(const char *name)
{
  MfadKernel k = NULL;
  ck_assert_msg(!MfadKernelFind(name, &k) && k, "kernel %s not found", name);
  return k;
}

static double Eval(MfadKernel k, const double *x, const double *p, double *g)
{
  double E, v[18] = {0};
  k->element(g ? MFAD_MODE_GRADIENT : MFAD_MODE_VALUE, x, v, p, &E, g);
  return E;
}

static double RestArea(void)
{
  double u[3], w[3], c2 = 0.0;
  for (int d = 0; d < 3; d++) u[d] = Rest[3 + d] - Rest[d], w[d] = Rest[6 + d] - Rest[d];
  for (int d = 0; d < 3; d++) {
    const double c = u[(d + 1) % 3] * w[(d + 2) % 3] - u[(d + 2) % 3] * w[(d + 1) % 3];
    c2 += c * c;
  }
  return 0.5 * sqrt(c2);
}

/* the rest triangle laid flat (x0 = 0, x1 on the x axis, counter-clockwise), then rotated by
   theta, scaled by s and translated by (tx, ty) */
static void Flat(double theta, double s, double tx, double ty, double *x)
{
  double u[3], w[3], l1 = 0.0, dot = 0.0, f[6];
  for (int d = 0; d < 3; d++) u[d] = Rest[3 + d] - Rest[d], w[d] = Rest[6 + d] - Rest[d];
  for (int d = 0; d < 3; d++) l1 += u[d] * u[d], dot += u[d] * w[d];
  f[0] = f[1] = f[3] = 0.0;
  f[2]               = sqrt(l1);
  f[4]               = dot / f[2];
  f[5]               = 2.0 * RestArea() / f[2];
  for (int a = 0; a < 3; a++) {
    x[2 * a]     = s * (cos(theta) * f[2 * a] - sin(theta) * f[2 * a + 1]) + tx;
    x[2 * a + 1] = s * (sin(theta) * f[2 * a] + cos(theta) * f[2 * a + 1]) + ty;
  }
}

static void Params(MfadKernel k, double *p)
{
  ck_assert_msg(k->rest && k->rest(Rest, NULL, p) == 0, "%s: rest set-up of a good triangle failed", k->name);
}

static void AssertNear(const char *what, double got, double want, double tol)
{
  ck_assert_msg(fabs(got - want) <= tol, "%s: %.17g, expected %.17g (error %.3g > %.3g)", what, got, want, fabs(got - want), tol);
}

START_TEST(dirichlet_is_zero_for_constant_map_and_area_for_rigid_motions)
{
  MfadKernel k = Find("dirichlet_tri");
  double     p[5], x[9], A = RestArea();
  const double c = 0.6, s = 0.8; /* a rotation about the axis (1, 2, 2) / 3 by angle acos(0.6) */
  const double ax[3] = {1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0};
  Params(k, p);
  for (int i = 0; i < 9; i++) x[i] = Rest[i % 3] + 0.7;
  AssertNear("dirichlet_tri of a constant map", Eval(k, x, p, NULL), 0.0, TOL);
  AssertNear("dirichlet_tri of the identity", Eval(k, Rest, p, NULL), A, TOL);
  for (int a = 0; a < 3; a++) { /* Rodrigues: R r = c r + s (ax x r) + (1 - c) (ax . r) ax, then + (1, -2, 3) */
    const double *r = &Rest[3 * a];
    const double  dot = ax[0] * r[0] + ax[1] * r[1] + ax[2] * r[2], t[3] = {1.0, -2.0, 3.0};
    for (int d = 0; d < 3; d++) x[3 * a + d] = c * r[d] + s * (ax[(d + 1) % 3] * r[(d + 2) % 3] - ax[(d + 2) % 3] * r[(d + 1) % 3]) + (1 - c) * dot * ax[d] + t[d];
  }
  AssertNear("dirichlet_tri of a rigid motion", Eval(k, x, p, NULL), A, TOL);
}
END_TEST

START_TEST(dirichlet_hessian_is_the_cotangent_laplacian)
{
  /* d^2 E / dx_i^c dx_j^c = -cot(theta_k) / 2 (k the third vertex), other coordinates uncoupled */
  MfadKernel k = Find("dirichlet_tri");
  double     p[5], H[81], v[9] = {0}, E;
  Params(k, p);
  k->element(MFAD_MODE_HESSIAN, Rest, v, p, &E, H);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const int kk = 3 - i - j;
      double    u[3], w[3], uw = 0.0, cc = 0.0, cot;
      if (i == j) continue;
      for (int d = 0; d < 3; d++) u[d] = Rest[3 * i + d] - Rest[3 * kk + d], w[d] = Rest[3 * j + d] - Rest[3 * kk + d];
      for (int d = 0; d < 3; d++) {
        const double cr = u[(d + 1) % 3] * w[(d + 2) % 3] - u[(d + 2) % 3] * w[(d + 1) % 3];
        uw += u[d] * w[d], cc += cr * cr;
      }
      cot = uw / sqrt(cc);
      for (int c = 0; c < 3; c++)
        for (int c2 = 0; c2 < 3; c2++) AssertNear("dirichlet_tri Hessian entry", H[(3 * i + c) * 9 + 3 * j + c2], c == c2 ? -0.5 * cot : 0.0, TOL);
    }
}
END_TEST

START_TEST(arap_is_zero_at_rigid_motions_and_quadratic_in_scaling)
{
  MfadKernel k = Find("arap_tri");
  double     p[5], x[6], g[6], A = RestArea();
  Params(k, p);
  for (int t = 0; t < 4; t++) {
    Flat(1.3 * t - 2.0, 1.0, 0.5 * t, -t, x);
    AssertNear("arap_tri at a rigid motion", Eval(k, x, p, g), 0.0, TOL);
    for (int i = 0; i < 6; i++) AssertNear("arap_tri gradient at a rigid motion", g[i], 0.0, TOL);
  }
  for (int t = 0; t < 3; t++) {
    const double s = 0.5 + 0.4 * t;
    Flat(0.7, s, 0.2, 0.1, x);
    AssertNear("arap_tri under a uniform scaling", Eval(k, x, p, NULL), 2.0 * A * (s - 1.0) * (s - 1.0), TOL);
  }
}
END_TEST

START_TEST(arap_surface_is_zero_at_rigid_motions_and_quadratic_in_scaling)
{
  MfadKernel k = Find("arap_surface");
  double     p[21], x[18], g[18], A = RestArea(), r[18] = {0};
  memcpy(r, Rest, sizeof(Rest)); /* the rotation nodes' rest coordinates are not used */
  ck_assert_msg(k->rest && k->rest(r, NULL, p) == 0, "arap_surface: rest set-up of a good triangle failed");
  for (int t = 0; t < 4; t++) {
    /* Q: turn by phi about the unit axis n; its Gibbs vector n tan(phi / 2) */
    const double phi = 0.9 * t - 1.2, n0[3] = {1.0, -2.0 + t, 0.5 * t}, l = sqrt(n0[0] * n0[0] + n0[1] * n0[1] + n0[2] * n0[2]);
    double       n[3], Q[9], c = cos(phi), sn = sin(phi);
    for (int d = 0; d < 3; d++) n[d] = n0[d] / l;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) Q[3 * i + j] = (1 - c) * n[i] * n[j] + (i == j ? c : 0.0);
    Q[1] -= sn * n[2], Q[2] += sn * n[1], Q[3] += sn * n[2], Q[5] -= sn * n[0], Q[6] -= sn * n[1], Q[7] += sn * n[0];
    for (int a = 0; a < 3; a++)
      for (int i = 0; i < 3; i++) {
        x[3 * a + i]     = 0.3 * t - 0.5 * i;
        for (int j = 0; j < 3; j++) x[3 * a + i] += Q[3 * i + j] * Rest[3 * a + j];
        x[9 + 3 * a + i] = n[i] * tan(0.5 * phi);
      }
    AssertNear("arap_surface at a rigid motion", Eval(k, x, p, g), 0.0, TOL);
    for (int i = 0; i < 18; i++) AssertNear("arap_surface gradient at a rigid motion", g[i], 0.0, TOL);
    {
      /* the moving chart: corner a's base rotation R0_a turns by alpha_a about n (its rest edges
         f^a = R0_a e in the parameters) and u_a the rest, R(u_a) R0_a = Q: still 0 and stationary */
      double pr[21];
      memcpy(pr, p, sizeof(pr));
      for (int a = 0; a < 3; a++) {
        const double al = 0.7 * a - 0.4 + 0.5 * t, ca = cos(al), sa = sin(al);
        for (int kk = 0; kk < 3; kk++) {
          if (a != kk && a != (kk + 1) % 3) continue;
          const double *e = &p[6 * kk], ne = n[0] * e[0] + n[1] * e[1] + n[2] * e[2];
          double       *f = &pr[6 * kk + 3 * (a == kk ? 0 : 1)];
          for (int i = 0; i < 3; i++) /* Rodrigues: f = e cos + (n x e) sin + n (n.e)(1 - cos) */
            f[i] = e[i] * ca + (n[(i + 1) % 3] * e[(i + 2) % 3] - n[(i + 2) % 3] * e[(i + 1) % 3]) * sa + n[i] * ne * (1 - ca);
        }
        for (int i = 0; i < 3; i++) x[9 + 3 * a + i] = n[i] * tan(0.5 * (phi - al));
      }
      AssertNear("arap_surface at a rigid motion in a moving chart", Eval(k, x, pr, g), 0.0, TOL);
      for (int i = 0; i < 18; i++) AssertNear("arap_surface gradient at a rigid motion in a moving chart", g[i], 0.0, TOL);
      x[9] += 0.1; /* and not 0 where a cell's rotation is off: the base rotations are used */
      ck_assert_msg(Eval(k, x, pr, g) > 1e-6, "arap_surface: a turned cell in a moving chart costs nothing");
    }
  }
  for (int t = 0; t < 3; t++) {
    const double s = 0.5 + 0.4 * t;
    for (int i = 0; i < 18; i++) x[i] = i < 9 ? s * Rest[i] + 0.1 * (i % 3) : 0.0;
    AssertNear("arap_surface under a uniform scaling", Eval(k, x, p, g), 4.0 * A * (s - 1.0) * (s - 1.0), TOL);
    for (int i = 9; i < 18; i++) AssertNear("arap_surface rotation gradient under a uniform scaling", g[i], 0.0, TOL);
  }
}
END_TEST

START_TEST(flip_barrier_is_zero_at_rotations_and_log_of_area_ratio)
{
  MfadKernel k = Find("flip_barrier_tri");
  double     p[5], x[6], A = RestArea();
  Params(k, p);
  Flat(2.5, 1.0, -0.3, 0.4, x);
  AssertNear("flip_barrier_tri at a rotation", Eval(k, x, p, NULL), 0.0, TOL);
  Flat(-0.4, 1.7, 0.0, 0.0, x);
  AssertNear("flip_barrier_tri under a scaling by 1.7", Eval(k, x, p, NULL), -A * log(1.7 * 1.7), TOL);
  Flat(-0.4, 1.0, 0.0, 0.0, x);
  for (int a = 0; a < 3; a++) x[2 * a] = -x[2 * a]; /* mirrored: flipped */
  ck_assert_msg(isinf(Eval(k, x, p, NULL)), "flip_barrier_tri of a mirrored triangle is finite");
}
END_TEST

START_TEST(sphere_penalty_is_zero_on_the_sphere)
{
  MfadKernel   k = Find("sphere_penalty");
  const double p[2] = {1.5, 3.0};
  double       x[3] = {1.5 * 0.6, 1.5 * 0.0, 1.5 * 0.8}, g[3];
  AssertNear("sphere_penalty on the sphere", Eval(k, x, p, g), 0.0, TOL);
  for (int i = 0; i < 3; i++) AssertNear("sphere_penalty gradient on the sphere", g[i], 0.0, TOL);
  x[2] = 0.0; /* |x|^2 = 0.81: k (0.81 - 2.25)^2 */
  AssertNear("sphere_penalty inside", Eval(k, x, p, NULL), 3.0 * (0.81 - 2.25) * (0.81 - 2.25), TOL);
}
END_TEST

START_TEST(frame_field_is_zero_for_a_transported_field_and_rotation_invariant)
{
  MfadKernel   k = Find("frame_field");
  const double th = 0.9, p[3] = {cos(4 * th), sin(4 * th), 0.7};
  double       x[4] = {0.3, -0.8, 0, 0}, g[4], y[4], E;
  x[2] = p[0] * x[0] - p[1] * x[1];
  x[3] = p[1] * x[0] + p[0] * x[1];
  AssertNear("frame_field of a transported field", Eval(k, x, p, g), 0.0, TOL);
  for (int i = 0; i < 4; i++) AssertNear("frame_field gradient of a transported field", g[i], 0.0, TOL);
  x[3] += 0.5;
  E = Eval(k, x, p, NULL);
  AssertNear("frame_field off by 0.5", E, 0.7 * 0.25, TOL);
  for (int f = 0; f < 2; f++) { /* both faces' fields times e^{i 1.1} */
    y[2 * f]     = cos(1.1) * x[2 * f] - sin(1.1) * x[2 * f + 1];
    y[2 * f + 1] = sin(1.1) * x[2 * f] + cos(1.1) * x[2 * f + 1];
  }
  AssertNear("frame_field after a common rotation", Eval(k, y, p, NULL), E, TOL);
}
END_TEST

int main(void)
{
  Suite   *s  = suite_create("energies_geom");
  TCase   *tc = tcase_create("invariances");
  SRunner *sr;
  int      nfail;
  tcase_add_test(tc, dirichlet_is_zero_for_constant_map_and_area_for_rigid_motions);
  tcase_add_test(tc, dirichlet_hessian_is_the_cotangent_laplacian);
  tcase_add_test(tc, arap_is_zero_at_rigid_motions_and_quadratic_in_scaling);
  tcase_add_test(tc, arap_surface_is_zero_at_rigid_motions_and_quadratic_in_scaling);
  tcase_add_test(tc, flip_barrier_is_zero_at_rotations_and_log_of_area_ratio);
  tcase_add_test(tc, sphere_penalty_is_zero_on_the_sphere);
  tcase_add_test(tc, frame_field_is_zero_for_a_transported_field_and_rotation_invariant);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_SILENT);
  nfail = srunner_ntests_failed(sr);
  if (nfail) srunner_print(sr, CK_NORMAL);
  srunner_free(sr);
  return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
