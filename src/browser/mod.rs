//! The only importer of chromiumoxide: launch or connect to Chromium, open
//! pages, evaluate scripts, send input, take screenshots.
//!
//! Architecture invariant: chromiumoxide types never leave this module. The
//! handler task is supervised: when Chromium dies, [`Browser::is_alive`] turns
//! false, every pending and later call fails with [`Error::TargetClosed`]
//! instead of hanging (every CDP call also has a timeout), and the owner can
//! launch a fresh browser.

mod events;
pub mod keys;
mod page;

pub use events::PageEvent;

pub use page::{
    AxNode, KeyEvent, LoadState, MouseButton, NavOutcome, Page, ScreenshotFormat, ScreenshotRequest,
};

use crate::error::{Error, Result};
use chromiumoxide::browser::{Browser as CoBrowser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::target::CreateTargetParams;
use futures::StreamExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;

/// Flags every launch uses (chromiumoxide adds the leading `--`).
const FLAGS: &[&str] = &[
    "disable-gpu",
    "disable-quic",
    "no-first-run",
    "disable-background-networking",
    "disable-component-update",
    "disable-sync",
    "no-startup-window",
    "disable-frame-rate-limit",
    "disable-renderer-backgrounding",
    "force-device-scale-factor=1",
];

/// How to get a browser.
#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    /// Explicit Chromium executable.
    pub chrome: Option<PathBuf>,
    /// Connect to a running browser instead (`ws://…` or `http://host:port`).
    pub cdp: Option<String>,
    /// Show a window (for debugging); headless by default.
    pub headful: bool,
    /// Launch timeout.
    pub timeout: Option<Duration>,
}

/// Per-page viewport.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub width: u32,
    pub height: u32,
    pub dpr: f64,
}

impl Default for Viewport {
    fn default() -> Self {
        Viewport {
            width: 1280,
            height: 720,
            dpr: 1.0,
        }
    }
}

impl Viewport {
    /// Parse `1280x720` (also `1280,720`).
    pub fn parse(s: &str, dpr: f64) -> Result<Viewport> {
        let bad = || {
            Error::invalid_field(
                "viewport",
                format!(
                    "bad viewport {s:?}: expected WIDTHxHEIGHT, e.g. 1280x720 (each 100..=7680)"
                ),
            )
        };
        let (w, h) = s.split_once(['x', 'X', ',']).ok_or_else(bad)?;
        let w: u32 = w.trim().parse().map_err(|_| bad())?;
        let h: u32 = h.trim().parse().map_err(|_| bad())?;
        if !(100..=7680).contains(&w) || !(100..=7680).contains(&h) {
            return Err(bad());
        }
        if !(1.0..=3.0).contains(&dpr) {
            return Err(Error::invalid_field(
                "dpr",
                format!("device scale factor {dpr} out of range 1..=3"),
            ));
        }
        Ok(Viewport {
            width: w,
            height: h,
            dpr,
        })
    }
}

struct Inner {
    browser: Mutex<Option<CoBrowser>>,
    ws_url: String,
    alive: Arc<AtomicBool>,
    /// Set by [`Browser::close`]: the socket going away is then expected.
    closing: Arc<AtomicBool>,
    version: String,
    /// Removed when the last handle goes away.
    profile: Option<tempfile::TempDir>,
    /// Page ids are our own short strings; the map lives in `app`.
    launched: bool,
}

impl Drop for Inner {
    /// The last handle going away kills a launched Chromium (the child is
    /// killed on drop): the socket closing afterwards is expected, not a
    /// lost connection to warn about.
    fn drop(&mut self) {
        self.closing.store(true, Ordering::SeqCst);
    }
}

/// A cheap, cloneable handle to one running (or connected) browser.
#[derive(Clone)]
pub struct Browser {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("version", &self.inner.version)
            .field("alive", &self.is_alive())
            .finish()
    }
}

/// Find Chromium: explicit path, `PINPOINT_CHROME`, then well-known names on PATH.
pub fn find_chrome(explicit: Option<&Path>) -> Result<PathBuf> {
    let mut tried = Vec::new();
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = explicit {
        candidates.push(p.to_path_buf());
    } else {
        if let Some(p) = std::env::var_os("PINPOINT_CHROME") {
            candidates.push(PathBuf::from(p));
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        for name in [
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
        ] {
            for dir in std::env::split_paths(&path) {
                candidates.push(dir.join(name));
            }
        }
    }
    for c in candidates {
        if c.is_file() {
            // Debian's /usr/bin/chromium is a shell wrapper; the real binary is faster to start.
            if let Ok(text) = std::fs::read(&c) {
                if text.starts_with(b"#!") {
                    let real = Path::new("/usr/lib/chromium/chromium");
                    if real.is_file() {
                        return Ok(real.to_path_buf());
                    }
                }
            }
            return Ok(c);
        }
        tried.push(c.display().to_string());
    }
    if explicit.is_some() || tried.len() < 4 {
        return Err(Error::ChromeNotFound {
            tried: tried.join(", "),
        });
    }
    Err(Error::ChromeNotFound {
        tried: "--chrome, PINPOINT_CHROME, chromium, chromium-browser, google-chrome on PATH"
            .into(),
    })
}

/// Profile dirs of the Chromiums this process launched and has not closed yet.
static LIVE: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Runs at process exit (also when a `static` browser is never dropped, as in
/// test binaries): no Chromium outlives the process that launched it.
extern "C" fn kill_live_browsers() {
    if let Ok(dirs) = LIVE.lock() {
        for d in dirs.iter() {
            kill_profile_users(d);
        }
    }
}

fn track_profile(dir: &Path) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        // SAFETY: registers a plain `extern "C" fn()` that only reads /proc and calls kill(2).
        unsafe {
            libc::atexit(kill_live_browsers);
        }
    });
    if let Ok(mut dirs) = LIVE.lock() {
        dirs.push(dir.to_path_buf());
    }
}

fn untrack_profile(dir: &Path) {
    if let Ok(mut dirs) = LIVE.lock() {
        dirs.retain(|d| d != dir);
    }
}

/// Kill the processes running on a profile dir: at exit, the Chromiums this
/// process launched; at launch, those orphaned by a pinpoint process that was
/// killed before it could close them. Matching the exact `--user-data-dir`
/// argument means a reused pid is never hit.
fn kill_profile_users(dir: &Path) {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return;
    };
    let needle = format!("--user-data-dir={}", dir.display());
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|p| p.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        if cmd.split(|&b| b == 0).any(|arg| arg == needle.as_bytes()) {
            // SAFETY: kill(2) on a process running on our own stale profile.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
    }
}

/// Remove profile dirs left behind by pinpoint processes that were killed,
/// and the Chromium processes still running on them.
fn sweep_stale_profiles() {
    let Ok(rd) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(rest) = name.strip_prefix("pinpoint-chrome-") else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            kill_profile_users(&e.path());
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

impl Browser {
    /// Launch a local Chromium, or connect when `opts.cdp` is set.
    pub async fn launch(opts: &LaunchOptions) -> Result<Browser> {
        if let Some(url) = &opts.cdp {
            return Self::connect(url).await;
        }
        let exe = find_chrome(opts.chrome.as_deref())?;
        sweep_stale_profiles();
        let profile = tempfile::Builder::new()
            .prefix(&format!("pinpoint-chrome-{}-", std::process::id()))
            .tempdir()?;
        let mut b = BrowserConfig::builder()
            .chrome_executable(&exe)
            .user_data_dir(profile.path())
            .no_sandbox()
            .viewport(None)
            .launch_timeout(opts.timeout.unwrap_or(Duration::from_secs(20)))
            .request_timeout(Duration::from_secs(30))
            .args(FLAGS.iter().copied());
        if opts.headful {
            b = b.with_head();
        }
        let config = b.build().map_err(Error::BrowserLaunch)?;
        let dir = profile.path().to_path_buf();
        track_profile(&dir);
        let launched = match CoBrowser::launch(config).await {
            Ok((browser, handler)) => Self::finish(browser, handler, Some(profile), true).await,
            Err(e) => Err(Error::BrowserLaunch(format!("{} ({})", e, exe.display()))),
        };
        if launched.is_err() {
            untrack_profile(&dir);
        }
        launched
    }

    /// Connect to a running browser's DevTools endpoint.
    pub async fn connect(url: &str) -> Result<Browser> {
        let ws = if url.starts_with("http://") || url.starts_with("https://") {
            resolve_ws_url(url).await?
        } else {
            url.to_string()
        };
        let (browser, handler) = CoBrowser::connect(ws.clone())
            .await
            .map_err(|e| Error::BrowserLaunch(format!("cannot connect to {ws}: {e}")))?;
        Self::finish(browser, handler, None, false).await
    }

    async fn finish(
        browser: CoBrowser,
        mut handler: chromiumoxide::Handler,
        profile: Option<tempfile::TempDir>,
        launched: bool,
    ) -> Result<Browser> {
        let alive = Arc::new(AtomicBool::new(true));
        let flag = alive.clone();
        let closing = Arc::new(AtomicBool::new(false));
        let expected = closing.clone();
        tokio::spawn(async move {
            let lost = |e: &dyn std::fmt::Display| {
                if expected.load(Ordering::SeqCst) {
                    tracing::debug!("browser connection closed on request: {e}");
                } else {
                    tracing::warn!("browser connection lost: {e}");
                }
            };
            while let Some(ev) = handler.next().await {
                match ev {
                    Ok(()) => {}
                    // The socket is gone: Chromium died or the connection dropped.
                    Err(chromiumoxide::error::CdpError::Ws(e)) => {
                        lost(&e);
                        break;
                    }
                    Err(chromiumoxide::error::CdpError::Io(e)) => {
                        lost(&e);
                        break;
                    }
                    // Protocol hiccups are logged and survived.
                    Err(e) => tracing::debug!("cdp handler: {e}"),
                }
            }
            flag.store(false, Ordering::SeqCst);
            tracing::info!("browser connection closed");
        });
        let version = match tokio::time::timeout(Duration::from_secs(10), browser.version()).await {
            Ok(Ok(v)) => v.product,
            Ok(Err(e)) => return Err(Error::BrowserLaunch(e.to_string())),
            Err(_) => {
                return Err(Error::Timeout {
                    what: "the browser to answer".into(),
                    ms: 10_000,
                })
            }
        };
        let ws_url = browser.websocket_address().clone();
        let sockets = debug_sockets(&ws_url, true).await;
        if sockets == 0 {
            tracing::debug!("no DevTools socket found to turn Nagle's algorithm off");
        }
        Ok(Browser {
            inner: Arc::new(Inner {
                ws_url,
                browser: Mutex::new(Some(browser)),
                alive,
                closing,
                version,
                profile,
                launched,
            }),
        })
    }

    /// The temporary profile directory of a launched browser (removed when the last handle drops).
    pub fn profile_dir(&self) -> Option<&Path> {
        self.inner.profile.as_ref().map(|d| d.path())
    }

    /// The DevTools WebSocket URL (what `--cdp` takes to share this browser).
    pub fn ws_url(&self) -> &str {
        &self.inner.ws_url
    }

    pub fn version(&self) -> &str {
        &self.inner.version
    }

    /// How many of this process's connections to the DevTools endpoint have
    /// Nagle's algorithm off (at least one after a launch or connect on Linux).
    pub async fn no_delay_sockets(&self) -> usize {
        debug_sockets(&self.inner.ws_url, false).await
    }

    /// False once the connection to Chromium is gone.
    pub fn is_alive(&self) -> bool {
        self.inner.alive.load(Ordering::SeqCst)
    }

    /// Open a new page (tab) with its own viewport.
    pub async fn new_page(&self, viewport: Viewport) -> Result<Page> {
        self.check_alive()?;
        let guard = self.inner.browser.lock().await;
        let b = guard.as_ref().ok_or(Error::BrowserNotLaunched)?;
        // Each page in its own window: a background tab gets no animation
        // frames (rAF, CSS animations, wheel acks stall), a window does.
        let mut params = CreateTargetParams::new("about:blank");
        params.new_window = Some(true);
        let fut = b.new_page(params);
        let p = match tokio::time::timeout(Duration::from_secs(15), fut).await {
            Ok(Ok(p)) => p,
            Ok(Err(e)) => return Err(page::map_cdp(e, "new page")),
            Err(_) => {
                return Err(Error::Timeout {
                    what: "a new page".into(),
                    ms: 15_000,
                })
            }
        };
        drop(guard);
        Page::init(p, self.inner.alive.clone(), viewport).await
    }

    fn check_alive(&self) -> Result<()> {
        if self.is_alive() {
            Ok(())
        } else {
            Err(Error::TargetClosed {
                target: "browser".into(),
            })
        }
    }

    /// Close the browser (kills a launched process, disconnects otherwise).
    pub async fn close(&self) {
        self.inner.closing.store(true, Ordering::SeqCst);
        let mut guard = self.inner.browser.lock().await;
        if let Some(mut b) = guard.take() {
            if self.inner.launched {
                let _ = tokio::time::timeout(Duration::from_secs(3), b.close()).await;
                let _ = tokio::time::timeout(Duration::from_secs(3), b.wait()).await;
                let _ = b.kill().await;
            }
        }
        if let Some(p) = &self.inner.profile {
            untrack_profile(p.path());
        }
        self.inner.alive.store(false, Ordering::SeqCst);
    }

    /// Kill the Chromium process abruptly (for crash tests).
    pub async fn kill(&self) {
        let mut guard = self.inner.browser.lock().await;
        if let Some(b) = guard.as_mut() {
            let _ = b.kill().await;
        }
    }
}

/// The process's TCP sockets connected to the DevTools endpoint `ws_url`;
/// with `set`, Nagle's algorithm is turned off on each (`TCP_NODELAY`).
/// Returns how many of them have it off afterwards.
///
/// chromiumoxide opens the socket with Nagle on, so a command sent while an
/// earlier one is unanswered sits in our kernel until Chromium ACKs the first
/// segment, which it does with its answer. Measured (Python CDP probe,
/// demo.html): an evaluate sent with a screenshot was answered at 39 ms,
/// after the screenshot, with Nagle on, and at 3 ms with `TCP_NODELAY`.
#[cfg(target_os = "linux")]
pub(crate) async fn debug_sockets(ws_url: &str, set: bool) -> usize {
    use std::os::fd::BorrowedFd;
    let Some(host) = ws_url
        .split_once("://")
        .and_then(|(_, rest)| rest.split('/').next())
    else {
        return 0;
    };
    let peers: Vec<std::net::SocketAddr> = match tokio::net::lookup_host(host).await {
        Ok(a) => a.collect(),
        Err(_) => return 0,
    };
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
        return 0;
    };
    let mut n = 0;
    for entry in dir.flatten() {
        let Some(fd) = entry.file_name().to_str().and_then(|f| f.parse().ok()) else {
            continue;
        };
        let socket = std::fs::read_link(entry.path())
            .is_ok_and(|l| l.to_string_lossy().starts_with("socket:"));
        if !socket {
            continue;
        }
        // SAFETY: `fd` was an open socket of this process a moment ago; it is
        // borrowed for two syscalls only. Had it been closed and its number
        // reused since, those calls fail or touch a socket to the same peer.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        let s = socket2::SockRef::from(&fd);
        let ours = s
            .peer_addr()
            .ok()
            .and_then(|a| a.as_socket())
            .is_some_and(|a| peers.contains(&a));
        if !ours {
            continue;
        }
        let on = if set {
            s.set_tcp_nodelay(true).is_ok()
        } else {
            s.tcp_nodelay().unwrap_or(false)
        };
        n += usize::from(on);
    }
    n
}

#[cfg(not(target_os = "linux"))]
pub(crate) async fn debug_sockets(_ws_url: &str, _set: bool) -> usize {
    0
}

/// `http://host:port` -> the browser's WebSocket debugger URL (`/json/version`).
async fn resolve_ws_url(base: &str) -> Result<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rest = base
        .trim_start_matches("http://")
        .trim_start_matches("https://")
        .trim_end_matches('/');
    let hostport = rest.split('/').next().unwrap_or(rest);
    let fail = |why: String| Error::BrowserLaunch(format!("cannot reach {base}: {why}"));
    let mut s = tokio::time::timeout(
        Duration::from_secs(5),
        tokio::net::TcpStream::connect(hostport),
    )
    .await
    .map_err(|_| fail("timed out".into()))?
    .map_err(|e| fail(e.to_string()))?;
    let req =
        format!("GET /json/version HTTP/1.1\r\nHost: {hostport}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes())
        .await
        .map_err(|e| fail(e.to_string()))?;
    // Read the headers, then Content-Length bytes (the DevTools server keeps the socket open).
    let mut buf = Vec::new();
    let read = async {
        let mut chunk = [0u8; 4096];
        loop {
            let n = s.read(&mut chunk).await?;
            if n == 0 {
                break;
            }
            buf.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&buf);
            if let Some(end) = text.find("\r\n\r\n") {
                let len = text[..end]
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.trim()
                            .eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(usize::MAX);
                if buf.len() >= end + 4 + len {
                    break;
                }
            }
        }
        Ok::<(), std::io::Error>(())
    };
    tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .map_err(|_| fail("timed out".into()))?
        .map_err(|e| fail(e.to_string()))?;
    let text = String::from_utf8_lossy(&buf);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
    let v: serde_json::Value =
        serde_json::from_str(body).map_err(|e| fail(format!("bad /json/version: {e}")))?;
    v.get("webSocketDebuggerUrl")
        .and_then(|u| u.as_str())
        .map(str::to_string)
        .ok_or_else(|| fail("no webSocketDebuggerUrl in /json/version".into()))
}
