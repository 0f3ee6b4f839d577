//! The crate's one error type.
//!
//! Architecture invariant: every failure a user can see is a variant here, and
//! each variant knows its machine-readable `code`, its BAP JSON-RPC code, its
//! HTTP status, whether a retry may help, and a recovery hint. Interfaces map
//! errors with these methods only — never by matching message strings.

use serde_json::{json, Value};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One failing field of a request body or params object.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FieldError {
    /// JSON pointer-ish path of the field (`/intent`, `steps[2].action`).
    pub path: String,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad input from the caller (CLI argument, RPC param, HTTP body).
    #[error("invalid input: {message}")]
    InvalidInput {
        message: String,
        /// The field at fault, when known.
        field: Option<String>,
    },
    /// A body that failed schema validation; `errors` lists every failing field.
    #[error("validation failed: {}", errors.iter().map(|e| format!("{} {}", e.path, e.message)).collect::<Vec<_>>().join("; "))]
    Validation { errors: Vec<FieldError> },
    #[error("request body too large: {size} bytes (limit {limit})")]
    PayloadTooLarge { size: usize, limit: usize },
    /// A stored object (annotation, session, …) that does not exist.
    #[error("{kind} not found: {id}")]
    NotFound { kind: &'static str, id: String },
    /// A state change the lifecycle does not allow (e.g. resolving a deleted annotation).
    #[error("{message}")]
    Conflict { message: String },
    /// A request refused by the HTTP security layer (Origin or Host not allowed).
    #[error("forbidden: {message}")]
    Forbidden { message: String },
    /// A missing or wrong auth token on a plain HTTP request.
    #[error("unauthorized: {message}")]
    Unauthorized { message: String },

    #[error("Chromium not found (tried: {tried})")]
    ChromeNotFound { tried: String },
    #[error("browser failed to launch: {0}")]
    BrowserLaunch(String),
    #[error("no browser is running")]
    BrowserNotLaunched,
    #[error("page not found: {page_id}")]
    PageNotFound { page_id: String },
    #[error("frame not found: {frame}")]
    FrameNotFound { frame: String },
    #[error("navigation to {url} failed: {reason}")]
    NavigationFailed { url: String, reason: String },
    #[error("timed out after {ms} ms waiting for {what}")]
    Timeout { what: String, ms: u64 },
    #[error("target closed: {target}")]
    TargetClosed { target: String },
    #[error("the page navigated while the call ran (execution context destroyed)")]
    ContextDestroyed,
    /// A CDP protocol error that is none of the above.
    #[error("browser protocol error: {0}")]
    Cdp(String),

    #[error("element not found: {target}")]
    ElementNotFound {
        target: String,
        /// Set when the target was a ref that the page registry knows but can no longer find.
        stale: bool,
    },
    #[error("element {target} is not visible")]
    ElementNotVisible { target: String },
    #[error("element {target} is disabled")]
    ElementNotEnabled { target: String },
    #[error("element {target} is covered by {covered_by}")]
    ElementCovered { target: String, covered_by: String },
    #[error(
        "element {target} keeps moving (an animation or transition that moves its box is running)"
    )]
    ElementNotStable { target: String },
    #[error("selector {selector} matches {count} elements")]
    SelectorAmbiguous {
        selector: String,
        count: usize,
        candidates: Vec<String>,
    },
    #[error("{action} failed: {reason}")]
    ActionFailed { action: String, reason: String },

    #[error("{resource} limit exceeded: {current} > {limit}")]
    ResourceLimit {
        resource: String,
        limit: u64,
        current: u64,
    },
    #[error("image error: {0}")]
    Image(String),
    #[error("storage error: {0}")]
    Storage(String),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::InvalidInput {
            message: message.into(),
            field: None,
        }
    }
    pub fn invalid_field(field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::InvalidInput {
            message: message.into(),
            field: Some(field.into()),
        }
    }

    /// Stable, machine-readable code (snake_case), shared by every interface.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidInput { .. } => "invalid_input",
            Error::Validation { .. } => "validation_failed",
            Error::PayloadTooLarge { .. } => "payload_too_large",
            Error::NotFound { .. } => "not_found",
            Error::Conflict { .. } => "conflict",
            Error::Forbidden { .. } => "forbidden",
            Error::Unauthorized { .. } => "unauthorized",
            Error::ChromeNotFound { .. } => "chrome_not_found",
            Error::BrowserLaunch(_) => "browser_launch_failed",
            Error::BrowserNotLaunched => "browser_not_launched",
            Error::PageNotFound { .. } => "page_not_found",
            Error::FrameNotFound { .. } => "frame_not_found",
            Error::NavigationFailed { .. } => "navigation_failed",
            Error::Timeout { .. } => "timeout",
            Error::TargetClosed { .. } => "target_closed",
            Error::ContextDestroyed => "execution_context_destroyed",
            Error::Cdp(_) => "protocol_error",
            Error::ElementNotFound { stale: true, .. } => "stale_ref",
            Error::ElementNotFound { .. } => "element_not_found",
            Error::ElementNotVisible { .. } => "element_not_visible",
            Error::ElementNotEnabled { .. } => "element_not_enabled",
            Error::ElementCovered { .. } => "element_covered",
            Error::ElementNotStable { .. } => "element_not_stable",
            Error::SelectorAmbiguous { .. } => "selector_ambiguous",
            Error::ActionFailed { .. } => "action_failed",
            Error::ResourceLimit { .. } => "resource_limit",
            Error::Image(_) => "image_error",
            Error::Storage(_) => "storage_error",
            Error::Io(_) => "io_error",
            Error::Internal(_) => "internal_error",
        }
    }

    /// The BAP JSON-RPC error code (BAP-WIRE §8.1).
    pub fn rpc_code(&self) -> i64 {
        match self {
            Error::InvalidInput { .. } | Error::Validation { .. } => -32602,
            Error::PayloadTooLarge { .. } | Error::ResourceLimit { .. } => -32024,
            Error::NotFound { .. } | Error::Conflict { .. } => -32602,
            Error::Forbidden { .. } | Error::Unauthorized { .. } => -32023,
            Error::ChromeNotFound { .. } | Error::BrowserLaunch(_) | Error::BrowserNotLaunched => {
                -32010
            }
            Error::PageNotFound { .. } => -32011,
            Error::FrameNotFound { .. } => -32040,
            Error::NavigationFailed { .. } => -32015,
            Error::Timeout { .. } => -32016,
            Error::TargetClosed { .. } => -32017,
            Error::ContextDestroyed => -32018,
            Error::ElementNotFound { .. } => -32012,
            Error::ElementNotVisible { .. } | Error::ElementCovered { .. } => -32013,
            Error::ElementNotEnabled { .. } => -32014,
            Error::SelectorAmbiguous { .. } => -32020,
            Error::ElementNotStable { .. } | Error::ActionFailed { .. } => -32021,
            Error::Cdp(_)
            | Error::Image(_)
            | Error::Storage(_)
            | Error::Io(_)
            | Error::Internal(_) => -32603,
        }
    }

    /// The HTTP status for REST interfaces.
    pub fn http_status(&self) -> u16 {
        match self {
            Error::InvalidInput { .. } | Error::Validation { .. } => 400,
            Error::PayloadTooLarge { .. } => 413,
            Error::NotFound { .. } | Error::PageNotFound { .. } | Error::FrameNotFound { .. } => {
                404
            }
            Error::ElementNotFound { .. } => 404,
            Error::Conflict { .. } => 409,
            Error::Forbidden { .. } => 403,
            Error::Unauthorized { .. } => 401,
            Error::SelectorAmbiguous { .. } => 409,
            Error::ElementNotVisible { .. }
            | Error::ElementNotEnabled { .. }
            | Error::ElementCovered { .. }
            | Error::ElementNotStable { .. }
            | Error::ActionFailed { .. } => 422,
            Error::ResourceLimit { .. } => 429,
            Error::Timeout { .. } => 504,
            Error::NavigationFailed { .. } => 502,
            Error::ChromeNotFound { .. }
            | Error::BrowserLaunch(_)
            | Error::BrowserNotLaunched
            | Error::TargetClosed { .. }
            | Error::ContextDestroyed => 503,
            Error::Cdp(_)
            | Error::Image(_)
            | Error::Storage(_)
            | Error::Io(_)
            | Error::Internal(_) => 500,
        }
    }

    /// Whether the same call may succeed if retried (after re-observing, waiting…).
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            Error::NavigationFailed { .. }
                | Error::Timeout { .. }
                | Error::ContextDestroyed
                | Error::ElementNotFound { .. }
                | Error::ElementNotVisible { .. }
                | Error::ElementNotEnabled { .. }
                | Error::ElementCovered { .. }
                | Error::ElementNotStable { .. }
                | Error::Storage(_)
        )
    }

    pub fn retry_after_ms(&self) -> Option<u64> {
        match self {
            Error::ElementNotFound { .. }
            | Error::ElementNotVisible { .. }
            | Error::ElementNotEnabled { .. }
            | Error::ElementCovered { .. }
            | Error::ElementNotStable { .. } => Some(500),
            Error::NavigationFailed { .. } => Some(1000),
            Error::Timeout { .. } => Some(0),
            Error::ContextDestroyed => Some(100),
            Error::Storage(_) => Some(100),
            _ => None,
        }
    }

    /// A next step a person (or an agent) can take.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            Error::InvalidInput { .. } | Error::Validation { .. } => {
                "fix the request as described and send it again".into()
            }
            Error::PayloadTooLarge { limit, .. } => format!("send at most {limit} bytes"),
            Error::ChromeNotFound { .. } => "install Chromium (`apt-get install -y chromium`) or pass --chrome PATH / set PINPOINT_CHROME".into(),
            Error::BrowserLaunch(_) => "check that Chromium starts (`chromium --headless --no-sandbox --dump-dom about:blank`) or pass --chrome PATH".into(),
            Error::BrowserNotLaunched => "call browser/launch first".into(),
            Error::PageNotFound { .. } => "list pages with page/list, or create one with page/create".into(),
            Error::NavigationFailed { .. } => "check that the URL is reachable from this machine, then retry".into(),
            Error::Timeout { .. } => "retry with a larger timeout, or wait for the page to settle".into(),
            Error::TargetClosed { .. } => "the browser or page is gone; launch a browser / create a page again".into(),
            Error::ContextDestroyed => "the page navigated; observe again and retry".into(),
            Error::ElementNotFound { stale: true, .. } => "the element this ref named is gone; call agent/observe again and use the new refs".into(),
            Error::ElementNotFound { .. } => "observe the page again (agent/observe) and pick a current ref or selector".into(),
            Error::ElementNotVisible { .. } => "wait for the element to appear, or scroll/expand its container".into(),
            Error::ElementNotEnabled { .. } => "wait until the control is enabled (fill required fields first)".into(),
            Error::ElementCovered { covered_by, .. } => format!("close or dismiss {covered_by} first, or pass force: true"),
            Error::ElementNotStable { .. } => "wait for the animation to finish, or pass force: true".into(),
            Error::SelectorAmbiguous { .. } => "use a ref from agent/observe, a more specific selector, or pass an index".into(),
            Error::NotFound { .. } => "list the collection to find a current id".into(),
            Error::Conflict { .. } => "read the object's current state and retry with a valid transition".into(),
            Error::Forbidden { .. } => "connect from a local origin/host, or add the origin to the allowed origins".into(),
            Error::Unauthorized { .. } => "pass the token as ?token=… or the X-BAP-Token header".into(),
            _ => return None,
        })
    }

    /// Structured details (BAP `error.data.details`, HTTP `error.details`).
    pub fn details(&self) -> Value {
        match self {
            Error::InvalidInput {
                field: Some(field), ..
            } => json!({ "field": field }),
            Error::Validation { errors } => json!({ "errors": errors }),
            Error::PayloadTooLarge { size, limit } => json!({ "size": size, "limit": limit }),
            Error::NotFound { kind, id } => json!({ "kind": kind, "id": id }),
            Error::PageNotFound { page_id } => json!({ "pageId": page_id }),
            Error::FrameNotFound { frame } => json!({ "identifier": frame }),
            Error::NavigationFailed { url, .. } => json!({ "url": url }),
            Error::Timeout { ms, .. } => json!({ "timeout": ms }),
            Error::TargetClosed { target } => json!({ "target": target }),
            Error::ElementNotFound { target, stale } => {
                json!({ "selector": target, "stale": stale })
            }
            Error::ElementNotVisible { target }
            | Error::ElementNotEnabled { target }
            | Error::ElementNotStable { target } => json!({ "selector": target }),
            Error::ElementCovered { target, covered_by } => {
                json!({ "selector": target, "coveredBy": covered_by })
            }
            Error::SelectorAmbiguous {
                selector,
                count,
                candidates,
            } => json!({ "selector": selector, "count": count, "candidates": candidates }),
            Error::ActionFailed { action, .. } => json!({ "action": action }),
            Error::ResourceLimit {
                resource,
                limit,
                current,
            } => json!({ "resource": resource, "limit": limit, "current": current }),
            _ => json!({}),
        }
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::invalid(e.to_string())
    }
}

impl From<image::ImageError> for Error {
    fn from(e: image::ImageError) -> Self {
        Error::Image(e.to_string())
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::Storage(e.to_string())
    }
}
