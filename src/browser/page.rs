//! One browser page (tab): navigation, script evaluation, input, screenshots.

use super::Viewport;
use crate::error::{Error, Result};
use base64::Engine;
use chromiumoxide::cdp::browser_protocol::accessibility::GetFullAxTreeParams;
use chromiumoxide::cdp::browser_protocol::dom::{DescribeNodeParams, SetFileInputFilesParams};
use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType,
    InsertTextParams, MouseButton as CdpButton,
};
use chromiumoxide::cdp::browser_protocol::network::EventResponseReceived;
use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, CaptureScreenshotFormat, CaptureScreenshotParams,
    EventLifecycleEvent, HandleJavaScriptDialogParams, NavigateParams, ReloadParams,
    Viewport as CdpClip,
};
use chromiumoxide::cdp::js_protocol::runtime::{
    CallArgument, CallFunctionOnParams, EvaluateParams,
};
use chromiumoxide::error::CdpError;
use chromiumoxide::types::Command;
use futures::StreamExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Default per-command timeout.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Init script: remembers elements that get click-like listeners, so discovery
/// can find clickable `div`s without semantics. Runs in every frame.
const CLICK_TRACKER: &str = r#"(() => {
  const S = Symbol.for("pinpoint.clicks");
  if (window[S]) return;
  const set = new WeakSet();
  Object.defineProperty(window, S, { value: set, enumerable: false });
  const orig = EventTarget.prototype.addEventListener;
  const kinds = new Set(["click", "mousedown", "pointerdown", "mouseup", "pointerup", "dblclick"]);
  EventTarget.prototype.addEventListener = function (type, ...rest) {
    if (kinds.has(type) && this && this.nodeType === 1) set.add(this);
    return orig.call(this, type, ...rest);
  };
})();"#;

/// When a navigation counts as done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoadState {
    #[default]
    Load,
    #[serde(alias = "DOMContentLoaded")]
    Domcontentloaded,
    Networkidle,
    Commit,
}

impl LoadState {
    pub fn parse(s: &str) -> Result<LoadState> {
        match s.to_ascii_lowercase().as_str() {
            "load" => Ok(LoadState::Load),
            "domcontentloaded" => Ok(LoadState::Domcontentloaded),
            "networkidle" => Ok(LoadState::Networkidle),
            "commit" => Ok(LoadState::Commit),
            _ => Err(Error::invalid_field(
                "waitUntil",
                format!("unknown waitUntil {s:?}: expected load, domcontentloaded, networkidle or commit"),
            )),
        }
    }
}

/// What a navigation produced.
#[derive(Debug, Clone)]
pub struct NavOutcome {
    pub url: String,
    /// HTTP status of the main document (0 when there was no response, e.g. same-document).
    pub status: i64,
    pub headers: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    #[default]
    Left,
    Right,
    Middle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScreenshotFormat {
    #[default]
    Png,
    Jpeg(u8),
}

#[derive(Debug, Clone, Default)]
pub struct ScreenshotRequest {
    pub format: ScreenshotFormat,
    /// Page CSS px; `None` = the viewport.
    pub clip: Option<crate::model::Rect>,
    /// Capture beyond the viewport (full page or clips outside the viewport).
    pub beyond_viewport: bool,
    /// Scale of a clip (0 or 1 = device pixels; 0.5 = half as many): Chromium
    /// draws the smaller image itself, cheaper than capturing big and resizing.
    pub scale: f64,
    /// Leave Chromium's default PNG encoding (smaller, slower) instead of
    /// asking for `optimizeForSpeed`: what Puppeteer and Playwright send.
    /// Only `bench shot` uses it, for comparison.
    pub default_encoding: bool,
}

/// One key stroke for [`Page::key`].
#[derive(Debug, Clone, Default)]
pub struct KeyEvent {
    pub key: String,
    pub code: String,
    pub key_code: i64,
    /// Text inserted by the key (empty for non-printing keys).
    pub text: String,
    /// CDP modifier bit mask: Alt=1, Ctrl=2, Meta=4, Shift=8.
    pub modifiers: i64,
    pub location: i64,
}

/// A node of Chromium's accessibility tree (only what tests and observe need).
#[derive(Debug, Clone, serde::Serialize)]
pub struct AxNode {
    pub backend_node_id: Option<i64>,
    pub role: String,
    pub name: String,
    pub ignored: bool,
    /// CDP AX node id and its children's ids (to rebuild the tree).
    pub id: String,
    pub child_ids: Vec<String>,
    pub value: Option<String>,
    pub description: Option<String>,
    /// AX properties (`checked`, `disabled`, `expanded`, `focused`, `level` …) as JSON values.
    pub properties: serde_json::Map<String, serde_json::Value>,
}

/// A handle to one page. Cheap to clone.
#[derive(Clone)]
pub struct Page {
    page: chromiumoxide::Page,
    alive: Arc<AtomicBool>,
    closed: Arc<AtomicBool>,
    viewport: Arc<std::sync::Mutex<Viewport>>,
    /// Where our last mouse event put the pointer (CSS px, top viewport).
    pointer: Arc<std::sync::Mutex<Option<(f64, f64)>>>,
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("target", &self.page.target_id())
            .finish()
    }
}

/// Map a chromiumoxide error to ours. This is the one place that reads CDP error text.
pub(crate) fn map_cdp(e: CdpError, what: &str) -> Error {
    match &e {
        CdpError::Ws(_) | CdpError::ChannelSendError(_) | CdpError::NoResponse => {
            Error::TargetClosed {
                target: what.to_string(),
            }
        }
        CdpError::Timeout => Error::Timeout {
            what: what.to_string(),
            ms: CALL_TIMEOUT.as_millis() as u64,
        },
        CdpError::JavascriptException(d) => {
            let msg = d
                .exception
                .as_ref()
                .and_then(|x| x.description.clone())
                .unwrap_or_else(|| d.text.clone());
            Error::Cdp(format!("{what}: script error: {msg}"))
        }
        _ => {
            let s = e.to_string();
            if s.contains("Execution context was destroyed")
                || s.contains("Cannot find context with specified id")
                || s.contains("Inspected target navigated or closed")
            {
                Error::ContextDestroyed
            } else if s.contains("Target closed")
                || s.contains("No target with given id")
                || s.contains("Session with given id not found")
            {
                Error::TargetClosed {
                    target: what.to_string(),
                }
            } else {
                Error::Cdp(format!("{what}: {s}"))
            }
        }
    }
}

impl Page {
    pub(super) async fn init(
        page: chromiumoxide::Page,
        alive: Arc<AtomicBool>,
        vp: Viewport,
    ) -> Result<Page> {
        let p = Page {
            page,
            alive,
            closed: Arc::new(AtomicBool::new(false)),
            viewport: Arc::new(std::sync::Mutex::new(vp)),
            pointer: Arc::new(std::sync::Mutex::new(None)),
        };
        p.call(
            AddScriptToEvaluateOnNewDocumentParams::new(CLICK_TRACKER),
            "init script",
        )
        .await?;
        p.set_viewport(vp).await?;
        Ok(p)
    }

    /// Run `source` in every new document of this page (all frames) before
    /// the page's own scripts.
    pub async fn add_init_script(&self, source: &str) -> Result<()> {
        self.call(
            AddScriptToEvaluateOnNewDocumentParams::new(source),
            "init script",
        )
        .await?;
        Ok(())
    }

    /// The CDP target id (stable for the page's lifetime).
    pub fn target_id(&self) -> String {
        self.page.target_id().as_ref().to_string()
    }

    pub fn viewport(&self) -> Viewport {
        self.viewport.lock().map(|v| *v).unwrap_or_default()
    }

    fn check(&self) -> Result<()> {
        if !self.alive.load(Ordering::SeqCst) {
            return Err(Error::TargetClosed {
                target: "browser".into(),
            });
        }
        if self.closed.load(Ordering::SeqCst) {
            return Err(Error::TargetClosed {
                target: "page".into(),
            });
        }
        Ok(())
    }

    /// Run one CDP command with a timeout and error mapping.
    async fn call<T: Command>(&self, cmd: T, what: &str) -> Result<T::Response> {
        self.call_within(cmd, what, CALL_TIMEOUT).await
    }

    async fn call_within<T: Command>(
        &self,
        cmd: T,
        what: &str,
        limit: Duration,
    ) -> Result<T::Response> {
        self.check()?;
        match tokio::time::timeout(limit, self.page.execute(cmd)).await {
            Ok(Ok(r)) => Ok(r.result),
            Ok(Err(e)) => {
                if !self.alive.load(Ordering::SeqCst) {
                    return Err(Error::TargetClosed {
                        target: "browser".into(),
                    });
                }
                Err(map_cdp(e, what))
            }
            Err(_) => {
                if !self.alive.load(Ordering::SeqCst) {
                    return Err(Error::TargetClosed {
                        target: "browser".into(),
                    });
                }
                Err(Error::Timeout {
                    what: what.to_string(),
                    ms: limit.as_millis() as u64,
                })
            }
        }
    }

    pub async fn set_viewport(&self, vp: Viewport) -> Result<()> {
        let params =
            SetDeviceMetricsOverrideParams::new(vp.width as i64, vp.height as i64, vp.dpr, false);
        self.call(params, "set viewport").await?;
        if let Ok(mut v) = self.viewport.lock() {
            *v = vp;
        }
        Ok(())
    }

    /// Navigate and wait until `wait` (or the timeout).
    ///
    /// Fragment-only changes are same-document navigations: they are applied
    /// in the page and return at once. For the rest, chromiumoxide tracks the
    /// `Page.navigate` call until `load`; we watch the main frame's lifecycle
    /// events ourselves so `commit` and `domcontentloaded` return earlier and
    /// `networkidle` waits longer.
    pub async fn navigate(
        &self,
        url: &str,
        wait: LoadState,
        timeout: Duration,
    ) -> Result<NavOutcome> {
        self.check()?;
        let current = self.url().await.unwrap_or_default();
        let (cur_base, _) = current.split_once('#').unwrap_or((current.as_str(), ""));
        if let Some((base, _frag)) = url.split_once('#') {
            if base == cur_base {
                let js = format!(
                    "location.href = {}; location.href",
                    serde_json::to_string(url)?
                );
                let now = self.eval(&js).await?;
                return Ok(NavOutcome {
                    url: now.as_str().unwrap_or(url).to_string(),
                    status: 0,
                    headers: Default::default(),
                });
            }
        }
        let mut life = self
            .page
            .event_listener::<EventLifecycleEvent>()
            .await
            .map_err(|e| map_cdp(e, "navigate"))?;
        let mut responses = self
            .page
            .event_listener::<EventResponseReceived>()
            .await
            .map_err(|e| map_cdp(e, "navigate"))?;
        let main_frame = self.target_id();
        let page = self.page.clone();
        let params = NavigateParams::new(url);
        let mut nav = tokio::spawn(async move { page.execute(params).await });
        let deadline = tokio::time::Instant::now() + timeout;
        let timeout_err = || Error::Timeout {
            what: format!("navigation to {url}"),
            ms: timeout.as_millis() as u64,
        };
        let target = match wait {
            LoadState::Commit => "commit",
            LoadState::Domcontentloaded => "DOMContentLoaded",
            LoadState::Load => "load",
            LoadState::Networkidle => "networkIdle",
        };
        let mut loader: Option<String> = None;
        let mut nav_done = false;
        let mut reached = false;
        let mut status = 0;
        let mut headers = serde_json::Map::new();
        while !(reached && (nav_done || (wait != LoadState::Load && status != 0))) {
            tokio::select! {
                r = &mut nav, if !nav_done => {
                    nav_done = true;
                    match r {
                        Ok(Ok(resp)) => {
                            if let Some(err) = resp.result.error_text.clone().filter(|t| !t.is_empty()) {
                                return Err(Error::NavigationFailed { url: url.to_string(), reason: err });
                            }
                            if resp.result.loader_id.is_none() {
                                reached = true; // same-document
                            }
                            if wait == LoadState::Load {
                                reached = true;
                            }
                        }
                        Ok(Err(e)) => {
                            if !self.alive.load(Ordering::SeqCst) {
                                return Err(Error::TargetClosed { target: "browser".into() });
                            }
                            return Err(match map_cdp(e, "navigate") {
                                Error::Cdp(m) => Error::NavigationFailed { url: url.to_string(), reason: m },
                                other => other,
                            });
                        }
                        Err(_) => return Err(Error::Internal("navigation task failed".into())),
                    }
                }
                ev = life.next() => match ev {
                    Some(ev) => {
                        if ev.frame_id.as_ref() == main_frame {
                            let lid: &str = ev.loader_id.as_ref();
                            if ev.name == "init" {
                                loader = Some(lid.to_string());
                            } else if loader.as_deref() == Some(lid) && (ev.name == target || (target == "commit" && ev.name == "DOMContentLoaded")) {
                                reached = true;
                            }
                        }
                    }
                    None => return Err(Error::TargetClosed { target: "page".into() }),
                },
                r = responses.next() => {
                    if let Some(r) = r {
                        let lid: &str = r.loader_id.as_ref();
                        if status == 0 && (loader.is_none() || loader.as_deref() == Some(lid))
                            && r.r#type == chromiumoxide::cdp::browser_protocol::network::ResourceType::Document
                            && r.frame_id.as_ref().map(|f| f.as_ref() == main_frame).unwrap_or(false)
                        {
                            status = r.response.status;
                            if let Some(obj) = r.response.headers.inner().as_object() {
                                headers = obj.clone();
                            }
                            if target == "commit" {
                                reached = true;
                            }
                        }
                    }
                },
                _ = tokio::time::sleep_until(deadline) => {
                    if !self.alive.load(Ordering::SeqCst) {
                        return Err(Error::TargetClosed { target: "browser".into() });
                    }
                    nav.abort();
                    return Err(timeout_err());
                }
            }
        }
        if !nav_done {
            // Leave chromiumoxide's tracking to finish in the background.
            drop(nav);
        }
        Ok(NavOutcome {
            url: self.url().await.unwrap_or_else(|_| url.to_string()),
            status,
            headers,
        })
    }

    pub async fn reload(&self) -> Result<()> {
        self.call(ReloadParams::default(), "reload").await?;
        Ok(())
    }

    /// Evaluate an expression and return its value as JSON.
    pub async fn eval(&self, expression: &str) -> Result<serde_json::Value> {
        let params = EvaluateParams::builder()
            .expression(expression)
            .return_by_value(true)
            .await_promise(true)
            .user_gesture(true)
            .build()
            .map_err(Error::Internal)?;
        let r = self.call(params, "evaluate").await?;
        if let Some(ex) = r.exception_details {
            let msg = ex
                .exception
                .as_ref()
                .and_then(|x| x.description.clone())
                .unwrap_or(ex.text);
            return Err(Error::Cdp(format!("script error: {msg}")));
        }
        Ok(r.result.value.unwrap_or(serde_json::Value::Null))
    }

    /// Evaluate several expressions at once: all are sent before any answer
    /// is awaited (they still run in order in the page).
    pub async fn eval_all(&self, expressions: &[String]) -> Result<Vec<serde_json::Value>> {
        futures::future::try_join_all(expressions.iter().map(|e| self.eval(e))).await
    }

    /// Evaluate an expression that returns a JSON string, and parse it.
    pub async fn eval_json_string(&self, expression: &str) -> Result<String> {
        match self.eval(expression).await? {
            serde_json::Value::String(s) => Ok(s),
            other => Err(Error::Internal(format!(
                "script returned {other} instead of a string"
            ))),
        }
    }

    /// Remote object id of the element an expression evaluates to.
    async fn object_id(
        &self,
        expression: &str,
    ) -> Result<chromiumoxide::cdp::js_protocol::runtime::RemoteObjectId> {
        let params = EvaluateParams::builder()
            .expression(expression)
            .return_by_value(false)
            .build()
            .map_err(Error::Internal)?;
        let r = self.call(params, "evaluate").await?;
        if let Some(ex) = r.exception_details {
            return Err(Error::Cdp(format!("script error: {}", ex.text)));
        }
        r.result.object_id.ok_or_else(|| Error::ElementNotFound {
            target: expression.chars().take(80).collect(),
            stale: false,
        })
    }

    /// Backend DOM node id of the element an expression evaluates to.
    pub async fn backend_node_id(&self, expression: &str) -> Result<i64> {
        let oid = self.object_id(expression).await?;
        let r = self
            .call(
                DescribeNodeParams::builder().object_id(oid).build(),
                "describe node",
            )
            .await?;
        Ok(*r.node.backend_node_id.inner())
    }

    /// Put files onto the `<input type=file>` an expression evaluates to.
    pub async fn set_input_files(&self, expression: &str, files: Vec<String>) -> Result<()> {
        let oid = self.object_id(expression).await?;
        let p = SetFileInputFilesParams::builder()
            .files(files)
            .object_id(oid)
            .build()
            .map_err(Error::Internal)?;
        self.call(p, "set input files").await?;
        Ok(())
    }

    /// Call `fn_source` with `this` = the element an expression evaluates to.
    pub async fn call_on(
        &self,
        expression: &str,
        fn_source: &str,
        arg: serde_json::Value,
    ) -> Result<serde_json::Value> {
        let oid = self.object_id(expression).await?;
        let p = CallFunctionOnParams::builder()
            .function_declaration(fn_source)
            .object_id(oid)
            .argument(CallArgument::builder().value(arg).build())
            .return_by_value(true)
            .await_promise(true)
            .build()
            .map_err(Error::Internal)?;
        let r = self.call(p, "call function").await?;
        if let Some(ex) = r.exception_details {
            return Err(Error::Cdp(format!("script error: {}", ex.text)));
        }
        Ok(r.result.value.unwrap_or(serde_json::Value::Null))
    }

    /// Chromium's full accessibility tree of every frame of the page.
    pub async fn ax_tree(&self) -> Result<Vec<AxNode>> {
        use chromiumoxide::cdp::browser_protocol::page::{FrameTree, GetFrameTreeParams};
        let tree = self
            .call(GetFrameTreeParams::default(), "frame tree")
            .await?;
        let mut ids = Vec::new();
        let mut stack: Vec<FrameTree> = vec![tree.frame_tree];
        while let Some(f) = stack.pop() {
            ids.push(f.frame.id.clone());
            stack.extend(f.child_frames.unwrap_or_default());
        }
        let mut out = Vec::new();
        for id in ids {
            let p = GetFullAxTreeParams::builder().frame_id(id).build();
            let Ok(r) = self.call(p, "accessibility tree").await else {
                continue; // cross-origin or gone
            };
            out.extend(r.nodes.into_iter().map(|n| {
                let text =
                    |v: Option<chromiumoxide::cdp::browser_protocol::accessibility::AxValue>| {
                        v.and_then(|v| v.value)
                            .map(|v| match v {
                                serde_json::Value::String(s) => s,
                                other => other.to_string(),
                            })
                            .filter(|s| !s.is_empty())
                    };
                let mut properties = serde_json::Map::new();
                for p in n.properties.iter().flatten() {
                    if let (Ok(serde_json::Value::String(k)), Some(v)) =
                        (serde_json::to_value(&p.name), p.value.value.clone())
                    {
                        properties.insert(k, v);
                    }
                }
                AxNode {
                    id: n.node_id.inner().clone(),
                    child_ids: n
                        .child_ids
                        .iter()
                        .flatten()
                        .map(|c| c.inner().clone())
                        .collect(),
                    value: text(n.value.clone()),
                    description: text(n.description.clone()),
                    properties,
                    backend_node_id: n.backend_dom_node_id.map(|b| *b.inner()),
                    role: n
                        .role
                        .and_then(|v| v.value)
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    name: n
                        .name
                        .and_then(|v| v.value)
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    ignored: n.ignored,
                }
            }));
        }
        Ok(out)
    }

    /// Capture a screenshot (encoded bytes, as Chromium produced them).
    pub async fn screenshot(&self, req: &ScreenshotRequest) -> Result<Vec<u8>> {
        let mut b = CaptureScreenshotParams::builder();
        b = match req.format {
            ScreenshotFormat::Png => b.format(CaptureScreenshotFormat::Png),
            ScreenshotFormat::Jpeg(q) => b.format(CaptureScreenshotFormat::Jpeg).quality(q as i64),
        };
        if let Some(c) = req.clip {
            b = b.clip(CdpClip {
                x: c.x,
                y: c.y,
                width: c.width,
                height: c.height,
                scale: if req.scale > 0.0 && req.scale.is_finite() {
                    req.scale
                } else {
                    1.0
                },
            });
        }
        if req.beyond_viewport {
            b = b.capture_beyond_viewport(true);
        }
        if !req.default_encoding {
            b = b.optimize_for_speed(true);
        }
        let r = self.call(b.build(), "screenshot").await?;
        let data: &str = r.data.as_ref();
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| Error::Image(format!("screenshot was not base64: {e}")))
    }

    pub async fn mouse(
        &self,
        kind: &str,
        x: f64,
        y: f64,
        button: MouseButton,
        click_count: i64,
        modifiers: i64,
    ) -> Result<()> {
        let t = match kind {
            "down" => DispatchMouseEventType::MousePressed,
            "up" => DispatchMouseEventType::MouseReleased,
            _ => DispatchMouseEventType::MouseMoved,
        };
        let btn = match button {
            MouseButton::Left => CdpButton::Left,
            MouseButton::Right => CdpButton::Right,
            MouseButton::Middle => CdpButton::Middle,
        };
        let buttons = match (kind, button) {
            ("down", MouseButton::Left) => 1,
            ("down", MouseButton::Right) => 2,
            ("down", MouseButton::Middle) => 4,
            _ => 0,
        };
        let mut p = DispatchMouseEventParams::new(t, x, y);
        p.modifiers = Some(modifiers);
        if kind != "move" {
            p.button = Some(btn);
            p.click_count = Some(click_count);
        } else {
            p.button = Some(CdpButton::None);
        }
        p.buttons = Some(buttons);
        self.set_pointer(x, y);
        self.call(p, "mouse event").await?;
        Ok(())
    }

    fn set_pointer(&self, x: f64, y: f64) {
        if let Ok(mut p) = self.pointer.lock() {
            *p = Some((x, y));
        }
    }

    /// Whether our last mouse event left the pointer exactly at `(x, y)`, so
    /// that a press there needs no move first (a resting mouse sends none).
    pub fn pointer_is_at(&self, x: f64, y: f64) -> bool {
        self.pointer
            .lock()
            .map(|p| *p == Some((x, y)))
            .unwrap_or(false)
    }

    /// Move with a button held (drag): `buttons` bitmask as CDP expects.
    pub async fn mouse_drag_move(&self, x: f64, y: f64) -> Result<()> {
        let mut p = DispatchMouseEventParams::new(DispatchMouseEventType::MouseMoved, x, y);
        p.button = Some(CdpButton::Left);
        p.buttons = Some(1);
        self.set_pointer(x, y);
        self.call(p, "mouse event").await?;
        Ok(())
    }

    pub async fn wheel(&self, x: f64, y: f64, dx: f64, dy: f64) -> Result<()> {
        let mut p = DispatchMouseEventParams::new(DispatchMouseEventType::MouseWheel, x, y);
        p.delta_x = Some(dx);
        p.delta_y = Some(dy);
        self.set_pointer(x, y);
        self.call(p, "mouse wheel").await?;
        Ok(())
    }

    pub async fn key(&self, k: &KeyEvent, down: bool) -> Result<()> {
        let t = if down {
            if k.text.is_empty() {
                DispatchKeyEventType::RawKeyDown
            } else {
                DispatchKeyEventType::KeyDown
            }
        } else {
            DispatchKeyEventType::KeyUp
        };
        let mut p = DispatchKeyEventParams::new(t);
        p.key = Some(k.key.clone());
        p.code = Some(k.code.clone());
        p.windows_virtual_key_code = Some(k.key_code);
        p.native_virtual_key_code = Some(k.key_code);
        p.modifiers = Some(k.modifiers);
        if k.location != 0 {
            p.location = Some(k.location);
        }
        if down && !k.text.is_empty() {
            p.text = Some(k.text.clone());
            p.unmodified_text = Some(k.text.clone());
        }
        self.call(p, "key event").await?;
        Ok(())
    }

    pub async fn insert_text(&self, text: &str) -> Result<()> {
        self.call(InsertTextParams::new(text), "insert text")
            .await?;
        Ok(())
    }

    pub async fn handle_dialog(&self, accept: bool, prompt: Option<String>) -> Result<()> {
        let mut p = HandleJavaScriptDialogParams::new(accept);
        p.prompt_text = prompt;
        self.call(p, "handle dialog").await?;
        Ok(())
    }

    pub async fn url(&self) -> Result<String> {
        let v = self.eval("location.href").await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    pub async fn title(&self) -> Result<String> {
        let v = self.eval("document.title").await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    pub async fn close(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        if !self.alive.load(Ordering::SeqCst) {
            return Ok(());
        }
        let p = self.page.clone();
        match tokio::time::timeout(Duration::from_secs(5), p.close()).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(map_cdp(e, "close page")),
            Err(_) => Ok(()),
        }
    }

    /// The chromiumoxide handle, for the event module.
    pub(super) fn cdp(&self) -> chromiumoxide::Page {
        self.page.clone()
    }

    /// Go `delta` entries back (-1) or forward (+1) in the session history and
    /// wait until the document is loaded. Returns `false` when there is no
    /// such entry (nothing happens, as in a browser).
    pub async fn history(&self, delta: i64, timeout: Duration) -> Result<bool> {
        use chromiumoxide::cdp::browser_protocol::page::{
            GetNavigationHistoryParams, NavigateToHistoryEntryParams,
        };
        let h = self
            .call(GetNavigationHistoryParams::default(), "navigation history")
            .await?;
        let idx = h.current_index + delta;
        if idx < 0 || idx as usize >= h.entries.len() {
            return Ok(false);
        }
        let entry = &h.entries[idx as usize];
        self.call(
            NavigateToHistoryEntryParams::new(entry.id),
            "navigate history",
        )
        .await?;
        self.wait_loaded(timeout).await?;
        Ok(true)
    }

    /// Reload and wait until the document is loaded.
    pub async fn reload_and_wait(&self, timeout: Duration) -> Result<()> {
        self.reload().await?;
        self.wait_loaded(timeout).await
    }

    /// Poll until a (new) document reports `readyState == "complete"`.
    async fn wait_loaded(&self, timeout: Duration) -> Result<()> {
        let deadline = tokio::time::Instant::now() + timeout;
        // Let the navigation commit first.
        tokio::time::sleep(Duration::from_millis(20)).await;
        loop {
            match self.eval("document.readyState").await {
                Ok(v) if v.as_str() == Some("complete") => return Ok(()),
                Ok(_) | Err(Error::ContextDestroyed) | Err(Error::Cdp(_)) => {}
                Err(e) => return Err(e),
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(Error::Timeout {
                    what: "the page to load".into(),
                    ms: timeout.as_millis() as u64,
                });
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Cookies visible to `urls` (the page's URLs when empty), in CDP's JSON shape
    /// (`name, value, domain, path, expires, httpOnly, secure, sameSite`).
    pub async fn cookies(&self, urls: Option<Vec<String>>) -> Result<Vec<serde_json::Value>> {
        use chromiumoxide::cdp::browser_protocol::network::GetCookiesParams;
        let r = self.call(GetCookiesParams { urls }, "get cookies").await?;
        Ok(r.cookies
            .iter()
            .filter_map(|c| serde_json::to_value(c).ok())
            .collect())
    }

    /// Set cookies given in CDP's `CookieParam` JSON shape.
    pub async fn set_cookies(&self, cookies: Vec<serde_json::Value>) -> Result<()> {
        use chromiumoxide::cdp::browser_protocol::network::{CookieParam, SetCookiesParams};
        let mut list = Vec::with_capacity(cookies.len());
        for (i, c) in cookies.into_iter().enumerate() {
            let p: CookieParam = serde_json::from_value(c)
                .map_err(|e| Error::invalid_field(format!("cookies[{i}]"), e.to_string()))?;
            list.push(p);
        }
        self.call(SetCookiesParams::new(list), "set cookies")
            .await?;
        Ok(())
    }

    /// Delete every cookie of the browser context.
    pub async fn clear_cookies(&self) -> Result<()> {
        use chromiumoxide::cdp::browser_protocol::network::ClearBrowserCookiesParams;
        self.call(ClearBrowserCookiesParams::default(), "clear cookies")
            .await?;
        Ok(())
    }

    /// Bring the page's window to the front.
    pub async fn bring_to_front(&self) -> Result<()> {
        use chromiumoxide::cdp::browser_protocol::page::BringToFrontParams;
        self.call(BringToFrontParams::default(), "bring to front")
            .await?;
        Ok(())
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst) || !self.alive.load(Ordering::SeqCst)
    }
}

impl Page {
    /// Diagnostics: evaluate `expression` under V8's sampling profiler and
    /// return `(self ms, function:line)` rows, heaviest first. Used by the
    /// profiling probes in the test suite, never on a hot path.
    #[doc(hidden)]
    pub async fn profile_eval(&self, expression: &str) -> Result<Vec<(f64, String)>> {
        use chromiumoxide::cdp::js_protocol::profiler as prof;
        self.call(prof::EnableParams::default(), "profiler").await?;
        self.call(prof::SetSamplingIntervalParams::new(50), "profiler")
            .await?;
        self.call(prof::StartParams::default(), "profiler").await?;
        let r = self.eval(expression).await;
        let out = self.call(prof::StopParams::default(), "profiler").await?;
        r?;
        let p = out.profile;
        let mut self_us: std::collections::HashMap<i64, f64> = Default::default();
        if let (Some(samples), Some(deltas)) = (&p.samples, &p.time_deltas) {
            for (i, id) in samples.iter().enumerate() {
                let d = deltas.get(i + 1).copied().unwrap_or(0) as f64;
                *self_us.entry(*id).or_default() += d;
            }
        }
        let mut by: std::collections::HashMap<String, f64> = Default::default();
        for n in &p.nodes {
            let f = &n.call_frame;
            let name = if f.function_name.is_empty() {
                "(anonymous)"
            } else {
                &f.function_name
            };
            *by.entry(format!("{name}:{}", f.line_number + 1))
                .or_default() += self_us.get(&n.id).copied().unwrap_or(0.0) / 1000.0;
        }
        let mut rows: Vec<(f64, String)> = by.into_iter().map(|(k, v)| (v, k)).collect();
        rows.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        Ok(rows)
    }
}
