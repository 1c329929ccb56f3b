use super::*;

#[test]
fn round_trips_and_an_empty_file_means_defaults() {
    assert_eq!(
        Settings::from_bytes(Vec::new()).unwrap(),
        Settings::default()
    );
    let mut s = Settings {
        server: "ws://192.168.1.20:3536".into(),
        input_delay: DelaySetting::Fixed(3),
        volume: 25,
        music_volume: 0,
        net_overlay: true,
        chat: false,
        ..Settings::default()
    };
    s.player_two.set(Action::Fire, KeyCode::Kp0);
    let text = s.to_text();
    assert!(text.contains("input_delay = \"3\""), "{text}");
    assert!(text.contains("fire = \"Kp0\""), "{text}");
    assert!(text.contains("chat = false"), "{text}");
    assert!(text.contains("music_volume = 0"), "{text}");
    let back = Settings::from_bytes(text.into_bytes()).unwrap();
    assert_eq!(back, s);
    assert_eq!(back.keymaps()[1].fire, KeyCode::Kp0);
    assert_eq!(back.delay(), DelaySetting::Fixed(3));
}

#[test]
fn pad_settings_round_trip_and_bad_ones_are_refused() {
    let mut s = Settings::default();
    s.pad.step_dead_zone(1, false);
    s.pad.step_button(PadAction::Fire, 2, false);
    s.pad.keyboard_is_player_one = true;
    let text = s.to_text();
    assert!(text.contains("[pad]"), "{text}");
    assert!(text.contains("\"x\""), "{text}");
    assert!(text.contains("dead_zone = 30"), "{text}");
    let back = Settings::from_bytes(text.into_bytes()).unwrap();
    assert_eq!(back, s);
    assert_eq!(back.pad.map().fire, [PadButton::X, PadButton::RightTrigger]);
    assert!((back.pad.map().dead_zone - 0.30).abs() < 1e-6);
    // One name binds both buttons of an action.
    let one = Settings::from_bytes(b"[pad]\nfocus = \"rb\"\n".to_vec()).unwrap();
    assert_eq!(one.pad.focus, [PadButton::RightShoulder; 2]);
    assert_eq!(one.pad.dead_zone, 25, "the rest stays default");
    for bad in [
        "[pad]\ndead_zone = 99\n",
        "[pad]\ndead_zone = 0\n",
        "[pad]\nfire = \"turbo\"\n",
        "[pad]\nfire = [\"a\", \"b\", \"x\"]\n",
        "[pad]\nrumble = true\n",
    ] {
        assert!(Settings::from_bytes(bad.into()).is_err(), "{bad}");
    }
}

#[test]
fn files_written_by_earlier_builds_still_load() {
    let text = "server = \"ws://10.0.0.2:3536/\"\ninput_delay = \"auto\"\nvolume = 40\n\
                    net_overlay = false\n\n[player_one]\nup = \"W\"\ndown = \"S\"\n\
                    left = \"A\"\nright = \"D\"\nfire = \"Space\"\nfocus = \"LeftShift\"\n\
                    start = \"Key1\"\n";
    let s = Settings::from_bytes(text.into()).unwrap();
    assert_eq!(s.delay(), DelaySetting::Auto);
    assert_eq!(s.server(), Some("ws://10.0.0.2:3536"));
    // No music volume in the file: the default one.
    assert_eq!(s.music_volume, 50);
    // No bomb key in the file: the player's default one.
    assert_eq!(s.player_one.bomb, None);
    assert_eq!(
        s.keymaps()[0].keys(),
        Settings::default().keymaps()[0].keys()
    );
    assert!(s.chat, "chat is on unless the file turns it off");
    // A bare number is what people write by hand.
    assert_eq!(
        Settings::from_bytes(b"input_delay = 2".to_vec())
            .unwrap()
            .delay(),
        DelaySetting::Fixed(2)
    );
}

#[test]
fn a_name_is_kept_trimmed_and_empty_means_none() {
    let s = Settings::from_bytes(b"name = \" Ana Mar\xc3\xada \"".to_vec()).unwrap();
    assert_eq!(s.name, "Ana María");
    assert_eq!(s.name().unwrap().as_str(), "Ana María");
    assert_eq!(Settings::default().name(), None);
    let round = Settings::from_bytes(s.to_text().into_bytes()).unwrap();
    assert_eq!(round, s);
}

#[test]
fn a_broken_file_is_refused_in_one_line() {
    for text in [
        "volume = 300",
        "music_volume = 101",
        "input_delay = \"fast\"",
        "input_delay = 9",
        "[player_one]\nup = \"Escape\"",
        "nonsense",
        "speed = 3",
        "server = \"http://example.org\"",
        "server = \"ws://example.org/K7Q2XM\"",
        "name = \"Ana!\"",
        "name = \"seventeen letters\"",
    ] {
        let err = Settings::from_bytes(text.into()).unwrap_err();
        assert!(!err.is_empty() && !err.contains('\n'), "{text}: {err}");
    }
    let err =
        Settings::from_bytes(b"volume = 5\n[player_one]\nup = \"Escape\"".to_vec()).unwrap_err();
    assert!(err.contains("line 3: unknown key 'Escape'"), "{err}");
    assert!(Settings::from_bytes(vec![0xff, 0xfe]).is_err(), "not UTF-8");
}

#[test]
fn a_partial_file_fills_in_defaults() {
    let s = Settings::from_bytes(b"volume = 5\n".to_vec()).unwrap();
    assert_eq!(s.volume, 5);
    assert_eq!(s.player_one, Settings::default().player_one);
}

#[test]
fn delay_and_volume_step_with_arrows_and_wrap_with_enter() {
    let mut s = Settings::default();
    let mut seen = vec![s.input_delay];
    for _ in 0..10 {
        s.step_delay(1, true);
        seen.push(s.input_delay);
    }
    assert_eq!(seen[1], DelaySetting::Fixed(0));
    assert_eq!(seen[9], DelaySetting::Fixed(8));
    assert_eq!(seen[10], DelaySetting::Auto, "Enter goes round");
    s.step_delay(-1, false);
    assert_eq!(s.input_delay, DelaySetting::Auto, "Left stops at auto");
    s.input_delay = DelaySetting::Fixed(8);
    s.step_delay(1, false);
    assert_eq!(s.input_delay, DelaySetting::Fixed(8), "Right stops at 8");
    s.step_delay(-1, false);
    assert_eq!(s.input_delay, DelaySetting::Fixed(7));

    s.volume = 95;
    s.step_volume(1, false);
    assert_eq!(s.volume, 100);
    s.step_volume(1, false);
    assert_eq!(s.volume, 100);
    s.step_volume(1, true);
    assert_eq!(s.volume, 0);
    s.step_volume(-1, false);
    assert_eq!(s.volume, 0);
    s.step_volume(1, false);
    assert_eq!(s.volume, 10);
    assert!(s.validate().is_ok());
}

#[test]
fn music_volume_steps_apart_from_the_sounds() {
    let mut s = Settings::default();
    assert_eq!((s.volume, s.music_volume), (70, 50));
    s.step_music_volume(1, false);
    assert_eq!((s.volume, s.music_volume), (70, 60));
    s.music_volume = 100;
    s.step_music_volume(1, false);
    assert_eq!(s.music_volume, 100);
    s.step_music_volume(1, true);
    assert_eq!(s.music_volume, 0);
    s.step_music_volume(-1, false);
    assert_eq!(s.music_volume, 0);
}

#[test]
fn bindings_are_set_by_action() {
    let mut keys = Settings::default().player_one;
    for (i, action) in Action::ALL.into_iter().enumerate() {
        keys.set(action, BINDABLE_KEYS[i]);
    }
    let map = keys.map();
    assert_eq!(
        [
            map.up, map.down, map.left, map.right, map.fire, map.focus, map.start, map.bomb
        ],
        [
            KeyCode::A,
            KeyCode::B,
            KeyCode::C,
            KeyCode::D,
            KeyCode::E,
            KeyCode::F,
            KeyCode::G,
            KeyCode::H
        ]
    );
    assert_eq!(Keys::from_map(&map), keys);
}

#[test]
fn key_names_round_trip() {
    for key in BINDABLE_KEYS {
        assert_eq!(parse_key(&key_name(*key)).unwrap(), *key);
    }
    assert!(parse_key("Escape").is_err());
    assert_eq!(parse_key("leftshift").unwrap(), KeyCode::LeftShift);
}
