//! Rejoin tickets. While a player plays an online match in a room, a small
//! record says "match M, player P, room R on server S" (in a [`Records`]
//! store the game provides: a file in its data directory, the page's local
//! storage). A game that crashed leaves it
//! behind, and `join R` hands it to the player who stayed, who lets back in
//! only the player of its paused match (`net::handshake`, `Claim`). A match
//! that ends in any other way removes it. The ticket also keeps the
//! player's seat token, so that a game restarted after a power loss (its
//! old websocket still open, silent) takes its seat back at once instead of
//! waiting for the server's liveness check.

use std::sync::Arc;

use crate::GameInfo;
use crate::net::RoomCode;
use crate::net::connect::{ConnectOptions, Connection};
use crate::net::handshake::Claim;
use crate::net::rejoin::Ticket;
use crate::net::signaling::SeatToken;

/// Where a game keeps small records between runs.
pub trait Records: Send + Sync {
    /// Keeps `text` under `key`, replacing what was there.
    fn write(&self, key: &str, text: &str) -> Result<(), String>;
    /// The record under `key`, if there is a readable one.
    fn read(&self, key: &str) -> Option<String>;
    /// Forgets the record under `key` (nothing if there is none).
    fn remove(&self, key: &str);
}

// Files need a file system: natively only (the page keeps records in its
// local storage, which the game provides).
#[cfg(not(target_arch = "wasm32"))]
mod dir_records;
#[cfg(not(target_arch = "wasm32"))]
pub use dir_records::DirRecords;

/// A ticket older than this is stale: no match waits that long.
const MAX_AGE_S: u64 = 24 * 60 * 60;

fn key(room: &RoomCode, player: u8) -> String {
    format!("rejoin-{}-p{player}", room.canonical())
}

fn now_s() -> u64 {
    web_time::SystemTime::now()
        .duration_since(web_time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A ticket kept while its match runs: removed when this is dropped (the
/// match ended here, in any way but a crash).
#[must_use = "the ticket is removed when this is dropped"]
pub struct Held {
    store: Arc<dyn Records>,
    room: RoomCode,
    player: u8,
}

impl Drop for Held {
    fn drop(&mut self) {
        // The match is over for this player: it has nothing to rejoin.
        self.store.remove(&key(&self.room, self.player));
    }
}

/// Keeps a ticket in `store` for `claim` in `room` on `server` (with the
/// player's `seat` token; `game` names the build) while `Held` lives.
pub(crate) fn hold(
    store: Arc<dyn Records>,
    game: &GameInfo,
    room: &RoomCode,
    server: &str,
    claim: Claim,
    seat: Option<SeatToken>,
) -> Held {
    let ticket = Ticket {
        server: server.to_string(),
        match_id: claim.match_id,
        player: claim.player,
        version: game.version.to_string(),
        saved_at: now_s(),
        seat: seat.map(|s| s.to_string()),
    };
    if let Err(e) = store.write(&key(room, claim.player), &ticket.to_text()) {
        tracing::warn!("cannot keep a rejoin ticket ({e}); a crash here cannot be rejoined");
    }
    Held {
        store,
        room: room.clone(),
        player: claim.player,
    }
}

/// What this machine may rejoin in a room, from its tickets there.
pub(crate) struct Rejoin {
    /// At most one claim per player slot (both, when both players of a
    /// match ran here).
    pub claims: Vec<Claim>,
    /// The seat token to enter the room with: the ticket's, if this
    /// machine has exactly one there (with two, both players of the match
    /// ran here and one still plays: its seat must not be taken).
    pub seat: Option<SeatToken>,
}

/// What this machine may rejoin in `room` on `server`, from its tickets
/// in `store`.
pub(crate) fn rejoin(store: &dyn Records, room: &RoomCode, server: &str) -> Rejoin {
    let tickets = tickets(store, room, server);
    let claims = (tickets.iter())
        .map(|t| Claim {
            match_id: t.match_id,
            player: t.player,
        })
        .collect();
    let seat = match tickets.as_slice() {
        [ticket] => ticket.seat.as_deref().and_then(|text| {
            SeatToken::parse(text)
                .map_err(|e| tracing::warn!("ignoring the rejoin ticket's seat token: {e}"))
                .ok()
        }),
        _ => None,
    };
    Rejoin { claims, seat }
}

impl ConnectOptions {
    /// In a room, rejoins what this machine's tickets there allow (a match
    /// it left without ending it: a crash, a power loss): their claims,
    /// and the seat token of a single ticket instead of a fresh one. What
    /// a game calls before connecting; quick match has nothing to rejoin.
    pub fn rejoin_from(&mut self, store: &dyn Records) {
        let meeting = &mut self.meeting;
        if let Some(room) = &meeting.room {
            let rejoin = rejoin(store, room, &meeting.server);
            self.rejoin.claims = rejoin.claims;
            meeting.seat = rejoin.seat.or(meeting.seat.take());
        }
    }
}

impl<I, const N: usize> Connection<I, N> {
    /// Keeps this player's ticket for the match in `store` while the
    /// returned value lives (`None` without a room: nothing to rejoin).
    /// What a game calls once connected, and keeps until the match ends.
    pub fn hold_ticket(&self, store: Arc<dyn Records>) -> Option<Held> {
        let room = self.room()?;
        let claim = Claim {
            match_id: self.agreement.match_id,
            player: self.agreement.local_handle as u8 + 1,
        };
        let game = self.options.game;
        Some(hold(
            store,
            &game,
            room,
            &self.options.meeting.server,
            claim,
            self.options.meeting.seat,
        ))
    }
}

/// This machine's current tickets for `room` on `server`; stale and
/// unreadable ones are removed on the way.
fn tickets(store: &dyn Records, room: &RoomCode, server: &str) -> Vec<Ticket> {
    let mut tickets = Vec::new();
    for player in [1, 2] {
        let key = key(room, player);
        let Some(text) = store.read(&key) else {
            continue;
        };
        match Ticket::parse(&text) {
            Ok(t) if now_s().saturating_sub(t.saved_at) > MAX_AGE_S => store.remove(&key),
            Ok(t) if t.server == server && t.player == player => tickets.push(t),
            Ok(_) => {}
            Err(e) => {
                tracing::warn!("ignoring an unreadable rejoin ticket {key}: {e}");
                store.remove(&key);
            }
        }
    }
    tickets
}
