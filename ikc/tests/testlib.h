/* Helpers shared by the on-target IKC tests: checks that end the job on
 * the first failure (the other clusters would otherwise wait forever),
 * and the list of compute clusters taking part (one MPI process each). */
#ifndef IKC_TESTLIB_H
#define IKC_TESTLIB_H

#include <stdio.h>
#include <tessera/runtime.h>

#define IKC_MAX_PARTS 32 /* clusters a manifest describes at most */

/* Prints "NAME FAIL cluster C: what (value)" and aborts the job with 1. */
void fail(const char *what, long value);
/* r when r >= 0; fails otherwise. */
long check(long r, const char *what);
/* Fails unless got == want. */
void expect(long got, long want, const char *what);

/* The compute clusters of the job in ascending order (the first is the
 * barrier's "one"); returns how many. `test_name` prefixes reports. */
int ikc_parts(int *parts, const char *test_name);
/* A barrier of all parts on logical port `port`, created once. */
void parts_barrier(int port);

#endif
