//! The BAP method table: one JSON-RPC request → `app` calls → one result.
//!
//! A [`Hub`] is the server-wide state (configuration, parked sessions, HTTP
//! sessions); a [`Conn`] is one client (a WebSocket, or an HTTP session named
//! by `X-Pinpoint-Session`). Each conn owns a [`SessionState`]: an
//! `app::Session` (browser + pages + ref registries), the subscribed event
//! categories and the sink notifications go to. When a WebSocket that sent a
//! `sessionId` in `initialize` closes, its state is parked for
//! [`HubConfig::park_ttl`] and handed back to the next `initialize` with the
//! same id (BAP-WIRE §2.5); otherwise its browser is closed.
//!
//! Invariants: every handler error is a `crate::Error` mapped to a JSON-RPC
//! error through [`RpcError::from`] (never by message text); nothing here
//! panics on input; results are the typed structs of [`super::types`]
//! (absent optionals omitted). Transports (WebSocket, `POST /rpc`) live in
//! `http::bap`; this module knows no sockets.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine;
use serde::Serialize;
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use super::envelope::{Incoming, Notification, Response, RpcError};
use super::types::{self as t, methods as m, parse_params, BapSelector};
use crate::act::{self, ActOptions, Action, Direction, DragTo, Scroll, SelectOption, Target};
use crate::annotations::store::Store;
use crate::app::inspect::ExtractMode;
use crate::app::shot::{Area, ShotOptions};
use crate::app::{LaunchOptions, LoadState, ObserveOptions, PageState, Session, Viewport};
use crate::error::{Error, Result};
use crate::model::Observation;
use crate::render::{OutputFormat, Style};

/// Largest response frame we send (BAP-WIRE §0 rule 10, with room for the envelope).
pub const MAX_RESPONSE_BYTES: usize = super::envelope::PY_MAX_FRAME_BYTES - 64 * 1024;
/// Default navigation timeout.
const NAV_TIMEOUT: Duration = Duration::from_secs(30);
/// Default `agent/act` budget (REF's server timeout).
const ACT_BUDGET: Duration = Duration::from_secs(30);

/// Server-wide settings.
#[derive(Debug, Clone)]
pub struct HubConfig {
    pub launch: LaunchOptions,
    pub viewport: Viewport,
    /// How long a disconnected session with a `sessionId` keeps its browser.
    pub park_ttl: Duration,
    /// Annotation store: observations re-anchor open annotations and shots draw pins.
    pub store: Option<Store>,
}

impl Default for HubConfig {
    fn default() -> Self {
        HubConfig {
            launch: LaunchOptions::default(),
            viewport: Viewport::default(),
            park_ttl: Duration::from_secs(300),
            store: None,
        }
    }
}

/// The server-wide state.
pub struct Hub {
    pub cfg: HubConfig,
    parked: StdMutex<HashMap<String, (Arc<SessionState>, Instant)>>,
    http: StdMutex<HashMap<String, Arc<Conn>>>,
}

/// Where a session's notifications go.
#[derive(Default)]
struct Sink {
    out: Option<mpsc::UnboundedSender<String>>,
    events: HashSet<String>,
}

/// What survives a reconnect: the browser session and its bookkeeping.
pub struct SessionState {
    pub session: Arc<Session>,
    launched: AtomicBool,
    browser_id: StdMutex<String>,
    context_id: String,
    created: u64,
    sink: Arc<StdMutex<Sink>>,
    /// Pages whose events are forwarded.
    forwarded: StdMutex<HashSet<String>>,
    /// `frame/switch` selection per page (frame path).
    frames: StdMutex<HashMap<String, String>>,
}

impl SessionState {
    fn new(cfg: &HubConfig) -> Arc<SessionState> {
        let session = Arc::new(Session::new(cfg.launch.clone(), cfg.viewport));
        session.set_store(cfg.store.clone());
        Arc::new(SessionState {
            session,
            launched: AtomicBool::new(false),
            browser_id: StdMutex::new(String::new()),
            context_id: format!("ctx-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]),
            created: now_ms(),
            sink: Arc::new(StdMutex::new(Sink::default())),
            forwarded: StdMutex::new(HashSet::new()),
            frames: StdMutex::new(HashMap::new()),
        })
    }
}

/// One client connection.
pub struct Conn {
    hub: Arc<Hub>,
    state: StdMutex<Arc<SessionState>>,
    initialized: AtomicBool,
    session_id: StdMutex<Option<String>>,
    out: Option<mpsc::UnboundedSender<String>>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn lock<T>(m: &StdMutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Hub {
    pub fn new(cfg: HubConfig) -> Arc<Hub> {
        Arc::new(Hub {
            cfg,
            parked: StdMutex::new(HashMap::new()),
            http: StdMutex::new(HashMap::new()),
        })
    }

    /// A WebSocket connection; notifications go to `out`.
    pub fn connect(self: &Arc<Self>, out: mpsc::UnboundedSender<String>) -> Arc<Conn> {
        Arc::new(Conn {
            hub: self.clone(),
            state: StdMutex::new(SessionState::new(&self.cfg)),
            initialized: AtomicBool::new(false),
            session_id: StdMutex::new(None),
            out: Some(out),
        })
    }

    /// The HTTP session named `id`, or a new one (already initialized, so a
    /// single `curl` can call any method). Returns the conn and its id.
    pub fn http_session(self: &Arc<Self>, id: Option<&str>) -> (Arc<Conn>, String) {
        let mut map = lock(&self.http);
        if let Some(id) = id {
            if let Some(c) = map.get(id) {
                return (c.clone(), id.to_string());
            }
        }
        let id = id
            .map(str::to_string)
            .unwrap_or_else(|| format!("http-{}", uuid::Uuid::new_v4().simple()));
        let c = Arc::new(Conn {
            hub: self.clone(),
            state: StdMutex::new(SessionState::new(&self.cfg)),
            initialized: AtomicBool::new(true),
            session_id: StdMutex::new(Some(id.clone())),
            out: None,
        });
        map.insert(id.clone(), c.clone());
        (c, id)
    }

    /// Close every browser (server shutdown).
    pub async fn shutdown(&self) {
        let parked: Vec<_> = lock(&self.parked).drain().map(|(_, (s, _))| s).collect();
        let http: Vec<_> = lock(&self.http).drain().map(|(_, c)| c).collect();
        for s in parked {
            s.session.close_browser().await;
        }
        for c in http {
            c.state().session.close_browser().await;
        }
    }

    /// Drop parked sessions older than the TTL (closing their browsers).
    async fn expire(&self) {
        let ttl = self.cfg.park_ttl;
        let old: Vec<_> = {
            let mut p = lock(&self.parked);
            let keys: Vec<String> = p
                .iter()
                .filter(|(_, (_, at))| at.elapsed() > ttl)
                .map(|(k, _)| k.clone())
                .collect();
            keys.into_iter().filter_map(|k| p.remove(&k)).collect()
        };
        for (s, _) in old {
            s.session.close_browser().await;
        }
    }

    /// Number of parked sessions (for tests and `/health`).
    pub fn parked_count(&self) -> usize {
        lock(&self.parked).len()
    }
}

type BoxFut<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

impl Conn {
    fn state(&self) -> Arc<SessionState> {
        lock(&self.state).clone()
    }

    /// The app session (for in-process callers and benchmarks).
    pub fn session(&self) -> Arc<Session> {
        self.state().session.clone()
    }

    /// Handle one incoming text frame; `Some(reply)` to send back.
    pub async fn handle_text(self: &Arc<Self>, text: &str) -> Option<String> {
        match Incoming::parse(text) {
            Incoming::Request { id, method, params } => {
                Some(self.request(id, &method, params).await.to_text())
            }
            Incoming::Notification { .. } | Incoming::Ignored => None,
            Incoming::Invalid(e) => Some(e.to_text()),
        }
    }

    /// Answer one request.
    pub async fn request(
        self: &Arc<Self>,
        id: Value,
        method: &str,
        params: Option<Value>,
    ) -> Response {
        if method == m::INITIALIZE {
            return match self.initialize(params).await {
                Ok(v) => Response::success(id, v),
                Err(e) => Response::error(id, e),
            };
        }
        if !self.initialized.load(Ordering::SeqCst) {
            return Response::error(id, RpcError::not_initialized());
        }
        // storage/getState|setState have types but are not served.
        let served = m::ALL.contains(&method)
            && !matches!(method, m::STORAGE_GET_STATE | m::STORAGE_SET_STATE);
        if !served {
            return Response::error(id, RpcError::method_not_found(method));
        }
        match self.call(method, params).await {
            Ok(v) => Response::success(id, v),
            Err(e) => Response::error(id, RpcError::from(&e)),
        }
    }

    async fn initialize(&self, params: Option<Value>) -> Result<Value, RpcError> {
        if self.initialized.load(Ordering::SeqCst) {
            return Err(RpcError::already_initialized());
        }
        let p: t::InitializeParams = parse_params(params).map_err(|e| RpcError::from(&e))?;
        self.hub.expire().await;
        if let Some(sid) = &p.session_id {
            let parked = lock(&self.hub.parked).remove(sid);
            if let Some((st, _)) = parked {
                let old = std::mem::replace(&mut *lock(&self.state), st);
                old.session.close_browser().await;
            }
            *lock(&self.session_id) = Some(sid.clone());
        }
        {
            let st = self.state();
            let mut sink = lock(&st.sink);
            sink.out = self.out.clone();
        }
        self.initialized.store(true, Ordering::SeqCst);
        serde_json::to_value(t::InitializeResult::pinpoint(p.session_id))
            .map_err(|e| RpcError::from(&Error::Internal(e.to_string())))
    }

    /// The connection closed: park the session (when it has an id and a live
    /// browser) or close its browser.
    pub async fn closed(&self) {
        let st = self.state();
        lock(&st.sink).out = None;
        let sid = lock(&self.session_id).clone();
        let alive = st
            .session
            .current_browser()
            .await
            .is_some_and(|b| b.is_alive());
        match sid {
            Some(sid) if alive && self.initialized.load(Ordering::SeqCst) => {
                let replaced = lock(&self.hub.parked).insert(sid, (st, Instant::now()));
                if let Some((old, _)) = replaced {
                    old.session.close_browser().await;
                }
            }
            _ => st.session.close_browser().await,
        }
    }

    /// Run one method (no lifecycle checks): also used by `agent/act` steps.
    fn call<'a>(
        self: &'a Arc<Self>,
        method: &'a str,
        params: Option<Value>,
    ) -> BoxFut<'a, Result<Value>> {
        Box::pin(async move { self.call_inner(method, params).await })
    }

    async fn call_inner(self: &Arc<Self>, method: &str, params: Option<Value>) -> Result<Value> {
        let st = self.state();
        let s = st.session.clone();
        match method {
            m::NOTIFICATIONS_INITIALIZED => Ok(Value::Null),
            m::EVENTS_SUBSCRIBE => {
                let p: t::EventsSubscribeParams = parse_params(params)?;
                lock(&st.sink).events.extend(p.events);
                Ok(Value::Null)
            }
            m::SHUTDOWN => {
                let _: t::ShutdownParams = parse_params(params)?;
                s.close_browser().await;
                st.launched.store(false, Ordering::SeqCst);
                lock(&st.forwarded).clear();
                self.initialized.store(false, Ordering::SeqCst);
                Ok(Value::Null)
            }
            m::BROWSER_LAUNCH => self.browser_launch(&st, parse_params(params)?).await,
            m::BROWSER_CLOSE => {
                let _: t::BrowserCloseParams = parse_params(params)?;
                s.close_browser().await;
                st.launched.store(false, Ordering::SeqCst);
                lock(&st.forwarded).clear();
                Ok(Value::Null)
            }
            m::PAGE_CREATE => self.page_create(&st, parse_params(params)?).await,
            m::PAGE_NAVIGATE => self.page_navigate(&st, parse_params(params)?).await,
            m::PAGE_RELOAD | m::PAGE_GO_BACK | m::PAGE_GO_FORWARD => {
                let p: t::PageHistoryParams = parse_params(params)?;
                let page = s.page(p.page_id.as_deref()).await?;
                let timeout = p.timeout.map(Duration::from_millis).unwrap_or(NAV_TIMEOUT);
                match method {
                    m::PAGE_RELOAD => page.page.reload_and_wait(timeout).await?,
                    m::PAGE_GO_BACK => {
                        page.page.history(-1, timeout).await?;
                    }
                    _ => {
                        page.page.history(1, timeout).await?;
                    }
                }
                Ok(Value::Null)
            }
            m::PAGE_CLOSE => {
                let p: t::PageCloseParams = parse_params(params)?;
                s.close_page(&p.page_id).await?;
                lock(&st.forwarded).remove(&p.page_id);
                self.emit(
                    &st,
                    "page",
                    t::events::PAGE,
                    &t::PageEvent {
                        kind: "close".into(),
                        page_id: p.page_id,
                        url: None,
                        error: None,
                        timestamp: now_ms(),
                    },
                );
                Ok(Value::Null)
            }
            m::PAGE_LIST => {
                let mut pages = Vec::new();
                for p in s.pages().await {
                    pages.push(page_info(&p).await);
                }
                to_value(&t::PageListResult {
                    pages,
                    active_page: s.active_page_id().await.unwrap_or_default(),
                })
            }
            m::PAGE_ACTIVATE => {
                let p: t::PageActivateParams = parse_params(params)?;
                s.activate(&p.page_id).await?;
                let page = s.page(Some(&p.page_id)).await?;
                page.page.bring_to_front().await?;
                Ok(Value::Null)
            }
            m::EMULATE_SET_VIEWPORT => {
                let p: t::SetViewportParams = parse_params(params)?;
                let page = s.page(p.page_id.as_deref()).await?;
                let cur = page.page.viewport();
                let vp = viewport(p.width, p.height, p.device_scale_factor.unwrap_or(cur.dpr))?;
                page.page.set_viewport(vp).await?;
                Ok(Value::Null)
            }
            m if m.starts_with("action/") => self.action(&s, m, params).await,
            m::OBSERVE_SCREENSHOT => self.screenshot(&s, parse_params(params)?).await,
            m::OBSERVE_ACCESSIBILITY => {
                let p: t::AccessibilityParams = parse_params(params)?;
                let page = s.page(p.page_id.as_deref()).await?;
                let o = p.options.unwrap_or_default();
                let tree =
                    accessibility(&page, o.interesting_only.unwrap_or(true), o.max_depth).await?;
                to_value(&t::AccessibilityTree::single(tree))
            }
            m::OBSERVE_ELEMENT => {
                let p: t::ElementParams = parse_params(params)?;
                let page = s.page(p.page_id.as_deref()).await?;
                let props: Vec<String> = p
                    .properties
                    .iter()
                    .filter_map(|x| serde_json::to_value(x).ok())
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect();
                let props: Vec<&str> = props.iter().map(String::as_str).collect();
                let v = s
                    .element_properties(&page, &to_spec(&p.selector)?, &props)
                    .await?;
                let r: t::ElementResult = serde_json::from_value(v)
                    .map_err(|e| Error::Internal(format!("element properties: {e}")))?;
                to_value(&r)
            }
            m::OBSERVE_CONTENT => {
                let p: t::ContentParams = parse_params(params)?;
                let page = s.page(p.page_id.as_deref()).await?;
                let format = p.format.unwrap_or(t::ContentFormat::Text);
                let f = serde_json::to_value(format)?;
                let content = s.content(&page, f.as_str().unwrap_or("text")).await?;
                let content = cap_text(content);
                to_value(&t::ContentResult {
                    content,
                    url: page.page.url().await.unwrap_or_default(),
                    title: page.page.title().await.unwrap_or_default(),
                    format,
                })
            }
            m::AGENT_OBSERVE => {
                let p: t::AgentObserveParams = parse_params(params)?;
                let page = s.page(p.page_id.as_deref()).await?;
                to_value(&agent_observe(&s, &page, &p).await?)
            }
            m::AGENT_ACT => self.agent_act(&s, parse_params(params)?).await,
            m::AGENT_EXTRACT => {
                let p: t::AgentExtractParams = parse_params(params)?;
                let page = s.page(p.page_id.as_deref()).await?;
                to_value(&extract(&s, &page, &p).await)
            }
            m::CONTEXT_LIST => {
                let n = s.pages().await.len() as u32;
                let launched = st.launched.load(Ordering::SeqCst);
                let contexts = if launched {
                    vec![t::ContextInfo {
                        id: st.context_id.clone(),
                        page_count: n,
                        created: st.created,
                        options: None,
                    }]
                } else {
                    Vec::new()
                };
                to_value(&t::ContextListResult {
                    limits: t::ContextLimits {
                        max_contexts: 1,
                        current_count: contexts.len() as u32,
                    },
                    contexts,
                })
            }
            m::CONTEXT_CREATE => {
                let p: t::ContextCreateParams = parse_params(params)?;
                p.validate()?;
                Err(Error::ResourceLimit {
                    resource:
                        "browser contexts per session (open another BAP session for isolation)"
                            .into(),
                    limit: 1,
                    current: 1,
                })
            }
            m::CONTEXT_DESTROY => {
                let p: t::ContextDestroyParams = parse_params(params)?;
                if p.context_id != st.context_id {
                    return Err(Error::NotFound {
                        kind: "context",
                        id: p.context_id,
                    });
                }
                let pages = s.pages().await;
                for pg in &pages {
                    let _ = s.close_page(&pg.id).await;
                }
                to_value(&t::ContextDestroyResult {
                    pages_destroyed: pages.len() as u32,
                })
            }
            m::FRAME_LIST => {
                let p: t::PageIdParams = parse_params(params)?;
                let page = s.page(p.page_id.as_deref()).await?;
                let frames = s.frames(&page).await?;
                let frames: Vec<t::FrameEntry> = frames
                    .into_iter()
                    .filter_map(|f| serde_json::from_value(f).ok())
                    .collect();
                to_value(&t::FrameListResult { frames })
            }
            m::FRAME_SWITCH => {
                let p: t::FrameSwitchParams = parse_params(params)?;
                let page = s.page(p.page_id.as_deref()).await?;
                let frames = s.frames(&page).await?;
                let found = frames.iter().find(|f| {
                    let id = f["frameId"].as_str().unwrap_or("");
                    let url = f["url"].as_str().unwrap_or("");
                    let name = f["name"].as_str().unwrap_or("");
                    p.frame_id.as_deref().is_some_and(|x| x == id || x == name)
                        || p.url.as_deref().is_some_and(|u| url.contains(u))
                        || matches!(&p.selector, Some(BapSelector::Css { value }) if id.ends_with(value.trim_start_matches('#')))
                });
                let Some(f) = found else {
                    return Err(Error::FrameNotFound {
                        frame: p
                            .frame_id
                            .or(p.url)
                            .unwrap_or_else(|| "(no frameId, url or selector given)".into()),
                    });
                };
                let id = f["frameId"].as_str().unwrap_or("main").to_string();
                lock(&st.frames).insert(page.id.clone(), id.clone());
                to_value(&t::FrameSwitchResult {
                    frame_id: id,
                    url: f["url"].as_str().unwrap_or("").to_string(),
                })
            }
            m::FRAME_MAIN => {
                let p: t::PageIdParams = parse_params(params)?;
                let page = s.page(p.page_id.as_deref()).await?;
                lock(&st.frames).remove(&page.id);
                to_value(&t::FrameMainResult {
                    frame_id: "main".into(),
                })
            }
            m::DIALOG_HANDLE => {
                let p: t::DialogHandleParams = parse_params(params)?;
                let page = s.page(p.page_id.as_deref()).await?;
                page.page
                    .handle_dialog(matches!(p.action, t::DialogAction::Accept), p.prompt_text)
                    .await?;
                Ok(Value::Null)
            }
            m::STORAGE_GET_COOKIES => {
                let p: t::CookieUrlsParams = parse_params(params)?;
                let page = s.page(None).await?;
                let raw = page.page.cookies(p.urls).await?;
                let cookies: Vec<t::Cookie> = raw.into_iter().filter_map(cookie_from_cdp).collect();
                to_value(&t::CookiesResult { cookies })
            }
            m::STORAGE_SET_COOKIES => {
                let p: t::SetCookiesParams = parse_params(params)?;
                let page = s.page(None).await?;
                let url = page.page.url().await.unwrap_or_default();
                let list = p
                    .cookies
                    .iter()
                    .map(|c| cookie_to_cdp(c, &url))
                    .collect::<Result<Vec<_>>>()?;
                page.page.set_cookies(list).await?;
                Ok(Value::Null)
            }
            m::STORAGE_CLEAR_COOKIES => {
                let _: t::CookieUrlsParams = parse_params(params)?;
                let page = s.page(None).await?;
                page.page.clear_cookies().await?;
                Ok(Value::Null)
            }
            other => Err(Error::InvalidInput {
                message: format!("method {other} is not served by Pinpoint"),
                field: None,
            }),
        }
    }

    async fn browser_launch(
        &self,
        st: &Arc<SessionState>,
        p: t::BrowserLaunchParams,
    ) -> Result<Value> {
        if let Some(b) = p.browser.as_deref() {
            if b != "chromium" {
                return Err(Error::invalid_field(
                    "browser",
                    format!("only \"chromium\" is supported, got {b:?}"),
                ));
            }
        }
        let mut opts = self.hub.cfg.launch.clone();
        if let Some(url) = p.cdp_url.filter(|u| !u.is_empty()) {
            opts.cdp = Some(url);
        }
        if p.headless == Some(false) {
            opts.headful = true;
        }
        let b = st.session.relaunch(opts).await?;
        lock(&st.forwarded).clear();
        st.launched.store(true, Ordering::SeqCst);
        let id = format!("browser-{}", uuid::Uuid::new_v4());
        *lock(&st.browser_id) = id.clone();
        to_value(&t::BrowserLaunchResult {
            browser_id: id,
            browser: "chromium".into(),
            version: b.version().to_string(),
            default_context: st.context_id.clone(),
        })
    }

    async fn ensure_launched(&self, st: &SessionState) -> Result<()> {
        // Once launched, a browser that died is relaunched by the session.
        if st.launched.load(Ordering::SeqCst) {
            Ok(())
        } else {
            Err(Error::BrowserNotLaunched)
        }
    }

    async fn page_create(&self, st: &Arc<SessionState>, p: t::PageCreateParams) -> Result<Value> {
        // HTTP sessions launch on demand so one `curl` can open a page.
        if self.out.is_none() && !st.launched.load(Ordering::SeqCst) {
            st.launched.store(true, Ordering::SeqCst);
        }
        self.ensure_launched(st).await?;
        if let Some(c) = &p.context_id {
            if *c != st.context_id {
                return Err(Error::NotFound {
                    kind: "context",
                    id: c.clone(),
                });
            }
        }
        let vp = match p.viewport {
            Some(v) => Some(viewport(v.width, v.height, self.hub.cfg.viewport.dpr)?),
            None => None,
        };
        let page = st.session.new_page(vp).await?;
        self.forward_events(st, &page).await;
        if let Some(url) = p.url.filter(|u| !u.is_empty() && u != "about:blank") {
            st.session
                .navigate(&page, &url, LoadState::Load, NAV_TIMEOUT)
                .await?;
        }
        to_value(&page_info(&page).await)
    }

    async fn page_navigate(
        &self,
        st: &Arc<SessionState>,
        p: t::PageNavigateParams,
    ) -> Result<Value> {
        check_url(&p.url)?;
        let s = &st.session;
        let page = s.page(p.page_id.as_deref()).await?;
        let wait = match p.wait_until.unwrap_or_default() {
            t::WaitUntil::Load => LoadState::Load,
            t::WaitUntil::DomContentLoaded => LoadState::Domcontentloaded,
            t::WaitUntil::NetworkIdle => LoadState::Networkidle,
            t::WaitUntil::Commit => LoadState::Commit,
        };
        let timeout = p.timeout.map(Duration::from_millis).unwrap_or(NAV_TIMEOUT);
        let nav = s.navigate(&page, &p.url, wait, timeout).await?;
        let observation = match &p.observe {
            Some(o) => agent_observe(s, &page, o).await.ok(),
            None => None,
        };
        let headers: BTreeMap<String, String> = nav
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.to_ascii_lowercase(),
                    v.as_str().map_or_else(|| v.to_string(), str::to_string),
                )
            })
            .collect();
        to_value(&t::PageNavigateResult {
            url: nav.url,
            status: u16::try_from(nav.status).unwrap_or(0),
            headers,
            observation,
        })
    }

    /// Forward a page's events to the session's sink (once per page).
    async fn forward_events(&self, st: &Arc<SessionState>, page: &Arc<PageState>) {
        if !lock(&st.forwarded).insert(page.id.clone()) {
            return;
        }
        let Ok(mut rx) = page.page.events().await else {
            return;
        };
        let sink = st.sink.clone();
        let page_id = page.id.clone();
        let p = page.clone();
        tokio::spawn(async move {
            use crate::app::PageEvent as E;
            let mut urls: HashMap<String, String> = HashMap::new();
            while let Some(ev) = rx.recv().await {
                let ts = now_ms();
                let (cat, method, params) = match ev {
                    E::DomContentLoaded | E::Load => {
                        let kind = if matches!(ev, E::Load) {
                            "load"
                        } else {
                            "domcontentloaded"
                        };
                        let url = p.page.url().await.ok();
                        (
                            "page",
                            t::events::PAGE,
                            json!(t::PageEvent {
                                kind: kind.into(),
                                page_id: page_id.clone(),
                                url,
                                error: None,
                                timestamp: ts
                            }),
                        )
                    }
                    E::Navigated { url } => (
                        "page",
                        t::events::PAGE,
                        json!(t::PageEvent {
                            kind: "navigated".into(),
                            page_id: page_id.clone(),
                            url: Some(url),
                            error: None,
                            timestamp: ts
                        }),
                    ),
                    E::Console {
                        level,
                        text,
                        url,
                        line,
                        column,
                    } => (
                        "console",
                        t::events::CONSOLE,
                        json!(t::ConsoleEvent {
                            page_id: page_id.clone(),
                            level,
                            text,
                            url,
                            line: line.and_then(|l| u32::try_from(l).ok()),
                            column: column.and_then(|c| u32::try_from(c).ok()),
                            timestamp: ts,
                        }),
                    ),
                    E::Request {
                        id,
                        url,
                        method,
                        resource_type,
                        headers,
                        post_data,
                    } => {
                        urls.insert(id.clone(), url.clone());
                        if urls.len() > 10_000 {
                            urls.clear();
                        }
                        (
                            "network",
                            t::events::NETWORK,
                            json!(t::NetworkEvent {
                                kind: "request".into(),
                                request_id: id,
                                page_id: page_id.clone(),
                                url,
                                method: Some(method),
                                resource_type: Some(resource_type),
                                headers: Some(redact_headers(&headers)),
                                post_data: post_data.then(|| "[REDACTED]".to_string()),
                                status: None,
                                error: None,
                                timestamp: ts,
                            }),
                        )
                    }
                    E::Response {
                        id,
                        url,
                        status,
                        headers,
                    } => (
                        "network",
                        t::events::NETWORK,
                        json!(t::NetworkEvent {
                            kind: "response".into(),
                            request_id: id,
                            page_id: page_id.clone(),
                            url,
                            method: None,
                            resource_type: None,
                            headers: Some(redact_headers(&headers)),
                            post_data: None,
                            status: u16::try_from(status).ok(),
                            error: None,
                            timestamp: ts,
                        }),
                    ),
                    E::Failed { id, error, .. } => {
                        let url = urls.get(&id).cloned().unwrap_or_default();
                        (
                            "network",
                            t::events::NETWORK,
                            json!(t::NetworkEvent {
                                kind: "failed".into(),
                                request_id: id,
                                page_id: page_id.clone(),
                                url,
                                method: None,
                                resource_type: None,
                                headers: None,
                                post_data: None,
                                status: None,
                                error: Some(error),
                                timestamp: ts,
                            }),
                        )
                    }
                    E::Dialog {
                        kind,
                        message,
                        default_value,
                    } => (
                        "dialog",
                        t::events::DIALOG,
                        json!(t::DialogEvent {
                            page_id: page_id.clone(),
                            kind,
                            message,
                            default_value,
                            timestamp: ts,
                        }),
                    ),
                };
                notify(&sink, cat, method, &params);
            }
        });
    }

    fn emit<T: Serialize>(&self, st: &SessionState, cat: &str, method: &str, params: &T) {
        notify(&st.sink, cat, method, params);
    }

    async fn action(&self, s: &Arc<Session>, method: &str, params: Option<Value>) -> Result<Value> {
        let (page_id, target, mut action, opts) = parse_action(method, params)?;
        let page = s.page(page_id.as_deref()).await?;
        // `amount: "page"`: one viewport width or height.
        if let Action::Scroll(Scroll::Direction { direction, amount }) = &mut action {
            if *amount < 0.0 {
                let vp = page.page.viewport();
                *amount = match direction {
                    Direction::Left | Direction::Right => vp.width as f64,
                    Direction::Up | Direction::Down => vp.height as f64,
                };
            }
        }
        s.act(&page, target.as_ref(), &action, &opts).await?;
        Ok(Value::Null)
    }

    async fn screenshot(&self, s: &Arc<Session>, p: t::ScreenshotParams) -> Result<Value> {
        let page = s.page(p.page_id.as_deref()).await?;
        let o = p.options.unwrap_or_default();
        if o.mask.as_ref().is_some_and(|m| !m.is_empty()) {
            return Err(Error::invalid_field(
                "options.mask",
                "masks are not supported; sensitive inputs (passwords, data-sensitive) are always covered",
            ));
        }
        let area = match (o.clip, o.full_page) {
            (Some(c), _) => Area::Rect(c.into()),
            (None, Some(true)) => Area::FullPage,
            _ => Area::Viewport,
        };
        let jpeg = matches!(
            o.format,
            Some(t::ScreenshotFormat::Jpeg | t::ScreenshotFormat::Webp)
        );
        let quality = o.quality.unwrap_or(80).clamp(1, 100) as u8;
        let opts = ShotOptions {
            area,
            marks: false,
            format: if jpeg {
                OutputFormat::Jpeg { quality }
            } else {
                OutputFormat::Png
            },
            max_size: None,
            draw_annotations: false,
            ..ShotOptions::default()
        };
        let (shot, note) = shot_within_limit(s, &page, opts).await?;
        let mut v = to_value(&t::ScreenshotResult {
            data: base64::engine::general_purpose::STANDARD.encode(&shot.data),
            format: if shot.format == "jpeg" {
                t::ScreenshotFormat::Jpeg
            } else {
                t::ScreenshotFormat::Png
            },
            width: shot.width,
            height: shot.height,
        })?;
        if let (Some(note), Some(o)) = (note, v.as_object_mut()) {
            o.insert("originalWidth".into(), json!(shot.original_width));
            o.insert("originalHeight".into(), json!(shot.original_height));
            o.insert("note".into(), json!(note));
        }
        Ok(v)
    }

    async fn agent_act(self: &Arc<Self>, s: &Arc<Session>, p: t::AgentActParams) -> Result<Value> {
        p.validate()?;
        let t0 = Instant::now();
        let budget = p.timeout.map(Duration::from_millis).unwrap_or(ACT_BUDGET);
        let stop_on_error = p.stop_on_first_error.unwrap_or(true);
        let pre_observation = match &p.pre_observe {
            Some(o) => observe_on(s, p.page_id.as_deref(), o).await,
            None => None,
        };
        let total = p.steps.len() as u32;
        let mut results = Vec::new();
        let mut completed = 0u32;
        let mut failed_at = None;
        for (i, step) in p.steps.iter().enumerate() {
            if t0.elapsed() > budget {
                failed_at = Some(results.len() as u32);
                break;
            }
            let st0 = Instant::now();
            let mut params = step.params.clone().unwrap_or_else(|| json!({}));
            // A step without its own pageId runs on the act's page (else the active one).
            if let (Some(pid), Some(o)) = (&p.page_id, params.as_object_mut()) {
                if o.get("pageId").is_none_or(Value::is_null) {
                    o.insert("pageId".into(), json!(pid));
                }
            }
            let mut retries = 0u32;
            let mut res = match &step.condition {
                Some(c) => self.condition(s, &params, c).await.map(|()| Value::Null),
                None => Ok(Value::Null),
            };
            if res.is_err()
                && step.condition.is_some()
                && p.continue_on_condition_fail.unwrap_or(false)
            {
                results.push(step_result(i, step, &res, st0, None));
                continue;
            }
            if res.is_ok() {
                let max = match step.on_error {
                    Some(t::OnError::Retry) => step.max_retries.unwrap_or(3).clamp(1, 5),
                    _ => 0,
                };
                let mut delay = step.retry_delay.unwrap_or(500).clamp(100, 5000);
                loop {
                    res = self.call(&step.action, Some(params.clone())).await;
                    if res.is_ok() || retries >= max || t0.elapsed() > budget {
                        break;
                    }
                    retries += 1;
                    tokio::time::sleep(Duration::from_millis(delay)).await;
                    delay = (delay * 2).min(10_000);
                }
            }
            let ok = res.is_ok();
            results.push(step_result(
                i,
                step,
                &res,
                st0,
                (retries > 0).then_some(retries),
            ));
            if ok {
                completed += 1;
            } else if step.on_error == Some(t::OnError::Skip) {
                continue;
            } else if stop_on_error {
                failed_at = Some(i as u32);
                break;
            }
        }
        let post_observation = match &p.post_observe {
            Some(o) => observe_on(s, p.page_id.as_deref(), o).await,
            None => None,
        };
        to_value(&t::AgentActResult {
            completed,
            total,
            success: completed == total,
            results,
            duration: t0.elapsed().as_millis() as u64,
            failed_at,
            pre_observation,
            post_observation,
        })
    }

    /// Wait (up to the condition's timeout) for a step's condition.
    async fn condition(
        &self,
        s: &Arc<Session>,
        params: &Value,
        c: &t::StepCondition,
    ) -> Result<()> {
        let page_id = params.get("pageId").and_then(Value::as_str);
        let page = s.page(page_id).await?;
        let spec = to_spec(&c.selector)?;
        let timeout = Duration::from_millis(c.timeout.unwrap_or(5000));
        let t0 = Instant::now();
        loop {
            let v = s
                .element_properties(&page, &spec, &["visible", "enabled"])
                .await?;
            let found = v["found"].as_bool() == Some(true);
            let visible = v["visible"].as_bool() == Some(true);
            let enabled = v["enabled"].as_bool() == Some(true);
            let met = match c.state {
                t::ConditionState::Exists => found,
                t::ConditionState::Visible => found && visible,
                t::ConditionState::Hidden => !found || !visible,
                t::ConditionState::Enabled => found && enabled,
                t::ConditionState::Disabled => found && !enabled,
            };
            if met {
                return Ok(());
            }
            if t0.elapsed() >= timeout {
                let state = serde_json::to_value(c.state)?;
                return Err(Error::invalid_field(
                    "condition",
                    format!(
                        "condition not met within {} ms: {} is not {}",
                        timeout.as_millis(),
                        c.selector.describe(),
                        state.as_str().unwrap_or("?")
                    ),
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Send a notification when the client subscribed to its category.
fn notify<T: Serialize>(sink: &StdMutex<Sink>, cat: &str, method: &str, params: &T) {
    let g = lock(sink);
    if let (Some(out), true) = (&g.out, g.events.contains(cat)) {
        if let Ok(n) = Notification::new(method, params) {
            let _ = out.send(n.to_text());
        }
    }
}

fn step_result(
    i: usize,
    step: &t::ExecutionStep,
    res: &Result<Value>,
    t0: Instant,
    retries: Option<u32>,
) -> t::StepResult {
    t::StepResult {
        step: i as u32,
        label: step.label.clone(),
        success: res.is_ok(),
        result: res.as_ref().ok().filter(|v| !v.is_null()).cloned(),
        error: res.as_ref().err().map(RpcError::from),
        duration: t0.elapsed().as_millis() as u64,
        retries,
    }
}

async fn observe_on(
    s: &Arc<Session>,
    page_id: Option<&str>,
    o: &t::AgentObserveParams,
) -> Option<t::AgentObserveResult> {
    let id = o.page_id.as_deref().or(page_id);
    let page = s.page(id).await.ok()?;
    agent_observe(s, &page, o).await.ok()
}

fn to_value<T: Serialize>(v: &T) -> Result<Value> {
    Ok(serde_json::to_value(v)?)
}

fn viewport(w: u32, h: u32, dpr: f64) -> Result<Viewport> {
    if !(1..=16_384).contains(&w) || !(1..=16_384).contains(&h) {
        return Err(Error::invalid_field(
            "viewport",
            format!("width and height must be 1..16384, got {w}x{h}"),
        ));
    }
    if !(dpr.is_finite() && (0.5..=4.0).contains(&dpr)) {
        return Err(Error::invalid_field(
            "deviceScaleFactor",
            format!("must be 0.5..4, got {dpr}"),
        ));
    }
    Ok(Viewport {
        width: w,
        height: h,
        dpr,
    })
}

/// REF refuses these schemes (BAP-WIRE §5.1); `file:` too, since a page on
/// disk is served by `pinpoint shot/observe`, not by a network service.
fn check_url(url: &str) -> Result<()> {
    let lower = url.trim().to_ascii_lowercase();
    for bad in ["javascript:", "data:", "vbscript:", "file:"] {
        if lower.starts_with(bad) {
            return Err(Error::invalid_field(
                "url",
                format!("{bad} URLs are not allowed"),
            ));
        }
    }
    if lower.contains("169.254.169.254") || lower.contains("metadata.google.internal") {
        return Err(Error::invalid_field(
            "url",
            "cloud metadata hosts are not allowed",
        ));
    }
    if !(lower.starts_with("http://") || lower.starts_with("https://") || lower == "about:blank") {
        return Err(Error::invalid_field(
            "url",
            format!("expected an http(s) URL, got {url:?}"),
        ));
    }
    Ok(())
}

async fn page_info(p: &PageState) -> t::Page {
    let vp = p.page.viewport();
    t::Page {
        id: p.id.clone(),
        url: p.page.url().await.unwrap_or_default(),
        title: p.page.title().await.unwrap_or_default(),
        viewport: t::Viewport {
            width: vp.width,
            height: vp.height,
        },
        status: if p.page.is_closed() {
            t::PageStatus::Error
        } else {
            t::PageStatus::Ready
        },
    }
}

/// BAP selector → act target.
pub fn to_target(sel: &BapSelector) -> Result<Target> {
    let nonempty = |field: &str, v: &str| {
        if v.trim().is_empty() {
            Err(Error::invalid_field(
                format!("selector.{field}"),
                "must not be empty",
            ))
        } else {
            Ok(())
        }
    };
    Ok(match sel {
        BapSelector::Css { value } => {
            nonempty("value", value)?;
            if value.len() > 10_000 {
                return Err(Error::invalid_field(
                    "selector.value",
                    "longer than 10000 characters",
                ));
            }
            Target::Css(value.clone())
        }
        BapSelector::Xpath { value } => {
            nonempty("value", value)?;
            Target::XPath(value.clone())
        }
        BapSelector::Role { role, name, exact } => {
            nonempty("role", role)?;
            Target::Role {
                role: role.clone(),
                name: name.clone(),
                exact: exact.unwrap_or(false),
            }
        }
        BapSelector::Text { value, exact } => {
            nonempty("value", value)?;
            Target::Text {
                text: value.clone(),
                exact: exact.unwrap_or(false),
            }
        }
        BapSelector::Label { value, exact } => {
            nonempty("value", value)?;
            Target::Label {
                label: value.clone(),
                exact: exact.unwrap_or(false),
            }
        }
        BapSelector::Placeholder { value, exact } => {
            nonempty("value", value)?;
            Target::Placeholder {
                text: value.clone(),
                exact: exact.unwrap_or(false),
            }
        }
        BapSelector::TestId { value } => {
            nonempty("value", value)?;
            Target::TestId(value.clone())
        }
        BapSelector::Semantic { description } => {
            nonempty("description", description)?;
            Target::Semantic(description.clone())
        }
        BapSelector::Coordinates { x, y } => {
            if !(x.is_finite() && y.is_finite()) {
                return Err(Error::invalid_field(
                    "selector",
                    "coordinates must be finite",
                ));
            }
            Target::Point { x: *x, y: *y }
        }
        BapSelector::Ref { ref_ } => Target::Ref(ref_.clone()),
    })
}

fn to_spec(sel: &BapSelector) -> Result<act::TargetSpec> {
    Ok(act::TargetSpec::from(to_target(sel)?))
}

fn act_options(o: Option<t::ActionOptions>) -> Result<ActOptions> {
    let o = o.unwrap_or_default();
    let mut a = ActOptions::default();
    if let Some(ms) = o.timeout {
        if ms > 300_000 {
            return Err(Error::invalid_field("options.timeout", "at most 300000 ms"));
        }
        a.timeout = Duration::from_millis(ms);
    }
    a.force = o.force.unwrap_or(false);
    a.trial = o.trial.unwrap_or(false);
    Ok(a)
}

fn modifiers(list: &[t::KeyModifier]) -> i64 {
    list.iter()
        .map(|m| match m {
            t::KeyModifier::Alt => 1,
            t::KeyModifier::Control => 2,
            t::KeyModifier::Meta => 4,
            t::KeyModifier::Shift => 8,
        })
        .fold(0, |a, b| a | b)
}

type ParsedAction = (Option<String>, Option<act::TargetSpec>, Action, ActOptions);

/// `action/*` params → (page id, target, action, options).
fn parse_action(method: &str, params: Option<Value>) -> Result<ParsedAction> {
    use crate::app::MouseButton as Mb;
    Ok(match method {
        m::ACTION_CLICK | m::ACTION_DBLCLICK => {
            let p: t::ClickParams = parse_params(params)?;
            let o = p.options.clone().unwrap_or_default();
            let count = if method == m::ACTION_DBLCLICK {
                2
            } else {
                o.click_count.unwrap_or(1).clamp(1, 3) as i64
            };
            let c = act::ClickOptions {
                button: match o.button.unwrap_or_default() {
                    t::MouseButton::Left => Mb::Left,
                    t::MouseButton::Right => Mb::Right,
                    t::MouseButton::Middle => Mb::Middle,
                },
                click_count: count,
                modifiers: modifiers(o.modifiers.as_deref().unwrap_or(&[])),
                position: o.position.map(|p| (p.x, p.y)),
            };
            (
                p.page_id,
                Some(to_spec(&p.selector)?),
                Action::Click(c),
                act_options(Some(o.base()))?,
            )
        }
        m::ACTION_TYPE => {
            let p: t::TypeParams = parse_params(params)?;
            let o = p.options.clone().unwrap_or_default();
            let spec = to_spec(&p.selector)?;
            let action = if o.clear == Some(true) && o.delay.unwrap_or(0) == 0 {
                Action::Fill { text: p.text }
            } else {
                Action::Type {
                    text: p.text,
                    delay_ms: o.delay.unwrap_or(0).min(10_000),
                }
            };
            (p.page_id, Some(spec), action, act_options(Some(o.base()))?)
        }
        m::ACTION_FILL => {
            let p: t::FillParams = parse_params(params)?;
            (
                p.page_id,
                Some(to_spec(&p.selector)?),
                Action::Fill { text: p.value },
                act_options(p.options)?,
            )
        }
        m::ACTION_CLEAR | m::ACTION_CHECK | m::ACTION_UNCHECK => {
            let p: t::SelectorParams = parse_params(params)?;
            let a = match method {
                m::ACTION_CLEAR => Action::Clear,
                m::ACTION_CHECK => Action::Check,
                _ => Action::Uncheck,
            };
            (
                p.page_id,
                Some(to_spec(&p.selector)?),
                a,
                act_options(p.options)?,
            )
        }
        m::ACTION_PRESS => {
            let p: t::PressParams = parse_params(params)?;
            let spec = p.selector.as_ref().map(to_spec).transpose()?;
            (
                p.page_id,
                spec,
                Action::Press { keys: vec![p.key] },
                act_options(p.options)?,
            )
        }
        m::ACTION_HOVER => {
            let p: t::HoverParams = parse_params(params)?;
            let o = p.options.clone().unwrap_or_default();
            (
                p.page_id,
                Some(to_spec(&p.selector)?),
                Action::Hover {
                    position: o.position.map(|p| (p.x, p.y)),
                },
                act_options(Some(o.base()))?,
            )
        }
        m::ACTION_SCROLL => {
            let p: t::ScrollParams = parse_params(params)?;
            let o = p.options.clone().unwrap_or_default();
            let opts = act_options(Some(o.base()))?;
            match &p.selector {
                Some(sel) => (
                    p.page_id,
                    None,
                    Action::Scroll(Scroll::To(to_spec(sel)?)),
                    opts,
                ),
                None => {
                    let direction = match o.direction.unwrap_or(t::ScrollDirection::Down) {
                        t::ScrollDirection::Up => Direction::Up,
                        t::ScrollDirection::Down => Direction::Down,
                        t::ScrollDirection::Left => Direction::Left,
                        t::ScrollDirection::Right => Direction::Right,
                    };
                    let amount = match o.amount {
                        None => 300.0,
                        Some(t::ScrollAmount::Pixels(px)) => px,
                        // Resolved against the viewport by act (negative = one page).
                        Some(t::ScrollAmount::Page) => -1.0,
                        Some(t::ScrollAmount::ToElement) => 0.0,
                    };
                    (
                        p.page_id,
                        None,
                        Action::Scroll(Scroll::Direction { direction, amount }),
                        opts,
                    )
                }
            }
        }
        m::ACTION_SELECT => {
            let p: t::SelectParams = parse_params(params)?;
            let options = p.values.into_iter().map(SelectOption::Value).collect();
            (
                p.page_id,
                Some(to_spec(&p.selector)?),
                Action::Select { options },
                act_options(p.options)?,
            )
        }
        m::ACTION_UPLOAD => {
            let p: t::UploadParams = parse_params(params)?;
            let dir = std::env::temp_dir()
                .join(format!("pinpoint-upload-{}", uuid::Uuid::new_v4().simple()));
            std::fs::create_dir_all(&dir)?;
            let mut files = Vec::new();
            for (i, f) in p.files.iter().enumerate() {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(f.buffer.as_bytes())
                    .map_err(|e| {
                        Error::invalid_field(
                            format!("files[{i}].buffer"),
                            format!("not base64: {e}"),
                        )
                    })?;
                let name = std::path::Path::new(&f.name)
                    .file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| format!("file{i}"));
                let path = dir.join(name);
                std::fs::write(&path, bytes)?;
                files.push(path);
            }
            (
                p.page_id,
                Some(to_spec(&p.selector)?),
                Action::Upload { files },
                act_options(p.options)?,
            )
        }
        m::ACTION_DRAG => {
            let p: t::DragParams = parse_params(params)?;
            let to = match &p.target {
                t::DragTarget::Selector(s) => DragTo::Target(to_spec(s)?),
                t::DragTarget::Point(pt) => DragTo::Point { x: pt.x, y: pt.y },
            };
            (
                p.page_id,
                Some(to_spec(&p.source)?),
                Action::Drag { to },
                act_options(p.options)?,
            )
        }
        other => {
            return Err(Error::InvalidInput {
                message: format!("unknown action {other}"),
                field: Some("method".into()),
            })
        }
    })
}

/// Capture, then re-encode smaller until the base64 fits one response frame.
/// Returns the shot and, when it had to shrink, what was done.
async fn shot_within_limit(
    s: &Arc<Session>,
    page: &PageState,
    mut opts: ShotOptions,
) -> Result<(crate::app::shot::Shot, Option<String>)> {
    let limit = MAX_RESPONSE_BYTES / 4 * 3 - 512 * 1024;
    let mut shot = s.shot(page, &opts).await?;
    let mut note = None;
    let mut scale = 1.0f64;
    while shot.data.len() > limit {
        if matches!(opts.format, OutputFormat::Png) {
            opts.format = OutputFormat::Jpeg { quality: 80 };
            note = Some("re-encoded as JPEG to stay under 4 MiB".to_string());
        } else {
            scale *= 0.7;
            let w = (shot.original_width as f64 * scale).max(64.0) as u32;
            let h = (shot.original_height as f64 * scale).max(64.0) as u32;
            opts.max_size = Some((w, h));
            note = Some(format!(
                "downscaled to fit {w}x{h} (JPEG) to stay under 4 MiB"
            ));
            if scale < 0.05 {
                return Err(Error::ResourceLimit {
                    resource: "screenshot bytes".into(),
                    limit: limit as u64,
                    current: shot.data.len() as u64,
                });
            }
        }
        shot = s.shot(page, &opts).await?;
    }
    Ok((shot, note))
}

/// `agent/observe`.
pub async fn agent_observe(
    s: &Arc<Session>,
    page: &Arc<PageState>,
    p: &t::AgentObserveParams,
) -> Result<t::AgentObserveResult> {
    let tier = p.response_tier.unwrap_or_default();
    let forced = !matches!(tier, t::ResponseTier::Full);
    let include_a11y = !forced && p.include_accessibility == Some(true);
    let include_shot = !forced && p.include_screenshot == Some(true);
    let include_elements = forced || p.include_interactive_elements != Some(false);
    let include_meta = forced || p.include_metadata != Some(false);
    let style = match &p.annotate_screenshot {
        Some(v) if !forced => Style::from_json(v)?,
        _ => None,
    };
    let annotate = style.is_some();
    let include_bounds = p.include_bounds.unwrap_or(true);
    if let Some(n) = p.max_elements {
        if !(1..=10_000).contains(&n) {
            return Err(Error::invalid_field(
                "maxElements",
                format!("must be 1..10000, got {n}"),
            ));
        }
    }
    let obs_opts = ObserveOptions {
        max_elements: None,
        refresh_refs: p.refresh_refs == Some(true),
        include_ref_history: p.include_ref_history == Some(true),
        positional_refs: p.stable_refs == Some(false),
    };
    let mut out = t::AgentObserveResult::default();
    let (obs, shot): (Observation, Option<crate::app::shot::Shot>) = if include_shot || annotate {
        let opts = ShotOptions {
            marks: annotate,
            style: style.clone().unwrap_or_default(),
            observe: obs_opts,
            ..ShotOptions::default()
        };
        let (shot, _note) = shot_within_limit(s, page, opts).await?;
        (shot.observation.clone(), Some(shot))
    } else {
        (s.observe(page, &obs_opts).await?, None)
    };
    if include_meta {
        out.metadata = Some(t::ObserveMetadata {
            url: obs.url.clone(),
            title: obs.title.clone(),
            viewport: t::Viewport {
                width: obs.viewport.width.round() as u32,
                height: obs.viewport.height.round() as u32,
            },
        });
    }
    let roles: Option<HashSet<&str>> = p
        .filter_roles
        .as_ref()
        .filter(|r| !r.is_empty())
        .map(|r| r.iter().map(String::as_str).collect());
    let max = p.max_elements.map(|n| n as usize).unwrap_or(100);
    let shape = |e: &crate::model::Element| {
        let mut ie = t::InteractiveElement::from_element(e);
        if tier == t::ResponseTier::Minimal {
            ie = ie.minimal();
        } else if !include_bounds {
            ie.bounds = None;
        }
        if p.stable_refs == Some(false) {
            ie.stability = None;
        }
        ie
    };
    if include_elements {
        let list: Vec<t::InteractiveElement> = obs
            .elements
            .iter()
            .filter(|e| {
                roles
                    .as_ref()
                    .is_none_or(|r| r.contains(e.role.as_str()) || r.contains(e.tag.as_str()))
            })
            .take(max)
            .map(shape)
            .collect();
        out.interactive_elements = Some(list);
        out.total_interactive_elements = Some(obs.total as u64);
    }
    if p.incremental == Some(true) {
        if let Some(ch) = &obs.changes {
            let by_ref: HashMap<&str, &crate::model::Element> =
                obs.elements.iter().map(|e| (e.ref_.as_str(), e)).collect();
            let pick = |refs: &[String]| -> Vec<t::InteractiveElement> {
                refs.iter()
                    .filter_map(|r| by_ref.get(r.as_str()).map(|e| shape(e)))
                    .collect()
            };
            out.changes = Some(t::ObserveChanges {
                added: pick(&ch.added),
                updated: pick(&ch.updated),
                removed: ch.removed.clone(),
            });
        }
    }
    if let Some(shot) = shot {
        out.screenshot = Some(t::ObserveScreenshot {
            data: base64::engine::general_purpose::STANDARD.encode(&shot.data),
            format: if shot.format == "jpeg" {
                t::ScreenshotFormat::Jpeg
            } else {
                t::ScreenshotFormat::Png
            },
            width: shot.width,
            height: shot.height,
            annotated: Some(shot.annotated),
        });
        if annotate {
            out.annotation_map = Some(shot.annotation_map);
        }
    }
    if include_a11y {
        let tree = accessibility(page, true, None).await?;
        out.accessibility = Some(t::AccessibilityTree::single(tree));
    }
    Ok(out)
}

/// The page's accessibility tree (main frame), ignored nodes folded into
/// their parents when `interesting_only`.
async fn accessibility(
    page: &PageState,
    interesting_only: bool,
    max_depth: Option<u32>,
) -> Result<t::AccessibilityNode> {
    let nodes = page.page.ax_tree().await?;
    let by_id: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let mut is_child = HashSet::new();
    for n in &nodes {
        for c in &n.child_ids {
            is_child.insert(c.as_str());
        }
    }
    let root = nodes
        .iter()
        .position(|n| !is_child.contains(n.id.as_str()))
        .ok_or_else(|| Error::Internal("empty accessibility tree".into()))?;
    let max_depth = max_depth.unwrap_or(u32::MAX);
    fn flag(n: &crate::app::AxNode, k: &str) -> Option<bool> {
        n.properties.get(k).and_then(|v| match v {
            Value::Bool(b) => Some(*b),
            Value::String(s) => Some(s == "true"),
            _ => None,
        })
    }
    fn build(
        nodes: &[crate::app::AxNode],
        by_id: &HashMap<&str, usize>,
        i: usize,
        depth: u32,
        max_depth: u32,
        interesting: bool,
        out: &mut Vec<t::AccessibilityNode>,
    ) {
        let n = &nodes[i];
        let boring = interesting
            && (n.ignored
                || n.role == "none"
                || n.role == "generic"
                || n.role == "InlineTextBox"
                || (n.role == "StaticText" && n.name.trim().is_empty()));
        let mut kids = Vec::new();
        let next_depth = if boring { depth } else { depth + 1 };
        if next_depth <= max_depth {
            for c in &n.child_ids {
                if let Some(&ci) = by_id.get(c.as_str()) {
                    build(
                        nodes,
                        by_id,
                        ci,
                        next_depth,
                        max_depth,
                        interesting,
                        &mut kids,
                    );
                }
            }
        }
        if boring {
            out.extend(kids);
            return;
        }
        let checked = n.properties.get("checked").and_then(|v| match v.as_str() {
            Some("mixed") => Some(crate::model::Checked::Mixed(crate::model::MixedTag::Mixed)),
            Some("true") => Some(crate::model::Checked::Bool(true)),
            Some("false") => Some(crate::model::Checked::Bool(false)),
            _ => v.as_bool().map(crate::model::Checked::Bool),
        });
        out.push(t::AccessibilityNode {
            role: n.role.clone(),
            name: Some(n.name.clone()).filter(|s| !s.is_empty()),
            value: n.value.clone(),
            description: n.description.clone(),
            checked,
            disabled: flag(n, "disabled"),
            expanded: flag(n, "expanded"),
            focused: flag(n, "focused"),
            selected: flag(n, "selected"),
            required: flag(n, "required"),
            level: n
                .properties
                .get("level")
                .and_then(Value::as_u64)
                .map(|l| l as u32),
            bounding_box: None,
            children: kids,
        });
    }
    let mut out = Vec::new();
    build(&nodes, &by_id, root, 0, max_depth, false, &mut Vec::new());
    build(
        &nodes,
        &by_id,
        root,
        0,
        max_depth,
        interesting_only,
        &mut out,
    );
    Ok(match out.len() {
        1 => out.remove(0),
        _ => t::AccessibilityNode {
            role: "RootWebArea".into(),
            children: out,
            ..Default::default()
        },
    })
}

/// `agent/extract`: failures are results (`success:false`), not errors.
async fn extract(
    s: &Arc<Session>,
    page: &Arc<PageState>,
    p: &t::AgentExtractParams,
) -> t::AgentExtractResult {
    let fail = |e: String| t::AgentExtractResult {
        success: false,
        data: None,
        sources: None,
        confidence: Some(0.0),
        error: Some(e),
    };
    let schema = p
        .schema
        .clone()
        .unwrap_or_else(|| json!({"type": "string"}));
    if !schema.is_object() {
        return fail("schema must be an object".into());
    }
    let mode = match p.mode.unwrap_or_default() {
        t::ExtractMode::Single => ExtractMode::Single,
        t::ExtractMode::List => ExtractMode::List,
        t::ExtractMode::Table => ExtractMode::Table,
    };
    let scope = match p.selector.as_ref().map(to_spec).transpose() {
        Ok(s) => s,
        Err(e) => return fail(e.to_string()),
    };
    let fut = s.extract(page, scope.as_ref(), &schema, mode);
    let limit = Duration::from_millis(p.timeout.unwrap_or(30_000).clamp(100, 300_000));
    let r = match tokio::time::timeout(limit, fut).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return fail(e.to_string()),
        Err(_) => {
            return fail(format!(
                "extraction timed out after {} ms",
                limit.as_millis()
            ))
        }
    };
    let ratio = r.found as f64 / r.total as f64;
    let list = matches!(mode, ExtractMode::List | ExtractMode::Table)
        || schema.get("type").and_then(Value::as_str) == Some("array");
    let confidence = if list {
        if r.found > 0 {
            0.8
        } else {
            0.3
        }
    } else if schema.get("type").and_then(Value::as_str) == Some("object") {
        0.2 + 0.6 * ratio
    } else {
        0.5
    };
    let sources = (p.include_source_refs == Some(true)).then(|| {
        r.sources
            .iter()
            .enumerate()
            .map(|(i, (sel, text))| t::ExtractionSource {
                ref_: format!("@s{}", i + 1),
                selector: BapSelector::Css { value: sel.clone() },
                text: text.clone(),
            })
            .collect()
    });
    t::AgentExtractResult {
        success: r.found > 0,
        data: Some(r.data),
        sources,
        confidence: Some((confidence * 100.0).round() / 100.0),
        error: (r.found == 0).then(|| {
            format!(
                "nothing matching the schema was found for: {}",
                p.instruction
            )
        }),
    }
}

fn redact_headers(h: &Map<String, Value>) -> BTreeMap<String, String> {
    const SECRET: &[&str] = &[
        "authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "proxy-authorization",
        "x-auth-token",
        "x-csrf-token",
    ];
    h.iter()
        .map(|(k, v)| {
            let key = k.to_ascii_lowercase();
            let val = if SECRET.contains(&key.as_str()) {
                "[REDACTED]".to_string()
            } else {
                v.as_str().map_or_else(|| v.to_string(), str::to_string)
            };
            (k.clone(), val)
        })
        .collect()
}

fn cookie_from_cdp(v: Value) -> Option<t::Cookie> {
    let mut o = v.as_object()?.clone();
    // CDP `expires` is -1 for session cookies; BAP omits it.
    if o.get("expires")
        .and_then(Value::as_f64)
        .is_some_and(|e| e < 0.0)
    {
        o.remove("expires");
    }
    o.retain(|k, _| {
        matches!(
            k.as_str(),
            "name" | "value" | "domain" | "path" | "expires" | "httpOnly" | "secure" | "sameSite"
        )
    });
    serde_json::from_value(Value::Object(o)).ok()
}

fn cookie_to_cdp(c: &t::Cookie, page_url: &str) -> Result<Value> {
    let mut v = serde_json::to_value(c)?;
    if let Some(o) = v.as_object_mut() {
        let has_domain = o
            .get("domain")
            .and_then(Value::as_str)
            .is_some_and(|d| !d.is_empty());
        if !has_domain {
            o.remove("domain");
            if !page_url.starts_with("http") {
                return Err(Error::invalid_field(
                    "cookies",
                    "a cookie without a domain needs a page on an http(s) URL",
                ));
            }
            o.insert("url".into(), json!(page_url));
        }
    }
    Ok(v)
}

fn cap_text(s: String) -> String {
    let limit = MAX_RESPONSE_BYTES - 64 * 1024;
    if s.len() <= limit {
        return s;
    }
    let mut end = limit;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[truncated: {} of {} bytes]", &s[..end], end, s.len())
}
