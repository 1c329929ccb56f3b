//! The simulation must not contain float types: besides the clippy lint on
//! the module, scan its sources so a float cannot sneak in under `allow`.
//! The human bot, whose decisions feed the simulation, is scanned too.

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Float type names as whole tokens (so `f32x` or `buf64` do not count),
/// also in literal suffixes like `1.0f32`.
fn float_tokens(source: &str) -> Vec<(usize, String)> {
    let mut hits = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let bytes = code.as_bytes();
        for word in ["f32", "f64"] {
            for (i, _) in code.match_indices(word) {
                let before = if i == 0 { b' ' } else { bytes[i - 1] };
                let after = bytes.get(i + 3).copied().unwrap_or(b' ');
                let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
                if (!ident(before) || before.is_ascii_digit()) && !ident(after) {
                    hits.push((n + 1, line.trim().to_string()));
                }
            }
        }
        // A float literal such as `1.5` (digit, dot, digit) is also banned.
        if code
            .as_bytes()
            .windows(3)
            .any(|w| w[0].is_ascii_digit() && w[1] == b'.' && w[2].is_ascii_digit())
        {
            hits.push((n + 1, line.trim().to_string()));
        }
    }
    hits
}

#[test]
fn scanner_finds_floats() {
    assert_eq!(float_tokens("let x: f32 = 0;").len(), 1);
    assert_eq!(float_tokens("let x = 1.0f64;").len(), 2);
    assert_eq!(float_tokens("let x = 2.5;").len(), 1);
    assert!(float_tokens("let buf64 = f32x4; // f32 in a comment").is_empty());
}

#[test]
fn no_float_types_in_the_sim_crate() {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/sim/src"),
        &mut files,
    );
    assert!(files.len() >= 5, "crates/sim/src not found");
    let mut offenders = Vec::new();
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        for (line, text) in float_tokens(&source) {
            offenders.push(format!("{}:{line}: {text}", file.display()));
        }
    }
    assert!(
        offenders.is_empty(),
        "floats in the simulation:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn no_float_types_in_the_human_bot() {
    // It decides the inputs the simulation steps on: floats there could
    // round differently on two machines just as in the simulation.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/input/human.rs");
    let source = std::fs::read_to_string(&path).unwrap();
    let offenders: Vec<String> = float_tokens(&source)
        .into_iter()
        .map(|(line, text)| format!("{}:{line}: {text}", path.display()))
        .collect();
    assert!(
        offenders.is_empty(),
        "floats in the human bot:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_sim_module_denies_float_arithmetic() {
    let module = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/sim/src/lib.rs"),
    )
    .unwrap();
    assert!(
        module.contains("#![deny(clippy::float_arithmetic"),
        "the lint was removed from crates/sim/src/lib.rs"
    );
}
