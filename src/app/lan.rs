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

use crate::platform::lan::{Browse, LanService};
use twinstar_netcode::RoomCode;
use twinstar_netcode::signaling::PlayerName;

/// How long `join --lan` looks before giving up.
pub const JOIN_LOOKS_FOR: Duration = Duration::from_secs(5);
/// How long quick match looks for a public LAN game before it asks its
/// server. Measured in scripts/check-lan.sh: a joiner finds the host
/// about 1.0-1.2 s after it starts (mdns-sd's first answer), so 0.7 s
/// missed it; 2 s adds that much to a quick match on the internet.
pub const QUICK_LOOKS_FOR: Duration = Duration::from_secs(2);
/// How long `join --lan` keeps listening once it has heard a first game:
/// every host answers the same query within a few hundred ms, so the list
/// it prints holds them all, not only the fastest.
pub const LIST_SETTLES_FOR: Duration = Duration::from_millis(1500);

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
    /// The version it announced (printable ASCII, at most 40 characters:
    /// it comes off the network and goes onto a terminal).
    pub version: String,
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

    /// `join --lan`'s line for it: number, host, code or `private`, version.
    pub fn list_line(&self, number: usize) -> String {
        let room = self
            .room
            .as_ref()
            .map_or_else(|| "private".to_owned(), |r| format!("room {r}"));
        let other = if self.same_version {
            ""
        } else {
            " (another version)"
        };
        format!(
            "LAN game {number}: {}, {room}, version {}{other}",
            self.name, self.version
        )
    }
}

/// This build's version as announcements carry it.
pub fn version() -> String {
    twinstar_netcode::signaling::version_tag(&crate::game::GAME)
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
        version: announced
            .chars()
            .filter(|c| c.is_ascii_graphic())
            .take(40)
            .collect(),
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

/// Writes `question` to `prompt` and reads a line of `input`; `Err` at
/// its end.
fn read_line(
    input: &mut impl std::io::BufRead,
    prompt: &mut impl std::io::Write,
    question: &str,
) -> Result<String, String> {
    // The prompt is best effort: a closed stderr must not stop a choice.
    let _ = write!(prompt, "{question}");
    let _ = prompt.flush();
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) | Err(_) => Err("no LAN game chosen".to_owned()),
        Ok(_) => Ok(line),
    }
}

/// `join --lan`'s look: every game heard within `limit`. Once a first game
/// is heard it listens `settle` longer (so the list holds each host that
/// answered), then stops as soon as [`pick`] with `code` finds one to
/// join. `Ok(None)`: multicast DNS is off here.
pub fn look(
    code: Option<&RoomCode>,
    limit: Duration,
    settle: Duration,
) -> Result<Option<Vec<LanGame>>, String> {
    let Some(mut browse) = Browse::start()? else {
        return Ok(None);
    };
    let start = web_time::Instant::now();
    let mut first_heard = None;
    loop {
        let games = games_of(browse.wait(Duration::from_millis(100)));
        if !games.is_empty() {
            first_heard.get_or_insert_with(web_time::Instant::now);
        }
        let settled = first_heard.is_some_and(|t| t.elapsed() >= settle);
        if (settled && pick(&games, code).is_ok()) || start.elapsed() >= limit {
            return Ok(Some(games));
        }
    }
}

/// What an answer to "which game?" takes.
#[derive(Debug, PartialEq)]
pub enum Answer {
    /// This server's room.
    Join(String, RoomCode),
    /// The private game at this index: its code comes next.
    CodeFor(usize),
}

/// Reads an answer to "which game?": Enter alone takes the first public
/// game of this version ([`pick`]); a number takes that line of the list.
pub fn answer(games: &[LanGame], answer: &str) -> Result<Answer, String> {
    let answer = answer.trim();
    if answer.is_empty() {
        return pick(games, None).map(|(server, room)| Answer::Join(server, room));
    }
    let (index, game) = answer
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| Some((i, games.get(i)?)))
        .ok_or_else(|| format!("'{answer}' is not a game's number (1 to {})", games.len()))?;
    if !game.same_version {
        return Err(format!(
            "{}'s game is another version ({}; this is {})",
            game.name,
            game.version,
            version()
        ));
    }
    Ok(match &game.room {
        Some(room) => Answer::Join(game.server.clone(), room.clone()),
        None => Answer::CodeFor(index),
    })
}

/// Asks on `prompt` which of `games` to join and reads the answer (and a
/// private game's code) from `input`, until it names one. `Err` at the
/// end of the input.
pub fn ask(
    games: &[LanGame],
    input: &mut impl std::io::BufRead,
    prompt: &mut impl std::io::Write,
) -> Result<(String, RoomCode), String> {
    loop {
        let line = read_line(
            input,
            prompt,
            "twinstar: join which LAN game? (its number, or Enter for the first public one) ",
        )?;
        match answer(games, &line) {
            Ok(Answer::Join(server, room)) => return Ok((server, room)),
            Ok(Answer::CodeFor(index)) => {
                let game = &games[index];
                let question = format!("twinstar: {}'s room code: ", game.name);
                loop {
                    let typed = read_line(input, prompt, &question)?;
                    match RoomCode::parse(typed.trim()) {
                        Ok(code) => return Ok((game.server.clone(), code)),
                        Err(e) => {
                            let _ = writeln!(
                                prompt,
                                "twinstar: invalid room code '{}': {e}",
                                typed.trim()
                            );
                        }
                    }
                }
            }
            Err(why) => {
                let _ = writeln!(prompt, "twinstar: {why}");
            }
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
            version: if same_version {
                version()
            } else {
                "0.1".into()
            },
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

    #[test]
    fn the_list_names_each_host_its_code_or_private_and_its_version() {
        let ana = game("Ana", Some("K7Q2XM"), "ws://10.0.0.2:3536", true);
        let bo = game("Bo", None, "ws://10.0.0.3:3536", true);
        let old = game("Old", Some("AAAAAA"), "ws://10.0.0.9:3536", false);
        assert_eq!(
            ana.list_line(1),
            format!(
                "LAN game 1: Ana, room {}, version {}",
                code("K7Q2XM"),
                version()
            )
        );
        assert_eq!(
            bo.list_line(2),
            format!("LAN game 2: Bo, private, version {}", version())
        );
        assert_eq!(
            old.list_line(3),
            format!(
                "LAN game 3: Old, room {}, version 0.1 (another version)",
                code("AAAAAA")
            )
        );
        // What a host announces as its version reaches a terminal only as
        // printable ASCII, and not much of it.
        let v = format!("\u{1b}[2J{}", "9".repeat(100));
        let heard = game_of(&service(&[("version", &v)], "10.0.0.4"), &version()).unwrap();
        assert_eq!(heard.version, format!("[2J{}", "9".repeat(37)));
    }

    #[test]
    fn an_answer_is_enter_for_the_first_public_game_or_a_number() {
        let bo = game("Bo", None, "ws://10.0.0.3:3536", true);
        let ana = game("Ana", Some("K7Q2XM"), "ws://10.0.0.2:3536", true);
        let old = game("Old", Some("AAAAAA"), "ws://10.0.0.9:3536", false);
        let games = [bo, ana, old];
        let ana_joins = Answer::Join("ws://10.0.0.2:3536".into(), code("K7Q2XM"));
        assert_eq!(answer(&games, "\n"), Ok(ana_joins));
        assert_eq!(
            answer(&games, " 2 \n"),
            Ok(Answer::Join("ws://10.0.0.2:3536".into(), code("K7Q2XM")))
        );
        assert_eq!(answer(&games, "1\n"), Ok(Answer::CodeFor(0)));
        for bad in ["0", "4", "two", "-1"] {
            let err = answer(&games, bad).unwrap_err();
            assert!(err.contains("1 to 3"), "{bad}: {err}");
        }
        let err = answer(&games, "3").unwrap_err();
        assert!(err.contains("another version"), "{err}");
    }

    #[test]
    fn asking_reads_until_a_game_is_named_and_a_private_one_takes_its_code() {
        let bo = game("Bo", None, "ws://10.0.0.3:3536", true);
        let ana = game("Ana", Some("K7Q2XM"), "ws://10.0.0.2:3536", true);
        let games = [bo, ana];
        let mut said = Vec::new();
        let chosen = ask(&games, &mut "9\n1\n!!\nZZZZZZ\n".as_bytes(), &mut said);
        assert_eq!(chosen, Ok(("ws://10.0.0.3:3536".into(), code("ZZZZZZ"))));
        let said = String::from_utf8(said).unwrap();
        assert!(said.contains("'9' is not a game's number"), "{said}");
        assert!(said.contains("Bo's room code"), "{said}");
        assert!(said.contains("invalid room code '!!'"), "{said}");
        let mut said = Vec::new();
        assert_eq!(
            ask(&games, &mut "\n".as_bytes(), &mut said),
            Ok(("ws://10.0.0.2:3536".into(), code("K7Q2XM")))
        );
        assert_eq!(
            ask(&games, &mut "".as_bytes(), &mut said),
            Err("no LAN game chosen".into())
        );
    }
}
