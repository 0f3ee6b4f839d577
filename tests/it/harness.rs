//! Shared test harness: one tokio runtime, one Chromium, one fixture server
//! for the whole test binary. Each test opens its own page(s).

use pinpoint::app::fixtures::{fixtures_dir, StaticServer};
use pinpoint::app::{ObserveOptions, PageState, Session};
use pinpoint::browser::{LaunchOptions, LoadState, Viewport};
use pinpoint::model::Observation;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
static ENV: tokio::sync::OnceCell<(Arc<Session>, StaticServer)> =
    tokio::sync::OnceCell::const_new();

pub fn rt() -> &'static tokio::runtime::Runtime {
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("test runtime")
    })
}

/// Run an async test body on the shared runtime.
pub fn run<F: Future>(f: F) -> F::Output {
    rt().block_on(f)
}

/// The shared session (one browser) and the fixture server.
pub async fn env() -> &'static (Arc<Session>, StaticServer) {
    ENV.get_or_init(|| async {
        let server = StaticServer::start(&fixtures_dir().expect("fixtures"))
            .await
            .expect("fixture server");
        let session = Arc::new(Session::new(LaunchOptions::default(), Viewport::default()));
        (session, server)
    })
    .await
}

pub async fn session() -> Arc<Session> {
    env().await.0.clone()
}

pub async fn url(fixture: &str) -> String {
    env().await.1.url(fixture)
}

/// Open a fixture page in a new tab.
pub async fn open(fixture: &str) -> Arc<PageState> {
    open_with(fixture, Viewport::default()).await
}

pub async fn open_with(fixture: &str, vp: Viewport) -> Arc<PageState> {
    let s = session().await;
    let p = s.new_page(Some(vp)).await.expect("new page");
    s.navigate(
        &p,
        &url(fixture).await,
        LoadState::Load,
        Duration::from_secs(20),
    )
    .await
    .expect("navigate");
    p
}

pub async fn observe(p: &PageState) -> Observation {
    session()
        .await
        .observe(p, &ObserveOptions::default())
        .await
        .expect("observe")
}

/// Evaluate JS in the page and return JSON.
pub async fn js(p: &PageState, expr: &str) -> serde_json::Value {
    p.page.eval(expr).await.expect("eval")
}

/// Mean absolute channel difference between `small` and `full` resized to
/// `small`'s size (how close a scaled capture is to a full-size one).
pub fn mean_diff_to_resized(full: &image::RgbImage, small: &image::RgbImage) -> f64 {
    let r = image::imageops::resize(
        full,
        small.width(),
        small.height(),
        image::imageops::FilterType::Triangle,
    );
    let diff: u64 = r
        .as_raw()
        .iter()
        .zip(small.as_raw())
        .map(|(a, b)| u64::from(a.abs_diff(*b)))
        .sum();
    diff as f64 / r.as_raw().len().max(1) as f64
}

/// The median of `v` (probes).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// The median of `v` and its 1st, 10th, 25th, 50th, 75th and 90th percentiles, printed.
pub fn spread(mut v: Vec<f64>) -> (f64, String) {
    v.sort_by(|a, b| a.total_cmp(b));
    let q: Vec<String> = [1, 10, 25, 50, 75, 90]
        .iter()
        .map(|&i| format!("{:.1}", v[i * (v.len() - 1) / 100]))
        .collect();
    (v[v.len() / 2], q.join(" "))
}

/// A number from the environment variable `name` (probes' knobs), else `default`.
pub fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The fixture a probe runs on: `PROFILE_PAGE`, else `default`.
pub fn profile_page(default: &str) -> String {
    std::env::var("PROFILE_PAGE").unwrap_or_else(|_| default.to_string())
}
