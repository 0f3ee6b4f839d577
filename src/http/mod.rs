//! axum router: /rpc, WebSocket, annotations REST + SSE, /health.
pub mod annotations;
pub mod security;
