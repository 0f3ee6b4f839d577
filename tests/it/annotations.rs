//! Annotation store + Agentation HTTP/SSE API: every route and error path
//! (oneshot), SSE replay over real TCP, two writer processes on one file,
//! SIGKILL durability, and markdown goldens.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::Router;
use pinpoint::annotations::markdown::{self, Level};
use pinpoint::annotations::model::{Annotation, EventType, Session};
use pinpoint::annotations::store::Store;
use pinpoint::annotations::Action;
use pinpoint::http::annotations::router;
use pinpoint::http::security::{guard, SecurityConfig};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tower::ServiceExt;

struct Api {
    app: Router,
    store: Store,
    _dir: tempfile::TempDir,
}

fn api() -> Api {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("annotations.db")).unwrap();
    Api {
        app: router(store.clone()),
        store,
        _dir: dir,
    }
}

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    text: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }
    fn code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    }
}

impl Api {
    async fn raw(
        &self,
        method: Method,
        path: &str,
        body: Body,
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut b = Request::builder().method(method).uri(path);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        let res = self
            .app
            .clone()
            .oneshot(b.body(body).unwrap())
            .await
            .unwrap();
        let status = res.status();
        let headers = res.headers().clone();
        let bytes = axum::body::to_bytes(res.into_body(), 8 << 20)
            .await
            .unwrap();
        Answer {
            status,
            headers,
            text: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Answer {
        let body = body.map_or_else(Body::empty, |v| Body::from(v.to_string()));
        self.raw(method, path, body, &[("content-type", "application/json")])
            .await
    }
    async fn session(&self) -> String {
        let a = self
            .call(
                Method::POST,
                "/sessions",
                Some(json!({"url": "http://localhost:3000/pricing"})),
            )
            .await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
        a.json()["id"].as_str().unwrap().to_owned()
    }
    async fn annotation(&self, sid: &str, extra: Value) -> Value {
        let mut body = tb_annotation();
        if let (Some(o), Value::Object(e)) = (body.as_object_mut(), extra) {
            o.extend(e);
        }
        let a = self
            .call(
                Method::POST,
                &format!("/sessions/{sid}/annotations"),
                Some(body),
            )
            .await;
        assert_eq!(a.status, StatusCode::CREATED, "{}", a.text);
        a.json()
    }
    fn seq(&self) -> i64 {
        self.store.max_sequence_blocking().unwrap()
    }
}

/// What the toolbar sends (AGENTATION-HTTP §10), extras included.
fn tb_annotation() -> Value {
    json!({"id": "local-1", "x": 42.5, "y": 310, "comment": "Make this button bigger",
        "element": "button", "elementPath": "main > .hero > button.cta", "timestamp": 1760000000000u64,
        "boundingBox": {"x": 10, "y": 300, "width": 120, "height": 40},
        "url": "http://localhost:3000/pricing", "status": "pending", "sessionId": "bogus",
        "createdAt": "2020-01-01", "elementBoundingBoxes": [{"x": 1, "y": 2, "width": 3, "height": 4}],
        "reactComponents": "<App> <Hero> <Button>", "_syncedTo": "local", "drawingIndex": 2,
        "isFixed": false, "kind": "feedback"})
}

#[tokio::test]
async fn sessions_routes() {
    let api = api();
    let a = api
        .call(
            Method::POST,
            "/sessions",
            Some(json!({"url": "http://localhost:3000/p"})),
        )
        .await;
    assert_eq!(a.status, StatusCode::CREATED);
    assert_eq!(a.headers["content-type"], "application/json");
    let s = a.json();
    assert_eq!(s["status"], "active");
    assert_eq!(s["url"], "http://localhost:3000/p");
    assert!(s["createdAt"].as_str().unwrap().ends_with('Z'));
    assert!(s.get("projectId").is_none());
    let sid = s["id"].as_str().unwrap();
    assert!(!sid.contains('/'));

    let list = api.call(Method::GET, "/sessions", None).await;
    assert_eq!(list.status, StatusCode::OK);
    assert_eq!(list.json().as_array().unwrap().len(), 1);

    let one = api
        .call(Method::GET, &format!("/sessions/{sid}"), None)
        .await;
    assert_eq!(one.status, StatusCode::OK);
    assert_eq!(one.json()["annotations"], json!([]));

    let before = api.seq();
    for body in [json!({}), json!({"url": ""}), json!({"url": 5})] {
        let a = api.call(Method::POST, "/sessions", Some(body)).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST);
        assert_eq!(a.code(), "invalid_input");
        assert_eq!(a.json()["error"]["details"]["field"], "url");
    }
    let a = api
        .raw(Method::POST, "/sessions", Body::from("{nope"), &[])
        .await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    assert!(a.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Invalid JSON"));
    let a = api.call(Method::GET, "/sessions/nope", None).await;
    assert_eq!(
        (a.status, a.code().as_str()),
        (StatusCode::NOT_FOUND, "not_found")
    );
    assert_eq!(api.seq(), before, "failed calls leave the store untouched");

    // update + close
    let a = api
        .call(
            Method::PATCH,
            &format!("/sessions/{sid}"),
            Some(json!({"projectId": "shop"})),
        )
        .await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.json()["projectId"], "shop");
    let a = api
        .call(
            Method::PATCH,
            &format!("/sessions/{sid}"),
            Some(json!({"status": "gone"})),
        )
        .await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    let a = api
        .call(Method::POST, &format!("/sessions/{sid}/close"), None)
        .await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.json()["status"], "closed");
    let a = api
        .call(Method::POST, &format!("/sessions/{sid}/close"), None)
        .await;
    assert_eq!(
        (a.status, a.code().as_str()),
        (StatusCode::CONFLICT, "conflict")
    );
    let a = api
        .call(
            Method::POST,
            &format!("/sessions/{sid}/annotations"),
            Some(tb_annotation()),
        )
        .await;
    assert_eq!(
        a.status,
        StatusCode::CONFLICT,
        "no new notes in a closed session"
    );
    let kinds: Vec<EventType> = api
        .store
        .events_since_blocking(0, None)
        .unwrap()
        .iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            EventType::SessionCreated,
            EventType::SessionUpdated,
            EventType::SessionClosed
        ]
    );
}

#[tokio::test]
async fn create_annotation_echoes_everything_and_assigns_server_fields() {
    let api = api();
    let sid = api.session().await;
    let a = api.annotation(&sid, json!({})).await;
    assert_ne!(a["id"], "local-1");
    assert_eq!(a["sessionId"], sid);
    assert_eq!(a["status"], "pending");
    assert!(a["createdAt"].is_i64());
    for k in [
        "_syncedTo",
        "drawingIndex",
        "elementBoundingBoxes",
        "reactComponents",
        "isFixed",
        "kind",
        "boundingBox",
    ] {
        assert_eq!(a[k], tb_annotation()[k], "{k} echoed");
    }
    assert_eq!(a["x"], json!(42.5));
    assert_eq!(a["y"], json!(310));
    assert!(
        a.get("resolvedAt").is_none(),
        "absent fields are omitted, not null"
    );
    // GET returns the same stored object, and the session lists it
    let id = a["id"].as_str().unwrap();
    let got = api
        .call(Method::GET, &format!("/annotations/{id}"), None)
        .await;
    assert_eq!(got.json(), a);
    let s = api
        .call(Method::GET, &format!("/sessions/{sid}"), None)
        .await;
    assert_eq!(s.json()["annotations"][0], a);
    // the event carries id + sessionId + sequence >= 1
    let ev = api.store.events_since_blocking(1, None).unwrap();
    assert_eq!(ev[0].kind, EventType::AnnotationCreated);
    assert_eq!(ev[0].payload, a);
    assert!(ev[0].sequence >= 1);
    // comment "" is accepted; missing timestamp gets one
    let mut body = tb_annotation();
    body["comment"] = json!("");
    body.as_object_mut().unwrap().remove("timestamp");
    let r = api
        .call(
            Method::POST,
            &format!("/sessions/{sid}/annotations"),
            Some(body),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert!(r.json()["timestamp"].is_i64());
}

#[tokio::test]
async fn create_annotation_errors_leave_the_store_untouched() {
    let api = api();
    let sid = api.session().await;
    let path = format!("/sessions/{sid}/annotations");
    let before = api.seq();
    let cases: Vec<(Value, &[&str])> = vec![
        (json!({"x": "left"}), &["/x"]),
        (json!({"intent": "bogus"}), &["/intent"]),
        (json!({"severity": 3}), &["/severity"]),
        (
            json!({"boundingBox": {"x": 1}}),
            &[
                "/boundingBox/height",
                "/boundingBox/width",
                "/boundingBox/y",
            ],
        ),
        (json!({"comment": null}), &["/comment"]),
        (json!({"element": ""}), &["/element"]),
        (json!({"elementPath": ""}), &["/elementPath"]),
    ];
    for (patch, paths) in cases {
        let mut body = tb_annotation();
        for (k, v) in patch.as_object().unwrap() {
            body[k] = v.clone();
        }
        let a = api.call(Method::POST, &path, Some(body)).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{patch}: {}", a.text);
        assert_eq!(a.code(), "validation_failed");
        let got: Vec<String> = a.json()["error"]["details"]["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["path"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(got, paths.to_vec(), "{patch}");
    }
    let mut body = tb_annotation();
    body.as_object_mut().unwrap().remove("element");
    let a = api.call(Method::POST, &path, Some(body)).await;
    assert_eq!(
        a.json()["error"]["details"]["errors"][0]["path"],
        "/element"
    );
    // invalid JSON, non-object, oversize, unknown session
    let a = api
        .raw(Method::POST, &path, Body::from("{\"x\":"), &[])
        .await;
    assert_eq!(
        (a.status, a.code().as_str()),
        (StatusCode::BAD_REQUEST, "invalid_input")
    );
    let a = api.call(Method::POST, &path, Some(json!([1, 2]))).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    let mut big = tb_annotation();
    big["comment"] = json!("x".repeat(1_100_000));
    let a = api.call(Method::POST, &path, Some(big.clone())).await;
    assert_eq!(
        (a.status, a.code().as_str()),
        (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large")
    );
    // also without a Content-Length (streamed body)
    let stream = futures::stream::iter(vec![Ok::<_, std::io::Error>(big.to_string().into_bytes())]);
    let a = api
        .raw(Method::POST, &path, Body::from_stream(stream), &[])
        .await;
    assert_eq!(a.status, StatusCode::PAYLOAD_TOO_LARGE);
    let a = api
        .call(
            Method::POST,
            "/sessions/nope/annotations",
            Some(tb_annotation()),
        )
        .await;
    assert_eq!(a.status, StatusCode::NOT_FOUND);
    assert_eq!(api.seq(), before);
    assert_eq!(api.store.count_annotations_blocking().unwrap(), 0);
}

#[tokio::test]
async fn patch_lifecycle_thread_delete() {
    let api = api();
    let sid = api.session().await;
    let a = api.annotation(&sid, json!({})).await;
    let id = a["id"].as_str().unwrap().to_owned();
    let p = format!("/annotations/{id}");

    // TB edit + layout-sync style whole-object PATCH (id/sessionId/createdAt ignored)
    let r = api
        .call(
            Method::PATCH,
            &p,
            Some(json!({"comment": "Bigger please", "id": "local-9",
            "sessionId": "x", "createdAt": 1, "severity": "important", "custom": true})),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    let v = r.json();
    assert_eq!(
        (v["id"].as_str(), v["comment"].as_str()),
        (Some(id.as_str()), Some("Bigger please"))
    );
    assert_eq!(v["sessionId"], sid);
    assert_eq!(v["createdAt"], a["createdAt"]);
    assert_eq!(v["custom"], true);
    assert!(v["updatedAt"].is_i64());
    // {} still answers a JSON body
    let r = api.call(Method::PATCH, &p, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["id"], id);

    // MCP: acknowledge, reply, resolve
    let r = api
        .call(Method::PATCH, &p, Some(json!({"status": "acknowledged"})))
        .await;
    assert_eq!(r.json()["status"], "acknowledged");
    let r = api
        .call(
            Method::POST,
            &format!("{p}/thread"),
            Some(json!({"role": "agent", "content": "On it"})),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let v = r.json();
    assert_eq!(v["id"], id, "the whole annotation, not the message");
    assert_eq!(v["thread"][0]["content"], "On it");
    let mid = v["thread"][0]["id"].as_str().unwrap().to_owned();
    let r = api
        .call(
            Method::PATCH,
            &p,
            Some(json!({"status": "resolved", "resolvedBy": "agent"})),
        )
        .await;
    let v = r.json();
    assert_eq!(
        (v["status"].as_str(), v["resolvedBy"].as_str()),
        (Some("resolved"), Some("agent"))
    );
    assert!(v["resolvedAt"].is_i64());

    let before = api.seq();
    // errors: bad enum, invalid transition, bad JSON, unknown id, bad thread bodies
    let r = api
        .call(Method::PATCH, &p, Some(json!({"status": "done"})))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.json()["error"]["details"]["errors"][0]["path"], "/status");
    let r = api
        .call(Method::PATCH, &p, Some(json!({"intent": "maybe"})))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = api
        .call(Method::PATCH, &p, Some(json!({"status": "acknowledged"})))
        .await;
    assert_eq!(
        (r.status, r.code().as_str()),
        (StatusCode::CONFLICT, "conflict")
    );
    let r = api.raw(Method::PATCH, &p, Body::from("nope"), &[]).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = api
        .call(
            Method::PATCH,
            "/annotations/nope",
            Some(json!({"comment": "x"})),
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    for body in [
        json!({"role": "agent"}),
        json!({"role": "agent", "content": ""}),
        json!({"content": "x"}),
        json!({"role": "robot", "content": "x"}),
    ] {
        let r = api
            .call(Method::POST, &format!("{p}/thread"), Some(body.clone()))
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}");
    }
    let r = api
        .call(Method::POST, &format!("{p}/reopen-nope"), None)
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    // no 405 anywhere: a known path with another method is a 404 JSON answer
    let r = api.call(Method::PUT, &p, Some(json!({}))).await;
    assert_eq!(
        (r.status, r.code().as_str()),
        (StatusCode::NOT_FOUND, "not_found")
    );
    assert_eq!(api.seq(), before);

    // reopen (PATCH status reopen and POST /reopen)
    let r = api
        .call(Method::PATCH, &p, Some(json!({"status": "reopen"})))
        .await;
    assert_eq!(r.status, StatusCode::OK);
    let v = r.json();
    assert_eq!(v["status"], "pending");
    assert!(v.get("resolvedAt").is_none() && v.get("resolvedBy").is_none());
    let r = api.call(Method::POST, &format!("{p}/reopen"), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "pending cannot be reopened");
    api.call(
        Method::PATCH,
        &p,
        Some(json!({"status": "dismissed", "resolvedBy": "human"})),
    )
    .await;
    let r = api.call(Method::POST, &format!("{p}/reopen"), None).await;
    assert_eq!(r.json()["status"], "pending");

    // thread edit / remove
    let r = api
        .call(
            Method::PATCH,
            &format!("{p}/thread/{mid}"),
            Some(json!({"content": "On it now"})),
        )
        .await;
    assert_eq!(r.json()["thread"][0]["content"], "On it now");
    let r = api
        .call(
            Method::PATCH,
            &format!("{p}/thread/nope"),
            Some(json!({"content": "x"})),
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = api
        .call(Method::DELETE, &format!("{p}/thread/{mid}"), None)
        .await;
    assert_eq!(r.json()["thread"], json!([]));

    // delete, then everything on it is 404 and changes nothing
    let r = api.call(Method::DELETE, &p, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json(), json!({"deleted": true, "annotationId": id}));
    let before = api.seq();
    let r = api
        .call(
            Method::POST,
            &format!("{p}/thread"),
            Some(json!({"role": "human", "content": "hello?"})),
        )
        .await;
    assert_eq!(
        (r.status, r.code().as_str()),
        (StatusCode::NOT_FOUND, "not_found")
    );
    for (m, path) in [
        (Method::DELETE, p.clone()),
        (Method::GET, p.clone()),
        (Method::PATCH, p.clone()),
    ] {
        let r = api.call(m, &path, Some(json!({}))).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND);
    }
    assert_eq!(api.seq(), before);

    // event order of the happy path (SQLite order for threads)
    let kinds: Vec<&str> = api
        .store
        .events_since_blocking(0, Some(&sid))
        .unwrap()
        .iter()
        .map(|e| e.kind.as_str())
        .collect();
    assert_eq!(
        kinds[..7],
        [
            "session.created",
            "annotation.created",
            "annotation.updated",
            "annotation.updated",
            "annotation.updated",
            "annotation.updated",
            "thread.message"
        ]
    );
    assert_eq!(kinds.last(), Some(&"annotation.deleted"));
}

#[tokio::test]
async fn pending_filters_status_action_export_channel() {
    let api = api();
    let s1 = api.session().await;
    let s2 = api.session().await;
    let a1 = api
        .annotation(
            &s1,
            json!({"timestamp": 30, "severity": "blocking", "intent": "fix"}),
        )
        .await;
    let a2 = api
        .annotation(&s1, json!({"timestamp": 10, "severity": "suggestion"}))
        .await;
    let a3 = api
        .annotation(
            &s2,
            json!({"timestamp": 20, "url": "http://localhost:4000/x"}),
        )
        .await;
    api.call(
        Method::PATCH,
        &format!("/annotations/{}", a1["id"].as_str().unwrap()),
        Some(json!({"status": "acknowledged"})),
    )
    .await;

    let r = api.call(Method::GET, "/pending", None).await;
    let v = r.json();
    assert_eq!(v["count"], 2);
    let ids: Vec<&Value> = v["annotations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["id"])
        .collect();
    assert_eq!(ids, [&a2["id"], &a3["id"]], "ordered by timestamp");
    let r = api
        .call(Method::GET, &format!("/sessions/{s1}/pending"), None)
        .await;
    assert_eq!(r.json()["count"], 1);
    assert_eq!(r.json()["annotations"][0]["sessionId"], s1);
    let r = api.call(Method::GET, "/sessions/nope/pending", None).await;
    assert_eq!(
        (r.status, r.json()),
        (StatusCode::OK, json!({"count": 0, "annotations": []}))
    );

    // Pinpoint list filters
    let count = |q: &'static str| {
        let api = &api;
        async move {
            let r = api.call(Method::GET, q, None).await;
            assert_eq!(r.status, StatusCode::OK, "{q}: {}", r.text);
            r.json().as_array().unwrap().len()
        }
    };
    assert_eq!(count("/annotations").await, 3);
    assert_eq!(count("/annotations?status=pending").await, 2);
    assert_eq!(
        count("/annotations?status=acknowledged&severity=blocking").await,
        1
    );
    assert_eq!(count("/annotations?intent=fix").await, 1);
    assert_eq!(
        count("/annotations?url=http%3A%2F%2Flocalhost%3A4000%2Fx").await,
        1
    );
    let r = api
        .call(Method::GET, &format!("/annotations?sessionId={s2}"), None)
        .await;
    assert_eq!(r.json()[0]["id"], a3["id"]);
    let r = api
        .call(Method::GET, "/annotations?status=open", None)
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.json()["error"]["details"]["field"], "status");

    // status
    let r = api.call(Method::GET, "/status", None).await;
    assert_eq!(
        r.json(),
        json!({"mode": "local", "webhooksConfigured": false, "webhookCount": 0, "activeListeners": 0, "agentListeners": 0})
    );

    // action: session checked first, then output
    let before = api.seq();
    let r = api
        .call(Method::POST, "/sessions/nope/action", Some(json!({})))
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let r = api
        .call(
            Method::POST,
            &format!("/sessions/{s1}/action"),
            Some(json!({})),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(api.seq(), before);
    let r = api
        .call(
            Method::POST,
            &format!("/sessions/{s1}/action"),
            Some(json!({"output": "fix it"})),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(
        r.json(),
        json!({"success": true, "annotationCount": 2, "delivered": {"sseListeners": 0, "webhooks": 0, "total": 0}})
    );

    // export
    for level in ["compact", "standard", "detailed", "forensic"] {
        let r = api
            .call(
                Method::GET,
                &format!("/sessions/{s1}/export?level={level}"),
                None,
            )
            .await;
        assert_eq!(r.status, StatusCode::OK);
        assert_eq!(r.headers["content-type"], "text/markdown; charset=utf-8");
        assert!(r
            .text
            .starts_with("# Feedback: http://localhost:3000/pricing"));
        assert!(r.text.contains("Make this button bigger"));
    }
    let r = api
        .call(
            Method::GET,
            &format!("/sessions/{s1}/export?level=loud"),
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = api.call(Method::GET, "/sessions/nope/export", None).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);

    // channel actions
    let ch = format!("/sessions/{s2}/channel");
    let set = json!({"type": "annotations/set", "annotation": {"id": "c1", "turnId": "t1",
        "resource": "file:///repo/src/Hero.tsx", "resolved": false,
        "entries": [{"id": "e1", "text": "Use the token"}]}});
    let r = api.call(Method::POST, &ch, Some(set)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text);
    assert_eq!(r.json()["applied"], true);
    assert_eq!(
        r.json()["annotation"]["entries"][0]["text"],
        "Use the token"
    );
    let r = api
        .call(
            Method::POST,
            &ch,
            Some(json!({"type": "annotations/updated", "annotationId": "zz", "resolved": true})),
        )
        .await;
    assert_eq!(
        (r.status, r.json()["applied"].clone()),
        (StatusCode::OK, json!(false))
    );
    let r = api
        .call(
            Method::POST,
            &ch,
            Some(json!({"type": "annotations/updated", "annotationId": "c1", "resolved": true})),
        )
        .await;
    assert_eq!(r.json()["annotation"]["resolved"], true);
    let r = api.call(Method::GET, &ch, None).await;
    assert_eq!(r.json()["annotations"].as_array().unwrap().len(), 1);
    let before = api.seq();
    for bad in [
        json!({"type": "annotations/explode"}),
        json!({"type": "annotations/set", "annotation": {"id": "c2", "turnId": "t", "resource": "file:///x", "entries": []}}),
    ] {
        let r = api.call(Method::POST, &ch, Some(bad)).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST);
    }
    let r = api
        .call(
            Method::POST,
            &ch,
            Some(
                json!({"type": "annotations/entryRemoved", "annotationId": "c1", "entryId": "e1"}),
            ),
        )
        .await;
    assert_eq!(
        r.status,
        StatusCode::CONFLICT,
        "the last entry cannot be removed"
    );
    let r = api
        .call(
            Method::POST,
            "/sessions/nope/channel",
            Some(json!({"type": "annotations/removed", "annotationId": "c1"})),
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(api.seq(), before);
    // SSE on an unknown session: 404 JSON, not a stream
    let r = api.call(Method::GET, "/sessions/nope/events", None).await;
    assert_eq!(
        (r.status, r.code().as_str()),
        (StatusCode::NOT_FOUND, "not_found")
    );
}

// ------------------------------------------------------------------ SSE

struct Frame {
    event: Option<String>,
    id: Option<String>,
    data: Option<Value>,
    comment: Option<String>,
}

struct Sse {
    stream: TcpStream,
    buf: Vec<u8>,
    headers: String,
}

impl Sse {
    async fn connect(addr: std::net::SocketAddr, path: &str, extra: &[(&str, &str)]) -> Sse {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        // HTTP/1.0: the body is close-delimited, no chunked framing to undo.
        let mut req =
            format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n");
        for (k, v) in extra {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        stream.write_all(req.as_bytes()).await.unwrap();
        let mut sse = Sse {
            stream,
            buf: Vec::new(),
            headers: String::new(),
        };
        loop {
            if let Some(end) = find(&sse.buf, b"\r\n\r\n") {
                sse.headers = String::from_utf8_lossy(&sse.buf[..end]).into_owned();
                sse.buf.drain(..end + 4);
                break;
            }
            sse.fill().await;
        }
        sse
    }
    async fn fill(&mut self) {
        let mut chunk = [0u8; 8192];
        let n = tokio::time::timeout(Duration::from_secs(10), self.stream.read(&mut chunk))
            .await
            .expect("SSE read timed out")
            .unwrap();
        assert!(n > 0, "the server closed the stream");
        self.buf.extend_from_slice(&chunk[..n]);
    }
    async fn frame(&mut self) -> Frame {
        loop {
            if let Some(end) = find(&self.buf, b"\n\n") {
                let raw = String::from_utf8_lossy(&self.buf[..end]).into_owned();
                self.buf.drain(..end + 2);
                let mut f = Frame {
                    event: None,
                    id: None,
                    data: None,
                    comment: None,
                };
                let mut data_lines = 0;
                for line in raw.lines() {
                    if let Some(c) = line.strip_prefix(": ") {
                        f.comment = Some(c.to_owned());
                    } else if let Some(v) = line.strip_prefix("event: ") {
                        f.event = Some(v.to_owned());
                    } else if let Some(v) = line.strip_prefix("id: ") {
                        f.id = Some(v.to_owned());
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        data_lines += 1;
                        f.data = Some(
                            serde_json::from_str(v).expect("data: is one complete JSON value"),
                        );
                    }
                }
                assert!(data_lines <= 1, "one data line per frame");
                return f;
            }
            self.fill().await;
        }
    }
    /// Next event frame (skips comments), as (id, type, data).
    async fn event(&mut self) -> (i64, String, Value) {
        loop {
            let f = self.frame().await;
            if f.comment.is_some() {
                continue;
            }
            let data = f.data.unwrap();
            let id: i64 = f.id.unwrap().parse().unwrap();
            let ev = f.event.unwrap();
            assert_eq!(data["type"], ev, "event: line and JSON type agree");
            assert_eq!(data["sequence"], id);
            return (id, ev, data);
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

async fn serve(store: Store) -> std::net::SocketAddr {
    let cfg = SecurityConfig {
        allowed_origins: vec![],
        token: None,
        bound_host: "127.0.0.1".into(),
    };
    let app = router(store).layer(axum::middleware::from_fn_with_state(Arc::new(cfg), guard));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    addr
}

fn create(store: &Store, sid: &str, comment: &str) -> i64 {
    let a: Annotation = serde_json::from_value(json!({"id": pinpoint::annotations::model::new_id(),
        "comment": comment, "element": "div", "elementPath": "body > div", "timestamp": 1, "x": 1, "y": 1}))
    .unwrap();
    store
        .dispatch_blocking(&Action::CreateAnnotation {
            session_id: sid.into(),
            annotation: a,
        })
        .unwrap()
        .events[0]
        .sequence
}

fn new_session(store: &Store, sid: &str, url: &str) {
    store
        .dispatch_blocking(&Action::CreateSession {
            session_id: sid.into(),
            url: url.into(),
            project_id: None,
            metadata: None,
        })
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sse_reconnect_with_last_event_id_gets_every_missed_event_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("a.db")).unwrap();
    new_session(&store, "S", "http://localhost:3000/a");
    new_session(&store, "T", "http://localhost:3000/b");
    let addr = serve(store.clone()).await;

    let mut sse = Sse::connect(
        addr,
        "/sessions/S/events",
        &[("Origin", "http://localhost:3000")],
    )
    .await;
    assert!(sse.headers.contains("200"));
    assert!(sse
        .headers
        .to_ascii_lowercase()
        .contains("content-type: text/event-stream"));
    assert!(sse
        .headers
        .to_ascii_lowercase()
        .contains("access-control-allow-origin: http://localhost:3000"));
    let first = sse.frame().await;
    assert_eq!(first.comment.as_deref(), Some("connected"));
    let mut got = Vec::new();
    for i in 0..3 {
        create(&store, "S", &format!("live {i}"));
    }
    for _ in 0..3 {
        let (id, ev, data) = sse.event().await;
        assert_eq!(ev, "annotation.created");
        assert_eq!(data["sessionId"], "S");
        assert_eq!(data["payload"]["sessionId"], "S");
        got.push(id);
    }
    let last = *got.last().unwrap();
    drop(sse); // disconnect

    // missed while away: S events, plus T events that must not show up on S's stream
    let mut missed = Vec::new();
    for i in 0..5 {
        missed.push(create(&store, "S", &format!("missed {i}")));
        create(&store, "T", "other session");
    }
    let c = store
        .dispatch_blocking(&Action::SetStatus {
            annotation_id: store.pending_blocking(Some("S")).unwrap()[0].id.clone(),
            status: pinpoint::annotations::Status::Resolved,
            by: None,
        })
        .unwrap();
    missed.push(c.events[0].sequence);

    let mut sse = Sse::connect(
        addr,
        "/sessions/S/events",
        &[("Last-Event-ID", &last.to_string())],
    )
    .await;
    assert_eq!(sse.frame().await.comment.as_deref(), Some("connected"));
    // a live event right after reconnecting
    let live = create(&store, "S", "after reconnect");
    let mut replayed = Vec::new();
    loop {
        let (id, _, data) = sse.event().await;
        assert_eq!(data["sessionId"], "S");
        replayed.push(id);
        if id == live {
            break;
        }
    }
    let mut expected = missed.clone();
    expected.push(live);
    assert_eq!(
        replayed, expected,
        "every missed event exactly once, in order, then live"
    );

    // global stream: replay from Last-Event-ID too, and ?agent=true bootstrap
    let mut g = Sse::connect(addr, "/events?agent=true&domain=localhost:3000", &[]).await;
    assert_eq!(
        g.frame().await.comment.as_deref(),
        Some("connected to domain localhost:3000")
    );
    let pending = store.pending_blocking(None).unwrap().len();
    for _ in 0..pending {
        let f = g.frame().await;
        assert_eq!(f.event.as_deref(), Some("annotation.created"));
        assert_eq!(f.id.as_deref(), Some("0"));
        assert_eq!(f.data.unwrap()["sequence"], 0);
    }
    let done = g.frame().await;
    assert_eq!(done.event.as_deref(), Some("sync.complete"));
    assert!(done.id.is_none());
    let d = done.data.unwrap();
    assert_eq!(
        (d["domain"].as_str(), d["count"].as_u64()),
        (Some("localhost:3000"), Some(pending as u64))
    );
    assert!(d.get("type").is_none());
    let seq = create(&store, "T", "live on global");
    let (id, _, data) = g.event().await;
    assert_eq!((id, data["sessionId"].as_str()), (seq, Some("T")));

    // a Last-Event-ID from the future (another store) does not hide live events
    let mut fut = Sse::connect(addr, "/sessions/T/events", &[("Last-Event-ID", "999999")]).await;
    assert_eq!(fut.frame().await.comment.as_deref(), Some("connected"));
    let s2 = create(&store, "T", "after a future id");
    assert_eq!(fut.event().await.0, s2);
    let seq = s2;

    let mut g2 = Sse::connect(
        addr,
        "/events",
        &[("Last-Event-ID", &(seq - 3).to_string())],
    )
    .await;
    assert_eq!(g2.frame().await.comment.as_deref(), Some("connected"));
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(g2.event().await.0);
    }
    assert_eq!(ids, [seq - 2, seq - 1, seq]);
    // another domain sees nothing of localhost:3000
    let mut g3 = Sse::connect(addr, "/events?domain=example.com", &[]).await;
    assert_eq!(
        g3.frame().await.comment.as_deref(),
        Some("connected to domain example.com")
    );
    create(&store, "S", "not for example.com");
    let r = tokio::time::timeout(Duration::from_millis(400), g3.event()).await;
    assert!(r.is_err(), "no event for another domain");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sse_over_http11_keeps_streaming() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("h11.db")).unwrap();
    new_session(&store, "S", "http://localhost:3000/a");
    let addr = serve(store.clone()).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /sessions/S/events?agent=true HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
        .await
        .unwrap();
    let mut seen = String::new();
    let mut created = false;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !seen.contains("event: annotation.created\nid: ") {
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout_at(deadline, stream.read(&mut chunk))
            .await
            .expect("SSE over HTTP/1.1 delivered the event")
            .unwrap();
        assert!(n > 0, "stream closed");
        seen.push_str(&String::from_utf8_lossy(&chunk[..n]));
        if !created && seen.contains(": connected") {
            create(&store, "S", "over http/1.1");
            created = true;
        }
    }
    assert!(seen.starts_with("HTTP/1.1 200"));
    assert!(seen
        .to_ascii_lowercase()
        .contains("cache-control: no-cache"));
    // the agent listener is counted by /status while the stream is open
    let mut status = TcpStream::connect(addr).await.unwrap();
    status
        .write_all(b"GET /status HTTP/1.0\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    status.read_to_string(&mut answer).await.unwrap();
    let body = answer.split("\r\n\r\n").nth(1).unwrap();
    let v: Value = serde_json::from_str(body).unwrap();
    assert_eq!(
        (v["activeListeners"].as_u64(), v["agentListeners"].as_u64()),
        (Some(1), Some(1))
    );
}

// ------------------------------------------------------- multi-process

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_pinpoint")
}

fn write_many(db: &Path, count: u64, session: &str) -> std::process::Child {
    Command::new(bin())
        .args(["annotations", "write-many", "--store"])
        .arg(db)
        .args(["--count", &count.to_string(), "--session", session])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn seqs(out: &[u8]) -> Vec<i64> {
    String::from_utf8_lossy(out)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_write_one_file_gap_free_and_subscribers_see_them() {
    let dir = tempfile::tempdir().unwrap();
    let db: PathBuf = dir.path().join("shared.db");
    let store = Store::open(&db).unwrap();
    let mut rx = store.subscribe();
    let p1 = write_many(&db, 1000, "S");
    let p2 = write_many(&db, 1000, "S");
    let (o1, o2) = tokio::task::spawn_blocking(move || {
        (
            p1.wait_with_output().unwrap(),
            p2.wait_with_output().unwrap(),
        )
    })
    .await
    .unwrap();
    assert!(
        o1.status.success(),
        "{}",
        String::from_utf8_lossy(&o1.stderr)
    );
    assert!(
        o2.status.success(),
        "{}",
        String::from_utf8_lossy(&o2.stderr)
    );
    let mut all = seqs(&o1.stdout);
    all.extend(seqs(&o2.stdout));
    assert_eq!(all.len(), 2000);
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 2000, "sequences are unique");
    assert_eq!(store.count_annotations_blocking().unwrap(), 2000);
    let log: Vec<i64> = store
        .events_since_blocking(0, None)
        .unwrap()
        .iter()
        .map(|e| e.sequence)
        .collect();
    assert_eq!(
        log,
        (1..=2001).collect::<Vec<_>>(),
        "gap-free log: 1 session + 2000 annotations"
    );
    assert!(log.iter().filter(|s| !all.contains(s)).count() == 1);
    // the subscriber in this process saw every event of the other processes, once, in order
    let mut seen = Vec::new();
    while seen.len() < 2001 {
        let e = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("subscriber saw every event")
            .unwrap();
        seen.push(e.sequence);
    }
    assert_eq!(seen, log);
    assert_eq!(store.integrity_check_blocking().unwrap(), "ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_mid_stream_keeps_every_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("kill.db");
    let mut child = write_many(&db, 1_000_000, "K");
    let stdout = child.stdout.take().unwrap();
    let acknowledged = tokio::task::spawn_blocking(move || {
        let mut reader = BufReader::new(stdout);
        let mut acked = Vec::new();
        let mut line = String::new();
        while acked.len() < 300 {
            line.clear();
            if reader.read_line(&mut line).unwrap() == 0 {
                break;
            }
            acked.push(line.trim().parse::<i64>().unwrap());
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // whatever was printed before the kill is acknowledged too
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if let Ok(s) = line.trim().parse::<i64>() {
                        acked.push(s);
                    }
                }
            }
        }
        acked
    })
    .await
    .unwrap();
    assert!(acknowledged.len() >= 300);
    let store = Store::open(&db).unwrap();
    assert_eq!(store.integrity_check_blocking().unwrap(), "ok");
    let log: std::collections::HashSet<i64> = store
        .events_since_blocking(0, None)
        .unwrap()
        .iter()
        .map(|e| e.sequence)
        .collect();
    for s in &acknowledged {
        assert!(
            log.contains(s),
            "acknowledged sequence {s} survived SIGKILL"
        );
    }
    // state and log agree: one row per annotation.created
    let created = store
        .events_since_blocking(0, None)
        .unwrap()
        .iter()
        .filter(|e| e.kind == EventType::AnnotationCreated)
        .count() as i64;
    assert_eq!(store.count_annotations_blocking().unwrap(), created);
    let max = store.max_sequence_blocking().unwrap();
    assert_eq!(log.len() as i64, max, "gap-free after the crash");
}

// ------------------------------------------------------ markdown goldens

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/annotations")
}

#[test]
fn markdown_export_goldens() {
    let raw = std::fs::read_to_string(fixtures().join("session.json")).unwrap();
    let v: Value = serde_json::from_str(&raw).unwrap();
    let session: Session = serde_json::from_value(v["session"].clone()).unwrap();
    let annotations: Vec<Annotation> = serde_json::from_value(v["annotations"].clone()).unwrap();
    let regen = std::env::var("PINPOINT_REGEN_GOLDEN").is_ok_and(|v| v == "1");
    for level in Level::ALL {
        let got = markdown::export(&session, &annotations, level);
        let path = fixtures().join(format!("{}.md", level.as_str()));
        if regen {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("missing {path:?}; run with PINPOINT_REGEN_GOLDEN=1"));
        assert_eq!(
            got, want,
            "golden {path:?} differs; run with PINPOINT_REGEN_GOLDEN=1 to update"
        );
    }
}

#[tokio::test]
async fn guarded_router_cors_preflight_and_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("g.db")).unwrap();
    let cfg = SecurityConfig {
        allowed_origins: vec![],
        token: Some("tok".into()),
        bound_host: "127.0.0.1:4747".into(),
    };
    let api = Api {
        app: router(store.clone())
            .layer(axum::middleware::from_fn_with_state(Arc::new(cfg), guard)),
        store,
        _dir: dir,
    };
    // the toolbar's preflight for a JSON POST: 204 with CORS headers, no token needed
    let r = api
        .raw(
            Method::OPTIONS,
            "/sessions/x/annotations",
            Body::empty(),
            &[
                ("origin", "http://localhost:3000"),
                ("access-control-request-method", "POST"),
            ],
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(
        r.headers["access-control-allow-origin"],
        "http://localhost:3000"
    );
    // a JSON answer to an allowed origin carries ACAO + Vary
    let r = api
        .raw(
            Method::POST,
            "/sessions?token=tok",
            Body::from(r#"{"url":"http://localhost:3000/"}"#),
            &[
                ("origin", "http://localhost:3000"),
                ("host", "localhost:4747"),
            ],
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert_eq!(
        r.headers["access-control-allow-origin"],
        "http://localhost:3000"
    );
    assert_eq!(r.headers["vary"], "Origin");
    let before = api.seq();
    // foreign origin, rebinding host, missing token: refused before any route runs
    for (headers, status) in [
        (
            vec![("origin", "https://evil.example"), ("x-bap-token", "tok")],
            StatusCode::FORBIDDEN,
        ),
        (
            vec![("host", "evil.example:4747"), ("x-bap-token", "tok")],
            StatusCode::FORBIDDEN,
        ),
        (vec![("x-bap-token", "nope")], StatusCode::UNAUTHORIZED),
        (vec![], StatusCode::UNAUTHORIZED),
    ] {
        let r = api
            .raw(
                Method::POST,
                "/sessions",
                Body::from(r#"{"url":"http://a/"}"#),
                &headers,
            )
            .await;
        assert_eq!(r.status, status, "{headers:?}");
        assert!(r.json()["error"]["code"].is_string());
    }
    assert_eq!(api.seq(), before);
}

#[test]
fn cli_add_list_export() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("nested/cli.db");
    let run = |args: &[&str]| {
        let out = Command::new(bin())
            .arg("annotations")
            .args(args)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let db_s = db.to_str().unwrap();
    let (ok, out, err) = run(&[
        "add",
        "--store",
        db_s,
        "--session",
        "S",
        "--comment",
        "Button is cut off",
        "--element",
        "button",
        "--element-path",
        "main > button.cta",
        "--url",
        "http://localhost:3000/p",
        "--severity",
        "blocking",
    ]);
    assert!(ok, "{err}");
    let a: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (a["sessionId"].as_str(), a["status"].as_str()),
        (Some("S"), Some("pending"))
    );
    let (ok, out, _) = run(&["list", "--store", db_s, "--status", "pending", "--json"]);
    assert!(ok);
    let list: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(list[0]["id"], a["id"]);
    let (ok, out, _) = run(&["list", "--store", db_s, "--status", "resolved"]);
    assert!(ok && out.is_empty());
    let (ok, out, _) = run(&[
        "export",
        "--store",
        db_s,
        "--session",
        "S",
        "--level",
        "compact",
    ]);
    assert!(ok);
    assert_eq!(
        out,
        "# Feedback: http://localhost:3000/p\n\n1. **button.cta**: Button is cut off (blocking, pending)\n"
    );
    let (ok, _, err) = run(&[
        "export",
        "--store",
        db_s,
        "--session",
        "nope",
        "--level",
        "compact",
    ]);
    assert!(!ok && err.contains("not found"));
    let (ok, _, err) = run(&[
        "add",
        "--store",
        db_s,
        "--session",
        "S",
        "--element",
        "b",
        "--element-path",
        "p",
        "--severity",
        "huge",
    ]);
    assert!(!ok && err.contains("/severity"), "{err}");
}

/// A reviewer's browser page on another port (another origin) opens the
/// global SSE stream with `EventSource` (CORS) and receives live events.
#[test]
fn eventsource_in_chromium_receives_events_across_origins() {
    crate::harness::run(async {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("es.db")).unwrap();
        let addr = serve(store.clone()).await;
        let page = crate::harness::open("demo.html").await;
        let js = format!(
            "window.__es = []; window.__esOpen = false; \
             const es = new EventSource('http://{addr}/events'); \
             es.onopen = () => {{ window.__esOpen = true; }}; \
             for (const t of ['session.created', 'annotation.created']) \
               es.addEventListener(t, (e) => window.__es.push({{type: t, id: e.lastEventId, data: JSON.parse(e.data)}})); 0"
        );
        crate::harness::js(&page, &js).await;
        let t0 = std::time::Instant::now();
        while crate::harness::js(&page, "window.__esOpen").await != json!(true) {
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "EventSource never opened (CORS?)"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        new_session(&store, "ES", "http://localhost:3000/");
        let seq = create(&store, "ES", "seen by the browser");
        loop {
            let got = crate::harness::js(&page, "window.__es").await;
            let list = got.as_array().cloned().unwrap_or_default();
            if let Some(e) = list.iter().find(|e| e["type"] == "annotation.created") {
                assert_eq!(e["id"], seq.to_string());
                assert_eq!(
                    e["data"]["payload"]["comment"], "seen by the browser",
                    "{e}"
                );
                assert!(list.iter().any(|e| e["type"] == "session.created"));
                break;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(15),
                "no event in the page: {got}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = page.page.close().await;
    });
}
