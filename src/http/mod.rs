//! axum router: /rpc, WebSocket, annotations REST + SSE, /health.
