//! What a match's players tell the server about their connect, as an
//! operator reads it: two headless bots play through `twinstar serve`, and
//! its metrics listener shows one match on the direct path and the
//! joiner's connect time (`POST /rooms/CODE/connected`).

use std::time::{Duration, Instant};

use crate::common::{LIMIT, Server, host_then_join, scratch};

#[test]
fn a_direct_match_is_counted_by_path_with_its_connect_time() {
    let server = Server::start();
    let dir = scratch("match-metrics");
    let (host, join) = host_then_join(
        &dir,
        &server.url,
        ("MTR-2XM", "mtr2xm"),
        "120",
        &["--no-record"],
        &["--no-record"],
    );
    let (host, join) = (host.finish(LIMIT), join.finish(LIMIT));
    assert_eq!(host.code(), Some(0), "{}", host.report("host", 30));
    assert_eq!(join.code(), Some(0), "{}", join.report("join", 30));
    // Loopback without STUN: host candidates (or peer-reflexive, when a
    // connectivity check comes before the candidate it is from), which the
    // server counts as direct.
    for (name, finished) in [("host", &host), ("join", &join)] {
        let summary = finished.summary();
        let connection = summary["connection"].as_str().unwrap_or_default();
        assert!(
            ["host", "prflx"].contains(&connection),
            "{name}: {connection}: {}",
            finished.report(name, 20)
        );
    }
    let direct = r#"twinstar_matches_by_path_total{path="direct"}"#;
    let ok = r#"twinstar_room_requests_total{action="connected",outcome="ok"}"#;
    // The reports go out off the game's loop at the first frame: they
    // have arrived long before a 2-second match ends, but wait a little.
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.metric(ok) != Some(2.0) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let metric = |name: &str| server.metric(name);
    let why = || {
        format!(
            "server:\n{}\n{}{}",
            crate::common::tail(&server.stderr(), 20),
            host.report("host", 20),
            join.report("join", 20)
        )
    };
    assert_eq!(metric(ok), Some(2.0), "both players report: {}", why());
    assert_eq!(metric(direct), Some(1.0), "one match, counted once");
    assert_eq!(
        metric(r#"twinstar_matches_by_path_total{path="relay"}"#),
        Some(0.0)
    );
    assert_eq!(metric("twinstar_matches_started_total"), Some(1.0));
    // One connect timed: the joiner's (the host's holds its wait).
    assert_eq!(metric("twinstar_client_connect_seconds_count"), Some(1.0));
    let joined_s = join.summary()["connect_ms"].as_f64().unwrap() / 1000.0;
    let sum = metric("twinstar_client_connect_seconds_sum").unwrap();
    assert!(
        (sum - joined_s).abs() < 0.0015,
        "the joiner's {joined_s} s, timed {sum} s"
    );
    assert_eq!(metric("twinstar_time_to_pair_seconds_count"), Some(1.0));
}
