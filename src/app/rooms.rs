//! The Rooms screen: the public rooms of this build's version on the
//! player's server (`GET /rooms`), refreshed every 2 s, waiting rooms to
//! join and live matches to watch, with Host and Quick match below. The
//! list arrives through [`RoomsFeed`] (a thread natively, the page's
//! script in the browser).

use crate::frontend::menu::{Picked, choose_live};
use crate::frontend::window::Ui;
use crate::platform::rooms::RoomsFeed;
use twinstar_netcode::signaling::{RoomStatus, RoomsPage};

/// What the player picked on the Rooms screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum RoomPick {
    Join(String),
    Watch(String),
    Host,
    Quick,
    Back,
}

/// The screen's rows (each with what picking it does) and the lines above
/// them, from the latest answer: waiting rooms first, then live matches,
/// then Host and Quick match.
fn rows(
    server: &str,
    latest: Option<&Result<RoomsPage, String>>,
) -> (Vec<String>, Vec<(String, RoomPick)>) {
    let mut details = vec![format!("public rooms on {server}, this version only")];
    let mut rows = Vec::new();
    match latest {
        None => details.push("asking the server...".into()),
        Some(Err(e)) => details.push(format!("no list: {e}")),
        Some(Ok(page)) if page.rooms.is_empty() => {
            details.push("no open rooms right now: host one, or try a quick match".into())
        }
        Some(Ok(page)) => {
            let mut rooms: Vec<_> = page.rooms.iter().collect();
            // Waiting rooms first (stable: newest first within each).
            rooms.sort_by_key(|r| r.state == RoomStatus::Playing);
            for room in rooms {
                let row = match room.state {
                    RoomStatus::Waiting => (
                        format!("Join  {}  {}", room.code, room.host),
                        RoomPick::Join(room.code.clone()),
                    ),
                    RoomStatus::Playing => {
                        let wave = room.wave.map(|w| format!("  wave {w}")).unwrap_or_default();
                        (
                            format!("Watch {}  {}{wave}", room.code, room.host),
                            RoomPick::Watch(room.code.clone()),
                        )
                    }
                };
                rows.push(row);
            }
        }
    }
    rows.push(("Host a room".into(), RoomPick::Host));
    rows.push(("Quick match".into(), RoomPick::Quick));
    (details, rows)
}

/// Shows the Rooms screen until the player picks something or goes back.
pub(super) async fn rooms_screen(ui: &mut Ui, server: &str) -> RoomPick {
    let version = twinstar_netcode::signaling::version_tag(&crate::game::GAME);
    let mut feed = RoomsFeed::start(server, version);
    let mut latest: Option<Result<RoomsPage, String>> = None;
    let mut shown = Vec::new();
    let mut listed = None;
    let picked = choose_live(
        ui,
        "ROOMS",
        || {
            if let Some(answer) = feed.poll() {
                // Each new count once in the log (a page's test waits for it).
                if let Ok(page) = &answer
                    && listed != Some(page.rooms.len())
                {
                    listed = Some(page.rooms.len());
                    tracing::info!("rooms: {} listed", page.rooms.len());
                }
                latest = Some(answer);
            }
            let (details, rows) = rows(server, latest.as_ref());
            let labels = rows.iter().map(|(label, _)| label.clone()).collect();
            shown = rows;
            (details, labels)
        },
        None,
    )
    .await;
    match picked {
        Picked::Item(i) => shown
            .get(i)
            .map_or(RoomPick::Back, |(_, pick)| pick.clone()),
        _ => RoomPick::Back,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use twinstar_netcode::signaling::{PlayerName, RoomListing, VersionTag};

    fn room(code: &str, host: &str, state: RoomStatus, wave: Option<u32>) -> RoomListing {
        RoomListing {
            code: code.into(),
            host: PlayerName::parse(host).unwrap(),
            state,
            version: VersionTag::parse("6.3").unwrap(),
            created_s: 0,
            wave,
            score: None,
            elapsed_s: None,
            spectators: None,
        }
    }

    #[test]
    fn waiting_rooms_come_first_then_live_matches_then_host_and_quick() {
        let page = RoomsPage {
            rooms: vec![
                room("AAA-222", "Ana", RoomStatus::Playing, Some(3)),
                room("BBB-333", "Bo", RoomStatus::Waiting, None),
            ],
            next: None,
        };
        let (_, rows) = rows("ws://h:1", Some(&Ok(page)));
        let picks: Vec<RoomPick> = rows.iter().map(|(_, p)| p.clone()).collect();
        assert_eq!(
            picks,
            [
                RoomPick::Join("BBB-333".into()),
                RoomPick::Watch("AAA-222".into()),
                RoomPick::Host,
                RoomPick::Quick
            ]
        );
        assert_eq!(rows[1].0, "Watch AAA-222  Ana  wave 3");
    }

    #[test]
    fn an_empty_or_failed_list_says_so_and_still_offers_host_and_quick() {
        let empty = rows("ws://h:1", Some(&Ok(RoomsPage::default())));
        assert!(
            empty.0.iter().any(|l| l.contains("no open rooms")),
            "{:?}",
            empty.0
        );
        assert_eq!(empty.1.len(), 2);
        let failed = rows("ws://h:1", Some(&Err("HTTP 404".into())));
        assert!(failed.0.iter().any(|l| l.contains("HTTP 404")));
        assert_eq!(failed.1.len(), 2);
        let waiting = rows("ws://h:1", None);
        assert!(waiting.0.iter().any(|l| l.contains("asking")));
    }
}
