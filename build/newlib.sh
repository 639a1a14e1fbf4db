#!/bin/sh
# Builds newlib for the linux64 user programs from Debian's newlib-source,
# once per machine: build/cache.cmake runs it.
#   build/newlib.sh WORKDIR PREFIX TARBALL CFLAGS
# TARBALL unpacks to newlib-salsa/ in WORKDIR; the libraries and headers
# land in PREFIX/lib and PREFIX/include. Takes a few minutes on 2 cores.
set -eu
if [ $# -ne 4 ]; then
    echo "usage: $0 WORKDIR PREFIX TARBALL CFLAGS" >&2
    exit 2
fi
work=$1 prefix=$2 tarball=$3 cflags=$4
[ -f "$tarball" ] || { echo "newlib.sh: $tarball is missing (tools/setup.sh installs newlib-source)" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/build"
tar -xJf "$tarball" -C "$work"
cd "$work/build"
# x86_64-elf: newlib's generic x86-64 code without any OS syscalls; the
# runtime supplies _write, _sbrk, the locks and __getreent.
../newlib-salsa/configure --target=x86_64-elf --prefix="$work/install" \
    --disable-multilib --disable-newlib-supplied-syscalls --disable-libgloss \
    --enable-newlib-retargetable-locking --enable-newlib-io-long-long \
    --enable-newlib-io-c99-formats \
    CC_FOR_TARGET="gcc -fno-pie -fno-stack-protector -ffreestanding" \
    AR_FOR_TARGET=ar RANLIB_FOR_TARGET=ranlib AS_FOR_TARGET=as LD_FOR_TARGET=ld \
    READELF_FOR_TARGET=readelf OBJDUMP_FOR_TARGET=objdump \
    NM_FOR_TARGET=nm CFLAGS_FOR_TARGET="$cflags" >configure.log 2>&1 \
    || { tail -20 configure.log >&2; exit 1; }
make -j2 all-target-newlib >make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
make install-target-newlib >install.log 2>&1 || { tail -20 install.log >&2; exit 1; }

# Only the libraries and headers are kept, in PREFIX.
rm -rf "$prefix"
mkdir -p "$prefix/lib"
cp -r "$work/install/x86_64-elf/include" "$prefix/include"
cp "$work/install/x86_64-elf/lib/libm.a" "$prefix/lib/"
cp "$work/install/x86_64-elf/lib/libc.a" "$prefix/lib/"
rm -rf "$work"
