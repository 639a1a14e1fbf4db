#!/bin/sh
# Builds GCC's OpenMP runtime (libgomp) for Tessera's user programs from
# Debian's gcc-12-source, over the runtime's POSIX threads. Unlike
# libstdc++ it is built after the runtime: libgomp's configure links test
# programs (threads, TLS, clocks), and they link as real Tessera programs.
#   build/libgomp.sh WORKDIR PREFIX TARBALL HOST CC FLAGS LDFLAGS LIBS
# TARBALL is gcc-12.2.0-dfsg.tar.xz; HOST the configure name of the target;
# CC the C compiler with every include option; FLAGS the code generation
# options of user programs; LDFLAGS and LIBS what links a C program (crt0's
# objects, the link script; the runtime and the C library). omp.h lands in
# PREFIX/include, libgomp.a in PREFIX/lib. About two minutes on 2 cores.
set -eu
if [ $# -ne 8 ]; then
    echo "usage: $0 WORKDIR PREFIX TARBALL HOST CC FLAGS LDFLAGS LIBS" >&2
    exit 2
fi
work=$1 prefix=$2 tarball=$3 host=$4 cc=$5 flags=$6 ldflags=$7 libs=$8
[ -f "$tarball" ] || { echo "libgomp.sh: $tarball is missing (tools/setup.sh installs gcc-12-source)" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/build"
src=gcc-12.2.0
tar -xJf "$tarball" -C "$work" "$src/libgomp" "$src/include" "$src/config" "$src/config.sub" \
    "$src/config.guess" "$src/install-sh" "$src/ltmain.sh" "$src/config-ml.in" "$src/mkinstalldirs" \
    "$src/missing" "$src/depcomp" "$src/gcc/BASE-VER" "$src/gcc/DATESTAMP"

cd "$work/build"
# No Fortran: Tessera has no Fortran compiler for its targets (FC=no keeps
# configure from looking for the host's gfortran).
flags="$flags -fdebug-prefix-map=$work/="
"../$src/libgomp/configure" --host="$host" --build="$(sh "../$src/config.guess")" \
    --prefix="$work/install" --disable-shared --enable-static --disable-multilib --disable-nls \
    --disable-werror CC="$cc" CFLAGS="$flags" LDFLAGS="$ldflags" LIBS="$libs" FC=no \
    AR=ar RANLIB=ranlib NM=nm >configure.log 2>&1 \
    || { tail -20 configure.log >&2; exit 1; }

make -j"$(nproc)" >make.log 2>&1 || { grep -m5 -B2 -A8 "error" make.log >&2 || tail -30 make.log >&2; exit 1; }

rm -rf "$prefix"
mkdir -p "$prefix/lib" "$prefix/include"
cp omp.h "$prefix/include/"
cp .libs/libgomp.a "$prefix/lib/"
rm -rf "$work"
