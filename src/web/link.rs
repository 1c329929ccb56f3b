//! What a page link asks for. The part after `#` is never sent to the
//! server, so one static page serves every room:
//!
//! - `http://HOST:3536/` opens the main menu;
//! - `http://HOST:3536/#K7Q-2XM` joins room K7Q-2XM at once;
//! - `http://HOST:3536/#watch/K7Q-2XM` watches room K7Q-2XM's match;
//! - `http://HOST:3536/#!synctest --headless --frames 600` runs any command
//!   line, as `twinstar` would (tests and benchmarks use this);
//! - `http://HOST:3536/#replay=ID` plays a ranked replay: the page's entry
//!   (`app/page.rs`) takes its whole address as `replay`'s link
//!   (`web::replay_link`), before this module is asked.

use twinstar_netcode::RoomCode;

/// Why a link's fragment names no command.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error(
        "this link's '#{0}' is neither a room code (like #K7Q-2XM), a room to watch (#watch/K7Q-2XM) nor a command line (#!...)"
    )]
    Unrecognised(String),
}

/// The command line (without the program name) a fragment asks for; the
/// fragment may start with `#` and may be percent-encoded.
pub fn args_from_fragment(fragment: &str) -> Result<Vec<String>, LinkError> {
    let text = percent_decode(fragment.strip_prefix('#').unwrap_or(fragment));
    let text = text.trim();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    if let Some(line) = text.strip_prefix('!') {
        return Ok(line.split_whitespace().map(str::to_string).collect());
    }
    let watched = text
        .split_once('/')
        .filter(|(verb, _)| verb.eq_ignore_ascii_case("watch"));
    if let Some((_, code)) = watched {
        return match RoomCode::parse(code) {
            Ok(code) => Ok(vec!["watch".into(), code.to_string()]),
            Err(_) => Err(LinkError::Unrecognised(text.to_string())),
        };
    }
    match RoomCode::parse(text) {
        Ok(code) => Ok(vec!["join".into(), code.to_string()]),
        Err(_) => Err(LinkError::Unrecognised(text.to_string())),
    }
}

/// `%20` and friends back to bytes; a malformed escape stays as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, ..) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_fragment_opens_the_menu() {
        assert_eq!(args_from_fragment(""), Ok(vec![]));
        assert_eq!(args_from_fragment("#"), Ok(vec![]));
    }

    #[test]
    fn a_room_code_joins_that_room_in_any_spelling() {
        for fragment in ["#K7Q-2XM", "k7q2xm", "#%20K7Q-2XM"] {
            assert_eq!(
                args_from_fragment(fragment),
                Ok(vec!["join".to_string(), "K7Q-2XM".to_string()]),
                "{fragment}"
            );
        }
    }

    #[test]
    fn watch_and_a_code_watches_that_room() {
        for fragment in ["#watch/K7Q-2XM", "WATCH/k7q2xm", "#watch%2FK7Q-2XM"] {
            assert_eq!(
                args_from_fragment(fragment),
                Ok(vec!["watch".to_string(), "K7Q-2XM".to_string()]),
                "{fragment}"
            );
        }
        assert_eq!(
            args_from_fragment("#watch/nope!"),
            Err(LinkError::Unrecognised("watch/nope!".into()))
        );
        assert!(args_from_fragment("#watch/").is_err());
        assert!(args_from_fragment("#look/K7Q-2XM").is_err());
    }

    #[test]
    fn a_bang_runs_a_command_line_percent_decoded() {
        assert_eq!(
            args_from_fragment("#!synctest%20--headless  --frames%20600"),
            Ok(["synctest", "--headless", "--frames", "600"]
                .map(String::from)
                .to_vec())
        );
    }

    /// The link fuzzer's finding: `#%21watch h` is the command line
    /// `watch h` (a `!` percent-encoded), not a link to a room, so its code
    /// is passed on as typed for the command line's own parser to refuse.
    #[test]
    fn a_percent_encoded_bang_is_a_command_line_too() {
        assert_eq!(
            args_from_fragment("#%21watch h"),
            Ok(["watch", "h"].map(String::from).to_vec())
        );
    }

    #[test]
    fn anything_else_is_refused_with_what_was_given() {
        assert_eq!(
            args_from_fragment("#hello"),
            Err(LinkError::Unrecognised("hello".into()))
        );
        // A stray percent sign is kept, not a panic.
        assert!(args_from_fragment("#%zz%").is_err());
    }
}
