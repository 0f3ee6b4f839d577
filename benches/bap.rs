//! BAP protocol overhead: `agent/observe` on demo.html called in-process
//! (`rpc::dispatch::agent_observe`, typed result) versus the same call over
//! `pinpoint serve`'s WebSocket (JSON-RPC frame out, serialised reply back),
//! each against its own headless Chromium. The difference is what the
//! protocol adds (goal ≤ 2 ms). Needs Chromium, like the integration tests.
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use futures::{SinkExt, StreamExt};
use pinpoint::app::fixtures::{fixtures_dir, StaticServer};
use pinpoint::app::{LaunchOptions, LoadState, Session, Viewport};
use pinpoint::http::{serve, SecurityConfig, ServerParts};
use pinpoint::rpc::dispatch::{agent_observe, HubConfig};
use pinpoint::rpc::types::AgentObserveParams;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let fixtures = rt
        .block_on(StaticServer::start(&fixtures_dir().unwrap()))
        .unwrap();
    let url = fixtures.url("demo.html");
    let params = json!({"maxElements": 100});

    // In-process.
    let session = std::sync::Arc::new(Session::new(LaunchOptions::default(), Viewport::default()));
    let page = rt.block_on(async {
        let p = session.new_page(None).await.unwrap();
        session
            .navigate(&p, &url, LoadState::Load, Duration::from_secs(20))
            .await
            .unwrap();
        p
    });
    let typed: AgentObserveParams = serde_json::from_value(params.clone()).unwrap();
    c.bench_function("agent_observe_in_process", |b| {
        b.iter(|| black_box(rt.block_on(agent_observe(&session, &page, &typed)).unwrap()))
    });

    // Over the WebSocket.
    let mut ws = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let parts = ServerParts::new(
            HubConfig::default(),
            SecurityConfig {
                bound_host: addr.to_string(),
                ..Default::default()
            },
        );
        tokio::spawn(serve(listener, parts, std::future::pending()));
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/"))
            .await
            .unwrap();
        ws
    });
    let mut id = 0u64;
    let mut call =
        |ws: &mut tokio_tungstenite::WebSocketStream<_>, method: &str, params: &Value| {
            id += 1;
            let msg =
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
            let want = id;
            rt.block_on(async move {
                ws.send(Message::text(msg)).await.unwrap();
                loop {
                    if let Some(Ok(Message::Text(t))) = ws.next().await {
                        let v: Value = serde_json::from_str(&t).unwrap();
                        if v["id"] == want {
                            assert!(v.get("error").is_none(), "{v}");
                            return v;
                        }
                    }
                }
            })
        };
    call(
        &mut ws,
        "initialize",
        &json!({"protocolVersion": "0.8.0", "clientInfo": {"name": "bench", "version": "0"}, "capabilities": {}}),
    );
    call(&mut ws, "browser/launch", &json!({}));
    call(&mut ws, "page/create", &json!({"url": url}));
    c.bench_function("agent_observe_over_websocket", |b| {
        b.iter(|| black_box(call(&mut ws, "agent/observe", &params)))
    });
    call(&mut ws, "shutdown", &json!({}));
    rt.block_on(session.close_browser());
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(40).measurement_time(Duration::from_secs(8));
    targets = bench
}
criterion_main!(benches);
