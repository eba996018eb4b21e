#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser of outside input (docs/fuzzing.md).
#   scripts/fuzz.sh [TARGET] [SECONDS]
# builds the libFuzzer targets of FuzzTesting/ (with AddressSanitizer, into FuzzTesting/.build-fuzz)
# and runs TARGET (e.g. FuzzStrictJSON, or StrictJSON), or every target one after the other when it
# is omitted or `all`, for SECONDS each (default 30). Each run starts from the committed seeds
# (FuzzTesting/Corpus/TARGET, crashing inputs found before included), seeds made from the tests'
# fixtures, and what earlier runs on this machine kept (FuzzTesting/.build-fuzz/corpus/TARGET).
# Fails (exit 1) on any crash, leak, timeout, out-of-memory or sanitizer report; the input that
# caused it is written to FuzzTesting/.build-fuzz/artifacts/TARGET/ and the log's end is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source scripts/setup.sh

all_targets=(FuzzOnePassJSON FuzzStrictJSON FuzzAppReceipt FuzzImportFile FuzzSalesReport FuzzAppsFile FuzzSignedData FuzzNotificationBody)
targets=("${all_targets[@]}")
seconds=30
if [ $# -gt 0 ] && ! [[ $1 =~ ^[0-9]+$ ]]; then
  [ "$1" = all ] || targets=("Fuzz${1#Fuzz}")
  shift
fi
[ $# -gt 0 ] && seconds=$1
for target in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $target "* ]] || { echo "fuzz: no target $target (one of: ${all_targets[*]})" >&2; exit 64; }
done

scratch=$root/FuzzTesting/.build-fuzz
build=(swift build --package-path FuzzTesting --scratch-path "$scratch" "${debug_build_flags[@]}"
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library)
if [ ${#targets[@]} -eq 1 ]; then build+=(--product "${targets[0]}"); fi
echo "fuzz: building ${targets[*]} (first build: every module with coverage and AddressSanitizer)" >&2
"${build[@]}" >&2
bin=$("${build[@]}" --show-bin-path)

# Seeds made from the tests' fixtures at run time, so nothing is copied into the corpus folders:
# the receipts are base64 text (the reader gets their DER too), the JWS files give bodies.
fixtures=$root/Tests
seeds() {
  local target=$1 dir=$2
  rm -rf "$dir" && mkdir -p "$dir"
  case $target in
    FuzzOnePassJSON)
      cp "$fixtures"/SubReconTests/Fixtures/apple-real/*.json "$fixtures"/SubReconTests/Fixtures/server-api/*.json "$dir"/ ;;
    FuzzStrictJSON)
      cp "$fixtures"/SubReconTests/Fixtures/server-api/*.json "$dir"/ ;;
    FuzzAppReceipt)
      for receipt in "$fixtures"/AppleSignedDataTests/Fixtures/app-receipts/*; do
        case $receipt in *.md) continue ;; esac
        cp "$receipt" "$dir/$(basename "$receipt").b64"
        base64 -d "$receipt" > "$dir/$(basename "$receipt").der"
      done ;;
    FuzzSalesReport)
      for report in "$fixtures"/SubReconTests/Fixtures/AppleReports/*.tsv; do
        cp "$report" "$dir"/
        gzip -c "$report" > "$dir/$(basename "$report").gz"
      done ;;
    FuzzSignedData)
      cp "$fixtures"/AppleSignedDataTests/Fixtures/signed-data/*.jws "$fixtures"/AppleSignedDataTests/Fixtures/signed-data/apple-library/*.jws "$dir"/ ;;
  esac
}

failed=()
for target in "${targets[@]}"; do
  work=$scratch/fuzz/$target
  mkdir -p "$work/corpus" "$work/artifacts"
  seeds "$target" "$work/seeds"
  log=$work/fuzz.log
  echo "fuzz: $target for ${seconds}s (log: ${log#"$root"/})" >&2
  # New inputs go to the first folder; the others are read only. -timeout: one input taking 10 s is
  # a hang. The sanitizers' reports end the run with a non-zero status.
  # Inputs up to the largest seed, at least 4 KB; import files longer, so rows add up.
  max_len=()
  [ "$target" = FuzzImportFile ] && max_len=(-max_len=8192)
  # The committed seeds, for the targets that have any (git keeps no empty folder).
  committed=()
  [ -d "FuzzTesting/Corpus/$target" ] && committed=("FuzzTesting/Corpus/$target")
  status=0
  ASAN_OPTIONS=detect_leaks=1:symbolize=1 LSAN_OPTIONS="suppressions=$root/FuzzTesting/lsan.supp:print_suppressions=0" \
    "$bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${max_len[@]}" \
    -artifact_prefix="$work/artifacts/" "$work/corpus" "${committed[@]}" "$work/seeds" > "$log" 2>&1 || status=$?
  summary=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 || true)
  if [ $status -ne 0 ]; then
    failed+=("$target")
    echo "fuzz: $target FAILED (status $status); the input is in ${work#"$root"/}/artifacts/; the log ends:" >&2
    tail -40 "$log" >&2
  else
    echo "fuzz: $target ok: $summary" >&2
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
