//! Test certificates: a private CA and certificates for 127.0.0.1, made
//! by scripts/lib/make-test-certs.sh (openssl).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A private CA (`dir/ca.pem`, made on the first call) and a certificate
/// for 127.0.0.1 named `name` in `dir`: its `.pem` and `.key`.
pub fn certificate(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let status = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/lib/make-test-certs.sh"))
        .args([dir.as_os_str(), OsStr::new("127.0.0.1"), OsStr::new(name)])
        .status()
        .expect("bash runs");
    assert!(
        status.success(),
        "make-test-certs.sh failed (is openssl installed?)"
    );
    (
        dir.join(format!("{name}.pem")),
        dir.join(format!("{name}.key")),
    )
}
