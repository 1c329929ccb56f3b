//! The real binary in a real (virtual) window: `scripts/screenshots.sh`
//! captures five screens; each must show something, and no two the same.
//! Needs Xvfb (scripts/test.sh installs it as root) or a display.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const SCREENS: [&str; 5] = ["menu", "host", "local", "overlay", "replay"];

struct Picture {
    width: usize,
    height: usize,
    rgb: Vec<u8>,
}

fn load(path: &Path) -> Picture {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG data");
    assert_eq!(info.color_type, png::ColorType::Rgba, "{}", path.display());
    let rgb = buf[..info.buffer_size()]
        .chunks_exact(4)
        .flat_map(|px| [px[0], px[1], px[2]])
        .collect();
    Picture {
        width: info.width as usize,
        height: info.height as usize,
        rgb,
    }
}

/// Distinct colours (quantised to 5 bits per channel) and the standard
/// deviation of brightness: a blank or single-colour frame has ~1 and ~0.
fn richness(p: &Picture) -> (usize, f64) {
    let mut colours = std::collections::HashSet::new();
    let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
    for px in p.rgb.chunks_exact(3) {
        colours.insert((px[0] >> 3, px[1] >> 3, px[2] >> 3));
        let y = f64::from(px[0]) * 0.3 + f64::from(px[1]) * 0.59 + f64::from(px[2]) * 0.11;
        sum += y;
        sum_sq += y * y;
    }
    let n = (p.rgb.len() / 3) as f64;
    let mean = sum / n;
    (colours.len(), (sum_sq / n - mean * mean).max(0.0).sqrt())
}

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
