//! Unit tests of the reducer: every action and every invalid transition.

use super::*;
use serde_json::json;

const NOW: i64 = 1_760_000_000_000;

fn ctx() -> Ctx {
    Ctx { now_ms: NOW }
}

fn run(state: &State, action: Action) -> Result<(State, Vec<EventDraft>)> {
    reduce(state, &action, ctx())
}

fn kinds(events: &[EventDraft]) -> Vec<EventType> {
    events.iter().map(|e| e.kind).collect()
}

fn with_session() -> State {
    let (s, ev) = run(
        &State::default(),
        Action::CreateSession {
            session_id: "S".into(),
            url: "http://localhost:3000/p".into(),
            project_id: None,
            metadata: None,
        },
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::SessionCreated]);
    s
}

fn element(id: &str) -> Annotation {
    serde_json::from_value(json!({
        "id": id, "comment": "Button is cut off", "element": "button",
        "elementPath": "main > button.cta", "timestamp": 1, "x": 10, "y": 20,
        "status": "resolved", "sessionId": "other", "createdAt": 5, "_syncedTo": "x"
    }))
    .unwrap()
}

fn with_annotation() -> State {
    let (s, ev) = run(
        &with_session(),
        Action::CreateAnnotation {
            session_id: "S".into(),
            annotation: element("A"),
        },
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::AnnotationCreated]);
    s
}

fn status(s: &State, to: Status) -> Result<(State, Vec<EventDraft>)> {
    run(
        s,
        Action::SetStatus {
            annotation_id: "A".into(),
            status: to,
            by: Some(Actor::Agent),
        },
    )
}

fn at(s: &State, st: Status) -> State {
    let mut s = s.clone();
    if let Some(a) = s.annotations.get_mut("A") {
        a.status = Some(st);
    }
    s
}

#[test]
fn create_session_and_duplicate() {
    let s = with_session();
    let sess = &s.sessions["S"];
    assert_eq!(sess.status, SessionStatus::Active);
    assert!(sess.created_at.ends_with('Z'));
    let dup = run(
        &s,
        Action::CreateSession {
            session_id: "S".into(),
            url: "http://x".into(),
            project_id: None,
            metadata: None,
        },
    );
    assert!(matches!(dup, Err(Error::Conflict { .. })));
    let empty = run(
        &State::default(),
        Action::CreateSession {
            session_id: "T".into(),
            url: " ".into(),
            project_id: None,
            metadata: None,
        },
    );
    assert!(matches!(empty, Err(Error::InvalidInput { .. })));
}

#[test]
fn update_and_close_session() {
    let s = with_session();
    let (s2, ev) = run(
        &s,
        Action::UpdateSession {
            session_id: "S".into(),
            url: None,
            project_id: Some("p".into()),
            metadata: Some(json!({"k": 1})),
            status: Some(SessionStatus::Approved),
        },
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::SessionUpdated]);
    assert_eq!(s2.sessions["S"].project_id.as_deref(), Some("p"));
    assert_eq!(s2.sessions["S"].status, SessionStatus::Approved);
    let (s3, ev) = run(
        &s2,
        Action::CloseSession {
            session_id: "S".into(),
        },
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::SessionClosed]);
    assert_eq!(s3.sessions["S"].status, SessionStatus::Closed);
    // closing twice is a conflict, creating in a closed session too
    assert!(matches!(
        run(
            &s3,
            Action::CloseSession {
                session_id: "S".into()
            }
        ),
        Err(Error::Conflict { .. })
    ));
    assert!(matches!(
        run(
            &s3,
            Action::CreateAnnotation {
                session_id: "S".into(),
                annotation: element("B")
            }
        ),
        Err(Error::Conflict { .. })
    ));
    assert!(matches!(
        run(
            &s3,
            Action::CloseSession {
                session_id: "nope".into()
            }
        ),
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        run(
            &s3,
            Action::UpdateSession {
                session_id: "nope".into(),
                url: None,
                project_id: None,
                metadata: None,
                status: None
            }
        ),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn create_annotation_overwrites_server_fields_and_keeps_unknown() {
    let s = with_annotation();
    let a = &s.annotations["A"];
    assert_eq!(a.session_id.as_deref(), Some("S"));
    assert_eq!(a.status, Some(Status::Pending));
    assert_eq!(a.created_at, Some(NOW));
    assert_eq!(a.extra.get("_syncedTo"), Some(&json!("x")));
    // unknown session, duplicate id
    assert!(matches!(
        run(
            &s,
            Action::CreateAnnotation {
                session_id: "nope".into(),
                annotation: element("B")
            }
        ),
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        run(
            &s,
            Action::CreateAnnotation {
                session_id: "S".into(),
                annotation: element("A")
            }
        ),
        Err(Error::Conflict { .. })
    ));
}

#[test]
fn update_merges_shallowly_and_protects_server_fields() {
    let s = with_annotation();
    let patch = json!({"comment": "new", "id": "evil", "sessionId": "evil", "createdAt": 1,
        "element": "a", "intent": "fix", "custom": {"k": 1}, "severity": null});
    let (s2, ev) = run(
        &s,
        Action::UpdateAnnotation {
            annotation_id: "A".into(),
            patch: patch.as_object().unwrap().clone(),
        },
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::AnnotationUpdated]);
    let a = &s2.annotations["A"];
    assert_eq!(a.id, "A");
    assert_eq!(a.session_id.as_deref(), Some("S"));
    assert_eq!(a.created_at, Some(NOW));
    assert_eq!(a.comment, "new");
    assert_eq!(a.element.as_deref(), Some("a"));
    assert_eq!(a.extra.get("custom"), Some(&json!({"k": 1})));
    assert_eq!(a.updated_at, Some(NOW));
    assert_eq!(ev[0].payload["comment"], json!("new"));
    // invalid enum value
    let bad = run(
        &s,
        Action::UpdateAnnotation {
            annotation_id: "A".into(),
            patch: json!({"intent": "bogus"}).as_object().unwrap().clone(),
        },
    );
    assert!(matches!(bad, Err(Error::InvalidInput { .. })));
    let bad = run(
        &s,
        Action::UpdateAnnotation {
            annotation_id: "A".into(),
            patch: json!({"status": "done"}).as_object().unwrap().clone(),
        },
    );
    assert!(matches!(bad, Err(Error::InvalidInput { .. })));
    assert!(matches!(
        run(
            &s,
            Action::UpdateAnnotation {
                annotation_id: "Z".into(),
                patch: Map::new()
            }
        ),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn update_status_via_patch_sets_resolved_fields() {
    let s = with_annotation();
    let (s2, _) = run(
        &s,
        Action::UpdateAnnotation {
            annotation_id: "A".into(),
            patch: json!({"status": "resolved", "resolvedBy": "agent"})
                .as_object()
                .unwrap()
                .clone(),
        },
    )
    .unwrap();
    let a = &s2.annotations["A"];
    assert_eq!(a.status, Some(Status::Resolved));
    assert_eq!(a.resolved_by, Some(Actor::Agent));
    assert_eq!(a.resolved_at, Some(NOW));
    // resolved -> acknowledged via PATCH is a conflict
    let bad = run(
        &s2,
        Action::UpdateAnnotation {
            annotation_id: "A".into(),
            patch: json!({"status": "acknowledged"})
                .as_object()
                .unwrap()
                .clone(),
        },
    );
    assert!(matches!(bad, Err(Error::Conflict { .. })));
    // PATCH pending reopens and clears the resolution
    let (s3, _) = run(
        &s2,
        Action::UpdateAnnotation {
            annotation_id: "A".into(),
            patch: json!({"status": "pending"}).as_object().unwrap().clone(),
        },
    )
    .unwrap();
    assert_eq!(s3.annotations["A"].resolved_at, None);
    assert_eq!(s3.annotations["A"].resolved_by, None);
}

#[test]
fn delete_annotation() {
    let s = with_annotation();
    let (s2, ev) = run(
        &s,
        Action::DeleteAnnotation {
            annotation_id: "A".into(),
        },
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::AnnotationDeleted]);
    assert_eq!(ev[0].payload["id"], json!("A"));
    assert!(s2.annotations.is_empty());
    assert!(matches!(
        run(
            &s2,
            Action::DeleteAnnotation {
                annotation_id: "A".into()
            }
        ),
        Err(Error::NotFound { .. })
    ));
    // a thread message on a deleted annotation is NotFound
    assert!(matches!(
        run(
            &s2,
            Action::AddThreadMessage {
                annotation_id: "A".into(),
                message: msg("m1")
            }
        ),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn lifecycle_valid_transitions() {
    let s = with_annotation();
    let (s, ev) = status(&s, Status::Acknowledged).unwrap();
    assert_eq!(kinds(&ev), vec![EventType::AnnotationUpdated]);
    assert_eq!(s.annotations["A"].resolved_at, None);
    let (s, _) = status(&s, Status::Resolved).unwrap();
    let a = &s.annotations["A"];
    assert_eq!(
        (a.status, a.resolved_by, a.resolved_at),
        (Some(Status::Resolved), Some(Actor::Agent), Some(NOW))
    );
    // idempotent
    assert!(status(&s, Status::Resolved).is_ok());
    let (s, _) = run(
        &s,
        Action::Reopen {
            annotation_id: "A".into(),
        },
    )
    .unwrap();
    let a = &s.annotations["A"];
    assert_eq!(
        (a.status, a.resolved_by, a.resolved_at),
        (Some(Status::Pending), None, None)
    );
    let (s, _) = status(&s, Status::Dismissed).unwrap();
    assert_eq!(s.annotations["A"].status, Some(Status::Dismissed));
    let (s, _) = run(
        &s,
        Action::Reopen {
            annotation_id: "A".into(),
        },
    )
    .unwrap();
    assert_eq!(s.annotations["A"].status, Some(Status::Pending));
    // pending -> resolved directly (MCP resolve without acknowledge)
    assert!(status(&s, Status::Resolved).is_ok());
    // acknowledged -> dismissed
    assert!(status(&at(&s, Status::Acknowledged), Status::Dismissed).is_ok());
}

#[test]
fn lifecycle_invalid_transitions_are_conflicts() {
    let s = with_annotation();
    let cases = [
        (Status::Acknowledged, Status::Pending),
        (Status::Resolved, Status::Acknowledged),
        (Status::Resolved, Status::Dismissed),
        (Status::Dismissed, Status::Acknowledged),
        (Status::Dismissed, Status::Resolved),
    ];
    for (from, to) in cases {
        let st = at(&s, from);
        let r = status(&st, to);
        assert!(
            matches!(r, Err(Error::Conflict { .. })),
            "{from:?} -> {to:?} should be a conflict"
        );
        assert!(!transition_allowed(from, to));
    }
    for from in [Status::Pending, Status::Acknowledged] {
        assert!(matches!(
            run(
                &at(&s, from),
                Action::Reopen {
                    annotation_id: "A".into()
                }
            ),
            Err(Error::Conflict { .. })
        ));
    }
    assert!(matches!(
        run(
            &s,
            Action::Reopen {
                annotation_id: "Z".into()
            }
        ),
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        run(
            &s,
            Action::SetStatus {
                annotation_id: "Z".into(),
                status: Status::Resolved,
                by: None
            }
        ),
        Err(Error::NotFound { .. })
    ));
}

fn msg(id: &str) -> ThreadMessage {
    ThreadMessage {
        id: id.into(),
        role: Actor::Agent,
        content: "Should this be 24px or 16px?".into(),
        timestamp: NOW,
        extra: Map::new(),
    }
}

#[test]
fn thread_add_edit_remove() {
    let s = with_annotation();
    let (s, ev) = run(
        &s,
        Action::AddThreadMessage {
            annotation_id: "A".into(),
            message: msg("m1"),
        },
    )
    .unwrap();
    assert_eq!(
        kinds(&ev),
        vec![EventType::AnnotationUpdated, EventType::ThreadMessage]
    );
    assert_eq!(ev[1].payload["id"], json!("m1"));
    assert!(matches!(
        run(
            &s,
            Action::AddThreadMessage {
                annotation_id: "A".into(),
                message: msg("m1")
            }
        ),
        Err(Error::Conflict { .. })
    ));
    let (s, ev) = run(
        &s,
        Action::EditThreadMessage {
            annotation_id: "A".into(),
            message_id: "m1".into(),
            content: "24px".into(),
        },
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::AnnotationUpdated]);
    assert_eq!(
        s.annotations["A"].thread.as_ref().unwrap()[0].content,
        "24px"
    );
    assert!(matches!(
        run(
            &s,
            Action::EditThreadMessage {
                annotation_id: "A".into(),
                message_id: "zz".into(),
                content: "x".into()
            }
        ),
        Err(Error::NotFound { .. })
    ));
    let (s, _) = run(
        &s,
        Action::RemoveThreadMessage {
            annotation_id: "A".into(),
            message_id: "m1".into(),
        },
    )
    .unwrap();
    assert!(s.annotations["A"].thread.as_ref().unwrap().is_empty());
    assert!(matches!(
        run(
            &s,
            Action::RemoveThreadMessage {
                annotation_id: "A".into(),
                message_id: "m1".into()
            }
        ),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn request_action_lists_session_annotations_without_changes() {
    let s = with_annotation();
    let t = apply(
        &s,
        &Action::RequestAction {
            session_id: "S".into(),
            output: "fix them".into(),
        },
        ctx(),
    )
    .unwrap();
    assert!(t.changes.is_empty());
    assert_eq!(kinds(&t.events), vec![EventType::ActionRequested]);
    assert_eq!(t.events[0].payload["annotations"][0]["id"], json!("A"));
    assert_eq!(t.events[0].payload["output"], json!("fix them"));
    assert!(matches!(
        run(
            &s,
            Action::RequestAction {
                session_id: "Z".into(),
                output: "x".into()
            }
        ),
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        run(
            &s,
            Action::RequestAction {
                session_id: "S".into(),
                output: String::new()
            }
        ),
        Err(Error::InvalidInput { .. })
    ));
}

fn chan(s: &State, a: serde_json::Value) -> Result<(State, Vec<EventDraft>)> {
    let action: ChannelAction = serde_json::from_value(a).unwrap();
    run(
        s,
        Action::Channel {
            session_id: "S".into(),
            action,
        },
    )
}

fn channel_state() -> State {
    let (s, ev) = chan(
        &with_session(),
        json!({"type": "annotations/set", "annotation": {
            "id": "C", "turnId": "t1", "resource": "file:///src/Button.tsx",
            "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 10}},
            "resolved": false, "entries": [{"id": "e1", "text": "Padding too small"}],
            "_meta": {"k": 1}}}),
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::AnnotationCreated]);
    s
}

#[test]
fn channel_set_creates_and_replaces() {
    let s = channel_state();
    let a = &s.annotations["C"];
    assert_eq!(a.comment, "Padding too small");
    assert_eq!(a.source.as_ref().unwrap().turn_id, "t1");
    assert_eq!(a.extra.get("_meta"), Some(&json!({"k": 1})));
    let back = to_channel(a).unwrap();
    assert_eq!(back.entries[0].text, json!("Padding too small"));
    assert!(!back.resolved);
    let (s2, ev) = chan(
        &s,
        json!({"type": "annotations/set", "annotation": {
            "id": "C", "turnId": "t2", "resource": "file:///src/Other.tsx", "resolved": true,
            "entries": [{"id": "e9", "text": {"markdown": "**done**"}}]}}),
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::AnnotationUpdated]);
    let a = &s2.annotations["C"];
    assert_eq!(a.status, Some(Status::Resolved));
    assert_eq!(a.source.as_ref().unwrap().range, None);
    assert_eq!(
        to_channel(a).unwrap().entries[0].text,
        json!({"markdown": "**done**"})
    );
    // empty entries are invalid
    assert!(matches!(
        chan(
            &s,
            json!({"type": "annotations/set", "annotation": {"id": "D", "turnId": "t",
                "resource": "file:///x", "entries": []}})
        ),
        Err(Error::InvalidInput { .. })
    ));
    // unknown session
    let r = run(
        &s,
        Action::Channel {
            session_id: "nope".into(),
            action: ChannelAction::Removed {
                annotation_id: "C".into(),
            },
        },
    );
    assert!(matches!(r, Err(Error::NotFound { .. })));
}

#[test]
fn channel_updated_resolves_reanchors_and_noops() {
    let s = channel_state();
    let (s2, ev) = chan(
        &s,
        json!({"type": "annotations/updated", "annotationId": "C", "resolved": true, "turnId": "t5"}),
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::AnnotationUpdated]);
    let a = &s2.annotations["C"];
    assert_eq!(a.status, Some(Status::Resolved));
    let src = a.source.as_ref().unwrap();
    assert_eq!(src.turn_id, "t5");
    assert!(src.range.is_some(), "an omitted range is left unchanged");
    let (s3, _) = chan(
        &s2,
        json!({"type": "annotations/updated", "annotationId": "C", "resolved": false}),
    )
    .unwrap();
    assert_eq!(s3.annotations["C"].status, Some(Status::Pending));
    // unknown id: no-op, no events
    let (s4, ev) = chan(
        &s3,
        json!({"type": "annotations/updated", "annotationId": "nope", "resolved": true}),
    )
    .unwrap();
    assert!(ev.is_empty());
    assert_eq!(s4, s3);
}

#[test]
fn channel_entries_and_removal() {
    let s = channel_state();
    let (s, ev) = chan(
        &s,
        json!({"type": "annotations/entrySet", "annotationId": "C",
            "entry": {"id": "e2", "text": "On it", "_meta": {"role": "agent"}}}),
    )
    .unwrap();
    assert_eq!(
        kinds(&ev),
        vec![EventType::AnnotationUpdated, EventType::ThreadMessage]
    );
    assert_eq!(
        s.annotations["C"].thread.as_ref().unwrap()[1].role,
        Actor::Agent
    );
    // replace an entry: no thread.message
    let (s, ev) = chan(
        &s,
        json!({"type": "annotations/entrySet", "annotationId": "C",
            "entry": {"id": "e1", "text": "Padding still too small"}}),
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::AnnotationUpdated]);
    assert_eq!(s.annotations["C"].comment, "Padding still too small");
    // no-ops
    for a in [
        json!({"type": "annotations/entrySet", "annotationId": "nope", "entry": {"id": "x", "text": "y"}}),
        json!({"type": "annotations/entryRemoved", "annotationId": "nope", "entryId": "e1"}),
        json!({"type": "annotations/entryRemoved", "annotationId": "C", "entryId": "nope"}),
        json!({"type": "annotations/removed", "annotationId": "nope"}),
    ] {
        let (s2, ev) = chan(&s, a).unwrap();
        assert!(ev.is_empty());
        assert_eq!(s2, s);
    }
    let (s, ev) = chan(
        &s,
        json!({"type": "annotations/entryRemoved", "annotationId": "C", "entryId": "e1"}),
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::AnnotationUpdated]);
    assert_eq!(s.annotations["C"].comment, "On it");
    // removing the last entry is refused
    assert!(matches!(
        chan(
            &s,
            json!({"type": "annotations/entryRemoved", "annotationId": "C", "entryId": "e2"})
        ),
        Err(Error::Conflict { .. })
    ));
    let (s, ev) = chan(
        &s,
        json!({"type": "annotations/removed", "annotationId": "C"}),
    )
    .unwrap();
    assert_eq!(kinds(&ev), vec![EventType::AnnotationDeleted]);
    assert!(s.annotations.is_empty());
}

#[test]
fn channel_actions_do_not_touch_other_sessions() {
    let mut s = with_annotation();
    if let Some(a) = s.annotations.get_mut("A") {
        a.session_id = Some("other".into());
    }
    let (s2, ev) = chan(
        &s,
        json!({"type": "annotations/removed", "annotationId": "A"}),
    )
    .unwrap();
    assert!(ev.is_empty());
    assert_eq!(s2, s);
    assert!(matches!(
        chan(
            &s,
            json!({"type": "annotations/set", "annotation": {"id": "A", "turnId": "t",
                "resource": "file:///x", "entries": [{"id": "e", "text": "t"}]}})
        ),
        Err(Error::Conflict { .. })
    ));
}

#[test]
fn patch_status_reopen_requires_a_terminal_status() {
    let s = with_annotation();
    let reopen = || json!({"status": "reopen"}).as_object().unwrap().clone();
    let r = run(
        &s,
        Action::UpdateAnnotation {
            annotation_id: "A".into(),
            patch: reopen(),
        },
    );
    assert!(matches!(r, Err(Error::Conflict { .. })));
    let (s2, _) = run(
        &at(&s, Status::Dismissed),
        Action::UpdateAnnotation {
            annotation_id: "A".into(),
            patch: reopen(),
        },
    )
    .unwrap();
    assert_eq!(s2.annotations["A"].status, Some(Status::Pending));
}
