use super::*;
use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    serve: ServeArgs,
}

fn dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("twinstar-config-{}", rand::random::<u64>()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The settings from `flags` and a config file holding `toml`.
fn settings(toml: &str, flags: &[&str]) -> Result<Settings, String> {
    let dir = dir();
    let path = dir.join("server.toml");
    std::fs::write(&path, toml).unwrap();
    let mut argv = vec!["serve", "--config", path.to_str().unwrap()];
    argv.extend_from_slice(flags);
    let cli = Cli::try_parse_from(argv).map_err(|e| e.to_string())?;
    let result = resolve(&cli.serve).map_err(|e| e.to_string());
    std::fs::remove_dir_all(dir).unwrap();
    result
}

#[test]
fn the_file_sets_what_the_flags_do_not_and_the_flags_win() {
    let file = r#"
            bind = "127.0.0.1:4000"
            idle-timeout = 40
            drain-timeout = 5
            stun = ["stun:a.example:3478"]
            turn = ["turn:a.example:3478", "turns:a.example:443?transport=tcp"]
            turn-secret-file = "secret"
            trust-forwarded = true
            log-format = "json"
            metrics-bind = "off"
        "#;
    let s = settings(file, &[]).unwrap();
    assert_eq!(s.bind, "127.0.0.1:4000".parse().unwrap());
    assert_eq!((s.idle_timeout, s.drain_timeout), (40, 5));
    assert_eq!(s.turn.len(), 2);
    assert!(s.trust_forwarded);
    assert_eq!(s.log_format, LogFormat::Json);
    assert_eq!(s.metrics_bind, Some(MetricsBind::Off));
    // Relative to the file's directory.
    let secret = s.turn_secret_file.unwrap();
    assert!(
        secret.is_absolute() && secret.ends_with("secret"),
        "{secret:?}"
    );
    // Untouched options keep their defaults.
    assert_eq!(s.handshake_timeout, 10);
    assert_eq!(s.max_per_address, 32);

    let s = settings(
        file,
        &[
            "--idle-timeout",
            "60",
            "--turn",
            "turn:b.example:3478",
            "--log-format",
            "text",
            "--turn-secret",
            "from-the-flag",
        ],
    )
    .unwrap();
    assert_eq!(s.idle_timeout, 60, "the flag wins");
    assert_eq!(s.drain_timeout, 5, "the file still sets the rest");
    assert_eq!(
        s.turn,
        vec!["turn:b.example:3478".to_owned()],
        "a list is replaced"
    );
    assert_eq!(s.log_format, LogFormat::Text);
    // The flag's secret replaces the file's secret file.
    assert_eq!(
        (s.turn_secret.as_deref(), s.turn_secret_file),
        (Some("from-the-flag"), None)
    );
}

#[test]
fn a_turn_secret_flag_wins_over_either_variable_and_a_variable_over_the_file() {
    let parse = |flags: &[&str]| {
        let mut argv = vec!["serve"];
        argv.extend_from_slice(flags);
        Cli::try_parse_from(argv).unwrap().serve
    };
    let secret = |s: &str| TurnSecretChoice {
        secret: Some(s.into()),
        file: None,
    };
    let path = |p: &str| TurnSecretChoice {
        secret: None,
        file: Some(p.into()),
    };
    let none = TurnSecretChoice::default();
    // The flag of one kind over the variable of the other kind (clap
    // refused this pair as a conflict before).
    let flag_file = parse(&["--turn-secret-file", "/run/flag"]);
    assert_eq!(
        turn_secret_choice(&flag_file, secret("env"), secret("file")),
        Ok(path("/run/flag"))
    );
    let flag_secret = parse(&["--turn-secret", "flag"]);
    assert_eq!(
        turn_secret_choice(&flag_secret, path("/run/env"), none.clone()),
        Ok(secret("flag"))
    );
    // No flag: the variable over the file; no variable: the file.
    let no_flag = parse(&[]);
    assert_eq!(
        turn_secret_choice(&no_flag, path("/run/env"), secret("file")),
        Ok(path("/run/env"))
    );
    assert_eq!(
        turn_secret_choice(&no_flag, none.clone(), secret("file")),
        Ok(secret("file"))
    );
    // Both variables: neither wins.
    let both = TurnSecretChoice {
        secret: Some("env".into()),
        file: Some("/run/env".into()),
    };
    let err = turn_secret_choice(&no_flag, both, none).unwrap_err();
    assert!(err.contains("both set"), "{err}");
    // Both flags: clap's one-line refusal.
    let argv = ["serve", "--turn-secret", "a", "--turn-secret-file", "/b"];
    assert!(Cli::try_parse_from(argv).is_err());
}

#[test]
fn a_bad_file_is_one_line_naming_the_line_and_key() {
    let cases = [
        (
            "idle-timout = 30\n",
            "line 1",
            "unknown key `idle-timout` (did you mean `idle-timeout`?)",
        ),
        (
            "bind = \"127.0.0.1:4000\"\nidle-timeout = \"soon\"\n",
            "line 2",
            "idle-timeout",
        ),
        ("idle-timeout = 1\n", "idle-timeout", "not in 3..=300"),
        ("bind = \"nowhere\"\n", "bind", "not ADDR:PORT"),
        ("turn-ttl = \"forever\"\n", "turn-ttl", "forever"),
        ("metrics-bind = \"everywhere\"\n", "metrics-bind", "nor off"),
        ("log-format = \"xml\"\n", "line 1", "xml"),
        ("max-per-address = -1\n", "line 1", "max-per-address"),
        (
            "turn-secret = \"a\"\nturn-secret-file = \"b\"\n",
            "turn-secret",
            "not both",
        ),
        (
            "data = \"/var/lib/twinstar\"\ndirectory = \"redis://127.0.0.1:6379\"\n",
            "directory",
            "not both",
        ),
        ("[serve]\nbind = 1\n", "line 1", "serve"),
        ("bind = \n", "line 1", ""),
    ];
    for (toml, at, says) in cases {
        let e = settings(toml, &[]).unwrap_err();
        assert_eq!(e.lines().count(), 1, "{toml:?}: {e}");
        assert!(e.contains("server.toml"), "{toml:?}: {e}");
        assert!(e.contains(at) && e.contains(says), "{toml:?}: {e}");
    }
}

/// Every problem of `toml`, as check-config prints them (without the
/// file's name).
fn problems(toml: &str) -> Vec<String> {
    let dir = dir();
    let path = dir.join("server.toml");
    std::fs::write(&path, toml).unwrap();
    let result = check(&path);
    std::fs::remove_dir_all(dir).unwrap();
    match result {
        Ok(n) => panic!("{toml:?}: no problem found ({n} settings)"),
        Err(problems) => problems.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn check_lists_every_problem_with_its_line_in_the_files_order() {
    let file = "\
bind = \"127.0.0.1:4000\"
idle-timout = 30
drain-timeout = \"soon\"
turn = [\"turn:ok.example:3478\", \"turnz:bad.example\", \"stun:wrong.example\"]
trust-forwarded = \"yes\"
[serve]
";
    let found = problems(file);
    assert_eq!(found.len(), 6, "{found:#?}");
    let want = [
        "line 2: idle-timout: unknown key `idle-timout` (did you mean `idle-timeout`?)",
        "line 3: drain-timeout: expected a whole number in 0..=86400, found string",
        "line 4: turn: ",
        "line 4: turn: 'stun:wrong.example' is not a turn: or turns: URL",
        "line 5: trust-forwarded: expected true or false, found string",
        "line 6: serve: unknown key `serve`: the file has no sections",
    ];
    for (got, want) in found.iter().zip(want) {
        assert!(got.starts_with(want), "{got:?} is not {want:?}...");
    }
    assert!(found[2].contains("turnz:bad.example"), "{found:#?}");
}

#[test]
fn check_reports_a_syntax_error_and_the_rest() {
    // Two lines TOML cannot read, and the good lines' own problems: one
    // problem a line, the broken lines' values not judged again.
    let file = "bind = \nidle-timeout = 1\nturn-ttl = \"6h\nstun = [\"stun:a.example\"]\nidel-timeout = 4\n";
    let found = problems(file);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found[0].starts_with("line 1: "), "{found:#?}");
    assert_eq!(found[1], "line 2: idle-timeout: 1 is not in 3..=300");
    assert!(found[2].starts_with("line 3: "), "{found:#?}");
    assert!(
        found[3].starts_with("line 5: idel-timeout: unknown key"),
        "{found:#?}"
    );
    assert!(found.iter().all(|p| !p.contains('\n')), "{found:#?}");
    // An array left open swallows what follows: one problem, not one
    // per line it swallowed, nor one for the array's key.
    let found = problems("idle-timeout = [\nmax-per-address = 0\n");
    assert_eq!(found.len(), 1, "{found:#?}");
}

#[test]
fn check_reports_an_unreadable_file_and_counts_a_good_ones_settings() {
    let missing = check(Path::new("/nonexistent/server.toml")).unwrap_err();
    assert_eq!(missing.len(), 1);
    assert!(
        missing[0].to_string().starts_with("cannot read it"),
        "{missing:?}"
    );
    let dir = dir();
    let path = dir.join("server.toml");
    std::fs::write(&path, [0xff, 0xfe, b'\n']).unwrap();
    assert_eq!(check(&path).unwrap_err()[0].to_string(), "not UTF-8 text");
    std::fs::write(&path, "# nothing yet\n").unwrap();
    assert_eq!(check(&path).unwrap(), 0);
    std::fs::write(&path, "bind = \"127.0.0.1:1\"\nstun = []\n").unwrap();
    assert_eq!(check(&path).unwrap(), 2);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_flag_has_a_twinstar_variable_and_a_file_key() {
    use clap::CommandFactory;
    let command = Cli::command();
    let mut keys = Vec::new();
    for arg in command.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        if ["help", "web"].contains(&long) {
            // --web's TWINSTAR_WEB is read by WebClient (see ServeArgs).
            continue;
        }
        // The TURN secret's pair is read here (`turn_secret_choice`).
        let ours = match long {
            "turn-secret" => Some(TURN_SECRET_ENV.to_owned()),
            "turn-secret-file" => Some(TURN_SECRET_FILE_ENV.to_owned()),
            _ => None,
        };
        let env = ours.or_else(|| arg.get_env().map(|e| e.to_string_lossy().into_owned()));
        let env = env.unwrap_or_else(|| panic!("--{long} has no environment variable"));
        assert!(env.starts_with("TWINSTAR_"), "--{long}: {env}");
        // Never the game's settings file nor HAProxy's listening line.
        assert!(!["TWINSTAR_CONFIG", "TWINSTAR_BIND"].contains(&env.as_str()));
        if long != "config" {
            keys.push(long.to_owned());
        }
    }
    keys.push("web".into());
    keys.sort();
    let mut known = KEYS.map(str::to_owned).to_vec();
    known.sort();
    assert_eq!(keys, known, "the file's keys are the flags' names");
}

#[test]
fn a_missing_file_is_an_error_and_no_file_is_the_defaults() {
    let missing = ServeArgs {
        config: Some("/nonexistent/twinstar.toml".into()),
        ..ServeArgs::default()
    };
    let e = resolve(&missing).unwrap_err().to_string();
    assert!(e.contains("/nonexistent/twinstar.toml"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    let none = resolve(&ServeArgs::default()).unwrap();
    assert_eq!(none.bind, DEFAULT_BIND);
    assert_eq!(none.metrics_bind, None);
    assert_eq!(none.turn_ttl, Duration::from_secs(6 * 3600));
}

#[test]
fn the_shipped_example_file_is_valid() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/twinstar-server.toml");
    if !path.exists() {
        // A packaged crate has no deploy/; the repository always does.
        eprintln!("skipped: {} is not here", path.display());
        return;
    }
    let args = ServeArgs {
        config: Some(path),
        ..ServeArgs::default()
    };
    let s = resolve(&args).unwrap();
    assert_eq!(s.bind.port(), 443);
    assert_eq!(s.log_format, LogFormat::Json);
    assert!(s.turn.iter().any(|t| t.starts_with("turns:")));
    assert_eq!(
        s.metrics_bind,
        Some(MetricsBind::At("127.0.0.1:9536".parse().unwrap()))
    );
}
