//! The public action entry points of a [`Session`]: resolve a target (ref or
//! selector) to one live node, then run [`act::perform`] on it.
//!
//! Ref resolution rules: the ref's live node first (in-page key of the same
//! document); if that node is gone, one fresh observation, and the ref is
//! accepted only if the registry re-found it in that observation by the same
//! live node or the exact same identity — never by a fuzzy look-alike.
//! Otherwise `ElementNotFound { stale: true }`.

use super::{ObserveOptions, PageState, Session};
use crate::act::{
    self, ActOptions, ActResult, Action, DragTo, Resolved, Scroll, Target, TargetSpec,
};
use crate::error::{Error, Result};
use crate::refs::Lookup;
use std::time::{Duration, Instant};

/// Pause between attempts to find a selector's element.
const POLL: Duration = Duration::from_millis(100);

/// What a ref pointed at when it was resolved (to re-find it by identity).
struct RefMemo {
    identity: [u8; 32],
    key: Option<u64>,
}

impl Session {
    /// Perform one action. `target` may be `None` for page-level actions
    /// (`press` on the focused element, `scroll` of the page).
    pub async fn act(
        &self,
        page: &PageState,
        target: Option<&TargetSpec>,
        action: &Action,
        opts: &ActOptions,
    ) -> Result<ActResult> {
        let t0 = Instant::now();
        let Some(spec) = target else {
            return self.act_on_page(page, action, opts, t0).await;
        };
        if let (Target::Point { x, y }, Action::Click(_) | Action::Hover { .. }) =
            (&spec.target, action)
        {
            return self.act_at_point(page, spec, *x, *y, action, t0).await;
        }
        let el = self.resolve_waiting(page, spec, opts).await?;
        let to_spec = match action {
            Action::Drag {
                to: DragTo::Target(t),
            } => Some(t),
            Action::Scroll(Scroll::To(t)) => Some(t),
            _ => None,
        };
        let to = match to_spec {
            Some(t) => Some(self.resolve_waiting(page, t, opts).await?),
            None => None,
        };
        let mut r = match act::perform(&page.page, &el, action, to.as_ref(), opts).await {
            Err(Error::ElementNotFound { stale: false, .. }) => {
                // The node went away between resolution and action: resolve
                // once more (refs only by live node or exact identity).
                let el = self.re_resolve(page, spec, &el).await?;
                let to = match (to_spec, to) {
                    (Some(t), Some(old)) => Some(self.re_resolve(page, t, &old).await?),
                    _ => None,
                };
                act::perform(&page.page, &el, action, to.as_ref(), opts).await?
            }
            other => other?,
        };
        r.ms = t0.elapsed().as_secs_f64() * 1000.0;
        Ok(r)
    }

    /// [`Session::resolve`], waiting (polling) up to the action timeout for a
    /// selector to match something. Refs never wait: an unknown or stale ref
    /// fails at once.
    pub async fn resolve_waiting(
        &self,
        page: &PageState,
        spec: &TargetSpec,
        opts: &ActOptions,
    ) -> Result<Resolved> {
        let t0 = Instant::now();
        loop {
            match self.resolve(page, spec).await {
                Err(Error::ElementNotFound { stale: false, .. })
                    if !matches!(spec.target, Target::Ref(_))
                        && t0.elapsed() + POLL < opts.timeout =>
                {
                    tokio::time::sleep(POLL).await;
                }
                other => return other,
            }
        }
    }

    /// Resolve a target to one live node (no actionability checks).
    pub async fn resolve(&self, page: &PageState, spec: &TargetSpec) -> Result<Resolved> {
        match &spec.target {
            Target::Ref(r) => self.resolve_ref(page, r).await,
            Target::Role { role, name, exact } => {
                self.resolve_role(page, spec, role, name.as_deref(), *exact)
                    .await
            }
            t => {
                let label = t.to_string();
                let (doc, matches) = act::find(&page.page, t).await?;
                let m = act::pick(&label, matches, spec.index)?;
                let st = page.refs.lock().await;
                let entry = if st.registry.doc() == doc {
                    st.registry.entries().find(|e| e.key == Some(m.key))
                } else {
                    None
                };
                Ok(Resolved {
                    key: m.key,
                    doc,
                    label,
                    ref_: entry.map(|e| e.ref_.clone()),
                    role: entry.map(|e| e.element.role.clone()),
                    name: entry.map(|e| e.element.name.clone()),
                    desc: m.desc,
                })
            }
        }
    }

    async fn re_resolve(
        &self,
        page: &PageState,
        spec: &TargetSpec,
        old: &Resolved,
    ) -> Result<Resolved> {
        match &spec.target {
            Target::Ref(r) => {
                let memo = {
                    let st = page.refs.lock().await;
                    match st.registry.lookup(r) {
                        Lookup::Live(e) | Lookup::Stale(e) => RefMemo {
                            identity: e.identity,
                            key: e.key,
                        },
                        Lookup::Unknown => return Err(stale(r)),
                    }
                };
                self.refind_ref(page, r, memo).await
            }
            _ => self.resolve(page, spec).await.map_err(|e| match e {
                Error::ElementNotFound { .. } => Error::ElementNotFound {
                    target: old.label.clone(),
                    stale: false,
                },
                e => e,
            }),
        }
    }

    async fn resolve_ref(&self, page: &PageState, r: &str) -> Result<Resolved> {
        let memo = {
            let st = page.refs.lock().await;
            let empty = st.registry.is_empty();
            match st.registry.lookup(r) {
                Lookup::Live(e) => match e.key {
                    Some(key) => return Ok(resolved_from(e, key, st.registry.doc())),
                    None => Some(RefMemo {
                        identity: e.identity,
                        key: None,
                    }),
                },
                Lookup::Stale(e) => Some(RefMemo {
                    identity: e.identity,
                    key: e.key,
                }),
                Lookup::Unknown if empty => None,
                Lookup::Unknown => {
                    return Err(Error::ElementNotFound {
                        target: norm_ref(r),
                        stale: false,
                    })
                }
            }
        };
        match memo {
            Some(m) => self.refind_ref(page, r, m).await,
            None => {
                // Nothing observed yet on this page: observe once, then look up.
                self.observe(page, &ObserveOptions::default()).await?;
                let st = page.refs.lock().await;
                match st.registry.lookup(r) {
                    Lookup::Live(e) => match e.key {
                        Some(key) => Ok(resolved_from(e, key, st.registry.doc())),
                        None => Err(stale(r)),
                    },
                    _ => Err(Error::ElementNotFound {
                        target: norm_ref(r),
                        stale: false,
                    }),
                }
            }
        }
    }

    /// Re-observe and accept the ref only if it was re-found by live node or
    /// exact identity in that observation.
    async fn refind_ref(&self, page: &PageState, r: &str, memo: RefMemo) -> Result<Resolved> {
        self.observe(page, &ObserveOptions::default()).await?;
        let st = page.refs.lock().await;
        let now = st.registry.observation();
        match st.registry.lookup(r) {
            Lookup::Live(e)
                if e.last_seen == now
                    && (e.identity == memo.identity
                        || (memo.key.is_some() && e.key == memo.key)) =>
            {
                match e.key {
                    Some(key) => Ok(resolved_from(e, key, st.registry.doc())),
                    None => Err(stale(r)),
                }
            }
            _ => Err(stale(r)),
        }
    }

    async fn resolve_role(
        &self,
        page: &PageState,
        spec: &TargetSpec,
        role: &str,
        name: Option<&str>,
        exact: bool,
    ) -> Result<Resolved> {
        let label = spec.target.to_string();
        let obs = self.observe(page, &ObserveOptions::default()).await?;
        let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let hits: Vec<_> = obs
            .elements
            .iter()
            .filter(|e| e.role.eq_ignore_ascii_case(role))
            .filter(|e| match name {
                None => true,
                Some(n) if exact => norm(&e.name) == norm(n),
                Some(n) => norm(&e.name)
                    .to_lowercase()
                    .contains(&norm(n).to_lowercase()),
            })
            .collect();
        let matches: Vec<act::Match> = {
            let st = page.refs.lock().await;
            hits.iter()
                .filter_map(|e| match st.registry.lookup(&e.ref_) {
                    Lookup::Live(en) => en.key.map(|k| act::Match {
                        key: k,
                        desc: format!("{} {} {:?} ({})", e.ref_, e.role, e.name, e.selector),
                    }),
                    _ => None,
                })
                .collect()
        };
        let m = act::pick(&label, matches, spec.index)?;
        let st = page.refs.lock().await;
        let e = st
            .registry
            .entries()
            .find(|e| e.key == Some(m.key))
            .ok_or_else(|| Error::ElementNotFound {
                target: label.clone(),
                stale: false,
            })?;
        let mut r = resolved_from(e, m.key, st.registry.doc());
        r.label = label;
        Ok(r)
    }

    /// `press` without a target (the focused element) and page `scroll`.
    async fn act_on_page(
        &self,
        page: &PageState,
        action: &Action,
        opts: &ActOptions,
        t0: Instant,
    ) -> Result<ActResult> {
        let page_el = Resolved {
            key: 0,
            doc: String::new(),
            label: "page".into(),
            ref_: None,
            role: None,
            name: None,
            desc: "page".into(),
        };
        match action {
            Action::Press { keys } => {
                for k in keys {
                    crate::browser::keys::combo(k)?;
                }
                if !opts.trial {
                    for k in keys {
                        act::press(&page.page, k).await?;
                    }
                }
                Ok(ActResult {
                    action: "press".into(),
                    target: "focused element".into(),
                    r#ref: None,
                    role: None,
                    name: None,
                    element: "focused element".into(),
                    point: None,
                    detail: serde_json::json!({ "keys": keys }),
                    ms: t0.elapsed().as_secs_f64() * 1000.0,
                })
            }
            Action::Scroll(Scroll::To(t)) => {
                let el = self.resolve_waiting(page, t, opts).await?;
                let mut r = act::perform(&page.page, &el, action, None, opts).await?;
                r.ms = t0.elapsed().as_secs_f64() * 1000.0;
                Ok(r)
            }
            Action::Scroll(_) => {
                let mut r = act::perform(&page.page, &page_el, action, None, opts).await?;
                r.ms = t0.elapsed().as_secs_f64() * 1000.0;
                Ok(r)
            }
            other => Err(Error::invalid_field(
                "target",
                format!("{} needs a target (a ref or a selector)", other.name()),
            )),
        }
    }

    /// Click or hover at an explicit point (no element checks).
    async fn act_at_point(
        &self,
        page: &PageState,
        spec: &TargetSpec,
        x: f64,
        y: f64,
        action: &Action,
        t0: Instant,
    ) -> Result<ActResult> {
        let el = self.resolve(page, spec).await.ok();
        let p = &page.page;
        match action {
            Action::Click(c) => {
                p.mouse("move", x, y, c.button, 0, c.modifiers).await?;
                for i in 1..=c.click_count.max(1) {
                    p.mouse("down", x, y, c.button, i, c.modifiers).await?;
                    p.mouse("up", x, y, c.button, i, c.modifiers).await?;
                }
            }
            _ => {
                p.mouse("move", x, y, crate::browser::MouseButton::Left, 0, 0)
                    .await?
            }
        }
        Ok(ActResult {
            action: action.name().into(),
            target: spec.target.to_string(),
            r#ref: el.as_ref().and_then(|e| e.ref_.clone()),
            role: el.as_ref().and_then(|e| e.role.clone()),
            name: el.as_ref().and_then(|e| e.name.clone()),
            element: el.map(|e| e.desc).unwrap_or_else(|| "nothing".into()),
            point: Some((x, y)),
            detail: serde_json::Value::Null,
            ms: t0.elapsed().as_secs_f64() * 1000.0,
        })
    }
}

fn norm_ref(r: &str) -> String {
    if r.starts_with('@') {
        r.to_string()
    } else {
        format!("@{r}")
    }
}

fn stale(r: &str) -> Error {
    Error::ElementNotFound {
        target: norm_ref(r),
        stale: true,
    }
}

fn resolved_from(e: &crate::refs::Entry, key: u64, doc: &str) -> Resolved {
    Resolved {
        key,
        doc: doc.to_string(),
        label: e.ref_.clone(),
        ref_: Some(e.ref_.clone()),
        role: Some(e.element.role.clone()),
        name: Some(e.element.name.clone()),
        desc: format!("{} {:?}", e.element.selector, e.element.name),
    }
}

/// Click-by-ref latency on one page (`pinpoint bench click`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ClickLatency {
    pub url: String,
    pub runs: usize,
    pub median_ms: f64,
    pub p90_ms: f64,
    pub min_ms: f64,
    /// Clicks the page counted on the first target (must equal its share of
    /// warm-up + runs).
    pub page_clicks: u64,
}

/// Median latency of `Session::act(click @ref)` (resolve + checks + input
/// events, no waiting on the page afterwards) over `runs` clicks, after 3
/// warm-up clicks, going round `targets` (one target: the pointer stays on
/// it; several: it moves every click). `targets[0]` must name a button whose
/// clicks the page counts in `counter_js` (an expression).
pub async fn click_latency(
    session: &Session,
    url: &str,
    targets: &[&str],
    counter_js: &str,
    runs: usize,
) -> Result<ClickLatency> {
    let page = session.new_page(None).await?;
    session
        .navigate(
            &page,
            url,
            crate::browser::LoadState::Load,
            std::time::Duration::from_secs(20),
        )
        .await?;
    session.observe(&page, &ObserveOptions::default()).await?;
    let specs = targets
        .iter()
        .map(|t| act::parse_target(t))
        .collect::<Result<Vec<_>>>()?;
    if specs.is_empty() {
        return Err(Error::Internal("click_latency needs a target".into()));
    }
    let click = Action::Click(act::ClickOptions {
        click_count: 1,
        ..Default::default()
    });
    let opts = ActOptions::default();
    for i in 0..3 {
        let spec = &specs[i % specs.len()];
        session.act(&page, Some(spec), &click, &opts).await?;
    }
    let mut ms = Vec::with_capacity(runs);
    for i in 3..3 + runs {
        let spec = &specs[i % specs.len()];
        let t = Instant::now();
        session.act(&page, Some(spec), &click, &opts).await?;
        ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let page_clicks = page
        .page
        .eval(counter_js)
        .await?
        .as_str()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    let _ = session.close_page(&page.id).await;
    ms.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let at = |q: f64| {
        ms.get(((ms.len().saturating_sub(1)) as f64 * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    Ok(ClickLatency {
        url: url.to_string(),
        runs,
        median_ms: at(0.5),
        p90_ms: at(0.9),
        min_ms: ms.first().copied().unwrap_or(0.0),
        page_clicks,
    })
}
