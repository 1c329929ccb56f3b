//! A video encoder in the page: none. A page cannot run ffmpeg, so
//! `replay --video` says so; the native side pipes frames to ffmpeg.

use std::path::Path;

pub use super::super::video_export::{EncoderError, EncoderSpec, Format};

/// Refuses: a page has no ffmpeg.
pub fn check() -> Result<Ready, EncoderError> {
    Encoder::start(&EncoderSpec {
        output: Path::new(""),
        format: Format::Mp4,
        size: (0, 0),
        fps: 0,
        sound: None,
    })
    .map(|encoder| match encoder.0 {})
}

/// Proof that [`check`] found an encoder: in a page there is none, and no
/// value of this type, so the compiler leaves the export it guards (the
/// frame loop, the sound mixer) out of the page's wasm.
pub enum Ready {}

/// Never made in the page (it holds a [`Ready`], of which there is none).
pub struct Encoder(Ready);

impl Encoder {
    /// Refuses: a page has no ffmpeg.
    pub fn start(_: &EncoderSpec) -> Result<Encoder, EncoderError> {
        Err(EncoderError::Unavailable(
            "--video needs ffmpeg, which a browser cannot run: run `twinstar replay FILE --video OUT.mp4` on a computer".into(),
        ))
    }

    pub fn write_frame(&mut self, _: &[u8]) -> Result<(), EncoderError> {
        Err(EncoderError::Failed("no encoder in a page".into()))
    }

    pub fn finish(self) -> Result<u64, EncoderError> {
        Err(EncoderError::Failed("no encoder in a page".into()))
    }
}
