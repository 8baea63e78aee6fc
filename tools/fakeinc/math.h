/* SPDX-License-Identifier: BSD-2-Clause */
/* math.h as mfad-energy's C front end sees it: only what an element energy may use. The real
   math.h is used when the generated code is compiled; the translator writes INFINITY, NAN and
   HUGE_VAL back by name. */
#ifndef MFAD_FAKE_MATH_H
#define MFAD_FAKE_MATH_H
#define INFINITY __mfad_INFINITY
#define NAN      __mfad_NAN
#define HUGE_VAL __mfad_HUGE_VAL
#define M_E      2.7182818284590452354
#define M_LN2    0.69314718055994530942
#define M_LN10   2.30258509299404568402
#define M_PI     3.14159265358979323846
#define M_PI_2   1.57079632679489661923
#define M_PI_4   0.78539816339744830962
#define M_1_PI   0.31830988618379067154
#define M_SQRT2  1.41421356237309504880
double __mfad_INFINITY, __mfad_NAN, __mfad_HUGE_VAL;
double sqrt(double), cbrt(double), exp(double), log(double), pow(double, double);
double sin(double), cos(double), tan(double), asin(double), acos(double), atan(double), atan2(double, double);
double sinh(double), cosh(double), tanh(double), fabs(double), fmin(double, double), fmax(double, double);
double hypot(double, double), floor(double), ceil(double), round(double), trunc(double), log1p(double), expm1(double);
double copysign(double, double), fmod(double, double), erf(double), log2(double), log10(double), exp2(double);
double erfc(double), lgamma(double);
int isfinite(double), isnan(double), isinf(double);
#endif
