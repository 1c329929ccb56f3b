//! The real binary in a real (virtual) window: `scripts/screenshots.sh`
//! captures nine screens; each must show something, and no two the same;
//! the boss fight's match has a boss alive at the frame it shows.
//! Needs Xvfb (scripts/test.sh installs it as root) or a display.

use crate::common;

use common::picture::{Picture, load, richness};

use std::path::{Path, PathBuf};
use std::process::Command;

use twinstar::sim::{ARENA_HEIGHT, ARENA_WIDTH, EnemyKind, OWNER_ENEMY, Vec2 as SimVec2, World};

const SCREENS: [&str; 9] = [
    "menu",
    "host",
    "local",
    "boss",
    "result",
    "overlay",
    "online",
    "replay",
    "interrupted",
];

/// The frame of the boss fight's picture (`--frames` of boss.png in the script).
const BOSS_FRAME: u32 = 720;

/// Fraction of pixels that differ noticeably between two pictures.
fn difference(a: &Picture, b: &Picture) -> f64 {
    assert_eq!((a.width, a.height), (b.width, b.height));
    let differing = a
        .rgb
        .chunks_exact(3)
        .zip(b.rgb.chunks_exact(3))
        .filter(|(x, y)| x.iter().zip(y.iter()).any(|(p, q)| p.abs_diff(*q) > 24))
        .count();
    differing as f64 / (a.width * a.height) as f64
}

#[test]
fn every_screen_is_drawn_and_each_is_different() {
    let out: PathBuf = common::scratch("shots");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/screenshots.sh");
    let status = Command::new("bash")
        .arg(&script)
        .arg(&out)
        .env("TWINSTAR_BIN", common::BIN)
        .env("TWINSTAR_SHOTS_REPLAYS", &out)
        // The window's pictures only: the page's three (web-screenshots.sh)
        // need the web build and Chromium, and are checked only to exist
        // (readme_images.rs).
        .env("TWINSTAR_SHOTS_WEB", "off")
        .env_remove("DISPLAY")
        .status()
        .expect("bash runs");
    assert!(
        status.success(),
        "scripts/screenshots.sh failed ({status}); it needs Xvfb: apt-get install xvfb libgl1-mesa-dri"
    );
    let pictures: Vec<(&str, Picture)> = SCREENS
        .iter()
        .map(|name| (*name, load(&out.join(format!("{name}.png")))))
        .collect();
    for (name, p) in &pictures {
        assert_eq!((p.width, p.height), (1280, 720), "{name}");
        let (colours, spread) = richness(p);
        assert!(
            colours >= 8 && spread >= 8.0,
            "{name} looks blank: {colours} colours, brightness spread {spread:.1}"
        );
    }
    for (i, (a, pa)) in pictures.iter().enumerate() {
        for (b, pb) in &pictures[i + 1..] {
            let d = difference(pa, pb);
            assert!(
                d > 0.02,
                "{a} and {b} differ in only {:.2} % of pixels",
                d * 100.0
            );
        }
    }
    let replay = twinstar::replay::read(&out.join("local-colour-blind.tsr"))
        .expect("the colour-blind match's replay");
    let world = twinstar::replay::simulate_to(&replay, 2900).expect("its world at frame 2900");
    colour_blind_pairs_stay_apart(&load(&out.join("local-colour-blind.png")), &world);
    let replay = twinstar::replay::read(&out.join("boss.tsr")).expect("the boss fight's replay");
    let world = twinstar::replay::simulate_to(&replay, BOSS_FRAME).expect("its world");
    assert!(
        world.boss().is_some() && !world.is_game_over(),
        "no boss fight at frame {BOSS_FRAME} of boss.png's match (wave {}): pick another frame in scripts/screenshots.sh",
        world.spawner.wave
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// The least colour difference (CIE 1976 ΔE in L*a*b*) that each pair a
/// player must tell apart keeps on the colour-blind screenshot, seen with
/// normal vision and simulated deuteranopia and protanopia: 20 is a
/// difference anyone sees at a glance (2.3 is the smallest noticeable).
const MIN_DELTA_E: f64 = 20.0;

/// The colour-blind palette (src/frontend/look.rs, `palette`).
const PLAYER_ONE: [u8; 3] = [0x56, 0xb4, 0xe9];
const PLAYER_TWO: [u8; 3] = [0xe6, 0x9f, 0x00];
const ENEMY_BULLET: [u8; 3] = [0xd5, 0x5e, 0x00];
const PLAYER_BULLET: [u8; 3] = [0x00, 0x9e, 0x73];

/// Machado, Oliveira and Fernandes (2009), severity 1, on linear RGB.
const DEUTERANOPIA: [[f64; 3]; 3] = [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.011820, 0.042940, 0.968881],
];
const PROTANOPIA: [[f64; 3]; 3] = [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
];
const NORMAL: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

fn linear(c: f64) -> f64 {
    let c = c / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// A linear-RGB colour (D65) in CIE L*a*b*.
fn lab(rgb: [f64; 3]) -> [f64; 3] {
    let [r, g, b] = rgb.map(|c| c.clamp(0.0, 1.0));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 0.008856 {
            t.cbrt()
        } else {
            7.787 * t + 16.0 / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// How `rgb` (sRGB bytes) looks through `vision`, in L*a*b*.
fn seen(rgb: [f64; 3], vision: &[[f64; 3]; 3]) -> [f64; 3] {
    let l = rgb.map(linear);
    lab(vision.map(|row| row[0] * l[0] + row[1] * l[1] + row[2] * l[2]))
}

fn delta_e(a: [f64; 3], b: [f64; 3]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// Where the screenshot's window draws an arena point: 1280×720 with no
/// touch controls and, with reduced motion, no shake (`scene::Layout::fit`
/// with `side` 0).
fn to_screen(p: SimVec2) -> [f64; 2] {
    let (aw, ah) = (ARENA_WIDTH.to_num::<f64>(), ARENA_HEIGHT.to_num::<f64>());
    let scale = scale();
    let origin = [(1280.0 - aw * scale) / 2.0, (720.0 - ah * scale) / 2.0];
    [
        origin[0] + p.x.to_num::<f64>() * scale,
        origin[1] + p.y.to_num::<f64>() * scale,
    ]
}

/// Pixels per arena unit in that window.
fn scale() -> f64 {
    (1280.0 / ARENA_WIDTH.to_num::<f64>()).min(720.0 / ARENA_HEIGHT.to_num::<f64>())
}

/// A thing on the frame: where it is on screen, and how far around that
/// its marker may be drawn (its size, plus up to a frame of motion: the
/// window interpolates between the last two frames).
struct Place {
    at: [f64; 2],
    reach: f64,
}

/// The mean of the screenshot's pixels within 8 of `colour` on every
/// channel that lie within a thing's reach (its own marker, never the HUD
/// text elsewhere that shares the colour), and how many there are.
fn drawn(p: &Picture, colour: [u8; 3], places: &[Place]) -> ([f64; 3], usize) {
    let near: Vec<&[u8]> = p
        .rgb
        .chunks_exact(3)
        .enumerate()
        .filter(|(i, px)| {
            let (x, y) = ((i % p.width) as f64, (i / p.width) as f64);
            px.iter().zip(colour).all(|(a, b)| a.abs_diff(b) <= 8)
                && places
                    .iter()
                    .any(|pl| (x - pl.at[0]).abs() <= pl.reach && (y - pl.at[1]).abs() <= pl.reach)
        })
        .map(|(_, px)| px)
        .collect();
    let n = near.len().max(1) as f64;
    let mean = [0, 1, 2].map(|i| near.iter().map(|px| f64::from(px[i])).sum::<f64>() / n);
    (mean, near.len())
}

/// Where each kind of thing is on the frame, read from the match's world
/// (`scene.rs` draws the markers: a ship's ring or square 9 units out, an
/// enemy bullet's ring 3 units + 2 px, a player bullet's dot 1.8 units).
fn places(world: &World) -> [(&'static str, [u8; 3], Vec<Place>); 4] {
    let s = scale();
    let ship = |i: usize| {
        let p = &world.players[i];
        (p.alive != 0)
            .then(|| Place {
                at: to_screen(p.pos),
                reach: 12.0 * s + 4.0,
            })
            .into_iter()
            .collect::<Vec<_>>()
    };
    let bullets = |enemy: bool| {
        world
            .bullets()
            .iter()
            .filter(|b| (b.owner == OWNER_ENEMY) == enemy)
            .map(|b| {
                let speed = b.vel.x.to_num::<f64>().hypot(b.vel.y.to_num::<f64>());
                Place {
                    at: to_screen(b.pos),
                    reach: (3.0 + speed) * s + 4.0,
                }
            })
            .collect::<Vec<_>>()
    };
    [
        ("player 1's ring", PLAYER_ONE, ship(0)),
        ("player 2's square", PLAYER_TWO, ship(1)),
        ("enemy bullets' rings", ENEMY_BULLET, bullets(true)),
        ("player bullets", PLAYER_BULLET, bullets(false)),
    ]
}

/// The enemies of each kind on the frame, with the mean of their own
/// coloured pixels: the sprites keep their colours in every palette, so
/// what is sampled is each sprite's saturated pixels (HSV saturation ≥
/// 0.4, value ≥ 0.4) within its reach.
fn enemy_colours(p: &Picture, world: &World) -> Vec<(&'static str, [f64; 3], usize)> {
    let s = scale();
    [
        (EnemyKind::Wanderer, "wanderer"),
        (EnemyKind::Shooter, "shooter"),
        (EnemyKind::Charger, "charger"),
    ]
    .into_iter()
    .filter_map(|(kind, name)| {
        let places: Vec<Place> = world
            .enemies()
            .iter()
            .filter(|e| e.kind() == kind)
            .map(|e| {
                let speed = e.vel.x.to_num::<f64>().hypot(e.vel.y.to_num::<f64>());
                Place {
                    at: to_screen(e.pos),
                    reach: (8.0 + speed) * s + 4.0,
                }
            })
            .collect();
        if places.is_empty() {
            return None;
        }
        let own: Vec<&[u8]> = p
            .rgb
            .chunks_exact(3)
            .enumerate()
            .filter(|(i, px)| {
                let (x, y) = ((i % p.width) as f64, (i / p.width) as f64);
                let (max, min) = (px.iter().max().unwrap(), px.iter().min().unwrap());
                let saturated = *max >= 102 && f64::from(max - min) >= 0.4 * f64::from(*max);
                saturated
                    && places.iter().any(|pl| {
                        (x - pl.at[0]).abs() <= pl.reach && (y - pl.at[1]).abs() <= pl.reach
                    })
            })
            .map(|(_, px)| px)
            .collect();
        let n = own.len().max(1) as f64;
        let mean = [0, 1, 2].map(|i| own.iter().map(|px| f64::from(px[i])).sum::<f64>() / n);
        Some((name, mean, own.len()))
    })
    .collect()
}

/// Every pair a player must tell apart is drawn where its thing is, and
/// keeps [`MIN_DELTA_E`] under each vision.
fn colour_blind_pairs_stay_apart(p: &Picture, world: &World) {
    let mut report = Vec::new();
    let [one, two, enemy, ours] = places(world).map(|(name, colour, places)| {
        assert!(
            !places.is_empty(),
            "no {name} on the frame (the world changed?)"
        );
        let (mean, count) = drawn(p, colour, &places);
        assert!(
            count >= 20,
            "the colour-blind screenshot shows {name} in only {count} pixels at its {} place(s)",
            places.len()
        );
        report.push(format!(
            "{name}: {count} pixels at {} place(s)",
            places.len()
        ));
        mean
    });
    // (pair, its two colours, held to MIN_DELTA_E)
    let mut pairs = vec![
        ("player 1 / player 2".to_owned(), one, two, true),
        ("enemy bullet / player bullet".to_owned(), enemy, ours, true),
        ("player 1 / enemy bullet".to_owned(), one, enemy, true),
        ("player 2 / player bullet".to_owned(), two, ours, true),
        ("player 1 / player bullet".to_owned(), one, ours, true),
    ];
    // Not in the list: an enemy bullet and player 2's ship keep ΔE 18
    // under deuteranopia (33 with normal vision); their shapes differ (a
    // small dark-rimmed ring, a ship in a square) as well as their size.
    let enemies = enemy_colours(p, world);
    assert!(
        enemies.iter().all(|(_, _, count)| *count >= 20),
        "enemies barely drawn where they are: {enemies:?}"
    );
    for (name, colour, count) in &enemies {
        report.push(format!("{name} enemies: {count} pixels, mean {colour:.0?}"));
        // An enemy and a ship are held to the bound. An enemy and a
        // player's bullet are measured, not held: the charger's red comes
        // to ΔE 17.6 from the bluish-green bullet under deuteranopia and
        // 16.7 under protanopia (the wanderer's green 23 under normal
        // vision); they differ in size (a sprite of about 36 px, a dot of
        // 4) and in shape.
        for (thing, other, held) in [
            ("player 1", one, true),
            ("player 2", two, true),
            ("player bullet", ours, false),
        ] {
            pairs.push((format!("{name} / {thing}"), *colour, other, held));
        }
    }
    let mut lowest = (f64::MAX, String::new());
    for (vision_name, vision) in [
        ("normal", &NORMAL),
        ("deuteranopia", &DEUTERANOPIA),
        ("protanopia", &PROTANOPIA),
    ] {
        for (pair, a, b, held) in &pairs {
            let d = delta_e(seen(*a, vision), seen(*b, vision));
            let note = if *held { "" } else { " (measured, not held)" };
            report.push(format!("{vision_name} {pair}: {d:.1}{note}"));
            if !held {
                continue;
            }
            if d < lowest.0 {
                lowest = (d, format!("{pair} under {vision_name}"));
            }
            assert!(
                d >= MIN_DELTA_E,
                "{pair} under {vision_name}: ΔE {d:.1} < {MIN_DELTA_E}\n{}",
                report.join("\n")
            );
        }
    }
    eprintln!(
        "colour-blind palette, ΔE76 (bound {MIN_DELTA_E}; lowest {:.1}, {}):\n{}",
        lowest.0,
        lowest.1,
        report.join("\n")
    );
}
