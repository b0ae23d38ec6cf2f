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
# The binaries are kept as $FUZZ_BUILD_DIR/bin/<target>-<key>, the key a hash of what goes into
# one (the sources' contents, the flags, the compiler's version), and $FUZZ_BUILD_DIR/<target>
# links to the one last built: FUZZ_BUILD_DIR is shared by every checkout on the machine (at the
# same time, too), and a fresh clone's files are all newer than any binary, so modification
# times could neither spare a build nor tell one checkout's sources from another's. Missing
# binaries are built FUZZ_JOBS (2) at a time, each in a scratch folder of its own. The growing
# corpus lives in $FUZZ_BUILD_DIR/corpus/<target> (seeded from Fuzz/corpus/<target>, which is
# never written); crashes, timeouts and leaks are saved in $FUZZ_BUILD_DIR/artifacts/<target>/
# and fail the run. Replay one: $FUZZ_BUILD_DIR/<target> <artifact file>.
#
# Environment: FUZZ_SECONDS (60), FUZZ_BUILD_DIR (/tmp/build-fuzz), FUZZ_MAX_LEN (4096),
# FUZZ_TIMEOUT (10: seconds one input may take before it counts as a hang), SWIFTC (swiftc),
# FUZZ_JOBS (2: builds at once).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD_DIR:-/tmp/build-fuzz}
max_len=${FUZZ_MAX_LEN:-4096}
hang_seconds=${FUZZ_TIMEOUT:-10}
swiftc=${SWIFTC:-swiftc}
jobs=${FUZZ_JOBS:-2}

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
  [JSON]="Fuzz/FoundationJSON.swift Sources/ProductDetails/UpstreamJSON.swift Sources/ProductDetails/ProductDetail.swift Sources/ProductDetails/UpstreamFailure.swift"
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

mkdir -p "$build/logs" "$build/bin"
fuzz_started=$(date +%s)
compiler_version=$("$swiftc" --version 2>&1)

target_inputs() { # the files one target is compiled from
  local module=${modules[$1]}
  printf '%s\n' Sources/"$module"/*.swift Fuzz/FuzzSupport.swift ${support[$module]} "${sources[$1]}"
}
target_flags() {
  local module=${modules[$1]}
  echo "-wmo -swift-version 6 -parse-as-library -sanitize=fuzzer,address -O -g -package-name product_details ${build_flags[$module]} -module-name ${module_names[$module]}"
}
# The binary for the target's current sources, flags and compiler.
target_binary() {
  local key
  key=$( { echo "$compiler_version"; target_flags "$1"; target_inputs "$1" | while IFS= read -r f; do echo "$f"; cat "$f"; done; } \
    | sha256sum | cut -c1-16)
  echo "$build/bin/$1-$key"
}

# Builds one binary (about 10 s each with -wmo on a quiet machine) under a temporary name, then
# renames it into place: a checkout building the same key at the same time loses nothing.
build_target() {
  local target=$1 binary=$2 scratch status=0
  local absolute=()
  mapfile -t inputs < <(target_inputs "$target")
  for input in "${inputs[@]}"; do absolute+=("$PWD/$input"); done
  # -wmo leaves the module's .swiftmodule in the working directory: a scratch folder per build.
  # -package-name: the module's `package` declarations need one, as SwiftPM gives them.
  scratch=$(mktemp -d "$build/scratch-$target.XXXXXX")
  (cd "$scratch" && "$swiftc" $(target_flags "$target") "${absolute[@]}" -o "$scratch/$target") || status=$?
  [ "$status" -ne 0 ] || mv -f "$scratch/$target" "$binary"
  rm -rf "$scratch"
  return "$status"
}

# Stale: build the missing ones, FUZZ_JOBS at a time, each with its own log.
# A binary unused for a week goes; one in use has its time renewed below.
find "$build/bin" -type f -mtime +7 -delete 2>/dev/null || true
declare -A binaries=()
missing=()
for target in "${targets[@]}"; do
  binaries[$target]=$(target_binary "$target")
  if [ -x "${binaries[$target]}" ]; then touch "${binaries[$target]}"; else missing+=("$target"); fi
done
build_pids=()
# On exit before the builds end: each build's process tree (swiftc, the frontend, the linker), by pid.
kill_tree() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
stop_builds() { for pid in "${build_pids[@]}"; do kill_tree "$pid"; done; }
trap stop_builds EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
build_failed=()
for ((i = 0; i < ${#missing[@]}; i += jobs)); do
  batch=("${missing[@]:i:jobs}")
  build_pids=()
  for target in "${batch[@]}"; do
    echo "fuzz: building $target" >&2
    build_target "$target" "${binaries[$target]}" >"$build/logs/$target.build.log" 2>&1 &
    build_pids+=($!)
  done
  for j in "${!batch[@]}"; do
    target=${batch[j]}
    if ! wait "${build_pids[j]}"; then build_failed+=("$target"); fi
    # ld.gold warns "Cannot export local symbol '__asan_…'" for every ASan stub: harmless noise.
    grep -v "Cannot export local symbol" "$build/logs/$target.build.log" >&2 || true
  done
done
build_pids=()
[ ${#build_failed[@]} -eq 0 ] || { echo "fuzz: building ${build_failed[*]} failed" >&2; exit 1; }
for target in "${targets[@]}"; do
  ln -sfn "${binaries[$target]}" "$build/$target.link.$$" && mv -fT "$build/$target.link.$$" "$build/$target"
done
echo "fuzz: ${#missing[@]} of ${#targets[@]} binaries built, $((${#targets[@]} - ${#missing[@]})) reused ($(($(date +%s) - fuzz_started))s)"

failed=()
for target in "${targets[@]}"; do
  binary=${binaries[$target]}
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
