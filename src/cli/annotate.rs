//! `pinpoint annotate <url|file> --ref @x --comment "…"`: pin review feedback to an element.

use super::observe::PageArgs;
use crate::annotations::model::{Intent, Severity};
use crate::annotations::store::{default_path, Store};
use crate::app::pin::PinRequest;
use crate::app::ObserveOptions;
use crate::error::{Error, Result};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct AnnotateArgs {
    #[command(flatten)]
    pub page: PageArgs,
    /// The element's ref (from `pinpoint observe`).
    #[arg(long = "ref")]
    pub ref_: String,
    #[arg(long)]
    pub comment: String,
    /// fix, change, question or approve.
    #[arg(long)]
    pub intent: Option<String>,
    /// blocking, important or suggestion.
    #[arg(long)]
    pub severity: Option<String>,
    /// Annotation session id (default: the open session of this URL).
    #[arg(long)]
    pub session: Option<String>,
    /// Annotation store (SQLite) path.
    #[arg(long)]
    pub store: Option<PathBuf>,
}

fn parse_enum<T: serde::de::DeserializeOwned>(
    field: &str,
    v: &Option<String>,
    expected: &str,
) -> Result<Option<T>> {
    v.as_ref()
        .map(|s| {
            serde_json::from_value(serde_json::Value::String(s.to_ascii_lowercase())).map_err(
                |_| {
                    Error::invalid_field(
                        field,
                        format!("unknown {field} {s:?}: expected {expected}"),
                    )
                },
            )
        })
        .transpose()
}

pub async fn run(args: AnnotateArgs) -> Result<ExitCode> {
    let intent: Option<Intent> =
        parse_enum("intent", &args.intent, "fix, change, question or approve")?;
    let severity: Option<Severity> = parse_enum(
        "severity",
        &args.severity,
        "blocking, important or suggestion",
    )?;
    let store = Store::open(args.store.clone().unwrap_or_else(default_path))?;
    let (session, page, _server) = args.page.open().await?;
    let result = async {
        session.observe(&page, &ObserveOptions::default()).await?;
        session
            .pin_annotation(
                &page,
                &store,
                PinRequest {
                    ref_: args.ref_.clone(),
                    comment: args.comment.clone(),
                    intent,
                    severity,
                    session_id: args.session.clone(),
                },
            )
            .await
    }
    .await;
    session.close_browser().await;
    let a = result?;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &a)?;
    writeln!(out)?;
    Ok(ExitCode::SUCCESS)
}
