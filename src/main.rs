#[cfg(not(target_arch = "wasm32"))]
use std::process::ExitCode;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> ExitCode {
    use clap::Parser;
    use std::io::IsTerminal;
    use twinstar::app;
    use twinstar::cli::{Cli, one_line_error};

    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("twinstar: {}", one_line_error(&e));
            return ExitCode::from(2);
        }
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "twinstar=info".into()),
        )
        .init();
    let json = cli.json();
    let (lines, code) = app::conclusion(&app::run(cli), json);
    for line in lines {
        if line.to_stderr {
            eprintln!("{}", line.text);
        } else {
            println!("{}", line.text);
        }
    }
    ExitCode::from(code)
}

/// In the browser: the page's link says what to run (`web::page`).
#[cfg(target_arch = "wasm32")]
fn main() {
    twinstar::web::page::start();
}
