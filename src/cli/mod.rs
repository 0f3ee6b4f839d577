//! Command-line interface (clap): `observe`, `shot`, `act`, `serve`, `annotations`, `bench`.
//!
//! Architecture invariant: CLI types never leave this module; commands turn
//! arguments into library calls on `app` and print the results.
mod act;
mod annotate;
pub mod annotations;
mod bench;
mod mcp;
mod observe;
mod serve;
mod shot;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "pinpoint", version, about = "See and point at web pages")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Find the interactive elements of a page and give each a stable ref.
    Observe(observe::ObserveArgs),
    /// Run actions (click, fill, press …) on a page by ref or selector.
    ///
    /// The page is observed first, so refs exist; refs are deterministic for
    /// the same page content, so refs printed by `pinpoint observe` work here.
    Act(act::ActArgs),
    /// Capture a (Set-of-Marks annotated) screenshot, e.g. of a dev build in CI.
    Shot(shot::ShotArgs),
    /// Measure ref stability or observe latency on the bundled fixtures.
    Bench(bench::BenchArgs),
    /// Pin review feedback to an element of a page (by ref).
    Annotate(annotate::AnnotateArgs),
    /// Work with the annotation store.
    Annotations(annotations::AnnotationsArgs),
    /// Serve BAP (WebSocket + POST /rpc) and the annotation API on one port.
    Serve(serve::ServeArgs),
    /// MCP server on stdio: a coding agent works through the review annotations.
    Mcp(mcp::McpArgs),
}

/// Entry point used by `main.rs`.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,chromiumoxide=off"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = rt.block_on(async move {
        match cli.command {
            Command::Annotations(args) => annotations::run(args).await,
            Command::Observe(args) => observe::run(args).await,
            Command::Act(args) => act::run(args).await,
            Command::Bench(args) => bench::run(args).await,
            Command::Shot(args) => shot::run(args).await,
            Command::Annotate(args) => annotate::run(args).await,
            Command::Serve(args) => serve::run(args).await,
            Command::Mcp(args) => mcp::run(args).await,
        }
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            if let Some(hint) = e.hint() {
                eprintln!("hint: {hint}");
            }
            ExitCode::from(1)
        }
    }
}
