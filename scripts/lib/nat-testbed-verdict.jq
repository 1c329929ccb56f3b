# Verdict of scripts/nat-testbed.sh from the two peers' summaries.
# Inputs ($args): $scenario, $expect (direct | relay | fail), $mode (game |
# probe), $turn, $a and $b (see peer_summary), $limit_ms and $host_limit_ms
# (how long the joiner b and the host a may take to give up), $notice_ms and
# $host_waiting (when the host said that a player reached the room without a
# path, and whether it was still waiting then; null when not looked for),
# $notice_limit_ms, $logs; $cut (null without --cut, else what
# scripts/nat-testbed.sh measured around the cut: see cut_peer_facts and
# replay_checks in nat-testbed-lib.sh).
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
def both(f): [$cut.a, $cut.b] | map(f);
# A cut shorter than the reconnect window: the base verdict (both exit 0,
# connection, equal checksums, no desyncs) must hold, and both peers logged
# the interruption after the cut began and the resumption, and the replays
# verify and do not differ.
def cut_resume_verdict($base):
    if $cut.error != null then {ok: false, reason: "cut: \($cut.error)"}
    elif $base.ok | not then $base
    elif both(.interrupted_after_ms) | any(. == null) then
        {ok: false, reason: "a peer did not log the interruption after the cut began: a \($cut.a.interrupted_after_ms), b \($cut.b.interrupted_after_ms)"}
    elif both(.resumed_after_ms) | any(. == null) then
        {ok: false, reason: "a peer did not log the resumption: a \($cut.a.resumed_after_ms), b \($cut.b.resumed_after_ms)"}
    elif $cut.moved != null and ([$a.json.reconnects, $b.json.reconnects] | any(. == null or . < 1)) then
        {ok: false, reason: "the moved side's old addresses are gone, so play can only resume over a new connection; reconnects: a \($a.json.reconnects), b \($b.json.reconnects)"}
    elif [$cut.replays.a_verify_rc, $cut.replays.b_verify_rc, $cut.replays.diff_rc] != [0, 0, 0] then
        {ok: false, reason: "replays: verify a rc=\($cut.replays.a_verify_rc), b rc=\($cut.replays.b_verify_rc), replay-diff rc=\($cut.replays.diff_rc) (0, 0, 0 expected)"}
    else
        {ok: true, reason: "\($cut.cut_s) s cut of NAT \($cut.side)\(if $cut.moved != null then " (moved: host \($cut.moved.host), NAT \($cut.moved.nat))" elif $cut.path_only then " (the peers' path only)" else "" end): both paused and resumed (after \($cut.a.resumed_after_ms)/\($cut.b.resumed_after_ms) ms without packets, \($cut.a.restored_to_resumed_ms)/\($cut.b.restored_to_resumed_ms) ms after the link came back), equal checksums, replays verify and match; \($base.reason)"}
    end;
# A cut longer than the window: both exit 1 (not a kill, not a panic)
# with "stopped responding", within window + grace after the cut began.
def cut_end_verdict:
    if $cut.error != null then {ok: false, reason: "cut: \($cut.error)"}
    elif [$a.rc, $b.rc] != [1, 1] then
        {ok: false, reason: "expected both peers to exit 1 after a \($cut.cut_s) s cut with a \($cut.reconnect_window_s) s window; got a rc=\($a.rc) (\($a.error)), b rc=\($b.rc) (\($b.error))"}
    elif both(.stopped_responding) | any(. != true) then
        {ok: false, reason: "a peer did not say it gave up waiting ('stopped responding', 'could not reconnect within' or 'did not rejoin within'): a \($cut.a.stopped_responding) (\($a.error)), b \($cut.b.stopped_responding) (\($b.error))"}
    elif both(.ended_after_cut_ms) | any(. == null or . < 0 or . > $cut.end_limit_ms) then
        {ok: false, reason: "both peers must end within \($cut.end_limit_ms) ms after the cut began; a after \($cut.a.ended_after_cut_ms) ms, b after \($cut.b.ended_after_cut_ms) ms"}
    else
        {ok: true, reason: "\($cut.cut_s) s cut of NAT \($cut.side), \($cut.reconnect_window_s) s window: both gave up waiting and exited 1 \($cut.a.ended_after_cut_ms)/\($cut.b.ended_after_cut_ms) ms after the cut began, as expected"}
    end;

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
 end) as $base
| (if $cut == null then $base
   elif $cut.expect == "end" then cut_end_verdict
   else cut_resume_verdict($base) end) as $v
| {scenario: $scenario, ok: $v.ok,
   connection: (if $expect == "fail" then null else (conn($a) // conn($b)) end),
   connect_ms: (if $expect == "fail" then null else connect_ms end),
   checksums_equal: checksums_equal, turn: $turn, mode: $mode, expected: $expect,
   host_notice_ms: $notice_ms}
| if $cut == null then . else . + {
   cut_s: $cut.cut_s, cut_at_s: $cut.cut_at_s, cut_side: $cut.side, moved: $cut.moved,
   reconnect_window_s: $cut.reconnect_window_s, cut_expect: $cut.expect, cut_ms: $cut.cut_ms,
   dropped_pkts: $cut.dropped,
   interrupted_after_ms: {a: $cut.a.interrupted_after_ms, b: $cut.b.interrupted_after_ms},
   resumed_after_ms: {a: $cut.a.resumed_after_ms, b: $cut.b.resumed_after_ms},
   restored_to_resumed_ms: {a: $cut.a.restored_to_resumed_ms, b: $cut.b.restored_to_resumed_ms},
   restored_to_first_resumed_ms: (both(.restored_to_resumed_ms) | map(select(. != null)) | min),
   ended_after_cut_ms: {a: $cut.a.ended_after_cut_ms, b: $cut.b.ended_after_cut_ms},
   end_limit_ms: $cut.end_limit_ms,
   stopped_responding: {a: $cut.a.stopped_responding, b: $cut.b.stopped_responding},
   replays: $cut.replays, cut_error: $cut.error} end
| . + {reason: $v.reason, a: $a, b: $b, logs: $logs}
