//! The axum server of `pinpoint serve`: BAP over WebSocket and `POST /rpc`,
//! `GET /health`, and the annotations REST + SSE API, on one port behind one
//! security guard.
//!
//! - [`bap`]: the BAP transports (WebSocket on any unclaimed path, `/rpc`, `/health`);
//! - [`annotations`]: the Agentation-compatible annotation API;
//! - [`security`]: Host / Origin / CORS / token checks in front of every route.
//!
//! Invariant: no method logic here; routes call `rpc::dispatch`, `app` and the
//! annotation store, and map errors through the crate error only.
pub mod annotations;
pub mod bap;
pub mod security;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;

use crate::error::Result;
use crate::rpc::dispatch::{Hub, HubConfig};
pub use security::SecurityConfig;

/// Everything one server needs.
#[derive(Clone)]
pub struct ServerParts {
    pub hub: Arc<Hub>,
    pub security: SecurityConfig,
}

impl ServerParts {
    /// A hub with `cfg` (its store, if any, also serves the annotation API).
    pub fn new(cfg: HubConfig, security: SecurityConfig) -> ServerParts {
        ServerParts {
            hub: Hub::new(cfg),
            security,
        }
    }
}

/// The whole router: BAP, health, annotations, behind the security guard.
pub fn app(parts: &ServerParts) -> Router {
    let bap = Router::new()
        .route("/health", get(bap::health))
        .route(
            "/rpc",
            post(bap::rpc).layer(DefaultBodyLimit::max(bap::MAX_INBOUND)),
        )
        .fallback(bap::fallback)
        .with_state(parts.hub.clone());
    let mut r = bap;
    if let Some(store) = &parts.hub.cfg.store {
        r = r.merge(annotations::router(store.clone()));
    }
    r.layer(axum::middleware::from_fn_with_state(
        Arc::new(parts.security.clone()),
        security::guard,
    ))
}

/// Serve `app(parts)` on `listener` until `shutdown` resolves, then close
/// every browser the server started.
pub async fn serve(
    listener: tokio::net::TcpListener,
    parts: ServerParts,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let router = app(&parts);
    axum::serve(
        listener,
        router.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await?;
    parts.hub.shutdown().await;
    Ok(())
}
