//! Annotation store benchmarks: acknowledged creates per second (one client,
//! WAL + synchronous=FULL, one transaction per create), listing 10,000
//! annotations filtered by status, and live fan-out of one committed event to
//! 100 subscribers (each formats its SSE frame).
use std::hint::black_box;
use std::time::{Duration, Instant};

use tower::ServiceExt;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pinpoint::annotations::model::{new_id, Annotation, Status};
use pinpoint::annotations::store::{AnnotationFilter, Store};
use pinpoint::annotations::Action;
use pinpoint::http::annotations::event_frame;
use serde_json::json;

fn annotation(i: u64) -> Annotation {
    serde_json::from_value(
        json!({"id": new_id() + &i.to_string(), "comment": format!("note {i}"),
        "element": "button", "elementPath": "main > .hero > button.cta", "timestamp": i,
        "x": 42.5, "y": 310, "url": "http://localhost:3000/pricing",
        "boundingBox": {"x": 10, "y": 300, "width": 120, "height": 40}, "severity": "important"}),
    )
    .unwrap_or_default()
}

fn create(sid: &str, i: u64) -> Action {
    Action::CreateAnnotation {
        session_id: sid.into(),
        annotation: annotation(i),
    }
}

fn open_with_session(dir: &tempfile::TempDir, name: &str) -> Store {
    let store = Store::open(dir.path().join(name)).expect("open store");
    store
        .dispatch_blocking(&Action::CreateSession {
            session_id: "S".into(),
            url: "http://localhost:3000/pricing".into(),
            project_id: None,
            metadata: None,
        })
        .expect("session");
    store
}

fn creates(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open_with_session(&dir, "creates.db");
    let mut g = c.benchmark_group("store");
    g.throughput(Throughput::Elements(1));
    g.measurement_time(Duration::from_secs(5));
    let mut i = 0u64;
    g.bench_function("acknowledged_create", |b| {
        b.iter(|| {
            i += 1;
            black_box(store.dispatch_blocking(&create("S", i)).expect("create"))
        })
    });
    g.finish();
}

fn list_filtered(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open_with_session(&dir, "list.db");
    let actions: Vec<Action> = (0..10_000).map(|i| create("S", i)).collect();
    let done = store.dispatch_many_blocking(&actions).expect("bulk");
    // every other annotation acknowledged: the filter returns 5,000
    let acks: Vec<Action> = done
        .iter()
        .step_by(2)
        .filter_map(|c| c.annotation())
        .map(|a| Action::SetStatus {
            annotation_id: a.id.clone(),
            status: Status::Acknowledged,
            by: None,
        })
        .collect();
    store.dispatch_many_blocking(&acks).expect("acks");
    let filter = AnnotationFilter {
        status: Some(Status::Pending),
        ..Default::default()
    };
    assert_eq!(
        store
            .list_annotations_blocking(&filter)
            .map(|l| l.len())
            .ok(),
        Some(5_000)
    );
    let mut g = c.benchmark_group("store");
    g.sample_size(20);
    g.bench_function("list_10k_filtered_by_status", |b| {
        b.iter(|| {
            black_box(
                store
                    .list_annotations_blocking(&filter)
                    .expect("list")
                    .len(),
            )
        })
    });
    // what the HTTP list/pending routes do: stored JSON texts, no re-parse
    g.bench_function("list_10k_filtered_by_status_raw", |b| {
        b.iter(|| {
            black_box(
                store
                    .list_annotations_raw_blocking(&filter)
                    .expect("list")
                    .len(),
            )
        })
    });
    g.finish();
}

fn fan_out(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open_with_session(&dir, "fanout.db");
    let (done_tx, mut done_rx) = tokio::sync::mpsc::unbounded_channel::<usize>();
    rt.block_on(async {
        for _ in 0..100 {
            let mut rx = store.subscribe();
            let done = done_tx.clone();
            tokio::spawn(async move {
                while let Ok(e) = rx.recv().await {
                    let frame = e.rendered(event_frame);
                    if done.send(frame.len()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    let mut g = c.benchmark_group("store");
    g.measurement_time(Duration::from_secs(5));
    let mut i = 0u64;
    g.bench_function("create_and_fan_out_to_100_subscribers", |b| {
        b.iter(|| {
            i += 1;
            let store = store.clone();
            rt.block_on(async {
                tokio::task::spawn_blocking(move || store.dispatch_blocking(&create("S", i)))
                    .await
                    .expect("join")
                    .expect("create");
                for _ in 0..100 {
                    black_box(done_rx.recv().await);
                }
            })
        })
    });
    // Fan-out alone: from the write being acknowledged (events already
    // published) to the 100th subscriber holding its SSE frame.
    let mut j = 1_000_000u64;
    g.bench_function("fan_out_to_100_subscribers_after_ack", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                j += 1;
                let store = store.clone();
                total += rt.block_on(async {
                    tokio::task::spawn_blocking(move || store.dispatch_blocking(&create("S", j)))
                        .await
                        .expect("join")
                        .expect("create");
                    let t0 = Instant::now();
                    for _ in 0..100 {
                        black_box(done_rx.recv().await);
                    }
                    t0.elapsed()
                });
            }
            total
        })
    });
    g.finish();
}

fn http_create(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open_with_session(&dir, "http.db");
    let app = pinpoint::http::annotations::router(store);
    let body =
        json!({"x": 42.5, "y": 310, "comment": "Make this button bigger", "element": "button",
        "elementPath": "main > .hero > button.cta", "timestamp": 1760000000000u64,
        "boundingBox": {"x": 10, "y": 300, "width": 120, "height": 40},
        "url": "http://localhost:3000/pricing"})
        .to_string();
    let mut g = c.benchmark_group("store");
    g.throughput(Throughput::Elements(1));
    g.measurement_time(Duration::from_secs(5));
    g.bench_function("http_post_annotation_acknowledged", |b| {
        b.iter(|| {
            let req = axum::http::Request::post("/sessions/S/annotations")
                .header("content-type", "application/json")
                .body(axum::body::Body::from(body.clone()))
                .expect("request");
            let res = rt.block_on(app.clone().oneshot(req)).expect("infallible");
            assert_eq!(res.status(), axum::http::StatusCode::CREATED);
            black_box(res)
        })
    });
    g.finish();
}

criterion_group!(benches, creates, list_filtered, fan_out, http_create);
criterion_main!(benches);
