use super::*;

fn touch(id: u64, phase: TouchPhase, x: f32, y: f32) -> Touch {
    Touch { id, phase, x, y }
}

const W: f32 = 390.0;
const H: f32 = 844.0;

#[test]
fn the_stick_is_where_the_thumb_lands() {
    let layout = TouchLayout::for_screen(W, H, Insets::NONE);
    let mut pad = TouchPad::default();
    assert!(!pad.seen);
    pad.update(
        &[touch(1, TouchPhase::Started, 80.0, 600.0)],
        &layout,
        false,
    );
    assert!(pad.seen);
    assert_eq!(pad.input(&layout), Input(0), "landing is centred");
    let r = layout.stick_radius;
    pad.update(
        &[touch(1, TouchPhase::Moved, 80.0 + r, 600.0)],
        &layout,
        false,
    );
    assert_eq!(pad.input(&layout), Input(Input::RIGHT));
    pad.update(
        &[touch(1, TouchPhase::Moved, 80.0 - r * 0.7, 600.0 - r * 0.7)],
        &layout,
        false,
    );
    assert_eq!(pad.input(&layout), Input(Input::UP | Input::LEFT));
    // A small wobble of a resting thumb does not move.
    pad.update(&[touch(1, TouchPhase::Moved, 83.0, 601.0)], &layout, false);
    assert_eq!(pad.input(&layout), Input(0));
    pad.update(&[touch(1, TouchPhase::Ended, 200.0, 600.0)], &layout, false);
    assert_eq!(pad.input(&layout), Input(0));
    assert_eq!(pad.stick(), None);
}

#[test]
fn fire_focus_and_stick_together() {
    let layout = TouchLayout::for_screen(W, H, Insets::NONE);
    let mut pad = TouchPad::default();
    let (f, g) = (layout.fire, layout.focus);
    pad.update(
        &[
            touch(1, TouchPhase::Started, 60.0, 500.0),
            touch(2, TouchPhase::Started, f.x, f.y),
            touch(3, TouchPhase::Started, g.x, g.y),
        ],
        &layout,
        false,
    );
    pad.update(&[touch(1, TouchPhase::Moved, 60.0, 400.0)], &layout, false);
    assert_eq!(
        pad.input(&layout),
        Input(Input::UP | Input::FIRE | Input::FOCUS)
    );
    // A finger that slides off the fire button keeps firing until it lifts.
    pad.update(&[touch(2, TouchPhase::Moved, 10.0, 10.0)], &layout, false);
    assert!(pad.holding_fire());
    pad.update(&[touch(2, TouchPhase::Cancelled, 0.0, 0.0)], &layout, false);
    assert!(!pad.holding_fire());
    assert!(pad.holding_focus());
}

#[test]
fn the_right_thumb_aims_and_fires_and_the_bomb_button_bombs() {
    for (w, h) in [(W, H), (H, W)] {
        let layout = TouchLayout::for_screen(w, h, Insets::NONE);
        let mut pad = TouchPad::default();
        // Right of the stick's zone, off every button.
        let (x, y) = (w * 0.7, h * 0.3);
        pad.update(&[touch(1, TouchPhase::Started, x, y)], &layout, false);
        assert_eq!(pad.input(&layout), Input(0), "landing is centred");
        let r = layout.stick_radius;
        pad.update(&[touch(1, TouchPhase::Moved, x, y - r)], &layout, false);
        let input = pad.input(&layout);
        assert_eq!(input.aim(), Some(24), "up is aim direction 24");
        assert!(input.has(Input::FIRE));
        assert!(pad.aim_stick().is_some());
        let b = layout.bomb;
        pad.update(&[touch(2, TouchPhase::Started, b.x, b.y)], &layout, false);
        assert!(pad.input(&layout).has(Input::BOMB) && pad.holding_bomb());
    }
}

#[test]
fn start_only_when_shown() {
    let layout = TouchLayout::for_screen(844.0, 390.0, Insets::NONE);
    let s = layout.start;
    let mut pad = TouchPad::default();
    pad.update(&[touch(1, TouchPhase::Started, s.x, s.y)], &layout, false);
    assert!(!pad.input(&layout).has(Input::START));
    pad.update(&[touch(1, TouchPhase::Ended, s.x, s.y)], &layout, false);
    pad.update(&[touch(2, TouchPhase::Started, s.x, s.y)], &layout, true);
    assert_eq!(pad.input(&layout), Input(Input::START));
}

/// An iPhone-like notch and home indicator, upright and sideways.
fn notch(w: f32, h: f32) -> Insets {
    if w > h {
        Insets {
            top: 0.0,
            right: 47.0,
            bottom: 21.0,
            left: 47.0,
        }
    } else {
        Insets {
            top: 47.0,
            right: 0.0,
            bottom: 34.0,
            left: 0.0,
        }
    }
}

#[test]
fn the_buttons_fit_portrait_and_landscape_screens() {
    for (w, h) in [
        (390.0, 844.0),
        (844.0, 390.0),
        (1280.0, 720.0),
        (320.0, 568.0),
    ] {
        for safe in [Insets::NONE, notch(w, h)] {
            let l = TouchLayout::for_screen(w, h, safe);
            for b in [l.fire, l.focus, l.start] {
                assert!(
                    b.x - b.r >= safe.left && b.x + b.r <= w - safe.right,
                    "{w}x{h} {safe:?}: {b:?}"
                );
                assert!(
                    b.y - b.r >= safe.top && b.y + b.r <= h - safe.bottom,
                    "{w}x{h} {safe:?}: {b:?}"
                );
                assert!(b.x > l.stick_zone || b == l.start, "{w}x{h}: right side");
            }
            // Sideways, fire and focus stay in their column beside the
            // arena; upright there is no column.
            for b in [l.fire, l.focus].into_iter().filter(|_| l.side > 0.0) {
                assert!(
                    b.x - b.r >= w - l.side - 0.01,
                    "{w}x{h}: {b:?} in the column"
                );
            }
            assert_eq!(l.side > 0.0, w > h * 1.2, "{w}x{h}");
        }
    }
}

#[test]
fn the_interface_scale_grows_the_buttons_and_keeps_them_on_screen() {
    for (w, h) in [(390.0, 844.0), (844.0, 390.0), (1280.0, 720.0)] {
        let one = TouchLayout::for_screen(w, h, Insets::NONE);
        assert_eq!(one, TouchLayout::for_screen_scaled(w, h, Insets::NONE, 1.0));
        let two = TouchLayout::for_screen_scaled(w, h, Insets::NONE, 2.0);
        assert!(
            two.fire.r > one.fire.r * 1.3,
            "{w}x{h}: {} vs {}",
            two.fire.r,
            one.fire.r
        );
        for b in [two.fire, two.focus, two.start] {
            assert!(
                b.x - b.r >= 0.0 && b.x + b.r <= w && b.y - b.r >= 0.0 && b.y + b.r <= h,
                "{w}x{h}: {b:?} leaves the screen"
            );
        }
    }
}

#[test]
fn a_button_is_thumb_sized_on_any_screen() {
    // Logical pixels: a phone, a small phone, a tablet, a desktop
    // touch screen; the same phone at any pixel ratio is the same
    // logical size, so it gets the same layout.
    for (w, h) in [
        (390.0, 844.0),
        (320.0, 568.0),
        (1024.0, 1366.0),
        (1920.0, 1080.0),
    ] {
        let l = TouchLayout::for_screen(w, h, Insets::NONE);
        assert!(
            (BUTTON_RADIUS.0..=BUTTON_RADIUS.1).contains(&l.focus.r),
            "{w}x{h}: focus radius {}",
            l.focus.r
        );
    }
}

#[test]
fn bad_insets_are_no_insets() {
    let bad = Insets {
        top: f32::NAN,
        right: -3.0,
        bottom: 900.0,
        left: f32::INFINITY,
    };
    assert_eq!(bad.checked(390.0, 844.0), Insets::NONE);
    let fine = notch(390.0, 844.0);
    assert_eq!(fine.checked(390.0, 844.0), fine);
}

#[test]
fn bad_touches_are_ignored() {
    let layout = TouchLayout::for_screen(W, H, Insets::NONE);
    let mut pad = TouchPad::default();
    pad.update(
        &[touch(1, TouchPhase::Started, f32::NAN, 3.0)],
        &layout,
        false,
    );
    pad.update(&[touch(9, TouchPhase::Ended, 1.0, 1.0)], &layout, false);
    assert_eq!(pad.input(&layout), Input(0));
    let many: Vec<Touch> = (0..50)
        .map(|i| touch(i, TouchPhase::Started, 10.0, 10.0 + i as f32))
        .collect();
    pad.update(&many, &layout, false);
    assert_eq!(pad.input(&layout), Input(0));
    assert_eq!(pad.fingers.len(), MAX_FINGERS);
    let _ = TouchLayout::for_screen(0.0, 0.0, Insets::NONE);
}
