//! `pinpoint serve` end to end: a real WebSocket client (tokio-tungstenite)
//! runs a full BAP session against real Chromium; error codes, lifecycle
//! rules, security rules (foreign Origin, bad token → 1008, oversize
//! message), `POST /rpc` and `/health` with `oneshot`, and session parking.

use crate::harness::{rt, run, url};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use futures::{SinkExt, StreamExt};
use http_body_util::BodyExt;
use pinpoint::http::{app, serve, SecurityConfig, ServerParts};
use pinpoint::rpc::dispatch::HubConfig;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tower::ServiceExt;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn parts(token: Option<&str>) -> ServerParts {
    ServerParts::new(
        HubConfig {
            park_ttl: Duration::from_secs(30),
            ..HubConfig::default()
        },
        SecurityConfig {
            allowed_origins: vec![],
            token: token.map(str::to_string),
            bound_host: "127.0.0.1".into(),
        },
    )
}

async fn start(token: Option<&str>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let p = parts(token);
    rt().spawn(async move {
        let _ = serve(listener, p, std::future::pending()).await;
    });
    addr
}

struct Client {
    ws: Ws,
    next: i64,
    /// Notifications received while waiting for replies.
    notes: Vec<Value>,
}

impl Client {
    async fn connect(addr: SocketAddr, path: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}{path}"))
            .await
            .expect("ws connect");
        Client {
            ws,
            next: 1,
            notes: Vec::new(),
        }
    }

    async fn send_text(&mut self, text: &str) {
        self.ws.send(Message::text(text.to_string())).await.unwrap();
    }

    async fn recv(&mut self) -> Value {
        loop {
            let m = tokio::time::timeout(Duration::from_secs(60), self.ws.next())
                .await
                .expect("reply within 60 s")
                .expect("socket open")
                .expect("frame");
            if let Message::Text(t) = m {
                return serde_json::from_str(&t).unwrap();
            }
        }
    }

    /// Send a request and wait for the response with its id (keeping notifications).
    async fn raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_text(&msg.to_string()).await;
        loop {
            let v = self.recv().await;
            if v.get("id") == Some(&json!(id)) {
                assert!(v.get("result").is_some() ^ v.get("error").is_some(), "{v}");
                return v;
            }
            assert!(v.get("id").is_none(), "notification without id: {v}");
            self.notes.push(v);
        }
    }

    async fn ok(&mut self, method: &str, params: Value) -> Value {
        let v = self.raw(method, params).await;
        assert!(v.get("error").is_none(), "{method} failed: {v}");
        v["result"].clone()
    }

    async fn err(&mut self, method: &str, params: Value) -> Value {
        let v = self.raw(method, params).await;
        assert!(v.get("error").is_some(), "{method} should fail: {v}");
        v["error"].clone()
    }

    async fn init(&mut self, extra: Value) -> Value {
        let mut p = json!({"protocolVersion":"0.2.0","clientInfo":{"name":"bap-client-python","version":"0.2.0"},"capabilities":{"events":["page","console","network","dialog"],"streaming":false,"compression":false}});
        if let (Some(o), Some(e)) = (p.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        let r = self.ok("initialize", p).await;
        self.send_text(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        r
    }
}

fn no_nulls(v: &Value, path: &str) {
    match v {
        Value::Null => panic!("null at {path}"),
        Value::Object(o) => o
            .iter()
            .for_each(|(k, x)| no_nulls(x, &format!("{path}.{k}"))),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| no_nulls(x, &format!("{path}[{i}]"))),
        _ => {}
    }
}

#[test]
fn full_session_over_websocket() {
    run(async {
        let addr = start(None).await;
        let mut c = Client::connect(addr, "/").await;
        let init = c.init(json!({})).await;
        assert_eq!(init["protocolVersion"], "0.8.0");
        assert!(init["serverInfo"]["name"].is_string());
        assert!(init["capabilities"].is_object());
        assert_eq!(
            c.ok(
                "events/subscribe",
                json!({"events": ["page", "console", "network", "dialog"]})
            )
            .await,
            Value::Null
        );
        let launch = c
            .ok(
                "browser/launch",
                json!({"browser": "chromium", "headless": true}),
            )
            .await;
        assert_eq!(launch["browser"], "chromium");
        assert!(launch["browserId"]
            .as_str()
            .unwrap()
            .starts_with("browser-"));
        assert!(!launch["version"].as_str().unwrap().is_empty());
        let page = c.ok("page/create", json!({})).await;
        let pid = page["id"].as_str().unwrap().to_string();
        assert_eq!(page["status"], "ready");
        assert_eq!(page["viewport"], json!({"width": 1280, "height": 720}));

        let forms = url("forms.html").await;
        let nav = c
            .ok("page/navigate", json!({"pageId": pid, "url": forms}))
            .await;
        assert_eq!(nav["status"], 200);
        assert!(nav["url"].as_str().unwrap().ends_with("forms.html"));
        // The load event arrives as a notification without an id.
        let t0 = std::time::Instant::now();
        while !c
            .notes
            .iter()
            .any(|n| n["method"] == "events/page" && n["params"]["type"] == "load")
        {
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "no load event: {:?}",
                c.notes
            );
            let v = c.recv().await;
            c.notes.push(v);
        }
        let network = c
            .notes
            .iter()
            .find(|n| n["method"] == "events/network")
            .unwrap();
        assert_eq!(network["params"]["pageId"], pid.as_str());
        assert!(network["params"]["timestamp"].is_u64());

        // Observe with an annotated screenshot (PY's happy-path params; pageId null = active).
        let obs = c
            .ok(
                "agent/observe",
                json!({"pageId": null, "includeScreenshot": true, "includeInteractiveElements": true,
                       "maxElements": 50, "annotateScreenshot": {"enabled": true, "labelFormat": "both", "maxLabels": 30}}),
            )
            .await;
        no_nulls(&obs, "observe");
        let els = obs["interactiveElements"].as_array().unwrap();
        assert!(els.len() > 20 && els.len() <= 50, "{}", els.len());
        assert!(obs["totalInteractiveElements"].as_u64().unwrap() >= els.len() as u64);
        for e in els {
            assert!(e["ref"].as_str().unwrap().starts_with('@'));
            assert!(e["actionHints"].is_array() && e["tagName"].is_string());
            assert!(e["selector"]["type"].is_string());
        }
        let shot = &obs["screenshot"];
        assert_eq!(shot["format"], "png");
        assert_eq!(shot["annotated"], true);
        assert!(shot["width"].is_u64() && shot["height"].is_u64());
        let png = base64_decode(shot["data"].as_str().unwrap());
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let map = obs["annotationMap"].as_array().unwrap();
        assert!(!map.is_empty() && map.len() <= 30);
        assert!(
            map[0]["label"].as_str().unwrap().contains(":@"),
            "{}",
            map[0]
        );
        assert_eq!(obs["metadata"]["viewport"]["width"], 1280);

        let find = |name: &str| -> String {
            els.iter()
                .find(|e| e["name"] == name)
                .unwrap_or_else(|| panic!("no element named {name}"))["ref"]
                .as_str()
                .unwrap()
                .to_string()
        };
        let full_name = find("Full name");
        let preview = find("Preview");
        let terms = find("I accept the terms");

        // Click by ref, fill by ref (without '@', as the bap CLI sends it).
        assert_eq!(
            c.ok(
                "action/click",
                json!({"pageId": pid, "selector": {"type": "ref", "ref": preview}})
            )
            .await,
            Value::Null
        );
        c.ok(
            "action/fill",
            json!({"pageId": pid, "selector": {"type": "ref", "ref": full_name.trim_start_matches('@')}, "value": "Ada Lovelace"}),
        )
        .await;
        let el = c
            .ok(
                "observe/element",
                json!({"selector": {"type": "css", "value": "#f-text"}, "properties": ["value", "visible"]}),
            )
            .await;
        assert_eq!(el["found"], true);
        assert_eq!(el["value"], "Ada Lovelace");
        assert_eq!(el["properties"]["value"], "Ada Lovelace");

        // agent/act: three steps, one with a condition.
        let act = c
            .ok(
                "agent/act",
                json!({"pageId": pid, "steps": [
                    {"label": "terms", "action": "action/check", "params": {"selector": {"type": "ref", "ref": terms}}},
                    {"action": "action/fill", "params": {"selector": {"type": "label", "value": "Email address"}, "value": "ada@example.com"},
                     "condition": {"selector": {"type": "css", "value": "#f-email"}, "state": "enabled"}},
                    {"action": "action/select", "params": {"selector": {"type": "css", "value": "#f-country"}, "values": ["fr"]}}
                ]}),
            )
            .await;
        assert_eq!(act["completed"], 3, "{act}");
        assert_eq!(act["total"], 3);
        assert_eq!(act["success"], true);
        assert_eq!(act["results"][0]["label"], "terms");
        assert!(act["duration"].is_u64());
        let state = c
            .ok(
                "observe/element",
                json!({"selector": {"type": "css", "value": "#f-terms"}, "properties": ["checked"]}),
            )
            .await;
        assert_eq!(state["checked"], true);
        let email = c
            .ok(
                "observe/element",
                json!({"selector": {"type": "css", "value": "#f-email"}, "properties": ["value"]}),
            )
            .await;
        assert_eq!(email["value"], "ada@example.com");

        // A failing step reports its error in the result, not as a JSON-RPC error.
        let act = c
            .ok(
                "agent/act",
                json!({"steps": [
                    {"action": "action/click", "params": {"selector": {"type": "css", "value": "#nope"}, "options": {"timeout": 200}}},
                    {"action": "action/click", "params": {"selector": {"type": "ref", "ref": preview}}}
                ]}),
            )
            .await;
        assert_eq!(act["success"], false);
        assert_eq!(act["failedAt"], 0);
        assert_eq!(act["results"][0]["error"]["code"], -32012);
        assert_eq!(act["results"].as_array().unwrap().len(), 1);

        // agent/extract: a list of products from the shop page.
        c.ok("page/navigate", json!({"url": url("shop.html").await}))
            .await;
        let ex = c
            .ok(
                "agent/extract",
                json!({"instruction": "the products", "mode": "list", "includeSourceRefs": true,
                       "schema": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "price": {"type": "number"}}}}}),
            )
            .await;
        assert_eq!(ex["success"], true, "{ex}");
        let data = ex["data"].as_array().unwrap();
        assert_eq!(data.len(), 6, "{ex}");
        assert_eq!(data[0], json!({"name": "Trail Backpack", "price": 89.0}));
        assert_eq!(data[5]["name"], "Trek Poles");
        assert_eq!(ex["sources"][0]["ref"], "@s1");
        assert!(ex["confidence"].as_f64().unwrap() > 0.5);

        // Content as markdown and text.
        let md = c.ok("observe/content", json!({"format": "markdown"})).await;
        assert_eq!(md["format"], "markdown");
        assert!(
            md["content"]
                .as_str()
                .unwrap()
                .contains("### Trail Backpack"),
            "{md}"
        );
        let tree = c.ok("observe/accessibility", json!({})).await;
        assert!(tree["tree"].is_array());
        assert_eq!(tree["tree"][0]["role"], "RootWebArea");

        let list = c.ok("page/list", json!({})).await;
        assert_eq!(list["activePage"], pid.as_str());
        assert_eq!(
            c.ok("page/close", json!({"pageId": pid})).await,
            Value::Null
        );
        let e = c.err("agent/observe", json!({"pageId": pid})).await;
        assert_eq!(e["code"], -32011);
        assert_eq!(
            c.ok("shutdown", json!({"saveState": false, "closePages": true}))
                .await,
            Value::Null
        );
        // After shutdown the session is uninitialized again.
        assert_eq!(c.err("page/list", json!({})).await["code"], -32001);
    });
}

fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

#[test]
fn protocol_errors_never_close_the_connection() {
    run(async {
        let addr = start(None).await;
        let mut c = Client::connect(addr, "/any/path").await;
        // Before initialize: -32001 with no data.
        let e = c.err("page/list", json!({})).await;
        assert_eq!(e["code"], -32001);
        assert!(e.get("data").is_none());
        // Malformed JSON: -32700 with id 0.
        c.send_text("{not json").await;
        let v = c.recv().await;
        assert_eq!(v["id"], 0);
        assert_eq!(v["error"]["code"], -32700);
        // A non-object request: -32600.
        c.send_text("42").await;
        assert_eq!(c.recv().await["error"]["code"], -32600);
        c.init(json!({})).await;
        assert_eq!(c.err("initialize", json!({})).await["code"], -32002);
        let e = c.err("no/such", json!({})).await;
        assert_eq!(e["code"], -32601);
        assert_eq!(c.err("storage/getState", json!({})).await["code"], -32601);
        // Wrong param types name the field.
        let e = c.err("page/navigate", json!({"url": 5})).await;
        assert_eq!(e["code"], -32602);
        assert!(e["message"].as_str().unwrap().contains("url"), "{e}");
        let e = c
            .err("action/click", json!({"selector": {"type": "css"}}))
            .await;
        assert!(
            e["message"].as_str().unwrap().contains("selector.value"),
            "{e}"
        );
        // No browser yet.
        assert_eq!(c.err("page/create", json!({})).await["code"], -32010);
        // Unknown page.
        let e = c.err("agent/observe", json!({"pageId": "page-404"})).await;
        assert_eq!(e["code"], -32011);
        assert_eq!(e["data"]["retryable"], false);
        assert!(e["data"]["recoveryHint"].is_string());
        let e = c
            .err("page/navigate", json!({"url": "javascript:alert(1)"}))
            .await;
        assert_eq!(e["code"], -32602);
        let e = c
            .err(
                "agent/act",
                json!({"steps": [{"action": "browser/close", "params": {}}]}),
            )
            .await;
        assert_eq!(e["code"], -32602);
        // Still alive.
        assert!(c.ok("page/list", json!({})).await["pages"].is_array());
    });
}

#[test]
fn retryable_errors_over_the_wire() {
    run(async {
        let addr = start(None).await;
        let mut c = Client::connect(addr, "/").await;
        c.init(json!({})).await;
        c.ok("browser/launch", json!({})).await;
        c.ok("page/create", json!({"url": url("actions.html").await}))
            .await;
        let obs = c
            .ok("agent/observe", json!({"responseTier": "interactive"}))
            .await;
        assert!(obs.get("screenshot").is_none());
        let els = obs["interactiveElements"].as_array().unwrap();
        let disabled = els.iter().find(|e| e["ref"] == "@disabled-btn").unwrap();
        let e = c
            .err(
                "action/click",
                json!({"selector": {"type": "ref", "ref": disabled["ref"]}, "options": {"timeout": 300}}),
            )
            .await;
        assert_eq!(e["code"], -32014);
        assert_eq!(e["data"]["retryable"], true);
        let act = c
            .ok(
                "agent/act",
                json!({"steps": [{"action": "action/click", "params": {"selector": {"type": "css", "value": "#click-btn"}}}]}),
            )
            .await;
        assert_eq!(act["success"], true, "{act}");
        assert_eq!(act["completed"], 1);
        // Ambiguous selector.
        let e = c
            .err(
                "action/click",
                json!({"selector": {"type": "css", "value": "button"}}),
            )
            .await;
        assert_eq!(e["code"], -32020);
        assert!(e["data"]["details"]["count"].as_u64().unwrap() > 1, "{e}");
    });
}

#[test]
fn token_origin_and_size_rules() {
    run(async {
        let addr = start(Some("s3cret")).await;
        // Bad token: accepted, then closed with 1008.
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/?token=nope"))
            .await
            .unwrap();
        match ws.next().await {
            Some(Ok(Message::Close(Some(f)))) => assert_eq!(u16::from(f.code), 1008),
            other => panic!("expected close 1008, got {other:?}"),
        }
        // Good token in the query.
        let mut c = Client::connect(addr, "/?token=s3cret").await;
        c.init(json!({})).await;
        // A foreign Origin is refused before the upgrade.
        let mut req = format!("ws://{addr}/?token=s3cret")
            .into_client_request()
            .unwrap();
        req.headers_mut()
            .insert("Origin", "https://evil.example".parse().unwrap());
        let e = tokio_tungstenite::connect_async(req).await.unwrap_err();
        assert!(e.to_string().contains("403"), "{e}");
        // A local Origin is fine.
        let mut req = format!("ws://{addr}/?token=s3cret")
            .into_client_request()
            .unwrap();
        req.headers_mut()
            .insert("Origin", "http://localhost:5173".parse().unwrap());
        assert!(tokio_tungstenite::connect_async(req).await.is_ok());
        // Oversize inbound message: the socket is closed, the server lives on.
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":99,"method":"page/list","params":{{"pad":"{}"}}}}"#,
            "x".repeat(11 * 1024 * 1024)
        );
        let _ = c.ws.send(Message::text(big)).await;
        let closed = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match c.ws.next().await {
                    None | Some(Err(_)) => return true,
                    Some(Ok(Message::Close(_))) => return true,
                    Some(Ok(_)) => continue,
                }
            }
        })
        .await
        .unwrap();
        assert!(closed);
        let mut c2 = Client::connect(addr, "/?token=s3cret").await;
        c2.init(json!({})).await;
    });
}

#[test]
fn reconnect_with_session_id_gets_pages_back() {
    run(async {
        let addr = start(None).await;
        let mut c = Client::connect(addr, "/").await;
        let r = c.init(json!({"sessionId": "agent-7"})).await;
        assert_eq!(r["sessionId"], "agent-7");
        c.ok("browser/launch", json!({})).await;
        let page = c
            .ok("page/create", json!({"url": url("forms.html").await}))
            .await;
        let obs = c.ok("agent/observe", json!({})).await;
        let first_ref = obs["interactiveElements"][0]["ref"].clone();
        drop(c);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut c = Client::connect(addr, "/").await;
        c.init(json!({"sessionId": "agent-7"})).await;
        let list = c.ok("page/list", json!({})).await;
        assert_eq!(list["pages"][0]["id"], page["id"]);
        assert!(list["pages"][0]["url"]
            .as_str()
            .unwrap()
            .ends_with("forms.html"));
        // The registry came back too: the same ref is still known and stable.
        let obs = c.ok("agent/observe", json!({})).await;
        assert_eq!(obs["interactiveElements"][0]["ref"], first_ref);
        assert_eq!(obs["interactiveElements"][0]["stability"], "stable");
        c.ok("shutdown", json!({})).await;
    });
}

async fn oneshot(
    router: axum::Router,
    req: Request<Body>,
) -> (StatusCode, axum::http::HeaderMap, Value) {
    let res = router.oneshot(req).await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        headers,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

#[test]
fn http_rpc_and_health() {
    run(async {
        let p = parts(None);
        let router = app(&p);
        let (s, _, body) = oneshot(
            router.clone(),
            Request::get("/health").body(Body::empty()).unwrap(),
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(body["status"], "ok");
        let post = |body: Value, sid: Option<&str>| {
            let mut b = Request::post("/rpc").header("content-type", "application/json");
            if let Some(sid) = sid {
                b = b.header("x-pinpoint-session", sid);
            }
            b.body(Body::from(body.to_string())).unwrap()
        };
        // No initialize needed over HTTP; a session id comes back in the header.
        let (s, h, body) = oneshot(
            router.clone(),
            post(json!({"jsonrpc":"2.0","id":"a","method":"page/list"}), None),
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(body["id"], "a");
        assert_eq!(body["result"]["pages"], json!([]));
        let sid = h["x-pinpoint-session"].to_str().unwrap().to_string();
        // page/create launches on demand; agent/observe in the same session.
        let (_, _, body) = oneshot(
            router.clone(),
            post(
                json!({"jsonrpc":"2.0","id":1,"method":"page/create","params":{"url": url("forms.html").await}}),
                Some(&sid),
            ),
        )
        .await;
        assert!(body["result"]["id"].is_string(), "{body}");
        let (_, _, body) = oneshot(
            router.clone(),
            post(
                json!({"jsonrpc":"2.0","id":2,"method":"agent/observe","params":{"maxElements":5}}),
                Some(&sid),
            ),
        )
        .await;
        assert_eq!(
            body["result"]["interactiveElements"]
                .as_array()
                .unwrap()
                .len(),
            5
        );
        let (_, _, body) = oneshot(router.clone(), post(json!([1, 2]), Some(&sid))).await;
        assert_eq!(body, Value::Null, "batches are ignored");
        let req = Request::post("/rpc").body(Body::from("{oops")).unwrap();
        let (_, _, body) = oneshot(router.clone(), req).await;
        assert_eq!(body["error"]["code"], -32700);
        // A plain GET on / asks for a WebSocket.
        let res = router
            .clone()
            .oneshot(Request::get("/").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::UPGRADE_REQUIRED);
        p.hub.shutdown().await;
    });
}
