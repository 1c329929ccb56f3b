//! `twinstar serve --tls-cert FILE --tls-key FILE`: the page over https and
//! signaling over wss on one port. Certificates are renewed every 60-90
//! days by a tool that rewrites the files; [`Reloader::watch`] notices and
//! swaps the new pair in for new connections, so neither a restart nor a
//! dropped room is needed. A pair that does not load (half-written, key of
//! another certificate) is logged and the old one kept.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;
use web_time::Duration;

use axum_server::tls_rustls::RustlsConfig;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tracing::{info, warn};

/// How often the files are looked at (a stat of each, nothing more).
pub const RELOAD_CHECK: Duration = Duration::from_secs(5);

#[derive(Clone, Debug)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read the certificate {path}: {why}")]
    Cert { path: PathBuf, why: String },
    #[error("cannot read the private key {path}: {why}")]
    Key { path: PathBuf, why: String },
    #[error("the key {key} does not fit the certificate {cert}: {why}")]
    Mismatch {
        cert: PathBuf,
        key: PathBuf,
        why: String,
    },
}

/// What identifies a version of the files: modification time and size.
type Stamp = Option<(SystemTime, u64, SystemTime, u64)>;

fn stamp(files: &TlsFiles) -> Stamp {
    let one = |p: &Path| {
        let m = std::fs::metadata(p).ok()?;
        Some((m.modified().ok()?, m.len()))
    };
    let (c, k) = (one(&files.cert)?, one(&files.key)?);
    Some((c.0, c.1, k.0, k.1))
}

/// Reads and checks the pair: PEM certificate chain, PEM private key.
pub fn load(files: &TlsFiles) -> Result<ServerConfig, TlsError> {
    let cert_err = |why: String| TlsError::Cert {
        path: files.cert.clone(),
        why,
    };
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&files.cert)
        .map_err(|e| cert_err(e.to_string()))?
        .collect::<Result<_, _>>()
        .map_err(|e| cert_err(e.to_string()))?;
    if certs.is_empty() {
        return Err(cert_err("no PEM certificate in it".into()));
    }
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|e| TlsError::Key {
        path: files.key.clone(),
        why: e.to_string(),
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(certs, key))
        .map_err(|e| TlsError::Mismatch {
            cert: files.cert.clone(),
            key: files.key.clone(),
            why: e.to_string(),
        })?;
    // Websockets upgrade over HTTP/1.1 only.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// Loads the pair for serving, and remembers which version it was.
pub fn start(files: &TlsFiles) -> Result<(RustlsConfig, Reloader), TlsError> {
    let seen = stamp(files);
    let config = RustlsConfig::from_config(Arc::new(load(files)?));
    Ok((
        config.clone(),
        Reloader {
            files: files.clone(),
            config,
            seen,
        },
    ))
}

/// Swaps renewed files in.
pub struct Reloader {
    files: TlsFiles,
    config: RustlsConfig,
    seen: Stamp,
}

impl Reloader {
    /// Reloads when the files changed since last time; true if it did.
    pub fn check(&mut self) -> bool {
        let now = stamp(&self.files);
        if now == self.seen {
            return false;
        }
        match load(&self.files) {
            Ok(config) => {
                self.config.reload_from_config(Arc::new(config));
                self.seen = now;
                info!(
                    "reloaded the TLS certificate {} (new connections use it)",
                    self.files.cert.display()
                );
                true
            }
            // Possibly caught half-way through a renewal: try again next
            // time, keep serving the old pair meanwhile.
            Err(e) => {
                warn!("keeping the current certificate: {e}");
                false
            }
        }
    }

    /// Checks every [`RELOAD_CHECK`] until the task is dropped.
    pub async fn watch(mut self) {
        loop {
            tokio::time::sleep(RELOAD_CHECK).await;
            self.check();
        }
    }
}
