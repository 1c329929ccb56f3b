//! A virtual X display (Xvfb) for tests that open a real window.

use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// `Xvfb :N` on a display number nobody uses, killed and reaped on drop.
pub struct Display {
    /// `:N`, for `DISPLAY`.
    pub name: String,
    process: Child,
}

impl Display {
    /// Starts Xvfb (scripts/test.sh installs it); fails if its socket has
    /// not appeared within 10 s.
    pub fn start() -> Self {
        // The process id keeps test binaries apart, the counter the tests
        // of one binary (which run in parallel threads).
        static STARTED: AtomicU32 = AtomicU32::new(0);
        let first =
            150 + std::process::id() % 40 * 10 + STARTED.fetch_add(1, Ordering::Relaxed) * 400;
        let number = (first..first + 100)
            .find(|n| {
                !std::path::Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
                    && !std::path::Path::new(&format!("/tmp/.X{n}-lock")).exists()
            })
            .expect("a free X display number");
        let name = format!(":{number}");
        let process = Command::new("Xvfb")
            .args([&name, "-screen", "0", "1280x720x24", "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start Xvfb ({e}); apt-get install xvfb libgl1-mesa-dri")
            });
        let display = Display { name, process };
        let socket = format!("/tmp/.X11-unix/X{number}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while !std::path::Path::new(&socket).exists() {
            assert!(
                Instant::now() < deadline,
                "Xvfb {} did not start",
                display.name
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        display
    }
}

impl Display {
    /// Types `steps` on this display's keyboard through XTEST
    /// (`tests/it/common/keys.py`: words, `<Return>`-style key names,
    /// `@0.5` pauses); fails if a key cannot be sent.
    pub fn type_keys(&self, steps: &[&str]) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/common/keys.py");
        let out = Command::new("python3")
            .arg(script)
            .arg(&self.name)
            .args(steps)
            .output()
            .unwrap_or_else(|e| panic!("cannot run python3 {script}: {e}"));
        assert!(
            out.status.success(),
            "{script} failed ({}): {}; apt-get install python3 libxtst6",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}
