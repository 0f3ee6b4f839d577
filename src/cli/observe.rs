//! `pinpoint observe <url|file>`: a table of interactive elements (or JSON).

use crate::app::{self, ObserveOptions, Session};
use crate::app::{LaunchOptions, LoadState, Viewport};
use crate::error::Result;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Options shared by every command that opens a page.
#[derive(clap::Args, Debug, Clone)]
pub struct PageArgs {
    /// URL or path to a local HTML file (served on 127.0.0.1).
    pub target: String,
    /// Viewport size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720")]
    pub viewport: String,
    /// Device scale factor (1..=3).
    #[arg(long, default_value_t = 1.0)]
    pub dpr: f64,
    /// Chromium executable (default: $PINPOINT_CHROME, then chromium on PATH).
    #[arg(long, env = "PINPOINT_CHROME")]
    pub chrome: Option<PathBuf>,
    /// Use a running browser's DevTools endpoint (ws://… or http://host:port).
    #[arg(long)]
    pub cdp: Option<String>,
    /// When navigation counts as done: load, domcontentloaded, networkidle, commit.
    #[arg(long, default_value = "load")]
    pub wait_until: String,
    /// Navigation timeout in milliseconds.
    #[arg(long, default_value_t = 30_000)]
    pub timeout: u64,
}

impl PageArgs {
    /// Launch the browser, open the target; keeps the static server alive.
    pub async fn open(
        &self,
    ) -> Result<(
        Session,
        std::sync::Arc<app::PageState>,
        Option<app::fixtures::StaticServer>,
    )> {
        let vp = Viewport::parse(&self.viewport, self.dpr)?;
        let wait = LoadState::parse(&self.wait_until)?;
        let (url, server) = app::resolve_target(&self.target).await?;
        let session = Session::new(
            LaunchOptions {
                chrome: self.chrome.clone(),
                cdp: self.cdp.clone(),
                ..Default::default()
            },
            vp,
        );
        let opened = match session.new_page(None).await {
            Ok(page) => session
                .navigate(&page, &url, wait, Duration::from_millis(self.timeout))
                .await
                .map(|_| page),
            Err(e) => Err(e),
        };
        match opened {
            Ok(page) => Ok((session, page, server)),
            Err(e) => {
                // Close before the error is printed: nothing may log after it.
                session.close_browser().await;
                Err(e)
            }
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct ObserveArgs {
    #[command(flatten)]
    pub page: PageArgs,
    /// Print the full observation as JSON.
    #[arg(long)]
    pub json: bool,
    /// List elements of the whole page, not only those in the viewport.
    #[arg(long)]
    pub full_page: bool,
}

pub async fn run(args: ObserveArgs) -> Result<ExitCode> {
    let (session, page, _server) = args.page.open().await?;
    let result = session.observe(&page, &ObserveOptions::default()).await;
    session.close_browser().await;
    let mut obs = result?;
    if !args.full_page {
        obs.elements.retain(|e| e.in_viewport);
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &obs)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{}  —  {}", obs.title, obs.url)?;
        writeln!(
            out,
            "{} elements ({} on the page), discovery {:.1} ms, refs {:.2} ms",
            obs.elements.len(),
            obs.total,
            obs.timings.discover_ms,
            obs.timings.refs_ms
        )?;
        writeln!(
            out,
            "{:<18} {:<12} {:<40} {:>17}  state",
            "ref", "role", "name", "bounds"
        )?;
        for e in &obs.elements {
            let mut state = Vec::new();
            if !e.visible {
                state.push("invisible".to_string());
            }
            if e.occluded {
                state.push(format!(
                    "covered by {}",
                    e.occluded_by.as_deref().unwrap_or("?")
                ));
            }
            if e.disabled {
                state.push("disabled".into());
            }
            if let Some(c) = &e.checked {
                state.push(format!("checked={}", serde_json::to_string(c)?));
            }
            if e.frame != "main" {
                state.push(format!("frame {}", e.frame));
            }
            if e.shadow {
                state.push("shadow".into());
            }
            let name: String = e.name.chars().take(40).collect();
            writeln!(
                out,
                "{:<18} {:<12} {:<40} {:>5.0},{:>4.0} {:>3.0}x{:<3.0}  {}",
                e.ref_,
                e.role,
                name,
                e.bounds.x,
                e.bounds.y,
                e.bounds.width,
                e.bounds.height,
                state.join(", ")
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
