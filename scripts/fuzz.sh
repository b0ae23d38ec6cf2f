#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ and runs each for FUZZ_SECONDS (default 60).
#
# Usage: scripts/fuzz.sh [target ...]     (default: all five)
#   request-parser     HTTPRequestParser            Fuzz/RequestParserFuzz.swift
#   response-parser    HTTPResponseParser           Fuzz/ResponseParserFuzz.swift
#   chunked-decoder    ChunkedDecoder (internal)    Fuzz/ChunkedDecoderFuzz.swift
#   resp-reply-parser  RESPReplyParser, RESPCommand Fuzz/RESPReplyParserFuzz.swift
#   upstream-json      UpstreamJSON, JSONValue      Fuzz/UpstreamJSONFuzz.swift (against Foundation)
#
# SwiftPM cannot build libFuzzer executables, so each target is compiled with swiftc together with
# the sources of the module it tests, Sources/HTTP1/*.swift, Sources/RESP/*.swift or
# Sources/JSON/*.swift (one module: internal types are visible), Fuzz/FuzzSupport.swift and that
# module's support files, with -sanitize=fuzzer,address. The JSON target's support files are the
# domain's upstream decoders and the few types they use; it is compiled as module JSON, so their
# `import JSON` is ignored, with a warning per file: that build suppresses warnings (SwiftPM's
# build of the same sources treats warnings as errors).
# The JSON target compares with Foundation's JSONSerialization, whose caches outlive an input and
# which LeakSanitizer reports as leaks: that target runs with -detect_leaks=0 (ASAN's detect_leaks
# off). Leaks in our own code there go unreported; the HTTP1 and RESP targets still check them.
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
  [upstream-json]=Fuzz/UpstreamJSONFuzz.swift
)
# The module (under Sources/) each target is compiled with, and per module its support files
# beside Fuzz/FuzzSupport.swift and its libFuzzer dictionary.
declare -A modules=(
  [request-parser]=HTTP1
  [response-parser]=HTTP1
  [chunked-decoder]=HTTP1
  [resp-reply-parser]=RESP
  [upstream-json]=JSON
)
declare -A support=(
  [HTTP1]=Fuzz/HTTPFuzzSupport.swift
  [RESP]=""
  [JSON]="Fuzz/FoundationJSON.swift Sources/ProductDetails/UpstreamJSON.swift Sources/ProductDetails/Product.swift Sources/ProductDetails/Review.swift Sources/ProductDetails/UpstreamFailure.swift"
)
declare -A dictionaries=([HTTP1]=Fuzz/http.dict [RESP]=Fuzz/resp.dict [JSON]=Fuzz/json.dict)
# The compiled module's name: ${module}Fuzz, but JSON's own name so that `import JSON` resolves to itself.
declare -A module_names=([HTTP1]=HTTP1Fuzz [RESP]=RESPFuzz [JSON]=JSON)
# libFuzzer flags per module (see above for JSON's).
declare -A run_flags=([HTTP1]="" [RESP]="" [JSON]="-detect_leaks=0")
declare -A build_flags=([HTTP1]="" [RESP]="" [JSON]="-suppress-warnings")
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(request-parser response-parser chunked-decoder resp-reply-parser upstream-json)
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
  # -package-name: the module's `package` declarations need one, as SwiftPM gives them.
  local absolute=()
  for input in "${inputs[@]}"; do absolute+=("$PWD/$input"); done
  if ! (cd "$build" && "$swiftc" -wmo -swift-version 6 -parse-as-library -sanitize=fuzzer,address -O -g -package-name product_details \
    ${build_flags[$module]} -module-name "${module_names[$module]}" "${absolute[@]}" -o "$binary.tmp") 2>&1 \
    | { grep -v "Cannot export local symbol" || true; }
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
    -dict="${dictionaries[${modules[$target]}]}" -artifact_prefix="$artifacts/" -print_final_stats=1 \
    ${run_flags[${modules[$target]}]} >"$log" 2>&1 || status=$?
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
  echo "fuzz: failures in: ${failed[*]} (make each input a regression test in Tests/HTTP1Tests, Tests/RESPTests or Tests/JSONTests)" >&2
  exit 1
fi
