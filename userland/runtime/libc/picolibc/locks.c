/* picolibc's one static lock (glue/lock.c implements it). */
#include "../../glue/lock.h"

struct __lock __lock___libc_recursive_mutex;
