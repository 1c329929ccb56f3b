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
