# Sourced by ci/test and ci/bench. generator DIR sets gen=(-G NAME) for build/DIR: the generator
# its cache already names (CMake refuses another, and the presets name none, so without -G it
# would ask for Makefiles), else Ninja when installed: Ninja compiles a target's sources while the
# libraries the target links are still being built, where Makefiles wait for them.
generator() {
  local cache="build/$1/CMakeCache.txt" name=""
  if [ -f "$cache" ]; then
    name=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$cache")
  elif command -v ninja >/dev/null; then
    name=Ninja
  fi
  gen=()
  if [ -n "$name" ]; then gen=(-G "$name"); fi
}
