// SPDX-License-Identifier: BSD-2-Clause
/* The sphere energies' invariances and exact values (energies/sphere_symmetric_dirichlet.c,
   sphere_flip_barrier.c), the properties petsc-examples/sphere.c builds on, which the random-element
   checks of test_kernels.c (closed forms, derivatives vs finite differences) do not single out:
   - both see only y / |y|: the value is unchanged when each vertex is scaled by its own factor, and
     the gradient has no radial part (y_i . g_i = 0);
   - both are unchanged by a rotation of the sphere;
   - symmetric Dirichlet is 4 A with zero gradient when the rest triangle lies on the unit sphere
     and the map is a rotation of it (|J|^2 + |J^+|^2 = 4 at an isometry, its minimum);
   - the barrier is 0 where det[u0, u1, u2] = 2 A (the octant triangle e_x, e_y, e_z with A = 1/2),
     and both are +inf for a flipped triangle;
   - symmetric Dirichlet grows without bound as a sliver's vertices come onto a great circle.
   Tolerances: values O(1)-O(10) from ~100 roundings: 1e-13 relative (~500 eps); gradients compared
   with their own scale. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* tests energies element by element: the complete kernel (machinery) */
#include <mfad/impl/kernel.h>

#define TOL 1e-13

static const char *const Names[2] = {"sphere_symmetric_dirichlet", "sphere_flip_barrier"};

/* a rest triangle in 3-D (any position: the rest set-up is frame-free) and a current one near the
   north pole, counter-clockwise seen from outside, |y| ~ 1 */
static const double Rest[9] = {0.1, -0.2, 0.3, 0.5, -0.1, 0.4, 0.2, 0.25, 0.2};
static const double Y[9]    = {0.05, -0.1, 1.0, 0.4, 0.05, 0.95, -0.1, 0.35, 1.05};

static MfadKernel Find(const char *name)
{
  MfadKernel k = NULL;
  ck_assert_msg(!MfadKernelFind(name, &k) && k, "kernel %s not found", name);
  return k;
}

static double Eval(MfadKernel k, const double *x, const double *p, double *g)
{
  double E, v[9] = {0};
  k->element(g ? MFAD_MODE_GRADIENT : MFAD_MODE_VALUE, x, v, p, &E, g);
  return E;
}

static void Params(MfadKernel k, const double *rest, double *p) { ck_assert_msg(k->rest(rest, NULL, p) == 0, "%s: rest set-up failed", k->name); }

static void AssertNear(const char *what, const char *name, double got, double want, double tol)
{
  ck_assert_msg(fabs(got - want) <= tol, "%s: %s is %.17g, expected %.17g (error %.3g > %.3g)", name, what, got, want, fabs(got - want), tol);
}

/* R = the rotation by angle t about the unit axis a (Rodrigues) */
static void Rotation(const double a[3], double t, double R[9])
{
  const double c = cos(t), s = sin(t);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[3 * i + j] = (i == j) * c + (1 - c) * a[i] * a[j];
  R[1] -= s * a[2], R[2] += s * a[1], R[3] += s * a[2], R[5] -= s * a[0], R[6] -= s * a[1], R[7] += s * a[0];
}

static void Rotate(const double R[9], const double *x, double *y)
{
  for (int v = 0; v < 3; v++)
    for (int i = 0; i < 3; i++) y[3 * v + i] = R[3 * i] * x[3 * v] + R[3 * i + 1] * x[3 * v + 1] + R[3 * i + 2] * x[3 * v + 2];
}

START_TEST(sphere_energy_sees_only_the_directions)
{
  MfadKernel   k = Find(Names[_i]);
  double       p[5], g[9], gs[9], ys[9], E, Es, gmax = 0.0;
  const double c[3] = {0.5, 1.7, 3.0};
  Params(k, Rest, p);
  E = Eval(k, Y, p, g);
  for (int v = 0; v < 3; v++)
    for (int d = 0; d < 3; d++) ys[3 * v + d] = c[v] * Y[3 * v + d];
  Es = Eval(k, ys, p, gs);
  AssertNear("value with each vertex scaled", Names[_i], Es, E, TOL * fabs(E));
  for (int i = 0; i < 9; i++) gmax = fmax(gmax, fabs(g[i]));
  for (int v = 0; v < 3; v++) {
    /* y . g = d/dc E(c y) at c = 1, 0 for a scale-invariant E; |y| ~ 1 */
    AssertNear("radial part of the gradient", Names[_i], Y[3 * v] * g[3 * v] + Y[3 * v + 1] * g[3 * v + 1] + Y[3 * v + 2] * g[3 * v + 2], 0.0,
               TOL * gmax);
    /* the gradient is homogeneous of degree -1 in each vertex: g(c y) = g(y) / c on that vertex */
    for (int d = 0; d < 3; d++) AssertNear("gradient with each vertex scaled", Names[_i], c[v] * gs[3 * v + d], g[3 * v + d], TOL * gmax);
  }
}
END_TEST

START_TEST(sphere_energy_is_rotation_invariant)
{
  MfadKernel   k       = Find(Names[_i]);
  const double axis[3] = {0.48, -0.6, 0.64}; /* unit */
  double       p[5], R[9], yr[9], E;
  Params(k, Rest, p);
  Rotation(axis, 2.1, R);
  Rotate(R, Y, yr);
  E = Eval(k, Y, p, NULL);
  AssertNear("value after a rotation", Names[_i], Eval(k, yr, p, NULL), E, TOL * fabs(E));
}
END_TEST

START_TEST(sphere_dirichlet_is_4A_at_a_rotation_of_a_spherical_rest_triangle)
{
  MfadKernel   k       = Find("sphere_symmetric_dirichlet");
  const double axis[3] = {0.0, 0.6, 0.8};
  double       rest[9], p[5], R[9], y[9], g[9], E, A;
  for (int v = 0; v < 3; v++) { /* the rest triangle on the unit sphere */
    const double l = sqrt(Y[3 * v] * Y[3 * v] + Y[3 * v + 1] * Y[3 * v + 1] + Y[3 * v + 2] * Y[3 * v + 2]);
    for (int d = 0; d < 3; d++) rest[3 * v + d] = Y[3 * v + d] / l;
  }
  Params(k, rest, p);
  A = p[4];
  Rotation(axis, -0.7, R);
  Rotate(R, rest, y);
  for (int i = 0; i < 9; i++) y[i] *= 1.0 + 0.3 * (i / 3); /* vertices off the sphere: only directions count */
  E = Eval(k, y, p, g);
  AssertNear("value at an isometry (4 A)", k->name, E, 4.0 * A, TOL * 4.0 * A);
  /* the minimum: zero gradient, to round-off of terms ~ A / edge ~ 1 */
  for (int i = 0; i < 9; i++) AssertNear("gradient at an isometry", k->name, g[i], 0.0, 1e-12);
}
END_TEST

START_TEST(sphere_flip_barrier_is_zero_at_the_octant_with_area_one_half)
{
  /* det[e_x, e_y, e_z] = 1 = 2 A for a rest triangle of area 1/2 (legs 1, right angle) */
  MfadKernel   k       = Find("sphere_flip_barrier");
  const double rest[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, y[9] = {2, 0, 0, 0, 0.5, 0, 0, 0, 1};
  double       p[1];
  Params(k, rest, p);
  AssertNear("rest area", k->name, p[0], 0.5, TOL);
  AssertNear("value at the octant", k->name, Eval(k, y, p, NULL), 0.0, TOL);
}
END_TEST

START_TEST(sphere_energy_is_infinite_for_a_flipped_triangle)
{
  MfadKernel k = Find(Names[_i]);
  double     p[5], y[9], E;
  Params(k, Rest, p);
  memcpy(y, Y, sizeof(y));
  for (int d = 0; d < 3; d++) y[3 + d] = Y[6 + d], y[6 + d] = Y[3 + d]; /* clockwise from outside */
  E = Eval(k, y, p, NULL);
  ck_assert_msg(isinf(E) && E > 0, "%s: flipped triangle has value %g, expected +inf", Names[_i], E);
}
END_TEST

/* A tiny well-shaped triangle is inside the domain and evaluated to its own accuracy: legs h = 5e-8
   at the north pole (det[u0, u1, u2] = h^2 / (1 + h^2) = 2.5e-15, below an absolute wall of 1e-14),
   turned by a generic rotation, so that det[y0, y1, y2] taken as y0 . y1 x y2 (absolute round-off
   ~1e-16, 4% of it) would fail too. The rest triangle: the same one at the pole, its legs scaled by
   c = 2 about the right angle (the barrier: -A log(det / 2A) with 2A = c^2 det: A log 4; the
   distortion: J = I / c on the legs, 2 A (1/c^2 + c^2)). The edges of y / |y| carry a relative
   round-off of ~1e-16 / h = 2e-9: tolerance 1e-6. */
START_TEST(sphere_energy_of_a_tiny_triangle)
{
  MfadKernel   k = Find(Names[_i]);
  const double h = 5e-8, c = 2.0, axis[3] = {0.48, -0.6, 0.64};
  const double rest[9] = {0, 0, 1, c * h, 0, 1, 0, c * h, 1}, y0[9] = {0, 0, 1, h, 0, 1, 0, h, 1};
  double       p[5], R[9], y[9], E, want;
  Params(k, rest, p);
  Rotation(axis, 2.1, R);
  Rotate(R, y0, y);
  E = Eval(k, y, p, NULL);
  if (_i == 0) want = p[4] * 2.0 * (1.0 / (c * c) + c * c);
  else want = p[0] * log(c * c);
  ck_assert_msg(isfinite(E), "%s: a tiny well-shaped triangle has value %g", Names[_i], E);
  AssertNear("value of a tiny triangle", Names[_i], E, want, 1e-6 * want);
  for (int d = 0; d < 3; d++) { /* the same triangle turned clockwise */
    const double t = y[3 + d];
    y[3 + d] = y[6 + d], y[6 + d] = t;
  }
  E = Eval(k, y, p, NULL);
  ck_assert_msg(isinf(E) && E > 0, "%s: a tiny flipped triangle has value %g, expected +inf", Names[_i], E);
}
END_TEST

/* The great-circle wall: three vertices on an arc of the equator (angles -a, 0, a; a = 0.02, the
   armadillo's slivers), the middle one lowered by eps below it (counter-clockwise from outside), so
   det[u0, u1, u2] ~ eps -> 0 while the chord triangle keeps the arc's sagitta as its height. The
   distortion must grow like 1 / h^2 (h = det / |n| ~ eps, phi(h) ~ 3 h^2 / H^2): E(eps) / E(eps / 10)
   = 1/100 to 1% at h ~ 5e-3 (phi's next term is 4 h^2 = 1e-4 relative); without the factor E tends
   to a finite limit (ratio -> 1). And its value against the closed form A |J|^2 (1 + 1 / (q phi(h)))
   evaluated here: det ~ 4e-9 is taken from edges of 0.04 (round-off ~1e-18): 1e-6 relative. */
START_TEST(sphere_dirichlet_grows_at_the_great_circle_wall)
{
  MfadKernel   k = Find("sphere_symmetric_dirichlet");
  const double a = 0.02, eps[2] = {1e-6, 1e-7};
  double       p[5], E[2];
  Params(k, Rest, p);
  for (int t = 0; t < 2; t++) {
    const double y[9] = {cos(a), -sin(a), 0, 1, 0, -eps[t], cos(a), sin(a), 0};
    double       u[9], e1[3], e2[3], n[3], J2 = 0, nn, h, q, phi = 1, want;
    for (int v = 0; v < 3; v++) {
      const double l = sqrt(y[3 * v] * y[3 * v] + y[3 * v + 1] * y[3 * v + 1] + y[3 * v + 2] * y[3 * v + 2]);
      for (int d = 0; d < 3; d++) u[3 * v + d] = y[3 * v + d] / l;
    }
    for (int d = 0; d < 3; d++) e1[d] = u[3 + d] - u[d], e2[d] = u[6 + d] - u[d];
    n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    for (int d = 0; d < 3; d++) J2 += pow(e1[d] * p[0] + e2[d] * p[2], 2) + pow(e1[d] * p[1] + e2[d] * p[3], 2);
    nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    h  = (n[0] * u[0] + n[1] * u[1] + n[2] * u[2]) / sqrt(nn);
    q  = nn * pow(p[0] * p[3] - p[1] * p[2], 2);
    if (h < 0.5) phi = 1 - pow(1 - 4 * h * h, 3);
    want = p[4] * J2 * (1 + 1 / (q * phi));
    ck_assert_msg(h > 0 && h < 0.01, "the sliver's plane is at %g from the centre, expected (0, 0.01)", h);
    E[t] = Eval(k, y, p, NULL);
    AssertNear("value at the great-circle wall", k->name, E[t], want, 1e-6 * want);
  }
  AssertNear("E(eps) / E(eps / 10) at the great-circle wall", k->name, E[0] / E[1], 0.01, 1e-4);
}
END_TEST

int main(void)
{
  Suite   *s  = suite_create("energies_sphere");
  TCase   *tc = tcase_create("sphere");
  SRunner *sr;
  int      nfail;
  tcase_add_loop_test(tc, sphere_energy_sees_only_the_directions, 0, 2);
  tcase_add_loop_test(tc, sphere_energy_is_rotation_invariant, 0, 2);
  tcase_add_test(tc, sphere_dirichlet_is_4A_at_a_rotation_of_a_spherical_rest_triangle);
  tcase_add_test(tc, sphere_flip_barrier_is_zero_at_the_octant_with_area_one_half);
  tcase_add_loop_test(tc, sphere_energy_is_infinite_for_a_flipped_triangle, 0, 2);
  tcase_add_loop_test(tc, sphere_energy_of_a_tiny_triangle, 0, 2);
  tcase_add_test(tc, sphere_dirichlet_grows_at_the_great_circle_wall);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_SILENT);
  nfail = srunner_ntests_failed(sr);
  if (nfail) srunner_print(sr, CK_NORMAL);
  srunner_free(sr);
  return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
