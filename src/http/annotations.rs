//! Agentation-compatible annotations REST + SSE API (AGENTATION-HTTP.md §2),
//! plus Pinpoint additions: list filters, reopen, session update/close,
//! markdown export, the annotations channel, thread edit/remove.
//!
//! Invariants:
//! - handlers never mutate state themselves: they validate, build one
//!   [`Action`] and hand it to the [`Store`] (one transaction, one reducer);
//! - on any error the store is untouched and the answer is the crate error
//!   body `{"error": {"code", "message", "details"}}` with `Error::http_status()`.
//!   Upstream answers `{"error": "<string>"}`; neither official client parses
//!   error bodies (the toolbar reads only the status, the MCP client shows
//!   `HTTP <status>: <raw body>` and looks for "404"), so the structured form
//!   is safe; `error.message` carries the human string;
//! - bodies over 1 MiB → 413; bad JSON → 400; annotation bodies are checked
//!   against `schema/afs-v1.json` (400 naming each failing field);
//! - SSE frames are `event:`/`id:`/`data:` with one-line JSON, `: connected`
//!   first, `: ping` every 15 s, replay from `Last-Event-ID` with nothing
//!   missed or duplicated (subscribe first, replay from the log, then skip
//!   live events at or below the last sequence sent).
//!
//! `/health` is not handled here (the lead merges it): it must answer
//! `{"status":"ok","version":"<crate version>","mode":"local"}`.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use futures::channel::mpsc;
use futures::SinkExt;
use serde_json::{json, Map, Value};
use tokio::sync::broadcast::error::RecvError;

use super::security::error_response;
use crate::annotations::markdown::Level;
use crate::annotations::model::{
    iso_from_ms, new_id, now_ms, Actor, Annotation, ChannelAction, Event, EventType, SessionStatus,
    ThreadMessage,
};
use crate::annotations::reducer::{to_channel, Action};
use crate::annotations::store::{AnnotationFilter, Published, Store};
use crate::error::{Error, FieldError, Result};

/// Largest accepted request body.
pub const MAX_BODY: usize = 1 << 20;
/// Interval of `: ping` comments on SSE streams.
pub const PING_INTERVAL: Duration = Duration::from_secs(15);

/// The AFS v1 JSON Schema (validated on every incoming annotation).
pub const AFS_SCHEMA: &str = include_str!("../../schema/afs-v1.json");

struct Validators {
    full: jsonschema::Validator,
    partial: jsonschema::Validator,
}

static VALIDATORS: LazyLock<std::result::Result<Validators, String>> = LazyLock::new(|| {
    let schema: Value = serde_json::from_str(AFS_SCHEMA).map_err(|e| e.to_string())?;
    let full = jsonschema::validator_for(&schema).map_err(|e| e.to_string())?;
    let mut loose = schema;
    if let Some(o) = loose.as_object_mut() {
        o.remove("required");
    }
    let partial = jsonschema::validator_for(&loose).map_err(|e| e.to_string())?;
    Ok(Validators { full, partial })
});

/// Validate an annotation object against the AFS schema (`partial`: no required fields).
pub fn validate_annotation(v: &Value, partial: bool) -> Result<()> {
    let vals = VALIDATORS
        .as_ref()
        .map_err(|e| Error::Internal(format!("AFS schema does not compile: {e}")))?;
    let validator = if partial { &vals.partial } else { &vals.full };
    let mut errors: Vec<FieldError> = validator
        .iter_errors(v)
        .map(|e| {
            let mut path = e.instance_path().to_string();
            if let jsonschema::error::ValidationErrorKind::Required { property } = e.kind() {
                path = format!("{path}/{}", property.as_str().unwrap_or_default());
            }
            FieldError {
                path,
                message: e.to_string(),
            }
        })
        .collect();
    if errors.is_empty() {
        return Ok(());
    }
    errors.sort_by(|a, b| a.path.cmp(&b.path));
    Err(Error::Validation { errors })
}

#[derive(Default)]
struct Listeners {
    active: AtomicUsize,
    agent: AtomicUsize,
}

#[derive(Clone)]
struct AppState {
    store: Store,
    listeners: Arc<Listeners>,
}

/// Decrements listener counts when an SSE stream ends.
struct ListenerGuard {
    listeners: Arc<Listeners>,
    agent: bool,
}

impl ListenerGuard {
    fn new(listeners: Arc<Listeners>, agent: bool) -> Self {
        listeners.active.fetch_add(1, Ordering::SeqCst);
        if agent {
            listeners.agent.fetch_add(1, Ordering::SeqCst);
        }
        ListenerGuard { listeners, agent }
    }
}

impl Drop for ListenerGuard {
    fn drop(&mut self) {
        self.listeners.active.fetch_sub(1, Ordering::SeqCst);
        if self.agent {
            self.listeners.agent.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// The annotations API with its state inside (`.merge()` it into the app).
pub fn router(store: Store) -> Router {
    let state = AppState {
        store,
        listeners: Arc::new(Listeners::default()),
    };
    Router::new()
        .route("/status", get(status))
        .route("/sessions", post(create_session).get(list_sessions))
        .route("/sessions/{id}", get(get_session).patch(update_session))
        .route("/sessions/{id}/close", post(close_session))
        .route("/sessions/{id}/pending", get(session_pending))
        .route("/sessions/{id}/annotations", post(create_annotation))
        .route("/sessions/{id}/action", post(request_action))
        .route("/sessions/{id}/events", get(session_events))
        .route("/sessions/{id}/export", get(export))
        .route(
            "/sessions/{id}/channel",
            get(channel_state).post(channel_action),
        )
        .route("/pending", get(all_pending))
        .route("/annotations", get(list_annotations))
        .route(
            "/annotations/{id}",
            get(get_annotation)
                .patch(update_annotation)
                .delete(delete_annotation),
        )
        .route("/annotations/{id}/reopen", post(reopen))
        .route("/annotations/{id}/thread", post(add_thread))
        .route(
            "/annotations/{id}/thread/{message_id}",
            patch(edit_thread).delete(remove_thread),
        )
        .route("/events", get(global_events))
        // Upstream has no 405: a known path with another method is 404 JSON.
        .method_not_allowed_fallback(not_found)
        .with_state(state)
}

/// 404 `{"error":{"code":"not_found",…}}` for unknown paths (for the lead's fallback).
pub async fn not_found() -> Response {
    error_response(&Error::NotFound {
        kind: "route",
        id: "unknown path".into(),
    })
}

type ApiResult = std::result::Result<Response, ApiError>;

/// Wrapper so `?` works in handlers.
struct ApiError(Error);

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        error_response(&self.0)
    }
}

fn json_answer(status: StatusCode, v: impl serde::Serialize) -> ApiResult {
    let v = serde_json::to_value(v).map_err(|e| Error::Internal(e.to_string()))?;
    Ok((status, Json(v)).into_response())
}

/// A 200 JSON answer spliced from stored JSON texts (no parse/re-serialize).
fn raw_json(prefix: &str, items: &[String], suffix: &str) -> Response {
    let len = items.iter().map(|i| i.len() + 1).sum::<usize>() + prefix.len() + suffix.len() + 2;
    let mut body = String::with_capacity(len);
    body.push_str(prefix);
    body.push('[');
    for (n, item) in items.iter().enumerate() {
        if n > 0 {
            body.push(',');
        }
        body.push_str(item);
    }
    body.push(']');
    body.push_str(suffix);
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

/// Read a JSON body: ≤ 1 MiB (else 413), empty = `{}`, bad JSON = 400.
async fn read_json(headers: &HeaderMap, body: Body) -> Result<Value> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if let Some(n) = declared.filter(|n| *n > MAX_BODY) {
        return Err(Error::PayloadTooLarge {
            size: n,
            limit: MAX_BODY,
        });
    }
    let bytes = axum::body::to_bytes(body, MAX_BODY)
        .await
        .map_err(|_| Error::PayloadTooLarge {
            size: declared.unwrap_or(MAX_BODY + 1),
            limit: MAX_BODY,
        })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(json!({}));
    }
    serde_json::from_slice(&bytes).map_err(|e| Error::invalid(format!("Invalid JSON: {e}")))
}

async fn read_object(headers: &HeaderMap, body: Body) -> Result<Map<String, Value>> {
    match read_json(headers, body).await? {
        Value::Object(m) => Ok(m),
        _ => Err(Error::invalid("the body must be a JSON object")),
    }
}

fn session_missing(id: &str) -> Error {
    Error::NotFound {
        kind: "session",
        id: id.to_owned(),
    }
}

fn annotation_missing(id: &str) -> Error {
    Error::NotFound {
        kind: "annotation",
        id: id.to_owned(),
    }
}

fn opt_string(m: &Map<String, Value>, key: &str) -> Result<Option<String>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Error::invalid_field(key, format!("{key} must be a string"))),
    }
}

// ---------------------------------------------------------------- sessions

async fn status(State(st): State<AppState>) -> ApiResult {
    json_answer(
        StatusCode::OK,
        json!({
            "mode": "local",
            "webhooksConfigured": false,
            "webhookCount": 0,
            "activeListeners": st.listeners.active.load(Ordering::SeqCst),
            "agentListeners": st.listeners.agent.load(Ordering::SeqCst),
        }),
    )
}

async fn create_session(State(st): State<AppState>, headers: HeaderMap, body: Body) -> ApiResult {
    let b = read_object(&headers, body).await?;
    let url = opt_string(&b, "url")?
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| Error::invalid_field("url", "url is required"))?;
    let c = st
        .store
        .dispatch(Action::CreateSession {
            session_id: new_id(),
            url,
            project_id: opt_string(&b, "projectId")?,
            metadata: b.get("metadata").filter(|v| !v.is_null()).cloned(),
        })
        .await?;
    json_answer(StatusCode::CREATED, c.session())
}

async fn list_sessions(State(st): State<AppState>) -> ApiResult {
    json_answer(StatusCode::OK, st.store.sessions().await?)
}

async fn get_session(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult {
    let s = st
        .store
        .session(id.clone())
        .await?
        .ok_or_else(|| session_missing(&id))?;
    let annotations = st
        .store
        .list_annotations_raw(AnnotationFilter {
            session_id: Some(id),
            ..Default::default()
        })
        .await?;
    let session = serde_json::to_string(&s).map_err(|e| Error::Internal(e.to_string()))?;
    let head = session.strip_suffix('}').unwrap_or("{");
    let sep = if head.ends_with('{') { "" } else { "," };
    Ok(raw_json(
        &format!("{head}{sep}\"annotations\":"),
        &annotations,
        "}",
    ))
}

async fn update_session(
    State(st): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult {
    let b = read_object(&headers, body).await?;
    let status = match b.get("status") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            serde_json::from_value::<SessionStatus>(v.clone()).map_err(|_| {
                Error::invalid_field("status", "status must be one of active, approved, closed")
            })?,
        ),
    };
    let c = st
        .store
        .dispatch(Action::UpdateSession {
            session_id: id,
            url: opt_string(&b, "url")?,
            project_id: opt_string(&b, "projectId")?,
            metadata: b.get("metadata").filter(|v| !v.is_null()).cloned(),
            status,
        })
        .await?;
    json_answer(StatusCode::OK, c.session())
}

async fn close_session(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult {
    let c = st
        .store
        .dispatch(Action::CloseSession { session_id: id })
        .await?;
    json_answer(StatusCode::OK, c.session())
}

fn pending_answer(list: Vec<String>) -> ApiResult {
    Ok(raw_json(
        &format!("{{\"count\":{},\"annotations\":", list.len()),
        &list,
        "}",
    ))
}

async fn session_pending(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult {
    pending_answer(st.store.pending_raw(Some(id)).await?)
}

async fn all_pending(State(st): State<AppState>) -> ApiResult {
    pending_answer(st.store.pending_raw(None).await?)
}

async fn request_action(
    State(st): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult {
    // Upstream checks the session before the body.
    if st.store.session(id.clone()).await?.is_none() {
        return Err(session_missing(&id).into());
    }
    let b = read_object(&headers, body).await?;
    let output = opt_string(&b, "output")?
        .filter(|o| !o.is_empty())
        .ok_or_else(|| Error::invalid_field("output", "output is required"))?;
    let c = st
        .store
        .dispatch(Action::RequestAction {
            session_id: id,
            output,
        })
        .await?;
    let count = c
        .events
        .first()
        .and_then(|e| e.payload.get("annotations"))
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let listeners = st.listeners.agent.load(Ordering::SeqCst);
    json_answer(
        StatusCode::OK,
        json!({"success": true, "annotationCount": count,
               "delivered": {"sseListeners": listeners, "webhooks": 0, "total": listeners}}),
    )
}

async fn export(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult {
    let level = Level::parse(q.get("level").map_or("standard", String::as_str))?;
    let md = st.store.export_markdown(id, level).await?;
    Ok((
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
        md,
    )
        .into_response())
}

async fn channel_state(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult {
    if st.store.session(id.clone()).await?.is_none() {
        return Err(session_missing(&id).into());
    }
    let list = st
        .store
        .list_annotations(AnnotationFilter {
            session_id: Some(id),
            ..Default::default()
        })
        .await?;
    let annotations: Vec<_> = list.iter().filter_map(to_channel).collect();
    json_answer(StatusCode::OK, json!({ "annotations": annotations }))
}

async fn channel_action(
    State(st): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult {
    let b = read_json(&headers, body).await?;
    let action: ChannelAction = serde_json::from_value(b)
        .map_err(|e| Error::invalid_field("type", format!("invalid channel action: {e}")))?;
    let c = st
        .store
        .dispatch(Action::Channel {
            session_id: id,
            action,
        })
        .await?;
    let seqs: Vec<i64> = c.events.iter().map(|e| e.sequence).collect();
    json_answer(
        StatusCode::OK,
        json!({
            "applied": !seqs.is_empty(),
            "sequences": seqs,
            "annotation": c.annotation().and_then(to_channel),
        }),
    )
}

// ------------------------------------------------------------- annotations

async fn create_annotation(
    State(st): State<AppState>,
    Path(sid): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult {
    let mut b = read_object(&headers, body).await?;
    // Server-owned fields: whatever the client sent is replaced (must-do #6).
    let now = now_ms();
    let id = new_id();
    b.insert("id".into(), json!(id));
    b.insert("sessionId".into(), json!(sid));
    b.insert("status".into(), json!("pending"));
    b.insert("createdAt".into(), json!(now));
    for k in ["updatedAt", "resolvedAt", "resolvedBy"] {
        b.remove(k);
    }
    // Pinpoint fills a missing capture time instead of refusing the note.
    b.entry("timestamp").or_insert(json!(now));
    let v = Value::Object(b);
    validate_annotation(&v, false)?;
    for k in ["element", "elementPath"] {
        if v.get(k).and_then(Value::as_str).is_some_and(str::is_empty) {
            return Err(Error::Validation {
                errors: vec![FieldError {
                    path: format!("/{k}"),
                    message: "comment, element, and elementPath are required".into(),
                }],
            }
            .into());
        }
    }
    let a: Annotation = serde_json::from_value(v)
        .map_err(|e| Error::invalid(format!("invalid annotation: {e}")))?;
    let c = st
        .store
        .dispatch(Action::CreateAnnotation {
            session_id: sid,
            annotation: a,
        })
        .await?;
    json_answer(StatusCode::CREATED, c.annotation())
}

fn parse_filter(q: &HashMap<String, String>) -> Result<AnnotationFilter> {
    AnnotationFilter::from_text(
        q.get("sessionId").or_else(|| q.get("session")).cloned(),
        q.get("url").cloned(),
        q.get("status").map(String::as_str),
        q.get("severity").map(String::as_str),
        q.get("intent").map(String::as_str),
    )
}

async fn list_annotations(
    State(st): State<AppState>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult {
    let f = parse_filter(&q)?;
    Ok(raw_json("", &st.store.list_annotations_raw(f).await?, ""))
}

async fn get_annotation(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult {
    let a = st
        .store
        .annotation(id.clone())
        .await?
        .ok_or_else(|| annotation_missing(&id))?;
    json_answer(StatusCode::OK, a)
}

async fn update_annotation(
    State(st): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult {
    let mut patch = read_object(&headers, body).await?;
    patch.retain(|_, v| !v.is_null()); // null leaves the old value (upstream)
    let mut check = patch.clone();
    for k in ["id", "sessionId", "createdAt"] {
        check.remove(k); // ignored anyway; TB's layout sync sends its local id
    }
    if check.get("status").and_then(Value::as_str) == Some("reopen") {
        check.remove("status");
    }
    validate_annotation(&Value::Object(check), true)?;
    let c = st
        .store
        .dispatch(Action::UpdateAnnotation {
            annotation_id: id,
            patch,
        })
        .await?;
    json_answer(StatusCode::OK, c.annotation())
}

async fn delete_annotation(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult {
    st.store
        .dispatch(Action::DeleteAnnotation {
            annotation_id: id.clone(),
        })
        .await?;
    json_answer(StatusCode::OK, json!({"deleted": true, "annotationId": id}))
}

async fn reopen(State(st): State<AppState>, Path(id): Path<String>) -> ApiResult {
    let c = st
        .store
        .dispatch(Action::Reopen { annotation_id: id })
        .await?;
    json_answer(StatusCode::OK, c.annotation())
}

fn parse_role(b: &Map<String, Value>) -> Result<Actor> {
    match b.get("role").and_then(Value::as_str) {
        Some("human") => Ok(Actor::Human),
        Some("agent") => Ok(Actor::Agent),
        Some("") | None => Err(Error::invalid_field(
            "role",
            "role and content are required",
        )),
        Some(_) => Err(Error::invalid_field("role", "role must be human or agent")),
    }
}

async fn add_thread(
    State(st): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult {
    let b = read_object(&headers, body).await?;
    let role = parse_role(&b)?;
    let content = opt_string(&b, "content")?
        .filter(|c| !c.is_empty())
        .ok_or_else(|| Error::invalid_field("content", "role and content are required"))?;
    let c = st
        .store
        .dispatch(Action::AddThreadMessage {
            annotation_id: id,
            message: ThreadMessage {
                id: new_id(),
                role,
                content,
                timestamp: now_ms(),
                extra: Map::new(),
            },
        })
        .await?;
    json_answer(StatusCode::CREATED, c.annotation())
}

async fn edit_thread(
    State(st): State<AppState>,
    Path((id, message_id)): Path<(String, String)>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult {
    let b = read_object(&headers, body).await?;
    let content = opt_string(&b, "content")?
        .filter(|c| !c.is_empty())
        .ok_or_else(|| Error::invalid_field("content", "content is required"))?;
    let c = st
        .store
        .dispatch(Action::EditThreadMessage {
            annotation_id: id,
            message_id,
            content,
        })
        .await?;
    json_answer(StatusCode::OK, c.annotation())
}

async fn remove_thread(
    State(st): State<AppState>,
    Path((id, message_id)): Path<(String, String)>,
) -> ApiResult {
    let c = st
        .store
        .dispatch(Action::RemoveThreadMessage {
            annotation_id: id,
            message_id,
        })
        .await?;
    json_answer(StatusCode::OK, c.annotation())
}

// --------------------------------------------------------------------- SSE

/// One SSE frame for a stored event.
pub fn event_frame(e: &Event) -> String {
    let data = serde_json::to_string(e).unwrap_or_else(|_| "{}".into());
    format!(
        "event: {}\nid: {}\ndata: {}\n\n",
        e.kind.as_str(),
        e.sequence,
        data
    )
}

fn last_event_id(headers: &HeaderMap) -> Option<i64> {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .filter(|n| *n >= 0)
}

type Tx = mpsc::Sender<std::result::Result<Bytes, Infallible>>;

fn sse_response(rx: mpsc::Receiver<std::result::Result<Bytes, Infallible>>) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
            (header::CONNECTION, "keep-alive"),
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(rx),
    )
        .into_response()
}

async fn send(tx: &mut Tx, s: String) -> bool {
    tx.send(Ok(Bytes::from(s))).await.is_ok()
}

/// Host (with port) of a URL, lowercased (`http://localhost:3000/p` → `localhost:3000`).
pub fn url_host(url: &str) -> Option<String> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    (!authority.is_empty()).then(|| authority.to_ascii_lowercase())
}

/// Streams the events of `filter` after `after` (replay) then live, skipping
/// anything at or below the last sequence sent. Ends when the client leaves.
async fn pump(
    store: Store,
    mut tx: Tx,
    mut rx: tokio::sync::broadcast::Receiver<Arc<Published>>,
    replay_from: Option<i64>,
    filter: EventFilter,
) {
    let mut last_sent: i64 = 0;
    if let Some(n) = replay_from {
        // An id from the future (another store file) must not hide live events.
        let Ok(max) = store.max_sequence().await else {
            return;
        };
        last_sent = n.min(max);
        let Ok(events) = store.events_since(last_sent, filter.session.clone()).await else {
            return;
        };
        for e in events {
            if filter.matches(&store, &e).await && !send(&mut tx, event_frame(&e)).await {
                return;
            }
            last_sent = last_sent.max(e.sequence);
        }
    }
    let mut ping = tokio::time::interval(PING_INTERVAL);
    ping.tick().await;
    loop {
        tokio::select! {
            r = rx.recv() => match r {
                Ok(e) => {
                    if e.sequence <= last_sent {
                        continue;
                    }
                    if filter.matches(&store, e.event()).await
                        && !send(&mut tx, e.rendered(event_frame).to_owned()).await
                    {
                        return;
                    }
                    last_sent = e.sequence;
                }
                Err(RecvError::Lagged(_)) => {
                    // Re-read what we missed from the log (replayable events).
                    let Ok(events) = store.events_since(last_sent, filter.session.clone()).await else {
                        return;
                    };
                    for e in events {
                        if filter.matches(&store, &e).await
                            && !send(&mut tx, event_frame(&e)).await
                        {
                            return;
                        }
                        last_sent = last_sent.max(e.sequence);
                    }
                }
                Err(RecvError::Closed) => return,
            },
            _ = ping.tick() => {
                if !send(&mut tx, ": ping\n\n".into()).await {
                    return;
                }
            }
        }
    }
}

struct EventFilter {
    session: Option<String>,
    domain: Option<String>,
    hosts: tokio::sync::Mutex<HashMap<String, Option<String>>>,
}

impl EventFilter {
    async fn matches(&self, store: &Store, e: &Event) -> bool {
        if let Some(s) = &self.session {
            return &e.session_id == s;
        }
        let Some(domain) = &self.domain else {
            return true;
        };
        let mut hosts = self.hosts.lock().await;
        if !hosts.contains_key(&e.session_id) {
            let host = if e.kind == EventType::SessionCreated {
                e.payload
                    .get("url")
                    .and_then(Value::as_str)
                    .and_then(url_host)
            } else {
                match store.session(e.session_id.clone()).await {
                    Ok(Some(s)) => url_host(&s.url),
                    _ => None,
                }
            };
            hosts.insert(e.session_id.clone(), host);
        }
        hosts.get(&e.session_id).cloned().flatten().as_deref() == Some(domain.as_str())
    }
}

async fn session_events(
    State(st): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> ApiResult {
    if st.store.session(id.clone()).await?.is_none() {
        return Err(session_missing(&id).into());
    }
    let agent = q.get("agent").is_some_and(|v| v == "true");
    let rx = st.store.subscribe(); // before the replay query: nothing falls in between
    let replay = last_event_id(&headers);
    let (mut tx, body) = mpsc::channel(256);
    let guard = ListenerGuard::new(st.listeners.clone(), agent);
    let store = st.store.clone();
    tokio::spawn(async move {
        let _guard = guard;
        if !send(&mut tx, ": connected\n\n".into()).await {
            return;
        }
        let filter = EventFilter {
            session: Some(id),
            domain: None,
            hosts: Default::default(),
        };
        pump(store, tx, rx, replay, filter).await;
    });
    Ok(sse_response(body))
}

async fn global_events(
    State(st): State<AppState>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> ApiResult {
    let agent = q.get("agent").is_some_and(|v| v == "true");
    let domain = q
        .get("domain")
        .filter(|d| !d.is_empty())
        .map(|d| d.to_ascii_lowercase());
    let rx = st.store.subscribe();
    let replay = last_event_id(&headers);
    let (mut tx, body) = mpsc::channel(256);
    let guard = ListenerGuard::new(st.listeners.clone(), agent);
    let store = st.store.clone();
    tokio::spawn(async move {
        let _guard = guard;
        let hello = match &domain {
            Some(d) => format!(": connected to domain {d}\n\n"),
            None => ": connected\n\n".into(),
        };
        if !send(&mut tx, hello).await {
            return;
        }
        if agent {
            // Bootstrap snapshot: every pending annotation as sequence 0.
            let Ok(sessions) = store.sessions().await else {
                return;
            };
            let mut count = 0usize;
            for s in sessions.iter().rev() {
                if let Some(d) = &domain {
                    if url_host(&s.url).as_deref() != Some(d.as_str()) {
                        continue;
                    }
                }
                let Ok(pending) = store.pending(Some(s.id.clone())).await else {
                    return;
                };
                for a in pending {
                    let data = json!({"type": "annotation.created", "sessionId": s.id,
                        "timestamp": a.created_at.unwrap_or_else(now_ms), "sequence": 0,
                        "payload": a});
                    let frame = format!("event: annotation.created\nid: 0\ndata: {data}\n\n");
                    if !send(&mut tx, frame).await {
                        return;
                    }
                    count += 1;
                }
            }
            let done = json!({"domain": domain.as_deref().unwrap_or("all"), "count": count,
                "timestamp": iso_from_ms(now_ms())});
            if !send(&mut tx, format!("event: sync.complete\ndata: {done}\n\n")).await {
                return;
            }
        }
        let filter = EventFilter {
            session: None,
            domain,
            hosts: Default::default(),
        };
        pump(store, tx, rx, replay, filter).await;
    });
    Ok(sse_response(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_compiles_and_names_failing_fields() {
        let ok = json!({"id":"a","comment":"","elementPath":"p","timestamp":1,"x":1,"y":2,"element":"b"});
        assert!(validate_annotation(&ok, false).is_ok());
        let bad = json!({"id":"a","comment":1,"elementPath":"p","timestamp":1,"y":2,"element":"b","intent":"nope"});
        let Err(Error::Validation { errors }) = validate_annotation(&bad, false) else {
            panic!("expected a validation error");
        };
        let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["/comment", "/intent", "/x"]);
        assert!(validate_annotation(&json!({"severity":"blocking"}), true).is_ok());
    }

    #[test]
    fn url_hosts() {
        assert_eq!(
            url_host("http://localhost:3000/p?q").as_deref(),
            Some("localhost:3000")
        );
        assert_eq!(
            url_host("https://u@Example.com").as_deref(),
            Some("example.com")
        );
        assert_eq!(url_host("nope"), None);
    }
}
