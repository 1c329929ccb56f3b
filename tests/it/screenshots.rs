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
    let _ = std::fs::remove_dir_all(&out);
}
