# tessera_cached_build (build/cache.cmake) at build time, for a library
# whose build needs what the build makes first (libgomp needs the runtime):
#   cmake -DNAME=N -DKEY_FILE=F -DARGS_FILE=A -DSCRIPT=S -DSTAMP=T
#         -DTESSERA_CACHE=C -P build/cached_build.cmake
# KEY_FILE holds the entry's key, ARGS_FILE the script's arguments after
# WORKDIR and PREFIX, one a line. Writes the entry's folder into STAMP.
include(${CMAKE_CURRENT_LIST_DIR}/cache.cmake)
file(READ ${KEY_FILE} key)
file(STRINGS ${ARGS_FILE} args)
tessera_cached_build(entry ${NAME} "${key}" ${SCRIPT} ${args})
file(WRITE ${STAMP} "${entry}\n")
