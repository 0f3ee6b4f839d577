//! The shared data model: rectangles, elements, refs, marks and observations.
//!
//! Architecture invariant: this module imports nothing of ours and does no
//! I/O. Every interface (BAP JSON-RPC, HTTP, MCP, CLI) serialises these types;
//! optional fields are omitted when absent, never written as `null`.

use serde::{Deserialize, Serialize};

/// A rectangle in CSS pixels (page coordinates unless a field says otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Rect {
    pub const fn new(x: f64, y: f64, width: f64, height: f64) -> Self {
        Rect {
            x,
            y,
            width,
            height,
        }
    }
    pub fn right(&self) -> f64 {
        self.x + self.width
    }
    pub fn bottom(&self) -> f64 {
        self.y + self.height
    }
    pub fn center(&self) -> (f64, f64) {
        (self.x + self.width / 2.0, self.y + self.height / 2.0)
    }
    pub fn area(&self) -> f64 {
        self.width.max(0.0) * self.height.max(0.0)
    }
    pub fn is_empty(&self) -> bool {
        !(self.width > 0.0 && self.height > 0.0)
    }
    /// The overlapping part of two rectangles, if any.
    pub fn intersection(&self, o: &Rect) -> Option<Rect> {
        let x0 = self.x.max(o.x);
        let y0 = self.y.max(o.y);
        let x1 = self.right().min(o.right());
        let y1 = self.bottom().min(o.bottom());
        (x1 > x0 && y1 > y0).then(|| Rect::new(x0, y0, x1 - x0, y1 - y0))
    }
    pub fn intersects(&self, o: &Rect) -> bool {
        self.intersection(o).is_some()
    }
    pub fn contains(&self, o: &Rect) -> bool {
        o.x >= self.x && o.y >= self.y && o.right() <= self.right() && o.bottom() <= self.bottom()
    }
    /// Squared distance between the centres of two rectangles.
    pub fn center_distance(&self, o: &Rect) -> f64 {
        let (ax, ay) = self.center();
        let (bx, by) = o.center();
        ((ax - bx).powi(2) + (ay - by).powi(2)).sqrt()
    }
}

/// How an element's ref relates to the previous observation of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stability {
    /// Same element, same ref, same place as last time.
    Stable,
    /// Never seen on this page before.
    New,
    /// Same element (same ref) but its bounds or its identity changed.
    Moved,
}

/// Tri-state checked value (`aria-checked="mixed"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Checked {
    Bool(bool),
    Mixed(MixedTag),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MixedTag {
    Mixed,
}

/// What kind of control an element is, for colouring marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub enum MarkKind {
    Button,
    Link,
    TextInput,
    /// select, checkbox, radio, switch, slider, option-like controls.
    Choice,
    #[default]
    Other,
    /// A review annotation pin (drawn distinct from element marks).
    Pin,
}

impl MarkKind {
    /// Classify an element from its ARIA role.
    pub fn from_role(role: &str) -> MarkKind {
        match role {
            "button" | "menuitem" | "tab" => MarkKind::Button,
            "link" => MarkKind::Link,
            "textbox" | "searchbox" | "spinbutton" => MarkKind::TextInput,
            "combobox" | "listbox" | "checkbox" | "radio" | "switch" | "slider" | "option"
            | "menuitemcheckbox" | "menuitemradio" => MarkKind::Choice,
            _ => MarkKind::Other,
        }
    }
}

/// One thing to draw on a screenshot: a box in page CSS px plus the ref it stands for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mark {
    pub rect: Rect,
    #[serde(rename = "ref")]
    pub ref_: String,
    pub kind: MarkKind,
    /// Pin colour override (e.g. severity colour for annotation pins), `#rrggbb`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// The page region the element sits in ([`Element::region`]): marks of
    /// different regions are not interleaved in reading order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<u64>,
}

/// The label that was drawn for a mark (BAP `AnnotationMapping`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnotationMapping {
    pub label: String,
    #[serde(rename = "ref")]
    pub ref_: String,
    /// Top-left of the badge in output-image pixels.
    pub position: Point,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// One interactive element of an observation.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Element {
    /// The stable ref (`@checkout-submit`, `@e7f3a2c1`).
    #[serde(rename = "ref")]
    pub ref_: String,
    pub role: String,
    /// Accessible name (as Chromium's accessibility tree computes it).
    pub name: String,
    /// Lowercase tag name.
    pub tag: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_type: Option<String>,
    /// Page CSS px (document coordinates, iframes converted).
    pub bounds: Rect,
    pub in_viewport: bool,
    /// Rendered with non-zero opacity and not clipped away by an ancestor.
    pub visible: bool,
    /// Another element covers it at its hit points.
    pub occluded: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occluded_by: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub disabled: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<Checked>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expanded: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<bool>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub focused: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub editable: bool,
    /// Current value; `••••` for passwords and other sensitive inputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub sensitive: bool,
    /// `main`, or the path of the iframe (`main/checkout`).
    pub frame: String,
    /// A CSS path unique within the element's root (document or shadow root).
    pub selector: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub shadow: bool,
    /// Found through a click listener or `cursor: pointer` rather than semantics.
    #[serde(default, skip_serializing_if = "is_false")]
    pub clickable: bool,
    pub stability: Stability,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_ref: Option<String>,
    /// Identity features (used by refs and annotations re-anchoring).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub href: Option<String>,
    /// The `name` attribute of form controls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_attr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aria_label: Option<String>,
    /// The nearest stable ancestor (`heading:Blender`, `landmark:navigation:`, `id:cart`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub anchor: String,
    /// The page region (banner, navigation, main, complementary, contentinfo
    /// or search landmark) the element sits in, as the landmark's in-page
    /// key; `None` outside all of them. Internal: it keeps a region's marks
    /// together in reading order and is not part of any wire format.
    #[serde(skip)]
    pub region: Option<u64>,
}

// Clone by hand for `clone_from`: the registry refreshes its copy of every
// element on each observation, and field-wise `clone_from` reuses the string
// buffers instead of freeing and allocating a dozen strings per element. Both
// bodies destructure every field, so a new field fails to compile until added.
impl Clone for Element {
    fn clone(&self) -> Self {
        let Element {
            ref_,
            role,
            name,
            tag,
            input_type,
            bounds,
            in_viewport,
            visible,
            occluded,
            occluded_by,
            disabled,
            checked,
            expanded,
            selected,
            focused,
            editable,
            value,
            sensitive,
            frame,
            selector,
            shadow,
            clickable,
            stability,
            previous_ref,
            test_id,
            id,
            href,
            name_attr,
            aria_label,
            anchor,
            region,
        } = self;
        Element {
            ref_: ref_.clone(),
            role: role.clone(),
            name: name.clone(),
            tag: tag.clone(),
            input_type: input_type.clone(),
            bounds: *bounds,
            in_viewport: *in_viewport,
            visible: *visible,
            occluded: *occluded,
            occluded_by: occluded_by.clone(),
            disabled: *disabled,
            checked: *checked,
            expanded: *expanded,
            selected: *selected,
            focused: *focused,
            editable: *editable,
            value: value.clone(),
            sensitive: *sensitive,
            frame: frame.clone(),
            selector: selector.clone(),
            shadow: *shadow,
            clickable: *clickable,
            stability: *stability,
            previous_ref: previous_ref.clone(),
            test_id: test_id.clone(),
            id: id.clone(),
            href: href.clone(),
            name_attr: name_attr.clone(),
            aria_label: aria_label.clone(),
            anchor: anchor.clone(),
            region: *region,
        }
    }

    fn clone_from(&mut self, src: &Self) {
        let Element {
            ref_,
            role,
            name,
            tag,
            input_type,
            bounds,
            in_viewport,
            visible,
            occluded,
            occluded_by,
            disabled,
            checked,
            expanded,
            selected,
            focused,
            editable,
            value,
            sensitive,
            frame,
            selector,
            shadow,
            clickable,
            stability,
            previous_ref,
            test_id,
            id,
            href,
            name_attr,
            aria_label,
            anchor,
            region,
        } = self;
        ref_.clone_from(&src.ref_);
        role.clone_from(&src.role);
        name.clone_from(&src.name);
        tag.clone_from(&src.tag);
        input_type.clone_from(&src.input_type);
        *bounds = src.bounds;
        *in_viewport = src.in_viewport;
        *visible = src.visible;
        *occluded = src.occluded;
        occluded_by.clone_from(&src.occluded_by);
        *disabled = src.disabled;
        *checked = src.checked;
        *expanded = src.expanded;
        *selected = src.selected;
        *focused = src.focused;
        *editable = src.editable;
        value.clone_from(&src.value);
        *sensitive = src.sensitive;
        frame.clone_from(&src.frame);
        selector.clone_from(&src.selector);
        *shadow = src.shadow;
        *clickable = src.clickable;
        *stability = src.stability;
        previous_ref.clone_from(&src.previous_ref);
        test_id.clone_from(&src.test_id);
        id.clone_from(&src.id);
        href.clone_from(&src.href);
        name_attr.clone_from(&src.name_attr);
        aria_label.clone_from(&src.aria_label);
        anchor.clone_from(&src.anchor);
        *region = src.region;
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Refs that appeared, changed or disappeared since the previous observation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Changes {
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub removed: Vec<String>,
}

/// Size of the viewport and where it is scrolled to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ViewportInfo {
    pub width: f64,
    pub height: f64,
    pub scroll_x: f64,
    pub scroll_y: f64,
    pub dpr: f64,
}

/// A frame seen during discovery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameInfo {
    pub id: String,
    #[serde(default)]
    pub url: String,
    /// Cross-origin frames cannot be walked by the in-page pass (yet).
    #[serde(default)]
    pub cross_origin: bool,
}

/// The result of one observation of a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Observation {
    pub url: String,
    pub title: String,
    pub viewport: ViewportInfo,
    /// Scrollable size of the document in CSS px.
    pub page_width: f64,
    pub page_height: f64,
    /// Sequence number of this observation on its page (1, 2, …).
    pub seq: u64,
    pub elements: Vec<Element>,
    /// Interactive elements found before `maxElements` cut the list.
    pub total: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<FrameInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Changes>,
    /// Open review annotations of this URL, re-anchored (only with a store).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub annotations: Vec<PinnedAnnotation>,
    /// Milliseconds spent in discovery (in-page pass + transfer) and in ref matching.
    pub timings: Timings,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    pub discover_ms: f64,
    pub refs_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render_ms: Option<f64>,
    /// Elements the page sent as their key alone (unchanged since the
    /// previous pass; filled in from the registry).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reused_elements: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// An open review annotation re-anchored on an observation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PinnedAnnotation {
    pub id: String,
    /// `anchored` or `orphaned`.
    pub state: String,
    /// `ref`, `selector` or `text` when anchored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub ref_: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<Rect>,
    pub comment: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
    pub status: String,
}
