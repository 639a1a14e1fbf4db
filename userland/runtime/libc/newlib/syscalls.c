/* The _init and _fini hooks newlib's __libc_init_array and
 * __libc_fini_array call (HAVE_INIT_FINI): no crti/crtn here, constructors
 * and destructors come from .init_array/.fini_array only. The rest of
 * what newlib asks of an OS is in glue/ (sbrk, gettimeofday, times, exit)
 * and stdio.c. */
void _init(void);
void _fini(void);

void _init(void) {}
void _fini(void) {}
