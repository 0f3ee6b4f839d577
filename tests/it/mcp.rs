//! The MCP server (`pinpoint mcp`) spoken to as a client would: raw
//! newline-delimited JSON-RPC over an in-memory duplex. An agent lists,
//! acknowledges, replies and resolves; a second store handle on the same
//! file (standing for `pinpoint serve`) sees every change.

use crate::harness::run;
use pinpoint::annotations::model::{new_id, Annotation, Status};
use pinpoint::annotations::store::Store;
use pinpoint::annotations::Action;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

struct Mcp {
    w: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    r: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    next: i64,
}

impl Mcp {
    async fn send(&mut self, v: Value) {
        self.w.write_all(format!("{v}\n").as_bytes()).await.unwrap();
    }

    async fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let mut line = String::new();
            tokio::time::timeout(Duration::from_secs(20), self.r.read_line(&mut line))
                .await
                .expect("reply")
                .unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }

    /// `tools/call` → (is_error, parsed text content).
    async fn tool(&mut self, name: &str, args: Value) -> (bool, Value) {
        let v = self
            .call("tools/call", json!({"name": name, "arguments": args}))
            .await;
        let r = &v["result"];
        let text = r["content"][0]["text"].as_str().unwrap_or("");
        let parsed = serde_json::from_str(text).unwrap_or(Value::String(text.into()));
        (r["isError"] == true, parsed)
    }
}

fn seed(store: &Store) -> String {
    store
        .dispatch_blocking(&Action::CreateSession {
            session_id: "S1".into(),
            url: "http://localhost:3000/checkout".into(),
            project_id: None,
            metadata: None,
        })
        .unwrap();
    let id = new_id();
    let a: Annotation = serde_json::from_value(json!({
        "id": id, "comment": "Pay button is cut off on mobile", "element": "button",
        "elementPath": "main > form > button.pay", "timestamp": 1, "x": 10, "y": 20,
        "url": "http://localhost:3000/checkout", "severity": "blocking", "intent": "fix"}))
    .unwrap();
    store
        .dispatch_blocking(&Action::CreateAnnotation {
            session_id: "S1".into(),
            annotation: a,
        })
        .unwrap();
    id
}

#[test]
fn agent_loop_over_mcp_is_seen_by_the_server_store() {
    run(async {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("a.db");
        let server_side = Store::open(&db).unwrap();
        let id = seed(&server_side);
        let mcp_store = Store::open(&db).unwrap();
        let (client, srv) = tokio::io::duplex(1 << 20);
        let (sr, sw) = tokio::io::split(srv);
        tokio::spawn(pinpoint::mcp::serve(mcp_store, sr, sw));
        let (cr, cw) = tokio::io::split(client);
        let mut m = Mcp {
            w: cw,
            r: BufReader::new(cr),
            next: 0,
        };
        let init = m
            .call(
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}),
            )
            .await;
        assert!(
            init["result"]["capabilities"]["tools"].is_object(),
            "{init}"
        );
        m.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        let tools = m.call("tools/list", json!({})).await;
        let names: Vec<&str> = tools["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        for want in [
            "list_sessions",
            "get_pending",
            "acknowledge",
            "reply",
            "resolve",
            "dismiss",
            "reopen",
            "export_markdown",
            "watch_annotations",
        ] {
            assert!(names.contains(&want), "{want} missing from {names:?}");
        }
        let (err, sessions) = m.tool("list_sessions", json!({})).await;
        assert!(!err);
        assert_eq!(sessions[0]["id"], "S1");
        let (_, pending) = m.tool("get_pending", json!({"sessionId": "S1"})).await;
        assert_eq!(pending[0]["id"], id.as_str());
        let (err, a) = m.tool("acknowledge", json!({"id": id})).await;
        assert!(!err, "{a}");
        assert_eq!(a["status"], "acknowledged");
        let (_, a) = m
            .tool(
                "reply",
                json!({"id": id, "message": "Is this on iOS only?"}),
            )
            .await;
        assert_eq!(a["thread"][0]["role"], "agent");
        let (_, a) = m
            .tool(
                "resolve",
                json!({"id": id, "summary": "Button now wraps below 360 px"}),
            )
            .await;
        assert_eq!(a["status"], "resolved");
        assert_eq!(a["resolvedBy"], "agent");
        assert_eq!(a["thread"].as_array().unwrap().len(), 2);
        // The other handle (the HTTP server's) sees the same state.
        let seen = server_side.annotation_blocking(&id).unwrap().unwrap();
        assert_eq!(seen.status, Some(Status::Resolved));
        // Invalid transitions and unknown ids are tool errors with a code, not crashes.
        let (err, e) = m.tool("acknowledge", json!({"id": id})).await;
        assert!(err);
        assert_eq!(e["error"]["code"], "conflict", "{e}");
        let (err, e) = m.tool("get_annotation", json!({"id": "nope"})).await;
        assert!(err);
        assert_eq!(e["error"]["code"], "not_found", "{e}");
        let (err, _) = m.tool("reply", json!({"id": id, "message": "  "})).await;
        assert!(err);
        let (_, md) = m
            .tool(
                "export_markdown",
                json!({"sessionId": "S1", "level": "compact"}),
            )
            .await;
        assert!(
            md.as_str().unwrap().contains("Pay button is cut off"),
            "{md}"
        );
        // watch_annotations returns when the reviewer (other handle) adds one.
        let s2 = server_side.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let a: Annotation = serde_json::from_value(json!({
                "id": new_id(), "comment": "Typo in heading", "element": "h1",
                "elementPath": "main > h1", "timestamp": 2, "x": 1, "y": 1,
                "url": "http://localhost:3000/checkout"}))
            .unwrap();
            s2.dispatch(Action::CreateAnnotation {
                session_id: "S1".into(),
                annotation: a,
            })
            .await
            .unwrap();
        });
        let (err, w) = m
            .tool(
                "watch_annotations",
                json!({"sessionId": "S1", "timeoutSeconds": 10}),
            )
            .await;
        assert!(!err, "{w}");
        assert_eq!(w["pending"][0]["comment"], "Typo in heading", "{w}");
    });
}
