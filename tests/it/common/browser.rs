//! The web client in headless Chromium, driven by `tests/web/drive.mjs`
//! (playwright-core on Debian's `/usr/bin/chromium`). The web client is
//! built once by `bash scripts/build-web.sh` into `TARGET/web`; the driver's
//! packages come from `npm ci` in `tests/web`. `scripts/test.sh` does both.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Finished, Twinstar};

/// The prefix of the page's one result line (`app::RESULT_PREFIX`, browser only).
const RESULT_PREFIX: &str = "TWINSTAR-RESULT ";

/// `TARGET/web`: beside `TARGET/debug/twinstar`, where build-web.sh puts it.
pub fn web_dir() -> PathBuf {
    let bin = Path::new(super::BIN);
    let target = bin
        .parent()
        .and_then(Path::parent)
        .expect("the binary lies in TARGET/PROFILE/");
    target.join("web")
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Fails with what to run when the web client or the driver is missing.
pub fn require_web_client() {
    let web = web_dir();
    assert!(
        web.join("twinstar_bg.wasm").is_file(),
        "no web client in {}: run bash scripts/build-web.sh first (scripts/test.sh does)",
        web.display()
    );
    let driver = repo().join("tests/web/node_modules/playwright-core");
    assert!(
        driver.is_dir(),
        "the browser driver is not installed: run (cd tests/web && npm ci) (scripts/test.sh does)"
    );
}

/// Opens `url` in a fresh headless Chromium; `extra` are drive.mjs options
/// (`--timeout`, `--keys`, `--screenshot`, `--downloads`, `--until`).
pub fn open(url: &str, extra: &[&str]) -> Twinstar {
    require_web_client();
    let mut command = Command::new("node");
    command
        .current_dir(repo())
        .arg("tests/web/drive.mjs")
        .arg(url)
        .args(extra);
    Twinstar::spawn_command(command)
}

/// Runs one check of the installable app (`tests/web/pwa.mjs CHECK URL`:
/// `install` or `offline`) in a fresh headless Chromium profile.
pub fn pwa(check: &str, url: &str, extra: &[&str]) -> Twinstar {
    require_web_client();
    let mut command = Command::new("node");
    command
        .current_dir(repo())
        .arg("tests/web/pwa.mjs")
        .arg(check)
        .arg(url)
        .args(extra);
    Twinstar::spawn_command(command)
}

/// `tests/web/pwa.mjs update`: serves `web`, then `next` on the same port
/// (`bin serve --web ...`), in a fresh headless Chromium profile.
pub fn pwa_update(bin: &str, web: &Path, next: &Path) -> Twinstar {
    require_web_client();
    let mut command = Command::new("node");
    command
        .current_dir(repo())
        .arg("tests/web/pwa.mjs")
        .arg("update")
        .arg(bin)
        .arg(web)
        .arg(next)
        .args(["--timeout", "60"]);
    Twinstar::spawn_command(command)
}

/// The JSON after `PREFIX` on the first stdout line that starts with it;
/// fails with the output when there is none.
pub fn json_line(out: &Finished, prefix: &str) -> serde_json::Value {
    let text = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| {
            panic!(
                "no '{prefix}' line ({:?}); output:\n{}\n{}",
                out.status,
                super::tail(&out.stdout, 40),
                super::tail(&out.stderr, 20)
            )
        });
    serde_json::from_str(text).unwrap_or_else(|e| panic!("bad JSON after {prefix}: {e}: {text}"))
}

/// The page's result line: `{"exit": N, "summary": {...} or null,
/// "error": "..." or null}`; fails with the page's output when there is none.
pub fn result(page: &Finished) -> serde_json::Value {
    let line = page
        .stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(RESULT_PREFIX))
        .unwrap_or_else(|| {
            panic!(
                "the page gave no result ({:?}); its output:\n{}\n{}",
                page.status,
                super::tail(&page.stdout, 60),
                super::tail(&page.stderr, 20)
            )
        });
    let result: serde_json::Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("bad result line {line}: {e}"));
    // The page's summary is the native game's type too (see `Summary`).
    if !result["summary"].is_null() {
        super::Summary::check(result["summary"].clone()).unwrap_or_else(|e| panic!("{e}"));
    }
    result
}

/// `http://127.0.0.1:PORT/` of a server started with `--web`, plus the
/// fragment (`#K7Q-2XM`, `#!synctest ...`, spaces allowed).
pub fn page_url(server: &super::Server, fragment: &str) -> String {
    let fragment = fragment.replace(' ', "%20");
    format!("http://{}/{fragment}", server.addr)
}
