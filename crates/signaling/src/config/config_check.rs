//! Reading a server config file and finding everything wrong with it: the
//! one checker behind `--config FILE` (the server stops at start-up with
//! the first problem) and `twinstar-server check-config FILE` (which lists
//! them all). Each problem is one line that names the line of the file,
//! the key and what the key takes: an operator fixes a file in one pass,
//! and a typo in a key never silently leaves an option at its default.

use std::fmt;
use std::net::SocketAddr;
use std::ops::{Range, RangeInclusive};
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::Spanned;
use toml::de::{DeTable, DeValue};
use twinstar_signaling_protocol::{Scheme, validate_url};

use crate::config::serve_args::{
    DRAIN_TIMEOUT_SECS, HANDSHAKE_TIMEOUT_SECS, IDLE_TIMEOUT_SECS, MAX_PER_ADDRESS, MetricsBind,
    REPORTS_MAX_BYTES, VERIFIERS, parse_metrics_bind,
};
use crate::ops::logs::LogFormat;

/// The largest config file read: a few hundred bytes in practice.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// The keys a file may hold: the flags' names, without `config` (a file
/// does not name another file).
pub const KEYS: [&str; 22] = [
    "bind",
    "web",
    "log-format",
    "tls-cert",
    "tls-key",
    "stun",
    "turn",
    "turn-secret",
    "turn-secret-file",
    "turn-ttl",
    "idle-timeout",
    "handshake-timeout",
    "max-per-address",
    "trust-forwarded",
    "directory",
    "reports",
    "reports-max-bytes",
    "data",
    "verifiers",
    "drain-timeout",
    "metrics-bind",
    "metrics-token-file",
];

/// The file's settings, each checked as its flag's value is; `None` for a
/// key the file does not set. Paths are relative to the file's directory.
#[derive(Debug, Default)]
pub(crate) struct FileSettings {
    pub bind: Option<SocketAddr>,
    pub web: Option<PathBuf>,
    pub log_format: Option<LogFormat>,
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub stun: Option<Vec<String>>,
    pub turn: Option<Vec<String>>,
    pub turn_secret: Option<String>,
    pub turn_secret_file: Option<PathBuf>,
    pub turn_ttl: Option<Duration>,
    pub idle_timeout: Option<u64>,
    pub handshake_timeout: Option<u64>,
    pub max_per_address: Option<u64>,
    pub trust_forwarded: Option<bool>,
    pub directory: Option<String>,
    pub reports: Option<PathBuf>,
    pub reports_max_bytes: Option<u64>,
    pub data: Option<PathBuf>,
    pub verifiers: Option<u64>,
    pub drain_timeout: Option<u64>,
    pub metrics_bind: Option<MetricsBind>,
    pub metrics_token_file: Option<PathBuf>,
}

/// A file with no problem: its settings and how many keys it sets.
#[derive(Debug)]
pub(crate) struct Checked {
    pub settings: FileSettings,
    pub count: usize,
}

/// One thing wrong with a config file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based; `None` for the file as a whole (unreadable, not text).
    pub line: Option<usize>,
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, &self.key) {
            (Some(line), Some(key)) => write!(f, "line {line}: {key}: {}", self.message),
            (Some(line), None) => write!(f, "line {line}: {}", self.message),
            (None, Some(key)) => write!(f, "{key}: {}", self.message),
            (None, None) => write!(f, "{}", self.message),
        }
    }
}

/// Reads and checks the file at `path`.
pub(crate) fn check_file(path: &Path) -> Result<Checked, Vec<Problem>> {
    let whole = |message: String| {
        vec![Problem {
            line: None,
            key: None,
            message,
        }]
    };
    let bytes = twinstar_files::read_limited(path, MAX_FILE_BYTES)
        .map_err(|e| whole(format!("cannot read it: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|_| whole("not UTF-8 text".into()))?;
    check_text(&text, path.parent().unwrap_or(Path::new(".")))
}

/// Checks a file's text; `dir` is the directory its relative paths are in.
pub(crate) fn check_text(text: &str, dir: &Path) -> Result<Checked, Vec<Problem>> {
    let line_of = |span: Range<usize>| text[..span.start.min(text.len())].matches('\n').count() + 1;
    let (table, errors) = DeTable::parse_recoverable(text);
    let mut problems: Vec<Problem> = Vec::new();
    let mut broken: Vec<Range<usize>> = Vec::new();
    for e in &errors {
        let span = e.span().unwrap_or(0..text.len());
        let line = line_of(span.clone());
        broken.push(span);
        // One per line: TOML's recovery often finds several in one.
        if problems.iter().all(|p| p.line != Some(line)) {
            problems.push(Problem {
                line: Some(line),
                key: None,
                message: e.message().trim().replace('\n', " "),
            });
        }
    }
    let mut file = FileSettings::default();
    let mut count = 0;
    let mut secret_lines = (None, None);
    // `data` and `directory` both keep ranked replays (SQLite, Redis).
    let mut store_lines = (None, None);
    for (key, value) in table.get_ref() {
        let line = line_of(key.span());
        // A value TOML could not read whole is worth no second problem.
        let span = key.span().start..value.span().end.max(key.span().end);
        if (broken.iter()).any(|b| b.start <= span.end && span.start <= b.end) {
            continue;
        }
        let name = key.get_ref().as_ref();
        let mut problem = |message: String| {
            problems.push(Problem {
                line: Some(line),
                key: Some(name.to_owned()),
                message,
            })
        };
        if !KEYS.contains(&name) {
            problem(unknown_key(name, value.get_ref()));
            continue;
        }
        match set(&mut file, name, value, dir) {
            Ok(()) => count += 1,
            Err(messages) => messages.into_iter().for_each(&mut problem),
        }
        match name {
            "turn-secret" => secret_lines.0 = Some(line),
            "turn-secret-file" => secret_lines.1 = Some(line),
            "data" => store_lines.0 = Some(line),
            "directory" => store_lines.1 = Some(line),
            _ => {}
        }
    }
    problems.extend(both_given(secret_lines, store_lines));
    if !problems.is_empty() {
        problems.sort_by_key(|p| p.line);
        return Err(problems);
    }
    Ok(Checked {
        settings: file,
        count,
    })
}

/// The pairs of keys that say one thing twice: the TURN secret and its
/// file, `data` and `directory` (both keep ranked replays). Each pair holds
/// the lines of its two keys; the problem is on the second's.
fn both_given(
    secret_lines: (Option<usize>, Option<usize>),
    store_lines: (Option<usize>, Option<usize>),
) -> Vec<Problem> {
    let mut problems = Vec::new();
    if let (Some(_), Some(line)) = secret_lines {
        problems.push(Problem {
            line: Some(line),
            key: Some("turn-secret-file".into()),
            message:
                "the file also sets turn-secret: give turn-secret or turn-secret-file, not both"
                    .into(),
        });
    }
    if let (Some(_), Some(line)) = store_lines {
        problems.push(Problem {
            line: Some(line),
            key: Some("directory".into()),
            message: "the file also sets data: with directory the ranked replays are kept in \
                      Redis, so give data or directory, not both"
                .into(),
        });
    }
    problems
}

/// An unknown key's problem, with the known key it most likely meant.
fn unknown_key(name: &str, value: &DeValue) -> String {
    if value.is_table() {
        return format!(
            "unknown key `{name}`: the file has no sections ([{name}]); its keys are at the top"
        );
    }
    match KEYS.iter().min_by_key(|known| distance(name, known)) {
        Some(known) if distance(name, known) <= 3 => {
            format!("unknown key `{name}` (did you mean `{known}`?)")
        }
        _ => format!("unknown key `{name}` (the keys are the flags' names, e.g. idle-timeout)"),
    }
}

/// Levenshtein distance, for a suggestion: keys are short.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Sets one known key from its value, or says every way it is wrong.
fn set(
    file: &mut FileSettings,
    key: &str,
    value: &Spanned<DeValue>,
    dir: &Path,
) -> Result<(), Vec<String>> {
    let value = value.get_ref();
    let one = |e: String| vec![e];
    let path = |value: &DeValue| string(value).map(|p| dir.join(p)).map_err(one);
    match key {
        "bind" => file.bind = Some(socket_addr(value).map_err(one)?),
        "web" => file.web = Some(path(value)?),
        "log-format" => file.log_format = Some(log_format(value).map_err(one)?),
        "tls-cert" => file.tls_cert = Some(path(value)?),
        "tls-key" => file.tls_key = Some(path(value)?),
        "stun" => file.stun = Some(urls(value, Scheme::Stun)?),
        "turn" => file.turn = Some(urls(value, Scheme::Turn)?),
        "turn-secret" => file.turn_secret = Some(turn_secret(value).map_err(one)?),
        "turn-secret-file" => file.turn_secret_file = Some(path(value)?),
        "turn-ttl" => file.turn_ttl = Some(turn_ttl(value).map_err(one)?),
        "idle-timeout" => file.idle_timeout = Some(number(value, IDLE_TIMEOUT_SECS).map_err(one)?),
        "handshake-timeout" => {
            file.handshake_timeout = Some(number(value, HANDSHAKE_TIMEOUT_SECS).map_err(one)?)
        }
        "max-per-address" => {
            file.max_per_address = Some(number(value, MAX_PER_ADDRESS).map_err(one)?)
        }
        "trust-forwarded" => file.trust_forwarded = Some(boolean(value).map_err(one)?),
        "directory" => file.directory = Some(redis_url(value).map_err(one)?),
        "reports" => file.reports = Some(path(value)?),
        "reports-max-bytes" => {
            file.reports_max_bytes = Some(number(value, REPORTS_MAX_BYTES).map_err(one)?)
        }
        "data" => file.data = Some(path(value)?),
        "verifiers" => file.verifiers = Some(number(value, VERIFIERS).map_err(one)?),
        "drain-timeout" => {
            file.drain_timeout = Some(number(value, DRAIN_TIMEOUT_SECS).map_err(one)?)
        }
        "metrics-bind" => {
            let text = string(value).map_err(one)?;
            file.metrics_bind = Some(parse_metrics_bind(&text).map_err(one)?);
        }
        "metrics-token-file" => file.metrics_token_file = Some(path(value)?),
        _ => unreachable!("KEYS and set() name the same keys"),
    }
    Ok(())
}

// The values of the keys that take more than a string, a path or a number,
// one parser each so that `set` stays a table of keys.

/// `bind`: ADDR:PORT.
fn socket_addr(value: &DeValue) -> Result<SocketAddr, String> {
    let text = string(value)?;
    text.parse()
        .map_err(|_| format!("'{text}' is not ADDR:PORT (expected e.g. \"0.0.0.0:3536\")"))
}

/// `log-format`: "text" or "json".
fn log_format(value: &DeValue) -> Result<LogFormat, String> {
    match string(value)?.as_str() {
        "text" => Ok(LogFormat::Text),
        "json" => Ok(LogFormat::Json),
        other => Err(format!("'{other}' is not \"text\" or \"json\"")),
    }
}

/// `turn-secret`: any text but blank.
fn turn_secret(value: &DeValue) -> Result<String, String> {
    let secret = string(value)?;
    if secret.trim().is_empty() {
        return Err("empty (expected the secret coturn checks)".into());
    }
    Ok(secret)
}

/// `turn-ttl`: a duration from a minute to a week.
fn turn_ttl(value: &DeValue) -> Result<Duration, String> {
    let text = string(value)?;
    let ttl = humantime::parse_duration(&text)
        .map_err(|e| format!("'{text}': {e} (expected a duration, e.g. \"6h\" or \"90m\")"))?;
    if !(Duration::from_secs(60)..=Duration::from_secs(7 * 86400)).contains(&ttl) {
        return Err(format!("'{text}' is not between 60 s and 7 days"));
    }
    Ok(ttl)
}

/// `trust-forwarded`: true or false.
fn boolean(value: &DeValue) -> Result<bool, String> {
    value
        .as_bool()
        .ok_or_else(|| format!("expected true or false, found {}", value.type_str()))
}

/// `directory`: a Redis URL.
fn redis_url(value: &DeValue) -> Result<String, String> {
    let url = string(value)?;
    if !(url.starts_with("redis://") || url.starts_with("rediss://")) {
        return Err(format!(
            "'{url}' is not a Redis URL (expected redis://HOST:PORT)"
        ));
    }
    Ok(url)
}

fn string(value: &DeValue) -> Result<String, String> {
    match value.as_str() {
        Some(text) => Ok(text.to_owned()),
        None => Err(format!(
            "expected a string in quotes, found {}",
            value.type_str()
        )),
    }
}

fn number(value: &DeValue, range: RangeInclusive<u64>) -> Result<u64, String> {
    let expected = format!("a whole number in {}..={}", range.start(), range.end());
    let Some(integer) = value.as_integer() else {
        return Err(format!("expected {expected}, found {}", value.type_str()));
    };
    match u64::from_str_radix(integer.as_str(), integer.radix()) {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(format!(
            "{integer} is not in {}..={}",
            range.start(),
            range.end()
        )),
    }
}

/// A list of STUN or TURN URLs, each checked as `--stun`'s and `--turn`'s.
fn urls(value: &DeValue, want: Scheme) -> Result<Vec<String>, Vec<String>> {
    let example = match want {
        Scheme::Stun => "[\"stun:stun.example.org:3478\"]",
        Scheme::Turn => "[\"turn:turn.example.org:3478\"]",
    };
    let Some(items) = value.as_array() else {
        return Err(vec![format!(
            "expected a list of URLs, e.g. {example}, found {}",
            value.type_str()
        )]);
    };
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for item in items.iter() {
        let url = match string(item.get_ref()) {
            Ok(url) => url,
            Err(e) => {
                bad.push(e);
                continue;
            }
        };
        match validate_url(&url) {
            Ok(scheme) if scheme == want => good.push(url),
            Ok(_) => bad.push(format!("'{url}' is not a {} URL", scheme_name(want))),
            Err(e) => bad.push(e.to_string()),
        }
    }
    if bad.is_empty() { Ok(good) } else { Err(bad) }
}

fn scheme_name(scheme: Scheme) -> &'static str {
    match scheme {
        Scheme::Stun => "stun:",
        Scheme::Turn => "turn: or turns:",
    }
}
