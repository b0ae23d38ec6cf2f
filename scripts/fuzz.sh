#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ and runs each for FUZZ_SECONDS (default 60).
#
# Usage: scripts/fuzz.sh [target ...]     (default: all four)
#   request-parser     HTTPRequestParser            Fuzz/RequestParserFuzz.swift
#   response-parser    HTTPResponseParser           Fuzz/ResponseParserFuzz.swift
#   chunked-decoder    ChunkedDecoder (internal)    Fuzz/ChunkedDecoderFuzz.swift
#   resp-reply-parser  RESPReplyParser, RESPCommand Fuzz/RESPReplyParserFuzz.swift
#
# SwiftPM cannot build libFuzzer executables, so each target is compiled with swiftc together with
# the sources of the module it tests, Sources/HTTP1/*.swift or Sources/RESP/*.swift (one module:
# internal types are visible), Fuzz/FuzzSupport.swift and that module's support file, with
# -sanitize=fuzzer,address.
# A binary is rebuilt only when one of its sources is newer. The growing corpus lives in
# $FUZZ_BUILD_DIR/corpus/<target> (seeded from Fuzz/corpus/<target>, which is never written);
# crashes, timeouts and leaks are saved in $FUZZ_BUILD_DIR/artifacts/<target>/ and fail the run.
# Replay one: $FUZZ_BUILD_DIR/<target> <artifact file>.
#
# Environment: FUZZ_SECONDS (60), FUZZ_BUILD_DIR (/tmp/build-fuzz), FUZZ_MAX_LEN (4096),
# FUZZ_TIMEOUT (10: seconds one input may take before it counts as a hang), SWIFTC (swiftc).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD_DIR:-/tmp/build-fuzz}
max_len=${FUZZ_MAX_LEN:-4096}
hang_seconds=${FUZZ_TIMEOUT:-10}
swiftc=${SWIFTC:-swiftc}

declare -A sources=(
  [request-parser]=Fuzz/RequestParserFuzz.swift
  [response-parser]=Fuzz/ResponseParserFuzz.swift
  [chunked-decoder]=Fuzz/ChunkedDecoderFuzz.swift
  [resp-reply-parser]=Fuzz/RESPReplyParserFuzz.swift
)
# The module (under Sources/) each target is compiled with, and per module its support files
# beside Fuzz/FuzzSupport.swift and its libFuzzer dictionary.
declare -A modules=(
  [request-parser]=HTTP1
  [response-parser]=HTTP1
  [chunked-decoder]=HTTP1
  [resp-reply-parser]=RESP
)
declare -A support=([HTTP1]=Fuzz/HTTPFuzzSupport.swift [RESP]="")
declare -A dictionaries=([HTTP1]=Fuzz/http.dict [RESP]=Fuzz/resp.dict)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(request-parser response-parser chunked-decoder resp-reply-parser)
for target in "${targets[@]}"; do
  [ -n "${sources[$target]:-}" ] || { echo "fuzz.sh: unknown target '$target' (${!sources[*]})" >&2; exit 2; }
done

# Symbolized stacks: the Swift toolchain ships llvm-symbolizer; else Debian's llvm provides one.
symbolizer="$(dirname "$(readlink -f "$(command -v "$swiftc")")")/llvm-symbolizer"
if [ ! -x "$symbolizer" ]; then
  command -v llvm-symbolizer >/dev/null || scripts/install-deps.sh llvm
  symbolizer=$(command -v llvm-symbolizer)
fi
export ASAN_SYMBOLIZER_PATH=$symbolizer
# A failed invariant is a fatalError: let libFuzzer's handler report it, not Swift's backtracer
# (which ASan flags while it reads the crashed stack).
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:symbolize=1}

mkdir -p "$build/logs"

# Build the stale binaries (about 10 s each with -wmo, once; later runs reuse them).
build_target() {
  local target=$1 binary="$build/$1" module=${modules[$1]}
  local inputs=(Sources/"$module"/*.swift Fuzz/FuzzSupport.swift ${support[$module]} "${sources[$1]}")
  if [ -x "$binary" ] && [ -z "$(find "${inputs[@]}" -newer "$binary" 2>/dev/null | head -1)" ]; then
    return 0
  fi
  echo "fuzz: building $target" >&2
  # ld.gold warns "Cannot export local symbol '__asan_…'" for every ASan stub: harmless noise.
  # -wmo leaves the module's .swiftmodule in the working directory: compile from inside $build.
  local absolute=()
  for input in "${inputs[@]}"; do absolute+=("$PWD/$input"); done
  if ! (cd "$build" && "$swiftc" -wmo -swift-version 6 -parse-as-library -sanitize=fuzzer,address -O -g \
    -module-name "${module}Fuzz" "${absolute[@]}" -o "$binary.tmp") 2>&1 | { grep -v "Cannot export local symbol" || true; }
  then
    echo "fuzz: building $target failed" >&2
    return 1
  fi
  mv "$binary.tmp" "$binary"
}
for target in "${targets[@]}"; do build_target "$target" || exit 1; done

failed=()
for target in "${targets[@]}"; do
  binary="$build/$target"
  corpus="$build/corpus/$target"
  artifacts="$build/artifacts/$target"
  log="$build/logs/$target.log"
  mkdir -p "$corpus" "$artifacts"
  # New inputs go to the first directory only; the checked-in seeds are read, never written.
  status=0
  "$binary" "$corpus" "Fuzz/corpus/$target" \
    -max_total_time="$seconds" -max_len="$max_len" -timeout="$hang_seconds" -rss_limit_mb=2048 \
    -dict="${dictionaries[${modules[$target]}]}" -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  echo "fuzz: $target: ${runs:-?} executions in ${seconds}s, ${coverage:-cov: ?}, corpus $(find "$corpus" -type f | wc -l) files (log $log)"
  if [ "$status" -ne 0 ]; then
    failed+=("$target")
    echo "fuzz: $target FAILED (exit $status); last lines of $log:" >&2
    grep -v '^#[0-9]' "$log" | tail -40 >&2
    echo "fuzz: inputs that failed: $(ls "$artifacts" 2>/dev/null | sed "s|^|$artifacts/|" | tr '\n' ' ')" >&2
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failures in: ${failed[*]} (make each input a regression test in Tests/HTTP1Tests or Tests/RESPTests)" >&2
  exit 1
fi
