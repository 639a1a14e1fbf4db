/* TLS on qemu-riscv64: picolibc's picotls, RISC-V variant I (tp points at
 * the first byte of the block, .tdata then .tbss; see user.ld). */
#include <picolibc.h> /* before picotls.h, which needs PICOLIBC_TLS */
#include <picotls.h>

#include "../../internal.h"

size_t ts__tls_area_size(void) { return _tls_size(); }
size_t ts__tls_area_align(void) { return _tls_align(); }

void *ts__tls_init(void *area) {
    _init_tls(area);
    return area;
}

void ts__tls_set(void *tp) { _set_tls(tp); }
