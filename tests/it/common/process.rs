//! `twinstar` as a child process that cannot outlive its test.

use std::io::Read;
use std::path::Path;
use std::process::{Child, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Lines of stderr a failure message shows.
const TAIL: usize = 40;

/// A pipe's bytes, collected on a thread and readable while the process
/// runs. The pipe is drained to its end, so the child never blocks on it.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    fn read_from(mut pipe: impl Read + Send + 'static) -> (Self, JoinHandle<()>) {
        let captured = Captured::default();
        let sink = captured.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => sink.bytes().extend_from_slice(&buf[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
            }
        });
        (captured, reader)
    }

    fn bytes(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        // A reader never panics while holding the lock; if one did, the
        // bytes are still worth showing.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes()).into_owned()
    }
}

/// A running `twinstar`, its stdout and stderr collected as it runs.
/// Dropping it kills (SIGKILL) and reaps the process, so a failed assertion
/// or a panic anywhere in the test leaves no process behind.
pub struct Twinstar {
    child: Child,
    what: String,
    stdout: Captured,
    stderr: Captured,
    readers: Vec<JoinHandle<()>>,
    started: Instant,
}

/// How a process ended.
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    /// From the spawn to the end of the process.
    pub took: Duration,
}

impl Twinstar {
    /// Starts `twinstar ARGS` in `dir` (see [`super::command`]).
    pub fn spawn(dir: &Path, args: &[&str]) -> Self {
        Self::spawn_command(super::command(dir, args))
    }

    /// Starts `twinstar ARGS` in a window on `display` (see [`super::Display`]).
    pub fn spawn_in_window(dir: &Path, args: &[&str], display: &super::Display) -> Self {
        let mut command = super::command(dir, args);
        command.env("DISPLAY", &display.name);
        Self::spawn_command(command)
    }

    /// Starts `command`: one made by [`super::command`] and then given what
    /// a suite needs beyond it, such as other environment variables. Its
    /// stdout and stderr are replaced by pipes collected as it runs.
    pub fn spawn_command(mut command: std::process::Command) -> Self {
        let args: Vec<String> = command
            .get_args()
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect();
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", super::BIN));
        let (stdout, out_reader) = Captured::read_from(child.stdout.take().unwrap());
        let (stderr, err_reader) = Captured::read_from(child.stderr.take().unwrap());
        Twinstar {
            child,
            what: format!("twinstar {}", args.join(" ")),
            stdout,
            stderr,
            readers: vec![out_reader, err_reader],
            started: Instant::now(),
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Its stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.text()
    }

    /// Waits until stderr contains `needle`; false after `limit`, or if the
    /// process ended without writing it.
    pub fn wait_for(&mut self, needle: &str, limit: Duration) -> bool {
        self.wait_for_nth(needle, 1, limit)
    }

    /// Waits until stderr contains `needle` `n` times (a second reconnect
    /// after a first); false after `limit`, or if the process ended first.
    pub fn wait_for_nth(&mut self, needle: &str, n: usize, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let seen = |this: &Self| this.stderr().matches(needle).count() >= n;
        while Instant::now() < deadline {
            if seen(self) {
                return true;
            }
            if !self.is_running() {
                // Whatever it wrote last is in the pipe's remains.
                self.join_readers();
                return seen(self);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// SIGKILL, no goodbye; reaps the process and returns its status.
    pub fn kill(&mut self) -> ExitStatus {
        let _ = self.child.kill();
        self.child
            .wait()
            .unwrap_or_else(|e| panic!("reaping {}: {e}", self.what))
    }

    /// Waits for the process to end; after `limit` (counted from this call)
    /// kills it and panics with its stderr tail.
    pub fn finish(mut self, limit: Duration) -> Finished {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                self.kill();
                self.join_readers();
                panic!(
                    "{} still running after {limit:?}; killed. stderr:\n{}",
                    self.what,
                    super::tail(&self.stderr(), TAIL)
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let took = self.started.elapsed();
        self.join_readers();
        Finished {
            status,
            stdout: self.stdout.text(),
            stderr: self.stderr(),
            took,
        }
    }

    /// Once the process is gone its pipes close; this collects what they
    /// still held.
    fn join_readers(&mut self) {
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
    }
}

impl Drop for Twinstar {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

impl Finished {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// The `--json` summary (the last stdout line); panics with stdout and
    /// the stderr tail when there is none.
    /// How it ended and the last `lines` of its stderr, under `name`: for
    /// assertion messages about several processes at once.
    pub fn report(&self, name: &str, lines: usize) -> String {
        format!(
            "{name} ({:?}):\n{}\n",
            self.status,
            super::tail(&self.stderr, lines)
        )
    }

    pub fn summary(&self) -> super::Summary {
        super::parse_summary(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "{e}\nstdout:\n{}\nstderr:\n{}",
                self.stdout,
                super::tail(&self.stderr, TAIL)
            )
        })
    }
}
