//! The one pure reducer: `State × Action → changes + events`.
//!
//! Invariant: no I/O, no clock, no randomness. Ids and "now" arrive inside the
//! action and the [`Ctx`]; the store loads the slice of state an action needs
//! ([`Action::annotation_id`], [`Action::session_id`]), calls [`apply`], and
//! commits the returned [`Change`]s and [`EventDraft`]s in one transaction.
//! Every mutation of annotations or sessions goes through here. On an error
//! nothing is returned, so the caller's state stays untouched.
//!
//! Imports only `super::model` and `crate::error`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::model::{
    ActionRequest, Actor, Annotation, ChannelAction, ChannelAnnotation, ChannelEntry, EventDraft,
    EventType, Session, SessionStatus, SourceAnchor, Status, ThreadMessage,
};
use crate::error::{Error, Result};

/// The slice of the store an action reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct State {
    pub sessions: BTreeMap<String, Session>,
    pub annotations: BTreeMap<String, Annotation>,
}

/// Inputs from the outside world that an action needs (kept out of the reducer).
#[derive(Debug, Clone, Copy)]
pub struct Ctx {
    /// Unix milliseconds.
    pub now_ms: i64,
}

/// Every state change of the annotation store.
// Actions and changes are built and moved once per write: boxing buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    CreateSession {
        session_id: String,
        url: String,
        project_id: Option<String>,
        metadata: Option<Value>,
    },
    UpdateSession {
        session_id: String,
        url: Option<String>,
        project_id: Option<String>,
        metadata: Option<Value>,
        status: Option<SessionStatus>,
    },
    CloseSession {
        session_id: String,
    },
    /// `annotation.id` is the new id (assigned by the caller); the server
    /// fields (`sessionId`, `status`, `createdAt`) are overwritten here.
    CreateAnnotation {
        session_id: String,
        annotation: Annotation,
    },
    /// Shallow merge of `patch` into the annotation (all fields but `id`,
    /// `sessionId`, `createdAt`; `null` leaves the old value). A `status` in
    /// the patch follows the lifecycle rules of [`Action::SetStatus`];
    /// `"status": "reopen"` is [`Action::Reopen`].
    UpdateAnnotation {
        annotation_id: String,
        patch: Map<String, Value>,
    },
    DeleteAnnotation {
        annotation_id: String,
    },
    SetStatus {
        annotation_id: String,
        status: Status,
        by: Option<Actor>,
    },
    /// `resolved`/`dismissed` → `pending`, clearing `resolvedAt`/`resolvedBy`.
    Reopen {
        annotation_id: String,
    },
    AddThreadMessage {
        annotation_id: String,
        message: ThreadMessage,
    },
    EditThreadMessage {
        annotation_id: String,
        message_id: String,
        content: String,
    },
    RemoveThreadMessage {
        annotation_id: String,
        message_id: String,
    },
    RequestAction {
        session_id: String,
        output: String,
    },
    /// A channel action (seed 001) on the channel of `session_id`.
    Channel {
        session_id: String,
        action: ChannelAction,
    },
}

impl Action {
    /// The annotation the action targets, if any (the store loads it first).
    pub fn annotation_id(&self) -> Option<&str> {
        match self {
            Action::CreateAnnotation { annotation, .. } => Some(&annotation.id),
            Action::UpdateAnnotation { annotation_id, .. }
            | Action::DeleteAnnotation { annotation_id }
            | Action::SetStatus { annotation_id, .. }
            | Action::Reopen { annotation_id }
            | Action::AddThreadMessage { annotation_id, .. }
            | Action::EditThreadMessage { annotation_id, .. }
            | Action::RemoveThreadMessage { annotation_id, .. } => Some(annotation_id),
            Action::Channel { action, .. } => Some(match action {
                ChannelAction::Set { annotation } => &annotation.id,
                ChannelAction::Updated { annotation_id, .. }
                | ChannelAction::Removed { annotation_id }
                | ChannelAction::EntrySet { annotation_id, .. }
                | ChannelAction::EntryRemoved { annotation_id, .. } => annotation_id,
            }),
            _ => None,
        }
    }
    /// The session the action names directly, if any.
    pub fn session_id(&self) -> Option<&str> {
        match self {
            Action::CreateSession { session_id, .. }
            | Action::UpdateSession { session_id, .. }
            | Action::CloseSession { session_id }
            | Action::CreateAnnotation { session_id, .. }
            | Action::RequestAction { session_id, .. }
            | Action::Channel { session_id, .. } => Some(session_id),
            _ => None,
        }
    }
    /// Whether the action needs every annotation of its session loaded.
    pub fn needs_session_annotations(&self) -> bool {
        matches!(self, Action::RequestAction { .. })
    }
}

/// One write the store must perform.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    PutSession(Session),
    PutAnnotation(Annotation),
    DeleteAnnotation { id: String },
}

/// What an action did. Empty for a channel no-op.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Transition {
    pub changes: Vec<Change>,
    pub events: Vec<EventDraft>,
}

impl Transition {
    pub fn is_noop(&self) -> bool {
        self.changes.is_empty() && self.events.is_empty()
    }
}

impl State {
    /// Apply the changes of a transition (the "new state").
    pub fn commit(&mut self, changes: &[Change]) {
        for c in changes {
            match c {
                Change::PutSession(s) => {
                    self.sessions.insert(s.id.clone(), s.clone());
                }
                Change::PutAnnotation(a) => {
                    self.annotations.insert(a.id.clone(), a.clone());
                }
                Change::DeleteAnnotation { id } => {
                    self.annotations.remove(id);
                }
            }
        }
    }
}

/// Pure convenience: the new state and the events.
pub fn reduce(state: &State, action: &Action, ctx: Ctx) -> Result<(State, Vec<EventDraft>)> {
    let t = apply(state, action, ctx)?;
    let mut next = state.clone();
    next.commit(&t.changes);
    Ok((next, t.events))
}

fn to_value<T: serde::Serialize>(v: &T) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| Error::Internal(e.to_string()))
}

fn session_not_found(id: &str) -> Error {
    Error::NotFound {
        kind: "session",
        id: id.to_owned(),
    }
}

fn annotation_not_found(id: &str) -> Error {
    Error::NotFound {
        kind: "annotation",
        id: id.to_owned(),
    }
}

/// Whether `from → to` is an allowed status change (same status is allowed, idempotent).
pub fn transition_allowed(from: Status, to: Status) -> bool {
    use Status::*;
    match (from, to) {
        (a, b) if a == b => true,
        (Pending, _) => true,
        (Acknowledged, Resolved | Dismissed) => true,
        (Resolved | Dismissed, Pending) => true,
        _ => false,
    }
}

fn set_status(a: &mut Annotation, to: Status, by: Option<Actor>, now: i64) -> Result<()> {
    let from = a.status();
    if !transition_allowed(from, to) {
        return Err(Error::Conflict {
            message: format!(
                "annotation {} cannot go from {} to {}",
                a.id,
                from.as_str(),
                to.as_str()
            ),
        });
    }
    if from == to {
        if by.is_some() && to.is_terminal() {
            a.resolved_by = by;
        }
        return Ok(());
    }
    a.status = Some(to);
    if to.is_terminal() {
        a.resolved_at = Some(now);
        a.resolved_by = by.or(a.resolved_by);
    } else {
        a.resolved_at = None;
        a.resolved_by = None;
    }
    Ok(())
}

fn updated(a: &Annotation) -> Result<EventDraft> {
    Ok(EventDraft {
        kind: EventType::AnnotationUpdated,
        session_id: a.session().to_owned(),
        payload: to_value(a)?,
    })
}

fn annotation<'a>(state: &'a State, id: &str) -> Result<&'a Annotation> {
    state
        .annotations
        .get(id)
        .ok_or_else(|| annotation_not_found(id))
}

/// The reducer.
pub fn apply(state: &State, action: &Action, ctx: Ctx) -> Result<Transition> {
    let now = ctx.now_ms;
    let mut t = Transition::default();
    match action {
        Action::CreateSession {
            session_id,
            url,
            project_id,
            metadata,
        } => {
            if url.trim().is_empty() {
                return Err(Error::invalid_field("url", "url is required"));
            }
            if session_id.is_empty() || session_id.contains('/') {
                return Err(Error::invalid_field(
                    "id",
                    "session id must be non-empty and contain no '/'",
                ));
            }
            if state.sessions.contains_key(session_id) {
                return Err(Error::Conflict {
                    message: format!("session {session_id} already exists"),
                });
            }
            let s = Session {
                id: session_id.clone(),
                url: url.clone(),
                status: SessionStatus::Active,
                created_at: super::model::iso_from_ms(now),
                updated_at: None,
                project_id: project_id.clone(),
                metadata: metadata.clone(),
            };
            t.events.push(EventDraft {
                kind: EventType::SessionCreated,
                session_id: s.id.clone(),
                payload: to_value(&s)?,
            });
            t.changes.push(Change::PutSession(s));
        }
        Action::UpdateSession {
            session_id,
            url,
            project_id,
            metadata,
            status,
        } => {
            let mut s = state
                .sessions
                .get(session_id)
                .cloned()
                .ok_or_else(|| session_not_found(session_id))?;
            if let Some(u) = url {
                if u.trim().is_empty() {
                    return Err(Error::invalid_field("url", "url must not be empty"));
                }
                s.url = u.clone();
            }
            if project_id.is_some() {
                s.project_id = project_id.clone();
            }
            if metadata.is_some() {
                s.metadata = metadata.clone();
            }
            let closing =
                matches!(status, Some(SessionStatus::Closed)) && s.status != SessionStatus::Closed;
            if let Some(st) = status {
                s.status = *st;
            }
            s.updated_at = Some(super::model::iso_from_ms(now));
            t.events.push(EventDraft {
                kind: if closing {
                    EventType::SessionClosed
                } else {
                    EventType::SessionUpdated
                },
                session_id: s.id.clone(),
                payload: to_value(&s)?,
            });
            t.changes.push(Change::PutSession(s));
        }
        Action::CloseSession { session_id } => {
            let mut s = state
                .sessions
                .get(session_id)
                .cloned()
                .ok_or_else(|| session_not_found(session_id))?;
            if s.status == SessionStatus::Closed {
                return Err(Error::Conflict {
                    message: format!("session {session_id} is already closed"),
                });
            }
            s.status = SessionStatus::Closed;
            s.updated_at = Some(super::model::iso_from_ms(now));
            t.events.push(EventDraft {
                kind: EventType::SessionClosed,
                session_id: s.id.clone(),
                payload: to_value(&s)?,
            });
            t.changes.push(Change::PutSession(s));
        }
        Action::CreateAnnotation {
            session_id,
            annotation,
        } => {
            let s = state
                .sessions
                .get(session_id)
                .ok_or_else(|| session_not_found(session_id))?;
            if s.status == SessionStatus::Closed {
                return Err(Error::Conflict {
                    message: format!("session {session_id} is closed"),
                });
            }
            if annotation.id.is_empty() || annotation.id.contains('/') {
                return Err(Error::invalid_field(
                    "id",
                    "annotation id must be non-empty and contain no '/'",
                ));
            }
            if state.annotations.contains_key(&annotation.id) {
                return Err(Error::Conflict {
                    message: format!("annotation {} already exists", annotation.id),
                });
            }
            let mut a = annotation.clone();
            a.session_id = Some(session_id.clone());
            a.status = Some(Status::Pending);
            a.created_at = Some(now);
            a.updated_at = None;
            a.resolved_at = None;
            a.resolved_by = None;
            t.events.push(EventDraft {
                kind: EventType::AnnotationCreated,
                session_id: session_id.clone(),
                payload: to_value(&a)?,
            });
            t.changes.push(Change::PutAnnotation(a));
        }
        Action::UpdateAnnotation {
            annotation_id,
            patch,
        } => {
            let old = annotation(state, annotation_id)?;
            let mut merged = match to_value(old)? {
                Value::Object(m) => m,
                _ => return Err(Error::Internal("annotation is not an object".into())),
            };
            for (k, v) in patch {
                if matches!(
                    k.as_str(),
                    "id" | "sessionId" | "createdAt" | "status" | "resolvedAt"
                ) || v.is_null()
                {
                    continue;
                }
                merged.insert(k.clone(), v.clone());
            }
            if let Some(v) = patch.get("resolvedAt").filter(|v| !v.is_null()) {
                merged.insert("resolvedAt".into(), v.clone());
            }
            let mut a: Annotation = serde_json::from_value(Value::Object(merged))
                .map_err(|e| Error::invalid(format!("invalid annotation field: {e}")))?;
            if let Some(st) = patch.get("status").filter(|v| !v.is_null()) {
                if st.as_str() == Some("reopen") && !a.status().is_terminal() {
                    return Err(Error::Conflict {
                        message: format!(
                            "annotation {annotation_id} is {}; only resolved or dismissed annotations can be reopened",
                            a.status().as_str()
                        ),
                    });
                }
                let to = match st.as_str() {
                    Some("reopen") => Some(Status::Pending),
                    Some(s) => Status::parse(s),
                    None => None,
                }
                .ok_or_else(|| {
                    Error::invalid_field(
                        "status",
                        "status must be one of pending, acknowledged, resolved, dismissed (or reopen)",
                    )
                })?;
                let by = a.resolved_by;
                let explicit_at = patch.get("resolvedAt").and_then(Value::as_i64);
                set_status(&mut a, to, by, now)?;
                if to.is_terminal() {
                    if let Some(at) = explicit_at {
                        a.resolved_at = Some(at);
                    }
                }
            }
            a.updated_at = Some(now);
            t.events.push(updated(&a)?);
            t.changes.push(Change::PutAnnotation(a));
        }
        Action::DeleteAnnotation { annotation_id } => {
            let a = annotation(state, annotation_id)?;
            t.events.push(EventDraft {
                kind: EventType::AnnotationDeleted,
                session_id: a.session().to_owned(),
                payload: to_value(a)?,
            });
            t.changes.push(Change::DeleteAnnotation {
                id: annotation_id.clone(),
            });
        }
        Action::SetStatus {
            annotation_id,
            status,
            by,
        } => {
            let mut a = annotation(state, annotation_id)?.clone();
            set_status(&mut a, *status, *by, now)?;
            a.updated_at = Some(now);
            t.events.push(updated(&a)?);
            t.changes.push(Change::PutAnnotation(a));
        }
        Action::Reopen { annotation_id } => {
            let mut a = annotation(state, annotation_id)?.clone();
            if !a.status().is_terminal() {
                return Err(Error::Conflict {
                    message: format!(
                        "annotation {annotation_id} is {}; only resolved or dismissed annotations can be reopened",
                        a.status().as_str()
                    ),
                });
            }
            set_status(&mut a, Status::Pending, None, now)?;
            a.updated_at = Some(now);
            t.events.push(updated(&a)?);
            t.changes.push(Change::PutAnnotation(a));
        }
        Action::AddThreadMessage {
            annotation_id,
            message,
        } => {
            let mut a = annotation(state, annotation_id)?.clone();
            let thread = a.thread.get_or_insert_with(Vec::new);
            if thread.iter().any(|m| m.id == message.id) {
                return Err(Error::Conflict {
                    message: format!("thread message {} already exists", message.id),
                });
            }
            thread.push(message.clone());
            a.updated_at = Some(now);
            t.events.push(updated(&a)?);
            t.events.push(EventDraft {
                kind: EventType::ThreadMessage,
                session_id: a.session().to_owned(),
                payload: to_value(message)?,
            });
            t.changes.push(Change::PutAnnotation(a));
        }
        Action::EditThreadMessage {
            annotation_id,
            message_id,
            content,
        } => {
            let mut a = annotation(state, annotation_id)?.clone();
            let msg = a
                .thread
                .as_mut()
                .and_then(|th| th.iter_mut().find(|m| &m.id == message_id))
                .ok_or_else(|| Error::NotFound {
                    kind: "thread message",
                    id: message_id.clone(),
                })?;
            msg.content = content.clone();
            a.updated_at = Some(now);
            t.events.push(updated(&a)?);
            t.changes.push(Change::PutAnnotation(a));
        }
        Action::RemoveThreadMessage {
            annotation_id,
            message_id,
        } => {
            let mut a = annotation(state, annotation_id)?.clone();
            let th = a.thread.get_or_insert_with(Vec::new);
            let before = th.len();
            th.retain(|m| &m.id != message_id);
            if th.len() == before {
                return Err(Error::NotFound {
                    kind: "thread message",
                    id: message_id.clone(),
                });
            }
            a.updated_at = Some(now);
            t.events.push(updated(&a)?);
            t.changes.push(Change::PutAnnotation(a));
        }
        Action::RequestAction { session_id, output } => {
            if !state.sessions.contains_key(session_id) {
                return Err(session_not_found(session_id));
            }
            if output.is_empty() {
                return Err(Error::invalid_field("output", "output is required"));
            }
            let mut annotations: Vec<Annotation> = state
                .annotations
                .values()
                .filter(|a| a.session() == session_id)
                .cloned()
                .collect();
            annotations.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
            let req = ActionRequest {
                session_id: session_id.clone(),
                annotations,
                output: output.clone(),
                timestamp: now,
            };
            t.events.push(EventDraft {
                kind: EventType::ActionRequested,
                session_id: session_id.clone(),
                payload: to_value(&req)?,
            });
        }
        Action::Channel { session_id, action } => {
            if !state.sessions.contains_key(session_id) {
                return Err(session_not_found(session_id));
            }
            channel(state, session_id, action, now, &mut t)?;
        }
    }
    Ok(t)
}

/// The text of a channel entry (`"…"` or `{ "markdown": "…" }`) and whether it is markdown.
fn entry_text(text: &Value) -> Result<(String, bool)> {
    match text {
        Value::String(s) => Ok((s.clone(), false)),
        Value::Object(m) => match m.get("markdown") {
            Some(Value::String(s)) => Ok((s.clone(), true)),
            _ => Err(Error::invalid_field(
                "entry.text",
                "entry text must be a string or {\"markdown\": string}",
            )),
        },
        _ => Err(Error::invalid_field(
            "entry.text",
            "entry text must be a string or {\"markdown\": string}",
        )),
    }
}

fn entry_to_message(e: &ChannelEntry, timestamp: i64) -> Result<ThreadMessage> {
    let (content, markdown) = entry_text(&e.text)?;
    let role = match e
        .meta
        .as_ref()
        .and_then(|m| m.get("role"))
        .and_then(Value::as_str)
    {
        Some("agent") => Actor::Agent,
        _ => Actor::Human,
    };
    let mut extra = Map::new();
    if markdown {
        extra.insert("format".into(), Value::String("markdown".into()));
    }
    if let Some(m) = &e.meta {
        extra.insert("_meta".into(), m.clone());
    }
    Ok(ThreadMessage {
        id: e.id.clone(),
        role,
        content,
        timestamp,
        extra,
    })
}

/// The channel view of an annotation: its thread as entries.
pub fn to_channel(a: &Annotation) -> Option<ChannelAnnotation> {
    let src = a.source.as_ref()?;
    let entries = a
        .thread
        .iter()
        .flatten()
        .map(|m| ChannelEntry {
            id: m.id.clone(),
            text: if m.extra.get("format").and_then(Value::as_str) == Some("markdown") {
                serde_json::json!({ "markdown": m.content })
            } else {
                Value::String(m.content.clone())
            },
            meta: m.extra.get("_meta").cloned(),
        })
        .collect();
    Some(ChannelAnnotation {
        id: a.id.clone(),
        turn_id: src.turn_id.clone(),
        resource: src.resource.clone(),
        range: src.range.clone(),
        resolved: a.status().is_terminal(),
        entries,
        meta: a.extra.get("_meta").cloned(),
    })
}

fn first_comment(a: &mut Annotation) {
    a.comment = a
        .thread
        .as_ref()
        .and_then(|th| th.first())
        .map(|m| m.content.clone())
        .unwrap_or_default();
}

fn channel(
    state: &State,
    session_id: &str,
    action: &ChannelAction,
    now: i64,
    t: &mut Transition,
) -> Result<()> {
    // An annotation of another session is not part of this channel.
    let current = |id: &str| {
        state
            .annotations
            .get(id)
            .filter(|a| a.session() == session_id)
    };
    match action {
        ChannelAction::Set { annotation: ca } => {
            if ca.entries.is_empty() {
                return Err(Error::invalid_field(
                    "annotation.entries",
                    "an annotation must contain at least one entry",
                ));
            }
            if ca.id.is_empty() || ca.id.contains('/') {
                return Err(Error::invalid_field(
                    "annotation.id",
                    "id must be non-empty and contain no '/'",
                ));
            }
            if state.annotations.contains_key(&ca.id) && current(&ca.id).is_none() {
                return Err(Error::Conflict {
                    message: format!("annotation id {} belongs to another session", ca.id),
                });
            }
            let old = current(&ca.id);
            let thread = ca
                .entries
                .iter()
                .map(|e| {
                    let ts = old
                        .and_then(|o| o.thread.as_ref())
                        .and_then(|th| th.iter().find(|m| m.id == e.id))
                        .map(|m| m.timestamp)
                        .unwrap_or(now);
                    entry_to_message(e, ts)
                })
                .collect::<Result<Vec<_>>>()?;
            let mut a = Annotation {
                id: ca.id.clone(),
                session_id: Some(session_id.to_owned()),
                thread: Some(thread),
                source: Some(SourceAnchor {
                    resource: ca.resource.clone(),
                    range: ca.range.clone(),
                    turn_id: ca.turn_id.clone(),
                }),
                timestamp: Some(old.and_then(|o| o.timestamp.clone()).unwrap_or(now.into())),
                created_at: Some(old.and_then(|o| o.created_at).unwrap_or(now)),
                status: Some(Status::Pending),
                ..Annotation::default()
            };
            if let Some(m) = &ca.meta {
                a.extra.insert("_meta".into(), m.clone());
            }
            first_comment(&mut a);
            if ca.resolved {
                a.status = Some(Status::Resolved);
                a.resolved_at = old.and_then(|o| o.resolved_at).or(Some(now));
            }
            let kind = if old.is_some() {
                a.updated_at = Some(now);
                EventType::AnnotationUpdated
            } else {
                EventType::AnnotationCreated
            };
            t.events.push(EventDraft {
                kind,
                session_id: session_id.to_owned(),
                payload: to_value(&a)?,
            });
            t.changes.push(Change::PutAnnotation(a));
        }
        ChannelAction::Updated {
            annotation_id,
            turn_id,
            resource,
            range,
            resolved,
        } => {
            let Some(old) = current(annotation_id) else {
                return Ok(()); // no-op by the channel rules
            };
            let mut a = old.clone();
            if turn_id.is_some() || resource.is_some() || range.is_some() {
                let src = match a.source.take() {
                    Some(s) => s,
                    None => SourceAnchor {
                        resource: resource.clone().ok_or_else(|| {
                            Error::invalid_field(
                                "resource",
                                "resource is required to add a source anchor",
                            )
                        })?,
                        range: None,
                        turn_id: turn_id.clone().ok_or_else(|| {
                            Error::invalid_field(
                                "turnId",
                                "turnId is required to add a source anchor",
                            )
                        })?,
                    },
                };
                a.source = Some(SourceAnchor {
                    resource: resource.clone().unwrap_or(src.resource),
                    range: range.clone().or(src.range),
                    turn_id: turn_id.clone().unwrap_or(src.turn_id),
                });
            }
            match resolved {
                Some(true) if !a.status().is_terminal() => {
                    set_status(&mut a, Status::Resolved, None, now)?
                }
                Some(false) if a.status().is_terminal() => {
                    set_status(&mut a, Status::Pending, None, now)?
                }
                _ => {}
            }
            a.updated_at = Some(now);
            t.events.push(updated(&a)?);
            t.changes.push(Change::PutAnnotation(a));
        }
        ChannelAction::Removed { annotation_id } => {
            let Some(a) = current(annotation_id) else {
                return Ok(());
            };
            t.events.push(EventDraft {
                kind: EventType::AnnotationDeleted,
                session_id: session_id.to_owned(),
                payload: to_value(a)?,
            });
            t.changes.push(Change::DeleteAnnotation {
                id: annotation_id.clone(),
            });
        }
        ChannelAction::EntrySet {
            annotation_id,
            entry,
        } => {
            let Some(old) = current(annotation_id) else {
                return Ok(());
            };
            let mut a = old.clone();
            let th = a.thread.get_or_insert_with(Vec::new);
            let is_new;
            let msg;
            if let Some(m) = th.iter_mut().find(|m| m.id == entry.id) {
                let ts = m.timestamp;
                *m = entry_to_message(entry, ts)?;
                msg = m.clone();
                is_new = false;
            } else {
                msg = entry_to_message(entry, now)?;
                th.push(msg.clone());
                is_new = true;
            }
            first_comment(&mut a);
            a.updated_at = Some(now);
            t.events.push(updated(&a)?);
            if is_new {
                t.events.push(EventDraft {
                    kind: EventType::ThreadMessage,
                    session_id: session_id.to_owned(),
                    payload: to_value(&msg)?,
                });
            }
            t.changes.push(Change::PutAnnotation(a));
        }
        ChannelAction::EntryRemoved {
            annotation_id,
            entry_id,
        } => {
            let Some(old) = current(annotation_id) else {
                return Ok(());
            };
            let th = old.thread.as_deref().unwrap_or(&[]);
            if !th.iter().any(|m| &m.id == entry_id) {
                return Ok(());
            }
            if th.len() == 1 && old.source.is_some() {
                return Err(Error::Conflict {
                    message: "cannot remove the last entry; dispatch annotations/removed instead"
                        .into(),
                });
            }
            let mut a = old.clone();
            if let Some(th) = a.thread.as_mut() {
                th.retain(|m| &m.id != entry_id);
            }
            if a.source.is_some() {
                first_comment(&mut a);
            }
            a.updated_at = Some(now);
            t.events.push(updated(&a)?);
            t.changes.push(Change::PutAnnotation(a));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
