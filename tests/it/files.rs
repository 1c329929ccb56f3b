//! Files the user names (replays, settings) and the flags that go with them:
//! a path that is not a regular file is refused in one line without
//! blocking, every `--help` names only flags its command takes, and a flag
//! a command would ignore is refused.
//!
//! Every run has a time limit: a regression that blocks (a FIFO) or reads
//! without end (`/dev/zero`, `/proc`) fails here instead of hanging.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{Finished, Twinstar, scratch};

/// Exit 2 with exactly one stderr line containing `needle`.
fn assert_refused(run: &Finished, needle: &str) {
    assert_eq!(run.code(), Some(2), "{}", run.stderr);
    assert_eq!(run.stderr.trim_end().lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(needle),
        "wanted '{needle}': {}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

/// Runs the binary (see [`common::command`]) with no signaling server from
/// the environment and, unless `env` names another, a settings file that
/// does not exist; kills it and fails after `limit`.
fn twinstar(args: &[&str], env: &[(&str, &Path)], limit: Duration) -> Finished {
    // Tests run in parallel: each run gets its own directory.
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let dir = scratch(&format!("run-{}", RUNS.fetch_add(1, Ordering::Relaxed)));
    let mut command = common::command(&dir, args);
    command
        .env_remove("TWINSTAR_SERVER")
        // Never the developer's own settings.
        .env("TWINSTAR_CONFIG", dir.join("no-settings.toml"));
    for (key, value) in env {
        command.env(key, value);
    }
    Twinstar::spawn_command(command).finish(limit)
}

const LIMIT: Duration = Duration::from_secs(10);

/// A named pipe nobody writes to, in `dir`: opening it for reading blocks.
fn fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let status = Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
    path
}

/// A short real replay, recorded in `dir`.
fn recorded_replay(dir: &Path) -> PathBuf {
    let path = dir.join("recorded.tsr");
    let run = twinstar(
        &[
            "local",
            "--headless",
            "--frames",
            "130",
            "--seed",
            "3",
            "--record",
            path.to_str().unwrap(),
        ],
        &[],
        LIMIT,
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    path
}

/// `twinstar replay PATH --headless --verify`.
fn verify(path: &str) -> Finished {
    twinstar(&["replay", path, "--headless", "--verify"], &[], LIMIT)
}

#[test]
fn a_device_as_replay_is_refused_at_once() {
    assert_refused(
        &verify("/dev/zero"),
        "/dev/zero: not a regular file (a character device)",
    );
}

#[test]
fn a_fifo_as_replay_is_refused_without_blocking() {
    let dir = scratch("fifo_as_replay");
    let pipe = fifo(&dir, "replay.tsr");
    let path = pipe.to_str().unwrap();
    let run = verify(path);
    assert_refused(&run, "not a regular file (a FIFO)");
    assert!(run.took < Duration::from_secs(2), "took {:?}", run.took);

    let good = recorded_replay(&dir);
    let run = twinstar(&["replay-diff", good.to_str().unwrap(), path], &[], LIMIT);
    assert_refused(&run, "not a regular file (a FIFO)");
}

/// `/proc/self/pagemap` claims size 0 and streams gigabytes.
#[cfg(target_os = "linux")]
#[test]
fn a_proc_file_is_read_only_up_to_the_replay_limit() {
    assert_refused(
        &verify("/proc/self/pagemap"),
        "/proc/self/pagemap: larger than 64 MiB",
    );
}

#[test]
fn a_settings_path_that_is_not_a_file_is_reported_and_the_defaults_used() {
    let pipe = fifo(&scratch("settings_not_a_file"), "settings.toml");
    for path in [pipe.as_path(), Path::new("/dev/zero")] {
        // The menu reads the settings first, then finds no display.
        let run = twinstar(&["menu"], &[("TWINSTAR_CONFIG", path)], LIMIT);
        assert_eq!(run.code(), Some(2), "{}", run.stderr);
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 2, "{}", run.stderr);
        assert!(
            lines[0].contains(&path.display().to_string()),
            "{}",
            lines[0]
        );
        assert!(lines[0].contains("not a regular file"), "{}", lines[0]);
        assert!(lines[0].contains("using the defaults"), "{}", lines[0]);
        assert!(lines[1].contains("no display"), "{}", lines[1]);
    }
}

#[test]
fn verify_without_headless_is_refused() {
    let replay = recorded_replay(&scratch("verify_without_headless"));
    let file = replay.to_str().unwrap();
    for (flags, needle) in [
        (&["--verify"][..], "--verify needs --headless"),
        (&["--json"], "--json needs --headless"),
        (&["--frames", "9"], "--screenshot"),
        (&["--headless", "--screenshot", "x.png"], "--headless"),
        (&["--overlay"], "--overlay"),
    ] {
        let args = [&["replay", file][..], flags].concat();
        assert_refused(&twinstar(&args, &[], LIMIT), needle);
    }
    // What the help promises still works.
    let run = twinstar(
        &["replay", file, "--headless", "--verify", "--json"],
        &[],
        LIMIT,
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("\"frames\":130"), "{}", run.stdout);
}

#[test]
fn the_menu_refuses_frames_and_its_help_does_not_offer_it() {
    assert_refused(
        &twinstar(&["menu", "--frames", "5"], &[], LIMIT),
        "--frames",
    );
    let help = twinstar(&["menu", "--help"], &[], LIMIT).stdout;
    assert!(!help.contains("--frames"), "{help}");
}

/// The flags a help text defines (its option lines) and the flags it
/// mentions anywhere, by the command they belong to: in the top-level help,
/// a command's line and an example `twinstar CMD ...` speak of CMD.
fn help_flags(help: &str) -> (Vec<String>, Vec<(String, String)>) {
    let mut defined = Vec::new();
    let mut mentioned = Vec::new();
    let mut section = "";
    for line in help.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            section = line;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let owner = match (section, words.as_slice()) {
            ("Commands:", [cmd, ..]) => cmd.to_string(),
            ("Examples:", ["twinstar", cmd, ..]) => cmd.to_string(),
            _ => String::new(),
        };
        let flags = flags_in(line);
        // An option's own line (not one of its listed values, "- human: ..."),
        // under "Options:" or a heading of its own ("TLS:", "Limits:").
        if !matches!(section, "" | "Commands:" | "Examples:")
            && line.trim_start().starts_with('-')
            && let Some(first) = flags.first()
        {
            defined.push(first.clone());
        }
        mentioned.extend(flags.into_iter().map(|f| (owner.clone(), f)));
    }
    (defined, mentioned)
}

/// Every `--word` in a line.
fn flags_in(line: &str) -> Vec<String> {
    line.match_indices("--")
        .map(|(i, _)| {
            let name: String = line[i + 2..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect();
            format!("--{name}")
        })
        .filter(|f| f.len() > 2)
        .collect()
}

#[test]
fn every_help_mentions_only_flags_its_command_takes() {
    let commands = [
        "",
        "menu",
        "synctest",
        "local",
        "host",
        "join",
        "serve",
        "replay",
        "replay-diff",
    ];
    let defined = |cmd: &str| {
        let args: Vec<&str> = [cmd, "--help"]
            .into_iter()
            .filter(|a| !a.is_empty())
            .collect();
        let run = twinstar(&args, &[], LIMIT);
        assert_eq!(run.code(), Some(0), "{cmd} --help: {}", run.stderr);
        help_flags(&run.stdout)
    };
    let mut checked = 0;
    for cmd in commands {
        let (own, mentioned) = defined(cmd);
        checked += mentioned.len();
        for (owner, flag) in mentioned {
            let takes = if owner.is_empty() || owner == cmd {
                own.clone()
            } else {
                defined(&owner).0
            };
            let owner = if owner.is_empty() { cmd } else { &owner };
            assert!(
                takes.contains(&flag),
                "'twinstar {cmd} --help' mentions {flag} for '{owner}', which takes only {takes:?}"
            );
        }
    }
    // The option lines alone mention well over a hundred flags.
    assert!(
        checked > 100,
        "only {checked} flags found: is the parsing broken?"
    );
}
