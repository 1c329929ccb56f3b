//! What an operator watches: `GET /metrics` in Prometheus' text format.
//! Counters are bumped where things happen (cheap atomics); the room gauges
//! are read from the registry when scraped, so they can never drift; the
//! histograms time what the registry observed ([`Observed`]).
//!
//! The path a match's peers took (direct or through the TURN relay) and
//! how long they took to connect are the clients' word: ICE picks the path
//! between the peers after the last signal has passed, so only they know.
//! Each player reports them once its match has started (`POST
//! /rooms/CODE/connected`, `registry::connect_reports` says which report
//! counts what); an older client reports nothing, so
//! `twinstar_matches_by_path_total` adds up to at most
//! `twinstar_matches_started_total`. Quick matches have no room code to
//! report to and are not counted by path.

use std::sync::Arc;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry as MetricRegistry;

use crate::ops::observed::{ConnectCounted, Observed};
use twinstar_signaling_protocol::ConnectPath;

/// The version `twinstar_build_info` reports: the crate's.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The commit it was built from, when the build said (`TWINSTAR_COMMIT`
/// in the environment of `cargo build`, as a release script would set
/// it); `unknown` otherwise.
pub const COMMIT: &str = match option_env!("TWINSTAR_COMMIT") {
    Some(commit) => commit,
    None => "unknown",
};

/// Time to pair, in seconds: a room code read aloud and typed takes
/// seconds to a minute; quick match pairs anyone after 10 s; a host who
/// waits for a friend can wait for half an hour.
const PAIR_BUCKETS: [f64; 12] = [
    0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 1800.0,
];

/// A client's connect, in seconds, from opening the room's websocket to
/// the first frame: about a second on a LAN, 1.5 to 4 s through NATs and
/// the relay; past 10 s something is wrong (the clients give up at 30 s,
/// a host's figure can be longer: it holds its wait, and is not timed).
const CONNECT_BUCKETS: [f64; 12] = [
    0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 60.0,
];

/// Offer to answer, in seconds: a few ms on loopback, tens to hundreds of
/// ms on the internet, seconds when a peer is slow to gather candidates.
fn negotiation_buckets() -> impl Iterator<Item = f64> {
    // 5 ms to ~10 s, doubling.
    exponential_buckets(0.005, 2.0, 12)
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BuildLabel {
    version: String,
    commit: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Reason {
    reason: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Direction {
    direction: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PathLabel {
    path: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RoomRequestLabel {
    action: String,
    outcome: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RoomStateLabel {
    state: String,
}

/// Why a client was turned away, as a metric label (a new reason goes
/// into [`RefusalReason::ALL`] too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusalReason {
    RoomFull,
    TooManySpectators,
    BadRoom,
    /// A `seat` parameter that is not a seat token.
    BadSeat,
    /// Another query parameter that does not parse (a name, a version...).
    BadQuery,
    Draining,
    TooManyFromAddress,
    /// Sent nothing (not even a pong) for the idle limit.
    Silent,
    /// A spectator its room's host removed, back too soon.
    Kicked,
}

impl RefusalReason {
    /// Every reason, each a series from the start.
    const ALL: [RefusalReason; 9] = [
        RefusalReason::RoomFull,
        RefusalReason::TooManySpectators,
        RefusalReason::BadRoom,
        RefusalReason::BadSeat,
        RefusalReason::BadQuery,
        RefusalReason::Draining,
        RefusalReason::TooManyFromAddress,
        RefusalReason::Silent,
        RefusalReason::Kicked,
    ];

    fn label(self) -> &'static str {
        match self {
            RefusalReason::RoomFull => "room_full",
            RefusalReason::TooManySpectators => "too_many_spectators",
            RefusalReason::BadRoom => "bad_room",
            RefusalReason::BadSeat => "bad_seat",
            RefusalReason::BadQuery => "bad_query",
            RefusalReason::Draining => "draining",
            RefusalReason::TooManyFromAddress => "too_many_from_address",
            RefusalReason::Silent => "silent",
            RefusalReason::Kicked => "kicked",
        }
    }
}

/// Room counts at scrape time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoomCounts {
    /// Rooms with one player, waiting for the other.
    pub waiting: usize,
    /// Rooms with both players.
    pub full: usize,
    pub spectators: usize,
    /// Rooms listed in `GET /rooms` (a count: no room code is a label).
    pub public: usize,
}

/// The server's counters; cloned handles share them.
#[derive(Clone)]
pub struct Metrics(Arc<Inner>);

struct Inner {
    registry: MetricRegistry,
    clients: Gauge,
    public_rooms: Gauge,
    directory_up: Gauge,
    rooms: Family<RoomStateLabel, Gauge>,
    spectators: Gauge,
    draining: Gauge,
    matches_started: Counter,
    seats_taken_back: Counter,
    refusals: Family<Reason, Counter>,
    turn_credentials: Counter,
    messages: Family<Direction, Counter>,
    bytes: Family<Direction, Counter>,
    room_requests: Family<RoomRequestLabel, Counter>,
    time_to_pair: Histogram,
    negotiation: Histogram,
    client_connect: Histogram,
    matches_by_path: Family<PathLabel, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = MetricRegistry::with_prefix("twinstar");
        let inner = Inner {
            clients: Gauge::default(),
            rooms: Family::default(),
            spectators: Gauge::default(),
            draining: Gauge::default(),
            public_rooms: Gauge::default(),
            directory_up: Gauge::default(),
            matches_started: Counter::default(),
            seats_taken_back: Counter::default(),
            refusals: Family::default(),
            turn_credentials: Counter::default(),
            messages: Family::default(),
            bytes: Family::default(),
            room_requests: Family::default(),
            time_to_pair: Histogram::new(PAIR_BUCKETS),
            negotiation: Histogram::new(negotiation_buckets()),
            client_connect: Histogram::new(CONNECT_BUCKETS),
            matches_by_path: Family::default(),
            registry: MetricRegistry::default(),
        };
        start_at_zero(&inner);
        register(&mut registry, &inner);
        Metrics(Arc::new(Inner { registry, ..inner }))
    }
}

// Both paths and every refusal reason from the start, at 0: a rate, a
// relay share or an alert has a series to read before the first match of
// each kind or the first refusal (an empty family is not even named in the
// exposition).
fn start_at_zero(inner: &Inner) {
    for path in [ConnectPath::Direct, ConnectPath::Relay] {
        let label = PathLabel {
            path: path.word().to_owned(),
        };
        inner.matches_by_path.get_or_create(&label).inc_by(0);
    }
    for reason in RefusalReason::ALL {
        let label = Reason {
            reason: reason.label().to_owned(),
        };
        inner.refusals.get_or_create(&label).inc_by(0);
    }
}

/// Names every series (the exposition lists them in this order: the
/// build, how long connecting takes, what is connected now, then the
/// counts since start).
fn register(registry: &mut MetricRegistry, inner: &Inner) {
    register_build(registry);
    register_timings(registry, inner);
    register_gauges(registry, inner);
    register_counters(registry, inner);
}

/// `build_info`: which version and commit is running.
fn register_build(registry: &mut MetricRegistry) {
    let build: Family<BuildLabel, Gauge> = Family::default();
    build
        .get_or_create(&BuildLabel {
            version: VERSION.to_owned(),
            commit: COMMIT.to_owned(),
        })
        .set(1);
    registry.register(
        "build_info",
        "1, labelled with the server's version and the commit it was built from",
        build,
    );
}

/// How long pairing and connecting take, and by which path matches connect.
fn register_timings(registry: &mut MetricRegistry, inner: &Inner) {
    registry.register(
        "time_to_pair_seconds",
        "How long a room's first player waited alone until the second arrived (by code or quick match)",
        inner.time_to_pair.clone(),
    );
    registry.register(
        "negotiation_seconds",
        "From a room's pairing until the second player's WebRTC answer was relayed: the part of connecting this server sees",
        inner.negotiation.clone(),
    );
    registry.register(
        "client_connect_seconds",
        "Connect time a match's second player reported: from opening the room's websocket to the first frame",
        inner.client_connect.clone(),
    );
    registry.register(
        "matches_by_path",
        "Matches by the path their players reported: direct (host, srflx, prflx) or relay (TURN)",
        inner.matches_by_path.clone(),
    );
}

/// What the server holds now: clients, rooms, spectators, its state.
fn register_gauges(registry: &mut MetricRegistry, inner: &Inner) {
    registry.register(
        "clients",
        "Websockets connected now (players and spectators)",
        inner.clients.clone(),
    );
    registry.register(
        "rooms",
        "Rooms by state: waiting (one player) or full (both players)",
        inner.rooms.clone(),
    );
    registry.register(
        "directory_up",
        "1 while the shared room directory (--directory) answers, 0 while it does not; 1 without one",
        inner.directory_up.clone(),
    );
    registry.register(
        "public_rooms",
        "Rooms listed in GET /rooms now (their hosts asked for it)",
        inner.public_rooms.clone(),
    );
    registry.register(
        "spectators",
        "Spectators seated now",
        inner.spectators.clone(),
    );
    registry.register(
        "draining",
        "1 while the server drains before exiting (no new clients)",
        inner.draining.clone(),
    );
}

/// What happened since start: matches, seats, refusals, traffic, requests.
fn register_counters(registry: &mut MetricRegistry, inner: &Inner) {
    registry.register(
        "matches_started",
        "Rooms whose second player arrived",
        inner.matches_started.clone(),
    );
    registry.register(
        "seats_taken_back",
        "Seats a player's new connection took back from its stale one (seat token)",
        inner.seats_taken_back.clone(),
    );
    registry.register(
        "refusals",
        "Clients turned away or closed, by reason",
        inner.refusals.clone(),
    );
    registry.register(
        "turn_credentials_issued",
        "TURN REST credentials minted (GET /ice)",
        inner.turn_credentials.clone(),
    );
    registry.register(
        "ws_messages",
        "Websocket messages, by direction (in: from clients)",
        inner.messages.clone(),
    );
    registry.register(
        "ws_bytes",
        "Websocket payload bytes, by direction (in: from clients)",
        inner.bytes.clone(),
    );
    registry.register(
        "room_requests",
        "Rooms' requests (POST /rooms/CODE/ACTION: stats, kick, report, connected) by action and outcome (ok, refused, bad_request, failed)",
        inner.room_requests.clone(),
    );
}

impl Metrics {
    pub fn client_connected(&self) {
        self.0.clients.inc();
    }

    pub fn client_disconnected(&self) {
        self.0.clients.dec();
    }

    /// What the registry observed: a pairing (a match started, and the
    /// wait timed when there was one) or a negotiation.
    pub fn observed(&self, event: Observed) {
        match event {
            Observed::Paired { waited } => {
                self.0.matches_started.inc();
                if let Some(waited) = waited {
                    self.0.time_to_pair.observe(waited.as_secs_f64());
                }
            }
            Observed::Negotiated { took } => self.0.negotiation.observe(took.as_secs_f64()),
        }
    }

    pub fn observed_all(&self, events: Vec<Observed>) {
        for event in events {
            self.observed(event);
        }
    }

    /// What a player's accepted connect report adds (see
    /// `registry::connect_reports`).
    pub fn connect_reported(&self, counted: ConnectCounted) {
        if let Some(path) = counted.path {
            self.0
                .matches_by_path
                .get_or_create(&PathLabel {
                    path: path.word().to_owned(),
                })
                .inc();
        }
        if let Some(connect) = counted.connect {
            self.0.client_connect.observe(connect.as_secs_f64());
        }
    }

    pub fn seat_taken_back(&self) {
        self.0.seats_taken_back.inc();
    }

    pub fn refused(&self, reason: RefusalReason) {
        self.0
            .refusals
            .get_or_create(&Reason {
                reason: reason.label().to_owned(),
            })
            .inc();
    }

    /// A room request (`stats`, `kick`, `report`) and how it ended.
    pub fn room_request(&self, action: &str, outcome: &str) {
        self.0
            .room_requests
            .get_or_create(&RoomRequestLabel {
                action: action.to_owned(),
                outcome: outcome.to_owned(),
            })
            .inc();
    }

    pub fn turn_credential_issued(&self) {
        self.0.turn_credentials.inc();
    }

    pub fn set_draining(&self, draining: bool) {
        self.0.draining.set(i64::from(draining));
    }

    /// Whether the shared room directory answers (true without one).
    pub fn set_directory_up(&self, up: bool) {
        self.0.directory_up.set(i64::from(up));
    }

    fn count(&self, direction: &str, bytes: usize) {
        let label = Direction {
            direction: direction.to_owned(),
        };
        self.0.messages.get_or_create(&label).inc();
        self.0
            .bytes
            .get_or_create(&label)
            .inc_by(u64::try_from(bytes).unwrap_or(u64::MAX));
    }

    /// A message from a client.
    pub fn received(&self, bytes: usize) {
        self.count("in", bytes);
    }

    /// A message to a client.
    pub fn sent(&self, bytes: usize) {
        self.count("out", bytes);
    }

    /// The text exposition, with the room gauges as of now.
    pub fn render(&self, rooms: RoomCounts) -> String {
        let gauge = |state: &str| {
            self.0.rooms.get_or_create(&RoomStateLabel {
                state: state.to_owned(),
            })
        };
        gauge("waiting").set(i64::try_from(rooms.waiting).unwrap_or(i64::MAX));
        gauge("full").set(i64::try_from(rooms.full).unwrap_or(i64::MAX));
        self.0
            .public_rooms
            .set(i64::try_from(rooms.public).unwrap_or(i64::MAX));
        self.0
            .spectators
            .set(i64::try_from(rooms.spectators).unwrap_or(i64::MAX));
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &self.0.registry);
        out
    }
}

/// The value of the sample line of `text` (a `/metrics` answer) named
/// `name`, labels included: for tests and probes.
pub fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.split_whitespace().next() == Some(name))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[cfg(test)]
#[path = "metrics_tests.rs"]
mod tests;
