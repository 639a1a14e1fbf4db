# How a Tessera *user program* is compiled and linked (target build only).
#
# The flag lists below are written once and used twice: by the CMake targets
# (the `tessera_user` interface target and tessera_add_program) and, through
# ${CMAKE_BINARY_DIR}/mpicc.cfg, by tools/mpicc. Change them here only.
#
#   tessera_add_program(NAME SOURCES... [MPI] [OPENMP])
#       builds ${CMAKE_BINARY_DIR}/bin/NAME.elf: a static ELF linked at
#       0x40000000 with crt0 + libc glue, [libgomp], [lwmpi], ts_runtime
#       and the C library. In the host build it does nothing, so callers may but
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
# libgcc_eh: the unwinder a throw runs (it asks the runtime's
# _dl_find_object, userland/runtime/glue/unwind.c, for the image's
# .eh_frame_hdr).
execute_process(COMMAND ${CMAKE_C_COMPILER} ${_ts_arch} -print-file-name=libgcc_eh.a
                OUTPUT_VARIABLE _ts_libgcc_eh OUTPUT_STRIP_TRAILING_WHITESPACE)

include(${CMAKE_CURRENT_LIST_DIR}/cache.cmake)

if(TESSERA_PLATFORM STREQUAL "qemu-riscv64")
  set(TESSERA_LIBC picolibc)
  set(TESSERA_PICOLIBC_DIR /usr/lib/picolibc/riscv64-unknown-elf
      CACHE PATH "picolibc for riscv64 (Debian picolibc-riscv64-unknown-elf)")
  set(TESSERA_LIBC_INCLUDE ${TESSERA_PICOLIBC_DIR}/include)
  set(_ts_libc_lib ${TESSERA_PICOLIBC_DIR}/lib/rv64imafdc/lp64d)
  set(_ts_libc_marker ${TESSERA_LIBC_INCLUDE}/picotls.h)
  set(_ts_libc_version "picolibc ${TESSERA_PICOLIBC_DIR}")
  set(_ts_libstdcxx_host riscv64-unknown-elf)
  set(_ts_platform_flags -mcmodel=medany)
  # tinystdio's fflush(NULL) faults: the runtime's __wrap_fflush
  # (userland/runtime/libc/picolibc/fopen.c) gives it C's meaning.
  set(_ts_platform_ld_flags -Wl,--wrap=fflush)
  set(_ts_missing_hint "tools/setup.sh installs picolibc and the cross gcc")
elseif(TESSERA_PLATFORM STREQUAL "linux64")
  set(TESSERA_LIBC newlib)
  set(TESSERA_NEWLIB_SOURCE /usr/src/newlib/newlib-3.3.0.tar.xz
      CACHE FILEPATH "newlib's sources (Debian newlib-source)")
  set(_ts_libstdcxx_host x86_64-elf)
  # newlib and its users agree on __DYNAMIC_REENT__: errno, stdout and the
  # rest of struct _reent are per thread, through the runtime's __getreent.
  set(_ts_platform_flags -D__DYNAMIC_REENT__)
  set(_ts_platform_ld_flags -no-pie)
  set(_ts_missing_hint "tools/setup.sh installs newlib-source and gcc")

  # newlib is built once per machine (a few minutes; build/cache.cmake).
  set(_ts_newlib_cflags "${TESSERA_ARCH_FLAGS} -O2 -g0 -fno-pie -fno-stack-protector \
-fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections -Wa,--noexecstack \
-D__DYNAMIC_REENT__")
  if(NOT EXISTS ${TESSERA_NEWLIB_SOURCE})
    message(FATAL_ERROR "tessera: ${TESSERA_NEWLIB_SOURCE} is missing (${_ts_missing_hint})")
  endif()
  tessera_file_hashes(_ts_newlib_script ${CMAKE_CURRENT_LIST_DIR}/newlib.sh)
  tessera_cached_build(TESSERA_NEWLIB_DIR newlib
    "${TESSERA_NEWLIB_SOURCE}\n${_ts_newlib_script}\n${CMAKE_C_COMPILER_VERSION} ${_ts_newlib_cflags}"
    ${CMAKE_CURRENT_LIST_DIR}/newlib.sh ${TESSERA_NEWLIB_SOURCE} ${_ts_newlib_cflags})
  set(TESSERA_LIBC_INCLUDE ${TESSERA_NEWLIB_DIR}/include)
  set(_ts_libc_lib ${TESSERA_NEWLIB_DIR}/lib)
  set(_ts_libc_marker ${TESSERA_LIBC_INCLUDE}/newlib.h)
  get_filename_component(_ts_libc_version ${TESSERA_NEWLIB_DIR} NAME)
else()
  message(FATAL_ERROR "tessera: unknown TESSERA_PLATFORM '${TESSERA_PLATFORM}' "
                      "(qemu-riscv64 or linux64; the toolchain file sets it)")
endif()

foreach(f ${_ts_libc_marker} ${_ts_libc_lib}/libc.a ${_ts_gcc_include}/stddef.h ${_ts_libgcc}
        ${_ts_libgcc_eh})
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

# The whole C++ standard library, built once per machine from GCC's own
# sources against this platform's C library and the runtime's POSIX headers
# (build/libstdcxx.sh; the runtime's <pthread.h> shapes std::mutex, so a
# change to it rebuilds the library).
set(TESSERA_GCC_SOURCE /usr/src/gcc-12/gcc-12.2.0-dfsg.tar.xz
    CACHE FILEPATH "GCC's sources, for libstdc++ (Debian gcc-12-source)")
if(NOT EXISTS ${TESSERA_GCC_SOURCE})
  message(FATAL_ERROR "tessera: ${TESSERA_GCC_SOURCE} is missing (tools/setup.sh installs gcc-12-source)")
endif()
set(_ts_runtime_headers_dir ${CMAKE_SOURCE_DIR}/userland/runtime)
file(GLOB_RECURSE _ts_runtime_headers ${_ts_runtime_headers_dir}/posix/*.h
     ${_ts_runtime_headers_dir}/libc/include/*.h ${_ts_runtime_headers_dir}/libc/${TESSERA_LIBC}/include/*.h)
list(SORT _ts_runtime_headers)
tessera_file_hashes(_ts_libstdcxx_inputs ${CMAKE_CURRENT_LIST_DIR}/libstdcxx.sh ${_ts_runtime_headers})
file(SIZE ${TESSERA_GCC_SOURCE} _ts_gcc_source_size)
set(_ts_libstdcxx_flags ${_ts_arch} ${_ts_platform_flags} -fno-pie -fno-stack-protector
    -fno-omit-frame-pointer -ffunction-sections -fdata-sections -ftls-model=local-exec -O2 -g)
string(JOIN " " _ts_libstdcxx_flags ${_ts_libstdcxx_flags})
string(JOIN " " _ts_libstdcxx_includes -nostdinc -isystem${_ts_runtime_headers_dir}/posix ${_ts_c_includes})
tessera_cached_build(TESSERA_LIBSTDCXX_DIR libstdcxx-${TESSERA_PLATFORM}
  "${TESSERA_GCC_SOURCE} ${_ts_gcc_source_size}\n${_ts_libstdcxx_inputs}\n${_ts_libc_version}\n\
${CMAKE_CXX_COMPILER} ${CMAKE_CXX_COMPILER_VERSION} ${_ts_libstdcxx_flags}"
  ${CMAKE_CURRENT_LIST_DIR}/libstdcxx.sh ${TESSERA_GCC_SOURCE} ${_ts_libstdcxx_host}
  "${CMAKE_C_COMPILER} ${_ts_libstdcxx_includes}" "${CMAKE_CXX_COMPILER} ${_ts_libstdcxx_includes}"
  "${_ts_libstdcxx_flags}")

# C++ as with any g++: exceptions and RTTI on (-fno-exceptions and
# -fno-rtti still work), libstdc++'s headers before the C library's
# (<cstdlib> does #include_next <stdlib.h>). _GLIBCXX_GTHREAD_USE_WEAK=0 as
# the library was built: the thread functions are referenced strongly.
set(TESSERA_USER_CXX_FLAGS ${_ts_common} -D_GLIBCXX_GTHREAD_USE_WEAK=0
    "-isystem${TESSERA_LIBSTDCXX_DIR}/include/c++"
    "-isystem${TESSERA_LIBSTDCXX_DIR}/include/c++/${_ts_libstdcxx_host}" ${_ts_c_includes})
# .eh_frame_hdr: the sorted table the unwinder searches (the runtime's
# _dl_find_object hands it over; user.ld keeps it).
set(TESSERA_USER_LD_FLAGS ${_ts_arch} ${_ts_platform_ld_flags} -static -nostdlib -nostartfiles
    -T${TESSERA_USER_LD} -Wl,--gc-sections -Wl,-z,max-page-size=4096 -Wl,--build-id=none
    -Wl,--eh-frame-hdr)
# The C library, libgcc and its unwinder need each other (and libm needs
# libc): one group.
set(TESSERA_USER_SYSLIBS -Wl,--start-group ${_ts_libc_lib}/libc.a
    ${_ts_libc_lib}/libm.a ${_ts_libgcc} ${_ts_libgcc_eh} -Wl,--end-group)
# What a C++ program links before them: the standard library (libsupc++,
# the C++ ABI, included), then the runtime again for the POSIX threads and
# files the library calls into.
set(TESSERA_USER_CXX_LIBS ${TESSERA_LIBSTDCXX_DIR}/lib/libstdc++.a "$<TARGET_FILE:ts_runtime>")

# OpenMP: GCC's libgomp, built once per machine from the same sources over
# the runtime's threads. Its configure links test programs, so it is built
# at build time, once the runtime is (the libgomp target; build/libgomp.sh
# through build/cached_build.cmake); its key names the runtime's headers,
# which say what the runtime provides.
tessera_file_hashes(_ts_libgomp_inputs ${CMAKE_CURRENT_LIST_DIR}/libgomp.sh ${_ts_runtime_headers})
set(_ts_libgomp_key "${TESSERA_GCC_SOURCE} ${_ts_gcc_source_size}\n${_ts_libgomp_inputs}\n${_ts_libc_version}\n\
${CMAKE_C_COMPILER} ${CMAKE_C_COMPILER_VERSION} ${_ts_libstdcxx_flags}")
tessera_cache_entry(TESSERA_LIBGOMP_DIR libgomp-${TESSERA_PLATFORM} "${_ts_libgomp_key}")
file(WRITE ${CMAKE_BINARY_DIR}/libgomp.key "${_ts_libgomp_key}")
string(JOIN " " _ts_libgomp_ldflags ${TESSERA_USER_LD_FLAGS})
string(JOIN " " _ts_libgomp_libs ${TESSERA_USER_SYSLIBS})
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/libgomp.args CONTENT "${TESSERA_GCC_SOURCE}
${_ts_libstdcxx_host}
${CMAKE_C_COMPILER} ${_ts_libstdcxx_includes} -isystem${CMAKE_SOURCE_DIR}/userland/runtime/include \
-isystem${CMAKE_SOURCE_DIR}/userland/runtime/arch/${TESSERA_PLATFORM}/include
${_ts_libstdcxx_flags}
${_ts_libgomp_ldflags} $<JOIN:$<TARGET_OBJECTS:ts_crt0>, >
$<TARGET_FILE:ts_runtime> ${_ts_libgomp_libs}
")
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/libgomp.stamp
  COMMAND ${CMAKE_COMMAND} -DNAME=libgomp-${TESSERA_PLATFORM} -DKEY_FILE=${CMAKE_BINARY_DIR}/libgomp.key
          -DARGS_FILE=${CMAKE_BINARY_DIR}/libgomp.args -DSCRIPT=${CMAKE_CURRENT_LIST_DIR}/libgomp.sh
          -DSTAMP=${CMAKE_BINARY_DIR}/libgomp.stamp -DTESSERA_CACHE=${TESSERA_CACHE}
          -P ${CMAKE_CURRENT_LIST_DIR}/cached_build.cmake
  DEPENDS ts_runtime ts_crt0 ${CMAKE_CURRENT_LIST_DIR}/libgomp.sh ${CMAKE_BINARY_DIR}/libgomp.key
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
  COMMENT "libgomp (built once per machine into ${TESSERA_LIBGOMP_DIR})")
add_custom_target(libgomp ALL DEPENDS ${CMAKE_BINARY_DIR}/libgomp.stamp)
# What -fopenmp adds: omp.h before the compiler's own (configured for
# glibc), and libgomp before the runtime it runs on.
set(TESSERA_OPENMP_FLAGS -fopenmp "-isystem${TESSERA_LIBGOMP_DIR}/include")
set(TESSERA_OPENMP_LIBS ${TESSERA_LIBGOMP_DIR}/lib/libgomp.a)

# Usage requirements of every user library and program (ts_runtime links it
# PUBLIC, so anything that links ts_runtime is compiled this way).
add_library(tessera_user INTERFACE)
target_compile_options(tessera_user INTERFACE
  "$<$<COMPILE_LANGUAGE:C>:${TESSERA_USER_C_FLAGS}>"
  "$<$<COMPILE_LANGUAGE:CXX>:${TESSERA_USER_CXX_FLAGS}>"
  "$<$<COMPILE_LANGUAGE:ASM>:${_ts_arch};${_ts_platform_flags};-fno-pie>")

# Builds bin/NAME.elf from SOURCES; MPI also links LWMPI, OPENMP compiles
# with -fopenmp and links libgomp. C++ sources
# (.cpp .cc .cxx) are built as tools/mpicxx builds them, but in the tree's
# C++20 (set the target's CXX_STANDARD to 17 for mpicxx's default).
function(tessera_add_program NAME)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "MPI;OPENMP" "" "")
  if(NOT ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tessera_add_program(${NAME}): no sources")
  endif()
  add_executable(${NAME} ${ARG_UNPARSED_ARGUMENTS} $<TARGET_OBJECTS:ts_crt0>)
  set_target_properties(${NAME} PROPERTIES
    OUTPUT_NAME ${NAME} SUFFIX .elf
    LINK_DEPENDS ${TESSERA_USER_LD})
  target_link_options(${NAME} PRIVATE ${TESSERA_USER_LD_FLAGS})
  set(libs)
  if(ARG_OPENMP)
    target_compile_options(${NAME} PRIVATE ${TESSERA_OPENMP_FLAGS})
    add_dependencies(${NAME} libgomp)
    list(APPEND libs ${TESSERA_OPENMP_LIBS})
  endif()
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
openmpflags=${TESSERA_OPENMP_FLAGS}
openmplibs=${TESSERA_OPENMP_LIBS}
includes=${_ts_lwmpi_inc}
ldflags=${TESSERA_USER_LD_FLAGS}
startfiles=$<TARGET_OBJECTS:ts_crt0>
libs=${_ts_lwmpi_file};$<TARGET_FILE:ts_runtime>
syslibs=${TESSERA_USER_SYSLIBS}
")
