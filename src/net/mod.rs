//! The netcode, from the `twinstar-netcode` crate, under the path the game,
//! its tests and its fuzz targets have always named; and what twinstar is
//! to the netcode ([`GAME`]).

pub use twinstar_netcode::MAX_PLAYERS;
pub use twinstar_netcode::net::*;

use crate::sim::{Input, PLAYERS};

/// The netcode's generic types, for twinstar's input and two players.
pub type Connection = connect::Connection<Input, PLAYERS>;
pub type PlayerConnector = connect::PlayerConnector<Input, PLAYERS>;
pub type WatchConnection = watch::WatchConnection<Input, PLAYERS>;
pub type SpectatorConnector = watch::SpectatorConnector<Input, PLAYERS>;
pub type History = rejoin::History<Input, PLAYERS>;
pub type CatchUpReceiver = rejoin::CatchUpReceiver<Input, PLAYERS>;
pub type Chunk = protocol::chunk::Chunk<Input, PLAYERS>;

pub use crate::game::GAME;
