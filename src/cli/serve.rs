//! `pinpoint serve`: BAP (WebSocket + `POST /rpc`), `/health` and the
//! annotation API on one port, bound to 127.0.0.1 by default.

use crate::annotations::store::{self, Store};
use crate::app::{LaunchOptions, Viewport};
use crate::error::{Error, Result};
use crate::http::{self, SecurityConfig, ServerParts};
use crate::rpc::dispatch::HubConfig;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to bind (a non-local address exposes the browser: use --token).
    #[arg(long, default_value = "127.0.0.1", env = "BAP_HOST")]
    pub host: String,
    /// Port (0 = any free port; the chosen one is printed).
    #[arg(long, default_value_t = 9222, env = "BAP_PORT")]
    pub port: u16,
    /// Require this token (`?token=` or `X-BAP-Token`) on every request.
    #[arg(long, env = "BAP_AUTH_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Extra browser origins allowed besides local ones (repeatable; `*` = any).
    #[arg(long = "allow-origin")]
    pub allow_origin: Vec<String>,
    /// Annotation store file (default: .pinpoint/annotations.db).
    #[arg(long)]
    pub store: Option<PathBuf>,
    /// Serve without the annotation API (no store file is opened).
    #[arg(long)]
    pub no_store: bool,
    /// Chromium executable (default: $PINPOINT_CHROME, then chromium on PATH).
    #[arg(long, env = "PINPOINT_CHROME")]
    pub chrome: Option<PathBuf>,
    /// Use a running browser's DevTools endpoint for every session.
    #[arg(long)]
    pub cdp: Option<String>,
    /// Default viewport of new pages, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720")]
    pub viewport: String,
    /// Seconds a disconnected session (with a sessionId) keeps its browser.
    #[arg(long, default_value_t = 300)]
    pub park_ttl: u64,
}

pub async fn run(args: ServeArgs) -> Result<ExitCode> {
    let viewport = Viewport::parse(&args.viewport, 1.0)?;
    let store = if args.no_store {
        None
    } else {
        let path = args.store.clone().unwrap_or_else(store::default_path);
        Some(Store::open(&path)?)
    };
    let cfg = HubConfig {
        launch: LaunchOptions {
            chrome: args.chrome.clone(),
            cdp: args.cdp.clone(),
            ..Default::default()
        },
        viewport,
        park_ttl: Duration::from_secs(args.park_ttl),
        store,
    };
    let listener = tokio::net::TcpListener::bind((args.host.as_str(), args.port))
        .await
        .map_err(|e| Error::InvalidInput {
            message: format!("cannot listen on {}:{}: {e}", args.host, args.port),
            field: Some("port".into()),
        })?;
    let addr = listener.local_addr()?;
    let security = SecurityConfig {
        allowed_origins: args.allow_origin.clone(),
        token: args.token.clone().filter(|t| !t.is_empty()),
        bound_host: addr.to_string(),
    };
    eprintln!(
        "pinpoint: serving on http://{addr} (BAP WebSocket ws://{addr}/, POST /rpc, /health{}){}",
        if cfg.store.is_some() {
            ", annotations"
        } else {
            ""
        },
        if security.token.is_some() {
            " — token required"
        } else {
            ""
        }
    );
    println!("{addr}");
    let parts = ServerParts::new(cfg, security);
    http::serve(listener, parts, async {
        #[cfg(unix)]
        {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending::<()>().await } } => {}
            }
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(ExitCode::SUCCESS)
}
