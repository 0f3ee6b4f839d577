//! `pinpoint annotations …`: list, export and stress the annotation store from the shell.
//!
//! Every write goes through [`Store::dispatch_blocking`] (the reducer), like
//! the HTTP API, so a `pinpoint serve` on the same file streams these writes
//! to its SSE subscribers.
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::json;

use crate::annotations::markdown::Level;
use crate::annotations::model::{new_id, now_ms, Annotation};
use crate::annotations::store::{default_path, AnnotationFilter, Store};
use crate::annotations::Action;
use crate::error::{Error, Result};

#[derive(Args, Debug)]
pub struct AnnotationsArgs {
    #[command(subcommand)]
    pub command: AnnotationsCommand,
}

#[derive(Subcommand, Debug)]
pub enum AnnotationsCommand {
    /// List annotations (all sessions).
    List {
        /// Store file (default: .pinpoint/annotations.db).
        #[arg(long)]
        store: Option<PathBuf>,
        /// Only this status: pending | acknowledged | resolved | dismissed.
        #[arg(long)]
        status: Option<String>,
        /// Only this session.
        #[arg(long)]
        session: Option<String>,
        /// Print JSON (an array) instead of one line per annotation.
        #[arg(long)]
        json: bool,
    },
    /// Export a session as markdown.
    Export {
        #[arg(long)]
        store: Option<PathBuf>,
        #[arg(long)]
        session: String,
        /// compact | standard | detailed | forensic
        #[arg(long, default_value = "standard")]
        level: String,
    },
    /// Add an element annotation (creates the session if it does not exist).
    Add {
        #[arg(long)]
        store: Option<PathBuf>,
        #[arg(long)]
        session: String,
        #[arg(long, default_value = "")]
        comment: String,
        /// Tag name (`button`).
        #[arg(long)]
        element: String,
        /// CSS selector path (`main > button.cta`).
        #[arg(long)]
        element_path: String,
        /// Page URL (also used for a new session).
        #[arg(long)]
        url: Option<String>,
        #[arg(long, default_value_t = 0.0)]
        x: f64,
        #[arg(long, default_value_t = 0.0)]
        y: f64,
        /// blocking | important | suggestion
        #[arg(long)]
        severity: Option<String>,
        /// fix | change | question | approve
        #[arg(long)]
        intent: Option<String>,
    },
    /// Stress helper for tests: create N annotations, print each acknowledged sequence.
    #[command(hide = true)]
    WriteMany {
        #[arg(long)]
        store: Option<PathBuf>,
        #[arg(long)]
        count: u64,
        #[arg(long)]
        session: String,
    },
}

fn open(store: Option<PathBuf>) -> Result<Store> {
    Store::open(store.unwrap_or_else(default_path))
}

/// Create `session` if absent (another process may win the race: that is fine).
fn ensure_session(store: &Store, session: &str, url: &str) -> Result<()> {
    if store.session_blocking(session)?.is_some() {
        return Ok(());
    }
    match store.dispatch_blocking(&Action::CreateSession {
        session_id: session.to_owned(),
        url: url.to_owned(),
        project_id: None,
        metadata: None,
    }) {
        Ok(_) | Err(Error::Conflict { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

fn element_annotation(
    comment: &str,
    element: &str,
    path: &str,
    x: f64,
    y: f64,
    extra: serde_json::Value,
) -> Result<Annotation> {
    let mut v = json!({"id": new_id(), "comment": comment, "element": element,
        "elementPath": path, "timestamp": now_ms(), "x": x, "y": y});
    if let (Some(o), serde_json::Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
    crate::http::annotations::validate_annotation(&v, false)?;
    Ok(serde_json::from_value(v)?)
}

fn run_blocking(cmd: AnnotationsCommand) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match cmd {
        AnnotationsCommand::List {
            store,
            status,
            session,
            json,
        } => {
            let store = open(store)?;
            let filter = AnnotationFilter::from_text(session, None, status.as_deref(), None, None)?;
            let list = store.list_annotations_blocking(&filter)?;
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
            } else {
                for a in &list {
                    writeln!(
                        out,
                        "{}\t{}\t{}\t{}\t{}",
                        a.id,
                        a.session(),
                        a.status().as_str(),
                        a.element_path.as_deref().unwrap_or("-"),
                        a.comment.replace('\n', " ")
                    )?;
                }
            }
        }
        AnnotationsCommand::Export {
            store,
            session,
            level,
        } => {
            let level = Level::parse(&level)?;
            let store = open(store)?;
            write!(out, "{}", store.export_markdown_blocking(&session, level)?)?;
        }
        AnnotationsCommand::Add {
            store,
            session,
            comment,
            element,
            element_path,
            url,
            x,
            y,
            severity,
            intent,
        } => {
            let store = open(store)?;
            ensure_session(&store, &session, url.as_deref().unwrap_or("about:blank"))?;
            let mut extra = serde_json::Map::new();
            if let Some(u) = url {
                extra.insert("url".into(), json!(u));
            }
            if let Some(s) = severity {
                extra.insert("severity".into(), json!(s));
            }
            if let Some(i) = intent {
                extra.insert("intent".into(), json!(i));
            }
            let a = element_annotation(&comment, &element, &element_path, x, y, extra.into())?;
            let c = store.dispatch_blocking(&Action::CreateAnnotation {
                session_id: session,
                annotation: a,
            })?;
            writeln!(out, "{}", serde_json::to_string(&c.annotation())?)?;
        }
        AnnotationsCommand::WriteMany {
            store,
            count,
            session,
        } => {
            let store = open(store)?;
            ensure_session(&store, &session, "http://localhost/stress")?;
            for i in 0..count {
                let a = element_annotation(
                    &format!("stress {i}"),
                    "div",
                    "body > div",
                    1.0,
                    2.0,
                    json!({}),
                )?;
                let c = store.dispatch_blocking(&Action::CreateAnnotation {
                    session_id: session.clone(),
                    annotation: a,
                })?;
                for e in &c.events {
                    // Printed only after COMMIT: an acknowledged sequence.
                    writeln!(out, "{}", e.sequence)?;
                }
                out.flush()?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub async fn run(args: AnnotationsArgs) -> Result<ExitCode> {
    tokio::task::spawn_blocking(move || run_blocking(args.command))
        .await
        .map_err(|e| Error::Internal(format!("annotations command failed: {e}")))?
}
