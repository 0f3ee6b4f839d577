//! `pinpoint act <url|file> --step 'click @x' --step 'fill @y "text"' …`
//!
//! Opens the page, observes it once (so refs exist: refs are deterministic
//! for the same page content, so the refs `pinpoint observe` printed work
//! here), then runs the steps in order. Each step prints what it did; the
//! first failure prints the error code, message and hint and exits 1.

use super::observe::PageArgs;
use crate::act::{self, ActOptions};
use crate::app::ObserveOptions;
use crate::error::{Error, Result};
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct ActArgs {
    #[command(flatten)]
    pub page: PageArgs,
    /// One action: `ACTION TARGET [ARGS]`, e.g. `click @save`, `fill label=Email "a@b.c"`,
    /// `press @q Enter`, `select css=#fruit apple`, `check text=Subscribe`,
    /// `scroll down 400`, `upload @file ./a.png`, `drag @a @b`. Repeatable.
    /// Targets: @ref, css=…, xpath=…, text=…, role=button[name="Save"], testid=…,
    /// label=…, placeholder=…, X,Y (append ` >> nth=N` to pick one of several matches).
    #[arg(long = "step", required = true)]
    pub steps: Vec<String>,
    /// Observe the page again after the last step and print its elements.
    #[arg(long)]
    pub observe: bool,
    /// Print JSON lines (one per step) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Actionability timeout per step, in milliseconds.
    #[arg(long, default_value_t = 5000)]
    pub action_timeout: u64,
    /// Skip actionability checks.
    #[arg(long)]
    pub force: bool,
}

pub async fn run(args: ActArgs) -> Result<ExitCode> {
    // Parse every step before opening a browser.
    let steps = args
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            act::parse_step(s).map_err(|e| match e {
                Error::InvalidInput { message, .. } => Error::InvalidInput {
                    message: format!("step {}: {message}", i + 1),
                    field: Some(format!("steps[{i}]")),
                },
                e => e,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let (session, page, _server) = args.page.open().await?;
    let opts = ActOptions {
        timeout: Duration::from_millis(args.action_timeout),
        force: args.force,
        trial: false,
    };
    let code = run_steps(&args, &session, &page, &steps, &opts).await;
    session.close_browser().await;
    code
}

async fn run_steps(
    args: &ActArgs,
    session: &crate::app::Session,
    page: &crate::app::PageState,
    steps: &[act::Step],
    opts: &ActOptions,
) -> Result<ExitCode> {
    session.observe(page, &ObserveOptions::default()).await?;
    let mut out = std::io::stdout().lock();
    for (i, (text, step)) in args.steps.iter().zip(steps).enumerate() {
        match session
            .act(page, step.target.as_ref(), &step.action, opts)
            .await
        {
            Ok(r) => {
                if args.json {
                    writeln!(out, "{}", json!({"step": i + 1, "ok": true, "result": r}))?;
                } else {
                    let who = match (&r.role, &r.name) {
                        (Some(role), Some(name)) => format!("{role} {name:?}"),
                        _ => r.element.clone(),
                    };
                    let detail = if r.detail.is_null() {
                        String::new()
                    } else {
                        format!("  {}", r.detail)
                    };
                    writeln!(
                        out,
                        "ok   {:>2}. {:<8} {:<24} -> {}  ({:.1} ms){}",
                        i + 1,
                        r.action,
                        r.target,
                        who,
                        r.ms,
                        detail
                    )?;
                }
            }
            Err(e) => {
                if args.json {
                    writeln!(
                        out,
                        "{}",
                        json!({"step": i + 1, "ok": false, "error": {
                            "code": e.code(), "rpcCode": e.rpc_code(), "message": e.to_string(),
                            "hint": e.hint(), "retryable": e.retryable(), "details": e.details()}})
                    )?;
                } else {
                    writeln!(out, "FAIL {:>2}. {text}", i + 1)?;
                    writeln!(out, "     {}: {e}", e.code())?;
                    if let crate::Error::SelectorAmbiguous { candidates, .. } = &e {
                        for c in candidates {
                            writeln!(out, "       - {c}")?;
                        }
                    }
                    if let Some(h) = e.hint() {
                        writeln!(out, "     hint: {h}")?;
                    }
                }
                return Ok(ExitCode::from(1));
            }
        }
    }
    if args.observe {
        let obs = session.observe(page, &ObserveOptions::default()).await?;
        if args.json {
            writeln!(out, "{}", serde_json::to_string(&obs)?)?;
        } else {
            for e in obs.elements.iter().filter(|e| e.in_viewport) {
                let mut state = String::new();
                if let Some(v) = &e.value {
                    state.push_str(&format!(" value={v:?}"));
                }
                if let Some(c) = &e.checked {
                    state.push_str(&format!(" checked={}", serde_json::to_string(c)?));
                }
                writeln!(
                    out,
                    "{:<18} {:<12} {:<40}{}",
                    e.ref_,
                    e.role,
                    e.name.chars().take(40).collect::<String>(),
                    state
                )?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
