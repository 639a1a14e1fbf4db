# How a Tessera *user program* is compiled and linked (target build only).
#
# The flag lists below are written once and used twice: by the CMake targets
# (the `tessera_user` interface target and tessera_add_program) and, through
# ${CMAKE_BINARY_DIR}/mpicc.cfg, by tools/mpicc. Change them here only.
#
#   tessera_add_program(NAME SOURCES... [MPI])
#       builds ${CMAKE_BINARY_DIR}/bin/NAME.elf: a static ELF linked at
#       0x40000000 with crt0 + libc glue, [lwmpi], ts_runtime and
#       the C library. In the host build it does nothing, so callers may but
#       need not guard it with if(TESSERA_TARGET).
#
# A user *library* (LWMPI, ...) gets the same compile flags, the C
# library's headers and <tessera/runtime.h> with target_link_libraries(LIB
# PUBLIC ts_runtime).
#
# The recipe depends on TESSERA_PLATFORM (set by the toolchain file):
#   qemu-riscv64  picolibc (Debian picolibc-riscv64-unknown-elf), RISC-V
#                 medany code
#   linux64       newlib, built once from Debian's newlib-source into
#                 ${CMAKE_BINARY_DIR}/newlib by build/newlib.sh, x86-64 code
# Either way TESSERA_LIBC names the C library (picolibc | newlib: the
# runtime's userland/runtime/libc/<libc>/ glue) and TESSERA_LIBC_INCLUDE its
# header folder.

if(NOT TESSERA_TARGET)
  function(tessera_add_program NAME)
  endfunction()

  # The linux64 build next to the QEMU one (TESSERA_TARGET_OUT, out/target).
  set(TESSERA_LINUX64_OUT ${CMAKE_SOURCE_DIR}/out/linux64 CACHE PATH "linux64 build folder")

  # tessera_add_target_test(NAME SCRIPT [ARGS A...] [LABELS L...]
  # [TIMEOUT S] [PLATFORMS P...]): an on-target test driver (Python, running
  # jobs through tools/mpirun and tools/mpicc) run with ARGS, killed after S
  # seconds (default 600), registered once per platform:
  #   NAME          qemu-riscv64 on TESSERA_TARGET_OUT, labels `target`, `qemu`
  #   NAME_linux64  linux64 on TESSERA_LINUX64_OUT, label `linux64`
  # each with the LABELS given too. The driver learns its platform from
  # $TESSERA_PLATFORM (and its build from $TESSERA_TARGET_OUT), and imports
  # the tools' package (tools/tessera/) through $PYTHONPATH. PLATFORMS
  # (qemu-riscv64, linux64; default both) limits it to those that make sense.
  function(tessera_add_target_test NAME SCRIPT)
    cmake_parse_arguments(PARSE_ARGV 2 ARG "" "TIMEOUT" "ARGS;LABELS;PLATFORMS")
    if(NOT ARG_TIMEOUT)
      set(ARG_TIMEOUT 600)
    endif()
    if(NOT ARG_PLATFORMS)
      set(ARG_PLATFORMS qemu-riscv64 linux64)
    endif()
    foreach(platform ${ARG_PLATFORMS})
      if(platform STREQUAL "qemu-riscv64")
        set(name ${NAME})
        set(labels target qemu ${ARG_LABELS})
        set(out ${TESSERA_TARGET_OUT})
      elseif(platform STREQUAL "linux64")
        set(name ${NAME}_linux64)
        set(labels linux64 ${ARG_LABELS})
        set(out ${TESSERA_LINUX64_OUT})
      else()
        message(FATAL_ERROR "tessera_add_target_test(${NAME}): unknown platform '${platform}' "
                            "(qemu-riscv64 or linux64)")
      endif()
      add_test(NAME ${name} COMMAND /usr/bin/python3 ${SCRIPT} ${ARG_ARGS}
               WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
      set_tests_properties(${name} PROPERTIES
        LABELS "${labels}" TIMEOUT ${ARG_TIMEOUT}
        ENVIRONMENT "TESSERA_PLATFORM=${platform};TESSERA_TARGET_OUT=${out};PYTHONDONTWRITEBYTECODE=1;PYTHONPATH=${CMAKE_SOURCE_DIR}/tools")
    endforeach()
  endfunction()

  # tessera_add_manifest_tests(MANIFEST): every on-target test of MANIFEST
  # (tests/target_tests.toml) registered with tessera_add_target_test, as
  # tests/run_target_test.py --cmake writes them; CMake reads the manifest
  # again when it (or its reader) changes.
  function(tessera_add_manifest_tests MANIFEST)
    set(out ${CMAKE_BINARY_DIR}/target_tests.cmake)
    execute_process(
      COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${CMAKE_SOURCE_DIR}/tools PYTHONDONTWRITEBYTECODE=1
              /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/run_target_test.py --manifest ${MANIFEST} --cmake
      OUTPUT_FILE ${out} ERROR_VARIABLE err RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "tessera: ${MANIFEST}: ${err}")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${MANIFEST}
                 ${CMAKE_SOURCE_DIR}/tools/tessera/target_tests.py)
    include(${out})
  endfunction()
  return()
endif()

separate_arguments(_ts_arch UNIX_COMMAND "${TESSERA_ARCH_FLAGS}")
set(TESSERA_USER_LD ${CMAKE_SOURCE_DIR}/userland/runtime/arch/${TESSERA_PLATFORM}/user.ld)

# The compiler's own headers (stddef.h, stdarg.h, ...) and libgcc. -nostdinc
# below drops every default include folder, which would otherwise let the
# system's glibc headers leak in next to the C library's.
execute_process(COMMAND ${CMAKE_C_COMPILER} ${_ts_arch} -print-file-name=include
                OUTPUT_VARIABLE _ts_gcc_include OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND ${CMAKE_C_COMPILER} ${_ts_arch} -print-libgcc-file-name
                OUTPUT_VARIABLE _ts_libgcc OUTPUT_STRIP_TRAILING_WHITESPACE)
# libstdc++ of the C++ compiler, for C++ programs only: the few functions
# its header-only parts call out of line (std::map's red-black tree
# rebalancing, std::unordered_map's bucket sizes), in objects that need
# nothing of the C library they were built for.
execute_process(COMMAND ${CMAKE_CXX_COMPILER} ${_ts_arch} -print-file-name=libstdc++.a
                OUTPUT_VARIABLE _ts_libstdcxx OUTPUT_STRIP_TRAILING_WHITESPACE)

if(TESSERA_PLATFORM STREQUAL "qemu-riscv64")
  set(TESSERA_LIBC picolibc)
  set(TESSERA_PICOLIBC_DIR /usr/lib/picolibc/riscv64-unknown-elf
      CACHE PATH "picolibc for riscv64 (Debian picolibc-riscv64-unknown-elf)")
  set(TESSERA_LIBC_INCLUDE ${TESSERA_PICOLIBC_DIR}/include)
  set(_ts_libc_lib ${TESSERA_PICOLIBC_DIR}/lib/rv64imafdc/lp64d)
  set(_ts_libc_marker ${TESSERA_LIBC_INCLUDE}/picotls.h)
  set(_ts_platform_flags -mcmodel=medany)
  set(_ts_platform_ld_flags)
  # libstdc++'s configuration headers need features.h: from the cross glibc.
  set(_ts_cxx_config_markers gnu/stubs-lp64d.h)
  set(_ts_missing_hint "tools/setup.sh installs picolibc and the cross gcc")
elseif(TESSERA_PLATFORM STREQUAL "linux64")
  set(TESSERA_LIBC newlib)
  set(TESSERA_NEWLIB_DIR ${CMAKE_BINARY_DIR}/newlib CACHE PATH "newlib for linux64 (build/newlib.sh)")
  set(TESSERA_NEWLIB_SOURCE /usr/src/newlib/newlib-3.3.0.tar.xz
      CACHE FILEPATH "newlib's sources (Debian newlib-source)")
  set(TESSERA_LIBC_INCLUDE ${TESSERA_NEWLIB_DIR}/include)
  set(_ts_libc_lib ${TESSERA_NEWLIB_DIR}/lib)
  set(_ts_libc_marker ${TESSERA_LIBC_INCLUDE}/newlib.h)
  # newlib and its users agree on __DYNAMIC_REENT__: errno, stdout and the
  # rest of struct _reent are per thread, through the runtime's __getreent.
  set(_ts_platform_flags -D__DYNAMIC_REENT__)
  set(_ts_platform_ld_flags -no-pie)
  set(_ts_cxx_config_markers features.h gnu/stubs-64.h)
  set(_ts_missing_hint "tools/setup.sh installs newlib-source and gcc")

  # newlib is built here, at configure time, once per build folder (a few
  # minutes), and again only when its flags or build/newlib.sh change.
  set(_ts_newlib_cflags "${TESSERA_ARCH_FLAGS} -O2 -g0 -fno-pie -fno-stack-protector \
-fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections -Wa,--noexecstack \
-D__DYNAMIC_REENT__")
  file(SHA256 ${CMAKE_SOURCE_DIR}/build/newlib.sh _ts_newlib_script)
  set(_ts_newlib_stamp "${TESSERA_NEWLIB_SOURCE} ${_ts_newlib_script} ${_ts_newlib_cflags}")
  set(_ts_old_stamp "")
  if(EXISTS ${TESSERA_NEWLIB_DIR}/stamp AND EXISTS ${_ts_libc_lib}/libc.a)
    file(READ ${TESSERA_NEWLIB_DIR}/stamp _ts_old_stamp)
  endif()
  if(NOT _ts_old_stamp STREQUAL _ts_newlib_stamp)
    message(NOTICE "tessera: building newlib into ${TESSERA_NEWLIB_DIR} (once; a few minutes)")
    execute_process(
      COMMAND ${CMAKE_SOURCE_DIR}/build/newlib.sh ${TESSERA_NEWLIB_SOURCE}
              ${CMAKE_BINARY_DIR}/newlib-build ${TESSERA_NEWLIB_DIR} ${_ts_newlib_cflags}
      RESULT_VARIABLE _ts_newlib_status)
    if(NOT _ts_newlib_status EQUAL 0)
      message(FATAL_ERROR "tessera: building newlib failed (build/newlib.sh, status ${_ts_newlib_status})")
    endif()
    file(WRITE ${TESSERA_NEWLIB_DIR}/stamp "${_ts_newlib_stamp}")
  endif()
else()
  message(FATAL_ERROR "tessera: unknown TESSERA_PLATFORM '${TESSERA_PLATFORM}' "
                      "(qemu-riscv64 or linux64; the toolchain file sets it)")
endif()

# C++ gets libstdc++'s header-only parts (<new>, <type_traits>, <utility>,
# <algorithm>, <cstdlib>, ...; not <atomic> or threads: use __atomic
# builtins). Its folders come before the C library's (<cstdlib> does
# #include_next <stdlib.h>); the glibc folders with the platform's markers
# come last of all, only so libstdc++'s configuration headers find
# features.h and gnu/stubs*.h.
set(_ts_cxx_includes)
set(_ts_cxx_config_includes)
foreach(dir IN LISTS CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  if(dir MATCHES "/c\\+\\+/")
    list(APPEND _ts_cxx_includes "-isystem${dir}")
  endif()
endforeach()
foreach(marker IN LISTS _ts_cxx_config_markers)
  foreach(dir IN LISTS CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
    if(NOT dir MATCHES "/c\\+\\+/" AND EXISTS ${dir}/${marker})
      list(APPEND _ts_cxx_config_includes "-idirafter${dir}")
      break()
    endif()
  endforeach()
endforeach()

foreach(f ${_ts_libc_marker} ${_ts_libc_lib}/libc.a ${_ts_gcc_include}/stddef.h ${_ts_libgcc}
        ${_ts_libstdcxx})
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "tessera: ${f} is missing (${_ts_missing_hint})")
  endif()
endforeach()

# -isystem<dir> is written joined so CMake's de-duplication of options keeps
# every pair intact. -O2 comes after the build type's -O3 and wins. -g in
# every build type and frame pointers: programs (and tools/mpicc's, through
# mpicc.cfg) carry their debug information for gdb (mpirun --gdb) and for
# fault reports (a backtrace from the frame records, kernel/fault_report.cpp,
# placed by tools/tessera/symbols.py); the kernel loads a stripped copy
# (tools/mkimage.py).
set(_ts_common ${_ts_arch} ${_ts_platform_flags} -fno-pie -fno-stack-protector
    -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections
    -ftls-model=local-exec -O2 -g -nostdinc)
# The runtime completes the C library's headers (<time.h>'s POSIX clocks;
# newlib's <math.h> for <cmath>) in userland/runtime/libc/include and
# .../libc/<libc>/include, which come right before the C library's folder:
# after libstdc++'s, whose <cmath> does #include_next <math.h>.
set(_ts_c_includes "-isystem${CMAKE_SOURCE_DIR}/userland/runtime/libc/include")
if(EXISTS ${CMAKE_SOURCE_DIR}/userland/runtime/libc/${TESSERA_LIBC}/include)
  list(APPEND _ts_c_includes "-isystem${CMAKE_SOURCE_DIR}/userland/runtime/libc/${TESSERA_LIBC}/include")
endif()
list(APPEND _ts_c_includes "-isystem${TESSERA_LIBC_INCLUDE}" "-isystem${_ts_gcc_include}")

set(TESSERA_USER_C_FLAGS ${_ts_common} ${_ts_c_includes})
# No exceptions or RTTI (the runtime has neither): `throw`, `try`, typeid
# and dynamic_cast are compile errors.
set(TESSERA_USER_CXX_FLAGS ${_ts_common} -fno-exceptions -fno-rtti
    ${_ts_cxx_includes} ${_ts_c_includes} ${_ts_cxx_config_includes})
set(TESSERA_USER_LD_FLAGS ${_ts_arch} ${_ts_platform_ld_flags} -static -nostdlib -nostartfiles
    -T${TESSERA_USER_LD} -Wl,--gc-sections -Wl,-z,max-page-size=4096 -Wl,--build-id=none)
# The C library and libgcc need each other (and libm needs libc): one group.
set(TESSERA_USER_SYSLIBS -Wl,--start-group ${_ts_libc_lib}/libc.a
    ${_ts_libc_lib}/libm.a ${_ts_libgcc} -Wl,--end-group)
# What a C++ program links before them.
set(TESSERA_USER_CXX_LIBS ${_ts_libstdcxx})

# Usage requirements of every user library and program (ts_runtime links it
# PUBLIC, so anything that links ts_runtime is compiled this way).
add_library(tessera_user INTERFACE)
target_compile_options(tessera_user INTERFACE
  "$<$<COMPILE_LANGUAGE:C>:${TESSERA_USER_C_FLAGS}>"
  "$<$<COMPILE_LANGUAGE:CXX>:${TESSERA_USER_CXX_FLAGS}>"
  "$<$<COMPILE_LANGUAGE:ASM>:${_ts_arch};${_ts_platform_flags};-fno-pie>")

# Builds bin/NAME.elf from SOURCES; MPI also links LWMPI. C++ sources
# (.cpp .cc .cxx) are built as tools/mpicxx builds them, but in the tree's
# C++20 (set the target's CXX_STANDARD to 17 for mpicxx's default).
function(tessera_add_program NAME)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "MPI" "" "")
  if(NOT ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tessera_add_program(${NAME}): no sources")
  endif()
  add_executable(${NAME} ${ARG_UNPARSED_ARGUMENTS} $<TARGET_OBJECTS:ts_crt0>)
  set_target_properties(${NAME} PROPERTIES
    OUTPUT_NAME ${NAME} SUFFIX .elf
    LINK_DEPENDS ${TESSERA_USER_LD})
  target_link_options(${NAME} PRIVATE ${TESSERA_USER_LD_FLAGS})
  set(libs)
  if(ARG_MPI)
    list(APPEND libs lwmpi)
  endif()
  set(cxx_sources ${ARG_UNPARSED_ARGUMENTS})
  list(FILTER cxx_sources INCLUDE REGEX "\\.(cpp|cc|cxx)$")
  # Order matters for static archives: LWMPI uses the runtime (and its name
  # client), everything uses the C library.
  if(cxx_sources)
    list(APPEND libs ts_runtime ${TESSERA_USER_CXX_LIBS})
  else()
    list(APPEND libs ts_runtime)
  endif()
  target_link_libraries(${NAME} PRIVATE ${libs} ${TESSERA_USER_SYSLIBS})
endfunction()

# The same recipe for tools/mpicc and tools/mpicxx, as key=value lines (values are ;-lists).
# Generator expressions are evaluated once every target is known.
set(_ts_lwmpi_file "$<TARGET_FILE:lwmpi>")
set(_ts_lwmpi_inc "$<TARGET_PROPERTY:lwmpi,INTERFACE_INCLUDE_DIRECTORIES>")
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/mpicc.cfg CONTENT
"# Written by build/tessera.cmake for tools/mpicc; do not edit.
cc=${CMAKE_C_COMPILER}
cflags=${TESSERA_USER_C_FLAGS}
cxx=${CMAKE_CXX_COMPILER}
cxxflags=${TESSERA_USER_CXX_FLAGS}
cxxlibs=${TESSERA_USER_CXX_LIBS}
includes=${_ts_lwmpi_inc}
ldflags=${TESSERA_USER_LD_FLAGS}
startfiles=$<TARGET_OBJECTS:ts_crt0>
libs=${_ts_lwmpi_file};$<TARGET_FILE:ts_runtime>
syslibs=${TESSERA_USER_SYSLIBS}
")
