use std::process::ExitCode;

use clap::Parser;
use twinstar::app::{self, Failure, Report};
use twinstar::cli::Cli;
use twinstar::session::Summary;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // One line, like the rest of our errors; clap's first line says it all.
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or("bad arguments");
            eprintln!(
                "twinstar: {} (see 'twinstar --help')",
                first.trim_start_matches("error: ")
            );
            return ExitCode::from(2);
        }
    };
    use std::io::IsTerminal;
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "twinstar=info".into()),
        )
        .init();
    let json = cli.json();
    match app::run(cli) {
        Ok(Report::Summary(summary)) => {
            print_summary(&summary, json);
            ExitCode::SUCCESS
        }
        Ok(Report::Printed) => ExitCode::SUCCESS,
        Err(failure) => {
            let code = failure.exit_code();
            match failure {
                Failure::BadInput(msg) => eprintln!("twinstar: {msg}"),
                Failure::Runtime(msg, summary) => {
                    eprintln!("twinstar: {msg}");
                    if let Some(summary) = summary {
                        print_summary(&summary, json);
                    }
                }
            }
            code
        }
    }
}

fn print_summary(summary: &Summary, json: bool) {
    if json {
        println!(
            "{}",
            serde_json::to_string(summary).expect("a summary always serializes")
        );
    } else {
        println!(
            "{}: {} frames, checksum {} at frame {}, {} mismatches, {} rollback frames, seed {}",
            summary.mode,
            summary.frames,
            summary.checksum,
            summary.checksum_frame,
            summary.mismatches,
            summary.rollback_frames,
            summary.seed
        );
    }
}
