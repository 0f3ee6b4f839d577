//! BAP transports: JSON-RPC 2.0 over WebSocket (any path no other route
//! claims) and over `POST /rpc`, plus `GET /health`.
//!
//! WebSocket: one text frame = one message; each request runs in its own
//! task, so replies may come back out of order (clients match by `id`);
//! notifications and replies share one writer task. Binary frames are
//! ignored. Inbound messages over 10 MiB close the socket (1009). A bad or
//! missing token: the upgrade is accepted, then closed with 1008 (as REF).
//!
//! HTTP: `POST /rpc` takes one JSON-RPC request; the session is named by the
//! `X-Pinpoint-Session` header (created, already initialized, when absent or
//! unknown, and returned in the same header), so `curl` can drive a browser.
//!
//! Invariant: no method logic here — everything goes through
//! `rpc::dispatch::Conn`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::security::TokenStatus;
use crate::rpc::dispatch::Hub;
use crate::rpc::{ErrorResponse, Incoming, RpcError};

/// Largest inbound WebSocket message (BAP `maxPayload`).
pub const MAX_INBOUND: usize = 10 * 1024 * 1024;
/// The HTTP session header.
pub const SESSION_HEADER: &str = "x-pinpoint-session";

/// `GET /health`: BAP's shape plus Agentation's `mode`.
pub async fn health() -> Json<Value> {
    Json(json!({
        "status": "ok",
        "version": crate::rpc::PROTOCOL_VERSION,
        "mode": "local",
        "server": "pinpoint",
        "serverVersion": env!("CARGO_PKG_VERSION"),
    }))
}

/// `POST /rpc`: one JSON-RPC request over HTTP.
pub async fn rpc(State(hub): State<Arc<Hub>>, headers: HeaderMap, body: Bytes) -> Response {
    let sid = headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|s| !s.is_empty() && s.len() <= 128);
    let (conn, sid) = hub.http_session(sid);
    let text = String::from_utf8_lossy(&body);
    let reply = match Incoming::parse(&text) {
        Incoming::Request { id, method, params } => {
            Some(conn.request(id, &method, params).await.to_text())
        }
        Incoming::Invalid(e) => Some(e.to_text()),
        Incoming::Notification { .. } | Incoming::Ignored => None,
    };
    let mut res = match reply {
        Some(text) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            text,
        )
            .into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    };
    if let Ok(v) = HeaderValue::from_str(&sid) {
        res.headers_mut().insert(SESSION_HEADER, v);
    }
    res
}

/// Fallback: a WebSocket upgrade on any unclaimed path is a BAP connection;
/// other requests get 426 on `/` and 404 JSON elsewhere.
pub async fn fallback(State(hub): State<Arc<Hub>>, req: Request) -> Response {
    let token = req
        .extensions()
        .get::<TokenStatus>()
        .copied()
        .unwrap_or(TokenStatus::NotRequired);
    let path = req.uri().path().to_string();
    let (mut parts, _body) = req.into_parts();
    match WebSocketUpgrade::from_request_parts(&mut parts, &()).await {
        Ok(ws) => ws
            .max_message_size(MAX_INBOUND)
            .max_frame_size(MAX_INBOUND)
            .on_upgrade(move |socket| serve_socket(hub, socket, token))
            .into_response(),
        Err(_) if path == "/" => (
            StatusCode::UPGRADE_REQUIRED,
            [
                (header::CONTENT_TYPE, "text/plain"),
                (header::CACHE_CONTROL, "no-store"),
            ],
            "WebSocket connection required",
        )
            .into_response(),
        Err(_) => super::annotations::not_found().await,
    }
}

async fn serve_socket(hub: Arc<Hub>, socket: WebSocket, token: TokenStatus) {
    let (mut tx, mut rx) = socket.split();
    if token == TokenStatus::Bad {
        let _ = tx
            .send(Message::Close(Some(CloseFrame {
                code: 1008,
                reason: "missing or invalid token".into(),
            })))
            .await;
        return;
    }
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        while let Some(text) = out_rx.recv().await {
            if tx.send(Message::Text(text.into())).await.is_err() {
                break;
            }
        }
        let _ = tx.close().await;
    });
    let conn = hub.connect(out_tx.clone());
    while let Some(msg) = rx.next().await {
        let text = match msg {
            Ok(Message::Text(t)) => t.to_string(),
            Ok(Message::Close(_)) => break,
            Ok(_) => continue, // binary, ping, pong
            Err(e) => {
                tracing::debug!("websocket closed: {e}");
                break;
            }
        };
        // Lifecycle calls are answered in order; the rest run concurrently.
        let ordered = matches!(
            Incoming::parse(&text),
            Incoming::Request { ref method, .. } if method == "initialize" || method == "shutdown"
        );
        let c = conn.clone();
        let out = out_tx.clone();
        let job = async move {
            if let Some(reply) = c.handle_text(&text).await {
                let reply = if reply.len() > crate::rpc::dispatch::MAX_RESPONSE_BYTES {
                    oversize(&reply)
                } else {
                    reply
                };
                let _ = out.send(reply);
            }
        };
        if ordered {
            job.await;
        } else {
            tokio::spawn(job);
        }
    }
    conn.closed().await;
    writer.abort();
}

/// A reply too large for one frame becomes a -32024 error with the same id.
fn oversize(reply: &str) -> String {
    let id = serde_json::from_str::<Value>(reply)
        .ok()
        .and_then(|v| v.get("id").cloned())
        .unwrap_or(Value::from(0));
    let e = crate::Error::ResourceLimit {
        resource: "response bytes".into(),
        limit: crate::rpc::dispatch::MAX_RESPONSE_BYTES as u64,
        current: reply.len() as u64,
    };
    ErrorResponse::new(id, RpcError::from(&e)).to_text()
}
