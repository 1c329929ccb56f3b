use super::*;
use crate::frontend::match_menu::{MatchMenu, MenuKind};
use crate::input::touch::{Insets, TouchLayout};

/// Every interface scale the settings offer.
const SCALES: [f32; 5] = [1.0, 1.25, 1.5, 1.75, 2.0];
/// A window, a big monitor, a phone upright and a phone sideways.
const SCREENS: [(f32, f32); 4] = [
    (1280.0, 720.0),
    (1920.0, 1080.0),
    (390.0, 844.0),
    (844.0, 390.0),
];

/// The widest figures a match can show.
fn widest() -> HudFigures {
    HudFigures {
        names: ["Sixteen_chars_ab".into(), "another-long-one".into()],
        scores: [9_999_999, 9_999_999],
        kit: [
            "BOMBS 3 SPREAD 12s SHIELD".into(),
            "BOMBS 3 PIERCE 12s SHIELD".into(),
        ],
        kit_short: ["B3 SPR 12s SH".into(), "B3 PIE 12s SH".into()],
        wave: 99,
        team: 99_999_999,
        combo: Some("x8 MAX  COMBO 999".into()),
    }
}

/// Fails with the screen and scale when a rectangle leaves the screen
/// or two overlap.
fn check(what: &str, rects: &[(String, Rect)], w: f32, h: f32, ui: f32) {
    for (text, r) in rects {
        assert!(
            r.x >= 0.0 && r.y >= 0.0 && r.x + r.w <= w && r.y + r.h <= h,
            "{what} at {w}x{h}, {ui}x: '{text}' leaves the screen: {r:?}"
        );
    }
    for (i, (a, ra)) in rects.iter().enumerate() {
        for (b, rb) in &rects[i + 1..] {
            assert!(
                !overlap(ra, rb),
                "{what} at {w}x{h}, {ui}x: '{a}' {ra:?} overlaps '{b}' {rb:?}"
            );
        }
    }
}

fn rects(texts: &[Text], ui: f32) -> Vec<(String, Rect)> {
    texts.iter().map(|t| (t.text.clone(), t.rect(ui))).collect()
}

/// The touch buttons of that screen, as rectangles around their
/// circles, and the MENU button on a phone (where touch is played).
fn buttons(w: f32, h: f32, ui: f32, arena: &Layout) -> Vec<Rect> {
    let touch = TouchLayout::for_screen_scaled(w, h, Insets::NONE, ui);
    let mut out: Vec<Rect> = [touch.fire, touch.focus, touch.bomb]
        .into_iter()
        .map(|b| Rect::new(b.x - b.r, b.y - b.r, 2.0 * b.r, 2.0 * b.r))
        .collect();
    if w.min(h) < 500.0 {
        out.push(menu_button(w, h, touch.side, arena));
    }
    out
}

#[test]
fn the_hud_fits_every_screen_at_every_scale_and_no_touch_button_covers_it() {
    for (w, h) in SCREENS {
        for ui in SCALES {
            let side = TouchLayout::for_screen_scaled(w, h, Insets::NONE, ui).side;
            let arena = Layout::fit_in(w, h, side);
            let (texts, _) = hud(&widest(), &arena, ui);
            let placed = rects(&texts, ui);
            check("the HUD", &placed, w, h, ui);
            for button in buttons(w, h, ui, &arena) {
                for (text, r) in &placed {
                    assert!(
                        !overlap(r, &button),
                        "at {w}x{h}, {ui}x a touch button {button:?} covers '{text}'"
                    );
                }
            }
        }
    }
}

#[test]
fn the_pause_menus_fit_every_screen_at_every_scale() {
    for (w, h) in SCREENS {
        for ui in SCALES {
            for kind in [MenuKind::Pause, MenuKind::Leave] {
                let menu = MatchMenu::open(kind);
                let texts = crate::frontend::match_menu::texts(&menu, w, h, ui);
                check("a match's menu", &rects(&texts, ui), w, h, ui);
            }
        }
    }
}

#[test]
fn the_result_panel_fits_every_screen_at_every_scale() {
    let long_path = "replays/20261129-120203-online-seed1234567890123456789-2.tsr";
    let lines = crate::frontend::hud::sample_result_lines(long_path);
    for (w, h) in SCREENS {
        for ui in SCALES {
            let (panel, texts) = crate::frontend::hud::result_texts(&lines, w, h, ui);
            // The board's place is never what is left out for room.
            assert!(
                texts.iter().any(|t| t.text.starts_with("board: #")),
                "at {w}x{h}, {ui}x the board's line is left out"
            );
            let placed = rects(&texts, ui);
            check("the result panel", &placed, w, h, ui);
            for (text, r) in &placed {
                assert!(
                    r.x >= panel.x && r.x + r.w <= panel.x + panel.w,
                    "at {w}x{h}, {ui}x '{text}' leaves the panel"
                );
            }
        }
    }
}

#[test]
fn the_main_menu_and_a_long_list_fit_every_screen_at_every_scale() {
    use crate::frontend::menu::ListLayout;
    let details = [
        "a co-op arena shooter with rollback netcode".to_string(),
        "twinstar 0.1.0".to_string(),
        "your best: solo 99999999 (wave 99), co-op 99999999 (wave 99), online 9999999 (wave 99)"
            .to_string(),
        "last run: online 99999999 points, wave 99".to_string(),
    ];
    let menu = crate::app::main_menu_labels(true);
    let settings: Vec<String> = (0..40)
        .map(|i| format!("a settings row {i}: a value"))
        .collect();
    let pads =
        "gamepads: Xbox Wireless Controller, DualSense  -  d-pad/stick choose, A pick, B back";
    for (w, h) in SCREENS {
        for ui in SCALES {
            for (title, details, items) in [
                ("TWINSTAR", &details[..], &menu[..]),
                ("SETTINGS", &details[..2], &settings[..]),
            ] {
                let layout = ListLayout::for_screen(w, h, ui, details.len(), items.len(), title);
                for selected in [0, items.len() - 1] {
                    let texts = layout.texts(title, details, items, selected, Some(pads));
                    check(title, &rects(&texts, ui), w, h, ui);
                }
            }
        }
    }
}

/// Records with the most lines and the widest figures: every way of
/// playing on every preset, ten long runs of long ago.
fn fullest_records() -> crate::records::Records {
    use crate::records::{LAST_RUNS, Records, Run};
    let mut records = Records::default();
    for preset in ["default", "stress", "custom"] {
        for mode in ["solo", "co-op", "online"] {
            let run = |score| Run {
                mode: mode.into(),
                preset: preset.into(),
                team_score: score,
                wave: 999,
                seconds: 59_999,
                ended_unix: Some(0),
            };
            records.add(run(1));
            records.add(run(99_999_999));
        }
    }
    assert_eq!(records.bests.len(), 9);
    assert_eq!(records.runs.len(), LAST_RUNS);
    records
}

#[test]
fn the_records_screen_fits_every_screen_at_every_scale_and_shows_every_run() {
    use crate::frontend::records_screen::texts;
    let full = fullest_records().lines(Some(99 * 86_400));
    let empty = crate::records::Records::default().lines(None);
    for (w, h) in SCREENS {
        for ui in SCALES {
            for lines in [&full, &empty] {
                let placed = texts(lines, w, h, ui);
                check("the records screen", &rects(&placed, ui), w, h, ui);
                // The title, every line, the hint: nothing left out.
                assert_eq!(placed.len(), lines.len() + 2, "at {w}x{h}, {ui}x");
            }
        }
    }
}

#[test]
fn the_controls_card_fits_every_screen_at_every_scale() {
    use crate::frontend::controls_card::{Device, texts};
    use crate::input::{KeyMap, PadMap};
    let two = [
        (0, Device::Keys(KeyMap::PLAYER_ONE)),
        (1, Device::Pad(PadMap::STANDARD)),
    ];
    for (w, h) in SCREENS {
        for ui in SCALES {
            for players in [&two[..1], &two[..], &[(0, Device::Touch)][..]] {
                let placed = rects(&texts(players, "any key to go on", w, h, ui).1, ui);
                check("the controls card", &placed, w, h, ui);
            }
        }
    }
}
