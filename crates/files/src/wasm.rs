//! Files in the page: the in-memory store ([`crate::memory`]) for the
//! page's lifetime, with the same API as files on disk.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::{ReadError, memory};

/// The whole file, if the page's store has `path` and it is at most
/// `limit` bytes.
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
    file: memory::MemoryFile,
}

/// Creates (or replaces) `path`.
pub fn create(path: &Path) -> io::Result<OutFile> {
    Ok(OutFile {
        file: memory::create(path),
    })
}

impl OutFile {
    /// Flushes and asks the disk to keep it (nothing to do in memory).
    pub fn sync(&mut self) -> io::Result<()> {
        self.file.flush()
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

/// The files in `dir` named `*.EXT`, the most recently written first:
/// names start with the time they were made, so reverse name order.
pub fn newest_first(dir: &Path, ext: &str) -> Vec<PathBuf> {
    memory::list()
        .into_iter()
        .rev()
        .filter(|p| p.parent() == Some(dir) && p.extension().is_some_and(|x| x == ext))
        .collect()
}
