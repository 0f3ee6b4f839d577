//! AFS v1 wire types: annotations, thread messages, sessions, action requests
//! and the event envelope, plus the source anchor of the annotations channel.
//!
//! Invariant: pure data, no I/O. Absent optional fields are omitted on the
//! wire, and fields a client sent that this model does not know are kept in
//! `extra` and echoed back unchanged (AGENTATION-HTTP must-do #4).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// Lifecycle status of an annotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pending,
    Acknowledged,
    Resolved,
    Dismissed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Acknowledged => "acknowledged",
            Status::Resolved => "resolved",
            Status::Dismissed => "dismissed",
        }
    }
    /// Parse the wire spelling (`pending`, …).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "pending" => Status::Pending,
            "acknowledged" => Status::Acknowledged,
            "resolved" => Status::Resolved,
            "dismissed" => Status::Dismissed,
            _ => return None,
        })
    }
    /// `resolved` and `dismissed` end the agent loop.
    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Resolved | Status::Dismissed)
    }
}

/// Who resolved or dismissed an annotation (also the role of a thread message).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Actor {
    Human,
    Agent,
}

impl Actor {
    pub fn as_str(self) -> &'static str {
        match self {
            Actor::Human => "human",
            Actor::Agent => "agent",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Intent {
    Fix,
    Change,
    Question,
    Approve,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Blocking,
    Important,
    Suggestion,
}

impl Intent {
    pub fn as_str(self) -> &'static str {
        match self {
            Intent::Fix => "fix",
            Intent::Change => "change",
            Intent::Question => "question",
            Intent::Approve => "approve",
        }
    }
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Blocking => "blocking",
            Severity::Important => "important",
            Severity::Suggestion => "suggestion",
        }
    }
}

/// `{x, y, width, height}` in CSS pixels (numbers kept as sent: `3` stays `3`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BoundingBox {
    pub x: Number,
    pub y: Number,
    pub width: Number,
    pub height: Number,
}

/// A zero-based line/character position in a text file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextPosition {
    pub line: u64,
    pub character: u64,
}

/// A range in a text file (the channel seed's `TextRange`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextRange {
    pub start: TextPosition,
    pub end: TextPosition,
}

/// Anchor of an annotation on a source file produced by a turn (annotations channel).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceAnchor {
    /// File URI (`file:///repo/src/Button.tsx`).
    pub resource: String,
    /// Range inside the file; absent = the whole file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<TextRange>,
    /// Turn whose file versions the anchor refers to.
    pub turn_id: String,
}

/// One message of an annotation's thread (also a channel `AnnotationEntry`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadMessage {
    pub id: String,
    pub role: Actor,
    pub content: String,
    /// Unix milliseconds.
    pub timestamp: i64,
    /// Unknown fields (e.g. a channel entry's `_meta`, `format`), echoed back.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An AFS v1 annotation. Required AFS fields are `Option` only so that
/// source-anchored (channel) annotations, which have no element, fit the same
/// type; the HTTP layer validates element annotations against the JSON Schema.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotation {
    // --- required (AFS) ---
    pub id: String,
    #[serde(default)]
    pub comment: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_path: Option<String>,
    /// Unix milliseconds when the client captured the annotation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Number>,
    /// % of viewport width (0-100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<Number>,
    /// px from document top (or viewport if `isFixed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<Number>,
    // --- recommended ---
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounding_box: Option<BoundingBox>,
    // --- optional context ---
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub react_components: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub css_classes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computed_styles: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accessibility: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nearby_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<Intent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    // --- lifecycle ---
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<Vec<ThreadMessage>>,
    /// Unix milliseconds (server-set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_by: Option<Actor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_id: Option<String>,
    // --- browser component ---
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_fixed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_multi_select: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nearby_elements: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_bounding_boxes: Option<Vec<BoundingBox>>,
    // --- layout items (toolbar) ---
    /// `feedback` (default) | `placement` | `rearrange`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rearrange: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Map<String, Value>>,
    // --- Pinpoint: source anchor (annotations channel) ---
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceAnchor>,
    /// Every field this model does not know (`_syncedTo`, `drawingIndex`, …).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Annotation {
    /// Status, defaulting to `pending` when absent.
    pub fn status(&self) -> Status {
        self.status.unwrap_or(Status::Pending)
    }
    /// The session this annotation belongs to (empty when unset).
    pub fn session(&self) -> &str {
        self.session_id.as_deref().unwrap_or("")
    }
}

/// Session lifecycle status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionStatus {
    Active,
    Approved,
    Closed,
}

/// A review session (one page or one agent session).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub id: String,
    pub url: String,
    pub status: SessionStatus,
    /// ISO 8601 (as the upstream server and its clients use).
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// `action.requested` payload: everything an agent needs to act on a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionRequest {
    pub session_id: String,
    pub annotations: Vec<Annotation>,
    pub output: String,
    /// Unix milliseconds.
    pub timestamp: i64,
}

/// The AFS event types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EventType {
    #[serde(rename = "annotation.created")]
    AnnotationCreated,
    #[serde(rename = "annotation.updated")]
    AnnotationUpdated,
    #[serde(rename = "annotation.deleted")]
    AnnotationDeleted,
    #[serde(rename = "session.created")]
    SessionCreated,
    #[serde(rename = "session.updated")]
    SessionUpdated,
    #[serde(rename = "session.closed")]
    SessionClosed,
    #[serde(rename = "thread.message")]
    ThreadMessage,
    #[serde(rename = "action.requested")]
    ActionRequested,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::AnnotationCreated => "annotation.created",
            EventType::AnnotationUpdated => "annotation.updated",
            EventType::AnnotationDeleted => "annotation.deleted",
            EventType::SessionCreated => "session.created",
            EventType::SessionUpdated => "session.updated",
            EventType::SessionClosed => "session.closed",
            EventType::ThreadMessage => "thread.message",
            EventType::ActionRequested => "action.requested",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        serde_json::from_value(Value::String(s.to_owned())).ok()
    }
    /// `action.requested` is live-only: never replayed from `Last-Event-ID`.
    pub fn replayable(self) -> bool {
        self != EventType::ActionRequested
    }
}

/// An event the reducer produced, before the store gives it a sequence.
#[derive(Debug, Clone, PartialEq)]
pub struct EventDraft {
    pub kind: EventType,
    pub session_id: String,
    pub payload: Value,
}

/// The AFS event envelope as stored and streamed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    #[serde(rename = "type")]
    pub kind: EventType,
    /// Unix milliseconds.
    pub timestamp: i64,
    pub session_id: String,
    /// Database-assigned, strictly increasing, gap-free per store file (≥ 1).
    pub sequence: i64,
    pub payload: Value,
}

/// Channel `AnnotationEntry` (seed 001).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelEntry {
    pub id: String,
    /// A bare string, or `{ "markdown": "…" }`.
    pub text: Value,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

/// Channel `Annotation` (seed 001): anchored to a file produced by a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelAnnotation {
    pub id: String,
    pub turn_id: String,
    pub resource: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<TextRange>,
    #[serde(default)]
    pub resolved: bool,
    pub entries: Vec<ChannelEntry>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

/// The client-dispatchable `annotations/*` channel actions (seed 001).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ChannelAction {
    #[serde(rename = "annotations/set")]
    Set { annotation: ChannelAnnotation },
    #[serde(rename = "annotations/updated", rename_all = "camelCase")]
    Updated {
        annotation_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resource: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        range: Option<TextRange>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resolved: Option<bool>,
    },
    #[serde(rename = "annotations/removed", rename_all = "camelCase")]
    Removed { annotation_id: String },
    #[serde(rename = "annotations/entrySet", rename_all = "camelCase")]
    EntrySet {
        annotation_id: String,
        entry: ChannelEntry,
    },
    #[serde(rename = "annotations/entryRemoved", rename_all = "camelCase")]
    EntryRemoved {
        annotation_id: String,
        entry_id: String,
    },
}

/// Current time in Unix milliseconds.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A Unix-millisecond instant as ISO 8601 (`2026-11-22T03:00:00.000Z`).
pub fn iso_from_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A new opaque id: `<ms base36>-<6 random base36 chars>` (no `/`, like upstream).
pub fn new_id() -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut ms = u64::try_from(now_ms()).unwrap_or(0);
    let mut head = Vec::new();
    loop {
        head.push(DIGITS[(ms % 36) as usize]);
        ms /= 36;
        if ms == 0 {
            break;
        }
    }
    head.reverse();
    let rand = uuid::Uuid::new_v4().as_u128();
    let mut tail = String::with_capacity(6);
    let mut r = rand;
    for _ in 0..6 {
        tail.push(DIGITS[(r % 36) as usize] as char);
        r /= 36;
    }
    format!("{}-{}", String::from_utf8_lossy(&head), tail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_fields_round_trip_and_absent_fields_are_omitted() {
        let v = json!({"id":"a","comment":"c","element":"button","elementPath":"main > button",
            "timestamp":1760000000000u64,"x":42.5,"y":310,"_syncedTo":"s","drawingIndex":3,
            "elementBoundingBoxes":[{"x":1,"y":2,"width":3,"height":4}]});
        let a: Annotation = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(a.extra.get("_syncedTo"), Some(&json!("s")));
        let back = serde_json::to_value(&a).unwrap();
        assert_eq!(back["drawingIndex"], json!(3));
        assert_eq!(back["y"], json!(310));
        assert_eq!(back["timestamp"], json!(1760000000000u64));
        assert!(back.get("status").is_none());
        assert!(back.get("url").is_none());
    }

    #[test]
    fn event_envelope_shape() {
        let e = Event {
            kind: EventType::ThreadMessage,
            timestamp: 5,
            session_id: "S".into(),
            sequence: 7,
            payload: json!({}),
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(
            v,
            json!({"type":"thread.message","timestamp":5,"sessionId":"S","sequence":7,"payload":{}})
        );
        assert_eq!(
            EventType::parse("session.closed"),
            Some(EventType::SessionClosed)
        );
    }

    #[test]
    fn ids_have_no_slash_and_are_unique() {
        let a = new_id();
        let b = new_id();
        assert_ne!(a, b);
        assert!(!a.contains('/'));
        assert_eq!(a.split('-').nth(1).map(str::len), Some(6));
    }

    #[test]
    fn channel_action_tags() {
        let a: ChannelAction = serde_json::from_value(
            json!({"type":"annotations/entryRemoved","annotationId":"a","entryId":"e"}),
        )
        .unwrap();
        assert_eq!(
            a,
            ChannelAction::EntryRemoved {
                annotation_id: "a".into(),
                entry_id: "e".into()
            }
        );
    }
}
