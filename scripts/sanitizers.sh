#!/usr/bin/env bash
# Runs the whole test suite under a sanitizer; fails on a test failure or on any sanitizer report.
#
# Usage: scripts/sanitizers.sh thread|address [extra `swift test` arguments, e.g. --filter X]
#
#   thread   TSAN_LOCKS=1 (Package.swift then builds `Locked` on pthread mutexes, which TSan
#            sees, instead of Synchronization.Mutex's futex, which it does not), --sanitize=thread,
#            scratch path $TSAN_BUILD_DIR (/tmp/build-tsan). Fails on "WARNING: ThreadSanitizer".
#   address  --sanitize=address (LeakSanitizer included), scratch path $ASAN_BUILD_DIR
#            (/tmp/build-asan). Fails on "ERROR: AddressSanitizer" / "ERROR: LeakSanitizer".
#            scripts/lsan.supp lists the suppressed LSan reports, each with its reason; it is
#            compiled into the build, so it reaches child processes the tests start too.
#
# The log of the run is kept next to the build: <scratch>/sanitizer-test.log.
set -euo pipefail
cd "$(dirname "$0")/.."

extra_flags=()
mode=${1:-}
shift || true
swift=${SWIFT:-swift}

scripts/install-deps.sh
# Symbolized reports: the Swift toolchain ships llvm-symbolizer; else Debian's llvm provides one.
symbolizer="$(dirname "$(readlink -f "$(command -v "$swift")")")/llvm-symbolizer"
if [ ! -x "$symbolizer" ]; then
  command -v llvm-symbolizer >/dev/null || scripts/install-deps.sh llvm
  symbolizer=$(command -v llvm-symbolizer)
fi

case "$mode" in
  thread)
    export TSAN_LOCKS=1
    scratch=${TSAN_BUILD_DIR:-/tmp/build-tsan}
    export TSAN_OPTIONS="halt_on_error=0:second_deadlock_stack=1:external_symbolizer_path=$symbolizer${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
    report='WARNING: ThreadSanitizer'
    ;;
  address)
    scratch=${ASAN_BUILD_DIR:-/tmp/build-asan}
    export ASAN_SYMBOLIZER_PATH=$symbolizer
    # Leaks are checked in the `product-details` children the process tests start (the service as
    # it runs), not in the test runner: what the runner still holds at exit are test fixtures
    # (event loops, applications) reachable only through pointers Swift stores encoded, which
    # LSan reports as 900+ indirect leaks with no root of their own. The children get their
    # options from __asan_default_options below, since their environment is not ours.
    # scripts/asan.supp: reports from code outside this project, each with its reason.
    export ASAN_OPTIONS="detect_leaks=0:symbolize=1:suppressions=$PWD/scripts/asan.supp${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export LSAN_OPTIONS="print_suppressions=1${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    report='ERROR: (AddressSanitizer|LeakSanitizer)'
    # The tests start `product-details` with an environment of their own (no ASAN_/LSAN_OPTIONS,
    # no PATH), so its options and the suppressions are compiled in: the sanitizer runtime calls
    # __asan_default_options() and __lsan_default_suppressions() (environment variables win).
    mkdir -p "$scratch"
    supp_c="$scratch/lsan-suppressions.c"
    {
      echo 'const char *__lsan_default_suppressions(void) { return'
      sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/  "&\\n"/' scripts/lsan.supp
      echo '  ""; }'
      echo "const char *__asan_default_options(void) { return \"detect_leaks=1:symbolize=1:external_symbolizer_path=$symbolizer\"; }"
    } >"$supp_c.tmp"
    cmp -s "$supp_c.tmp" "$supp_c" && rm "$supp_c.tmp" || mv "$supp_c.tmp" "$supp_c"
    clang="$(dirname "$(readlink -f "$(command -v "$swift")")")/clang"
    [ -x "$clang" ] || clang=cc
    if [ ! "$scratch/lsan-suppressions.o" -nt "$supp_c" ]; then
      "$clang" -c -O1 -fPIC "$supp_c" -o "$scratch/lsan-suppressions.o"
      # SwiftPM does not track -Xlinker inputs: remove the linked products so they are relinked.
      bin=$("$swift" build --sanitize=address --scratch-path "$scratch" --show-bin-path)
      rm -rf "$bin/product-details" "$bin/catalog-stub" "$bin"/*.xctest
    fi
    extra_flags=(-Xlinker "$scratch/lsan-suppressions.o")
    ;;
  *)
    echo "usage: $0 thread|address [swift test arguments]" >&2
    exit 2
    ;;
esac

log="$scratch/sanitizer-test.log"
mkdir -p "$scratch"
"$swift" build --build-tests --sanitize="$mode" --scratch-path "$scratch" "${extra_flags[@]}"
status=0
"$swift" test --skip-build --sanitize="$mode" --scratch-path "$scratch" "${extra_flags[@]}" "$@" 2>&1 | tee "$log" || status=$?
scripts/reap-test-redis.sh
scripts/reap-test-services.sh "$scratch"
reports=$(grep -cE "$report" "$log" || true)

echo "sanitizers: $mode: swift test exit $status, $reports sanitizer report(s); log $log"
if [ "$reports" -gt 0 ]; then
  grep -nE "$report" "$log" | head -20 >&2
  exit 1
fi
exit "$status"
