/* <math.h>: newlib's, plus the declarations of the C99 long double
 * functions that newlib hides where long double is not double (x86-64),
 * so that libstdc++'s <cmath> compiles on linux64 as on qemu-riscv64.
 * newlib defines few of them there (sqrtl, hypotl, ...; the runtime adds
 * fabsl): a program that calls another fails to link, naming it. The float and double functions are all
 * there. This folder comes before newlib's in every user program's include path on linux64. */
#include_next <math.h>

#ifndef TS_RUNTIME_MATH_H
#define TS_RUNTIME_MATH_H

#if !defined(_LDBL_EQ_DBL)
#ifdef __cplusplus
extern "C" {
#endif
/* The C89 set newlib declares only where long double is double. */
long double acosl(long double);
long double asinl(long double);
long double atanl(long double);
long double atan2l(long double, long double);
long double ceill(long double);
long double cosl(long double);
long double coshl(long double);
long double expl(long double);
long double fabsl(long double);
long double floorl(long double);
long double fmodl(long double, long double);
long double frexpl(long double, int *);
long double ldexpl(long double, int);
long double logl(long double);
long double log10l(long double);
long double modfl(long double, long double *);
long double powl(long double, long double);
long double sinl(long double);
long double sinhl(long double);
long double tanl(long double);
long double tanhl(long double);
/* And C99's. */
long double acoshl(long double);
long double asinhl(long double);
long double atanhl(long double);
long double cbrtl(long double);
long double copysignl(long double, long double);
long double erfl(long double);
long double erfcl(long double);
long double exp2l(long double);
long double expm1l(long double);
long double fdiml(long double, long double);
long double fmal(long double, long double, long double);
long double fmaxl(long double, long double);
long double fminl(long double, long double);
int ilogbl(long double);
long double lgammal(long double);
long long llrintl(long double);
long long llroundl(long double);
long double log1pl(long double);
long double log2l(long double);
long double logbl(long double);
long lrintl(long double);
long lroundl(long double);
long double nanl(const char *);
long double nearbyintl(long double);
long double nextafterl(long double, long double);
double nexttoward(double, long double);
float nexttowardf(float, long double);
long double nexttowardl(long double, long double);
long double remainderl(long double, long double);
long double remquol(long double, long double, int *);
long double rintl(long double);
long double roundl(long double);
long double scalblnl(long double, long);
long double scalbnl(long double, int);
long double tgammal(long double);
long double truncl(long double);
#ifdef __cplusplus
}
#endif
#endif

#endif
