#!/bin/sh
# Installs the Debian packages Tessera needs, once: a second run installs
# nothing. Called by `make` before every build; safe to run by hand.
# Open MPI (`make crosscheck`, `make bench`), MPICH and matplotlib (`make
# bench`) included;
# newlib-source is the C library of the linux64 target (build/newlib.sh),
# gcc-12-source the C++ standard library's sources (build/libstdcxx.sh);
# clang-format and clang-tidy keep the house style (`make format`, `make tidy`).
set -e
PACKAGES="qemu-system-misc g++-riscv64-linux-gnu gcc-riscv64-linux-gnu
binutils-riscv64-linux-gnu cmake make g++ catch2 picolibc-riscv64-unknown-elf
newlib-source gcc-12-source python3 python3-pyelftools openmpi-bin libopenmpi-dev mpich libmpich-dev python3-matplotlib
clang-format clang-tidy gdb gdb-multiarch"

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
        || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "setup: installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
