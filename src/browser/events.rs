//! Page events (load, navigation, console, network, dialogs) as plain data.
//!
//! [`Page::events`] subscribes to the CDP events once and forwards them, in
//! arrival order, as [`PageEvent`]s on an unbounded channel; the task ends
//! when the page closes or the receiver is dropped. Chromium's event shapes
//! are read here and nowhere else.

use super::page::{map_cdp, Page};
use crate::error::Result;
use chromiumoxide::cdp::browser_protocol::network::{
    EventLoadingFailed, EventRequestWillBeSent, EventResponseReceived,
};
use chromiumoxide::cdp::browser_protocol::page::{
    EventDomContentEventFired, EventFrameNavigated, EventJavascriptDialogOpening,
    EventLoadEventFired,
};
use chromiumoxide::cdp::js_protocol::runtime::EventConsoleApiCalled;
use futures::stream::{BoxStream, StreamExt};
use serde_json::{Map, Value};
use tokio::sync::mpsc;

/// One event of a page, in Chromium's terms but free of CDP types.
#[derive(Debug, Clone, PartialEq)]
pub enum PageEvent {
    DomContentLoaded,
    Load,
    /// The main frame committed a navigation to `url`.
    Navigated {
        url: String,
    },
    Console {
        level: String,
        text: String,
        url: Option<String>,
        line: Option<i64>,
        column: Option<i64>,
    },
    Request {
        id: String,
        url: String,
        method: String,
        resource_type: String,
        headers: Map<String, Value>,
        post_data: bool,
    },
    Response {
        id: String,
        url: String,
        status: i64,
        headers: Map<String, Value>,
    },
    Failed {
        id: String,
        url: String,
        error: String,
    },
    Dialog {
        kind: String,
        message: String,
        default_value: Option<String>,
    },
}

fn s(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

fn obj(v: Option<&Value>) -> Map<String, Value> {
    v.and_then(Value::as_object).cloned().unwrap_or_default()
}

/// Text of one console argument (strings unquoted, others by description).
fn arg_text(a: &Value) -> String {
    if let Some(v) = a.get("value") {
        return match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    a.get("description")
        .or_else(|| a.get("unserializableValue"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

impl Page {
    /// Subscribe to this page's events (see [`PageEvent`]).
    pub async fn events(&self) -> Result<mpsc::UnboundedReceiver<PageEvent>> {
        let p = self.cdp();
        let main = self.target_id();
        let what = "event subscription";
        let mut streams: Vec<BoxStream<'static, Option<PageEvent>>> = Vec::new();
        macro_rules! listen {
            ($ty:ty, $f:expr) => {{
                let st = p
                    .event_listener::<$ty>()
                    .await
                    .map_err(|e| map_cdp(e, what))?;
                let f = $f;
                streams.push(
                    st.map(move |ev| serde_json::to_value(&*ev).ok().and_then(|v| f(&v)))
                        .boxed(),
                );
            }};
        }
        listen!(EventDomContentEventFired, |_: &Value| Some(
            PageEvent::DomContentLoaded
        ));
        listen!(EventLoadEventFired, |_: &Value| Some(PageEvent::Load));
        let m = main.clone();
        listen!(EventFrameNavigated, move |v: &Value| {
            let f = v.get("frame")?;
            (f.get("parentId").is_none() && s(f, "id") == m)
                .then(|| PageEvent::Navigated { url: s(f, "url") })
        });
        listen!(EventConsoleApiCalled, |v: &Value| {
            let text = v
                .get("args")
                .and_then(Value::as_array)
                .map(|a| a.iter().map(arg_text).collect::<Vec<_>>().join(" "))
                .unwrap_or_default();
            let top = v
                .get("stackTrace")
                .and_then(|t| t.get("callFrames"))
                .and_then(Value::as_array)
                .and_then(|a| a.first())
                .cloned();
            let level = match s(v, "type").as_str() {
                "warning" => "warn".to_string(),
                "log" | "debug" | "info" | "error" => s(v, "type"),
                _ => "log".to_string(),
            };
            Some(PageEvent::Console {
                level,
                text,
                url: top.as_ref().map(|t| s(t, "url")).filter(|u| !u.is_empty()),
                line: top
                    .as_ref()
                    .and_then(|t| t.get("lineNumber"))
                    .and_then(Value::as_i64),
                column: top
                    .as_ref()
                    .and_then(|t| t.get("columnNumber"))
                    .and_then(Value::as_i64),
            })
        });
        listen!(EventRequestWillBeSent, |v: &Value| {
            let r = v.get("request")?;
            Some(PageEvent::Request {
                id: s(v, "requestId"),
                url: s(r, "url"),
                method: s(r, "method"),
                resource_type: s(v, "type").to_ascii_lowercase(),
                headers: obj(r.get("headers")),
                post_data: r.get("hasPostData").and_then(Value::as_bool) == Some(true),
            })
        });
        listen!(EventResponseReceived, |v: &Value| {
            let r = v.get("response")?;
            Some(PageEvent::Response {
                id: s(v, "requestId"),
                url: s(r, "url"),
                status: r.get("status").and_then(Value::as_f64).unwrap_or(0.0) as i64,
                headers: obj(r.get("headers")),
            })
        });
        listen!(EventLoadingFailed, |v: &Value| {
            Some(PageEvent::Failed {
                id: s(v, "requestId"),
                url: String::new(),
                error: s(v, "errorText"),
            })
        });
        listen!(EventJavascriptDialogOpening, |v: &Value| {
            Some(PageEvent::Dialog {
                kind: s(v, "type"),
                message: s(v, "message"),
                default_value: v
                    .get("defaultPrompt")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            })
        });
        let (tx, rx) = mpsc::unbounded_channel();
        let mut all = futures::stream::select_all(streams);
        tokio::spawn(async move {
            while let Some(ev) = all.next().await {
                if let Some(ev) = ev {
                    if tx.send(ev).is_err() {
                        break;
                    }
                }
            }
        });
        Ok(rx)
    }
}
