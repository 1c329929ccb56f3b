#!/usr/bin/env bash
# A real Prometheus scrapes a running server (issue 47), and the operator's
# monitoring files are checked against what the server exports.
#
#   scripts/check-prometheus.sh
#
# - `promtool check rules` and `promtool test rules` on
#   deploy/prometheus/alerts.yml (and its tests, alerts.test.yml);
# - `twinstar serve` (the test binary $TWINSTAR_BIN, default
#   target/debug/twinstar) on free loopback ports, its metrics on a
#   listener of their own; two headless bots play one short match through
#   it (each reports its connect to the server when the match starts);
# - Prometheus (Debian's package) with a generated config scraping that
#   listener every second, the alert rules loaded, in a temporary storage
#   directory; its HTTP API (/api/v1/query) is asked until
#   twinstar_build_info, twinstar_matches_by_path_total (1 direct),
#   twinstar_client_connect_seconds_count and
#   twinstar_time_to_pair_seconds_count return series, and /api/v1/rules
#   lists the alert rules;
# - deploy/grafana/twinstar.json and the rules name only metrics the
#   server's /metrics answer carries (scripts/check-metric-names.py).
# One line on success; on failure one FAILED line saying what. ~15 s.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."
# shellcheck source=lib/free-port.sh
source scripts/lib/free-port.sh
# shellcheck source=lib/local-server.sh
source scripts/lib/local-server.sh

fail() {
    echo "check-prometheus: FAILED: $*" >&2
    exit 1
}
for tool in prometheus promtool curl python3; do
    command -v "$tool" > /dev/null || fail "no $tool (apt-get install prometheus curl python3: scripts/lib/debian-packages.sh DEBIAN_MONITORING)"
done
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
bin=${TWINSTAR_BIN:-$target_dir/debug/twinstar}
[ -x "$bin" ] || fail "no twinstar binary at $bin (cargo build, or set TWINSTAR_BIN)"
rules=$PWD/deploy/prometheus/alerts.yml
started=$(date +%s)

promtool check rules "$rules" > /dev/null 2>&1 ||
    fail "promtool check rules $rules: $(promtool check rules "$rules" 2>&1 | grep -v '^Checking' | tr '\n' ' ')"
(cd deploy/prometheus && promtool test rules alerts.test.yml > /dev/null 2>&1) ||
    fail "promtool test rules deploy/prometheus/alerts.test.yml: $(cd deploy/prometheus && promtool test rules alerts.test.yml 2>&1 | grep -vE '^(Unit Testing|  SUCCESS)' | tr -s '\n ' ' ' | cut -c1-400)"

work=$(mktemp -d)
prom=""
cleanup() {
    # Only the processes this script started, by their ids.
    for pid in $prom; do kill "$pid" 2> /dev/null || true; done
    for pid in $prom; do wait "$pid" 2> /dev/null || true; done
    local_server_stop
    rm -rf "$work"
}
trap cleanup EXIT

# The server on ports the system picks, read back from its log
# (scripts/lib/local-server.sh), its metrics on a listener of their own.
local_server_start "$bin" "$work" --metrics-bind 127.0.0.1:0 ||
    fail "$LOCAL_SERVER_ERROR"
addr=$LOCAL_SERVER_URL metrics=$LOCAL_SERVER_METRICS

# Prometheus: its own free port (it cannot report one it picked), a short
# scrape interval, the alert rules loaded as an operator would.
port=$(free_port)
cat > "$work/prometheus.yml" << YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: ["$rules"]
scrape_configs:
  - job_name: twinstar
    static_configs: [{targets: ["$metrics"]}]
YAML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
    --web.listen-address="127.0.0.1:$port" > "$work/prometheus.log" 2>&1 &
prom=$!

# One short bot match through the server: 120 frames, 2 s of play.
room=PRM-2XM
common=(--server "$addr" --stun none --headless --bot --frames 120 --json --timeout 15 --no-record)
(cd "$work" && exec timeout -k 3 60 "$bin" host --room "$room" "${common[@]}" > host.out 2> host.err) &
host=$!
sleep 0.2
(cd "$work" && exec timeout -k 3 60 "$bin" join "$room" "${common[@]}" > join.out 2> join.err) &
join=$!
wait "$host" || fail "the host's match failed: $(tail -n 1 "$work/host.err")"
wait "$join" || fail "the joiner's match failed: $(tail -n 1 "$work/join.err")"

curl -sf "http://$metrics/metrics" > "$work/metrics.txt" || fail "no /metrics on the server's metrics listener $metrics"
python3 scripts/check-metric-names.py "$work/metrics.txt" deploy/grafana/twinstar.json "$rules" 2> "$work/names.err" ||
    fail "$(head -n 1 "$work/names.err" | sed 's/^check-metric-names: //')"

# Ask until each query returns a series (a scrape a second; 30 s at most).
python3 - "http://127.0.0.1:$port" "$prom" > "$work/queries.out" 2>&1 << 'PY' ||
import json, os, sys, time, urllib.parse, urllib.request
base, pid = sys.argv[1], int(sys.argv[2])
wanted = {
    "twinstar_build_info": None,
    'twinstar_matches_by_path_total{path="direct"}': 1.0,
    "twinstar_client_connect_seconds_count": 1.0,
    "twinstar_time_to_pair_seconds_count": 1.0,
}
def ask(path):
    with urllib.request.urlopen(base + path, timeout=2) as r:
        return json.load(r)["data"]
deadline, last = time.time() + 30, {}
while time.time() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("prometheus ended (see its log)")
    try:
        for query, value in wanted.items():
            result = ask("/api/v1/query?" + urllib.parse.urlencode({"query": query}))["result"]
            last[query] = [float(s["value"][1]) for s in result]
        if all(last[q] and (v is None or last[q] == [v]) for q, v in wanted.items()):
            groups = ask("/api/v1/rules")["groups"]
            alerts = [r["name"] for g in groups for r in g["rules"] if r["type"] == "alerting"]
            if not alerts:
                sys.exit("prometheus loaded no alert rules from deploy/prometheus/alerts.yml")
            print(f"{len(wanted)} queries answered, {len(alerts)} alert rules loaded")
            sys.exit(0)
    except (OSError, ValueError, KeyError):
        pass  # not up yet, or no answer this time
    time.sleep(0.5)
missing = [f"{q} = {last.get(q) or 'no series'}" for q, v in wanted.items()
           if not last.get(q) or (v is not None and last[q] != [v])]
sys.exit("after 30 s: " + "; ".join(missing))
PY
    fail "Prometheus's API: $(tail -n 1 "$work/queries.out")$(grep -m1 -iE 'level=(error|warn)' "$work/prometheus.log" | cut -c1-200 | sed 's/^/ (prometheus: /; s/$/)/')"

echo "check-prometheus: ok in $(($(date +%s) - started)) s: Prometheus $(prometheus --version 2>&1 | head -n 1 | awk '{print $3}') scraped twinstar serve: $(cat "$work/queries.out"); the dashboard and the rules name only exported metrics"
