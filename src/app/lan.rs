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
#[path = "lan_tests.rs"]
mod tests;
