//! `twinstar replay FILE --video OUT.mp4|.webm`: a replay (or a clip of
//! it, `--from`/`--to`) rendered to a video file. The frames are drawn by
//! `frontend::replay_video`, the sound mixed by `frontend::soundtrack`,
//! and both encoded by `platform::encoder` (ffmpeg natively; the page
//! refuses). Checks come first, so that a bad range or a missing ffmpeg
//! is one line before any window opens.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

use serde_json::json;
use web_time::Instant;

use super::{Failure, Report};
use crate::cli::ReplayArgs;
use crate::frontend::replay_video::{self, Clip};
use crate::frontend::soundtrack;
use crate::platform::encoder::{self, Encoder, EncoderError, EncoderSpec, Format, Ready};
use crate::replay::Replay;
use crate::sim::{FPS, hex_checksum};

/// The picture's size without `--video-size`.
pub const DEFAULT_SIZE: (u32, u32) = (1280, 720);

fn encoder_failure(e: EncoderError) -> Failure {
    match e {
        EncoderError::Unavailable(m) => Failure::BadInput(m),
        EncoderError::Failed(m) => Failure::Runtime(m, None),
    }
}

/// The output's format, or why the name cannot be one.
pub fn format_of(out: &Path) -> Result<Format, Failure> {
    Format::of(out).ok_or_else(|| {
        Failure::BadInput(format!(
            "--video {}: the file must end in .mp4 or .webm",
            out.display()
        ))
    })
}

/// What can be checked before the replay is read: the output's name and
/// ffmpeg's presence.
pub fn precheck(out: &Path) -> Result<(Format, Ready), Failure> {
    let format = format_of(out)?;
    let ready = encoder::check().map_err(encoder_failure)?;
    Ok((format, ready))
}

/// The clip `--from`/`--to` ask for in a replay of `frames` frames.
pub fn clip_of(from: Option<u32>, to: Option<u32>, frames: u32) -> Result<Clip, Failure> {
    let (from, to) = (from.unwrap_or(0), to.unwrap_or(frames));
    let refuse = |m: String| Err(Failure::BadInput(m));
    if to > frames {
        return refuse(format!(
            "--to {to} is past the replay's end (it has {frames} frames)"
        ));
    }
    if from >= to {
        return refuse(format!(
            "--from {from} must be before --to {to} (the clip is the frames after --from up to --to)"
        ));
    }
    Ok(Clip { from, to })
}

/// Renders `clip` of `replay` into `out` as `args` ask (`precheck` and
/// `clip_of` passed).
pub fn export(
    args: &ReplayArgs,
    out: &Path,
    (format, _ready): (Format, Ready),
    clip: Clip,
    replay: Replay,
    name: &str,
) -> Result<Report, Failure> {
    let size = args.video_size.unwrap_or(DEFAULT_SIZE);
    let started = Instant::now();
    let samples = soundtrack::mix(&replay, clip)
        .ok_or_else(|| Failure::BadInput("unreadable simulation config".into()))?;
    let sound = crate::frontend::music::synth::wav_bytes(&samples);
    let encoder = Encoder::start(&EncoderSpec {
        output: out,
        format,
        size,
        fps: FPS,
        sound: Some(sound),
    })
    .map_err(encoder_failure)?;
    let shared = Rc::new(RefCell::new(Some(encoder)));
    let writer = shared.clone();
    let sink = Box::new(move |rgba: &[u8]| {
        let mut encoder = writer.borrow_mut();
        let encoder = encoder.as_mut().ok_or("the encoder is gone")?;
        encoder.write_frame(rgba).map_err(|e| match e {
            EncoderError::Unavailable(m) | EncoderError::Failed(m) => m,
        })
    });
    let rendered = replay_video::render(replay, name, clip, size, sink)?;
    let encoder = shared.borrow_mut().take();
    let world = match rendered {
        None => {
            return Err(Failure::Runtime(
                "the window closed before the video was done".into(),
                None,
            ));
        }
        Some(Err(why)) => return Err(Failure::Runtime(why, None)),
        Some(Ok(world)) => world,
    };
    let encoder = encoder.ok_or_else(|| Failure::Runtime("the encoder is gone".into(), None))?;
    let bytes = encoder.finish().map_err(encoder_failure)?;
    let took = started.elapsed().as_secs_f64();
    let video = Video {
        out,
        format,
        size,
        clip,
        bytes,
    };
    print_summary(args.json, name, &video, &world, took);
    Ok(Report::Printed)
}

/// A video written: where, how, what.
struct Video<'a> {
    out: &'a Path,
    format: Format,
    size: (u32, u32),
    clip: Clip,
    bytes: u64,
}

/// The export's line, or with `json` its summary: the video, the world
/// at its last frame (its checksum) and how fast it rendered.
fn print_summary(json: bool, name: &str, video: &Video, world: &crate::sim::World, took: f64) {
    let Video {
        out,
        format,
        size,
        clip,
        bytes,
    } = *video;
    let frames = clip.to - clip.from;
    let seconds = f64::from(frames) / f64::from(FPS);
    let render_fps = f64::from(frames) / took.max(1e-9);
    let (w, h) = size;
    if json {
        let summary = json!({
            "mode": "replay-video",
            "replay": name,
            "frames": frames,
            "from": clip.from,
            "to": clip.to,
            "checksum_frame": world.frame,
            "checksum": hex_checksum(world.checksum()),
            "output": out.display().to_string(),
            "bytes": bytes,
            "width": w,
            "height": h,
            "fps": FPS,
            "codecs": format.codecs(),
            "sound": true,
            "seconds": seconds,
            "render_seconds": (took * 1000.0).round() / 1000.0,
            "render_fps": (render_fps * 10.0).round() / 10.0,
        });
        println!("{summary}");
    } else {
        println!(
            "video: {} ({w}x{h}, {}), frames {}-{} ({frames}, {seconds:.2} s), {bytes} B; rendered in {took:.1} s, {render_fps:.1} frames/s",
            out.display(),
            format.codecs(),
            clip.from + 1,
            clip.to,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(r: Result<Clip, Failure>) -> String {
        match r {
            Err(Failure::BadInput(m)) => m,
            Err(other) => panic!("not bad input: {}", other.message()),
            Ok(clip) => panic!("accepted {clip:?}"),
        }
    }

    #[test]
    fn a_clip_is_the_frames_after_from_up_to_to() {
        let clip = clip_of(Some(60), Some(660), 700).unwrap();
        assert_eq!((clip.from, clip.to), (60, 660));
        let whole = clip_of(None, None, 700).unwrap();
        assert_eq!((whole.from, whole.to), (0, 700));
        assert!(refused(clip_of(Some(700), Some(600), 700)).contains("before --to"));
        assert!(refused(clip_of(Some(5), Some(5), 700)).contains("before --to"));
        assert!(refused(clip_of(None, Some(701), 700)).contains("past the replay's end"));
        assert!(refused(clip_of(None, None, 0)).contains("before --to"));
    }

    #[test]
    fn the_extension_picks_the_format() {
        assert_eq!(format_of(Path::new("a/b.MP4")).ok(), Some(Format::Mp4));
        assert_eq!(format_of(Path::new("b.webm")).ok(), Some(Format::Webm));
        for bad in ["b.avi", "b", "mp4"] {
            assert!(matches!(
                format_of(Path::new(bad)),
                Err(Failure::BadInput(m)) if m.contains(".mp4 or .webm")
            ));
        }
    }
}
