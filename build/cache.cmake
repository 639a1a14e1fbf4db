# The per-machine cache of the libraries Tessera builds from Debian's
# sources (newlib for linux64, libstdc++ for both platforms): built once per
# machine, at configure time, and reused by every build folder and every
# clone, so that a fresh clone (and CI) does not pay for them again.
#
# The cache lives in $TESSERA_CACHE, else $XDG_CACHE_HOME/tessera, else
# ~/.cache/tessera. Each entry is a folder NAME-HASH, where HASH covers
# everything the build depends on (sources, script, flags, compiler, the
# headers it was built against); a change to any of them makes a new entry,
# and old ones can be deleted by hand at any time.
if(NOT DEFINED TESSERA_CACHE)
  if(DEFINED ENV{TESSERA_CACHE})
    set(_ts_cache_default $ENV{TESSERA_CACHE})
  elseif(DEFINED ENV{XDG_CACHE_HOME})
    set(_ts_cache_default $ENV{XDG_CACHE_HOME}/tessera)
  else()
    set(_ts_cache_default $ENV{HOME}/.cache/tessera)
  endif()
  set(TESSERA_CACHE ${_ts_cache_default} CACHE PATH "where Tessera keeps the libraries it builds once per machine")
endif()

# The folder of NAME's entry for KEY (a text naming every input).
function(tessera_cache_entry out_var name key)
  string(SHA256 hash "${key}")
  string(SUBSTRING ${hash} 0 16 hash)
  set(${out_var} ${TESSERA_CACHE}/${name}-${hash} PARENT_SCOPE)
endfunction()

# tessera_cached_build(OUT_VAR NAME KEY SCRIPT ARGS...): sets OUT_VAR to the
# cache folder of NAME for KEY (a text naming every input), building it
# first, if it is not there, by running SCRIPT WORKDIR PREFIX ARGS... The
# script fills PREFIX; the entry is renamed into place only when the script
# succeeds, so an interrupted build leaves nothing that looks finished, and
# two builds racing for one entry both end with a whole one. Runs at
# configure time, or at build time through build/cached_build.cmake.
function(tessera_cached_build out_var name key script)
  tessera_cache_entry(entry ${name} "${key}")
  if(NOT EXISTS ${entry}/key.txt)
    string(RANDOM LENGTH 8 tag)
    set(partial ${entry}.partial-${tag})
    message(NOTICE "tessera: building ${name} into ${entry} (once per machine; minutes)")
    file(MAKE_DIRECTORY ${TESSERA_CACHE})
    execute_process(COMMAND ${script} ${CMAKE_BINARY_DIR}/${name}-build ${partial} ${ARGN}
                    RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      file(REMOVE_RECURSE ${partial})
      message(FATAL_ERROR "tessera: building ${name} failed (${script}, status ${status})")
    endif()
    file(WRITE ${partial}/key.txt "${key}\n")
    if(EXISTS ${entry}/key.txt)
      file(REMOVE_RECURSE ${partial})
    else()
      file(REMOVE_RECURSE ${entry})
      file(RENAME ${partial} ${entry})
    endif()
  endif()
  set(${out_var} ${entry} PARENT_SCOPE)
endfunction()

# tessera_file_hashes(OUT_VAR FILES...): "path hash" lines for a cache key,
# paths relative to the source tree (so that every clone shares an entry).
function(tessera_file_hashes out_var)
  set(lines)
  foreach(f ${ARGN})
    file(SHA256 ${f} h)
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${f})
    list(APPEND lines "${rel} ${h}")
  endforeach()
  string(JOIN "\n" text ${lines})
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()
