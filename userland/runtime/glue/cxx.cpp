// The bits of the C++ ABI that compiled C++ expects from its runtime, for
// user code built without exceptions or RTTI: new/delete over malloc,
// thread-safe static initialisation guards, __dso_handle, pure virtuals,
// and the throw helpers libstdc++'s headers call (no exceptions: abort).
#include <stddef.h>
#include <stdlib.h>
#include <sys/lock.h>

#include <new>

// Without exceptions, running out of memory in new ends the job.
static void *must_alloc(size_t size, size_t align) {
    if (size == 0) size = 1;
    void *p = align > 16 ? aligned_alloc(align, (size + align - 1) & ~(align - 1)) : malloc(size);
    if (!p) abort();
    return p;
}

void *operator new(size_t n) { return must_alloc(n, 0); }
void *operator new[](size_t n) { return must_alloc(n, 0); }
void *operator new(size_t n, std::align_val_t a) { return must_alloc(n, size_t(a)); }
void *operator new[](size_t n, std::align_val_t a) { return must_alloc(n, size_t(a)); }
void *operator new(size_t n, const std::nothrow_t &) noexcept { return malloc(n ? n : 1); }
void *operator new[](size_t n, const std::nothrow_t &) noexcept { return malloc(n ? n : 1); }
void operator delete(void *p) noexcept { free(p); }
void operator delete[](void *p) noexcept { free(p); }
void operator delete(void *p, size_t) noexcept { free(p); }
void operator delete[](void *p, size_t) noexcept { free(p); }
void operator delete(void *p, std::align_val_t) noexcept { free(p); }
void operator delete[](void *p, std::align_val_t) noexcept { free(p); }
void operator delete(void *p, size_t, std::align_val_t) noexcept { free(p); }
void operator delete[](void *p, size_t, std::align_val_t) noexcept { free(p); }

namespace std {
[[noreturn]] void __throw_bad_alloc() { abort(); }
[[noreturn]] void __throw_bad_array_new_length() { abort(); }
[[noreturn]] void __throw_bad_function_call() { abort(); }
[[noreturn]] void __throw_length_error(const char *) { abort(); }
[[noreturn]] void __throw_logic_error(const char *) { abort(); }
[[noreturn]] void __throw_invalid_argument(const char *) { abort(); }
[[noreturn]] void __throw_out_of_range(const char *) { abort(); }
[[noreturn]] void __throw_out_of_range_fmt(const char *, ...) { abort(); }
}  // namespace std

extern "C" {

void *__dso_handle = nullptr;

void __cxa_pure_virtual() { abort(); }

// Function-local statics: one recursive lock for all guards (an
// initialiser may itself use another function-local static), so threads
// (MPI processes) that race to the same initialiser wait for each other.
extern struct __lock ts__guard_mutex;

int __cxa_guard_acquire(unsigned long long *guard) {
    if (__atomic_load_n(reinterpret_cast<char *>(guard), __ATOMIC_ACQUIRE)) return 0;
    __retarget_lock_acquire_recursive(&ts__guard_mutex);
    if (*reinterpret_cast<char *>(guard)) {
        __retarget_lock_release_recursive(&ts__guard_mutex);
        return 0;
    }
    return 1;
}

void __cxa_guard_release(unsigned long long *guard) {
    __atomic_store_n(reinterpret_cast<char *>(guard), 1, __ATOMIC_RELEASE);
    __retarget_lock_release_recursive(&ts__guard_mutex);
}

void __cxa_guard_abort(unsigned long long *) { __retarget_lock_release_recursive(&ts__guard_mutex); }

}  // extern "C"
