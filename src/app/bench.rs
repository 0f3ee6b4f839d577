//! Measurements shared by `pinpoint bench …` and the tests: ref stability
//! across DOM mutations, and observe latency.
//!
//! Ground truth for "the same element" is a `data-truth` attribute written on
//! every observed node before a mutation: `innerHTML = innerHTML` and node
//! moves carry it over, so after the mutation each element says which element
//! it was, independently of our identity features.

use super::{ObserveOptions, PageState, Session};
use crate::browser::LoadState;
use crate::error::Result;
use crate::model::Observation;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// One scenario's outcome.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StabilityResult {
    pub fixture: String,
    pub scenario: String,
    /// Elements present before and after (by ground truth).
    pub survivors: usize,
    /// Survivors whose ref did not change.
    pub kept: usize,
    /// Distinct refs after / elements after (1.0 = no two elements share a ref).
    pub unique: bool,
    pub elements_after: usize,
}

impl StabilityResult {
    pub fn share(&self) -> f64 {
        if self.survivors == 0 {
            1.0
        } else {
            self.kept as f64 / self.survivors as f64
        }
    }
}

/// The scenarios, as (fixture, name, JS to run, observations after).
pub const SCENARIOS: &[(&str, &str, &str)] = &[
    ("shop.html", "no change x5", ""),
    ("shop.html", "insert at top", "scenarios.insertTop()"),
    (
        "shop.html",
        "insert before 3rd",
        "scenarios.insertBeforeThird()",
    ),
    (
        "shop.html",
        "remove unrelated",
        "scenarios.removeUnrelated()",
    ),
    (
        "shop.html",
        "re-render cards (innerHTML)",
        "scenarios.rerenderCards()",
    ),
    ("shop.html", "reorder cards", "scenarios.reorderCards()"),
    (
        "shop.html",
        "button text changed",
        "scenarios.renameButton()",
    ),
    ("shop.html", "all at once", "scenarios.all()"),
    ("spa.html", "SPA re-render (innerHTML)", "app.render()"),
    ("spa.html", "SPA reorder by re-render", "app.reorder()"),
];

async fn tag_truth(page: &PageState) -> Result<()> {
    let st = page.refs.lock().await;
    let pairs: Vec<(u64, String)> = st
        .last
        .as_ref()
        .map(|o| {
            o.refs
                .iter()
                .filter_map(|r| match st.registry.lookup(r) {
                    crate::refs::Lookup::Live(en) => en.key.map(|k| (k, r.clone())),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    drop(st);
    let js = format!(
        "(() => {{ const st = window[Symbol.for('pinpoint.state')]; const dk = (el) => {{ const h = el.closest('[data-id]'); return h ? h.getAttribute('data-id') + '|' + el.localName + '|' + el.textContent.trim() : null; }}; window.__truthByData = {{}}; for (const [k, r] of {}) {{ const el = st.byKey.get(k)?.deref(); if (el) {{ el.setAttribute('data-truth', r); const d = dk(el); if (d) window.__truthByData[d] = r; }} }} return true; }})()",
        serde_json::to_string(&pairs)?
    );
    page.page.eval(&js).await?;
    Ok(())
}

async fn read_truth(page: &PageState, obs: &Observation) -> Result<HashMap<String, String>> {
    let st = page.refs.lock().await;
    let keys: Vec<(u64, String)> = obs
        .elements
        .iter()
        .filter_map(|e| match st.registry.lookup(&e.ref_) {
            crate::refs::Lookup::Live(en) => en.key.map(|k| (k, e.ref_.clone())),
            _ => None,
        })
        .collect();
    drop(st);
    let js = format!(
        "(() => {{ const st = window[Symbol.for('pinpoint.state')]; const out = {{}}; for (const [k, r] of {}) {{ const el = st.byKey.get(k)?.deref(); if (!el) continue; let t = el.getAttribute('data-truth'); if (!t) {{ const h = el.closest('[data-id]'); if (h) t = (window.__truthByData || {{}})[h.getAttribute('data-id') + '|' + el.localName + '|' + el.textContent.trim()]; }} if (t) out[r] = t; }} return out; }})()",
        serde_json::to_string(&keys)?
    );
    let v = page.page.eval(&js).await?;
    Ok(serde_json::from_value(v).unwrap_or_default())
}

/// Run one scenario on a fresh page.
pub async fn run_scenario(
    session: &Session,
    base_url: &str,
    fixture: &str,
    name: &str,
    js: &str,
) -> Result<StabilityResult> {
    let page = session.new_page(None).await?;
    let url = format!("{}/{}", base_url.trim_end_matches('/'), fixture);
    let result = async {
        session
            .navigate(&page, &url, LoadState::Load, Duration::from_secs(20))
            .await?;
        let before = session.observe(&page, &ObserveOptions::default()).await?;
        tag_truth(&page).await?;
        let rounds = if js.is_empty() { 5 } else { 1 };
        if !js.is_empty() {
            page.page.eval(&format!("{js}; true")).await?;
        }
        let mut after = before.clone();
        let mut kept_all = usize::MAX;
        let mut survivors = 0;
        for _ in 0..rounds {
            after = session.observe(&page, &ObserveOptions::default()).await?;
            let truth = read_truth(&page, &after).await?;
            // truth: ref-after -> ref-before
            survivors = truth.len();
            let kept = truth.iter().filter(|(now, was)| now == was).count();
            kept_all = kept_all.min(kept);
        }
        let unique = after
            .elements
            .iter()
            .map(|e| &e.ref_)
            .collect::<HashSet<_>>()
            .len()
            == after.elements.len();
        Ok(StabilityResult {
            fixture: fixture.to_string(),
            scenario: name.to_string(),
            survivors,
            kept: kept_all,
            unique,
            elements_after: after.elements.len(),
        })
    }
    .await;
    let _ = session.close_page(&page.id).await;
    result
}

/// Every scenario in [`SCENARIOS`].
pub async fn ref_stability(session: &Session, base_url: &str) -> Result<Vec<StabilityResult>> {
    let mut out = Vec::new();
    for (fixture, name, js) in SCENARIOS {
        out.push(run_scenario(session, base_url, fixture, name, js).await?);
    }
    Ok(out)
}

/// Median observe latency (discovery + refs, no screenshot) on one URL.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LatencyResult {
    pub fixture: String,
    pub elements: usize,
    /// Unchanged page: DOM-derived fields come from the in-page cache.
    pub median_ms: f64,
    pub p90_ms: f64,
    /// After a local DOM change before each run (one control renamed, one
    /// inserted at the top): only what the change can reach is recomputed.
    pub changed_median_ms: f64,
    /// After a change that drops every cached field in the page (a `for`
    /// attribute: labels may point elsewhere): every field is computed again;
    /// unchanged results still travel as keys.
    pub dropped_median_ms: f64,
    /// The first observe of the page as loaded (new document: empty
    /// registry, nothing cached in the page, the script installed).
    pub first_median_ms: f64,
    /// Inside the first observe: the in-page pass with its transfer and
    /// parsing, and the registry update (medians).
    pub first_discover_ms: f64,
    pub first_refs_ms: f64,
    pub runs: usize,
}

pub async fn observe_latency(
    session: &Session,
    url: &str,
    label: &str,
    runs: usize,
) -> Result<LatencyResult> {
    let page = session.new_page(None).await?;
    let result = async {
        session
            .navigate(&page, url, LoadState::Load, Duration::from_secs(30))
            .await?;
        // Warm-up (first pass compiles the script).
        let first = session.observe(&page, &ObserveOptions::default()).await?;
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t = Instant::now();
            session.observe(&page, &ObserveOptions::default()).await?;
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let timed_after = |change: String| {
            let page = &page;
            async move {
                page.page.eval(&change).await?;
                let t = Instant::now();
                session.observe(page, &ObserveOptions::default()).await?;
                Ok::<_, crate::error::Error>(t.elapsed().as_secs_f64() * 1000.0)
            }
        };
        let mut changed = Vec::with_capacity(runs);
        for i in 0..runs {
            changed.push(
                timed_after(format!(
                    "{{ const b = document.querySelectorAll('button'); \
                       if (b.length) b[b.length >> 1].textContent = 'Renamed {i}'; \
                       const n = document.createElement('button'); n.textContent = 'Inserted {i}'; \
                       const s = document.querySelector('main, section') || document.body; s.prepend(n); }}"
                ))
                .await?,
            );
        }
        // A `for` attribute anywhere drops the whole cache (labels may point
        // elsewhere) and, unlike a new style sheet, costs the page no restyle.
        let mut dropped = Vec::new();
        for i in 0..runs {
            dropped.push(
                timed_after(format!(
                    "document.documentElement.setAttribute('for', 'bench-{i}')"
                ))
                .await?,
            );
        }
        // A fresh load before each run: a few runs are enough (a load is slow).
        let (mut firsts, mut first_discover, mut first_refs) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs.clamp(1, 7) {
            session
                .navigate(&page, url, LoadState::Load, Duration::from_secs(30))
                .await?;
            let t = Instant::now();
            let o = session.observe(&page, &ObserveOptions::default()).await?;
            firsts.push(t.elapsed().as_secs_f64() * 1000.0);
            first_discover.push(o.timings.discover_ms);
            first_refs.push(o.timings.refs_ms);
        }
        times.sort_by(|a, b| a.total_cmp(b));
        Ok(LatencyResult {
            fixture: label.to_string(),
            elements: first.elements.len(),
            median_ms: times[times.len() / 2],
            p90_ms: times[(times.len() * 9 / 10).min(times.len() - 1)],
            changed_median_ms: median(changed),
            dropped_median_ms: median(dropped),
            first_median_ms: median(firsts),
            first_discover_ms: median(first_discover),
            first_refs_ms: median(first_refs),
            runs,
        })
    }
    .await;
    let _ = session.close_page(&page.id).await;
    result
}

/// Median of a bare viewport screenshot vs a full annotated observe (discovery
/// + screenshot + render) on the same page.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ShotResult {
    pub fixture: String,
    pub bare_screenshot_ms: f64,
    /// A bare screenshot with Chromium's default PNG encoding (no
    /// `optimizeForSpeed`, as Puppeteer and Playwright take it), median.
    pub default_screenshot_ms: f64,
    /// The bare screenshot plus decoding and encoding it again, nothing
    /// found or drawn (median): the least any server-side drawing costs.
    pub pixel_floor_ms: f64,
    pub annotated_observe_ms: f64,
    pub ratio: f64,
    pub marks: usize,
    pub runs: usize,
    /// Inside the annotated observe (medians): the screenshot as it ran
    /// alongside discovery, discovery + refs, and decode + draw + encode.
    pub in_pipeline_screenshot_ms: f64,
    pub observe_ms: f64,
    pub render_ms: f64,
    /// The render's phases (medians): decode / layout + draw / encode.
    pub render_parts_ms: (f64, f64, f64),
    /// The same observe without a screenshot (median).
    pub observe_alone_ms: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub async fn shot_vs_screenshot(
    session: &Session,
    url: &str,
    label: &str,
    runs: usize,
) -> Result<ShotResult> {
    use super::shot::ShotOptions;
    use crate::browser::ScreenshotRequest;
    let page = session.new_page(None).await?;
    let result = async {
        session
            .navigate(&page, url, LoadState::Load, Duration::from_secs(30))
            .await?;
        let opts = ShotOptions::default();
        let first = session.shot(&page, &opts).await?;
        page.page.screenshot(&ScreenshotRequest::default()).await?;
        let (mut bare, mut full, mut default) = (Vec::new(), Vec::new(), Vec::new());
        let default_req = ScreenshotRequest {
            default_encoding: true,
            ..Default::default()
        };
        let (mut sh, mut ob, mut re) = (Vec::new(), Vec::new(), Vec::new());
        let mut alone = Vec::new();
        let (mut floor, mut pixels) = (Vec::new(), Vec::new());
        let (mut dec, mut drw, mut enc) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs {
            let t = Instant::now();
            session.observe(&page, &opts.observe).await?;
            alone.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            let png = page.page.screenshot(&ScreenshotRequest::default()).await?;
            let bare_ms = t.elapsed().as_secs_f64() * 1000.0;
            bare.push(bare_ms);
            // What any server-side drawing pays at least: the bare capture
            // decoded and encoded again, with nothing found or drawn.
            let t = Instant::now();
            let img = crate::render::decode(&png, std::mem::take(&mut pixels))?;
            crate::render::encode(&img, crate::render::OutputFormat::Png)?;
            pixels = img.into_raw();
            floor.push(bare_ms + t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            let s = session.shot(&page, &opts).await?;
            full.push(t.elapsed().as_secs_f64() * 1000.0);
            sh.push(s.screenshot_ms);
            re.push(s.render_ms);
            dec.push(s.render_timings.decode_ms);
            drw.push(s.render_timings.draw_ms);
            enc.push(s.render_timings.encode_ms);
            let tm = &s.observation.timings;
            ob.push(tm.discover_ms + tm.refs_ms);
            // Last: Chromium is still busy for a while after this slower
            // capture, which would slow whatever came next.
            let t = Instant::now();
            page.page.screenshot(&default_req).await?;
            default.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let (b, f) = (median(bare), median(full));
        Ok(ShotResult {
            fixture: label.to_string(),
            bare_screenshot_ms: b,
            default_screenshot_ms: median(default),
            pixel_floor_ms: median(floor),
            annotated_observe_ms: f,
            ratio: f / b,
            marks: first.drawn,
            runs,
            in_pipeline_screenshot_ms: median(sh),
            observe_ms: median(ob),
            render_ms: median(re),
            render_parts_ms: (median(dec), median(drw), median(enc)),
            observe_alone_ms: median(alone),
        })
    }
    .await;
    let _ = session.close_page(&page.id).await;
    result
}
