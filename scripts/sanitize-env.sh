# Sourced by sanitize.sh and fuzz.sh: clang with AddressSanitizer (leak checker on) and
# UndefinedBehaviorSanitizer, both stopping at the first report. -O1 keeps xtensor fast enough;
# asserts stay on (no NDEBUG) and _GLIBCXX_ASSERTIONS checks every std::vector index. Line tables
# are all the reports need for file:line in their stacks (full -g compiles ~15% slower).
export ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
sanitize_flags="-O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=address,undefined"
sanitize_flags+=" -fno-sanitize-recover=all -D_GLIBCXX_ASSERTIONS"

# configure_sanitized <build dir> [extra compile flags]: the fuzz target is configured too.
configure_sanitized() {
  cmake -S . -B "$1" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Sanitize \
    -DCMAKE_CXX_FLAGS_SANITIZE="$sanitize_flags ${2:-}" \
    -DCMAKE_EXE_LINKER_FLAGS_SANITIZE="-fsanitize=address,undefined" -DATTENTION_FUZZ=ON >/dev/null
}
