//! Actions by ref or selector: resolve -> actionability -> input.
//!
//! This module holds the action vocabulary ([`Target`], [`Action`],
//! [`ActOptions`]) and the engine that performs one action on one resolved
//! element ([`perform`]). Resolving a *ref* needs the session's registry and
//! lives in `app::actions`; resolving a *selector* is [`find`] (one in-page
//! call that pierces open shadow roots and same-origin iframes).
//!
//! Every pointer action first runs the actionability checks in ONE in-page
//! call per attempt (`act.js`: attached, visible, enabled, scrolled into view,
//! stable (no running animation or transition that can move its box on it
//! or a composed ancestor), receives events at the click point),
//! polling until the action timeout; then it sends real CDP input events at
//! top-viewport coordinates (iframe offsets included).
//!
//! Architecture invariant: imports `browser`, `error`, `model` only (no
//! `app`, `rpc`, `http`, `cli`); chromiumoxide stays inside `browser`.

use crate::browser::{keys, MouseButton, Page};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

mod parse;
pub use parse::{parse_step, parse_target, Step};

/// The in-page helpers (installed once per document).
pub const ACT_JS: &str = include_str!("act.js");

/// Default action timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// Pause between actionability attempts.
const POLL: Duration = Duration::from_millis(50);

/// What an action is aimed at.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A ref from an observation (`@x` or `x`).
    Ref(String),
    Css(String),
    XPath(String),
    /// ARIA role and (optionally) accessible name.
    Role {
        role: String,
        name: Option<String>,
        exact: bool,
    },
    Text {
        text: String,
        exact: bool,
    },
    Label {
        label: String,
        exact: bool,
    },
    Placeholder {
        text: String,
        exact: bool,
    },
    TestId(String),
    /// A point in top-viewport CSS px.
    Point {
        x: f64,
        y: f64,
    },
    /// A free description; resolved like a text selector.
    Semantic(String),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Ref(r) if r.starts_with('@') => write!(f, "{r}"),
            Target::Ref(r) => write!(f, "@{r}"),
            Target::Css(s) => write!(f, "css={s}"),
            Target::XPath(s) => write!(f, "xpath={s}"),
            Target::Role { role, name, .. } => match name {
                Some(n) => write!(f, "role={role}[name={n:?}]"),
                None => write!(f, "role={role}"),
            },
            Target::Text { text, .. } => write!(f, "text={text:?}"),
            Target::Label { label, .. } => write!(f, "label={label:?}"),
            Target::Placeholder { text, .. } => write!(f, "placeholder={text:?}"),
            Target::TestId(s) => write!(f, "testid={s}"),
            Target::Point { x, y } => write!(f, "{x},{y}"),
            Target::Semantic(s) => write!(f, "{s:?}"),
        }
    }
}

/// A target plus the index to pick when a selector matches several elements.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetSpec {
    pub target: Target,
    pub index: Option<usize>,
}

impl From<Target> for TargetSpec {
    fn from(target: Target) -> Self {
        TargetSpec {
            target,
            index: None,
        }
    }
}

/// One `<option>` to select.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SelectOption {
    /// By value (falls back to the label).
    Value(String),
    Label(String),
    Index(usize),
}

/// Scroll direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Up,
    Down,
    Left,
    Right,
}

/// What a scroll does.
#[derive(Debug, Clone, PartialEq)]
pub enum Scroll {
    /// By CSS px.
    Delta { dx: f64, dy: f64 },
    /// In a direction by CSS px.
    Direction { direction: Direction, amount: f64 },
    /// Bring an element into view.
    To(TargetSpec),
}

/// Where a drag ends.
#[derive(Debug, Clone, PartialEq)]
pub enum DragTo {
    Target(TargetSpec),
    Point { x: f64, y: f64 },
}

/// Options of pointer actions.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ClickOptions {
    pub button: MouseButton,
    /// 1 = click, 2 = double click.
    pub click_count: i64,
    /// CDP modifier mask (see [`keys::ALT`] …).
    pub modifiers: i64,
    /// Offset from the element's top-left corner.
    pub position: Option<(f64, f64)>,
}

/// One action.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Click(ClickOptions),
    Hover {
        position: Option<(f64, f64)>,
    },
    Fill {
        text: String,
    },
    Clear,
    Type {
        text: String,
        delay_ms: u64,
    },
    /// Key names or combinations (`Enter`, `Control+A`), pressed in order.
    Press {
        keys: Vec<String>,
    },
    Select {
        options: Vec<SelectOption>,
    },
    Check,
    Uncheck,
    Scroll(Scroll),
    Upload {
        files: Vec<std::path::PathBuf>,
    },
    Drag {
        to: DragTo,
    },
}

impl Action {
    /// Short name (`click`, `fill` …).
    pub fn name(&self) -> &'static str {
        match self {
            Action::Click(c) if c.click_count >= 2 => "dblclick",
            Action::Click(_) => "click",
            Action::Hover { .. } => "hover",
            Action::Fill { .. } => "fill",
            Action::Clear => "clear",
            Action::Type { .. } => "type",
            Action::Press { .. } => "press",
            Action::Select { .. } => "select",
            Action::Check => "check",
            Action::Uncheck => "uncheck",
            Action::Scroll(_) => "scroll",
            Action::Upload { .. } => "upload",
            Action::Drag { .. } => "drag",
        }
    }
}

/// Options every action takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActOptions {
    /// How long actionability checks may wait.
    pub timeout: Duration,
    /// Skip the actionability checks.
    pub force: bool,
    /// Run the checks only; send no input and change nothing (BAP `trial`).
    pub trial: bool,
}

impl Default for ActOptions {
    fn default() -> Self {
        ActOptions {
            timeout: DEFAULT_TIMEOUT,
            force: false,
            trial: false,
        }
    }
}

/// A target resolved to one live node of the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// In-page node key (see `observe/discover.js`).
    pub key: u64,
    /// Document token the key belongs to.
    pub doc: String,
    /// How the caller named it (for errors).
    pub label: String,
    pub ref_: Option<String>,
    pub role: Option<String>,
    pub name: Option<String>,
    /// A short description (`button#save "Save"`).
    pub desc: String,
}

/// What an action did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActResult {
    pub action: String,
    pub target: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub element: String,
    /// Where the pointer went (top-viewport CSS px), for pointer actions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<(f64, f64)>,
    /// Action-specific result (selected values, scroll position, files …).
    #[serde(skip_serializing_if = "Value::is_null")]
    pub detail: Value,
    /// Milliseconds, resolution included.
    pub ms: f64,
}

/// Run one in-page helper (`name(arg)`), installing the helpers when needed.
pub async fn call(page: &Page, name: &str, arg: &Value) -> Result<Value> {
    let expr = format!(
        "(() => {{ const a = window[Symbol.for(\"pinpoint.act\")]; return a ? a.{name}({arg}) : \"__pinpoint_missing__\"; }})()"
    );
    let v = page.eval(&expr).await?;
    if v.as_str() == Some("__pinpoint_missing__") {
        page.eval(ACT_JS).await?;
        return page.eval(&expr).await;
    }
    Ok(v)
}

/// A query for [`find`].
fn query_of(t: &Target) -> Option<Value> {
    Some(match t {
        Target::Css(s) => json!({"kind": "css", "value": s}),
        Target::XPath(s) => json!({"kind": "xpath", "value": s}),
        Target::Text { text, exact } => json!({"kind": "text", "value": text, "exact": exact}),
        Target::Semantic(s) => json!({"kind": "text", "value": s, "exact": false}),
        Target::Label { label, exact } => json!({"kind": "label", "value": label, "exact": exact}),
        Target::Placeholder { text, exact } => {
            json!({"kind": "placeholder", "value": text, "exact": exact})
        }
        Target::TestId(s) => json!({"kind": "testid", "value": s}),
        Target::Point { x, y } => json!({"kind": "point", "x": x, "y": y}),
        Target::Ref(_) | Target::Role { .. } => return None,
    })
}

/// One selector match.
#[derive(Debug, Clone, Deserialize)]
pub struct Match {
    pub key: u64,
    pub desc: String,
}

#[derive(Deserialize)]
struct Found {
    doc: String,
    matches: Vec<Match>,
}

/// Every element a DOM-level selector (css, xpath, text, label, placeholder,
/// test id, point) matches, across shadow roots and same-origin iframes.
/// Returns the document token and the matches in document order. `Ref` and
/// `Role` targets are resolved by the caller through discovery.
pub async fn find(page: &Page, t: &Target) -> Result<(String, Vec<Match>)> {
    let q = query_of(t).ok_or_else(|| {
        Error::Internal(format!("{t} is resolved through discovery, not act::find"))
    })?;
    let v = match call(page, "find", &q).await {
        Ok(v) => v,
        Err(Error::Cdp(msg)) if msg.contains("script error") => {
            return Err(Error::invalid_field(
                "selector",
                format!("{t} is not a valid selector: {msg}"),
            ))
        }
        Err(e) => return Err(e),
    };
    let f: Found = serde_json::from_value(v)
        .map_err(|e| Error::Internal(format!("act.find returned bad JSON: {e}")))?;
    Ok((f.doc, f.matches))
}

/// Pick one match of a selector: exactly one, or the `index`th.
pub fn pick(selector: &str, matches: Vec<Match>, index: Option<usize>) -> Result<Match> {
    let count = matches.len();
    if count == 0 {
        return Err(Error::ElementNotFound {
            target: selector.to_string(),
            stale: false,
        });
    }
    match index {
        Some(i) => matches
            .into_iter()
            .nth(i)
            .ok_or_else(|| Error::ElementNotFound {
                target: format!("{selector} (index {i} of {count} matches)"),
                stale: false,
            }),
        None if count == 1 => matches.into_iter().next().ok_or(Error::ElementNotFound {
            target: selector.to_string(),
            stale: false,
        }),
        None => Err(Error::SelectorAmbiguous {
            selector: selector.to_string(),
            count,
            candidates: matches.into_iter().take(10).map(|m| m.desc).collect(),
        }),
    }
}

/// Which checks an action needs.
#[derive(Debug, Clone, Copy, Default)]
struct Checks {
    visible: bool,
    enabled: bool,
    editable: bool,
    stable: bool,
    hit: bool,
}

const POINTER: Checks = Checks {
    visible: true,
    enabled: true,
    editable: false,
    stable: true,
    hit: true,
};

#[derive(Debug, Clone, Deserialize, Default)]
struct CheckOut {
    status: String,
    #[serde(default)]
    desc: String,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    by: Option<String>,
    #[serde(default)]
    x: f64,
    #[serde(default)]
    y: f64,
}

fn detached(el: &Resolved) -> Error {
    Error::ElementNotFound {
        target: el.label.clone(),
        stale: false,
    }
}

/// Run the actionability checks, polling until they pass or the timeout ends.
async fn actionable(
    page: &Page,
    el: &Resolved,
    checks: Checks,
    pos: Option<(f64, f64)>,
    opts: &ActOptions,
    action: &str,
) -> Result<CheckOut> {
    let t0 = Instant::now();
    let arg = json!({
        "key": el.key,
        "doc": el.doc,
        "force": opts.force,
        "visible": checks.visible,
        "enabled": checks.enabled,
        "editable": checks.editable,
        "stable": checks.stable,
        "hit": checks.hit,
        "pos": pos.map(|(x, y)| json!({"x": x, "y": y})),
    });
    loop {
        let v = call(page, "check", &arg).await?;
        let out: CheckOut = serde_json::from_value(v)
            .map_err(|e| Error::Internal(format!("act.check returned bad JSON: {e}")))?;
        let target = || format!("{} ({})", el.label, out.desc);
        let err = match out.status.as_str() {
            "ok" => return Ok(out),
            "detached" => return Err(detached(el)),
            "not_editable" => {
                return Err(Error::ActionFailed {
                    action: action.into(),
                    reason: format!(
                        "{} is not editable (fill needs an input, a textarea or a contenteditable element)",
                        target()
                    ),
                })
            }
            "hidden" => Error::ElementNotVisible {
                target: match &out.reason {
                    Some(r) => format!("{}: {r}", target()),
                    None => target(),
                },
            },
            "disabled" => Error::ElementNotEnabled { target: target() },
            "unstable" => Error::ElementNotStable { target: target() },
            "covered" => Error::ElementCovered {
                target: target(),
                covered_by: out.by.clone().unwrap_or_else(|| "another element".into()),
            },
            other => {
                return Err(Error::Internal(format!(
                    "act.check returned status {other:?}"
                )))
            }
        };
        if t0.elapsed() + POLL > opts.timeout {
            return Err(err);
        }
        tokio::time::sleep(POLL).await;
    }
}

async fn status_of(page: &Page, el: &Resolved, name: &str, extra: Value) -> Result<Value> {
    let mut arg = json!({"key": el.key, "doc": el.doc});
    if let (Some(a), Value::Object(b)) = (arg.as_object_mut(), extra) {
        a.extend(b);
    }
    let v = call(page, name, &arg).await?;
    if v.get("status").and_then(Value::as_str) == Some("detached") {
        return Err(detached(el));
    }
    Ok(v)
}

async fn click_at(page: &Page, x: f64, y: f64, c: &ClickOptions) -> Result<()> {
    // The events are sent in order on one connection and Chromium queues
    // input in order, so they are pipelined: one round trip, not 2n+1.
    // A mouse already resting on the point sends no move (as a real one
    // would not); the move is the costly event, as Chromium acknowledges it
    // only with the next rendered frame once the page has changed.
    let n = c.click_count.max(1);
    let mut evs = Vec::with_capacity(1 + 2 * n as usize);
    if !page.pointer_is_at(x, y) {
        evs.push(page.mouse("move", x, y, c.button, 0, c.modifiers));
    }
    for i in 1..=n {
        evs.push(page.mouse("down", x, y, c.button, i, c.modifiers));
        evs.push(page.mouse("up", x, y, c.button, i, c.modifiers));
    }
    futures::future::try_join_all(evs).await?;
    Ok(())
}

/// Press one key combination (modifiers down, key down/up, modifiers up).
pub async fn press(page: &Page, spec: &str) -> Result<()> {
    let c = keys::combo(spec)?;
    for m in &c.modifiers {
        page.key(m, true).await?;
    }
    page.key(&c.key, true).await?;
    page.key(&c.key, false).await?;
    for m in c.modifiers.iter().rev() {
        let mut up = m.clone();
        up.modifiers &= !keys::modifier_bit(&m.key).unwrap_or(0);
        page.key(&up, false).await?;
    }
    Ok(())
}

/// Type text as key events (characters without a US key go through insertText).
pub async fn type_text(page: &Page, text: &str, delay: Duration) -> Result<()> {
    let shift = keys::key("Shift")?;
    for ch in text.chars() {
        match keys::for_char(ch) {
            Some((mut k, needs_shift)) => {
                if needs_shift {
                    let mut s = shift.clone();
                    s.modifiers = keys::SHIFT;
                    page.key(&s, true).await?;
                    k.modifiers = keys::SHIFT;
                }
                page.key(&k, true).await?;
                page.key(&k, false).await?;
                if needs_shift {
                    page.key(&shift, false).await?;
                }
            }
            None => page.insert_text(&ch.to_string()).await?,
        }
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
    }
    Ok(())
}

fn result(
    action: &Action,
    el: &Resolved,
    point: Option<(f64, f64)>,
    detail: Value,
    t0: Instant,
) -> ActResult {
    ActResult {
        action: action.name().into(),
        target: el.label.clone(),
        r#ref: el.ref_.clone(),
        role: el.role.clone(),
        name: el.name.clone(),
        element: el.desc.clone(),
        point,
        detail,
        ms: t0.elapsed().as_secs_f64() * 1000.0,
    }
}

/// Perform `action` on the resolved element `el`. `to` is the resolved drop
/// target of a drag or the element of a `Scroll::To` (resolved by the caller).
/// Detached nodes fail at once with `ElementNotFound` so the caller can
/// re-resolve; every other check is retried until `opts.timeout`.
pub async fn perform(
    page: &Page,
    el: &Resolved,
    action: &Action,
    to: Option<&Resolved>,
    opts: &ActOptions,
) -> Result<ActResult> {
    let t0 = Instant::now();
    let name = action.name();
    match action {
        Action::Click(c) => {
            let out = actionable(page, el, POINTER, c.position, opts, name).await?;
            if opts.trial {
                return Ok(result(
                    action,
                    el,
                    Some((out.x, out.y)),
                    json!({"trial": true}),
                    t0,
                ));
            }
            click_at(page, out.x, out.y, c).await?;
            Ok(result(action, el, Some((out.x, out.y)), Value::Null, t0))
        }
        Action::Hover { position } => {
            let checks = Checks {
                enabled: false,
                ..POINTER
            };
            let out = actionable(page, el, checks, *position, opts, name).await?;
            if opts.trial {
                return Ok(result(
                    action,
                    el,
                    Some((out.x, out.y)),
                    json!({"trial": true}),
                    t0,
                ));
            }
            page.mouse("move", out.x, out.y, MouseButton::Left, 0, 0)
                .await?;
            Ok(result(action, el, Some((out.x, out.y)), Value::Null, t0))
        }
        Action::Fill { .. } | Action::Clear => {
            let text = match action {
                Action::Fill { text } => text.as_str(),
                _ => "",
            };
            let checks = Checks {
                visible: true,
                enabled: true,
                editable: true,
                ..Default::default()
            };
            actionable(page, el, checks, None, opts, name).await?;
            if opts.trial {
                return Ok(result(action, el, None, json!({"trial": true}), t0));
            }
            status_of(page, el, "focus", json!({"selectAll": true})).await?;
            if text.is_empty() {
                press(page, "Delete").await?;
            } else {
                page.insert_text(text).await?;
            }
            let v = status_of(page, el, "afterFill", json!({"text": text})).await?;
            if v.get("status").and_then(Value::as_str) == Some("mismatch") {
                return Err(Error::ActionFailed {
                    action: name.into(),
                    reason: format!(
                        "{} holds {} after filling {:?} (maxlength, input mask or a script changed it)",
                        el.label,
                        v.get("value").cloned().unwrap_or(Value::Null),
                        text
                    ),
                });
            }
            Ok(result(
                action,
                el,
                None,
                json!({"value": v.get("value")}),
                t0,
            ))
        }
        Action::Type { text, delay_ms } => {
            let checks = Checks {
                visible: true,
                enabled: true,
                ..Default::default()
            };
            actionable(page, el, checks, None, opts, name).await?;
            if opts.trial {
                return Ok(result(action, el, None, json!({"trial": true}), t0));
            }
            status_of(page, el, "focus", json!({})).await?;
            type_text(page, text, Duration::from_millis(*delay_ms)).await?;
            Ok(result(action, el, None, Value::Null, t0))
        }
        Action::Press { keys: ks } => {
            // Validate every key before sending any.
            for k in ks {
                keys::combo(k)?;
            }
            let checks = Checks {
                visible: true,
                ..Default::default()
            };
            actionable(page, el, checks, None, opts, name).await?;
            if opts.trial {
                return Ok(result(action, el, None, json!({"trial": true}), t0));
            }
            status_of(page, el, "focus", json!({})).await?;
            for k in ks {
                press(page, k).await?;
            }
            Ok(result(action, el, None, json!({"keys": ks}), t0))
        }
        Action::Select { options } => {
            if options.is_empty() {
                return Err(Error::invalid_field(
                    "values",
                    "select needs at least one option",
                ));
            }
            let checks = Checks {
                visible: true,
                enabled: true,
                ..Default::default()
            };
            actionable(page, el, checks, None, opts, name).await?;
            if opts.trial {
                return Ok(result(action, el, None, json!({"trial": true}), t0));
            }
            let want: Vec<Value> = options
                .iter()
                .map(|o| match o {
                    SelectOption::Value(v) => json!({"value": v}),
                    SelectOption::Label(l) => json!({"label": l}),
                    SelectOption::Index(i) => json!({"index": i}),
                })
                .collect();
            let v = status_of(page, el, "select", json!({"options": want})).await?;
            match v.get("status").and_then(Value::as_str) {
                Some("ok") => Ok(result(
                    action,
                    el,
                    None,
                    json!({"values": v.get("values")}),
                    t0,
                )),
                Some("no_option") => Err(Error::ActionFailed {
                    action: name.into(),
                    reason: format!(
                        "{} has no option {}; available: {}",
                        el.label,
                        v.get("want").cloned().unwrap_or(Value::Null),
                        v.get("available").cloned().unwrap_or(Value::Null)
                    ),
                }),
                Some("not_multiple") => Err(Error::ActionFailed {
                    action: name.into(),
                    reason: format!("{} is not a multiple select", el.label),
                }),
                Some("disabled") => Err(Error::ElementNotEnabled {
                    target: el.label.clone(),
                }),
                _ => Err(Error::ActionFailed {
                    action: name.into(),
                    reason: format!("{} ({}) is not a <select>", el.label, el.desc),
                }),
            }
        }
        Action::Check | Action::Uncheck => {
            let want = matches!(action, Action::Check);
            let state = |v: &Value| v.get("checked").cloned().unwrap_or(Value::Null);
            let v = status_of(page, el, "checked", json!({})).await?;
            let before = state(&v);
            if before.is_null() {
                return Err(Error::ActionFailed {
                    action: name.into(),
                    reason: format!(
                        "{} ({}) is not a checkbox, radio or switch",
                        el.label, el.desc
                    ),
                });
            }
            if !want
                && v.get("type").and_then(Value::as_str) == Some("radio")
                && before == json!(true)
            {
                return Err(Error::ActionFailed {
                    action: name.into(),
                    reason: format!(
                        "{} is a checked radio button; check another radio of its group instead",
                        el.label
                    ),
                });
            }
            let mut point = None;
            if before != json!(want) {
                let out = actionable(page, el, POINTER, None, opts, name).await?;
                if opts.trial {
                    return Ok(result(
                        action,
                        el,
                        Some((out.x, out.y)),
                        json!({"trial": true}),
                        t0,
                    ));
                }
                click_at(page, out.x, out.y, &ClickOptions::default()).await?;
                point = Some((out.x, out.y));
                let after = state(&status_of(page, el, "checked", json!({})).await?);
                if after != json!(want) {
                    return Err(Error::ActionFailed {
                        action: name.into(),
                        reason: format!(
                            "clicked {} but its checked state is {after} (expected {want}); a script may have prevented the change",
                            el.label
                        ),
                    });
                }
            }
            Ok(result(action, el, point, json!({"checked": want}), t0))
        }
        Action::Scroll(_) if opts.trial => Ok(result(action, el, None, json!({"trial": true}), t0)),
        Action::Scroll(s) => scroll(page, el, action, s, to, opts, t0).await,
        Action::Upload { files } => {
            let mut paths = Vec::new();
            for f in files {
                let abs = std::fs::canonicalize(f)
                    .map_err(|e| Error::invalid_field("files", format!("{}: {e}", f.display())))?;
                if !abs.is_file() {
                    return Err(Error::invalid_field(
                        "files",
                        format!("{} is not a file", f.display()),
                    ));
                }
                paths.push(abs.to_string_lossy().to_string());
            }
            if paths.is_empty() {
                return Err(Error::invalid_field(
                    "files",
                    "upload needs at least one file",
                ));
            }
            let v = status_of(page, el, "fileInput", json!({})).await?;
            if v.get("status").and_then(Value::as_str) != Some("ok") {
                return Err(Error::ActionFailed {
                    action: name.into(),
                    reason: format!("{} ({}) is not an <input type=file>", el.label, el.desc),
                });
            }
            if paths.len() > 1 && v.get("multiple") != Some(&json!(true)) {
                return Err(Error::invalid_field(
                    "files",
                    format!("{} takes one file, {} given", el.label, paths.len()),
                ));
            }
            if opts.trial {
                return Ok(result(action, el, None, json!({"trial": true}), t0));
            }
            page.set_input_files(&node_expr(el), paths).await?;
            let v = status_of(page, el, "files", json!({})).await?;
            Ok(result(
                action,
                el,
                None,
                json!({"files": v.get("files")}),
                t0,
            ))
        }
        Action::Drag { to: dest } => {
            let from = actionable(page, el, POINTER, None, opts, name).await?;
            if opts.trial {
                return Ok(result(
                    action,
                    el,
                    Some((from.x, from.y)),
                    json!({"trial": true}),
                    t0,
                ));
            }
            let (tx, ty) = match (dest, to) {
                (DragTo::Point { x, y }, _) => (*x, *y),
                (DragTo::Target(_), Some(t)) => {
                    let checks = Checks {
                        hit: false,
                        enabled: false,
                        ..POINTER
                    };
                    let out = actionable(page, t, checks, None, opts, name).await?;
                    (out.x, out.y)
                }
                (DragTo::Target(t), None) => {
                    return Err(Error::Internal(format!(
                        "drag target {} was not resolved",
                        t.target
                    )))
                }
            };
            // The source may have scrolled away while the target came into view.
            let from = if to.is_some() {
                actionable(page, el, POINTER, None, opts, name)
                    .await
                    .unwrap_or(from)
            } else {
                from
            };
            drag(page, (from.x, from.y), (tx, ty)).await?;
            Ok(result(
                action,
                el,
                Some((from.x, from.y)),
                json!({"to": [tx, ty]}),
                t0,
            ))
        }
    }
}

/// JS expression for the live node of a resolved element.
pub fn node_expr(el: &Resolved) -> String {
    format!(
        "(() => {{ const st = window[Symbol.for(\"pinpoint.state\")]; const r = st && st.doc === {} && st.byKey.get({}); return r ? r.deref() : undefined; }})()",
        Value::String(el.doc.clone()),
        el.key
    )
}

async fn drag(page: &Page, from: (f64, f64), to: (f64, f64)) -> Result<()> {
    const STEPS: usize = 12;
    page.mouse("move", from.0, from.1, MouseButton::Left, 0, 0)
        .await?;
    page.mouse("down", from.0, from.1, MouseButton::Left, 1, 0)
        .await?;
    for i in 1..=STEPS {
        let f = i as f64 / STEPS as f64;
        let x = from.0 + (to.0 - from.0) * f;
        let y = from.1 + (to.1 - from.1) * f;
        page.mouse_drag_move(x, y).await?;
    }
    page.mouse_drag_move(to.0, to.1).await?;
    page.mouse("up", to.0, to.1, MouseButton::Left, 1, 0)
        .await?;
    Ok(())
}

fn pos(v: &Value) -> (f64, f64) {
    (
        v.get("x").and_then(Value::as_f64).unwrap_or(0.0),
        v.get("y").and_then(Value::as_f64).unwrap_or(0.0),
    )
}

async fn scroll(
    page: &Page,
    el: &Resolved,
    action: &Action,
    s: &Scroll,
    to: Option<&Resolved>,
    opts: &ActOptions,
    t0: Instant,
) -> Result<ActResult> {
    let (dx, dy) = match s {
        Scroll::To(_) => {
            let t = to.unwrap_or(el);
            let v = status_of(page, t, "scrollTo", json!({})).await?;
            return Ok(result(
                action,
                t,
                None,
                json!({"rect": v.get("rect"), "inView": v.get("inView")}),
                t0,
            ));
        }
        Scroll::Delta { dx, dy } => (*dx, *dy),
        Scroll::Direction { direction, amount } => match direction {
            Direction::Up => (0.0, -amount),
            Direction::Down => (0.0, *amount),
            Direction::Left => (-amount, 0.0),
            Direction::Right => (*amount, 0.0),
        },
    };
    // key 0 = the page itself.
    let page_scroll = el.key == 0;
    let extra = if page_scroll {
        json!({"key": Value::Null})
    } else {
        json!({})
    };
    let before = pos(&status_of(page, el, "scrollState", extra.clone()).await?);
    // A real wheel event over the element (or the viewport centre).
    let (wx, wy) = if page_scroll {
        let vp = page.viewport();
        (f64::from(vp.width) / 2.0, f64::from(vp.height) / 2.0)
    } else {
        let checks = Checks {
            visible: true,
            ..Default::default()
        };
        let out = actionable(page, el, checks, None, opts, "scroll").await?;
        (out.x, out.y)
    };
    // The wheel is acknowledged after the compositor handled it; a page that
    // renders no frames never answers, so do not wait for long.
    let wheel = tokio::time::timeout(Duration::from_secs(2), page.wheel(wx, wy, dx, dy)).await;
    if let Ok(r) = wheel {
        r?;
    }
    let mut after = before;
    let t = Instant::now();
    while t.elapsed() < Duration::from_millis(500) {
        after = pos(&status_of(page, el, "scrollState", extra.clone()).await?);
        if after != before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(16)).await;
    }
    if after == before {
        // The wheel went to another scroller (or was swallowed): scroll directly.
        let mut arg = extra.clone();
        if let Some(o) = arg.as_object_mut() {
            o.insert("dx".into(), json!(dx));
            o.insert("dy".into(), json!(dy));
        }
        after = pos(&status_of(page, el, "scrollBy", arg).await?);
    }
    Ok(result(
        action,
        el,
        Some((wx, wy)),
        json!({"before": [before.0, before.1], "after": [after.0, after.1]}),
        t0,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(k: u64) -> Match {
        Match {
            key: k,
            desc: format!("button#b{k}"),
        }
    }

    #[test]
    fn pick_one_many_none() {
        assert_eq!(pick("css=b", vec![m(1)], None).unwrap().key, 1);
        let e = pick("css=b", vec![m(1), m(2)], None).unwrap_err();
        assert_eq!(e.code(), "selector_ambiguous");
        assert_eq!(e.rpc_code(), -32020);
        match e {
            Error::SelectorAmbiguous { candidates, .. } => {
                assert_eq!(candidates, vec!["button#b1", "button#b2"])
            }
            _ => unreachable!(),
        }
        assert_eq!(pick("css=b", vec![m(1), m(2)], Some(1)).unwrap().key, 2);
        assert_eq!(
            pick("css=b", vec![m(1)], Some(3)).unwrap_err().code(),
            "element_not_found"
        );
        assert_eq!(
            pick("css=b", vec![], None).unwrap_err().code(),
            "element_not_found"
        );
    }
}
