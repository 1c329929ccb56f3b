# The golden checksum of the 10,000-frame synctest of seed 1, read from the
# test that pins it (tests/it/determinism.rs; tests/it/browser.rs holds the
# wasm32 build to it too), for the scripts that hold other builds to it.
# Sourced, not run.

# golden_checksum: prints it (32 hex digits), or fails with a message.
golden_checksum() {
    local golden
    golden=$(sed -n 's/^const GOLDEN_10K_SEED_1: u128 = 0x\([0-9a-f]*\);/\1/p' tests/it/determinism.rs)
    [ -n "$golden" ] || { echo "no GOLDEN_10K_SEED_1 in tests/it/determinism.rs" >&2; return 1; }
    echo "$golden"
}
