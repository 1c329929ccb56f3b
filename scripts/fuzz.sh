#!/usr/bin/env bash
# Coverage-guided fuzzing of every decoder of outside bytes (fuzz/, issue 27;
# docs/fuzzing.md). Usage:
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   # default 60 s, every target
#   scripts/fuzz.sh --runs N [TARGET...]               # until N executions each
#   scripts/fuzz.sh --ci                               # the CI pass (scripts/test.sh): 3 s each
#
# Each target first runs once over its committed seeds (fuzz/seeds/T) and
# regressions (fuzz/regressions/T), then fuzzes with libFuzzer under
# -rss_limit_mb=256 and a per-input -timeout, growing fuzz/corpus/T
# (gitignored). A crash, leak, timeout or out-of-memory input lands in
# fuzz/artifacts/T/ and makes the script exit non-zero. It prints, per
# target: executions, exec/s, coverage (libFuzzer's cov and ft), corpus
# size and findings. Everything runs under nice (FUZZ_NICE, default 15).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds=60
runs=0
ci=0
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --ci) ci=1; seconds=3 ;;
        --runs) runs="$2"; seconds=0; shift ;;
        [0-9]*) seconds="$1" ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) targets+=("$1") ;;
    esac
    shift
done
nice_level="${FUZZ_NICE:-15}"
rss_mb=256
timeout_s=5

# cargo-fuzz on the nightly toolchain (installed beside stable; never
# downloaded here).
if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz.sh: the nightly toolchain is needed (rustup toolchain install nightly)" >&2
    exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    # Optimised a little only: the tool runs for seconds, its build is
    # part of every fresh CI run.
    CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_LTO=false \
        nice -n "$nice_level" cargo install cargo-fuzz --locked >&2
fi

# Every target listed in Cargo.toml, and each must have seeds.
mapfile -t all < <(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^twinstar-fuzz$')
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
missing=0
for t in "${all[@]}"; do
    [ -f "fuzz_targets/$t.rs" ] || { echo "fuzz.sh: $t has no fuzz_targets/$t.rs" >&2; missing=1; }
    if [ -z "$(ls -A "seeds/$t" 2>/dev/null)" ]; then
        echo "fuzz.sh: target $t has no seeds (fuzz/seeds/$t/)" >&2
        missing=1
    fi
done
for f in fuzz_targets/*.rs; do
    t="$(basename "$f" .rs)"
    printf '%s\n' "${all[@]}" | grep -qx "$t" || { echo "fuzz.sh: $f is not in Cargo.toml" >&2; missing=1; }
done
[ "$missing" = 0 ] || exit 1

# No sanitizer (the code under test is safe Rust; libFuzzer still catches
# panics, overflows, timeouts and memory growth), 16 codegen units (a
# faster build on 2 cores for slightly slower runs). The CI pass builds
# without optimisations (--dev: about half the build, a tenth of the speed,
# plenty for seeds, regressions and a few seconds each).
build_flags=(-s none --codegen-units 16)
profile=release
if [ "$ci" = 1 ]; then
    build_flags+=(--dev)
    profile=debug
fi
start=$(date +%s)
nice -n "$nice_level" cargo +nightly fuzz build "${build_flags[@]}" >&2
echo "fuzz.sh: built in $(($(date +%s) - start)) s" >&2
bin_dir=target/x86_64-unknown-linux-gnu/$profile

# The CI pass starts from the seeds alone (a scratch corpus), so its time
# and result do not depend on what earlier runs left in corpus/.
corpus=corpus
if [ "$ci" = 1 ]; then
    corpus="$(mktemp -d)"
    trap 'rm -rf "$corpus"' EXIT
fi
mkdir -p "$corpus" artifacts logs
failed=()
rows=()
for t in "${targets[@]}"; do
    bin="$bin_dir/$t"
    [ -x "$bin" ] || { echo "fuzz.sh: no target $t" >&2; exit 2; }
    mkdir -p "$corpus/$t" "artifacts/$t"
    limits=(-rss_limit_mb="$rss_mb" -timeout="$timeout_s" -artifact_prefix="artifacts/$t/")
    before=$(ls "artifacts/$t" | wc -l)
    # 1. Seeds and regressions, each input once.
    replay=(seeds/"$t"/*)
    [ -d "regressions/$t" ] && replay+=(regressions/"$t"/*)
    if ! nice -n "$nice_level" "$bin" "${limits[@]}" "${replay[@]}" >"logs/$t.replay.log" 2>&1; then
        echo "fuzz.sh: $t fails on a seed or regression (fuzz/logs/$t.replay.log):" >&2
        grep -a -m1 -A3 -E "panicked|ERROR" "logs/$t.replay.log" >&2 || tail -5 "logs/$t.replay.log" >&2
        failed+=("$t")
    fi
    # 2. Fuzzing, from the corpus so far and the seeds.
    budget=(-max_total_time="$seconds")
    [ "$runs" -gt 0 ] && budget=(-runs="$runs")
    # CI mutates from a fixed seed: a given commit meets the same inputs on
    # every run (only how far it gets varies with the machine's speed), so
    # a red CI is reproducible here; open-ended finding is for long runs.
    [ "$ci" = 1 ] && budget+=(-seed=1)
    rc=0
    nice -n "$nice_level" "$bin" "${limits[@]}" "${budget[@]}" -print_final_stats=1 \
        "$corpus/$t" "seeds/$t" >"logs/$t.log" 2>&1 || rc=$?
    log="logs/$t.log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    last=$(grep -aE '^#[0-9]+' "$log" | tail -1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$last")
    eps=$(sed -n 's/.* exec\/s: \([0-9]*\).*/\1/p' <<<"$last")
    if [ -n "$execs" ] && [ -n "$secs" ] && [ "$secs" -gt 0 ]; then eps=$((execs / secs)); fi
    findings=$(( $(ls "artifacts/$t" | wc -l) - before ))
    if [ "$rc" != 0 ] || [ "$findings" -gt 0 ]; then
        echo "fuzz.sh: $t found something (exit $rc); see fuzz/$log and fuzz/artifacts/$t/:" >&2
        grep -a -m1 -A3 -E "panicked|ERROR" "$log" >&2 || true
        failed+=("$t")
        findings=$((findings > 0 ? findings : 1))
    fi
    rows+=("$(printf '%-20s %12s %9s %6s %7s %14s %8s' "$t" "${execs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$findings")")
done

printf '%-20s %12s %9s %6s %7s %14s %8s\n' target executions exec/s cov ft corpus findings
printf '%s\n' "${rows[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz.sh: ${#targets[@]} targets, no findings (in $(($(date +%s) - start)) s with the build)" >&2
