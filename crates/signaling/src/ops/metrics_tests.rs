use super::*;

#[test]
fn counters_and_gauges_appear_in_the_exposition() {
    let m = Metrics::default();
    m.client_connected();
    m.client_connected();
    m.client_disconnected();
    m.observed(Observed::Paired {
        waited: Some(web_time::Duration::from_millis(1_500)),
    });
    m.refused(RefusalReason::RoomFull);
    m.refused(RefusalReason::RoomFull);
    m.refused(RefusalReason::Silent);
    m.turn_credential_issued();
    m.received(10);
    m.sent(7);
    m.sent(5);
    m.set_draining(true);
    let text = m.render(RoomCounts {
        waiting: 3,
        full: 4,
        spectators: 2,
        public: 1,
    });
    assert_eq!(sample(&text, "twinstar_public_rooms"), Some(1.0), "{text}");
    assert_eq!(sample(&text, "twinstar_clients"), Some(1.0), "{text}");
    assert_eq!(
        sample(&text, r#"twinstar_rooms{state="waiting"}"#),
        Some(3.0)
    );
    assert_eq!(sample(&text, r#"twinstar_rooms{state="full"}"#), Some(4.0));
    assert_eq!(sample(&text, "twinstar_spectators"), Some(2.0));
    assert_eq!(sample(&text, "twinstar_draining"), Some(1.0));
    assert_eq!(sample(&text, "twinstar_matches_started_total"), Some(1.0));
    assert_eq!(
        sample(&text, r#"twinstar_refusals_total{reason="room_full"}"#),
        Some(2.0)
    );
    assert_eq!(
        sample(&text, r#"twinstar_refusals_total{reason="silent"}"#),
        Some(1.0)
    );
    assert_eq!(
        sample(&text, "twinstar_turn_credentials_issued_total"),
        Some(1.0)
    );
    assert_eq!(
        sample(&text, r#"twinstar_ws_bytes_total{direction="out"}"#),
        Some(12.0)
    );
    assert_eq!(
        sample(&text, r#"twinstar_ws_messages_total{direction="in"}"#),
        Some(1.0)
    );
    assert!(text.contains("# TYPE twinstar_clients gauge"), "{text}");
    assert!(text.trim_end().ends_with("# EOF"));
}

#[test]
fn build_info_and_histograms_render_with_their_labels_and_buckets() {
    use web_time::Duration;
    let m = Metrics::default();
    let text = m.render(RoomCounts::default());
    let build = format!(r#"twinstar_build_info{{version="{VERSION}",commit="{COMMIT}"}}"#);
    assert_eq!(sample(&text, &build), Some(1.0), "{text}");
    assert!(text.contains("# TYPE twinstar_build_info gauge"), "{text}");
    for name in ["time_to_pair_seconds", "negotiation_seconds"] {
        assert!(
            text.contains(&format!("# TYPE twinstar_{name} histogram")),
            "{text}"
        );
        assert_eq!(sample(&text, &format!("twinstar_{name}_count")), Some(0.0));
    }
    m.observed(Observed::Paired {
        waited: Some(Duration::from_secs(3)),
    });
    m.observed(Observed::Paired {
        waited: Some(Duration::from_millis(300)),
    });
    // A partner who came back: a match, not a wait.
    m.observed(Observed::Paired { waited: None });
    m.observed(Observed::Negotiated {
        took: Duration::from_millis(30),
    });
    let text = m.render(RoomCounts::default());
    assert_eq!(sample(&text, "twinstar_matches_started_total"), Some(3.0));
    let pair = |s: &str| sample(&text, &format!("twinstar_time_to_pair_seconds_{s}"));
    assert_eq!(pair("count"), Some(2.0), "{text}");
    assert_eq!(pair("sum"), Some(3.3));
    assert_eq!(pair(r#"bucket{le="0.5"}"#), Some(1.0), "{text}");
    assert_eq!(pair(r#"bucket{le="2.5"}"#), Some(1.0));
    assert_eq!(pair(r#"bucket{le="5.0"}"#), Some(2.0));
    assert_eq!(pair(r#"bucket{le="+Inf"}"#), Some(2.0));
    let nego = |s: &str| sample(&text, &format!("twinstar_negotiation_seconds_{s}"));
    assert_eq!(nego("count"), Some(1.0));
    assert_eq!(nego(r#"bucket{le="0.02"}"#), Some(0.0), "{text}");
    assert_eq!(nego(r#"bucket{le="0.04"}"#), Some(1.0), "{text}");
}

#[test]
fn connect_reports_count_matches_by_path_and_time_connects() {
    use web_time::Duration;
    let m = Metrics::default();
    let text = m.render(RoomCounts::default());
    assert_eq!(
        sample(&text, r#"twinstar_refusals_total{reason="kicked"}"#),
        Some(0.0),
        "every reason exists before its first refusal"
    );
    // Both paths exist at 0 before any match: a share can be computed.
    for path in ["direct", "relay"] {
        let name = format!(r#"twinstar_matches_by_path_total{{path="{path}"}}"#);
        assert_eq!(sample(&text, &name), Some(0.0), "{text}");
    }
    assert!(
        text.contains("# TYPE twinstar_client_connect_seconds histogram"),
        "{text}"
    );
    assert!(text.contains("# TYPE twinstar_matches_by_path counter"));
    let host = ConnectCounted {
        path: Some(ConnectPath::Relay),
        connect: None,
    };
    let joiner = ConnectCounted {
        path: None,
        connect: Some(Duration::from_millis(1_800)),
    };
    m.connect_reported(host);
    m.connect_reported(joiner);
    m.connect_reported(ConnectCounted {
        path: Some(ConnectPath::Direct),
        connect: Some(Duration::from_millis(400)),
    });
    m.connect_reported(ConnectCounted::default());
    let text = m.render(RoomCounts::default());
    let by = |path: &str| {
        sample(
            &text,
            &format!(r#"twinstar_matches_by_path_total{{path="{path}"}}"#),
        )
    };
    assert_eq!(
        (by("direct"), by("relay")),
        (Some(1.0), Some(1.0)),
        "{text}"
    );
    let connect = |s: &str| sample(&text, &format!("twinstar_client_connect_seconds_{s}"));
    assert_eq!(connect("count"), Some(2.0), "{text}");
    assert_eq!(connect("sum"), Some(2.2));
    assert_eq!(connect(r#"bucket{le="0.25"}"#), Some(0.0));
    assert_eq!(connect(r#"bucket{le="0.5"}"#), Some(1.0));
    assert_eq!(connect(r#"bucket{le="1.5"}"#), Some(1.0));
    assert_eq!(connect(r#"bucket{le="2.0"}"#), Some(2.0));
    assert_eq!(connect(r#"bucket{le="+Inf"}"#), Some(2.0));
}
