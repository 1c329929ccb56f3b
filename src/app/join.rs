//! The Join screen: the LAN games announced around this machine (multicast
//! DNS, `lan`) as they come and go, and a room code typed for any other.
//! Enter on a public LAN game joins it; on a private one asks for its code.

use super::lan::{self, LanGame};
use crate::frontend::menu::{Picked, choose_live};
use crate::frontend::window::Ui;
use crate::platform::lan::Browse;

/// What the player picked on the Join screen.
pub(super) enum JoinPick {
    /// A LAN game: its server, and its code when public.
    Lan(LanGame),
    /// Type a code (for the player's usual server).
    Code,
    Back,
}

pub(super) async fn join_screen(ui: &mut Ui) -> JoinPick {
    let (mut browse, why_not) = match Browse::start() {
        Ok(Some(browse)) => (Some(browse), None),
        // Not looked for (a page, TWINSTAR_LAN_DISCOVERY=off): straight
        // to the code, as before LAN games were found.
        Ok(None) => return JoinPick::Code,
        // Looked for and failed: say why, beside the code row.
        Err(e) => (None, Some(format!("LAN games: {e}"))),
    };
    let mut shown: Vec<LanGame> = Vec::new();
    // Logged when it changes, as the Rooms screen logs its list: the LAN
    // test (scripts/check-lan.sh) waits for it before it presses Enter.
    let mut logged = None;
    let picked = choose_live(
        ui,
        "JOIN",
        || {
            if let Some(browse) = browse.as_mut() {
                shown = lan::games_of(browse.poll());
            }
            if logged != Some(shown.len()) {
                logged = Some(shown.len());
                tracing::info!("join: {} LAN games listed", shown.len());
            }
            rows(&shown, why_not.as_deref())
        },
        None,
    )
    .await;
    match picked {
        Picked::Item(i) if i < shown.len() => JoinPick::Lan(shown[i].clone()),
        Picked::Item(_) => JoinPick::Code,
        _ => JoinPick::Back,
    }
}

/// The screen's details and rows: the games, then "Type a code".
fn rows(games: &[LanGame], why_not: Option<&str>) -> (Vec<String>, Vec<String>) {
    let details = vec![match (why_not, games.is_empty()) {
        (Some(why), _) => why.to_owned(),
        (None, true) => "looking for games on this LAN...".to_owned(),
        (None, false) => "games on this LAN: Enter joins".to_owned(),
    }];
    let mut labels: Vec<String> = games.iter().map(LanGame::label).collect();
    labels.push("Type a room code".to_owned());
    (details, labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_row_is_always_last_and_the_details_say_what_is_happening() {
        let (details, labels) = rows(&[], None);
        assert_eq!(labels, ["Type a room code"]);
        assert!(details[0].contains("looking"));
        let ana = LanGame {
            name: "Ana".into(),
            room: None,
            server: "ws://10.0.0.2:3536".into(),
            same_version: true,
            version: lan::version(),
        };
        let (details, labels) = rows(std::slice::from_ref(&ana), None);
        assert_eq!(labels.len(), 2);
        assert_eq!(labels[0], ana.label());
        assert!(details[0].contains("Enter joins"));
        let (details, _) = rows(&[], Some("LAN games: multicast DNS: no interface"));
        assert!(details[0].contains("no interface"));
    }
}
