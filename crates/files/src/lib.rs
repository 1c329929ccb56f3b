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
//! offers them as downloads.
//!
//! Known gap: a regular file swapped for a FIFO between the stat and the
//! open would still block in `open`; closing it needs `O_NONBLOCK`, which
//! std does not name portably. The size bound holds either way.

#[cfg(not(target_arch = "wasm32"))]
use std::fs::{File, FileType};
#[cfg(not(target_arch = "wasm32"))]
use std::io::Read;
use std::io::{self, Write};
use std::path::Path;

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

/// The whole file, if `path` (symlinks followed) is a regular file of at most
/// `limit` bytes. Reads at most `limit` bytes and one 4 KiB probe, whatever
/// size the file claims.
#[cfg(target_arch = "wasm32")]
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let bytes = memory::read(path).ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(bytes)
}

/// A file being written: a real one natively, a page-lifetime buffer in the
/// browser.
pub struct OutFile {
    #[cfg(not(target_arch = "wasm32"))]
    file: io::BufWriter<File>,
    #[cfg(target_arch = "wasm32")]
    file: memory::MemoryFile,
}

/// Creates (or replaces) `path`, with its directories.
pub fn create(path: &Path) -> io::Result<OutFile> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        Ok(OutFile {
            file: io::BufWriter::new(File::create(path)?),
        })
    }
    #[cfg(target_arch = "wasm32")]
    Ok(OutFile {
        file: memory::create(path),
    })
}

impl OutFile {
    /// Flushes and asks the disk to keep it (nothing to do in memory).
    pub fn sync(&mut self) -> io::Result<()> {
        self.file.flush()?;
        #[cfg(not(target_arch = "wasm32"))]
        self.file.get_ref().sync_all()?;
        Ok(())
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// The browser's stand-in for a directory of files: path -> bytes, for as
/// long as the page is open.
#[cfg(target_arch = "wasm32")]
pub mod memory {
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::io;
    use std::path::{Path, PathBuf};
    use std::rc::Rc;

    type Shared = Rc<RefCell<Vec<u8>>>;

    thread_local! {
        static FILES: RefCell<BTreeMap<PathBuf, Shared>> = RefCell::default();
    }

    /// Appends to its file's bytes.
    pub struct MemoryFile(Shared);

    impl io::Write for MemoryFile {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    pub fn create(path: &Path) -> MemoryFile {
        let shared = Shared::default();
        FILES.with(|f| f.borrow_mut().insert(path.to_path_buf(), shared.clone()));
        MemoryFile(shared)
    }

    /// Adds a whole file (one the player opened in the page).
    pub fn insert(path: &Path, bytes: Vec<u8>) {
        FILES.with(|f| {
            f.borrow_mut()
                .insert(path.to_path_buf(), Rc::new(RefCell::new(bytes)))
        });
    }

    pub fn read(path: &Path) -> Option<Vec<u8>> {
        FILES.with(|f| f.borrow().get(path).map(|b| b.borrow().clone()))
    }

    /// Every file's path, in order.
    pub fn list() -> Vec<PathBuf> {
        FILES.with(|f| f.borrow().keys().cloned().collect())
    }
}

/// The files in `dir` named `*.EXT`, the most recently written first.
pub fn newest_first(dir: &Path, ext: &str) -> Vec<std::path::PathBuf> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let Ok(read) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut files: Vec<(std::time::SystemTime, std::path::PathBuf)> = read
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == ext))
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        files.sort_by_key(|f| std::cmp::Reverse(f.0));
        files.into_iter().map(|(_, path)| path).collect()
    }
    // Names start with the time they were made: reverse name order.
    #[cfg(target_arch = "wasm32")]
    memory::list()
        .into_iter()
        .rev()
        .filter(|p| p.parent() == Some(dir) && p.extension().is_some_and(|x| x == ext))
        .collect()
}

#[cfg(not(target_arch = "wasm32"))]
pub fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(describe(meta.file_type())));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge { limit });
    }
    let mut file = File::open(path)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    (&mut file).take(limit).read_to_end(&mut bytes)?;
    // Anything after the limit makes the file too large. The probe is a
    // block, not one byte: some /proc files (pagemap) refuse reads whose
    // size is not a multiple of 8.
    if bytes.len() as u64 == limit && file.read(&mut [0; 4096])? > 0 {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(bytes)
}

#[cfg(not(target_arch = "wasm32"))]
fn describe(kind: FileType) -> &'static str {
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "a special file"
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
