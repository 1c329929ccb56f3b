# check_under_qemu: the arm64 image's server, run here under qemu's user
# mode (scripts/check-server-image.sh --arch arm64; sourced by it after the
# image's configuration passed, and using its $image, $work, $name, $bin,
# $started, $archive and `fail`). The container itself cannot run on this
# x86_64 machine without a binfmt handler for aarch64 (a change to the
# host's kernel), so the image's /opt/twinstar is copied out of a created,
# never started, container and its static binary run with
# qemu-aarch64-static: what runs is exactly what the image holds.
# shellcheck shell=bash

check_under_qemu() {
    command -v qemu-aarch64-static > /dev/null || fail "qemu-aarch64-static is missing (apt-get install qemu-user-static)"
    local opt="$work/opt" server port metrics_port out code a matches
    podman_cmd create --arch arm64 --name "$name" "$image" > /dev/null 2>&1 || fail "podman create of $image failed"
    podman_cmd cp "$name:/opt/twinstar" "$opt" || fail "podman cp of /opt/twinstar out of $image failed"
    podman_cmd rm "$name" > /dev/null 2>&1
    server="$opt/twinstar-server"
    readelf -h "$server" | grep -q 'Machine:.*AArch64' || fail "the image's twinstar-server is not an aarch64 ELF"
    ! readelf -l "$server" | grep -q INTERP || fail "the image's twinstar-server asks for a dynamic loader: not static"

    # TLS, so ring's aarch64 code runs: the server's handshake here, and
    # the health command's (a client) below.
    bash scripts/lib/make-test-certs.sh "$work/tls" 127.0.0.1
    port=$(free_port)
    metrics_port=$(free_port)
    qemu-aarch64-static "$server" --bind "127.0.0.1:$port" --metrics-bind "127.0.0.1:$metrics_port" \
        --tls-cert "$work/tls/server.pem" --tls-key "$work/tls/server.key" > "$work/server.log" 2>&1 &
    qemu_pid=$!
    trap 'kill -KILL "$qemu_pid" 2> /dev/null || true; cleanup' EXIT
    local https=(curl -s --cacert "$work/tls/ca.pem")
    for _ in $(seq 200); do
        [ "$("${https[@]}" "https://127.0.0.1:$port/livez")" = ok ] && break
        kill -0 "$qemu_pid" 2> /dev/null || { tail -5 "$work/server.log" >&2; fail "the arm64 server exited at start"; }
        sleep 0.1
    done
    [ "$("${https[@]}" "https://127.0.0.1:$port/livez")" = ok ] ||
        { tail -5 "$work/server.log" >&2; fail "the arm64 server's /livez did not answer ok over HTTPS within 20 s"; }
    # The web client, found beside the binary as in the image.
    if [ -s "$opt/web/index.html" ]; then
        code=$("${https[@]}" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$port/")
        [ "$code" = 200 ] || fail "the arm64 server answered $code for the web client's page"
    fi
    # The image's HEALTHCHECK command, under qemu too.
    out=$(qemu-aarch64-static "$server" health --port "$port" 2>&1) ||
        fail "twinstar-server health (arm64) said: $out"
    [[ "$out" == *"https://127.0.0.1:$port/livez: ok"* ]] || fail "twinstar-server health (arm64) said: $out"
    # Two native bots meet through it (wss, the test CA trusted).
    a=$(SSL_CERT_FILE="$work/tls/ca.pem" bot_match "wss://127.0.0.1:$port" "$work" ARM-64X)
    matches=$(curl -s "http://127.0.0.1:$metrics_port/metrics" | sed -n 's/^twinstar_matches_started_total \([0-9]*\).*/\1/p')
    [ "${matches:-0}" -ge 1 ] || fail "the arm64 server's metrics count no match (twinstar_matches_started_total: '${matches:-}')"

    # SIGTERM drains (nothing to wait for) and it exits with 0.
    kill -TERM "$qemu_pid"
    for _ in $(seq 150); do
        kill -0 "$qemu_pid" 2> /dev/null || break
        sleep 0.1
    done
    kill -0 "$qemu_pid" 2> /dev/null && fail "the arm64 server still ran 15 s after SIGTERM"
    code=0
    wait "$qemu_pid" || code=$?
    [ "$code" = 0 ] || { tail -3 "$work/server.log" >&2; fail "after SIGTERM the arm64 server exited with $code"; }
    echo "check-server-image: $image (arm64, archive $(du -k "$archive" | cut -f1) KiB): configuration arm64, uid 10001, HEALTHCHECK; its binary under qemu-aarch64-static served /livez over TLS, passed its own health command, a 300-frame match through it agreed ($a); SIGTERM exit 0 ($(($(date +%s) - started)) s)" >&2
}
