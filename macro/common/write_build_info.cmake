# cmake -DSOURCE_DIR=... -DVERSION=... -DCOMPILER=... -DTEMPLATE=... -DOUTPUT=... \
#       -P write_build_info.cmake
# The commit of SOURCE_DIR's HEAD and whether tracked files differ from it ("unknown" and not
# dirty outside a git checkout or without git). configure_file leaves OUTPUT untouched when the
# text is the same, so its timestamp moves only when the values do.
set(GATEBENCH_COMMIT "unknown")
set(GATEBENCH_DIRTY "false")
find_program(GIT git)
if(GIT)
  # --no-optional-locks: never take the index lock, which a commit running beside the build holds.
  execute_process(COMMAND ${GIT} --no-optional-locks -C ${SOURCE_DIR} rev-parse --verify HEAD
                  OUTPUT_VARIABLE head RESULT_VARIABLE head_rc
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(head_rc EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
    set(GATEBENCH_COMMIT "${head}")
    execute_process(COMMAND ${GIT} --no-optional-locks -C ${SOURCE_DIR} diff --quiet HEAD --
                    RESULT_VARIABLE diff_rc OUTPUT_QUIET ERROR_QUIET)
    if(NOT diff_rc EQUAL 0)
      set(GATEBENCH_DIRTY "true")
    endif()
  endif()
endif()
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
