//! Twinstar as the netcode knows it: the `Game` impl lives in the
//! simulation's crate (`twinstar-sim`, beside the rules, so a server that
//! re-simulates uploads uses the same one); re-exported here, with the
//! netcode's generic connection types for twinstar's input and two players.

pub use crate::sim::{GAME, Twinstar};

use crate::sim::{Input, PLAYERS};
use twinstar_netcode::connect;

/// A player's connection to the other player, for a twinstar match.
pub type Connection = connect::Connection<Input, PLAYERS>;
/// A player's attempt to meet the other player.
pub type PlayerConnector = connect::Connector<connect::PlayerSeat<Input, PLAYERS>>;
/// A spectator's connection to a streaming player.
pub type WatchConnection = connect::WatchConnection<Input, PLAYERS>;
/// A spectator's attempt to reach a match.
pub type SpectatorConnector = connect::Connector<connect::SpectatorSeat<Input, PLAYERS>>;

#[cfg(test)]
mod desync_tests {
    //! Twinstar's desync evidence: its world's bytes and field names
    //! through the netcode's reports.
    use super::*;
    use crate::sim::Input;
    use crate::sim::{PLAYERS, SimConfig, World};
    use serde_json::Value;
    use twinstar_netcode::session::desync::explain;
    use twinstar_netcode::testing::protocol::{MAX_MESSAGE_BYTES, Message, encode};

    type Evidence = twinstar_netcode::session::desync::Evidence<Twinstar, PLAYERS>;

    fn evidence(world: Box<World>, inputs: Vec<[Input; PLAYERS]>) -> Evidence {
        Evidence {
            frame: world.frame,
            checksum: world.checksum(),
            world: Some(world),
            inputs_from: 10,
            inputs,
        }
    }

    #[test]
    fn evidence_crosses_the_wire_unchanged_and_small() {
        let mut world = World::new(7, SimConfig::preset("default").expect("default preset"));
        world.frame = 130;
        world.players[1].score = 42;
        let ours = evidence(world, vec![[Input(1), Input(2)]; 120]);
        let message = ours.to_message();
        assert!(
            message.world.len() < 8 * 1024,
            "{} bytes",
            message.world.len()
        );
        let encoded = encode(&Message::DesyncState(message.clone()));
        assert!(encoded.len() <= MAX_MESSAGE_BYTES);
        let back = Evidence::from_message(message).unwrap();
        assert_eq!((back.world, back.inputs), (ours.world, ours.inputs));
    }

    #[test]
    fn a_bad_world_is_left_out_and_bad_inputs_refused() {
        let ours = evidence(
            World::new(1, SimConfig::preset("default").expect("default preset")),
            vec![],
        );
        let mut message = ours.to_message();
        message.world = vec![1, 2, 3];
        assert!(
            Evidence::from_message(message.clone())
                .unwrap()
                .world
                .is_none()
        );
        message.inputs = vec![0; 3];
        assert!(Evidence::from_message(message).is_err());
    }

    #[test]
    fn the_report_names_the_changed_field_and_the_inputs_that_differ() {
        let a = World::new(3, SimConfig::preset("default").expect("default preset"));
        let mut b = a.clone();
        b.players[0].score += 5;
        let mut their_inputs = vec![[Input(0), Input(0)]; 20];
        their_inputs[7][1] = Input(4);
        let ours = evidence(a, vec![[Input(0), Input(0)]; 20]);
        let theirs = evidence(b, their_inputs);
        let report = explain(&ours, Some(&theirs), 1);
        assert_eq!(report.fields, ["players[0].score"]);
        assert_eq!(report.json["player"], 2);
        assert_eq!(report.json["inputs"]["agree"], false);
        assert_eq!(
            report.json["inputs"]["players"][0]["first_differing_frame"],
            Value::Null
        );
        assert_eq!(
            report.json["inputs"]["players"][1]["first_differing_frame"],
            17
        );
        // Without the other side's state the report says so.
        let alone = explain(&ours, None, 0);
        assert!(alone.fields.is_empty());
        assert!(
            alone.json["differing_fields"]
                .as_str()
                .unwrap()
                .contains("did not arrive")
        );
    }
}
