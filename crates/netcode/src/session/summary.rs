//! What a match reports for a game's `--json` summary: frames, checksums,
//! rollbacks, the link. A game prints it with its own figures beside it in
//! the same object (twinstar: the wave and the scores).

use serde::{Deserialize, Serialize};

use crate::replay::{Replay, Verification};
use crate::{Game, hex_checksum};

/// Where a player's `connect_ms` went, in milliseconds, each step from the
/// end of the one before: they add up to `connect_ms`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectBreakdown {
    /// The signaling websocket opened and the server gave us our id.
    pub signaling: u64,
    /// Until the partner's data channel opened: waiting for it to come,
    /// ICE, DTLS and the channels' opening.
    pub peer: u64,
    /// The latency handshake (and a rejoiner's catch-up).
    pub handshake: u64,
    /// GGRS's synchronisation with the peer.
    pub sync: u64,
    /// From synchronised to the first simulated frame.
    pub first_frame: u64,
}

impl ConnectBreakdown {
    /// The steps between `times` (the connector's), GGRS's `synced` and
    /// the `first_frame`; a step not seen takes no time.
    pub(crate) fn of(
        times: &crate::net::connect::ConnectTimes,
        synced: Option<web_time::Instant>,
        first_frame: web_time::Instant,
    ) -> ConnectBreakdown {
        // Whole milliseconds from the start, then their differences: the
        // steps add up to `connect_ms` exactly.
        let (mut at, mut at_ms) = (times.started, 0);
        let mut step = |end: Option<web_time::Instant>| {
            at = end.unwrap_or(at).max(at);
            let end_ms = at.duration_since(times.started).as_millis() as u64;
            let ms = end_ms - at_ms;
            at_ms = end_ms;
            ms
        };
        ConnectBreakdown {
            signaling: step(times.signaled),
            peer: step(times.channel_open),
            handshake: step(Some(times.agreed)),
            sync: step(synced.map(|s| s.min(first_frame))),
            first_frame: step(Some(first_frame)),
        }
    }
}

/// `signaling 6, peer 74, handshake 33, sync 12, first frame 6 (ms)`.
impl std::fmt::Display for ConnectBreakdown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ConnectBreakdown {
            signaling,
            peer,
            handshake,
            sync,
            first_frame,
        } = self;
        write!(
            f,
            "signaling {signaling}, peer {peer}, handshake {handshake}, \
             sync {sync}, first frame {first_frame} (ms)"
        )
    }
}

/// What any game's match reports. Deserialize is for readers of the line
/// (the tests parse every summary into these types, so a renamed or
/// retyped field fails them instead of comparing null with null); unknown
/// fields are refused for the same reason.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchSummary {
    /// `synctest`, `local`, online by role (`host`, `join`, `quick`),
    /// `watch` or `replay`.
    pub mode: String,
    /// Frames simulated (confirmed) in this run.
    pub frames: u32,
    /// The frame whose state `checksum` hashes.
    pub checksum_frame: u32,
    /// XXH3-128 of the world state at `checksum_frame`, 32 hex digits.
    pub checksum: String,
    /// Checksums that differed between the peers (online).
    pub desyncs: u32,
    /// Checksums that differed on re-simulation (synctest).
    pub mismatches: u32,
    /// Frames simulated again after a rollback (synctest's forced ones included).
    pub rollback_frames: u64,
    /// The input delay, in frames (online).
    pub input_delay: u32,
    /// The mean round trip to the other player, in milliseconds (online).
    pub rtt_ms: Option<f64>,
    /// Bytes sent to the other player.
    pub bytes_sent: u64,
    /// Bytes received from the other player.
    pub bytes_received: u64,
    /// The ICE path: `local`, `host`, `srflx`, `prflx` or `relay`.
    pub connection: String,
    /// The replay file written, if any.
    pub replay: Option<String>,
    /// Online: the telemetry sidecar written beside the replay
    /// (`replay::telemetry`), and its size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<String>,
    /// See `telemetry`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telemetry_bytes: Option<u64>,
    /// The match's seed.
    pub seed: u64,
    /// The rule preset played.
    pub preset: String,
    /// The synctest check distance, in synctest.
    pub check_distance: Option<usize>,
    // Online only (absent from local runs' JSON).
    /// Milliseconds from starting to connect to the first frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connect_ms: Option<u64>,
    /// Where `connect_ms` went.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connect_breakdown_ms: Option<ConnectBreakdown>,
    /// The latency as the player felt it over the match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub felt_latency: Option<super::FeltLatency>,
    /// RTT measured by the handshake probe; `rtt_ms` is the latest in-match one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handshake_rtt_ms: Option<f64>,
    /// The jitter of the round trips, in milliseconds (online).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jitter_ms: Option<f64>,
    /// Percent of the other peer's input messages lost on the way here
    /// over the match (net::loss; absent under 2 s of play), and the mean
    /// length of a run of them (1: every loss alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_pct: Option<f64>,
    /// The mean length of a run of lost input messages (with `loss_pct`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_burst: Option<f64>,
    /// Frames GGRS refused to advance because the peer was too far behind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stalled_frames: Option<u64>,
    /// How often the input delay changed mid-match (online).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_changes: Option<u32>,
    /// GGRS packets sent (online).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packets_sent: Option<u64>,
    /// GGRS packets received (online).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packets_received: Option<u64>,
    /// Datagrams on the GGRS channel that did not decode (dropped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packets_malformed: Option<u64>,
    /// Which player this machine was (1 or 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player: Option<u32>,
    /// Online: players who rejoined this match here (kept by this peer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejoins: Option<u32>,
    /// Online: reconnects over a fresh connection after the path died
    /// (a subset of `rejoins`, counted on both sides).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reconnects: Option<u32>,
    /// Online: bytes of the match so far sent to rejoining players, or
    /// received by this peer when it rejoined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catch_up_bytes: Option<u64>,
    /// Seconds from the first frame to the summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_s: Option<f64>,
    /// This peer's frames by how many frames GGRS re-simulated just before
    /// running them: entry i counts frames preceded by a rollback of i
    /// frames (the last entry: `MAX_PREDICTION` or more). Sums to `frames`
    /// give or take the end of the match; for rollback percentiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rollback_histogram: Option<Vec<u64>>,
    /// The input delay averaged over this peer's frames (auto retunes it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_input_delay: Option<f64>,
    /// Our chat lines sent to the peer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_sent: Option<u32>,
    /// The peer's chat lines accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_received: Option<u32>,
    /// The peer's chat messages dropped: too long, not printable, or over
    /// its rate limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_dropped: Option<u32>,
    /// Online: spectators this player streamed the match to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spectators: Option<u32>,
    /// Online: bytes of the match sent to spectators (control channel).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spectator_bytes_sent: Option<u64>,
    /// Watching: how far behind the players the spectator was at the end
    /// (the newest frame received minus the frame shown, in ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub behind_live_ms: Option<u64>,
    /// Watching: ms from starting to connect until the spectator had
    /// stepped through everything it was first sent (brought up to the
    /// present).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caught_up_ms: Option<u64>,
    /// Frames the pacer was asked to skip by GGRS's wait recommendations
    /// (time in which local input, like during a stall, is not taken).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_frames: Option<u64>,
    /// After a desync online: the report that explains it
    /// (`desync-CODE-FRAME-pN.json` beside the replay).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desync_report: Option<String>,
    /// The fields of the world that differed there, first few.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub desync_fields: Option<Vec<String>>,
    // Window runs only.
    /// Mean milliseconds per drawn frame (drawing through buffer swap).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw_ms_mean: Option<f64>,
    /// 99th percentile of the same.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw_ms_p99: Option<f64>,
    /// Median milliseconds per simulated frame: its advance, with the
    /// rollback (or synctest) re-simulation it asked for; drawing apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim_ms_p50: Option<f64>,
    /// 99th percentile of the same.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim_ms_p99: Option<f64>,
}

impl MatchSummary {
    /// Records the frontend's drawing time per frame: its mean and 99th percentile, in milliseconds.
    pub fn set_draw_ms(&mut self, mean: f64, p99: f64) {
        self.draw_ms_mean = Some(rounded(mean, 3));
        self.draw_ms_p99 = Some(rounded(p99, 3));
    }

    /// Records the simulation's time per frame apart from drawing: its
    /// median and 99th percentile, in milliseconds.
    pub fn set_sim_ms(&mut self, p50: f64, p99: f64) {
        self.sim_ms_p50 = Some(rounded(p50, 4));
        self.sim_ms_p99 = Some(rounded(p99, 4));
    }
}

/// `value` to `digits` decimals: what the summary's figures print with
/// (more would be noise, and would make the JSON line harder to read).
pub(crate) fn rounded(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

impl MatchSummary {
    /// What re-simulating the replay `file` (read as `replay`) gave.
    pub fn of_replay<G: Game<N>, const N: usize>(
        file: &str,
        replay: &Replay<G::Input, N>,
        verified: &Verification<G::State>,
    ) -> MatchSummary {
        MatchSummary {
            mode: "replay".into(),
            frames: verified.frames,
            checksum_frame: G::frame(&verified.state),
            checksum: hex_checksum(G::checksum(&verified.state)),
            mismatches: u32::from(verified.first_mismatch.is_some()),
            connection: "local".into(),
            replay: Some(file.to_string()),
            seed: replay.header.seed,
            preset: replay.header.preset.clone(),
            input_delay: replay.header.input_delay,
            ..MatchSummary::default()
        }
    }
}
