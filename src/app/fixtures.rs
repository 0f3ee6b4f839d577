//! A tiny static file server on 127.0.0.1 (port 0) for local pages: the CLI
//! serves a file's folder with it, and the tests serve `fixtures/`.

use crate::error::{Error, Result};
use axum::body::Body;
use axum::http::{header, StatusCode, Uri};
use axum::response::Response;
use std::path::{Component, Path, PathBuf};

/// A running static server; stops when dropped.
pub struct StaticServer {
    addr: std::net::SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl StaticServer {
    /// Serve `dir` on an ephemeral loopback port.
    pub async fn start(dir: &Path) -> Result<StaticServer> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        Self::serve_on(dir, listener)
    }

    /// Serve `dir` on a port derived from its path when that port is free, so
    /// the same local page keeps the same URL across runs (annotations are
    /// stored per URL); an ephemeral port otherwise.
    pub async fn start_stable(dir: &Path) -> Result<StaticServer> {
        let h = blake3::hash(dir.to_string_lossy().as_bytes());
        let port = 41_000 + (u16::from_le_bytes([h.as_bytes()[0], h.as_bytes()[1]]) % 16_000);
        match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
            Ok(l) => Self::serve_on(dir, l),
            Err(_) => Self::start(dir).await,
        }
    }

    fn serve_on(dir: &Path, listener: tokio::net::TcpListener) -> Result<StaticServer> {
        let root = dir.to_path_buf();
        let addr = listener.local_addr()?;
        let app = axum::Router::new().fallback(move |uri: Uri| {
            let root = root.clone();
            async move { serve(&root, &uri).await }
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(StaticServer { addr, task })
    }

    /// `http://127.0.0.1:PORT`
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base_url(), path.trim_start_matches('/'))
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(root: &Path, uri: &Uri) -> Response {
    let rel = uri.path().trim_start_matches('/');
    let rel = if rel.is_empty() { "index.html" } else { rel };
    let decoded = percent_decode(rel);
    let mut path = PathBuf::from(root);
    for c in Path::new(&decoded).components() {
        match c {
            Component::Normal(p) => path.push(p),
            _ => return status(StatusCode::FORBIDDEN),
        }
    }
    match tokio::fs::read(&path).await {
        Ok(bytes) => Response::builder()
            .header(header::CONTENT_TYPE, mime(&path))
            .header(header::CACHE_CONTROL, "no-store")
            .body(Body::from(bytes))
            .unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR)),
        Err(_) => status(StatusCode::NOT_FOUND),
    }
}

fn status(s: StatusCode) -> Response {
    let mut r = Response::new(Body::from(s.canonical_reason().unwrap_or("")));
    *r.status_mut() = s;
    r
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn mime(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "svg" => "image/svg+xml",
        "gif" => "image/gif",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Map an I/O error when the fixtures folder is missing.
pub fn fixtures_dir() -> Result<PathBuf> {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    if d.is_dir() {
        Ok(d)
    } else {
        Err(Error::invalid(format!(
            "fixtures folder not found at {}",
            d.display()
        )))
    }
}
