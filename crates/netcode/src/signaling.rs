//! What a client asks its signaling server outside a match: the public
//! rooms waiting ([`fetch_rooms`]), the STUN and TURN servers it offers
//! ([`fetch_ice_offer`]), the round trip to it ([`round_trip_ms`]), ranked
//! replays and their boards ([`fetch_board`], [`fetch_replay`],
//! [`ReplayUpload`]). The fetches are native (they block for one HTTP
//! request); in the browser the page asks, and the answers parse into the
//! same types.
//!
//! The types both sides of the wire agree on (room lists, boards, player
//! names, version tags, server URLs) are `twinstar_signaling_protocol`'s,
//! re-exported here so a game names one module. The server itself is the
//! `twinstar-signaling` crate, which this one does not depend on.

#[cfg(not(target_arch = "wasm32"))]
pub use crate::net::signaling::native_boards::{ReplayFetchError, fetch_board, fetch_replay};
#[cfg(not(target_arch = "wasm32"))]
pub use crate::net::signaling::native_client::{fetch_ice_offer, fetch_rooms, round_trip_ms};

pub use crate::net::ice::IceOffer;
pub use crate::net::protocol::version_tag;
pub use crate::net::signaling::ReplayUpload;
pub use twinstar_signaling_protocol::{
    Board, BoardLine, BoardPage, DEFAULT_PORT, MAX_LEVEL, MAX_UPLOAD_BYTES, PlayerName,
    REPLAYS_PATH, Ranked, Ranks, Refused, RoomListing, RoomStatus, RoomsPage, ScoreClaim,
    SeatToken, VersionTag, browser_link, check_server_url, replay_link,
};
/// Why a player's name, a seat token, a server's URL or a version tag
/// does not parse.
pub use twinstar_signaling_protocol::{NameError, SeatTokenError, ServerUrlError, VersionError};
/// What a room list asks for ([`RoomsPage::of`]), and why a query does
/// not parse.
pub use twinstar_signaling_protocol::{RoomsQuery, RoomsQueryError};
