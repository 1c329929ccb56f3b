//! `twinstar-server`'s settings from its three sources: a flag wins over
//! its `TWINSTAR_*` variable, the variable over the config file, the file
//! over the default; bad values from any of them are one line and exit 2;
//! `check-config FILE` lists every problem of a file.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{BIN, Running, addr_after, get, run, scratch, text};

#[test]
fn the_config_file_sets_options_and_the_flags_win() {
    let dir = scratch("config");
    let file = dir.join("twinstar-server.toml");
    std::fs::write(
        &file,
        "bind = \"127.0.0.1:0\"\nmetrics-bind = \"off\"\ndrain-timeout = 7\n",
    )
    .unwrap();
    // Named by the environment variable (the game's TWINSTAR_CONFIG is its
    // settings file, not this).
    let child = Command::new(BIN)
        .env("TWINSTAR_SERVER_CONFIG", &file)
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut from_file = Running::attach(child);
    from_file.line_with("metrics served nowhere (--metrics-bind off)");
    drop(from_file);
    // The flag wins over the file; --config wins over the variable.
    let server = Running::start_with(&[
        "--config",
        file.to_str().unwrap(),
        "--metrics-bind",
        "127.0.0.1:0",
    ]);
    let mut server = server;
    let line = server.line_with("metrics on");
    assert_eq!(get(addr_after(&line, "http://"), "/metrics").0, 200);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_bad_config_file_is_one_line_and_exit_2() {
    let dir = scratch("bad-config");
    let file = dir.join("twinstar-server.toml");
    for (toml, says) in [
        (
            "bind = \"127.0.0.1:0\"\nidle-timout = 30\n",
            "unknown key `idle-timout`",
        ),
        (
            "idle-timeout = 9999\n",
            "idle-timeout: 9999 is not in 3..=300",
        ),
        ("idle-timeout = [\n", "line 1"),
    ] {
        std::fs::write(&file, toml).unwrap();
        let out = run(&["serve", "--config", file.to_str().unwrap()]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{toml:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{toml:?}: {stderr}");
        assert!(
            stderr.contains(says) && stderr.contains("twinstar-server.toml"),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let out = run(&["--config", "/nonexistent/twinstar-server.toml"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    std::fs::remove_dir_all(dir).unwrap();
}
/// The STUN URLs the server hands out at `GET /ice`.
fn stun_offered(server: &Running) -> Vec<String> {
    let (status, body) = get(server.addr(), "/ice");
    assert_eq!(status, 200, "{body}");
    let offer: serde_json::Value = serde_json::from_str(&body).unwrap();
    let stun = offer["stun"].as_array().cloned().unwrap_or_default();
    stun.iter()
        .map(|s| s.as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_flag_wins_over_its_variable_and_the_variable_over_the_file() {
    let dir = scratch("precedence");
    let file = dir.join("twinstar-server.toml");
    std::fs::write(
        &file,
        "stun = [\"stun:file.example:3478\"]\nmetrics-bind = \"off\"\n",
    )
    .unwrap();
    let config = ["--config", file.to_str().unwrap()];
    let env = [
        // A list variable: comma-separated.
        (
            "TWINSTAR_STUN",
            "stun:env1.example:3478,stun:env2.example:3478",
        ),
        ("TWINSTAR_METRICS_BIND", "127.0.0.1:0"),
    ];

    // The file alone.
    let mut server = Running::start_with(&config);
    assert_eq!(stun_offered(&server), ["stun:file.example:3478"]);
    server.line_with("metrics served nowhere");
    drop(server);

    // The variables over the file.
    let mut server = Running::start_env(&config, &env);
    assert_eq!(
        stun_offered(&server),
        ["stun:env1.example:3478", "stun:env2.example:3478"]
    );
    let line = server.line_with("metrics on");
    assert_eq!(get(addr_after(&line, "http://"), "/metrics").0, 200);
    drop(server);

    // The flags over the variables.
    let flags = [
        &config[..],
        &["--stun", "stun:flag.example:3478", "--metrics-bind", "off"],
    ]
    .concat();
    let mut server = Running::start_env(&flags, &env);
    assert_eq!(stun_offered(&server), ["stun:flag.example:3478"]);
    server.line_with("metrics served nowhere");
    drop(server);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_bad_variable_is_one_line_and_exit_2() {
    for (name, value, says) in [
        ("TWINSTAR_IDLE_TIMEOUT", "soon", "soon"),
        ("TWINSTAR_IDLE_TIMEOUT", "1", "--idle-timeout"),
        ("TWINSTAR_TRUST_FORWARDED", "maybe", "maybe"),
        ("TWINSTAR_METRICS_BIND", "everywhere", "everywhere"),
        ("TWINSTAR_SERVER_BIND", "nowhere", "nowhere"),
        // Checked after parsing, as --turn's are.
        ("TWINSTAR_TURN", "turnz:relay.example:3478", "turnz:"),
    ] {
        // No flag at all: a flag would hide its variable. Each fails
        // before binding; one that did not would be stopped at the deadline.
        let mut child = Command::new(BIN)
            .env(name, value)
            .env("RUST_LOG", "off")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(10) {
                let _ = child.kill();
                panic!("{name}={value}: the server started");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}={value}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{name}={value}: {stderr}");
        assert!(stderr.contains(says), "{name}={value}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        if !name.ends_with("_TURN") {
            // Checked by clap, whose message names the flag: and the variable.
            assert!(stderr.contains(&format!("${name}'s")), "{stderr}");
        }
    }
}

#[test]
fn help_names_every_variable() {
    let out = run(&["--help"]);
    let help = text(&out.stdout);
    for name in [
        "TWINSTAR_SERVER_CONFIG",
        "TWINSTAR_SERVER_BIND",
        "TWINSTAR_WEB",
        "TWINSTAR_LOG_FORMAT",
        "TWINSTAR_TLS_CERT",
        "TWINSTAR_TLS_KEY",
        "TWINSTAR_STUN",
        "TWINSTAR_TURN",
        "TWINSTAR_TURN_SECRET",
        "TWINSTAR_TURN_SECRET_FILE",
        "TWINSTAR_TURN_TTL",
        "TWINSTAR_IDLE_TIMEOUT",
        "TWINSTAR_HANDSHAKE_TIMEOUT",
        "TWINSTAR_MAX_PER_ADDRESS",
        "TWINSTAR_TRUST_FORWARDED",
        "TWINSTAR_DIRECTORY",
        "TWINSTAR_REPORTS",
        "TWINSTAR_REPORTS_MAX_BYTES",
        "TWINSTAR_DRAIN_TIMEOUT",
        "TWINSTAR_METRICS_BIND",
        "TWINSTAR_METRICS_TOKEN_FILE",
    ] {
        assert!(help.contains(name), "--help lacks {name}:\n{help}");
    }
    // A secret's value never shows, even when set.
    let out = Command::new(BIN)
        .arg("--help")
        .env("TWINSTAR_TURN_SECRET", "hunter2-hunter2")
        .output()
        .unwrap();
    assert!(!text(&out.stdout).contains("hunter2"));
}

#[test]
fn check_config_lists_every_problem_and_exits_2() {
    let dir = scratch("check-config");
    let file = dir.join("twinstar-server.toml");
    let shown = file.display().to_string();
    std::fs::write(
        &file,
        "bind = \"127.0.0.1:0\"\nidle-timout = 30\ndrain-timeout = -5\nstun = \"stun:a.example\"\n",
    )
    .unwrap();
    let out = run(&["check-config", &shown]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{stderr}");
    for (line, want) in lines.iter().zip([
        ": line 2: idle-timout: unknown key",
        ": line 3: drain-timeout: -5 is not in 0..=86400",
        ": line 4: stun: expected a list of URLs",
    ]) {
        assert!(line.starts_with(&format!("{shown}{want}")), "{line}");
    }
    assert!(text(&out.stdout).is_empty());

    // The server itself stops at the first, and says how to see the rest.
    let out = run(&["--config", &shown]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("idle-timout") && stderr.contains("2 more"),
        "{stderr}"
    );

    // A good file: one line on stdout.
    std::fs::write(&file, "bind = \"127.0.0.1:0\"\nturn-ttl = \"2h\"\n").unwrap();
    let out = run(&["check-config", &shown]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{shown}: ok (2 settings)\n"));

    // No file, or none given: one line, exit 2.
    let missing = format!("{}/nothing.toml", dir.display());
    for args in [&["check-config", &missing][..], &["check-config"]] {
        let out = run(args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
