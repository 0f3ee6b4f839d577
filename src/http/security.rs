//! The HTTP security layer shared by every route (REST, SSE, `/rpc`, WebSocket
//! upgrades): Host check (DNS rebinding), Origin allow-list with CORS answers,
//! and the optional BAP token.
//!
//! Order of checks: `Host` → `Origin` (403) → `OPTIONS` preflight (204) →
//! token (401, or a [`TokenStatus`] marker on WebSocket upgrades, which BAP
//! must accept and then close with 1008) → the route → CORS headers.
//!
//! Invariants: the token is compared in constant time and never logged; a
//! request with a disallowed `Origin` never reaches a route; errors use the
//! crate error body `{"error": {"code", "message", "details"}}`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::error::Error;

/// `Access-Control-Allow-Methods` on every allowed answer.
pub const ALLOW_METHODS: &str = "GET, POST, PATCH, DELETE, OPTIONS";
/// `Access-Control-Allow-Headers` (Agentation's list plus `X-BAP-Token`).
pub const ALLOW_HEADERS: &str =
    "Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, X-BAP-Token";
/// The header that may carry the token.
pub const TOKEN_HEADER: &str = "x-bap-token";

/// What the security layer lets through.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecurityConfig {
    /// Extra browser origins allowed besides local ones (`https://review.example.com`);
    /// `"*"` allows any origin (answers `Access-Control-Allow-Origin: *`).
    pub allowed_origins: Vec<String>,
    /// When set, every request must carry `?token=` or `X-BAP-Token`.
    pub token: Option<String>,
    /// The address the server listens on (`127.0.0.1:7411`, `myhost`); its
    /// hostname is an accepted `Host` besides the local names.
    pub bound_host: String,
}

/// Token verdict attached (as a request extension) to WebSocket upgrades,
/// and to every request that passed the layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenStatus {
    /// No token configured.
    NotRequired,
    /// A token is configured and the request carried it.
    Ok,
    /// A token is configured and the request did not carry it (only WebSocket
    /// upgrades get this far; close the socket with 1008).
    Bad,
}

/// The crate's JSON error answer: `{"error": {"code", "message", "details"}}`.
pub fn error_response(e: &Error) -> Response {
    let status = StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let message = if status == StatusCode::INTERNAL_SERVER_ERROR {
        tracing::error!("internal error answering a request: {e}");
        "Internal server error".to_owned()
    } else {
        e.to_string()
    };
    let mut body = json!({"error": {"code": e.code(), "message": message, "details": e.details()}});
    if let Some(h) = e.hint() {
        body["error"]["hint"] = json!(h);
    }
    (status, axum::Json(body)).into_response()
}

/// Hostname of a `Host`-style value (`[::1]:80` → `::1`, `a.b:8` → `a.b`), lowercased.
fn hostname(hostport: &str) -> String {
    let h = hostport.trim();
    let name = if let Some(rest) = h.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else if h.matches(':').count() > 1 {
        h // bare IPv6 without brackets
    } else {
        h.split(':').next().unwrap_or("")
    };
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// `localhost`, `*.localhost`, 127.0.0.0/8, `::1` (and `::ffff:127.x`).
pub fn is_local_hostname(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        return true;
    }
    match name.parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => v4.is_loopback(),
        Ok(IpAddr::V6(v6)) => {
            v6 == Ipv6Addr::LOCALHOST
                || v6
                    .to_ipv4_mapped()
                    .is_some_and(|v4: Ipv4Addr| v4.is_loopback())
        }
        Err(_) => false,
    }
}

/// Whether a `Host` header value is acceptable (local, or the bound address).
pub fn host_allowed(cfg: &SecurityConfig, host: &str) -> bool {
    let name = hostname(host);
    if is_local_hostname(&name) {
        return true;
    }
    let bound = hostname(&cfg.bound_host);
    !bound.is_empty() && name == bound
}

/// Parse `scheme://host[:port]` into (scheme, hostname).
fn parse_origin(origin: &str) -> Option<(String, String)> {
    let (scheme, rest) = origin.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    if authority.is_empty() {
        return None;
    }
    Some((scheme.to_ascii_lowercase(), hostname(authority)))
}

/// Whether a browser `Origin` may use the API.
pub fn origin_allowed(cfg: &SecurityConfig, origin: &str) -> bool {
    let norm = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    if cfg
        .allowed_origins
        .iter()
        .any(|o| o == "*" || o.trim().trim_end_matches('/').to_ascii_lowercase() == norm)
    {
        return true;
    }
    match parse_origin(&norm) {
        Some((scheme, host)) => (scheme == "http" || scheme == "https") && is_local_hostname(&host),
        None => false,
    }
}

/// Constant-time token comparison (compares BLAKE3 digests; `blake3::Hash`
/// equality is constant-time, and hashing hides the length).
pub fn token_matches(expected: &str, given: &str) -> bool {
    blake3::hash(expected.as_bytes()) == blake3::hash(given.as_bytes())
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The token a request carries: `?token=` wins over `X-BAP-Token`.
fn request_token(req: &Request) -> Option<String> {
    if let Some(q) = req.uri().query() {
        for pair in q.split('&') {
            if let Some(v) = pair.strip_prefix("token=") {
                return Some(percent_decode(v));
            }
        }
    }
    req.headers()
        .get(TOKEN_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

fn is_ws_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

fn add_cors(headers: &mut HeaderMap, origin: &HeaderValue, wildcard: bool, preflight: bool) {
    if wildcard {
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
    } else {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
        headers.append(header::VARY, HeaderValue::from_static("Origin"));
    }
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static(ALLOW_METHODS),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(ALLOW_HEADERS),
    );
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("Mcp-Session-Id"),
    );
    if preflight {
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("86400"),
        );
    }
}

/// The middleware: `axum::middleware::from_fn_with_state(Arc::new(cfg), guard)`.
pub async fn guard(
    State(cfg): State<Arc<SecurityConfig>>,
    mut req: Request,
    next: Next,
) -> Response {
    // 1. Host (DNS rebinding). A missing Host (HTTP/1.0, tests) is allowed.
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| req.uri().authority().map(|a| a.to_string()));
    if let Some(h) = host {
        if !host_allowed(&cfg, &h) {
            return error_response(&Error::Forbidden {
                message: "Host not allowed".into(),
            });
        }
    }
    // 2. Origin.
    let origin = req.headers().get(header::ORIGIN).cloned();
    if let Some(o) = &origin {
        let ok = o.to_str().is_ok_and(|s| origin_allowed(&cfg, s));
        if !ok {
            return error_response(&Error::Forbidden {
                message: "Origin not allowed".into(),
            });
        }
    }
    let wildcard = cfg.allowed_origins.iter().any(|o| o == "*");
    // 3. Preflight (browsers never send credentials on it, so no token check).
    if req.method() == Method::OPTIONS {
        let mut res = StatusCode::NO_CONTENT.into_response();
        if let Some(o) = &origin {
            add_cors(res.headers_mut(), o, wildcard, true);
        }
        return res;
    }
    // 4. Token.
    let status = match &cfg.token {
        None => TokenStatus::NotRequired,
        Some(expected) => match request_token(&req) {
            Some(given) if token_matches(expected, &given) => TokenStatus::Ok,
            _ => TokenStatus::Bad,
        },
    };
    if status == TokenStatus::Bad && !is_ws_upgrade(req.headers()) {
        let mut res = error_response(&Error::Unauthorized {
            message: "missing or invalid token".into(),
        });
        if let Some(o) = &origin {
            add_cors(res.headers_mut(), o, wildcard, false);
        }
        return res;
    }
    req.extensions_mut().insert(status);
    // 5. The route, then CORS headers on the answer.
    let mut res = next.run(req).await;
    if let Some(o) = &origin {
        add_cors(res.headers_mut(), o, wildcard, false);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::routing::get;
    use axum::{Extension, Router};
    use tower::ServiceExt;

    fn app(cfg: SecurityConfig) -> Router {
        Router::new()
            .route(
                "/x",
                get(|Extension(t): Extension<TokenStatus>| async move { format!("{t:?}") }),
            )
            .layer(axum::middleware::from_fn_with_state(Arc::new(cfg), guard))
    }

    fn cfg() -> SecurityConfig {
        SecurityConfig {
            allowed_origins: vec!["https://review.example.com".into()],
            token: None,
            bound_host: "10.0.0.5:7411".into(),
        }
    }

    async fn send(app: &Router, req: axum::http::Request<Body>) -> (StatusCode, HeaderMap, String) {
        let res = app.clone().oneshot(req).await.unwrap();
        let status = res.status();
        let headers = res.headers().clone();
        let body = axum::body::to_bytes(res.into_body(), 1 << 20)
            .await
            .unwrap();
        (status, headers, String::from_utf8_lossy(&body).into_owned())
    }

    fn get_req(path: &str, headers: &[(&str, &str)]) -> axum::http::Request<Body> {
        let mut b = axum::http::Request::builder().uri(path);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(Body::empty()).unwrap()
    }

    #[test]
    fn local_names() {
        for h in [
            "localhost",
            "app.localhost",
            "127.0.0.1",
            "127.8.9.1",
            "::1",
            "LOCALHOST.",
        ] {
            assert!(is_local_hostname(h), "{h}");
        }
        for h in [
            "example.com",
            "10.0.0.1",
            "192.168.1.1",
            "localhost.evil.com",
            "0.0.0.0",
        ] {
            assert!(!is_local_hostname(h), "{h}");
        }
        assert_eq!(hostname("[::1]:8080"), "::1");
        assert_eq!(hostname("Localhost:3000"), "localhost");
    }

    #[test]
    fn origins() {
        let c = cfg();
        for o in [
            "http://localhost:3000",
            "https://app.localhost",
            "http://127.0.0.1:5173",
            "http://[::1]:8080",
            "https://review.example.com",
            "https://review.example.com/",
        ] {
            assert!(origin_allowed(&c, o), "{o}");
        }
        for o in [
            "null",
            "http://evil.com",
            "file://localhost",
            "ftp://localhost",
            "http://localhost.evil.com",
            "http://192.168.1.2",
            "https://review.example.com.evil.com",
        ] {
            assert!(!origin_allowed(&c, o), "{o}");
        }
    }

    #[test]
    fn constant_time_token_compare() {
        assert!(token_matches("s3cret", "s3cret"));
        assert!(!token_matches("s3cret", "s3cre"));
        assert!(!token_matches("s3cret", ""));
        assert_eq!(percent_decode("a%2Fb+c%zz"), "a/b c%zz");
    }

    #[tokio::test]
    async fn host_rules() {
        let app = app(cfg());
        for h in [
            "localhost:7411",
            "127.0.0.1",
            "[::1]:7411",
            "10.0.0.5:7411",
            "x.localhost",
        ] {
            let (s, _, _) = send(&app, get_req("/x", &[("host", h)])).await;
            assert_eq!(s, StatusCode::OK, "{h}");
        }
        for h in ["evil.com", "attacker.example:7411", "10.0.0.6"] {
            let (s, _, body) = send(&app, get_req("/x", &[("host", h)])).await;
            assert_eq!(s, StatusCode::FORBIDDEN, "{h}");
            assert!(body.contains("\"code\":\"forbidden\""));
        }
        // no Host header at all is allowed
        let (s, _, _) = send(&app, get_req("/x", &[])).await;
        assert_eq!(s, StatusCode::OK);
    }

    #[tokio::test]
    async fn origin_rules_and_cors() {
        let app = app(cfg());
        let (s, h, body) = send(&app, get_req("/x", &[("origin", "http://localhost:3000")])).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(body, "NotRequired");
        assert_eq!(h["access-control-allow-origin"], "http://localhost:3000");
        assert_eq!(h["vary"], "Origin");
        assert_eq!(h["access-control-allow-methods"], ALLOW_METHODS);
        assert!(h.get("access-control-max-age").is_none());
        // no Origin: served, no ACAO
        let (s, h, _) = send(&app, get_req("/x", &[])).await;
        assert_eq!(s, StatusCode::OK);
        assert!(h.get("access-control-allow-origin").is_none());
        // bad origin: 403 everywhere, including OPTIONS and unknown paths
        for (m, p) in [
            ("GET", "/x"),
            ("OPTIONS", "/x"),
            ("POST", "/nope"),
            ("GET", "/"),
        ] {
            let req = axum::http::Request::builder()
                .method(m)
                .uri(p)
                .header("origin", "http://evil.com")
                .body(Body::empty())
                .unwrap();
            let (s, h, _) = send(&app, req).await;
            assert_eq!(s, StatusCode::FORBIDDEN, "{m} {p}");
            assert!(h.get("access-control-allow-origin").is_none());
        }
        // preflight
        let req = axum::http::Request::builder()
            .method("OPTIONS")
            .uri("/anything")
            .header("origin", "https://review.example.com")
            .header("access-control-request-method", "PATCH")
            .body(Body::empty())
            .unwrap();
        let (s, h, body) = send(&app, req).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        assert!(body.is_empty());
        assert_eq!(
            h["access-control-allow-origin"],
            "https://review.example.com"
        );
        assert_eq!(h["access-control-max-age"], "86400");
        assert!(h["access-control-allow-headers"]
            .to_str()
            .unwrap()
            .contains("X-BAP-Token"));
        assert_eq!(h["access-control-expose-headers"], "Mcp-Session-Id");
    }

    #[tokio::test]
    async fn wildcard_origin() {
        let mut c = cfg();
        c.allowed_origins = vec!["*".into()];
        let app = app(c);
        let (s, h, _) = send(
            &app,
            get_req("/x", &[("origin", "https://anything.example")]),
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(h["access-control-allow-origin"], "*");
        assert!(h.get("vary").is_none());
    }

    #[tokio::test]
    async fn token_rules() {
        let mut c = cfg();
        c.token = Some("s3cr t".into());
        let app = app(c);
        let (s, _, body) = send(&app, get_req("/x", &[])).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        assert!(body.contains("\"code\":\"unauthorized\""));
        assert!(!body.contains("s3cr"), "the token never appears in answers");
        let (s, _, _) = send(&app, get_req("/x?token=wrong", &[])).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        let (s, _, body) = send(&app, get_req("/x?token=s3cr%20t", &[])).await;
        assert_eq!((s, body.as_str()), (StatusCode::OK, "Ok"));
        let (s, _, _) = send(&app, get_req("/x", &[("x-bap-token", "s3cr t")])).await;
        assert_eq!(s, StatusCode::OK);
        // the query wins over the header
        let (s, _, _) = send(&app, get_req("/x?token=bad", &[("x-bap-token", "s3cr t")])).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED);
        // WebSocket upgrade with a bad token passes with the Bad marker
        let (s, _, body) = send(
            &app,
            get_req("/x", &[("upgrade", "websocket"), ("connection", "upgrade")]),
        )
        .await;
        assert_eq!((s, body.as_str()), (StatusCode::OK, "Bad"));
        // preflight needs no token
        let req = axum::http::Request::builder()
            .method("OPTIONS")
            .uri("/x")
            .header("origin", "http://localhost:3000")
            .body(Body::empty())
            .unwrap();
        let (s, _, _) = send(&app, req).await;
        assert_eq!(s, StatusCode::NO_CONTENT);
        // but the Origin and Host rules still apply to upgrades
        let (s, _, _) = send(
            &app,
            get_req(
                "/x?token=s3cr%20t",
                &[("upgrade", "websocket"), ("origin", "http://evil.com")],
            ),
        )
        .await;
        assert_eq!(s, StatusCode::FORBIDDEN);
    }
}
