//! Sessions, pages and the observe/act pipelines that every interface calls.
//!
//! A [`Session`] owns (lazily) one browser, its pages and one ref registry per
//! page. The browser is relaunched on the next call when it died. Interfaces
//! (BAP JSON-RPC, HTTP, CLI) are thin adapters over this module: same
//! behaviour, same errors.

pub use crate::browser::{AxNode, LaunchOptions, LoadState, MouseButton, PageEvent, Viewport};
use crate::browser::{Browser, NavOutcome, Page};
use crate::error::{Error, Result};
use crate::model::{Changes, Observation, Timings};
use crate::observe;
use crate::refs::Registry;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

pub mod actions;
pub mod bench;
pub mod fixtures;
pub mod inspect;
pub mod pin;
pub mod shot;

/// One open page with its ref registry.
pub struct PageState {
    pub id: String,
    pub page: Page,
    /// The registry and the URL (without fragment) it belongs to.
    pub refs: Mutex<RefState>,
}

#[derive(Default)]
pub struct RefState {
    pub registry: Registry,
    pub url: String,
    /// What the last observation saw (its URL and refs, in order): a summary,
    /// not a copy, so observing a large page does not clone every element.
    pub last: Option<LastObservation>,
    /// The in-page pass whose elements the registry holds as they were sent
    /// (lets the page send unchanged elements as their key alone).
    pub pass: Option<u64>,
}

/// Summary of a page's last observation.
#[derive(Debug, Clone, Default)]
pub struct LastObservation {
    pub url: String,
    pub refs: Vec<String>,
}

/// Options for one observation.
#[derive(Debug, Clone, Default)]
pub struct ObserveOptions {
    pub max_elements: Option<usize>,
    /// Throw the registry away and rebuild it.
    pub refresh_refs: bool,
    /// With `refresh_refs`: report `previousRef` for re-keyed elements.
    pub include_ref_history: bool,
    /// Positional refs (`@e1`…) instead of stable ones; the registry is untouched.
    pub positional_refs: bool,
}

/// A browser session: one browser (launched on first use) and its pages.
pub struct Session {
    launch: std::sync::Mutex<LaunchOptions>,
    browser: Mutex<Option<Browser>>,
    pages: Mutex<BTreeMap<String, Arc<PageState>>>,
    active: Mutex<Option<String>>,
    next_page: std::sync::atomic::AtomicU64,
    pub default_viewport: Viewport,
    /// Annotation store: when set, every observe re-anchors the URL's open annotations.
    store: std::sync::Mutex<Option<crate::annotations::store::Store>>,
    /// Pixel buffers kept between renders (see [`crate::render::render_with`]).
    pixel_buffers: std::sync::Mutex<Vec<Vec<u8>>>,
}

impl Session {
    pub fn new(launch: LaunchOptions, viewport: Viewport) -> Session {
        Session {
            launch: std::sync::Mutex::new(launch),
            browser: Mutex::new(None),
            pages: Mutex::new(BTreeMap::new()),
            active: Mutex::new(None),
            next_page: std::sync::atomic::AtomicU64::new(1),
            default_viewport: viewport,
            store: std::sync::Mutex::new(None),
            pixel_buffers: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Attach an annotation store (pins are re-anchored on every observe).
    pub fn set_store(&self, store: Option<crate::annotations::store::Store>) {
        if let Ok(mut g) = self.store.lock() {
            *g = store;
        }
    }

    pub fn store(&self) -> Option<crate::annotations::store::Store> {
        self.store.lock().ok().and_then(|g| g.clone())
    }

    /// The running browser, launching (or relaunching after a crash) as needed.
    pub async fn browser(&self) -> Result<Browser> {
        let mut g = self.browser.lock().await;
        if let Some(b) = g.as_ref() {
            if b.is_alive() {
                return Ok(b.clone());
            }
            // The old browser died: its pages are gone too.
            self.pages.lock().await.clear();
            *self.active.lock().await = None;
        }
        let opts = self.launch.lock().map(|o| o.clone()).unwrap_or_default();
        let b = Browser::launch(&opts).await?;
        *g = Some(b.clone());
        Ok(b)
    }

    /// Close the running browser (if any) and launch (or connect) with `opts`;
    /// later relaunches after a crash use `opts` too.
    pub async fn relaunch(&self, opts: LaunchOptions) -> Result<Browser> {
        self.close_browser().await;
        if let Ok(mut g) = self.launch.lock() {
            *g = opts;
        }
        self.browser().await
    }

    /// The browser if one is running (without launching).
    pub async fn current_browser(&self) -> Option<Browser> {
        self.browser.lock().await.clone()
    }

    pub async fn close_browser(&self) {
        let b = self.browser.lock().await.take();
        self.pages.lock().await.clear();
        *self.active.lock().await = None;
        if let Some(b) = b {
            b.close().await;
        }
    }

    /// Open a page and make it the active one.
    pub async fn new_page(&self, viewport: Option<Viewport>) -> Result<Arc<PageState>> {
        let b = self.browser().await?;
        let page = b
            .new_page(viewport.unwrap_or(self.default_viewport))
            .await?;
        page.add_init_script(&observe::discover_install_script())
            .await?;
        let n = self
            .next_page
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let id = format!("page-{n}");
        let st = Arc::new(PageState {
            id: id.clone(),
            page,
            refs: Mutex::new(RefState::default()),
        });
        self.pages.lock().await.insert(id.clone(), st.clone());
        *self.active.lock().await = Some(id);
        Ok(st)
    }

    /// A page by id, or the active page when `id` is `None`.
    pub async fn page(&self, id: Option<&str>) -> Result<Arc<PageState>> {
        let id = match id {
            Some(i) => i.to_string(),
            None => self
                .active
                .lock()
                .await
                .clone()
                .ok_or_else(|| Error::PageNotFound {
                    page_id: "(no active page)".into(),
                })?,
        };
        let pages = self.pages.lock().await;
        let p = pages
            .get(&id)
            .cloned()
            .ok_or(Error::PageNotFound { page_id: id })?;
        if p.page.is_closed() {
            return Err(Error::TargetClosed {
                target: format!("page {}", p.id),
            });
        }
        Ok(p)
    }

    pub async fn pages(&self) -> Vec<Arc<PageState>> {
        self.pages.lock().await.values().cloned().collect()
    }

    pub async fn active_page_id(&self) -> Option<String> {
        self.active.lock().await.clone()
    }

    pub async fn activate(&self, id: &str) -> Result<()> {
        let pages = self.pages.lock().await;
        if !pages.contains_key(id) {
            return Err(Error::PageNotFound { page_id: id.into() });
        }
        *self.active.lock().await = Some(id.to_string());
        Ok(())
    }

    pub async fn close_page(&self, id: &str) -> Result<()> {
        let p = self
            .pages
            .lock()
            .await
            .remove(id)
            .ok_or_else(|| Error::PageNotFound { page_id: id.into() })?;
        let mut active = self.active.lock().await;
        if active.as_deref() == Some(id) {
            *active = self.pages.lock().await.keys().next().cloned();
        }
        drop(active);
        p.page.close().await
    }

    pub async fn navigate(
        &self,
        page: &PageState,
        url: &str,
        wait: LoadState,
        timeout: Duration,
    ) -> Result<NavOutcome> {
        page.page.navigate(url, wait, timeout).await
    }

    /// One observation: discovery pass + ref matching.
    pub async fn observe(&self, page: &PageState, opts: &ObserveOptions) -> Result<Observation> {
        self.observe_gated(page, opts, false).await
    }

    /// Observe; with `after_frame`, the pass waits for the page's next frame
    /// (see [`observe::after_next_frame`]): used when a capture is in flight.
    pub async fn observe_gated(
        &self,
        page: &PageState,
        opts: &ObserveOptions,
        after_frame: bool,
    ) -> Result<Observation> {
        let t0 = Instant::now();
        let gate = |e: String| {
            if after_frame {
                observe::after_next_frame(&e)
            } else {
                e
            }
        };
        // Unchanged elements may come back as their key alone when the
        // registry holds the page's previous pass (not for refs that ignore it).
        let reuse = !opts.positional_refs && !opts.refresh_refs;
        let mut have = if reuse {
            page.refs.lock().await.pass
        } else {
            None
        };
        let mut lost_parts = 0;
        let (mut st, raw, te, discover_ms, t1) = loop {
            let mut json = page
                .page
                .eval_json_string(&gate(observe::discover_call(None, have)))
                .await?;
            if json == observe::MISSING {
                json = page
                    .page
                    .eval_json_string(&gate(observe::discover_install_and_call(None)))
                    .await?;
            }
            let Some(json) = join_parts(&page.page, json).await? else {
                // Four newer passes ran before the parts were fetched.
                lost_parts += 1;
                if lost_parts > 3 {
                    return Err(Error::Internal(
                        "discovery results kept being replaced by newer passes".into(),
                    ));
                }
                have = None;
                continue;
            };
            let te = t0.elapsed().as_secs_f64() * 1000.0;
            let raw = observe::parse(&json)?;
            let discover_ms = t0.elapsed().as_secs_f64() * 1000.0;
            let t1 = Instant::now();
            let mut st = page.refs.lock().await;
            let holds = |raw: &observe::RawObservation, st: &RefState| {
                raw.elements.iter().all(|e| match e {
                    observe::RawItem::Same(k) => st.registry.latest_by_key(*k).is_some(),
                    observe::RawItem::Full(_) => true,
                })
            };
            if have.is_none() || (st.pass == have && holds(&raw, &st)) {
                break (st, raw, te, discover_ms, t1);
            }
            // Another observation got in between: ask for every element.
            st.pass = None;
            have = None;
        };
        let pass = raw.pass;
        let mut observation = assign_refs(&mut st, raw, opts, discover_ms, t1);
        st.pass = if reuse { pass } else { None };
        drop(st);
        tracing::debug!(
            eval_ms = te,
            parse_ms = discover_ms - te,
            refs_ms = t1.elapsed().as_secs_f64() * 1000.0,
            "observe"
        );
        if let Some(store) = self.store() {
            observation.annotations = pin::anchor(&store, &observation).await?;
        }
        Ok(observation)
    }
}

/// Pure part of observe: registry lifetime rules + ref assignment.
pub fn assign_refs(
    st: &mut RefState,
    raw: observe::RawObservation,
    opts: &ObserveOptions,
    discover_ms: f64,
    t1: Instant,
) -> Observation {
    let url_key = strip_fragment(&raw.url);
    let total = raw.total;
    let reused = raw
        .elements
        .iter()
        .filter(|e| matches!(e, observe::RawItem::Same(_)))
        .count();
    // `Same` items were checked against this registry before the call.
    let cands: Vec<_> = raw
        .elements
        .into_iter()
        .filter_map(|e| match e {
            observe::RawItem::Full(e) => Some(e.into_candidate()),
            observe::RawItem::Same(key) => {
                st.registry
                    .latest_by_key(key)
                    .map(|el| crate::refs::Candidate {
                        key,
                        element: el.clone(),
                    })
            }
        })
        .collect();
    // A new document at another URL starts a fresh registry; same-document
    // (SPA) route changes and reloads of the same URL keep it.
    if !st.url.is_empty() && st.registry.doc() != raw.doc && st.url != url_key {
        st.registry = Registry::new();
        st.last = None;
    }
    st.url = url_key;
    let (elements, changes) = if opts.positional_refs {
        let els = cands
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let mut e = c.element;
                e.ref_ = format!("@e{}", i + 1);
                e
            })
            .collect();
        (els, Changes::default())
    } else if opts.refresh_refs {
        let (fresh, els, ch) = st
            .registry
            .refresh(&raw.doc, cands, opts.include_ref_history);
        st.registry = fresh;
        (els, ch)
    } else {
        st.registry.observe(&raw.doc, cands)
    };
    let seq = st.registry.observation();
    let had_previous = st.last.is_some();
    let obs = Observation {
        url: raw.url,
        title: raw.title,
        viewport: raw.viewport,
        page_width: raw.page.width,
        page_height: raw.page.height,
        seq,
        elements,
        total,
        frames: raw.frames,
        changes: had_previous.then_some(changes),
        annotations: Vec::new(),
        timings: Timings {
            discover_ms,
            refs_ms: t1.elapsed().as_secs_f64() * 1000.0,
            reused_elements: reused,
            ..Default::default()
        },
    };
    st.last = Some(LastObservation {
        url: obs.url.clone(),
        refs: obs.elements.iter().map(|e| e.ref_.clone()).collect(),
    });
    obs
}

fn strip_fragment(url: &str) -> String {
    url.split('#').next().unwrap_or(url).to_string()
}

/// Turn a CLI target (URL or local file) into a URL. Local files are served
/// by a built-in static server on 127.0.0.1 so that same-origin iframes and
/// fetches work as they would on a real site.
pub async fn resolve_target(target: &str) -> Result<(String, Option<fixtures::StaticServer>)> {
    if target.contains("://") || target.starts_with("about:") || target.starts_with("data:") {
        return Ok((target.to_string(), None));
    }
    let path = PathBuf::from(target);
    if !path.is_file() {
        return Err(Error::invalid_field(
            "target",
            format!("{target}: no such file (give an http(s):// URL or a path to an HTML file)"),
        ));
    }
    let abs = std::fs::canonicalize(&path)?;
    let dir = abs.parent().unwrap_or(Path::new("/")).to_path_buf();
    let name = abs
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let server = fixtures::StaticServer::start_stable(&dir).await?;
    Ok((format!("{}/{}", server.base_url(), name), Some(server)))
}

/// The whole discovery result from a pass's answer: the answer itself, or
/// its parts fetched all at once when the page left a large result in parts
/// (`None` if they were gone).
pub async fn join_parts(page: &Page, answer: String) -> Result<Option<String>> {
    let Some(h) = observe::Parted::from_answer(&answer) else {
        return Ok(Some(answer));
    };
    let parts = page.eval_all(&observe::part_calls(h)).await?;
    let mut json = String::new();
    for p in parts {
        match p {
            serde_json::Value::String(s) => json.push_str(&s),
            _ => return Ok(None),
        }
    }
    Ok(Some(json))
}
