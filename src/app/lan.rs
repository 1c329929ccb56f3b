//! LAN games: what a host's multicast DNS announcement says, and which
//! announced game a joiner takes (`platform::lan` is the wire). Plain
//! logic, tested here; the LAN test (scripts/check-lan.sh) plays it
//! between two network namespaces.
//!
//! An announcement's TXT record: `name` (the host's display name),
//! `version` (the protocol and simulation versions, as quick match
//! compares them), `public` (`1` or `0`) and, for a public room only,
//! `room` (its code). A private room is announced without its code: a
//! joiner finds the server without typing an address, and still needs the
//! code from the host.

use web_time::Duration;

use crate::net::room_code::RoomCode;
use crate::net::signaling::PlayerName;
use crate::platform::lan::{Browse, LanService};

/// How long `join --lan` looks before giving up.
pub const JOIN_LOOKS_FOR: Duration = Duration::from_secs(5);
/// How long quick match looks for a public LAN game before it asks its
/// server. Measured in scripts/check-lan.sh: a joiner finds the host
/// about 1.0-1.2 s after it starts (mdns-sd's first answer), so 0.7 s
/// missed it; 2 s adds that much to a quick match on the internet.
pub const QUICK_LOOKS_FOR: Duration = Duration::from_secs(2);

/// A game announced on the LAN.
#[derive(Clone, Debug, PartialEq)]
pub struct LanGame {
    /// The host's display name, or `a LAN host` when it gave none.
    pub name: String,
    /// The room's code: a public room's only.
    pub room: Option<RoomCode>,
    /// The server's address (`ws://IP:PORT`).
    pub server: String,
    /// It plays this build's protocol and simulation.
    pub same_version: bool,
}

impl LanGame {
    /// A line for a list: who, and what it takes to join.
    pub fn label(&self) -> String {
        match (&self.room, self.same_version) {
            (_, false) => format!("{}'s game (another version)", self.name),
            (Some(room), true) => format!("{}'s game ({room})", self.name),
            (None, true) => format!("{}'s game (private: ask for its code)", self.name),
        }
    }
}

/// This build's version as announcements carry it.
pub fn version() -> String {
    crate::net::protocol::version_tag(&crate::net::GAME)
        .as_str()
        .to_owned()
}

/// A host's TXT record.
pub fn txt(
    name: Option<&PlayerName>,
    room: &RoomCode,
    public: bool,
) -> Vec<(&'static str, String)> {
    let mut txt = vec![
        ("name", name.map_or_else(String::new, |n| n.to_string())),
        ("version", version()),
        ("public", if public { "1" } else { "0" }.to_owned()),
    ];
    if public {
        txt.push(("room", room.to_string()));
    }
    txt
}

/// An announcement as a game, or `None` when it is not one (no version,
/// no address).
pub fn game_of(service: &LanService, version: &str) -> Option<LanGame> {
    let get = |key: &str| {
        service
            .txt
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    };
    let announced = get("version")?;
    // An IPv6 link-local address cannot be dialled without its scope.
    let address = service.addresses.iter().find(|a| match a {
        std::net::IpAddr::V4(_) => true,
        std::net::IpAddr::V6(v6) => (v6.segments()[0] & 0xffc0) != 0xfe80,
    })?;
    let server = match address {
        std::net::IpAddr::V4(ip) => format!("ws://{ip}:{}", service.port),
        std::net::IpAddr::V6(ip) => format!("ws://[{ip}]:{}", service.port),
    };
    let public = get("public") == Some("1");
    Some(LanGame {
        name: get("name")
            .and_then(|n| PlayerName::parse(n).ok())
            .map_or_else(|| "a LAN host".to_owned(), |n| n.to_string()),
        room: get("room")
            .filter(|_| public)
            .and_then(|r| RoomCode::parse(r).ok()),
        server,
        same_version: announced == version,
    })
}

/// The game a joiner takes: with a code, the public game of that code, or
/// else the one private game there is; without, the first public game.
/// Only games of this version count. `Err`: why none, in words.
pub fn pick(games: &[LanGame], code: Option<&RoomCode>) -> Result<(String, RoomCode), String> {
    let ours: Vec<&LanGame> = games.iter().filter(|g| g.same_version).collect();
    let private: Vec<&LanGame> = ours.iter().copied().filter(|g| g.room.is_none()).collect();
    match code {
        Some(code) => {
            if let Some(game) = ours.iter().find(|g| g.room.as_ref() == Some(code)) {
                return Ok((game.server.clone(), code.clone()));
            }
            match private.as_slice() {
                [one] => Ok((one.server.clone(), code.clone())),
                [] => Err(format!("no LAN game has room {code}")),
                several => Err(format!(
                    "{} private LAN games ({}): pass the host's address with --server",
                    several.len(),
                    names(several)
                )),
            }
        }
        None => {
            if let Some(game) = ours.iter().find(|g| g.room.is_some()) {
                let room = game.room.clone().expect("a public game has its code");
                return Ok((game.server.clone(), room));
            }
            if private.is_empty() {
                Err(no_game(games))
            } else {
                Err(format!(
                    "the LAN games are private ({}): twinstar join CODE --lan, with the host's code",
                    names(&private)
                ))
            }
        }
    }
}

fn names(games: &[&LanGame]) -> String {
    games
        .iter()
        .map(|g| g.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn no_game(games: &[LanGame]) -> String {
    if games.is_empty() {
        "no LAN game found".to_owned()
    } else {
        format!(
            "no LAN game of this version ({}) found; {} of another",
            version(),
            games.len()
        )
    }
}

/// The games announced now, this version's first.
pub fn games_of(services: &[LanService]) -> Vec<LanGame> {
    let version = version();
    let mut games: Vec<LanGame> = services
        .iter()
        .filter_map(|s| game_of(s, &version))
        .collect();
    games.sort_by_key(|g| !g.same_version);
    games
}

/// Browses for up to `limit` until [`pick`] finds a game. `Ok(None)`:
/// multicast DNS is off here (`TWINSTAR_LAN_DISCOVERY`, or a page).
pub fn find(
    code: Option<&RoomCode>,
    limit: Duration,
) -> Result<Option<(String, RoomCode)>, String> {
    let Some(mut browse) = Browse::start()? else {
        return Ok(None);
    };
    let start = web_time::Instant::now();
    loop {
        let games = games_of(browse.wait(Duration::from_millis(100)));
        match pick(&games, code) {
            Ok(found) => return Ok(Some(found)),
            Err(why) if start.elapsed() >= limit => return Err(why),
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(txt: &[(&str, &str)], address: &str) -> LanService {
        LanService {
            instance: format!("twinstar-{address}._twinstar._tcp.local."),
            addresses: vec![address.parse().unwrap()],
            port: 3536,
            txt: txt
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    fn code(text: &str) -> RoomCode {
        RoomCode::parse(text).unwrap()
    }

    #[test]
    fn an_announcement_round_trips_and_a_private_room_keeps_its_code() {
        let name = PlayerName::parse("Ana").unwrap();
        let room = code("K7Q2XM");
        let public = txt(Some(&name), &room, true);
        let private = txt(Some(&name), &room, false);
        assert!(
            public
                .iter()
                .any(|(k, v)| *k == "room" && v == &room.to_string())
        );
        assert!(
            private
                .iter()
                .all(|(k, v)| *k != "room" && !v.contains("K7Q"))
        );
        let as_heard = |txt: &[(&str, String)]| {
            let pairs: Vec<(&str, &str)> = txt.iter().map(|(k, v)| (*k, v.as_str())).collect();
            game_of(&service(&pairs, "10.0.0.2"), &version()).unwrap()
        };
        let heard = as_heard(&public);
        assert_eq!(heard.name, "Ana");
        assert_eq!(heard.room, Some(room.clone()));
        assert_eq!(heard.server, "ws://10.0.0.2:3536");
        assert!(heard.same_version);
        assert_eq!(as_heard(&private).room, None);
    }

    #[test]
    fn what_is_not_an_announcement_of_ours_is_skipped_and_bad_fields_are_not_trusted() {
        let v = version();
        assert_eq!(game_of(&service(&[("name", "Ana")], "10.0.0.2"), &v), None);
        let odd = game_of(
            &service(
                &[
                    ("version", "1.0"),
                    ("name", "<script>"),
                    ("public", "1"),
                    ("room", "!!"),
                ],
                "2001:db8::1",
            ),
            &v,
        )
        .unwrap();
        assert_eq!(odd.name, "a LAN host");
        assert_eq!(odd.room, None, "an invalid code is no code");
        assert_eq!(odd.server, "ws://[2001:db8::1]:3536");
        // Only a link-local IPv6 address (no scope to dial it with): not
        // a game yet (seen: a joiner failed on ws://[fe80::...]).
        let v = version();
        assert_eq!(
            game_of(&service(&[("version", &v)], "fe80::dc65:1"), &v),
            None
        );
        assert!(!odd.same_version);
        // A room code on a game that says it is private is ignored.
        let sneaky = game_of(
            &service(
                &[("version", &v), ("public", "0"), ("room", "K7Q2XM")],
                "10.0.0.3",
            ),
            &v,
        )
        .unwrap();
        assert_eq!(sneaky.room, None);
    }

    fn game(name: &str, room: Option<&str>, server: &str, same_version: bool) -> LanGame {
        LanGame {
            name: name.into(),
            room: room.map(code),
            server: server.into(),
            same_version,
        }
    }

    #[test]
    fn a_joiner_takes_the_public_game_or_the_one_private_game_for_its_code() {
        let old = game("Old", Some("AAAAAA"), "ws://10.0.0.9:3536", false);
        let ana = game("Ana", Some("K7Q2XM"), "ws://10.0.0.2:3536", true);
        let bo = game("Bo", None, "ws://10.0.0.3:3536", true);
        let cy = game("Cy", None, "ws://10.0.0.4:3536", true);
        // No code: the first public game of this version.
        let all = [old.clone(), bo.clone(), ana.clone()];
        assert_eq!(
            pick(&all, None),
            Ok(("ws://10.0.0.2:3536".into(), code("K7Q2XM")))
        );
        // Another version's public game is never taken.
        let err = pick(std::slice::from_ref(&old), None).unwrap_err();
        assert!(err.contains("of this version"), "{err}");
        // Only private ones: say so, and how to join them.
        let err = pick(&[bo.clone(), cy.clone()], None).unwrap_err();
        assert!(
            err.contains("private (Bo, Cy)") && err.contains("join CODE --lan"),
            "{err}"
        );
        // A code: its public game, else the one private game.
        assert_eq!(
            pick(&all, Some(&code("K7Q2XM"))),
            Ok(("ws://10.0.0.2:3536".into(), code("K7Q2XM")))
        );
        assert_eq!(
            pick(&all, Some(&code("ZZZZZZ"))),
            Ok(("ws://10.0.0.3:3536".into(), code("ZZZZZZ")))
        );
        let err = pick(&[bo, cy], Some(&code("ZZZZZZ"))).unwrap_err();
        assert!(
            err.contains("2 private LAN games") && err.contains("--server"),
            "{err}"
        );
        assert_eq!(pick(&[], None), Err("no LAN game found".into()));
    }

    #[test]
    fn labels_say_what_it_takes_to_join() {
        assert_eq!(
            game("Ana", Some("K7Q2XM"), "", true).label(),
            format!("Ana's game ({})", code("K7Q2XM"))
        );
        assert!(
            game("Bo", None, "", true)
                .label()
                .contains("ask for its code")
        );
        assert!(
            game("Old", None, "", false)
                .label()
                .contains("another version")
        );
    }
}
