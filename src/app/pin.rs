//! Annotations pinned to the live page: create one from a ref (the server
//! fills element, elementPath, boundingBox, classes, nearby text,
//! accessibility, computed styles, isFixed, url), and re-anchor open
//! annotations on every observe (ref, then selector, then text).

use super::{PageState, Session};
use crate::annotations::model::{
    new_id, now_ms, Annotation, BoundingBox, Intent, Severity, Status,
};
use crate::annotations::reducer::Action;
use crate::annotations::store::{AnnotationFilter, Store};
use crate::error::{Error, Result};
use crate::model::{Element, Mark, MarkKind, Observation, PinnedAnnotation};
use crate::refs::Lookup;
use serde_json::{json, Number, Value};

/// What a caller gives to pin feedback on an element.
#[derive(Debug, Clone, Default)]
pub struct PinRequest {
    pub ref_: String,
    pub comment: String,
    pub intent: Option<Intent>,
    pub severity: Option<Severity>,
    /// Annotation session; default: the open session of this URL (created on demand).
    pub session_id: Option<String>,
}

/// Pin colour by severity.
pub fn severity_color(s: Option<&str>) -> &'static str {
    match s {
        Some("blocking") => "#b91c1c",
        Some("important") => "#c2410c",
        Some("suggestion") => "#0f766e",
        _ => "#7c3aed",
    }
}

/// The pins to draw for anchored annotations.
pub fn pins(anchored: &[PinnedAnnotation]) -> Vec<Mark> {
    anchored
        .iter()
        .filter_map(|a| {
            Some(Mark {
                rect: a.bounds?,
                ref_: a.id.clone(),
                kind: MarkKind::Pin,
                color: Some(severity_color(a.severity.as_deref()).to_string()),
                region: None,
            })
        })
        .collect()
}

const DESCRIBE_JS: &str = r#"(function () {
  const el = this;
  const win = el.ownerDocument.defaultView;
  const cs = win.getComputedStyle(el);
  const keys = ["display", "position", "color", "background-color", "font-size", "font-weight", "width", "height", "overflow", "z-index", "opacity", "visibility"];
  const styles = keys.map((k) => k + ": " + cs.getPropertyValue(k)).join("; ");
  let fixed = false;
  for (let p = el; p && p.nodeType === 1; p = p.parentElement) {
    const pos = win.getComputedStyle(p).position;
    if (pos === "fixed" || pos === "sticky") { fixed = true; break; }
  }
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  let around = el.parentElement;
  for (let i = 0; around && i < 3 && norm(around.textContent).length < 40; i++) around = around.parentElement;
  return {
    classes: typeof el.className === "string" ? el.className : "",
    nearby: norm(around ? around.textContent : "").slice(0, 200),
    styles,
    fixed,
    text: norm(el.innerText || el.textContent).slice(0, 120),
    vw: window.innerWidth,
  };
})"#;

fn num(v: f64) -> Number {
    Number::from_f64((v * 100.0).round() / 100.0).unwrap_or_else(|| Number::from(0))
}

fn describe_tag(e: &Element) -> String {
    let mut s = e.tag.clone();
    if let Some(id) = &e.id {
        s.push('#');
        s.push_str(id);
    }
    if !e.name.is_empty() {
        s.push_str(&format!(
            " \"{}\"",
            e.name.chars().take(60).collect::<String>()
        ));
    }
    s
}

impl Session {
    /// Create an annotation on the element `req.ref_` of a page.
    pub async fn pin_annotation(
        &self,
        page: &PageState,
        store: &Store,
        req: PinRequest,
    ) -> Result<Annotation> {
        let (el, key, url) = {
            let st = page.refs.lock().await;
            let entry = match st.registry.lookup(&req.ref_) {
                Lookup::Live(e) => e.clone(),
                Lookup::Stale(_) => {
                    return Err(Error::ElementNotFound {
                        target: req.ref_.clone(),
                        stale: true,
                    })
                }
                Lookup::Unknown => {
                    return Err(Error::ElementNotFound {
                        target: req.ref_.clone(),
                        stale: false,
                    })
                }
            };
            let url = st.last.as_ref().map(|o| o.url.clone()).unwrap_or_default();
            (entry.element.clone(), entry.key, url)
        };
        let key = key.ok_or_else(|| Error::ElementNotFound {
            target: req.ref_.clone(),
            stale: true,
        })?;
        let expr = format!("window[Symbol.for('pinpoint.state')].byKey.get({key})?.deref()");
        let info = page
            .page
            .call_on(&expr, DESCRIBE_JS, Value::Null)
            .await
            .map_err(|e| match e {
                Error::ElementNotFound { .. } => Error::ElementNotFound {
                    target: req.ref_.clone(),
                    stale: true,
                },
                other => other,
            })?;
        let s = |k: &str| {
            info.get(k)
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string()
        };
        let vw = info
            .get("vw")
            .and_then(|v| v.as_f64())
            .unwrap_or(1280.0)
            .max(1.0);
        let session_id = match req.session_id.clone() {
            Some(s) => s,
            None => self.session_for_url(store, &url).await?,
        };
        let b = el.bounds;
        let mut extra = serde_json::Map::new();
        extra.insert("ref".into(), json!(el.ref_));
        extra.insert("role".into(), json!(el.role));
        extra.insert("elementName".into(), json!(el.name));
        extra.insert("anchor".into(), json!(el.anchor));
        if el.frame != "main" {
            extra.insert("frameId".into(), json!(el.frame));
        }
        let annotation = Annotation {
            id: new_id(),
            comment: req.comment,
            element: Some(describe_tag(&el)),
            element_path: Some(el.selector.clone()),
            timestamp: Some(Number::from(now_ms())),
            x: Some(num(((b.x + b.width / 2.0) / vw * 100.0).clamp(0.0, 100.0))),
            y: Some(num(b.y + b.height / 2.0)),
            url: Some(url),
            bounding_box: Some(BoundingBox {
                x: num(b.x),
                y: num(b.y),
                width: num(b.width),
                height: num(b.height),
            }),
            css_classes: Some(s("classes")).filter(|c| !c.is_empty()),
            computed_styles: Some(s("styles")),
            accessibility: Some(format!("role={} name=\"{}\"", el.role, el.name)),
            nearby_text: Some(s("nearby")).filter(|c| !c.is_empty()),
            selected_text: None,
            intent: req.intent,
            severity: req.severity,
            is_fixed: Some(info.get("fixed").and_then(|v| v.as_bool()).unwrap_or(false)),
            extra,
            ..Default::default()
        };
        let committed = store
            .dispatch(Action::CreateAnnotation {
                session_id,
                annotation,
            })
            .await?;
        committed
            .annotation()
            .cloned()
            .ok_or_else(|| Error::Internal("the store did not return the annotation".into()))
    }

    /// The open annotation session for a URL, created when there is none.
    async fn session_for_url(&self, store: &Store, url: &str) -> Result<String> {
        let sessions = store.sessions().await?;
        if let Some(s) = sessions.iter().find(|s| {
            s.url == url && !matches!(s.status, crate::annotations::model::SessionStatus::Closed)
        }) {
            return Ok(s.id.clone());
        }
        let id = new_id();
        store
            .dispatch(Action::CreateSession {
                session_id: id.clone(),
                url: url.to_string(),
                project_id: None,
                metadata: Some(json!({ "source": "pinpoint" })),
            })
            .await?;
        Ok(id)
    }
}

/// Re-anchor the open annotations of this URL on an observation: by ref, then
/// by selector (elementPath), then by the element's text; else orphaned.
pub async fn anchor(store: &Store, obs: &Observation) -> Result<Vec<PinnedAnnotation>> {
    let url = obs.url.split('#').next().unwrap_or(&obs.url).to_string();
    let mut all = store
        .list_annotations(AnnotationFilter {
            url: Some(obs.url.clone()),
            ..Default::default()
        })
        .await?;
    if url != obs.url {
        all.extend(
            store
                .list_annotations(AnnotationFilter {
                    url: Some(url),
                    ..Default::default()
                })
                .await?,
        );
    }
    Ok(anchor_pure(&all, obs))
}

/// The pure part of [`anchor`].
pub fn anchor_pure(annotations: &[Annotation], obs: &Observation) -> Vec<PinnedAnnotation> {
    annotations
        .iter()
        .filter(|a| matches!(a.status(), Status::Pending | Status::Acknowledged))
        .map(|a| {
            let r = a.extra.get("ref").and_then(|v| v.as_str());
            let name = a.extra.get("elementName").and_then(|v| v.as_str());
            let role = a.extra.get("role").and_then(|v| v.as_str());
            let anchor = a.extra.get("anchor").and_then(|v| v.as_str());
            // A selector or text match must also sit in the same anchor (card,
            // section, row): positional paths shift onto a twin otherwise.
            let same_place = |e: &&Element| {
                anchor.is_none_or(|an| an == e.anchor) && role.is_none_or(|r| r == e.role)
            };
            let found = r
                .and_then(|r| {
                    obs.elements
                        .iter()
                        .find(|e| e.ref_ == r)
                        .map(|e| (e, "ref"))
                })
                .or_else(|| {
                    let p = a.element_path.as_deref()?;
                    obs.elements
                        .iter()
                        .filter(same_place)
                        .find(|e| e.selector == p)
                        .map(|e| (e, "selector"))
                })
                .or_else(|| {
                    let n = name.filter(|n| !n.is_empty())?;
                    let mut it = obs
                        .elements
                        .iter()
                        .filter(same_place)
                        .filter(|e| e.name == n);
                    let first = it.next()?;
                    // Text must be unambiguous, or we would pin to the wrong twin.
                    it.next().is_none().then_some((first, "text"))
                });
            PinnedAnnotation {
                id: a.id.clone(),
                state: if found.is_some() {
                    "anchored"
                } else {
                    "orphaned"
                }
                .to_string(),
                via: found.map(|(_, v)| v.to_string()),
                ref_: found.map(|(e, _)| e.ref_.clone()),
                bounds: found.map(|(e, _)| e.bounds),
                comment: a.comment.clone(),
                severity: a.severity.map(|s| s.as_str().to_string()),
                status: a.status().as_str().to_string(),
            }
        })
        .collect()
}
