//! Discovery and refs on real Chromium, for every fixture.
use crate::harness::*;

#[test]
#[ignore]
fn profile_discovery() {
    run(async {
        let p = open("many.html?n=1000").await;
        let src = pinpoint::observe::DISCOVER_JS
            .trim_end()
            .trim_end_matches(';');
        for _ in 0..3 {
            let v = js(&p, &format!("(() => {{ const t = performance.now(); const s = ({src})({{profile: true}}); return [performance.now() - t, s.length, JSON.parse(s).profile]; }})()")).await;
            println!("in-page: {v}");
        }
        let t = std::time::Instant::now();
        let _ = p
            .page
            .eval_json_string(&pinpoint::observe::discover_expression(None))
            .await
            .unwrap();
        println!("round trip {:?}", t.elapsed());
    });
}
