//! The generated assets (`scripts/gen-assets.py`, described in
//! `assets/README.md`): every file is there, in the format and size the
//! frontend expects, and matches what the script generates.
//!
//! Only headers are parsed here (no image or audio crates); that the pixels
//! themselves are right, and not blank, is `gen-assets.py --check`'s job,
//! which the last test runs when `python3` is available.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn asset_path(rel: &str) -> PathBuf {
    root().join("assets").join(rel)
}

fn read(rel: &str) -> Vec<u8> {
    let path = asset_path(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Sprites: path, width, height. Twice the world size (the arena is drawn 2x).
const SPRITES: [(&str, u32, u32); 8] = [
    ("sprites/ship_p1.png", 24, 24),
    ("sprites/ship_p2.png", 24, 24),
    ("sprites/wanderer.png", 40, 40),
    ("sprites/shooter.png", 40, 40),
    ("sprites/charger.png", 40, 40),
    ("sprites/bullet_player.png", 8, 8),
    ("sprites/bullet_enemy.png", 10, 10),
    // 8 frames of 48x48 side by side.
    ("sprites/explosion.png", 8 * 48, 48),
];

/// Sounds: path and longest allowed length in milliseconds.
const SOUNDS: [(&str, u64); 7] = [
    ("sounds/shot.wav", 150),
    ("sounds/hit.wav", 200),
    ("sounds/death.wav", 800),
    ("sounds/wave_start.wav", 1200),
    ("sounds/game_over.wav", 2500),
    ("sounds/menu_move.wav", 100),
    ("sounds/menu_select.wav", 100),
];

/// The event sounds stored small (8-bit, 11025 Hz: they are embedded in
/// the page's wasm): path and longest allowed length in milliseconds.
const SMALL_SOUNDS: [(&str, u64); 30] = [
    ("sounds/partner_hit.wav", 400),
    ("sounds/shield_break.wav", 400),
    ("sounds/downed.wav", 900),
    ("sounds/revived.wav", 700),
    ("sounds/respawn.wav", 400),
    ("sounds/kill_wanderer.wav", 300),
    ("sounds/kill_shooter.wav", 300),
    ("sounds/kill_charger.wav", 400),
    ("sounds/kill_sniper.wav", 300),
    ("sounds/kill_splitter.wav", 400),
    ("sounds/kill_splitling.wav", 150),
    ("sounds/kill_spinner.wav", 500),
    ("sounds/boss_explodes.wav", 1200),
    // Enemies fire many times a second: theirs is the shortest.
    ("sounds/enemy_shot.wav", 100),
    ("sounds/spawn.wav", 300),
    ("sounds/windup_charge.wav", 600),
    ("sounds/windup_laser.wav", 600),
    ("sounds/windup_ring.wav", 600),
    ("sounds/pickup_spread.wav", 400),
    ("sounds/pickup_rapid.wav", 400),
    ("sounds/pickup_pierce.wav", 400),
    ("sounds/pickup_shield.wav", 400),
    ("sounds/pickup_bomb.wav", 400),
    ("sounds/pickup_life.wav", 500),
    ("sounds/bomb.wav", 1000),
    ("sounds/combo_step.wav", 150),
    ("sounds/combo_lost.wav", 300),
    ("sounds/boss_phase.wav", 900),
    ("sounds/boss_defeated.wav", 1200),
    ("sounds/wave_cleared.wav", 600),
];

/// What the small sounds may add to the wasm, all together: the page's
/// download budget is tight.
const SMALL_SOUNDS_MAX_BYTES: u64 = 120_000;

const OTHER_FILES: [&str; 6] = [
    "sprites/background.png",
    "font/font.png",
    "font/font.json",
    "README.md",
    "LICENSE.md",
    "CREDITS.md",
];

const SAMPLE_RATE: u32 = 22050;

fn be_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn le_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}

/// The fields of a PNG's IHDR chunk that we care about.
#[derive(Debug, PartialEq)]
struct Ihdr {
    width: u32,
    height: u32,
    bit_depth: u8,
    color_type: u8,
}

const COLOR_RGB: u8 = 2;
const COLOR_RGBA: u8 = 6;

/// Parses the IHDR by hand: it is always the first chunk, right after the
/// 8-byte signature (length 13, type, width, height, depth, colour type...).
fn png_header(rel: &str) -> Ihdr {
    let b = read(rel);
    // Even a 1x1 PNG is ~70 bytes; anything this small is not real art.
    assert!(b.len() > 100, "{rel}: only {} bytes", b.len());
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{rel}: no PNG signature");
    assert_eq!(be_u32(&b, 8), 13, "{rel}: IHDR length");
    assert_eq!(&b[12..16], b"IHDR", "{rel}: first chunk is not IHDR");
    Ihdr {
        width: be_u32(&b, 16),
        height: be_u32(&b, 20),
        bit_depth: b[24],
        color_type: b[25],
    }
}

#[test]
fn every_required_file_exists() {
    let all = SPRITES
        .iter()
        .map(|s| s.0)
        .chain(SOUNDS.iter().map(|s| s.0))
        .chain(SMALL_SOUNDS.iter().map(|s| s.0))
        .chain(WEB_ICONS.iter().map(|i| i.0))
        .chain(OTHER_FILES);
    let missing: Vec<&str> = all.filter(|rel| !asset_path(rel).is_file()).collect();
    assert!(
        missing.is_empty(),
        "missing in assets/: {missing:?} (run python3 scripts/gen-assets.py)"
    );
}

#[test]
fn sprites_are_rgba_pngs_of_twice_world_size() {
    for (rel, width, height) in SPRITES {
        let ihdr = png_header(rel);
        let want = Ihdr {
            width,
            height,
            bit_depth: 8,
            color_type: COLOR_RGBA,
        };
        assert_eq!(ihdr, want, "{rel}");
    }
}

/// The web app's icons (web/manifest.webmanifest names them with these
/// sizes; a browser that fetches a different size finds the app not
/// installable): square RGBA PNGs.
const WEB_ICONS: [(&str, u32); 4] = [
    ("web/icon-192.png", 192),
    ("web/icon-512.png", 512),
    ("web/icon-maskable-512.png", 512),
    ("web/apple-touch-icon.png", 180),
];

#[test]
fn the_web_apps_icons_have_the_sizes_the_manifest_names() {
    let manifest = std::fs::read_to_string(root().join("web/manifest.webmanifest")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    for (rel, size) in WEB_ICONS {
        let ihdr = png_header(rel);
        let want = Ihdr {
            width: size,
            height: size,
            bit_depth: 8,
            color_type: COLOR_RGBA,
        };
        assert_eq!(ihdr, want, "{rel}");
        let name = rel.trim_start_matches("web/");
        let named = manifest["icons"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|icon| icon["src"] == name);
        if let Some(icon) = named {
            assert_eq!(icon["sizes"], format!("{size}x{size}"), "{rel}");
        }
    }
}

#[test]
fn background_covers_the_arena() {
    let ihdr = png_header("sprites/background.png");
    assert_eq!((ihdr.width, ihdr.height), (640, 360));
    assert_eq!(ihdr.bit_depth, 8);
    assert!(
        [COLOR_RGB, COLOR_RGBA].contains(&ihdr.color_type),
        "colour type {}",
        ihdr.color_type
    );
}

#[test]
fn font_atlas_matches_its_layout_and_covers_printable_ascii() {
    let json: serde_json::Value = serde_json::from_slice(&read("font/font.json"))
        .unwrap_or_else(|e| panic!("font.json: {e}"));
    let field = |name: &str| {
        json[name]
            .as_u64()
            .unwrap_or_else(|| panic!("font.json: {name} is not a whole number"))
    };
    let (gw, gh) = (field("glyph_width"), field("glyph_height"));
    let (columns, rows) = (field("columns"), field("rows"));
    assert_eq!(json["image"], "font.png");
    assert_eq!(field("first_char"), 32, "starts at space");
    assert_eq!(field("glyph_count"), 95, "printable ASCII 32..=126");
    assert!(gw > 0 && gh > 0 && columns > 0);
    assert!(
        columns * rows >= 95,
        "{columns}x{rows} cells hold 95 glyphs"
    );
    assert!((rows - 1) * columns < 95, "no empty last row");
    let advance = field("advance");
    assert!((1..=gw).contains(&advance), "advance {advance}");
    assert!(field("line_height") >= gh);
    assert!(field("baseline") < gh);

    let ihdr = png_header("font/font.png");
    assert_eq!(
        (u64::from(ihdr.width), u64::from(ihdr.height)),
        (gw * columns, gh * rows),
        "atlas size is glyph size x columns/rows"
    );
    assert_eq!(ihdr.color_type, COLOR_RGBA, "glyphs on transparent");
}

/// A WAV's format fields and its 16-bit samples, found by walking the RIFF
/// chunks (a `fmt ` and a `data` chunk, in any order, maybe among others).
struct Wav {
    format: u16,
    channels: u16,
    rate: u32,
    bits: u16,
    samples: Vec<i16>,
}

fn wav(rel: &str) -> Wav {
    let b = read(rel);
    assert!(b.len() >= 44, "{rel}: too short for a WAV");
    assert_eq!(&b[0..4], b"RIFF", "{rel}");
    assert_eq!(&b[8..12], b"WAVE", "{rel}");
    assert_eq!(le_u32(&b, 4) as usize, b.len() - 8, "{rel}: RIFF size");
    let (mut fmt, mut data) = (None, None);
    let mut at = 12;
    while at + 8 <= b.len() {
        let size = le_u32(&b, at + 4) as usize;
        let body = &b[at + 8..at + 8 + size];
        match &b[at..at + 4] {
            b"fmt " => fmt = Some(body),
            b"data" => data = Some(body),
            _ => {}
        }
        at += 8 + size + size % 2; // chunks are padded to even lengths
    }
    let fmt = fmt.unwrap_or_else(|| panic!("{rel}: no fmt chunk"));
    let data = data.unwrap_or_else(|| panic!("{rel}: no data chunk"));
    assert!(fmt.len() >= 16, "{rel}: short fmt chunk");
    Wav {
        format: le_u16(fmt, 0),
        channels: le_u16(fmt, 2),
        rate: le_u32(fmt, 4),
        bits: le_u16(fmt, 14),
        // 8-bit WAV samples are unsigned around 128; widened to 16 bits.
        samples: if le_u16(fmt, 14) == 8 {
            data.iter().map(|s| (i16::from(*s) - 128) << 8).collect()
        } else {
            data.chunks_exact(2)
                .map(|s| i16::from_le_bytes([s[0], s[1]]))
                .collect()
        },
    }
}

#[test]
fn sounds_are_short_mono_16_bit_pcm_and_do_not_clip() {
    for (rel, max_ms) in SOUNDS {
        let w = wav(rel);
        assert_eq!(w.format, 1, "{rel}: PCM");
        assert_eq!(w.channels, 1, "{rel}: mono");
        assert_eq!(w.rate, SAMPLE_RATE, "{rel}: sample rate");
        assert_eq!(w.bits, 16, "{rel}: bits per sample");

        let n = w.samples.len() as u64;
        let ms = n * 1000 / u64::from(SAMPLE_RATE);
        assert!(
            n > 0 && n * 1000 <= max_ms * u64::from(SAMPLE_RATE),
            "{rel}: {ms} ms, limit {max_ms} ms"
        );

        // Peak at most 0.9 of full scale (headroom, no clipping), and not silent.
        let peak = w.samples.iter().map(|s| i32::from(*s).abs()).max().unwrap();
        assert!(
            peak <= 32768 * 9 / 10,
            "{rel}: peak {peak} is above 0.9 of full scale"
        );
        assert!(peak >= 32768 / 20, "{rel}: peak {peak}, nearly silent");
    }
}

#[test]
fn small_sounds_are_short_mono_8_bit_pcm_within_their_byte_budget() {
    let mut bytes = 0;
    for (rel, max_ms) in SMALL_SOUNDS {
        bytes += read(rel).len() as u64;
        let w = wav(rel);
        assert_eq!(w.format, 1, "{rel}: PCM");
        assert_eq!(w.channels, 1, "{rel}: mono");
        assert_eq!(w.rate, SAMPLE_RATE / 2, "{rel}: sample rate");
        assert_eq!(w.bits, 8, "{rel}: bits per sample");
        let n = w.samples.len() as u64;
        let ms = n * 1000 / u64::from(w.rate);
        assert!(n > 0 && ms <= max_ms, "{rel}: {ms} ms, limit {max_ms} ms");
        let peak = w.samples.iter().map(|s| i32::from(*s).abs()).max().unwrap();
        assert!(peak <= 32768 * 9 / 10, "{rel}: peak {peak} above 0.9");
        assert!(peak >= 32768 / 10, "{rel}: peak {peak}, nearly silent");
    }
    assert!(
        bytes <= SMALL_SOUNDS_MAX_BYTES,
        "the small sounds take {bytes} bytes, budget {SMALL_SOUNDS_MAX_BYTES}"
    );
}

/// The files are exactly what the script makes (which also covers what the
/// header checks cannot: the pixels, so no sprite is blank).
#[test]
fn assets_match_the_generator() {
    let out = Command::new("python3")
        .arg("scripts/gen-assets.py")
        .arg("--check")
        .current_dir(root())
        .output();
    match out {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("python3 is not on PATH: skipping scripts/gen-assets.py --check");
        }
        Err(e) => panic!("running python3: {e}"),
        Ok(out) => assert!(
            out.status.success(),
            "scripts/gen-assets.py --check failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}
