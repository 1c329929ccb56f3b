//! PNG screenshots as pixels, and how much a picture shows (for the
//! screenshot suites: a blank or one-colour frame is a failure).

use std::path::Path;

pub struct Picture {
    pub width: usize,
    pub height: usize,
    pub rgb: Vec<u8>,
}

pub fn load(path: &Path) -> Picture {
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
pub fn richness(p: &Picture) -> (usize, f64) {
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
