//! Element discovery: the in-page script (`discover.js`) and the pure
//! post-processing of what it returns.
//!
//! Choice (measured, see ARCHITECTURE.md): ONE `Runtime.evaluate` of an
//! in-page pass per observation, walking every open shadow root and every
//! same-origin iframe from the top frame. It computes role and accessible name
//! itself (checked against Chromium's accessibility tree by the tests), hit-tests
//! for occlusion, and tags each element with a stable in-page key so the ref
//! registry can recognise the same live node without extra CDP round-trips.
//! DOMSnapshot misses plain controls without listeners, and the AX tree has no
//! bounds and skips iframes unless asked per frame; both cost more round-trips.
//!
//! Architecture invariant: imports only `model`, `refs` types and `error`; no I/O.

use crate::error::{Error, Result};
use crate::model::{Checked, Element, FrameInfo, MixedTag, Rect, Stability, ViewportInfo};
use crate::refs::Candidate;
use serde::Deserialize;

/// The discovery script: a function expression taking an options object.
pub const DISCOVER_JS: &str = include_str!("discover.js");

/// Build the expression that runs one discovery pass (the whole script).
pub fn discover_expression(max_elements: Option<usize>) -> String {
    format!("({})({})", discover_source(), options(max_elements, None))
}

fn discover_source() -> &'static str {
    DISCOVER_JS.trim_end().trim_end_matches(';')
}

fn options(max_elements: Option<usize>, have: Option<u64>) -> serde_json::Value {
    options_with_parts(max_elements, have, None)
}

fn options_with_parts(
    max_elements: Option<usize>,
    have: Option<u64>,
    part: Option<usize>,
) -> serde_json::Value {
    let mut o = serde_json::json!({ "maxElements": max_elements.unwrap_or(100_000) });
    if let Some(p) = have {
        o["have"] = p.into();
    }
    if let Some(n) = part {
        o["part"] = n.into();
    }
    o
}

/// What a pass whose result is too large for one answer returns instead: the
/// result waits in the page, cut into `parts` (see [`part_calls`]).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Parted {
    pub parts: usize,
    pub pass: u64,
}

impl Parted {
    /// The header, if `answer` is one (a full result starts with `{"doc":`).
    pub fn from_answer(answer: &str) -> Option<Parted> {
        if !answer.starts_with("{\"parts\":") {
            return None;
        }
        serde_json::from_str(answer).ok()
    }
}

/// The expressions that fetch each part of a parted result, to be sent all
/// at once (Chromium hands several small strings over faster than one large
/// one). Each answers `null` if the result is gone (four newer passes ran);
/// the last one also removes it from the page.
pub fn part_calls(h: Parted) -> Vec<String> {
    (0..h.parts)
        .map(|i| {
            format!(
                "(() => {{ const st = window[Symbol.for(\"pinpoint.state\")]; const o = st && st.outs && st.outs.get({pass}); \
                 if (!o) return null; if ({i} === o.cuts.length - 2) st.outs.delete({pass}); return o.json.slice(o.cuts[{i}], o.cuts[{next}]); }})()",
                pass = h.pass,
                next = i + 1
            )
        })
        .collect()
}

/// What [`discover_call`] returns when the document has no installed pass yet.
pub const MISSING: &str = "__pinpoint_missing__";

/// The key the pass is installed under in a document (`Symbol.for`), naming
/// this build's script so that two pinpoint versions on one browser never
/// call each other's pass.
fn install_key() -> &'static str {
    static KEY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    KEY.get_or_init(|| {
        let h = blake3::hash(DISCOVER_JS.as_bytes()).to_hex();
        format!("pinpoint.discover.{}", &h[..12])
    })
}

/// A short expression that runs the pass installed in the document, or
/// returns [`MISSING`]. Installed once per document, the function is neither
/// re-sent nor re-parsed on each observation, and V8 keeps its optimised code
/// across observations.
///
/// `have`: the pass number whose elements the caller still holds; elements
/// unchanged since then come back as [`RawItem::Same`].
pub fn discover_call(max_elements: Option<usize>, have: Option<u64>) -> String {
    discover_call_in_parts(max_elements, have, None)
}

/// [`discover_call`] with results longer than `part` characters (default
/// 131,072) left in the page in parts.
pub fn discover_call_in_parts(
    max_elements: Option<usize>,
    have: Option<u64>,
    part: Option<usize>,
) -> String {
    format!(
        "(() => {{ const f = window[Symbol.for({key:?})]; return typeof f === \"function\" ? f({opts}) : {MISSING:?}; }})()",
        key = install_key(),
        opts = options_with_parts(max_elements, have, part)
    )
}

/// A script that installs the pass in each new document (added once per
/// page), so that the first observe of a document neither sends nor
/// compiles it; [`discover_install_and_call`] remains the fallback.
pub fn discover_install_script() -> String {
    format!(
        "Object.defineProperty(window, Symbol.for({key:?}), {{ value: ({src}), configurable: true }});",
        key = install_key(),
        src = discover_source()
    )
}

/// Install the pass in the document (hidden, non-enumerable) and run it.
pub fn discover_install_and_call(max_elements: Option<usize>) -> String {
    format!(
        "(() => {{ const k = Symbol.for({key:?}); Object.defineProperty(window, k, {{ value: ({src}), configurable: true }}); return window[k]({opts}); }})()",
        key = install_key(),
        src = discover_source(),
        opts = options(max_elements, None)
    )
}

/// How long a frame-gated pass waits for the next frame before it runs
/// anyway (a background tab of a connected browser paints no frames).
pub const FRAME_WAIT_MS: u32 = 200;

/// How long a frame-gated pass waits after the frame's own task (ms), by
/// default; `PINPOINT_PRESENT_WAIT_MS` overrides it (for tuning on another
/// machine: `cargo test --release -- --ignored probe_shot_variants`).
pub const PRESENT_WAIT_MS: u32 = 4;

fn present_wait_ms() -> u32 {
    std::env::var("PINPOINT_PRESENT_WAIT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&ms| ms <= FRAME_WAIT_MS)
        .unwrap_or(PRESENT_WAIT_MS)
}

/// Run `expr` (a discovery call) as a task a little after the page's next
/// frame.
///
/// A capture needs the renderer's main thread twice: to produce the frame,
/// and a few ms later to pass on the note that the frame was presented,
/// after which the browser reads the frame back and encodes it. A pass sent
/// with the capture takes the main thread first, so the frame waits for it
/// (probe: demo 66 ms vs 50 ms for the capture alone). A pass queued just
/// behind the frame (`requestAnimationFrame`, then a task) still holds up
/// the note: a 12 ms busy loop there delays the capture by 12 ms (probe
/// `browser::probe_capture_vs_busy_main_thread`). Started [`PRESENT_WAIT_MS`]
/// after the frame's task, the same loop costs the capture 0–3 ms, and the
/// pass overlaps the read-back and encode instead. `bench shot`, docs page
/// (105 marks): 1.85–1.96× a bare screenshot with the pass right behind the
/// frame, 1.57–1.59× with the wait. The pass sees the DOM as it was painted
/// unless the page changes it within those few ms.
pub fn after_next_frame(expr: &str) -> String {
    let wait = present_wait_ms();
    format!(
        "new Promise((ok, fail) => {{ let done = false; const go = () => {{ if (done) return; done = true; try {{ ok({expr}); }} catch (e) {{ fail(e); }} }}; requestAnimationFrame(() => setTimeout(() => setTimeout(go, {wait}), 0)); setTimeout(go, {FRAME_WAIT_MS}); }})"
    )
}

/// What the in-page pass returns.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawObservation {
    pub doc: String,
    pub url: String,
    pub title: String,
    pub viewport: ViewportInfo,
    pub page: PageSize,
    pub total: usize,
    #[serde(default)]
    pub frames: Vec<FrameInfo>,
    /// The pass number (per document), for the next call's `have`.
    #[serde(default)]
    pub pass: Option<u64>,
    pub elements: Vec<RawItem>,
}

/// One entry of the element list: a full result, or the in-page key of an
/// element whose result equals the one of the pass the caller holds.
#[derive(Debug, Clone)]
pub enum RawItem {
    Full(Box<RawElement>),
    Same(u64),
}

impl<'de> Deserialize<'de> for RawItem {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = RawItem;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an element object or an element key")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<RawItem, E> {
                Ok(RawItem::Same(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<RawItem, A::Error> {
                RawElement::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|e| RawItem::Full(Box::new(e)))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub struct PageSize {
    pub width: f64,
    pub height: f64,
}

/// One element as the script reports it (null, false and empty fields are omitted).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RawElement {
    pub key: u64,
    /// Absent for the top frame.
    #[serde(default = "main_frame")]
    pub frame: String,
    pub tag: String,
    pub role: String,
    #[serde(default)]
    pub name: String,
    pub input_type: Option<String>,
    pub test_id: Option<String>,
    pub id: Option<String>,
    pub name_attr: Option<String>,
    pub aria_label: Option<String>,
    #[serde(default)]
    pub placeholder: Option<String>,
    pub href: Option<String>,
    #[serde(default)]
    pub anchor: String,
    pub css_path: String,
    #[serde(default)]
    pub shadow: bool,
    /// Sent as `[x, y, width, height]`.
    #[serde(deserialize_with = "rect_from_array")]
    pub bounds: Rect,
    pub in_viewport: bool,
    pub visible: bool,
    pub occluded: bool,
    pub occluded_by: Option<String>,
    #[serde(default)]
    pub clickable: bool,
    #[serde(default)]
    pub disabled: bool,
    pub checked: Option<serde_json::Value>,
    pub expanded: Option<bool>,
    pub selected: Option<bool>,
    #[serde(default)]
    pub focused: bool,
    #[serde(default)]
    pub editable: bool,
    #[serde(default)]
    pub sensitive: bool,
    pub value: Option<String>,
    /// The page region's key (0 or absent: none).
    pub region: Option<u64>,
}

fn main_frame() -> String {
    "main".to_string()
}

fn rect_from_array<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Rect, D::Error> {
    let [x, y, width, height] = <[f64; 4]>::deserialize(d)?;
    Ok(Rect::new(x, y, width, height))
}

/// Parse the script's JSON output.
pub fn parse(json: &str) -> Result<RawObservation> {
    serde_json::from_str(json)
        .map_err(|e| Error::Internal(format!("discovery output did not parse: {e}")))
}

impl RawElement {
    /// Turn a raw element into a registry candidate (ref not yet assigned).
    pub fn into_candidate(self) -> Candidate {
        let checked = match self.checked {
            Some(serde_json::Value::Bool(b)) => Some(Checked::Bool(b)),
            Some(serde_json::Value::String(s)) if s == "mixed" => {
                Some(Checked::Mixed(MixedTag::Mixed))
            }
            _ => None,
        };
        let round = |v: f64| (v * 100.0).round() / 100.0;
        Candidate {
            key: self.key,
            element: Element {
                ref_: String::new(),
                role: self.role,
                name: self.name,
                tag: self.tag,
                input_type: self.input_type,
                bounds: Rect::new(
                    round(self.bounds.x),
                    round(self.bounds.y),
                    round(self.bounds.width),
                    round(self.bounds.height),
                ),
                in_viewport: self.in_viewport,
                visible: self.visible,
                occluded: self.occluded,
                occluded_by: self.occluded_by,
                disabled: self.disabled,
                checked,
                expanded: self.expanded,
                selected: self.selected,
                focused: self.focused,
                editable: self.editable,
                value: self.value,
                sensitive: self.sensitive,
                frame: self.frame,
                selector: self.css_path,
                shadow: self.shadow,
                clickable: self.clickable,
                stability: Stability::New,
                previous_ref: None,
                test_id: self.test_id,
                id: self.id,
                href: self.href,
                name_attr: self.name_attr,
                aria_label: self.aria_label,
                anchor: self.anchor,
                region: self.region.filter(|&r| r != 0),
            },
        }
    }
}

/// Filters an observation's element list the way callers ask.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub roles: Vec<String>,
    pub max: Option<usize>,
    pub only_in_viewport: bool,
}

impl Filter {
    pub fn apply(&self, els: &[Element]) -> Vec<Element> {
        let mut out: Vec<Element> = els
            .iter()
            .filter(|e| {
                self.roles.is_empty() || self.roles.iter().any(|r| r == &e.role || r == &e.tag)
            })
            .filter(|e| !self.only_in_viewport || e.in_viewport)
            .cloned()
            .collect();
        if let Some(m) = self.max {
            out.truncate(m);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_minimal_output() {
        let json = r#"{"doc":"d","url":"http://x/","title":"t","viewport":{"width":1280,"height":720,"scrollX":0,"scrollY":0,"dpr":1},
          "page":{"width":1280,"height":900},"total":1,"frames":[],
          "elements":[{"key":1,"frame":"main","tag":"button","role":"button","name":"Go","inputType":null,"testId":null,"id":null,
          "nameAttr":null,"ariaLabel":null,"href":null,"anchor":"","cssPath":"body > button","bounds":[1,2,3,4.5],
          "inViewport":true,"visible":true,"occluded":false,"occludedBy":null,"checked":"mixed","expanded":null,"selected":null,"value":null}]}"#;
        let raw = parse(json).unwrap();
        let Some(RawItem::Full(e)) = raw.elements.into_iter().next() else {
            panic!("a full element")
        };
        let c = e.into_candidate();
        assert_eq!(c.key, 1);
        assert_eq!(c.element.checked, Some(Checked::Mixed(MixedTag::Mixed)));
        assert_eq!(c.element.bounds, Rect::new(1.0, 2.0, 3.0, 4.5));
    }

    #[test]
    fn unchanged_elements_come_back_as_their_key() {
        let json = r#"{"doc":"d","url":"u","title":"t","viewport":{"width":1,"height":1,"scrollX":0,"scrollY":0,"dpr":1},
          "page":{"width":1,"height":1},"total":2,"pass":4,
          "elements":[7,{"key":8,"tag":"a","role":"link","cssPath":"a","bounds":[0,0,1,1]},
            {"key":9,"frame":"main/f","tag":"a","role":"link","cssPath":"a","bounds":[0,0,1,1]}]}"#;
        let raw = parse(json).unwrap();
        assert_eq!(raw.pass, Some(4));
        assert!(matches!(raw.elements[0], RawItem::Same(7)));
        assert!(
            matches!(&raw.elements[1], RawItem::Full(e) if e.key == 8 && e.frame == "main"),
            "no frame means the top frame"
        );
        assert!(matches!(&raw.elements[2], RawItem::Full(e) if e.frame == "main/f"));
        assert!(parse(&json.replace("[0,0,1,1]}", "{\"x\":0}}")).is_err());
        assert!(parse(&json.replace("[7,", "[\"x\",")).is_err());
    }

    #[test]
    fn a_parted_answer_is_told_from_a_result() {
        let h = Parted::from_answer(r#"{"parts":3,"pass":9}"#).unwrap();
        assert_eq!(h, Parted { parts: 3, pass: 9 });
        let calls = part_calls(h);
        assert_eq!(calls.len(), 3);
        assert!(calls[2].contains("o.cuts[2], o.cuts[3]") && calls[2].contains("get(9)"));
        assert!(Parted::from_answer(r#"{"doc":"d","parts":3}"#).is_none());
        assert!(Parted::from_answer(r#"{"parts":"x"}"#).is_none());
    }

    #[test]
    fn bad_output_is_an_error_not_a_panic() {
        assert!(parse("{").is_err());
        assert!(parse("[]").is_err());
    }

    #[test]
    fn installed_pass_is_called_by_a_short_versioned_expression() {
        let call = discover_call(Some(5), Some(7));
        assert!(call.len() < 300, "{call}");
        assert!(call.contains("\"maxElements\":5"));
        assert!(call.contains("\"have\":7"));
        assert!(call.contains("pinpoint.discover."));
        let install = discover_install_and_call(Some(5));
        assert!(install.contains("(function (opts)"));
        assert!(install.contains(install_key()));
    }

    #[test]
    fn frame_gated_pass_runs_once_after_a_frame_or_the_fallback_timer() {
        let e = after_next_frame(&discover_call(None, None));
        assert!(e.starts_with("new Promise("));
        assert!(e.contains(&format!(
            "requestAnimationFrame(() => setTimeout(() => setTimeout(go, {PRESENT_WAIT_MS}), 0))"
        )));
        assert!(e.contains(&format!("setTimeout(go, {FRAME_WAIT_MS})")));
        assert!(e.contains("if (done) return; done = true;"));
        assert!(e.contains(&discover_call(None, None)));
    }

    #[test]
    fn expression_embeds_options() {
        let e = discover_expression(Some(5));
        assert!(e.contains("\"maxElements\":5"));
        assert!(e.contains("(function (opts)"));
    }
}
