//! The browser's stand-in for a directory of files: path -> bytes, for as
//! long as the page is open.

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
