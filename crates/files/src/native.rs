//! Files on disk: stat-ed before they are opened, read with a bound.

use std::fs::{File, FileType};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::ReadError;

/// The whole file, if `path` (symlinks followed) is a regular file of at most
/// `limit` bytes. Reads at most `limit` bytes and one 4 KiB probe, whatever
/// size the file claims.
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

/// A file being written: a real one natively, a page-lifetime buffer in the
/// browser.
pub struct OutFile {
    file: io::BufWriter<File>,
}

/// Creates (or replaces) `path`, with its directories.
pub fn create(path: &Path) -> io::Result<OutFile> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    Ok(OutFile {
        file: io::BufWriter::new(File::create(path)?),
    })
}

impl OutFile {
    /// Flushes and asks the disk to keep it (nothing to do in memory).
    pub fn sync(&mut self) -> io::Result<()> {
        self.file.flush()?;
        self.file.get_ref().sync_all()
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

/// The files in `dir` named `*.EXT`, the most recently written first.
pub fn newest_first(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = read
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == ext))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    files.into_iter().map(|(_, path)| path).collect()
}
