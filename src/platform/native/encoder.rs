//! A video encoder: `ffmpeg` as a child process, raw RGBA frames piped to
//! its stdin, a sound track (a WAV file) as its second input. ffmpeg is
//! never needed to play, only to export (DESIGN.md, decision 9). The
//! page's side refuses in words.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::thread::JoinHandle;

pub use super::super::video_export::{EncoderError, EncoderSpec, Format};

impl Format {
    /// ffmpeg's output options: fast presets (a replay's picture is mostly
    /// flat colours; quality is set by CRF, not by a bitrate).
    fn output_args(self, sound: bool) -> Vec<&'static str> {
        let mut args = match self {
            Format::Mp4 => vec![
                "-c:v",
                "libx264",
                "-preset",
                "veryfast",
                "-crf",
                "20",
                "-pix_fmt",
                "yuv420p",
                "-movflags",
                "+faststart",
            ],
            Format::Webm => vec![
                "-c:v",
                "libvpx-vp9",
                "-deadline",
                "realtime",
                "-cpu-used",
                "8",
                "-row-mt",
                "1",
                "-b:v",
                "0",
                "-crf",
                "32",
                "-pix_fmt",
                "yuv420p",
            ],
        };
        if sound {
            args.extend(match self {
                Format::Mp4 => ["-c:a", "aac", "-b:a", "128k"],
                Format::Webm => ["-c:a", "libopus", "-b:a", "96k"],
            });
        }
        args
    }
}

/// A running ffmpeg reading frames.
pub struct Encoder {
    child: Child,
    stdin: Option<ChildStdin>,
    stderr: Option<JoinHandle<String>>,
    frame_bytes: usize,
    output: PathBuf,
    /// The sound track's temporary file, removed when done.
    sound: Option<PathBuf>,
    finished: bool,
}

/// ffmpeg present, or why not.
pub fn check() -> Result<Ready, EncoderError> {
    find_ffmpeg().map(|_| Ready(())).ok_or_else(missing)
}

/// Proof that [`check`] found an encoder: what the export asks for
/// before it renders anything.
pub struct Ready(());

fn missing() -> EncoderError {
    EncoderError::Unavailable("--video needs ffmpeg (Debian: apt-get install ffmpeg)".into())
}

/// A temporary file of `bytes`, named for this process and output.
fn temporary_wav(output: &Path, bytes: &[u8]) -> Result<PathBuf, EncoderError> {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    output.hash(&mut hasher);
    let path = std::env::temp_dir().join(format!(
        "twinstar-video-{}-{:016x}.wav",
        std::process::id(),
        hasher.finish()
    ));
    std::fs::write(&path, bytes)
        .map_err(|e| EncoderError::Failed(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

/// `ffmpeg` on PATH, if there is one.
fn find_ffmpeg() -> Option<PathBuf> {
    let name = format!("ffmpeg{}", std::env::consts::EXE_SUFFIX);
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(&name))
        .find(|candidate| candidate.is_file())
}

impl Encoder {
    /// Starts ffmpeg writing `spec.output` (overwritten).
    pub fn start(spec: &EncoderSpec) -> Result<Encoder, EncoderError> {
        let ffmpeg = find_ffmpeg().ok_or_else(missing)?;
        let sound = match &spec.sound {
            Some(bytes) => Some(temporary_wav(spec.output, bytes)?),
            None => None,
        };
        let (w, h) = spec.size;
        let mut command = Command::new(ffmpeg);
        command
            .args(["-hide_banner", "-nostdin", "-loglevel", "error", "-y"])
            .args(["-f", "rawvideo", "-pix_fmt", "rgba"])
            .args(["-s", &format!("{w}x{h}"), "-r", &spec.fps.to_string()])
            .args(["-i", "-"]);
        if let Some(wav) = &sound {
            command
                .arg("-i")
                .arg(wav)
                .args(["-map", "0:v", "-map", "1:a"]);
        }
        command
            .args(spec.format.output_args(sound.is_some()))
            .arg(spec.output)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => {
                if let Some(wav) = &sound {
                    let _ = std::fs::remove_file(wav);
                }
                return Err(EncoderError::Unavailable(format!("cannot run ffmpeg: {e}")));
            }
        };
        let stdin = child.stdin.take();
        let stderr = child.stderr.take().map(|mut pipe| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = pipe.read_to_string(&mut text);
                text
            })
        });
        Ok(Encoder {
            child,
            stdin,
            stderr,
            frame_bytes: w as usize * h as usize * 4,
            output: spec.output.to_path_buf(),
            sound,
            finished: false,
        })
    }

    /// One frame: RGBA, the top row first, exactly the spec's size.
    pub fn write_frame(&mut self, rgba: &[u8]) -> Result<(), EncoderError> {
        if rgba.len() != self.frame_bytes {
            return Err(EncoderError::Failed(format!(
                "a frame of {} bytes, not {}",
                rgba.len(),
                self.frame_bytes
            )));
        }
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| EncoderError::Failed("the encoder is closed".into()))?;
        if stdin.write_all(rgba).is_err() {
            // ffmpeg went away: its own words say why.
            self.stdin = None;
            let why = self.wait_failure();
            return Err(EncoderError::Failed(why));
        }
        Ok(())
    }

    /// Closes the frames' pipe and waits for ffmpeg to write the file;
    /// its size in bytes.
    pub fn finish(mut self) -> Result<u64, EncoderError> {
        self.stdin = None;
        let status = self
            .child
            .wait()
            .map_err(|e| EncoderError::Failed(format!("ffmpeg: {e}")))?;
        let words = self.stderr_text();
        if !status.success() {
            return Err(EncoderError::Failed(failure_line(status, &words)));
        }
        self.finished = true;
        std::fs::metadata(&self.output)
            .map(|m| m.len())
            .map_err(|e| EncoderError::Failed(format!("{}: {e}", self.output.display())))
    }

    fn wait_failure(&mut self) -> String {
        let status = self.child.wait();
        let words = self.stderr_text();
        match status {
            Ok(status) => failure_line(status, &words),
            Err(e) => format!("ffmpeg: {e}"),
        }
    }

    fn stderr_text(&mut self) -> String {
        self.stderr
            .take()
            .and_then(|reader| reader.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for Encoder {
    /// The sound track's file goes. Dropped unfinished (an error, the
    /// window closed): no ffmpeg left behind, and no half-written video.
    fn drop(&mut self) {
        if let Some(wav) = &self.sound {
            let _ = std::fs::remove_file(wav);
        }
        if !self.finished {
            self.stdin = None;
            let _ = self.child.kill();
            let _ = self.child.wait();
            let _ = std::fs::remove_file(&self.output);
        }
    }
}

/// ffmpeg's exit and the last line it wrote, as one line.
fn failure_line(status: std::process::ExitStatus, words: &str) -> String {
    let last = words
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("no message");
    format!("ffmpeg failed ({status}): {last}")
}
