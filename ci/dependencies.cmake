# Every dependency is a Debian package found through find_package or pkg-config (ci/setup installs
# them). Required ones stop the configure with the package to install; optional peers only
# switch their benchmarks to "skipped" with the reason.
find_package(PkgConfig REQUIRED)

function(gatebench_require_pkg prefix module debian_package)
  pkg_check_modules(${prefix} IMPORTED_TARGET GLOBAL ${module})
  if(NOT ${prefix}_FOUND)
    message(FATAL_ERROR "pkg-config module '${module}' not found: apt-get install ${debian_package} (or run ci/setup)")
  endif()
endfunction()

function(gatebench_optional_pkg prefix module debian_package)
  pkg_check_modules(${prefix} QUIET IMPORTED_TARGET GLOBAL ${module})
  if(${prefix}_FOUND)
    message(STATUS "optional peer ${module}: found ${${prefix}_VERSION}")
  else()
    message(STATUS "optional peer ${module}: missing (apt-get install ${debian_package}); its benchmarks report skipped")
  endif()
endfunction()

find_package(Threads REQUIRED)
find_package(OpenSSL 3.0 REQUIRED)
find_package(Boost 1.74 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
gatebench_require_pkg(RE2 re2 libre2-dev)
gatebench_require_pkg(SIMDJSON simdjson libsimdjson-dev)
gatebench_require_pkg(URING liburing liburing-dev)
gatebench_require_pkg(SQLITE3 sqlite3 libsqlite3-dev)  # gatebench history (docs/history.md)
if(GATEBENCH_BUILD_BENCH OR GATEBENCH_BUILD_TESTS)
  find_package(benchmark 1.7 REQUIRED)
endif()
if(GATEBENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
gatebench_optional_pkg(HYPERSCAN libhs libhyperscan-dev)
gatebench_optional_pkg(GEOIP geoip libgeoip-dev)
gatebench_optional_pkg(MODSECURITY modsecurity libmodsecurity-dev)
find_library(HTTP_PARSER_LIBRARY http_parser)  # libhttp-parser-dev: optional http1 peer
