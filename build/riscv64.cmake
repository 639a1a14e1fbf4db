# Cross toolchain for the qemu-riscv64 target (Debian's GCC 12 for riscv64).
# lp64d, not lp64: libstdc++'s headers need gnu/stubs-lp64d.h.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(CMAKE_C_COMPILER riscv64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER riscv64-linux-gnu-g++)
set(CMAKE_ASM_COMPILER riscv64-linux-gnu-gcc)
set(CMAKE_AR riscv64-linux-gnu-ar)
set(CMAKE_RANLIB riscv64-linux-gnu-ranlib)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(TESSERA_ARCH_FLAGS "-march=rv64gc -mabi=lp64d")
set(CMAKE_C_FLAGS_INIT "${TESSERA_ARCH_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${TESSERA_ARCH_FLAGS}")
set(CMAKE_ASM_FLAGS_INIT "${TESSERA_ARCH_FLAGS}")
set(CMAKE_BUILD_TYPE_INIT Release)
set(TESSERA_PLATFORM qemu-riscv64)
