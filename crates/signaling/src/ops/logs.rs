//! How the server logs (`--log-format`): text for a person at a terminal
//! or journald, or one JSON object per line for a log shipper (Loki,
//! Elasticsearch, CloudWatch), with `timestamp`, `level`, `target`,
//! `message` and the event's fields (`room`, `peer`, `origin`...) at the
//! top level of the object.
//!
//! The server's own lines (start-up, draining) go the same way: in text,
//! `twinstar: ...` as before; in JSON, objects like the rest, so that every
//! line on stderr parses. What is logged is chosen by `RUST_LOG` as before
//! (`twinstar=info` when unset); the server's own lines are always written.
//!
//! The format is installed as the default of the server's threads (the
//! caller's and the runtime's), not globally: `twinstar serve` runs inside
//! the game, which has installed its own text subscriber before it knew
//! which command it runs.

use std::io::{IsTerminal, Write};

use tracing::Dispatch;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

/// `--log-format`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogFormat {
    /// Lines for people (colours on a terminal).
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

impl LogFormat {
    /// The subscriber for this format on stderr, filtered by `RUST_LOG`.
    pub fn dispatch(self) -> Dispatch {
        self.dispatch_to(std::io::stderr, std::io::stderr().is_terminal())
    }

    fn dispatch_to<W>(self, writer: W, ansi: bool) -> Dispatch
    where
        W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
    {
        let filter = || {
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("twinstar=info"))
        };
        let builder = tracing_subscriber::fmt().with_writer(writer);
        match self {
            LogFormat::Text => builder.with_ansi(ansi).with_env_filter(filter()).into(),
            LogFormat::Json => builder
                .json()
                .flatten_event(true)
                .with_current_span(false)
                .with_span_list(false)
                .with_env_filter(filter())
                .into(),
        }
    }

    /// Writes one of the server's own lines to stderr: `PROGRAM: text`, or
    /// a JSON object shaped like the logged events'. Never filtered out:
    /// these say where the server listens and why it stops.
    pub fn say(self, program: &str, level: &str, text: &str) {
        let line = match self {
            LogFormat::Text => format!("{program}: {text}"),
            LogFormat::Json => serde_json::json!({
                "timestamp": humantime::format_rfc3339_micros(std::time::SystemTime::now())
                    .to_string(),
                "level": level,
                "target": program,
                "message": text,
            })
            .to_string(),
        };
        // One write of a whole line: lines from two threads never mix.
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formats_parse_from_flags_and_files() {
        use clap::ValueEnum;
        assert_eq!(LogFormat::from_str("json", false), Ok(LogFormat::Json));
        assert!(LogFormat::from_str("xml", false).is_err());
        #[derive(serde::Deserialize)]
        struct File {
            f: LogFormat,
        }
        let file: File = toml::from_str("f = \"text\"").unwrap();
        assert_eq!(file.f, LogFormat::Text);
    }

    #[test]
    fn a_json_event_is_one_object_with_its_fields_at_the_top() {
        use std::sync::{Arc, Mutex};
        #[derive(Clone, Default)]
        struct Captured(Arc<Mutex<Vec<u8>>>);
        impl Write for Captured {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let captured = Captured::default();
        let writer = captured.clone();
        let dispatch = LogFormat::Json.dispatch_to(move || writer.clone(), false);
        tracing::dispatcher::with_default(&dispatch, || {
            // The default filter passes the server's own targets.
            tracing::info!(target: "twinstar_signaling::rooms::connection", room = "K7Q2XM", peer = "p1", "joined (1/2)");
        });
        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        let event: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(event["message"], "joined (1/2)", "{text}");
        assert_eq!(event["room"], "K7Q2XM");
        assert_eq!(event["peer"], "p1");
        assert_eq!(event["level"], "INFO");
        assert!(event["timestamp"].is_string(), "{text}");
    }
}
