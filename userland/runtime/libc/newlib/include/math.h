/* <math.h>: newlib's, plus the declarations of the C99 long double
 * functions that newlib hides where long double is not double (x86-64),
 * so that libstdc++'s <cmath> compiles on linux64 as on qemu-riscv64.
 * newlib defines few of them there (sqrtl, ...): a program that calls
 * another fails to link. The float and double functions are all there.
 * This folder comes before newlib's in every user program's include path
 * on linux64. */
#include_next <math.h>

#ifndef TS_RUNTIME_MATH_H
#define TS_RUNTIME_MATH_H

#if !defined(_LDBL_EQ_DBL)
#ifdef __cplusplus
extern "C" {
#endif
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
