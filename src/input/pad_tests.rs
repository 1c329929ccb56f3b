use super::*;

const DZ: f32 = PadMap::DEFAULT_DEAD_ZONE;

fn at_degrees(deg: f32, travel: f32) -> (f32, f32) {
    let r = deg.to_radians();
    // 0° is right, 90° is down (y grows downwards).
    (travel * r.cos(), travel * r.sin())
}

#[test]
fn the_dead_zone_is_centred_and_a_push_past_it_moves() {
    assert_eq!(stick_direction((0.0, 0.0), DZ), 0);
    assert_eq!(stick_direction((0.2, 0.1), DZ), 0);
    assert_eq!(stick_direction((-0.17, -0.17), DZ), 0, "diagonal inside");
    assert_eq!(stick_direction((0.3, 0.0), DZ), Input::RIGHT);
    // Radial: a diagonal just past the zone is a diagonal, not nothing.
    let (x, y) = at_degrees(-45.0, DZ + 0.02);
    assert_eq!(stick_direction((x, y), DZ), Input::UP | Input::RIGHT);
    // A bigger zone swallows the same push.
    assert_eq!(stick_direction((0.3, 0.0), 0.5), 0);
}

#[test]
fn all_eight_directions_at_full_travel() {
    let want = [
        (0.0, Input::RIGHT),
        (45.0, Input::DOWN | Input::RIGHT),
        (90.0, Input::DOWN),
        (135.0, Input::DOWN | Input::LEFT),
        (180.0, Input::LEFT),
        (225.0, Input::UP | Input::LEFT),
        (270.0, Input::UP),
        (315.0, Input::UP | Input::RIGHT),
    ];
    for (deg, bits) in want {
        assert_eq!(stick_direction(at_degrees(deg, 1.0), DZ), bits, "{deg}°");
    }
}

#[test]
fn diagonals_hold_wider_than_straight_directions() {
    // 25° off a diagonal is still that diagonal (equal sectors would
    // give up at 22.5°) ...
    for off in [-25.0, 25.0] {
        assert_eq!(
            stick_direction(at_degrees(45.0 + off, 0.9), DZ),
            Input::DOWN | Input::RIGHT,
            "{off}° off the diagonal"
        );
    }
    // ... and straight right holds for 15° either side.
    for off in [-15.0, 15.0] {
        assert_eq!(stick_direction(at_degrees(off, 0.9), DZ), Input::RIGHT);
    }
    // Sweep the circle: the diagonals get more of it.
    let (mut diagonal, mut straight) = (0, 0);
    for deg in 0..360 {
        match stick_direction(at_degrees(deg as f32 + 0.5, 1.0), DZ).count_ones() {
            2 => diagonal += 1,
            1 => straight += 1,
            n => panic!("{n} bits at {deg}°"),
        }
    }
    assert!(
        diagonal > straight,
        "{diagonal}° diagonal, {straight}° straight"
    );
    assert_eq!(diagonal + straight, 360);
}

#[test]
fn bad_readings_do_not_move_or_panic() {
    for v in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        assert_eq!(stick_direction((v, v), DZ), 0);
    }
    // Beyond full travel counts as full travel.
    assert_eq!(stick_direction((7.0, 0.0), DZ), Input::RIGHT);
    // A NaN dead zone clamps to none at all, still no panic.
    assert_eq!(stick_direction((1.0, 0.0), f32::NAN), Input::RIGHT);
    let pad = PadState {
        left_trigger: f32::NAN,
        right_trigger: f32::NAN,
        stick: (f32::NAN, 0.0),
        right_stick: (f32::INFINITY, f32::NAN),
        buttons: u32::MAX,
    };
    let _ = PadMap::STANDARD.read(&pad);
}

#[test]
fn buttons_and_triggers_map_to_fire_focus_start() {
    let map = PadMap::STANDARD;
    let read = |pad: PadState| map.read(&pad);
    let idle = PadState::default();
    assert_eq!(read(idle), Input(0));
    assert_eq!(read(idle.with(PadButton::A)), Input(Input::FIRE));
    assert_eq!(read(idle.with(PadButton::RightTrigger)), Input(Input::FIRE));
    let half_trigger = PadState {
        right_trigger: 0.6,
        ..idle
    };
    assert_eq!(read(half_trigger), Input(Input::FIRE));
    let light_trigger = PadState {
        right_trigger: 0.2,
        ..idle
    };
    assert_eq!(read(light_trigger), Input(0), "a trigger barely touched");
    assert_eq!(
        read(idle.with(PadButton::LeftShoulder)),
        Input(Input::FOCUS)
    );
    let left_trigger = PadState {
        left_trigger: 1.0,
        ..idle
    };
    assert_eq!(read(left_trigger), Input(Input::FOCUS));
    assert_eq!(read(idle.with(PadButton::Start)), Input(Input::START));
    // B and Back are not sim inputs; they leave.
    assert_eq!(
        read(idle.with(PadButton::B).with(PadButton::Back)),
        Input(0)
    );
    assert!(map.holding_back(&idle.with(PadButton::B)));
    // X and the right shoulder bomb; the right stick aims (up is 24).
    assert_eq!(read(idle.with(PadButton::X)), Input(Input::BOMB));
    assert_eq!(
        read(idle.with(PadButton::RightShoulder)),
        Input(Input::BOMB)
    );
    let aiming = PadState {
        right_stick: (0.0, -0.9),
        ..idle
    };
    assert_eq!(read(aiming).aim(), Some(24));
    let resting = PadState {
        right_stick: (0.1, 0.1),
        ..idle
    };
    assert_eq!(read(resting).aim(), None, "inside the dead zone");
    assert!(map.holding_back(&idle.with(PadButton::Back)));
    // The d-pad moves, diagonals included, and adds to the stick.
    let dpad = idle.with(PadButton::Up).with(PadButton::Left);
    assert_eq!(read(dpad), Input(Input::UP | Input::LEFT));
    let everything = PadState {
        stick: (0.0, 1.0),
        ..idle.with(PadButton::A).with(PadButton::LeftShoulder)
    };
    assert_eq!(
        read(everything),
        Input(Input::DOWN | Input::FIRE | Input::FOCUS)
    );
}

#[test]
fn remapped_buttons_follow_the_map() {
    let map = PadMap {
        fire: [PadButton::X, PadButton::X],
        focus: [PadButton::RightShoulder, PadButton::RightShoulder],
        bomb: [PadButton::Y, PadButton::Y],
        ..PadMap::STANDARD
    };
    let idle = PadState::default();
    assert_eq!(map.read(&idle.with(PadButton::A)), Input(0));
    assert_eq!(map.read(&idle.with(PadButton::X)), Input(Input::FIRE));
    assert_eq!(
        map.read(&idle.with(PadButton::RightShoulder)),
        Input(Input::FOCUS)
    );
    for b in PadButton::ALL {
        assert_eq!(PadButton::from_name(b.name()), Some(b));
    }
    assert_eq!(PadButton::from_name("turbo"), None);
}

#[test]
fn two_pads_are_two_players_unless_the_keyboard_is_player_one() {
    assert_eq!(assign_pads::<2>(&[], false), [None, None]);
    assert_eq!(assign_pads::<2>(&[7], false), [Some(7), None]);
    assert_eq!(assign_pads::<2>(&[7, 3], false), [Some(7), Some(3)]);
    assert_eq!(assign_pads::<2>(&[7], true), [None, Some(7)]);
    assert_eq!(assign_pads::<2>(&[7, 3], true), [None, Some(7)]);
    assert_eq!(assign_pads::<2>(&[1, 2, 3], false), [Some(1), Some(2)]);
    // Online there is one local player: the keyboard and a pad share it.
    assert_eq!(assign_pads::<1>(&[4], true), [Some(4)]);
}

#[test]
fn menu_moves_once_per_press_then_repeat_while_held() {
    let map = PadMap::STANDARD;
    let mut menu = MenuReader::default();
    let down = PadState::default().with(PadButton::Down);
    assert_eq!(menu.update(&map, &down), vec![MenuMove::Down]);
    let mut repeats = 0;
    for _ in 1..REPEAT_DELAY + 2 * REPEAT_EVERY {
        repeats += menu.update(&map, &down).len();
    }
    assert_eq!(repeats, 2, "two repeats after the delay");
    assert_eq!(menu.update(&map, &PadState::default()), vec![]);
    // A light stick does not scroll; a firm one does.
    let light = PadState {
        stick: (0.0, -0.4),
        ..PadState::default()
    };
    assert_eq!(menu.update(&map, &light), vec![]);
    let firm = PadState {
        stick: (0.0, -0.9),
        ..PadState::default()
    };
    assert_eq!(menu.update(&map, &firm), vec![MenuMove::Up]);
    let a = PadState::default().with(PadButton::A);
    assert_eq!(menu.update(&map, &a), vec![MenuMove::Confirm]);
    assert_eq!(menu.update(&map, &a), vec![], "held A confirms once");
    let b = PadState::default().with(PadButton::B);
    assert_eq!(menu.update(&map, &b), vec![MenuMove::Back]);
}
