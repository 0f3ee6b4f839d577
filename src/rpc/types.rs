//! BAP params and result types (BAP-WIRE §2–§7, §9), plus [`parse_params`].
//!
//! Wire rules applied to every type here (BAP-WIRE §0):
//! - params: `null` is the same as a missing field, unknown fields are ignored,
//!   integer fields accept floats (`100.0`, rounded), `pageId: null` means the active page;
//! - results: absent optional fields are omitted (never `null`), integer fields
//!   (`width`, `height`, `status`, `duration`, `step`, `completed`, `total`,
//!   `timestamp`) are Rust integers so they serialise as JSON integers, and the
//!   superset shapes of §6.3 are produced (`browser/launch` has `browser`,
//!   `observe/content` has `format`, `observe/element` has `properties`,
//!   `observe/accessibility` returns `tree` as a one-element list).
//!
//! This module does no I/O and imports only `model` and `error` from the crate.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::envelope::RpcError;
use super::lenient;
use crate::error::Error;
use crate::model::{self, AnnotationMapping, Checked, Stability};

/// The version we answer `initialize` with: plain `0.MINOR.PATCH` (BAP-WIRE §0 rule 1).
pub const PROTOCOL_VERSION: &str = "0.8.0";

// ---------------------------------------------------------------------------
// parse_params
// ---------------------------------------------------------------------------

/// Deserialise a request's `params` into `T`.
///
/// Absent or `null` params are read as `{}` (so all-optional param types succeed);
/// non-object params are rejected. A serde failure becomes
/// `Error::InvalidInput { field: Some(path) }` where `path` names the failing field
/// (`selector.type`, `steps[1].action`, `url`).
pub fn parse_params<T: DeserializeOwned>(params: Option<Value>) -> Result<T, Error> {
    let value = match params {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(v @ Value::Object(_)) => v,
        Some(_) => {
            return Err(Error::invalid_field(
                "params",
                "params must be a JSON object",
            ))
        }
    };
    serde_path_to_error::deserialize::<_, T>(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = inner.to_string();
        let field = field_path(&path, &message);
        Error::InvalidInput {
            message: format!("{field}: {message}"),
            field: Some(field),
        }
    })
}

/// Join the serde path with the missing field's name when serde reports one
/// (`missing field `url`` is reported at the parent's path).
fn field_path(path: &str, message: &str) -> String {
    let base = if path == "." { "" } else { path };
    let missing = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next());
    match (base, missing) {
        ("", Some(m)) => m.to_owned(),
        (b, Some(m)) => format!("{b}.{m}"),
        ("", None) => "params".to_owned(),
        (b, None) => b.to_owned(),
    }
}

fn is_none_or_null(v: &Option<Value>) -> bool {
    matches!(v, None | Some(Value::Null))
}

// ---------------------------------------------------------------------------
// Method names
// ---------------------------------------------------------------------------

/// Every BAP method name this module has types for.
pub mod methods {
    pub const INITIALIZE: &str = "initialize";
    pub const NOTIFICATIONS_INITIALIZED: &str = "notifications/initialized";
    pub const EVENTS_SUBSCRIBE: &str = "events/subscribe";
    pub const SHUTDOWN: &str = "shutdown";
    pub const BROWSER_LAUNCH: &str = "browser/launch";
    pub const BROWSER_CLOSE: &str = "browser/close";
    pub const PAGE_CREATE: &str = "page/create";
    pub const PAGE_NAVIGATE: &str = "page/navigate";
    pub const PAGE_RELOAD: &str = "page/reload";
    pub const PAGE_GO_BACK: &str = "page/goBack";
    pub const PAGE_GO_FORWARD: &str = "page/goForward";
    pub const PAGE_CLOSE: &str = "page/close";
    pub const PAGE_LIST: &str = "page/list";
    pub const PAGE_ACTIVATE: &str = "page/activate";
    pub const ACTION_CLICK: &str = "action/click";
    pub const ACTION_DBLCLICK: &str = "action/dblclick";
    pub const ACTION_TYPE: &str = "action/type";
    pub const ACTION_FILL: &str = "action/fill";
    pub const ACTION_CLEAR: &str = "action/clear";
    pub const ACTION_PRESS: &str = "action/press";
    pub const ACTION_HOVER: &str = "action/hover";
    pub const ACTION_SCROLL: &str = "action/scroll";
    pub const ACTION_SELECT: &str = "action/select";
    pub const ACTION_CHECK: &str = "action/check";
    pub const ACTION_UNCHECK: &str = "action/uncheck";
    pub const ACTION_UPLOAD: &str = "action/upload";
    pub const ACTION_DRAG: &str = "action/drag";
    pub const OBSERVE_SCREENSHOT: &str = "observe/screenshot";
    pub const OBSERVE_ACCESSIBILITY: &str = "observe/accessibility";
    pub const OBSERVE_ELEMENT: &str = "observe/element";
    pub const OBSERVE_CONTENT: &str = "observe/content";
    pub const AGENT_OBSERVE: &str = "agent/observe";
    pub const AGENT_ACT: &str = "agent/act";
    pub const AGENT_EXTRACT: &str = "agent/extract";
    pub const EMULATE_SET_VIEWPORT: &str = "emulate/setViewport";
    pub const CONTEXT_CREATE: &str = "context/create";
    pub const CONTEXT_LIST: &str = "context/list";
    pub const CONTEXT_DESTROY: &str = "context/destroy";
    pub const FRAME_LIST: &str = "frame/list";
    pub const FRAME_SWITCH: &str = "frame/switch";
    pub const FRAME_MAIN: &str = "frame/main";
    pub const DIALOG_HANDLE: &str = "dialog/handle";
    pub const STORAGE_GET_STATE: &str = "storage/getState";
    pub const STORAGE_SET_STATE: &str = "storage/setState";
    pub const STORAGE_GET_COOKIES: &str = "storage/getCookies";
    pub const STORAGE_SET_COOKIES: &str = "storage/setCookies";
    pub const STORAGE_CLEAR_COOKIES: &str = "storage/clearCookies";

    /// Request methods (everything above except the client notification).
    pub const ALL: &[&str] = &[
        INITIALIZE,
        EVENTS_SUBSCRIBE,
        SHUTDOWN,
        BROWSER_LAUNCH,
        BROWSER_CLOSE,
        PAGE_CREATE,
        PAGE_NAVIGATE,
        PAGE_RELOAD,
        PAGE_GO_BACK,
        PAGE_GO_FORWARD,
        PAGE_CLOSE,
        PAGE_LIST,
        PAGE_ACTIVATE,
        ACTION_CLICK,
        ACTION_DBLCLICK,
        ACTION_TYPE,
        ACTION_FILL,
        ACTION_CLEAR,
        ACTION_PRESS,
        ACTION_HOVER,
        ACTION_SCROLL,
        ACTION_SELECT,
        ACTION_CHECK,
        ACTION_UNCHECK,
        ACTION_UPLOAD,
        ACTION_DRAG,
        OBSERVE_SCREENSHOT,
        OBSERVE_ACCESSIBILITY,
        OBSERVE_ELEMENT,
        OBSERVE_CONTENT,
        AGENT_OBSERVE,
        AGENT_ACT,
        AGENT_EXTRACT,
        EMULATE_SET_VIEWPORT,
        CONTEXT_CREATE,
        CONTEXT_LIST,
        CONTEXT_DESTROY,
        FRAME_LIST,
        FRAME_SWITCH,
        FRAME_MAIN,
        DIALOG_HANDLE,
        STORAGE_GET_STATE,
        STORAGE_SET_STATE,
        STORAGE_GET_COOKIES,
        STORAGE_SET_COOKIES,
        STORAGE_CLEAR_COOKIES,
    ];

    /// The steps `agent/act` may run (BAP-WIRE §7.1 `ALLOWED_ACT_ACTIONS`).
    pub const ALLOWED_ACT_ACTIONS: &[&str] = &[
        ACTION_CLICK,
        ACTION_DBLCLICK,
        ACTION_FILL,
        ACTION_TYPE,
        ACTION_PRESS,
        ACTION_HOVER,
        ACTION_SCROLL,
        ACTION_SELECT,
        ACTION_CHECK,
        ACTION_UNCHECK,
        ACTION_CLEAR,
        ACTION_UPLOAD,
        ACTION_DRAG,
        PAGE_NAVIGATE,
        PAGE_RELOAD,
        PAGE_GO_BACK,
        PAGE_GO_FORWARD,
    ];
}

// ---------------------------------------------------------------------------
// Common types (§3)
// ---------------------------------------------------------------------------

/// `{x, y, width, height}` in CSS px (numbers, may be fractional).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct BoundingBox {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl From<model::Rect> for BoundingBox {
    fn from(r: model::Rect) -> Self {
        BoundingBox {
            x: r.x,
            y: r.y,
            width: r.width,
            height: r.height,
        }
    }
}

impl From<BoundingBox> for model::Rect {
    fn from(b: BoundingBox) -> Self {
        model::Rect::new(b.x, b.y, b.width, b.height)
    }
}

/// `{x, y}` (numbers).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Position {
    pub x: f64,
    pub y: f64,
}

/// `{width:int, height:int}`; accepts `1280.0` on input, always writes integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Viewport {
    #[serde(deserialize_with = "lenient::u32_")]
    pub width: u32,
    #[serde(deserialize_with = "lenient::u32_")]
    pub height: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PageStatus {
    Loading,
    Ready,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WaitUntil {
    #[default]
    Load,
    #[serde(rename = "domcontentloaded")]
    DomContentLoaded,
    #[serde(rename = "networkidle")]
    NetworkIdle,
    Commit,
}

/// A browser page (tab): the `page/create` result and `page/list` entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page {
    pub id: String,
    pub url: String,
    pub title: String,
    pub viewport: Viewport,
    pub status: PageStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum KeyModifier {
    Alt,
    Control,
    Meta,
    Shift,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    #[default]
    Left,
    Right,
    Middle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScrollDirection {
    Up,
    Down,
    Left,
    Right,
}

/// `number | "page" | "toElement"`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScrollAmount {
    Pixels(f64),
    Page,
    ToElement,
}

impl Serialize for ScrollAmount {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ScrollAmount::Pixels(p) => s.serialize_f64(*p),
            ScrollAmount::Page => s.serialize_str("page"),
            ScrollAmount::ToElement => s.serialize_str("toElement"),
        }
    }
}

impl<'de> Deserialize<'de> for ScrollAmount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        match Value::deserialize(d)? {
            Value::Number(n) => n
                .as_f64()
                .filter(|f| f.is_finite())
                .map(ScrollAmount::Pixels)
                .ok_or_else(|| D::Error::custom("expected a finite number")),
            Value::String(s) if s == "page" => Ok(ScrollAmount::Page),
            Value::String(s) if s == "toElement" => Ok(ScrollAmount::ToElement),
            other => Err(D::Error::custom(format!(
                "expected a number, \"page\" or \"toElement\", got {other}"
            ))),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScreenshotFormat {
    #[default]
    Png,
    Jpeg,
    Webp,
}

/// `observe/content` format. Unknown values read as `text` (REF falls back to text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ContentFormat {
    Html,
    #[default]
    Text,
    Markdown,
}

impl<'de> Deserialize<'de> for ContentFormat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::String(s) if s == "html" => ContentFormat::Html,
            Value::String(s) if s == "markdown" => ContentFormat::Markdown,
            _ => ContentFormat::Text,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SameSite {
    Strict,
    Lax,
    None,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cookie {
    pub name: String,
    pub value: String,
    #[serde(default)]
    pub domain: String,
    #[serde(default)]
    pub path: String,
    /// Unix seconds (may be fractional; `-1` = session cookie).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_only: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secure: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_site: Option<SameSite>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageItem {
    pub name: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OriginStorage {
    pub origin: String,
    #[serde(default, deserialize_with = "lenient::null_default")]
    pub local_storage: Vec<StorageItem>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_storage: Option<Vec<StorageItem>>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StorageState {
    #[serde(default, deserialize_with = "lenient::null_default")]
    pub cookies: Vec<Cookie>,
    #[serde(default, deserialize_with = "lenient::null_default")]
    pub origins: Vec<OriginStorage>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Geolocation {
    pub latitude: f64,
    pub longitude: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<f64>,
}

// ---------------------------------------------------------------------------
// Selectors (§4)
// ---------------------------------------------------------------------------

/// A BAP selector, discriminated by `type` (10 variants).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum BapSelector {
    Css {
        value: String,
    },
    Xpath {
        value: String,
    },
    Role {
        role: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exact: Option<bool>,
    },
    Text {
        value: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exact: Option<bool>,
    },
    Label {
        value: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exact: Option<bool>,
    },
    Placeholder {
        value: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exact: Option<bool>,
    },
    /// `{"type":"testId","value":…}` (the `data-testid` attribute).
    TestId {
        value: String,
    },
    Semantic {
        description: String,
    },
    Coordinates {
        x: f64,
        y: f64,
    },
    /// `{"type":"ref","ref":"@e1"}`. `e1` (no `@`, as the bap CLI sends) is
    /// normalised to `@e1` on input, so lookups always see the `@` form.
    Ref {
        #[serde(rename = "ref", deserialize_with = "de_ref")]
        ref_: String,
    },
}

/// The spec's spelling of the type name.
pub type BAPSelector = BapSelector;

fn de_ref<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    use serde::de::Error as _;
    let s = String::deserialize(d)?;
    normalize_ref(&s).ok_or_else(|| D::Error::custom("ref must not be empty"))
}

/// `"e12"` → `"@e12"`, `" @e12 "` → `"@e12"`, `""`/`"@"` → `None`.
pub fn normalize_ref(s: &str) -> Option<String> {
    let t = s.trim();
    let bare = t.strip_prefix('@').unwrap_or(t);
    (!bare.is_empty()).then(|| format!("@{bare}"))
}

impl BapSelector {
    /// The ref of a `ref` selector (always with its `@`).
    pub fn as_ref_str(&self) -> Option<&str> {
        match self {
            BapSelector::Ref { ref_ } => Some(ref_),
            _ => None,
        }
    }

    /// The point of a `coordinates` selector.
    pub fn as_point(&self) -> Option<Position> {
        match self {
            BapSelector::Coordinates { x, y } => Some(Position { x: *x, y: *y }),
            _ => None,
        }
    }

    /// The wire `type` name.
    pub fn kind(&self) -> &'static str {
        match self {
            BapSelector::Css { .. } => "css",
            BapSelector::Xpath { .. } => "xpath",
            BapSelector::Role { .. } => "role",
            BapSelector::Text { .. } => "text",
            BapSelector::Label { .. } => "label",
            BapSelector::Placeholder { .. } => "placeholder",
            BapSelector::TestId { .. } => "testId",
            BapSelector::Semantic { .. } => "semantic",
            BapSelector::Coordinates { .. } => "coordinates",
            BapSelector::Ref { .. } => "ref",
        }
    }

    /// A short human-readable form for error messages (`css=#login`, `@e1`).
    pub fn describe(&self) -> String {
        match self {
            BapSelector::Css { value } => format!("css={value}"),
            BapSelector::Xpath { value } => format!("xpath={value}"),
            BapSelector::Role { role, name, .. } => match name {
                Some(n) => format!("role={role}[name=\"{n}\"]"),
                None => format!("role={role}"),
            },
            BapSelector::Text { value, .. } => format!("text=\"{value}\""),
            BapSelector::Label { value, .. } => format!("label=\"{value}\""),
            BapSelector::Placeholder { value, .. } => format!("placeholder=\"{value}\""),
            BapSelector::TestId { value } => format!("testId={value}"),
            BapSelector::Semantic { description } => format!("semantic=\"{description}\""),
            BapSelector::Coordinates { x, y } => format!("({x}, {y})"),
            BapSelector::Ref { ref_ } => ref_.clone(),
        }
    }
}

/// `action/drag` target: a selector (it has a `type` key) or a point `{x, y}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum DragTarget {
    Selector(BapSelector),
    Point(Position),
}

impl<'de> Deserialize<'de> for DragTarget {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let v = Value::deserialize(d)?;
        let has_type = v.get("type").is_some_and(|t| !t.is_null());
        if has_type {
            serde_json::from_value(v)
                .map(DragTarget::Selector)
                .map_err(|e| D::Error::custom(format!("invalid selector: {e}")))
        } else {
            serde_json::from_value(v)
                .map(DragTarget::Point)
                .map_err(|e| D::Error::custom(format!("expected a selector or {{x, y}}: {e}")))
        }
    }
}

// ---------------------------------------------------------------------------
// Lifecycle (§2)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClientInfo {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClientCapabilities {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observations: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<bool>,
}

/// `initialize` params. The client's `protocolVersion` is recorded, never checked
/// (BAP-WIRE §0 rule 2).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    #[serde(default)]
    pub protocol_version: Option<String>,
    #[serde(default)]
    pub client_info: Option<ClientInfo>,
    #[serde(default)]
    pub capabilities: Option<ClientCapabilities>,
    #[serde(default)]
    pub session_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerFeatures {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_wait: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracing: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_state: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_interception: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semantic_selectors: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_page: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerLimits {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_pages: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_timeout: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_screenshot_size: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ServerCapabilities {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browsers: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observations: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub features: Option<ServerFeatures>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<ServerLimits>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<bool>,
}

fn strings(v: &[&str]) -> Option<Vec<String>> {
    Some(v.iter().map(|s| (*s).to_owned()).collect())
}

impl ServerCapabilities {
    /// What Pinpoint's BAP server supports (callers may adjust fields).
    pub fn pinpoint() -> Self {
        ServerCapabilities {
            browsers: strings(&["chromium"]),
            events: strings(&["page", "console", "network", "dialog", "download"]),
            observations: strings(&["screenshot", "accessibility", "element", "content"]),
            actions: strings(&[
                "click", "dblclick", "type", "fill", "clear", "press", "hover", "scroll", "select",
                "check", "uncheck", "upload", "drag",
            ]),
            features: Some(ServerFeatures {
                auto_wait: Some(true),
                tracing: Some(false),
                storage_state: Some(true),
                network_interception: Some(false),
                semantic_selectors: Some(false),
                multi_page: Some(true),
            }),
            limits: Some(ServerLimits {
                max_pages: Some(100),
                max_timeout: Some(300_000),
                max_screenshot_size: Some(4 * 1024 * 1024),
            }),
            streaming: Some(false),
            compression: Some(false),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    pub protocol_version: String,
    pub server_info: ServerInfo,
    pub capabilities: ServerCapabilities,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

impl InitializeResult {
    /// `protocolVersion` [`PROTOCOL_VERSION`], server `pinpoint` + crate version,
    /// [`ServerCapabilities::pinpoint`], and the echoed `sessionId`.
    pub fn pinpoint(session_id: Option<String>) -> Self {
        InitializeResult {
            protocol_version: PROTOCOL_VERSION.to_owned(),
            server_info: ServerInfo {
                name: "pinpoint".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            capabilities: ServerCapabilities::pinpoint(),
            session_id,
        }
    }
}

/// `events/subscribe` params; each call adds to the subscribed set. Result: `null`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EventsSubscribeParams {
    #[serde(default, deserialize_with = "lenient::null_default")]
    pub events: Vec<String>,
}

/// `shutdown` params. Result: `null`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShutdownParams {
    #[serde(default)]
    pub save_state: Option<bool>,
    #[serde(default)]
    pub close_pages: Option<bool>,
}

// ---------------------------------------------------------------------------
// Browser and pages (§5.1)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProxyConfig {
    pub server: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

/// `browser/launch` params (TS fields plus the extras PY's model lists).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserLaunchParams {
    /// `"chromium" | "firefox" | "webkit"`; only chromium is supported.
    #[serde(default)]
    pub browser: Option<String>,
    #[serde(default)]
    pub channel: Option<String>,
    #[serde(default)]
    pub headless: Option<bool>,
    #[serde(default)]
    pub args: Option<Vec<String>>,
    #[serde(default)]
    pub proxy: Option<ProxyConfig>,
    #[serde(default)]
    pub downloads_path: Option<String>,
    #[serde(default)]
    pub user_data_dir: Option<String>,
    #[serde(default)]
    pub cdp_url: Option<String>,
    #[serde(default)]
    pub viewport: Option<Viewport>,
    #[serde(default)]
    pub user_agent: Option<String>,
    #[serde(default)]
    pub locale: Option<String>,
    #[serde(default)]
    pub timezone_id: Option<String>,
    #[serde(default)]
    pub env: Option<BTreeMap<String, String>>,
}

/// `browser/launch` result: TS shape plus `browser` (required by PY).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserLaunchResult {
    pub browser_id: String,
    pub browser: String,
    pub version: String,
    pub default_context: String,
}

/// `browser/close` params (`{"browserId": null}` is valid). Result: `null`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowserCloseParams {
    #[serde(default)]
    pub browser_id: Option<String>,
}

/// `page/create` params. Result: [`Page`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageCreateParams {
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub viewport: Option<Viewport>,
    #[serde(default)]
    pub user_agent: Option<String>,
    #[serde(default)]
    pub locale: Option<String>,
    #[serde(default)]
    pub timezone: Option<String>,
    #[serde(default)]
    pub geolocation: Option<Geolocation>,
    #[serde(default)]
    pub permissions: Option<Vec<String>>,
    #[serde(default)]
    pub offline: Option<bool>,
    #[serde(default)]
    pub storage_state: Option<StorageState>,
    #[serde(default)]
    pub context_id: Option<String>,
}

/// `page/navigate` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageNavigateParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub url: String,
    #[serde(default)]
    pub wait_until: Option<WaitUntil>,
    /// Milliseconds.
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub timeout: Option<u64>,
    #[serde(default)]
    pub referer: Option<String>,
    /// Fused `agent/observe` after the load (TS only).
    #[serde(default)]
    pub observe: Option<AgentObserveParams>,
}

/// `page/navigate` result. `status` is `0` when there was no response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageNavigateResult {
    pub url: String,
    pub status: u16,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observation: Option<AgentObserveResult>,
}

/// `page/reload`, `page/goBack`, `page/goForward` params. Result: `null`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageHistoryParams {
    #[serde(default)]
    pub page_id: Option<String>,
    #[serde(default)]
    pub wait_until: Option<WaitUntil>,
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub timeout: Option<u64>,
}

/// `page/close` params (`pageId` required, as in the spec). Result: `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageCloseParams {
    pub page_id: String,
    #[serde(default)]
    pub run_before_unload: Option<bool>,
}

/// `page/list` result; `activePage` is `""` when there is none.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageListResult {
    pub pages: Vec<Page>,
    pub active_page: String,
}

/// `page/activate` params. Result: `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageActivateParams {
    pub page_id: String,
}

/// Params that carry only an optional `pageId` (`page/list` ignores it;
/// `storage/getState`, `frame/list`, `frame/main`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageIdParams {
    #[serde(default)]
    pub page_id: Option<String>,
}

/// `emulate/setViewport` params. Result: `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetViewportParams {
    #[serde(default)]
    pub page_id: Option<String>,
    #[serde(deserialize_with = "lenient::u32_")]
    pub width: u32,
    #[serde(deserialize_with = "lenient::u32_")]
    pub height: u32,
    #[serde(default)]
    pub device_scale_factor: Option<f64>,
    #[serde(default)]
    pub is_mobile: Option<bool>,
    #[serde(default)]
    pub has_touch: Option<bool>,
}

// ---------------------------------------------------------------------------
// Actions (§5.2) — every result is `null`
// ---------------------------------------------------------------------------

/// Options every action accepts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionOptions {
    /// Milliseconds (REF default 30000).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub timeout: Option<u64>,
    #[serde(default)]
    pub force: Option<bool>,
    #[serde(default)]
    pub no_wait_after: Option<bool>,
    #[serde(default)]
    pub trial: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClickOptions {
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub timeout: Option<u64>,
    #[serde(default)]
    pub force: Option<bool>,
    #[serde(default)]
    pub no_wait_after: Option<bool>,
    #[serde(default)]
    pub trial: Option<bool>,
    #[serde(default)]
    pub button: Option<MouseButton>,
    #[serde(default, deserialize_with = "lenient::opt_u32")]
    pub click_count: Option<u32>,
    #[serde(default)]
    pub modifiers: Option<Vec<KeyModifier>>,
    /// Offset from the element's top-left corner.
    #[serde(default)]
    pub position: Option<Position>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TypeOptions {
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub timeout: Option<u64>,
    #[serde(default)]
    pub force: Option<bool>,
    #[serde(default)]
    pub no_wait_after: Option<bool>,
    #[serde(default)]
    pub trial: Option<bool>,
    /// Milliseconds between keys.
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub delay: Option<u64>,
    #[serde(default)]
    pub clear: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HoverOptions {
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub timeout: Option<u64>,
    #[serde(default)]
    pub force: Option<bool>,
    #[serde(default)]
    pub no_wait_after: Option<bool>,
    #[serde(default)]
    pub trial: Option<bool>,
    #[serde(default)]
    pub position: Option<Position>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScrollOptions {
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub timeout: Option<u64>,
    #[serde(default)]
    pub force: Option<bool>,
    #[serde(default)]
    pub no_wait_after: Option<bool>,
    #[serde(default)]
    pub trial: Option<bool>,
    /// Default `down`.
    #[serde(default)]
    pub direction: Option<ScrollDirection>,
    /// Default 300 px.
    #[serde(default)]
    pub amount: Option<ScrollAmount>,
}

macro_rules! base_options {
    ($($t:ty),*) => {$(
        impl $t {
            /// The options every action shares.
            pub fn base(&self) -> ActionOptions {
                ActionOptions {
                    timeout: self.timeout,
                    force: self.force,
                    no_wait_after: self.no_wait_after,
                    trial: self.trial,
                }
            }
        }
    )*};
}
base_options!(ClickOptions, TypeOptions, HoverOptions, ScrollOptions);

/// `action/click` and `action/dblclick` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClickParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub selector: BapSelector,
    #[serde(default)]
    pub options: Option<ClickOptions>,
}

/// `action/type` params (appends; `options.clear` empties the field first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TypeParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub selector: BapSelector,
    pub text: String,
    #[serde(default)]
    pub options: Option<TypeOptions>,
}

/// `action/fill` params (replaces the whole value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FillParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub selector: BapSelector,
    pub value: String,
    #[serde(default)]
    pub options: Option<ActionOptions>,
}

/// `action/clear`, `action/check`, `action/uncheck` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectorParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub selector: BapSelector,
    #[serde(default)]
    pub options: Option<ActionOptions>,
}

/// `action/press` params; without a selector the key goes to the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PressParams {
    #[serde(default)]
    pub page_id: Option<String>,
    /// Playwright key names: `Enter`, `Control+a`.
    pub key: String,
    #[serde(default)]
    pub selector: Option<BapSelector>,
    #[serde(default)]
    pub options: Option<ActionOptions>,
}

/// `action/hover` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HoverParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub selector: BapSelector,
    #[serde(default)]
    pub options: Option<HoverOptions>,
}

/// `action/scroll` params; with a selector the element is scrolled into view.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScrollParams {
    #[serde(default)]
    pub page_id: Option<String>,
    #[serde(default)]
    pub selector: Option<BapSelector>,
    #[serde(default)]
    pub options: Option<ScrollOptions>,
}

/// `action/select` params; `values` may be one string or a list (values or labels).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub selector: BapSelector,
    #[serde(deserialize_with = "lenient::one_or_many")]
    pub values: Vec<String>,
    #[serde(default)]
    pub options: Option<ActionOptions>,
}

/// One file of `action/upload`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilePayload {
    pub name: String,
    #[serde(default)]
    pub mime_type: String,
    /// Base64 contents.
    pub buffer: String,
}

/// `action/upload` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UploadParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub selector: BapSelector,
    pub files: Vec<FilePayload>,
    #[serde(default)]
    pub options: Option<ActionOptions>,
}

/// `action/drag` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DragParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub source: BapSelector,
    pub target: DragTarget,
    #[serde(default)]
    pub options: Option<ActionOptions>,
}

// ---------------------------------------------------------------------------
// Observation (§5.3)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreenshotOptions {
    #[serde(default)]
    pub full_page: Option<bool>,
    #[serde(default)]
    pub clip: Option<BoundingBox>,
    #[serde(default)]
    pub format: Option<ScreenshotFormat>,
    /// 0..100 (jpeg/webp).
    #[serde(default, deserialize_with = "lenient::opt_u32")]
    pub quality: Option<u32>,
    /// `"css" | "device"`.
    #[serde(default)]
    pub scale: Option<String>,
    #[serde(default)]
    pub mask: Option<Vec<BapSelector>>,
}

/// `observe/screenshot` params.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreenshotParams {
    #[serde(default)]
    pub page_id: Option<String>,
    #[serde(default)]
    pub options: Option<ScreenshotOptions>,
}

/// `observe/screenshot` result (width/height in image pixels, integers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScreenshotResult {
    /// Base64.
    pub data: String,
    pub format: ScreenshotFormat,
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessibilityOptions {
    #[serde(default)]
    pub root: Option<BapSelector>,
    #[serde(default, deserialize_with = "lenient::opt_u32")]
    pub max_depth: Option<u32>,
    #[serde(default)]
    pub include_hidden: Option<bool>,
    #[serde(default)]
    pub interesting_only: Option<bool>,
}

/// `observe/accessibility` params.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessibilityParams {
    #[serde(default)]
    pub page_id: Option<String>,
    #[serde(default)]
    pub options: Option<AccessibilityOptions>,
}

/// A node of the accessibility tree.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessibilityNode {
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<Checked>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expanded: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focused: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounding_box: Option<BoundingBox>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<AccessibilityNode>,
}

/// `observe/accessibility` result and `agent/observe` `accessibility`.
///
/// Conflict resolved (BAP-WIRE §6.3): `tree` is a **list** holding the root node,
/// which PY's pydantic model requires; TS does not validate results, so TS code
/// must read `tree[0]`. [`AccessibilityTree::single`] builds it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AccessibilityTree {
    pub tree: Vec<AccessibilityNode>,
}

impl AccessibilityTree {
    pub fn single(root: AccessibilityNode) -> Self {
        AccessibilityTree { tree: vec![root] }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ElementProperty {
    Visible,
    Enabled,
    Checked,
    Text,
    Value,
    BoundingBox,
    Attributes,
    ComputedStyle,
}

/// `observe/element` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub selector: BapSelector,
    #[serde(default, deserialize_with = "lenient::null_default")]
    pub properties: Vec<ElementProperty>,
}

/// `observe/element` result. Serialises the flat TS fields **and** the same keys
/// again under `properties` (PY requires `properties`). `{found:false}` when no match.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElementResult {
    pub found: bool,
    #[serde(default)]
    pub visible: Option<bool>,
    #[serde(default)]
    pub enabled: Option<bool>,
    #[serde(default)]
    pub checked: Option<bool>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub bounding_box: Option<BoundingBox>,
    #[serde(default)]
    pub attributes: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub computed_style: Option<BTreeMap<String, String>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ElementProps<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    visible: &'a Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    enabled: &'a Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checked: &'a Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bounding_box: &'a Option<BoundingBox>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attributes: &'a Option<BTreeMap<String, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    computed_style: &'a Option<BTreeMap<String, String>>,
}

impl Serialize for ElementResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Out<'a> {
            found: bool,
            #[serde(flatten)]
            flat: &'a ElementProps<'a>,
            properties: &'a ElementProps<'a>,
        }
        let props = ElementProps {
            visible: &self.visible,
            enabled: &self.enabled,
            checked: &self.checked,
            text: &self.text,
            value: &self.value,
            bounding_box: &self.bounding_box,
            attributes: &self.attributes,
            computed_style: &self.computed_style,
        };
        Out {
            found: self.found,
            flat: &props,
            properties: &props,
        }
        .serialize(s)
    }
}

/// `observe/content` params (`format` defaults to `text`; unknown → `text`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentParams {
    #[serde(default)]
    pub page_id: Option<String>,
    #[serde(default)]
    pub format: Option<ContentFormat>,
}

/// `observe/content` result: TS shape plus `format` (required by PY).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContentResult {
    pub content: String,
    pub url: String,
    pub title: String,
    pub format: ContentFormat,
}

// ---------------------------------------------------------------------------
// agent/observe (§6)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResponseTier {
    #[default]
    Full,
    Interactive,
    Minimal,
}

/// `agent/observe` params (also the fused `observe`, `preObserve`, `postObserve`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentObserveParams {
    #[serde(default)]
    pub page_id: Option<String>,
    #[serde(default)]
    pub include_accessibility: Option<bool>,
    #[serde(default)]
    pub include_screenshot: Option<bool>,
    #[serde(default)]
    pub include_interactive_elements: Option<bool>,
    /// Treated as true unless `false`.
    #[serde(default)]
    pub include_metadata: Option<bool>,
    /// 1..200 in the schema; REF default 100.
    #[serde(default, deserialize_with = "lenient::opt_u32")]
    pub max_elements: Option<u32>,
    #[serde(default)]
    pub filter_roles: Option<Vec<String>>,
    #[serde(default)]
    pub include_bounds: Option<bool>,
    #[serde(default)]
    pub stable_refs: Option<bool>,
    #[serde(default)]
    pub refresh_refs: Option<bool>,
    #[serde(default)]
    pub include_ref_history: Option<bool>,
    /// `true | false | AnnotationOptions`, passed through raw (the renderer parses it).
    #[serde(default, skip_serializing_if = "is_none_or_null")]
    pub annotate_screenshot: Option<Value>,
    #[serde(default)]
    pub response_tier: Option<ResponseTier>,
    #[serde(default)]
    pub incremental: Option<bool>,
    #[serde(default, rename = "includeWebMCPTools")]
    pub include_webmcp_tools: Option<bool>,
}

impl AgentObserveParams {
    /// Whether `annotateScreenshot` asks for marks: `true`, or an object whose
    /// `enabled` is not `false`.
    pub fn annotate(&self) -> bool {
        match &self.annotate_screenshot {
            Some(Value::Bool(b)) => *b,
            Some(Value::Object(o)) => o.get("enabled").and_then(Value::as_bool).unwrap_or(true),
            _ => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObserveMetadata {
    pub url: String,
    pub title: String,
    pub viewport: Viewport,
}

/// The screenshot inside an `agent/observe` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObserveScreenshot {
    pub data: String,
    pub format: ScreenshotFormat,
    pub width: u32,
    pub height: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotated: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionHint {
    Clickable,
    Editable,
    Selectable,
    Checkable,
    Expandable,
    Draggable,
    Scrollable,
    Submittable,
}

/// One element of `interactiveElements`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InteractiveElement {
    #[serde(rename = "ref")]
    pub ref_: String,
    pub selector: BapSelector,
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    pub action_hints: Vec<ActionHint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<BoundingBox>,
    pub tag_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub focused: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_ref: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stability: Option<Stability>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternative_selectors: Option<Vec<BapSelector>>,
}

fn css_escape_ident(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        let plain = c.is_ascii_alphanumeric() || c == '-' || c == '_' || !c.is_ascii();
        if plain && !(i == 0 && c.is_ascii_digit()) {
            out.push(c);
        } else if c.is_ascii_digit() {
            out.push_str(&format!("\\{:x} ", c as u32));
        } else {
            out.push('\\');
            out.push(c);
        }
    }
    out
}

fn css_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

impl InteractiveElement {
    /// Build the BAP view of a discovered element. The primary `selector` follows
    /// REF's order (testId > role+aria-label > label/text < 50 chars > `#id` >
    /// `[name=…]` > CSS path); the others become `alternativeSelectors`.
    pub fn from_element(el: &model::Element) -> Self {
        let mut sels: Vec<BapSelector> = Vec::new();
        if let Some(t) = el.test_id.as_deref().filter(|t| !t.is_empty()) {
            sels.push(BapSelector::TestId { value: t.into() });
        }
        if let Some(a) = el.aria_label.as_deref().filter(|a| !a.trim().is_empty()) {
            sels.push(BapSelector::Role {
                role: el.role.clone(),
                name: Some(a.into()),
                exact: Some(true),
            });
        }
        let name = el.name.trim();
        if !name.is_empty() && name.chars().count() < 50 {
            if el.editable || matches!(el.tag.as_str(), "input" | "select" | "textarea") {
                sels.push(BapSelector::Label {
                    value: name.into(),
                    exact: None,
                });
            } else {
                sels.push(BapSelector::Text {
                    value: name.into(),
                    exact: None,
                });
            }
        }
        if let Some(id) = el.id.as_deref().filter(|i| !i.is_empty()) {
            sels.push(BapSelector::Css {
                value: format!("#{}", css_escape_ident(id)),
            });
        }
        if let Some(n) = el.name_attr.as_deref().filter(|n| !n.is_empty()) {
            sels.push(BapSelector::Css {
                value: format!("{}[name={}]", el.tag, css_string(n)),
            });
        }
        if !el.selector.is_empty() {
            sels.push(BapSelector::Css {
                value: el.selector.clone(),
            });
        }
        let selector = if sels.is_empty() {
            BapSelector::Ref {
                ref_: el.ref_.clone(),
            }
        } else {
            sels.remove(0)
        };

        let mut hints = Vec::new();
        let role = el.role.as_str();
        let tag = el.tag.as_str();
        let input_type = el.input_type.as_deref().unwrap_or("");
        let checkable = matches!(role, "checkbox" | "radio" | "switch" | "menuitemcheckbox")
            || matches!(input_type, "checkbox" | "radio");
        let selectable = matches!(role, "combobox" | "listbox") || tag == "select";
        if el.editable && !checkable && !selectable {
            hints.push(ActionHint::Editable);
        }
        if selectable {
            hints.push(ActionHint::Selectable);
        }
        if checkable {
            hints.push(ActionHint::Checkable);
        }
        if el.clickable
            || matches!(tag, "a" | "button" | "summary")
            || matches!(role, "button" | "link" | "menuitem" | "tab" | "option")
            || matches!(input_type, "submit" | "button" | "reset" | "image")
        {
            hints.push(ActionHint::Clickable);
        }
        if el.expanded.is_some() {
            hints.push(ActionHint::Expandable);
        }
        if matches!(input_type, "submit" | "image") {
            hints.push(ActionHint::Submittable);
        }

        InteractiveElement {
            ref_: el.ref_.clone(),
            selector,
            role: el.role.clone(),
            name: (!name.is_empty()).then(|| name.to_owned()),
            value: el.value.clone(),
            action_hints: hints,
            bounds: Some(BoundingBox {
                x: el.bounds.x.round(),
                y: el.bounds.y.round(),
                width: el.bounds.width.round(),
                height: el.bounds.height.round(),
            }),
            tag_name: el.tag.to_ascii_lowercase(),
            focused: Some(el.focused),
            disabled: Some(el.disabled),
            previous_ref: el.previous_ref.clone(),
            stability: Some(el.stability),
            alternative_selectors: (!sels.is_empty()).then_some(sels),
        }
    }

    /// The `minimal` tier: `{ref, selector, role, name, tagName, actionHints: []}`.
    pub fn minimal(&self) -> Self {
        InteractiveElement {
            ref_: self.ref_.clone(),
            selector: self.selector.clone(),
            role: self.role.clone(),
            name: self.name.clone(),
            value: None,
            action_hints: Vec::new(),
            bounds: None,
            tag_name: self.tag_name.clone(),
            focused: None,
            disabled: None,
            previous_ref: None,
            stability: None,
            alternative_selectors: None,
        }
    }
}

/// `changes` of an incremental observation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ObserveChanges {
    pub added: Vec<InteractiveElement>,
    pub updated: Vec<InteractiveElement>,
    /// Refs no longer present.
    pub removed: Vec<String>,
}

/// `agent/observe` result (every part optional; omitted when absent).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentObserveResult {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ObserveMetadata>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accessibility: Option<AccessibilityTree>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<ObserveScreenshot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interactive_elements: Option<Vec<InteractiveElement>>,
    /// Count before `filterRoles` / `maxElements`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_interactive_elements: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation_map: Option<Vec<AnnotationMapping>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<ObserveChanges>,
    #[serde(
        default,
        rename = "webmcpTools",
        skip_serializing_if = "Option::is_none"
    )]
    pub webmcp_tools: Option<Vec<Value>>,
}

// ---------------------------------------------------------------------------
// agent/act (§7.1)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConditionState {
    Visible,
    Enabled,
    Exists,
    Hidden,
    Disabled,
}

/// A step's pre-condition (the field is singular `condition`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepCondition {
    pub selector: BapSelector,
    pub state: ConditionState,
    /// Milliseconds (REF default 5000).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub timeout: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    Stop,
    Skip,
    Retry,
}

/// One step of `agent/act`: a method from [`methods::ALLOWED_ACT_ACTIONS`] and
/// exactly that method's params (parse them with [`parse_params`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionStep {
    #[serde(default)]
    pub label: Option<String>,
    pub action: String,
    #[serde(default, skip_serializing_if = "is_none_or_null")]
    pub params: Option<Value>,
    #[serde(default)]
    pub condition: Option<StepCondition>,
    #[serde(default)]
    pub on_error: Option<OnError>,
    /// 1..5 (REF default 3).
    #[serde(default, deserialize_with = "lenient::opt_u32")]
    pub max_retries: Option<u32>,
    /// 100..5000 ms (REF default 500), doubled each attempt.
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub retry_delay: Option<u64>,
}

/// `agent/act` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentActParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub steps: Vec<ExecutionStep>,
    /// Default true.
    #[serde(default)]
    pub stop_on_first_error: Option<bool>,
    /// Default false.
    #[serde(default)]
    pub continue_on_condition_fail: Option<bool>,
    /// Whole-sequence budget in ms (REF default 30000).
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub timeout: Option<u64>,
    #[serde(default)]
    pub pre_observe: Option<AgentObserveParams>,
    #[serde(default)]
    pub post_observe: Option<AgentObserveParams>,
}

impl AgentActParams {
    /// REF's up-front check: 1..=50 steps, each action in the allow-list.
    /// Fails the whole request with -32602 naming `steps` or `steps[i].action`.
    pub fn validate(&self) -> Result<(), Error> {
        if self.steps.is_empty() || self.steps.len() > 50 {
            return Err(Error::invalid_field(
                "steps",
                format!("expected 1 to 50 steps, got {}", self.steps.len()),
            ));
        }
        for (i, s) in self.steps.iter().enumerate() {
            if !methods::ALLOWED_ACT_ACTIONS.contains(&s.action.as_str()) {
                return Err(Error::invalid_field(
                    format!("steps[{i}].action"),
                    format!("action {:?} is not allowed in agent/act", s.action),
                ));
            }
        }
        Ok(())
    }
}

/// The result of one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepResult {
    /// 0-based.
    pub step: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub success: bool,
    #[serde(default, skip_serializing_if = "is_none_or_null")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
    /// Milliseconds.
    pub duration: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
}

/// `agent/act` result (`success` = `completed == total`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentActResult {
    pub completed: u32,
    pub total: u32,
    pub success: bool,
    pub results: Vec<StepResult>,
    /// Milliseconds.
    pub duration: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_at: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_observation: Option<AgentObserveResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_observation: Option<AgentObserveResult>,
}

// ---------------------------------------------------------------------------
// agent/extract (§7.2)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExtractMode {
    #[default]
    Single,
    List,
    Table,
}

/// `agent/extract` params. `schema` is the raw `ExtractionSchema` JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentExtractParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub instruction: String,
    #[serde(default, skip_serializing_if = "is_none_or_null")]
    pub schema: Option<Value>,
    #[serde(default)]
    pub mode: Option<ExtractMode>,
    #[serde(default)]
    pub selector: Option<BapSelector>,
    #[serde(default)]
    pub include_source_refs: Option<bool>,
    #[serde(default, deserialize_with = "lenient::opt_u64")]
    pub timeout: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractionSource {
    #[serde(rename = "ref")]
    pub ref_: String,
    pub selector: BapSelector,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// `agent/extract` result. A failure is `{success:false, error}` (no `data`: the
/// key is omitted rather than `null`; both clients read it as absent).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgentExtractResult {
    pub success: bool,
    #[serde(default, skip_serializing_if = "is_none_or_null")]
    pub data: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<Vec<ExtractionSource>>,
    /// 0..1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

// ---------------------------------------------------------------------------
// context/*, frame/*, dialog/handle, storage/* (§5.5)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextOptions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_state: Option<StorageState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Viewport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Geolocation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Vec<String>>,
    /// `"light" | "dark" | "no-preference"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_scheme: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offline: Option<bool>,
}

/// `context/create` params (`contextId`: `[a-zA-Z0-9-]{1,64}` when given).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextCreateParams {
    #[serde(default)]
    pub context_id: Option<String>,
    #[serde(default)]
    pub options: Option<ContextOptions>,
}

impl ContextCreateParams {
    /// Check the optional custom id against `^[a-zA-Z0-9-]{1,64}$`.
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(id) = &self.context_id {
            let ok = !id.is_empty()
                && id.len() <= 64
                && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            if !ok {
                return Err(Error::invalid_field(
                    "contextId",
                    "contextId must be 1-64 characters of [a-zA-Z0-9-]",
                ));
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextCreateResult {
    pub context_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextInfo {
    pub id: String,
    pub page_count: u32,
    /// Unix epoch milliseconds.
    pub created: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<ContextOptions>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextLimits {
    pub max_contexts: u32,
    pub current_count: u32,
}

/// `context/list` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextListResult {
    pub contexts: Vec<ContextInfo>,
    pub limits: ContextLimits,
}

/// `context/destroy` params.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextDestroyParams {
    pub context_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextDestroyResult {
    pub pages_destroyed: u32,
}

/// One frame of `frame/list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameEntry {
    pub frame_id: String,
    pub name: String,
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_frame_id: Option<String>,
    pub is_main: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FrameListResult {
    pub frames: Vec<FrameEntry>,
}

/// `frame/switch` params: by id, by iframe selector, or by URL pattern.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameSwitchParams {
    #[serde(default)]
    pub page_id: Option<String>,
    #[serde(default)]
    pub frame_id: Option<String>,
    #[serde(default)]
    pub selector: Option<BapSelector>,
    #[serde(default)]
    pub url: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameSwitchResult {
    pub frame_id: String,
    pub url: String,
}

/// `frame/main` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameMainResult {
    pub frame_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DialogAction {
    Accept,
    Dismiss,
}

/// `dialog/handle` params (PY leaves out `pageId`). Result: `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DialogHandleParams {
    #[serde(default)]
    pub page_id: Option<String>,
    pub action: DialogAction,
    #[serde(default)]
    pub prompt_text: Option<String>,
}

/// `storage/setState` params. Result: `null`. (`storage/getState` takes
/// [`PageIdParams`] and returns [`StorageState`].)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StorageSetStateParams {
    pub state: StorageState,
}

/// `storage/getCookies` and `storage/clearCookies` params (`{"urls": null}` = all).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CookieUrlsParams {
    #[serde(default)]
    pub urls: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CookiesResult {
    pub cookies: Vec<Cookie>,
}

/// `storage/setCookies` params. Result: `null`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SetCookiesParams {
    #[serde(default, deserialize_with = "lenient::null_default")]
    pub cookies: Vec<Cookie>,
}

// ---------------------------------------------------------------------------
// Server → client notifications (§9)
// ---------------------------------------------------------------------------

/// Notification method names.
pub mod events {
    pub const PAGE: &str = "events/page";
    pub const CONSOLE: &str = "events/console";
    pub const NETWORK: &str = "events/network";
    pub const DIALOG: &str = "events/dialog";
    pub const DOWNLOAD: &str = "events/download";
}

/// `events/page` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageEvent {
    /// `load | domcontentloaded | navigated | error | close`.
    #[serde(rename = "type")]
    pub kind: String,
    pub page_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Unix epoch milliseconds.
    pub timestamp: u64,
}

/// `events/console` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleEvent {
    pub page_id: String,
    /// `log | debug | info | warn | error`.
    pub level: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    pub timestamp: u64,
}

/// `events/dialog` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DialogEvent {
    pub page_id: String,
    /// `alert | confirm | prompt | beforeunload`.
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_value: Option<String>,
    pub timestamp: u64,
}

/// `events/network` params (`type` = `request | response | failed`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkEvent {
    #[serde(rename = "type")]
    pub kind: String,
    pub request_id: String,
    pub page_id: String,
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_data: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub timestamp: u64,
}

/// `events/download` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DownloadEvent {
    pub page_id: String,
    pub url: String,
    pub suggested_filename: String,
    /// `started | completed | canceled | failed`.
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub timestamp: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn field_paths_name_the_field() {
        let e = parse_params::<PageNavigateParams>(Some(json!({"pageId": null}))).unwrap_err();
        assert!(
            matches!(e, Error::InvalidInput { field: Some(ref f), .. } if f == "url"),
            "{e:?}"
        );
        let e = parse_params::<ClickParams>(Some(json!({"selector": {"value": "x"}}))).unwrap_err();
        assert!(
            matches!(e, Error::InvalidInput { field: Some(ref f), .. } if f == "selector.type"),
            "{e:?}"
        );
        let e = parse_params::<ClickParams>(Some(
            json!({"selector": {"type": "css", "value": "a"}, "options": {"clickCount": "two"}}),
        ))
        .unwrap_err();
        assert!(
            matches!(e, Error::InvalidInput { field: Some(ref f), .. } if f == "options.clickCount"),
            "{e:?}"
        );
        let e = parse_params::<PageListResult>(Some(json!([1]))).unwrap_err();
        assert!(matches!(e, Error::InvalidInput { field: Some(ref f), .. } if f == "params"));
    }

    #[test]
    fn refs_are_normalised() {
        let s: BapSelector = serde_json::from_value(json!({"type":"ref","ref":"e15"})).unwrap();
        assert_eq!(s.as_ref_str(), Some("@e15"));
        let s: BapSelector = serde_json::from_value(json!({"type":"ref","ref":"@e15"})).unwrap();
        assert_eq!(s.as_ref_str(), Some("@e15"));
        assert!(serde_json::from_value::<BapSelector>(json!({"type":"ref","ref":"@"})).is_err());
    }

    #[test]
    fn css_escape() {
        assert_eq!(css_escape_ident("login"), "login");
        assert_eq!(css_escape_ident("a.b"), "a\\.b");
        assert_eq!(css_escape_ident("1x"), "\\31 x");
    }
}
