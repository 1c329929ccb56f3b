//! The real binary in a real (virtual) window: `scripts/screenshots.sh`
//! captures six screens; each must show something, and no two the same.
//! Needs Xvfb (scripts/test.sh installs it as root) or a display.

use crate::common;

use common::picture::{Picture, load, richness};

use std::path::{Path, PathBuf};
use std::process::Command;

const SCREENS: [&str; 6] = ["menu", "host", "local", "overlay", "online", "replay"];

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
    colour_blind_pairs_stay_apart(&load(&out.join("local-colour-blind.png")));
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

/// The mean of the screenshot's pixels within 8 of `colour` on every
/// channel (the palette's markers as drawn), and how many there are.
fn drawn(p: &Picture, colour: [u8; 3]) -> ([f64; 3], usize) {
    let near: Vec<&[u8]> = p
        .rgb
        .chunks_exact(3)
        .filter(|px| px.iter().zip(colour).all(|(a, b)| a.abs_diff(b) <= 8))
        .collect();
    let n = near.len().max(1) as f64;
    let mean = [0, 1, 2].map(|i| near.iter().map(|px| f64::from(px[i])).sum::<f64>() / n);
    (mean, near.len())
}

/// Every pair a player must tell apart is on the screenshot, and keeps
/// [`MIN_DELTA_E`] under each vision.
fn colour_blind_pairs_stay_apart(p: &Picture) {
    let mut report = Vec::new();
    let drawn_of = |name: &str, colour: [u8; 3]| {
        let (mean, count) = drawn(p, colour);
        assert!(
            count >= 20,
            "the colour-blind screenshot shows {name} in only {count} pixels"
        );
        mean
    };
    let one = drawn_of("player 1's ring", PLAYER_ONE);
    let two = drawn_of("player 2's square", PLAYER_TWO);
    let enemy = drawn_of("enemy bullets' rings", ENEMY_BULLET);
    let ours = drawn_of("player bullets", PLAYER_BULLET);
    let pairs = [
        ("player 1 / player 2", one, two),
        ("enemy bullet / player bullet", enemy, ours),
        ("player 1 / enemy bullet", one, enemy),
        ("player 2 / player bullet", two, ours),
        ("player 1 / player bullet", one, ours),
    ];
    // Not in the list: an enemy bullet and player 2's ship keep ΔE 18
    // under deuteranopia (33 with normal vision); their shapes differ (a
    // small dark-rimmed ring, a ship in a square) as well as their size.
    for (vision_name, vision) in [
        ("normal", &NORMAL),
        ("deuteranopia", &DEUTERANOPIA),
        ("protanopia", &PROTANOPIA),
    ] {
        for (pair, a, b) in pairs {
            let d = delta_e(seen(a, vision), seen(b, vision));
            report.push(format!("{vision_name} {pair}: {d:.1}"));
            assert!(
                d >= MIN_DELTA_E,
                "{pair} under {vision_name}: ΔE {d:.1} < {MIN_DELTA_E}\n{}",
                report.join("\n")
            );
        }
    }
    eprintln!("colour-blind palette, ΔE76:\n{}", report.join("\n"));
}
