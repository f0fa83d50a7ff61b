# GATEBENCH_LINKER: the linker of every executable (gcc's and clang's -fuse-ld=), for the builds
# that link many large executables: the debug, fuzz and ci-release presets set mold (ci/setup
# installs it): ci/test links 76 executables, and mold took a quarter of ld.bfd's CPU time for the
# driver's (docs/testing.md has the figures). The release preset keeps the toolchain's default:
# the benchmarks measure binaries linked as ci/bench always linked them.
set(GATEBENCH_LINKER "" CACHE STRING "Linker for -fuse-ld= (mold, lld, gold; empty: the default)")
if(GATEBENCH_LINKER)
  include(CheckLinkerFlag)
  # One result variable per linker, so a changed GATEBENCH_LINKER is checked anew.
  string(MAKE_C_IDENTIFIER "GATEBENCH_LINKER_${GATEBENCH_LINKER}_WORKS" works)
  check_linker_flag(CXX "-fuse-ld=${GATEBENCH_LINKER}" ${works})
  if(${works})
    add_link_options(-fuse-ld=${GATEBENCH_LINKER})
  else()
    # Only slower without it: the default linker links the same program.
    message(WARNING "-fuse-ld=${GATEBENCH_LINKER} does not link here (ci/setup installs mold); "
                    "using the default linker")
  endif()
endif()
