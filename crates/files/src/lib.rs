//! Reading a file the user named (a replay, the settings) without trusting
//! what the path turns out to be.
//!
//! A path may name a FIFO (opening it blocks until a writer comes), a device
//! (`/dev/zero` never ends) or a `/proc` file (claims size 0, then streams).
//! So the path is stat-ed first and anything but a regular file is refused
//! before it is opened, and a regular file is read through `Read::take` up
//! to its limit, then probed for more, so no file costs more than its limit
//! in memory, whatever its size claims.
//!
//! Replays and settings both read through here, and the signaling server
//! reads the web client's files and the TURN secret through it: a crate
//! of its own below all of them (the game's `platform::files`).
//!
//! In the browser there is no file system: [`create`] and [`read_limited`]
//! use an in-memory store for the page's lifetime instead (`memory`), so
//! replays are recorded, listed and read by the same code, and the page
//! offers them as downloads. Which of the two is chosen once, below:
//! `native.rs` and `wasm.rs` offer the same [`OutFile`], [`create`],
//! [`read_limited`] and [`newest_first`].
//!
//! Known gap: a regular file swapped for a FIFO between the stat and the
//! open would still block in `open`; closing it needs `O_NONBLOCK`, which
//! std does not name portably. The size bound holds either way.

use std::io;

#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(not(target_arch = "wasm32"))]
use native as imp;
#[cfg(target_arch = "wasm32")]
mod wasm;
#[cfg(target_arch = "wasm32")]
use wasm as imp;
#[cfg(target_arch = "wasm32")]
pub mod memory;

pub use imp::{OutFile, create, newest_first, read_limited};

/// Why a file could not be read. The messages leave the path out: the
/// caller names the file (`twinstar: PATH: message`).
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("not a regular file ({0})")]
    NotRegular(&'static str),
    #[error("larger than {}, the most this file may hold", human_bytes(*.limit))]
    TooLarge { limit: u64 },
}

impl ReadError {
    /// The path does not exist (settings: use the defaults).
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

/// `65536` -> `64 KiB`, `67108864` -> `64 MiB`, else bytes.
fn human_bytes(n: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    match n {
        n if n >= MIB && n % MIB == 0 => format!("{} MiB", n / MIB),
        n if n >= KIB && n % KIB == 0 => format!("{} KiB", n / KIB),
        n => format!("{n} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("twinstar-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn reads_up_to_the_limit_and_refuses_more() {
        let path = temp_file("ten", &[7; 10]);
        assert_eq!(read_limited(&path, 10).unwrap(), [7; 10]);
        let err = read_limited(&path, 9).unwrap_err();
        assert!(matches!(err, ReadError::TooLarge { limit: 9 }), "{err}");
        assert_eq!(
            err.to_string(),
            "larger than 9 bytes, the most this file may hold"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn special_files_are_refused_or_bounded() {
        let err = read_limited(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(err.to_string(), "not a regular file (a character device)");
        let err = read_limited(Path::new("/"), 1 << 20).unwrap_err();
        assert_eq!(err.to_string(), "not a regular file (a directory)");
        // Claims size 0, yet holds far more than 16 bytes.
        let err = read_limited(Path::new("/proc/self/maps"), 16).unwrap_err();
        assert!(matches!(err, ReadError::TooLarge { .. }), "{err}");
        assert!(
            read_limited(Path::new("/no/such/file"), 16)
                .unwrap_err()
                .is_not_found()
        );
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_bytes(64 * 1024), "64 KiB");
        assert_eq!(human_bytes(64 << 20), "64 MiB");
        assert_eq!(human_bytes(1000), "1000 bytes");
    }
}
