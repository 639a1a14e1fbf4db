# Toolchain for the linux64 target: each cluster a Linux process, user
# programs x86-64 static ELFs built with the host's gcc and newlib
# (build/tessera.cmake). CMAKE_SYSTEM_NAME is set, so CMake treats this as
# a cross build (CMAKE_CROSSCOMPILING, TESSERA_TARGET) like qemu-riscv64.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
set(CMAKE_ASM_COMPILER gcc)
set(CMAKE_AR ar)
set(CMAKE_RANLIB ranlib)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(TESSERA_PLATFORM linux64)
set(TESSERA_ARCH_FLAGS "-march=x86-64")
set(CMAKE_C_FLAGS_INIT "${TESSERA_ARCH_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${TESSERA_ARCH_FLAGS}")
set(CMAKE_ASM_FLAGS_INIT "${TESSERA_ARCH_FLAGS}")
set(CMAKE_BUILD_TYPE_INIT Release)
