//! JSON-RPC 2.0 envelopes for BAP: parsing one incoming text frame, and
//! serialising responses, errors and server notifications.
//!
//! Wire rules kept here (BAP-WIRE §0, §1.1):
//! - request ids are echoed with their JSON type unchanged (`1` stays `1`, `"a"` stays `"a"`);
//! - malformed JSON → `-32700` with id `0` (what REF sends, not `null`); a
//!   non-object message or a bad `id` → `-32600` with id `0` as well;
//! - a JSON array (batch) is ignored without a reply, as REF does;
//! - a message without `id` is a notification and never gets a reply;
//! - `result` is always present on success (`null` for void methods);
//! - `error.data` is either omitted or an object with a boolean `retryable`, and
//!   none of its optional fields is ever `null`;
//! - notifications have no `id` key at all, and `params` is an object or absent.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::Error;

/// The `jsonrpc` member of every message we send.
pub const JSONRPC_VERSION: &str = "2.0";

/// Largest text frame the Python SDK accepts (aiohttp `max_msg_size` default,
/// BAP-WIRE §0 rule 10). Transports should keep responses at or under this size.
pub const PY_MAX_FRAME_BYTES: usize = 4 * 1024 * 1024;

/// Protocol-level JSON-RPC codes (BAP-WIRE §8.1).
pub mod codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    pub const SERVER_ERROR: i64 = -32000;
    pub const NOT_INITIALIZED: i64 = -32001;
    pub const ALREADY_INITIALIZED: i64 = -32002;
}

/// One parsed incoming text frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// Has an `id` (string or number) and a string `method`: must be answered.
    Request {
        id: Value,
        method: String,
        /// `params` as sent; an explicit `null` is read as absent.
        params: Option<Value>,
    },
    /// Has a `method` and no `id` (e.g. `notifications/initialized`): never answered.
    Notification {
        method: String,
        params: Option<Value>,
    },
    /// Not a valid request: send this error response back.
    Invalid(ErrorResponse),
    /// Nothing to do and nothing to send (a JSON array batch, like REF; or a stray
    /// response object from the client).
    Ignored,
}

impl Incoming {
    /// Parse one WebSocket text frame (or HTTP POST body).
    pub fn parse(text: &str) -> Incoming {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => Incoming::from_value(v),
            Err(_) => {
                Incoming::Invalid(ErrorResponse::new(Value::from(0), RpcError::parse_error()))
            }
        }
    }

    /// Classify an already-parsed JSON value.
    pub fn from_value(v: Value) -> Incoming {
        let mut obj = match v {
            Value::Object(o) => o,
            // Batches are not supported by BAP; REF drops them without a reply.
            Value::Array(_) => return Incoming::Ignored,
            _ => {
                return Incoming::Invalid(ErrorResponse::new(
                    Value::from(0),
                    RpcError::invalid_request("a JSON-RPC message must be a JSON object"),
                ))
            }
        };
        let id = match obj.remove("id") {
            None | Some(Value::Null) => None,
            Some(id @ (Value::Number(_) | Value::String(_))) => Some(id),
            Some(_) => {
                return Incoming::Invalid(ErrorResponse::new(
                    Value::from(0),
                    RpcError::invalid_request("`id` must be a number or a string"),
                ))
            }
        };
        let params = match obj.remove("params") {
            None | Some(Value::Null) => None,
            Some(p) => Some(p),
        };
        let method = match obj.remove("method") {
            Some(Value::String(m)) => Some(m),
            Some(_) => {
                return match id {
                    Some(id) => Incoming::Invalid(ErrorResponse::new(
                        id,
                        RpcError::invalid_request("`method` must be a string"),
                    )),
                    None => Incoming::Ignored,
                }
            }
            None => None,
        };
        match (id, method) {
            (Some(id), Some(method)) => match params {
                Some(p) if !p.is_object() => Incoming::Invalid(ErrorResponse::new(
                    id,
                    RpcError::from(&Error::invalid_field(
                        "params",
                        "params must be an object (BAP uses named params only)",
                    )),
                )),
                params => Incoming::Request { id, method, params },
            },
            (None, Some(method)) => Incoming::Notification { method, params },
            // A client response (`result`/`error` with an id) — BAP servers send no
            // requests, so nothing can be waiting for it.
            (Some(_), None) if obj.contains_key("result") || obj.contains_key("error") => {
                Incoming::Ignored
            }
            (Some(id), None) => Incoming::Invalid(ErrorResponse::new(
                id,
                RpcError::invalid_request("missing `method`"),
            )),
            (None, None) => Incoming::Invalid(ErrorResponse::new(
                Value::from(0),
                RpcError::invalid_request("missing `method`"),
            )),
        }
    }
}

/// `error.data` (BAP-WIRE §8.2). Present only as a whole, with `retryable` set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorData {
    pub retryable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// Always an object when present, never `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_hint: Option<String>,
}

/// The `error` member of an error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<ErrorData>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    fn with_data(mut self, hint: Option<&str>, details: Option<Map<String, Value>>) -> Self {
        self.data = Some(ErrorData {
            retryable: false,
            retry_after_ms: None,
            details,
            recovery_hint: hint.map(str::to_owned),
        });
        self
    }

    /// `-32700`, REF's exact message, no `data`.
    pub fn parse_error() -> Self {
        RpcError::new(codes::PARSE_ERROR, "Invalid JSON-RPC message")
    }

    /// `-32600` with `retryable: false`.
    pub fn invalid_request(why: &str) -> Self {
        RpcError::new(codes::INVALID_REQUEST, format!("Invalid Request: {why}")).with_data(
            Some("send one JSON object with jsonrpc, id, method and params"),
            None,
        )
    }

    /// `-32601`, naming the method in `details.method`.
    pub fn method_not_found(method: &str) -> Self {
        let mut details = Map::new();
        details.insert("method".into(), Value::String(method.to_owned()));
        RpcError::new(
            codes::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
        .with_data(
            Some("check the method name against the BAP method list"),
            Some(details),
        )
    }

    /// `-32602` naming the failing field (`details.field`).
    pub fn invalid_params(field: &str, message: &str) -> Self {
        RpcError::from(&Error::invalid_field(field, message))
    }

    /// `-32001` with REF's message and **no** `data` (REF parity).
    pub fn not_initialized() -> Self {
        RpcError::new(codes::NOT_INITIALIZED, "Server not initialized")
    }

    /// `-32002`, a second `initialize` on the same connection.
    pub fn already_initialized() -> Self {
        RpcError::new(codes::ALREADY_INITIALIZED, "Server already initialized").with_data(
            Some("initialize is sent once per connection; continue with other methods"),
            None,
        )
    }
}

impl From<&Error> for RpcError {
    fn from(e: &Error) -> Self {
        let details = match e.details() {
            Value::Object(m) if !m.is_empty() => Some(m),
            _ => None,
        };
        RpcError {
            code: e.rpc_code(),
            message: e.to_string(),
            data: Some(ErrorData {
                retryable: e.retryable(),
                retry_after_ms: e.retry_after_ms(),
                details,
                recovery_hint: e.hint(),
            }),
        }
    }
}

impl From<Error> for RpcError {
    fn from(e: Error) -> Self {
        RpcError::from(&e)
    }
}

/// What a response carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// `"result": <value>`; `Value::Null` for void methods.
    Success(Value),
    Error(RpcError),
}

/// A response to one request: `{"jsonrpc":"2.0","id":…,"result"|"error":…}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub id: Value,
    pub outcome: Outcome,
}

impl Response {
    pub fn success(id: Value, result: Value) -> Self {
        Response {
            id,
            outcome: Outcome::Success(result),
        }
    }

    /// `"result": null` (void methods; cleaner than REF's missing key).
    pub fn void(id: Value) -> Self {
        Response::success(id, Value::Null)
    }

    /// Serialise a typed result. A serialisation failure becomes a `-32603` error.
    pub fn from_result<T: Serialize>(id: Value, result: &T) -> Self {
        match serde_json::to_value(result) {
            Ok(v) => Response::success(id, v),
            Err(e) => Response::error(id, RpcError::from(&Error::Internal(e.to_string()))),
        }
    }

    pub fn error(id: Value, error: RpcError) -> Self {
        Response {
            id,
            outcome: Outcome::Error(error),
        }
    }

    /// The response for a handler's `crate::Result`.
    pub fn from_crate<T: Serialize>(id: Value, r: &crate::Result<T>) -> Self {
        match r {
            Ok(v) => Response::from_result(id, v),
            Err(e) => Response::error(id, RpcError::from(e)),
        }
    }

    /// The text frame to send.
    pub fn to_text(&self) -> String {
        to_text(self)
    }
}

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        m.serialize_entry("id", &self.id)?;
        match &self.outcome {
            Outcome::Success(v) => m.serialize_entry("result", v)?,
            Outcome::Error(e) => m.serialize_entry("error", e)?,
        }
        m.end()
    }
}

/// An error response (what [`Incoming::Invalid`] carries).
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorResponse {
    pub id: Value,
    pub error: RpcError,
}

impl ErrorResponse {
    pub fn new(id: Value, error: RpcError) -> Self {
        ErrorResponse { id, error }
    }
    pub fn to_text(&self) -> String {
        to_text(self)
    }
}

impl From<ErrorResponse> for Response {
    fn from(e: ErrorResponse) -> Self {
        Response::error(e.id, e.error)
    }
}

impl Serialize for ErrorResponse {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        m.serialize_entry("id", &self.id)?;
        m.serialize_entry("error", &self.error)?;
        m.end()
    }
}

/// A server → client notification: `{"jsonrpc":"2.0","method":…,"params":{…}}`,
/// with no `id` key.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    pub method: String,
    pub params: Option<Map<String, Value>>,
}

impl Notification {
    /// Build a notification from typed params, which must serialise to a JSON object.
    pub fn new<T: Serialize>(method: impl Into<String>, params: &T) -> crate::Result<Self> {
        match serde_json::to_value(params) {
            Ok(Value::Object(m)) => Ok(Notification {
                method: method.into(),
                params: Some(m),
            }),
            Ok(Value::Null) => Ok(Notification {
                method: method.into(),
                params: None,
            }),
            Ok(_) => Err(Error::Internal(
                "notification params must serialise to a JSON object".into(),
            )),
            Err(e) => Err(Error::Internal(e.to_string())),
        }
    }
    pub fn to_text(&self) -> String {
        to_text(self)
    }
}

impl Serialize for Notification {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
        m.serialize_entry("method", &self.method)?;
        if let Some(p) = &self.params {
            m.serialize_entry("params", p)?;
        }
        m.end()
    }
}

/// Serialise a message to its text frame. These types hold only JSON values,
/// strings and numbers, so serialisation cannot fail in practice; if it ever
/// does, an internal-error frame (id 0) is produced instead of panicking.
fn to_text<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|e| {
        format!(
            r#"{{"jsonrpc":"2.0","id":0,"error":{{"code":-32603,"message":{}}}}}"#,
            Value::String(format!("serialisation failed: {e}"))
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parse_request_keeps_id_type() {
        match Incoming::parse(r#"{"jsonrpc":"2.0","id":7,"method":"page/list","params":{}}"#) {
            Incoming::Request { id, method, params } => {
                assert_eq!(id, json!(7));
                assert!(id.is_u64());
                assert_eq!(method, "page/list");
                assert_eq!(params, Some(json!({})));
            }
            other => panic!("unexpected {other:?}"),
        }
        match Incoming::parse(r#"{"id":"abc","method":"x","params":null}"#) {
            Incoming::Request { id, params, .. } => {
                assert_eq!(id, json!("abc"));
                assert_eq!(params, None);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn parse_errors() {
        let Incoming::Invalid(e) = Incoming::parse("{not json") else {
            panic!("expected invalid")
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"jsonrpc":"2.0","id":0,"error":{"code":-32700,"message":"Invalid JSON-RPC message"}})
        );
        let Incoming::Invalid(e) = Incoming::parse("42") else {
            panic!("expected invalid")
        };
        assert_eq!(e.error.code, -32600);
        let Incoming::Invalid(e) = Incoming::parse(r#"{"id":3}"#) else {
            panic!("expected invalid")
        };
        assert_eq!((e.id, e.error.code), (json!(3), -32600));
        let Incoming::Invalid(e) = Incoming::parse(r#"{"id":4,"method":"x","params":[1]}"#) else {
            panic!("expected invalid")
        };
        assert_eq!((e.id, e.error.code), (json!(4), -32602));
        assert_eq!(
            Incoming::parse(r#"[{"id":1,"method":"x"}]"#),
            Incoming::Ignored
        );
    }

    #[test]
    fn notification_has_no_id() {
        let n = Notification::new("events/page", &json!({"type":"load"})).unwrap();
        let v: Value = serde_json::from_str(&n.to_text()).unwrap();
        assert!(v.get("id").is_none());
        assert_eq!(v["params"]["type"], "load");
        assert!(Notification::new("x", &json!([1])).is_err());
    }
}
