#!/bin/sh
# Builds GCC's C++ standard library (libstdc++ with libsupc++) for Tessera's
# user programs from Debian's gcc-12-source, against the platform's C library
# and the runtime's POSIX headers. build/cache.cmake runs it once per machine:
#   build/libstdcxx.sh WORKDIR PREFIX TARBALL HOST CC CXX FLAGS
# TARBALL is gcc-12.2.0-dfsg.tar.xz; HOST the configure name of the target
# (x86_64-elf, riscv64-unknown-elf); CC and CXX the compilers with every
# include option (-nostdinc, the C library's and the runtime's folders);
# FLAGS the code generation options user programs are built with. The
# headers land in PREFIX/include/c++, the libraries in PREFIX/lib. About ten
# minutes on 2 cores.
set -eu
if [ $# -ne 7 ]; then
    echo "usage: $0 WORKDIR PREFIX TARBALL HOST CC CXX FLAGS" >&2
    exit 2
fi
work=$1 prefix=$2 tarball=$3 host=$4 cc=$5 cxx=$6 flags=$7
[ -f "$tarball" ] || { echo "libstdcxx.sh: $tarball is missing (tools/setup.sh installs gcc-12-source)" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/build"
# Only what libstdc++'s configure and build read: itself, libgcc's gthr
# headers, the demangler (libiberty, include) and the shared scripts.
src=gcc-12.2.0
tar -xJf "$tarball" -C "$work" "$src/libstdc++-v3" "$src/libgcc" "$src/libiberty" \
    "$src/include" "$src/config" "$src/config.sub" "$src/config.guess" "$src/install-sh" \
    "$src/ltmain.sh" "$src/config-ml.in" "$src/mkinstalldirs" "$src/missing" "$src/gcc/BASE-VER" \
    "$src/gcc/DATESTAMP"
# Inside GCC's tree libgcc's build links the thread model's header to
# gthr-default.h; standalone, libstdc++'s configure needs it in place.
cp "$work/$src/libgcc/gthr-posix.h" "$work/$src/libgcc/gthr-default.h"

cd "$work/build"
# A cross build with --with-newlib: configure hard-codes newlib's functions
# instead of linking test programs. There is nothing to link them with
# before the runtime exists, and the compilers would link them against their
# own glibc and learn its answers, not the C library's: the LDFLAGS make
# every link fail, so that configure only compiles. The ac_cv answers are
# for the two tests that still want to link. _GLIBCXX_GTHREAD_USE_WEAK=0: a static program must reference the
# pthread functions strongly, or the runtime's would never be linked in.
# -fdebug-prefix-map: fault reports and gdb name the library's sources
# gcc-12.2.0/libstdc++-v3/..., not this temporary folder.
flags="$flags -D_GLIBCXX_GTHREAD_USE_WEAK=0 -fdebug-prefix-map=$work/="
"../$src/libstdc++-v3/configure" --host="$host" --build="$(sh "../$src/config.guess")" \
    --prefix="$work/install" --with-gxx-include-dir="$work/install/include/c++" \
    --with-newlib --disable-shared --enable-static --disable-multilib --disable-nls \
    --disable-libstdcxx-pch --disable-libstdcxx-backtrace --enable-threads=posix \
    CC="$cc" CXX="$cxx" CPP="$cc -E" CXXCPP="$cxx -E" \
    AR=ar RANLIB=ranlib NM=nm CFLAGS="$flags" CXXFLAGS="$flags" \
    LDFLAGS="-Wl,--require-defined=tessera_no_link_at_configure" \
    ac_cv_func_fcntl=no ac_cv_func_getexecname=no >configure.log 2>&1 \
    || { tail -20 configure.log >&2; exit 1; }

# What the runtime provides that configure could only have learnt by linking
# (userland/runtime/glue/time.c, pthread.c): monotonic and real-time clocks,
# nanosleep, sched_yield and sysconf(_SC_NPROCESSORS_ONLN), for <chrono>,
# <thread> and <mutex>.
for fact in _GLIBCXX_USE_CLOCK_MONOTONIC _GLIBCXX_USE_CLOCK_REALTIME _GLIBCXX_USE_NANOSLEEP \
            _GLIBCXX_USE_SCHED_YIELD _GLIBCXX_USE_GETTIMEOFDAY _GLIBCXX_USE_SC_NPROCESSORS_ONLN; do
    sed -i "s|^/\* #undef $fact \*/|#define $fact 1|" config.h
    grep -q "^#define $fact 1" config.h || { echo "libstdcxx.sh: config.h has no $fact" >&2; exit 1; }
done
grep -q "^#define _GLIBCXX_HAS_GTHREADS 1" config.h \
    || { echo "libstdcxx.sh: configure found no threads (config.log)" >&2; exit 1; }

make -j"$(nproc)" >make.log 2>&1 || { grep -m5 -B2 -A8 "error" make.log >&2 || tail -30 make.log >&2; exit 1; }
make install >install.log 2>&1 || { tail -20 install.log >&2; exit 1; }

# Only the headers and the static libraries are kept.
rm -rf "$prefix"
mkdir -p "$prefix/lib"
cp -r "$work/install/include" "$prefix/include"
cp "$work/install/lib/libsupc++.a" "$work/install/lib/libstdc++.a" "$prefix/lib/"
rm -rf "$work"
