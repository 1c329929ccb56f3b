# Verdict of scripts/nat-testbed.sh from the two peers' summaries.
# Inputs ($args): $scenario, $expect (direct | relay | fail), $mode (game |
# probe), $turn, $a and $b (see peer_summary), $limit_ms and $host_limit_ms
# (how long the joiner b and the host a may take to give up), $notice_ms and
# $host_waiting (when the host said that a player reached the room without a
# path, and whether it was still waiting then; null when not looked for),
# $notice_limit_ms, $logs.
def conn($p): $p.json.connection // null;
def good($p): $p.rc == 0 and $p.json != null and (($p.json | has("ok") | not) or $p.json.ok == true);
def clean_failure($p; $limit):
    $p.rc != null and $p.rc != 0 and $p.rc != 124 and $p.rc != 137 and $p.rc < 100
    and $p.elapsed_ms != null and $p.elapsed_ms <= $limit and $p.error != null;
def notice_ok: $mode != "game" or ($notice_ms != null and $notice_ms <= $notice_limit_ms and $host_waiting == true);
def checksums_equal:
    if $mode != "game" or ($a.json == null) or ($b.json == null) then null
    else ($a.json.checksum != null and $a.json.checksum == $b.json.checksum
          and $a.json.checksum_frame == $b.json.checksum_frame)
    end;
def desyncs: [($a.json.desyncs // 0), ($b.json.desyncs // 0)] | add;
def connect_ms: [$a.json.connect_ms, $b.json.connect_ms] | map(select(. != null)) | max;

(if $expect == "fail" then
    if (good($a) and good($b)) then
        {ok: false, reason: "expected no connection, but the peers connected via \(conn($a))"}
    elif (clean_failure($a; $host_limit_ms) and clean_failure($b; $limit_ms) | not) then
        {ok: false, reason: "expected both peers to exit 1 with a message (b within \($limit_ms) ms, a within \($host_limit_ms) ms); got a rc=\($a.rc) after \($a.elapsed_ms) ms, b rc=\($b.rc) after \($b.elapsed_ms) ms"}
    elif notice_ok | not then
        {ok: false, reason: "the host did not say, within \($notice_limit_ms) ms and while still waiting, that a player reached the room without a path (seen after \($notice_ms) ms, host waiting: \($host_waiting))"}
    elif $mode == "game" then
        {ok: true, reason: "no direct path and no relay: the joiner gave up, the host said so after \($notice_ms) ms and kept waiting, then both exited cleanly as expected"}
    else
        {ok: true, reason: "no direct path and no relay: both peers gave up cleanly as expected"}
    end
 elif (good($a) | not) or (good($b) | not) then
    {ok: false, reason: "a peer failed: a rc=\($a.rc) (\($a.error)), b rc=\($b.rc) (\($b.error))"}
 elif $expect == "direct" and ([conn($a), conn($b)] | any(. == null or . == "relay" or . == "unknown")) then
    {ok: false, reason: "expected a direct connection, got a=\(conn($a)) b=\(conn($b))"}
 elif $expect == "relay" and ([conn($a), conn($b)] | any(. != "relay")) then
    {ok: false, reason: "expected a relayed connection, got a=\(conn($a)) b=\(conn($b))"}
 elif $mode == "game" and checksums_equal != true then
    {ok: false, reason: "checksums differ: a \($a.json.checksum)@\($a.json.checksum_frame), b \($b.json.checksum)@\($b.json.checksum_frame)"}
 elif $mode == "game" and desyncs != 0 then
    {ok: false, reason: "\(desyncs) desyncs reported"}
 else
    {ok: true, reason: "connected via \(conn($a))/\(conn($b)) as expected (\($expect))"}
 end) as $v
| {scenario: $scenario, ok: $v.ok,
   connection: (if $expect == "fail" then null else (conn($a) // conn($b)) end),
   connect_ms: (if $expect == "fail" then null else connect_ms end),
   checksums_equal: checksums_equal, turn: $turn, mode: $mode, expected: $expect,
   host_notice_ms: $notice_ms,
   reason: $v.reason, a: $a, b: $b, logs: $logs}
