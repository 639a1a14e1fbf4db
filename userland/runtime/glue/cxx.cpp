// The one piece of the C++ ABI that a compiler's start files (crtbegin.o)
// would supply and Tessera's crt0 does not: the handle that
// __cxa_atexit records a static object's destructor under. The rest of the
// ABI (new and delete, static initialisation guards, exceptions, RTTI)
// comes from libsupc++, in the libstdc++ C++ programs link
// (build/libstdcxx.sh).
extern "C" {
void *__dso_handle = nullptr;
}
