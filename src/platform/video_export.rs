//! What a video export asks of an encoder, the same on both sides of the
//! seam (`native/encoder.rs` runs ffmpeg; the page's refuses).

use std::path::Path;

/// The container, from the output's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// H.264 (libx264) + AAC.
    Mp4,
    /// VP9 (libvpx-vp9) + Opus.
    Webm,
}

impl Format {
    /// The format a file name asks for, by its extension.
    pub fn of(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "mp4" => Some(Format::Mp4),
            "webm" => Some(Format::Webm),
            _ => None,
        }
    }

    pub fn codecs(self) -> &'static str {
        match self {
            Format::Mp4 => "h264+aac",
            Format::Webm => "vp9+opus",
        }
    }
}

/// Why an encoder did not start or finish.
#[derive(Debug)]
pub enum EncoderError {
    /// This machine cannot encode (no ffmpeg; a page): the user's to fix.
    Unavailable(String),
    /// ffmpeg failed or stopped.
    Failed(String),
}

/// What an encoder is asked to make.
pub struct EncoderSpec<'a> {
    pub output: &'a Path,
    pub format: Format,
    pub size: (u32, u32),
    pub fps: u32,
    /// A WAV file's bytes to mux as the sound track, as long as the
    /// frames (kept in a temporary file while ffmpeg runs).
    pub sound: Option<Vec<u8>>,
}
