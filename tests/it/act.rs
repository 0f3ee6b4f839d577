//! Actions on real Chromium: every action type in the main frame, a shadow
//! root and an iframe, verified by page state and recorded `__events`; the
//! failure modes (stale ref, covered, disabled, moving, detached, ambiguous).
use crate::harness::*;
use pinpoint::act::{parse_step, ActOptions, Action, TargetSpec};
use pinpoint::app::PageState;
use std::time::{Duration, Instant};

async fn step(p: &PageState, s: &str) -> pinpoint::Result<pinpoint::act::ActResult> {
    let st = parse_step(s).expect("step parses");
    session()
        .await
        .act(p, st.target.as_ref(), &st.action, &ActOptions::default())
        .await
}

#[test]
#[ignore]
fn probe_timing() {
    run(async {
        let p = open("actions.html").await;
        observe(&p).await;
        for _ in 0..3 {
            let t = Instant::now();
            let v = js(&p, "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))").await;
            println!("2 raf: {:?} {v}", t.elapsed());
        }
        for s in ["click @click-btn", "fill @text-input \"abc\"", "fill @text-input \"abcd\""] {
            let t = Instant::now();
            step(&p, s).await.unwrap();
            println!("{s}: {:?}", t.elapsed());
        }
        for _ in 0..3 {
            for kind in ["move", "down", "up"] {
                let t = Instant::now();
                p.page.mouse(kind, 30.0, 30.0, pinpoint::browser::MouseButton::Left, 1, 0).await.unwrap();
                println!("mouse {kind}: {:?}", t.elapsed());
            }
            let t = Instant::now();
            let _ = pinpoint::act::call(&p.page, "scrollState", &serde_json::json!({})).await.unwrap();
            println!("call: {:?}", t.elapsed());
            let t = Instant::now();
            step(&p, "click @click-btn").await.unwrap();
            println!("click: {:?}", t.elapsed());
        }
        let t = Instant::now();
        p.page.insert_text("x").await.unwrap();
        println!("insert: {:?}", t.elapsed());
        let _ = (Duration::ZERO, TargetSpec::from(pinpoint::act::Target::Css("a".into())), Action::Clear);
    });
}

#[test]
#[ignore]
fn probe_raf_external() {
    run(async {
        let s = pinpoint::app::Session::new(
            pinpoint::browser::LaunchOptions {
                cdp: Some("ws://127.0.0.1:9333/devtools/browser/8a80f3c0-ba7e-47b8-8a19-9e179dbafedc".into()),
                ..Default::default()
            },
            pinpoint::browser::Viewport::default(),
        );
        let p = s.new_page(None).await.unwrap();
        s.navigate(&p, &url("actions.html").await, pinpoint::browser::LoadState::Load, Duration::from_secs(10)).await.unwrap();
        for _ in 0..5 {
            let t = Instant::now();
            let v = p.page.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))").await.unwrap();
            println!("2 raf: {:?} {v}", t.elapsed());
        }
    });
}
