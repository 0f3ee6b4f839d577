//! Actions on real Chromium: every action type in the main frame, a shadow
//! root and an iframe, verified by page state and recorded `__events`; the
//! failure modes (stale ref, covered, disabled, moving, detached, ambiguous),
//! each with its crate error, BAP code, `retryable()` and hint.
use crate::harness::*;
use pinpoint::act::{parse_step, ActOptions, ActResult, Target, TargetSpec};
use pinpoint::app::PageState;
use pinpoint::Error;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

async fn step_with(p: &PageState, s: &str, opts: ActOptions) -> pinpoint::Result<ActResult> {
    let st = parse_step(s).expect("step parses");
    session()
        .await
        .act(p, st.target.as_ref(), &st.action, &opts)
        .await
}

async fn step(p: &PageState, s: &str) -> pinpoint::Result<ActResult> {
    step_with(p, s, ActOptions::default()).await
}

async fn ok(p: &PageState, s: &str) -> ActResult {
    match step(p, s).await {
        Ok(r) => r,
        Err(e) => panic!("{s}: {e} ({})", e.code()),
    }
}

fn quick() -> ActOptions {
    ActOptions {
        timeout: Duration::from_millis(400),
        ..Default::default()
    }
}

/// Open actions.html, observe it, and clear the event log.
async fn actions_page() -> std::sync::Arc<PageState> {
    let p = open("actions.html").await;
    // The iframe's recorder must be ready too.
    for _ in 0..50 {
        if js(&p, "!!document.getElementById('actions-frame').contentDocument?.getElementById('frame-button')").await == json!(true) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    observe(&p).await;
    js(&p, "window.__events = []; 0").await;
    p
}

/// Recorded events as (type, target) pairs plus details.
async fn events(p: &PageState) -> Vec<Value> {
    js(p, "window.__events || []")
        .await
        .as_array()
        .cloned()
        .unwrap_or_default()
}

async fn of(p: &PageState, ty: &str, target: &str) -> Vec<Value> {
    events(p)
        .await
        .into_iter()
        .filter(|e| e["type"] == ty && e["target"] == target)
        .collect()
}

async fn clicked_targets(p: &PageState) -> Vec<String> {
    events(p)
        .await
        .into_iter()
        .filter(|e| e["type"] == "click" || e["type"] == "mousedown")
        .filter_map(|e| e["target"].as_str().map(str::to_string))
        .collect()
}

const FRAME: &str = "document.getElementById('actions-frame').contentDocument";
const SHADOW: &str = "document.getElementById('shadow-host').shadowRoot";

#[test]
fn click_in_main_shadow_and_frame() {
    run(async {
        let p = actions_page().await;
        let r = ok(&p, "click @click-btn").await;
        assert_eq!(r.role.as_deref(), Some("button"));
        assert_eq!(r.name.as_deref(), Some("Click me"));
        assert_eq!(
            js(&p, "document.getElementById('click-count').textContent").await,
            "1"
        );
        let c = of(&p, "click", "click-btn").await;
        assert_eq!(c.len(), 1);
        assert_eq!(c[0]["detail"]["button"], 0);
        assert_eq!(c[0]["detail"]["clickCount"], 1);

        ok(&p, "click css=#shadow-button").await;
        assert_eq!(
            js(
                &p,
                &format!("{SHADOW}.getElementById('shadow-click-count').textContent")
            )
            .await,
            "1"
        );
        assert_eq!(of(&p, "click", "shadow-button").await.len(), 1);

        let r = ok(&p, "click role=button[name=\"Frame button\"]").await;
        assert_eq!(r.name.as_deref(), Some("Frame button"));
        assert_eq!(
            js(
                &p,
                &format!("{FRAME}.getElementById('frame-click-count').textContent")
            )
            .await,
            "1"
        );
        assert_eq!(of(&p, "click", "frame-button").await.len(), 1);
        // Nothing else was clicked.
        let mut t = clicked_targets(&p).await;
        t.sort();
        t.dedup();
        assert_eq!(t, vec!["click-btn", "frame-button", "shadow-button"]);
    });
}

#[test]
fn a_second_click_on_the_resting_pointer_sends_no_move_but_clicks() {
    run(async {
        let p = actions_page().await;
        js(&p, "window.__moves = 0; document.getElementById('click-btn').addEventListener('mousemove', () => window.__moves++); true").await;
        ok(&p, "click @click-btn").await;
        assert_eq!(
            js(&p, "window.__moves").await,
            1,
            "the first click moves there"
        );
        ok(&p, "click @click-btn").await;
        assert_eq!(
            js(&p, "window.__moves").await,
            1,
            "the pointer already rests there"
        );
        assert_eq!(of(&p, "click", "click-btn").await.len(), 2);
        assert_eq!(of(&p, "mousedown", "click-btn").await.len(), 2);
        assert_eq!(
            js(&p, "document.getElementById('click-btn').matches(':hover')").await,
            true
        );
        // Elsewhere and back: the pointer moves again.
        ok(&p, "hover css=#hover-target").await;
        ok(&p, "click @click-btn").await;
        assert_eq!(js(&p, "window.__moves").await, 2);
        assert_eq!(of(&p, "click", "click-btn").await.len(), 3);
    });
}

#[test]
fn dblclick_rightclick_modifiers_position_hover() {
    run(async {
        let p = actions_page().await;
        ok(&p, "dblclick css=#dblclick-target").await;
        assert_eq!(
            js(&p, "document.getElementById('dblclick-target').textContent").await,
            "double-clicked"
        );
        let d = of(&p, "dblclick", "dblclick-target").await;
        assert_eq!(d.len(), 1);
        assert_eq!(d[0]["detail"]["clickCount"], 2);

        ok(&p, "rightclick text=\"Right-click me\"").await;
        assert_eq!(
            js(&p, "document.getElementById('context-target').textContent").await,
            "context menu"
        );
        assert_eq!(
            of(&p, "contextmenu", "context-target").await[0]["detail"]["button"],
            2
        );

        // Modifiers and an offset from the element's top-left corner.
        let spec = TargetSpec::from(Target::Css("#click-btn".into()));
        let action = pinpoint::act::Action::Click(pinpoint::act::ClickOptions {
            click_count: 1,
            modifiers: pinpoint::browser::keys::SHIFT | pinpoint::browser::keys::CONTROL,
            position: Some((3.0, 4.0)),
            ..Default::default()
        });
        let r = session()
            .await
            .act(&p, Some(&spec), &action, &ActOptions::default())
            .await
            .unwrap();
        let rect = js(&p, "(() => { const r = document.getElementById('click-btn').getBoundingClientRect(); return [r.left, r.top]; })()").await;
        let c = of(&p, "click", "click-btn").await;
        assert_eq!(c[0]["detail"]["modifiers"], json!(["Control", "Shift"]));
        let (x0, y0) = (rect[0].as_f64().unwrap(), rect[1].as_f64().unwrap());
        assert_eq!(c[0]["detail"]["x"].as_f64().unwrap(), (x0 + 3.0).round());
        assert_eq!(c[0]["detail"]["y"].as_f64().unwrap(), (y0 + 4.0).round());
        assert_eq!(r.point, Some((x0 + 3.0, y0 + 4.0)));

        ok(&p, "hover css=#hover-target").await;
        assert_eq!(
            js(&p, "document.getElementById('hover-target').textContent").await,
            "hovered"
        );
        assert_eq!(of(&p, "mouseenter", "hover-target").await.len(), 1);

        // A click at explicit coordinates.
        let pt = js(&p, "(() => { const r = document.getElementById('click-btn').getBoundingClientRect(); return [r.left + 5, r.top + 5]; })()").await;
        ok(&p, &format!("click {},{}", pt[0], pt[1])).await;
        assert_eq!(
            js(&p, "document.getElementById('click-count').textContent").await,
            "2"
        );
    });
}

#[test]
fn fill_and_clear_everywhere() {
    run(async {
        let p = actions_page().await;
        ok(&p, "fill @text-input \"hello world\"").await;
        assert_eq!(
            js(&p, "document.getElementById('text-value').textContent").await,
            "hello world"
        );
        assert!(!of(&p, "input", "text-input").await.is_empty());
        let ch = of(&p, "change", "text-input").await;
        assert_eq!(ch.last().unwrap()["detail"]["value"], "hello world");
        // Fill replaces.
        ok(&p, "fill @text-input second").await;
        assert_eq!(
            js(&p, "document.getElementById('text-input').value").await,
            "second"
        );
        ok(&p, "fill label=Textarea \"two\nlines\"").await;
        assert_eq!(
            js(&p, "document.getElementById('textarea').value").await,
            "two\nlines"
        );
        ok(&p, "fill label=Editable \"rich text\"").await;
        assert_eq!(
            js(&p, "document.getElementById('editable').textContent").await,
            "rich text"
        );
        assert!(!of(&p, "input", "editable").await.is_empty());
        ok(&p, "fill label=\"Shadow input\" shadowed").await;
        assert_eq!(
            js(
                &p,
                &format!("{SHADOW}.getElementById('shadow-input').value")
            )
            .await,
            "shadowed"
        );
        assert!(!of(&p, "change", "shadow-input").await.is_empty());
        ok(&p, "fill label=\"Frame input\" framed").await;
        assert_eq!(
            js(&p, &format!("{FRAME}.getElementById('frame-input').value")).await,
            "framed"
        );
        assert!(!of(&p, "input", "frame-input").await.is_empty());

        ok(&p, "clear @text-input").await;
        assert_eq!(
            js(&p, "document.getElementById('text-input').value").await,
            ""
        );
        ok(&p, "clear css=#editable").await;
        assert_eq!(
            js(&p, "document.getElementById('editable').textContent").await,
            ""
        );

        // A button is not editable: a clear error, no events on it.
        js(&p, "window.__events = []; 0").await;
        let e = step(&p, "fill @click-btn nope").await.unwrap_err();
        assert_eq!(e.code(), "action_failed");
        assert!(e.to_string().contains("not editable"), "{e}");
        assert!(events(&p).await.is_empty());
    });
}

#[test]
fn type_and_press() {
    run(async {
        let p = actions_page().await;
        ok(&p, "type @key-input \"aB1 !\"").await;
        assert_eq!(
            js(&p, "document.getElementById('key-input').value").await,
            "aB1 !"
        );
        let keys: Vec<Value> = of(&p, "keydown", "key-input")
            .await
            .iter()
            .map(|e| e["detail"]["key"].clone())
            .collect();
        assert_eq!(
            keys,
            vec![
                json!("a"),
                json!("Shift"),
                json!("B"),
                json!("1"),
                json!(" "),
                json!("Shift"),
                json!("!")
            ]
        );

        // Delay between keys.
        let t = Instant::now();
        let st = parse_step("type @text-input abc").unwrap();
        let slow = pinpoint::act::Action::Type {
            text: "abc".into(),
            delay_ms: 40,
        };
        session()
            .await
            .act(&p, st.target.as_ref(), &slow, &ActOptions::default())
            .await
            .unwrap();
        assert!(t.elapsed() >= Duration::from_millis(120));
        assert_eq!(
            js(&p, "document.getElementById('text-input').value").await,
            "abc"
        );

        ok(&p, "press @key-input Control+A").await;
        assert_eq!(
            js(&p, "document.getElementById('key-log').textContent").await,
            "Control+a"
        );
        // Control+A selected everything: Backspace empties the field.
        ok(&p, "press @key-input Backspace").await;
        assert_eq!(
            js(&p, "document.getElementById('key-input').value").await,
            ""
        );
        ok(&p, "press @key-input ArrowDown").await;
        assert_eq!(
            js(&p, "document.getElementById('key-log').textContent").await,
            "ArrowDown"
        );
        // (F5 would reload the page: headless Chromium treats it as reload.)
        ok(&p, "press @key-input F2").await;
        assert_eq!(
            js(&p, "document.getElementById('key-log').textContent").await,
            "F2"
        );
        ok(&p, "press @key-input Enter").await;
        assert_eq!(
            js(&p, "document.getElementById('key-log').textContent").await,
            "Enter"
        );
        ok(&p, "press @key-input Shift+Tab").await;
        assert_eq!(
            js(&p, "document.getElementById('key-log').textContent").await,
            "Shift+Tab"
        );
        // Shift+Tab moved focus backwards, to the contenteditable.
        assert_eq!(js(&p, "document.activeElement.id").await, "editable");
        // Page-level press goes to the focused element.
        ok(&p, "press x").await;
        assert_eq!(
            js(&p, "document.getElementById('editable').textContent").await,
            "x"
        );

        let e = step(&p, "press @key-input Entr").await;
        let e = match e {
            Err(e) => e,
            Ok(_) => panic!("unknown key accepted"),
        };
        assert_eq!(e.code(), "invalid_input");
        assert!(e.to_string().contains("ArrowDown"), "lists examples: {e}");
    });
}

#[test]
fn select_everywhere() {
    run(async {
        let p = actions_page().await;
        let r = ok(&p, "select label=Fruit banana").await;
        assert_eq!(r.detail["values"], json!(["banana"]));
        assert_eq!(
            js(&p, "document.getElementById('select-single').value").await,
            "banana"
        );
        let ch = of(&p, "change", "select-single").await;
        assert_eq!(ch.last().unwrap()["detail"]["values"], json!(["banana"]));
        ok(&p, "select label=Fruit label=Cherry").await;
        assert_eq!(
            js(&p, "document.getElementById('select-single').value").await,
            "cherry"
        );
        ok(&p, "select label=Fruit index=1").await;
        assert_eq!(
            js(&p, "document.getElementById('select-single').value").await,
            "apple"
        );
        ok(&p, "select label=Colors red blue").await;
        assert_eq!(
            js(&p, "Array.from(document.getElementById('select-multi').selectedOptions).map(o => o.value)").await,
            json!(["red", "blue"])
        );
        ok(&p, "select css=#shadow-select Beta").await;
        assert_eq!(
            js(
                &p,
                &format!("{SHADOW}.getElementById('shadow-select').value")
            )
            .await,
            "b"
        );
        ok(&p, "select label=\"Frame select\" c").await;
        assert_eq!(
            js(&p, &format!("{FRAME}.getElementById('frame-select').value")).await,
            "c"
        );

        let e = step(&p, "select label=Fruit mango").await.unwrap_err();
        assert_eq!(e.code(), "action_failed");
        assert!(
            e.to_string().contains("mango") && e.to_string().contains("apple"),
            "{e}"
        );
        assert_eq!(
            js(&p, "document.getElementById('select-single').value").await,
            "apple"
        );
        let e = step(&p, "select label=Fruit apple banana")
            .await
            .unwrap_err();
        assert_eq!(e.code(), "action_failed");
    });
}

#[test]
fn check_uncheck_everywhere() {
    run(async {
        let p = actions_page().await;
        ok(&p, "check @checkbox").await;
        assert_eq!(
            js(&p, "document.getElementById('checkbox').checked").await,
            true
        );
        // Already checked: no second click.
        ok(&p, "check @checkbox").await;
        assert_eq!(of(&p, "click", "checkbox").await.len(), 1);
        ok(&p, "uncheck @checkbox").await;
        assert_eq!(
            js(&p, "document.getElementById('checkbox').checked").await,
            false
        );
        // A label stands for its control.
        ok(&p, "uncheck text=Subscribe").await;
        assert_eq!(
            js(&p, "document.getElementById('checkbox').checked").await,
            false
        );
        ok(&p, "check text=Subscribe").await;
        assert_eq!(
            js(&p, "document.getElementById('checkbox').checked").await,
            true
        );
        ok(&p, "uncheck @checkbox").await;
        ok(&p, "check css=#radio-l").await;
        assert_eq!(
            js(&p, "document.getElementById('radio-m').checked").await,
            false
        );
        let e = step(&p, "uncheck css=#radio-l").await.unwrap_err();
        assert_eq!(e.code(), "action_failed");
        ok(&p, "check css=#shadow-checkbox").await;
        assert_eq!(
            js(
                &p,
                &format!("{SHADOW}.getElementById('shadow-checkbox').checked")
            )
            .await,
            true
        );
        ok(&p, "check label=\"Frame checkbox\"").await;
        assert_eq!(
            js(
                &p,
                &format!("{FRAME}.getElementById('frame-checkbox').checked")
            )
            .await,
            true
        );
        assert!(!of(&p, "change", "frame-checkbox").await.is_empty());

        // A script that undoes the change: the check is verified, not assumed.
        js(&p, "document.getElementById('checkbox').addEventListener('click', e => e.preventDefault()); 0").await;
        let e = step(&p, "check @checkbox").await.unwrap_err();
        assert_eq!(e.code(), "action_failed");
        assert!(e.to_string().contains("checked state"), "{e}");
        let e = step(&p, "check @click-btn").await.unwrap_err();
        assert_eq!(e.code(), "action_failed");
    });
}

#[test]
fn scroll_page_element_and_to() {
    run(async {
        let p = actions_page().await;
        let r = ok(&p, "scroll down 500").await;
        assert_eq!(r.detail["after"][1], 500.0, "{r:?}");
        assert_eq!(js(&p, "Math.round(window.scrollY)").await, 500);
        ok(&p, "scroll page up 500").await;
        assert_eq!(js(&p, "Math.round(window.scrollY)").await, 0);
        ok(&p, "scroll css=#scroll-box 0,200").await;
        assert_eq!(
            js(
                &p,
                "Math.round(document.getElementById('scroll-box').scrollTop)"
            )
            .await,
            200
        );
        ok(&p, "scroll to @bottom-button").await;
        let in_view = js(&p, "(() => { const r = document.getElementById('bottom-button').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()").await;
        assert_eq!(in_view, true);
        // Clicking something out of view scrolls it in first.
        ok(&p, "click css=#scroll-inner-btn").await;
        assert_eq!(of(&p, "click", "scroll-inner-btn").await.len(), 1);
    });
}

#[test]
fn upload_files() {
    run(async {
        let p = actions_page().await;
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let b = dir.path().join("b.png");
        std::fs::write(&a, "hello").unwrap();
        std::fs::write(&b, [0u8; 4]).unwrap();
        let r = ok(
            &p,
            &format!("upload label=Upload {} {}", a.display(), b.display()),
        )
        .await;
        assert_eq!(r.detail["files"], json!(["a.txt", "b.png"]));
        assert_eq!(
            js(&p, "document.getElementById('file-names').textContent").await,
            "a.txt, b.png"
        );
        assert_eq!(
            of(&p, "change", "file-input").await[0]["detail"]["files"],
            json!(["a.txt", "b.png"])
        );

        let e = step(&p, "upload label=Upload /nonexistent/file.txt")
            .await
            .unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        assert!(matches!(&e, Error::InvalidInput { field: Some(f), .. } if f == "files"));
        let e = step(&p, &format!("upload @click-btn {}", a.display()))
            .await
            .unwrap_err();
        assert_eq!(e.code(), "action_failed");
    });
}

#[test]
fn drag_html5_and_mouse() {
    run(async {
        let p = actions_page().await;
        ok(&p, "drag css=#mouse-source css=#mouse-target").await;
        assert_eq!(
            js(&p, "document.getElementById('drop-status').textContent").await,
            "dropped (mouse) on mouse-target"
        );
        let drops: Vec<Value> = events(&p)
            .await
            .into_iter()
            .filter(|e| e["type"] == "mousedrop")
            .collect();
        assert_eq!(drops.len(), 1);
        assert!(
            drops[0]["detail"]["moves"].as_i64().unwrap() >= 5,
            "{drops:?}"
        );

        ok(&p, "drag css=#drag-source css=#drop-target").await;
        assert_eq!(
            js(&p, "document.getElementById('drop-status').textContent").await,
            "dropped (html5)"
        );
        assert!(!of(&p, "drop", "drop-target").await.is_empty());
    });
}

#[test]
fn stale_ref_after_removal() {
    run(async {
        let p = actions_page().await;
        js(&p, "removeTarget(); 0").await;
        let e = step(&p, "click @remove-target").await.unwrap_err();
        assert!(
            matches!(e, Error::ElementNotFound { stale: true, .. }),
            "{e:?}"
        );
        assert_eq!(e.code(), "stale_ref");
        assert_eq!(e.rpc_code(), -32012);
        assert!(e.retryable());
        assert!(e.hint().unwrap().contains("observe"));
        assert!(clicked_targets(&p).await.is_empty());
        // An unknown ref is not stale.
        let e = step(&p, "click @no-such-ref").await.unwrap_err();
        assert!(matches!(e, Error::ElementNotFound { stale: false, .. }));
    });
}

#[test]
fn ref_refound_by_identity_but_not_by_lookalike() {
    run(async {
        let p = actions_page().await;
        // Same element re-created (framework re-mount): same identity, new node.
        js(&p, "(() => { const b = document.getElementById('click-btn'); b.replaceWith(b.cloneNode(true)); return 0; })()").await;
        ok(&p, "click @click-btn").await;
        assert_eq!(of(&p, "click", "click-btn").await.len(), 1);
        // A different element in its place (other name): a fuzzy look-alike
        // is refused.
        js(&p, "window.__events = []; (() => { const b = document.getElementById('click-btn'); const n = document.createElement('button'); n.id = 'click-btn'; n.textContent = 'Click me later'; b.replaceWith(n); return 0; })()").await;
        let e = step(&p, "click @click-btn").await.unwrap_err();
        assert_eq!(e.code(), "stale_ref", "{e}");
        assert!(clicked_targets(&p).await.is_empty());
    });
}

#[test]
fn covered_by_modal_and_cover() {
    run(async {
        let p = actions_page().await;
        let e = step_with(&p, "click @covered-btn", quick())
            .await
            .unwrap_err();
        match &e {
            Error::ElementCovered { covered_by, .. } => assert_eq!(covered_by, "div#cover"),
            other => panic!("{other:?}"),
        }
        assert_eq!(e.rpc_code(), -32013);
        assert!(e.retryable());
        assert!(e.hint().unwrap().contains("div#cover"));
        assert!(clicked_targets(&p).await.is_empty());
        // trial: true runs the checks only.
        let trial = ActOptions {
            trial: true,
            ..quick()
        };
        let e = step_with(&p, "click @covered-btn", trial)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "element_covered");
        let r = step_with(&p, "click @click-btn", trial).await.unwrap();
        assert_eq!(r.detail["trial"], true);
        let r = step_with(&p, "fill @text-input nope", trial).await.unwrap();
        assert_eq!(r.detail["trial"], true);
        assert_eq!(
            js(&p, "document.getElementById('text-input').value").await,
            ""
        );
        assert!(clicked_targets(&p).await.is_empty());
        // force: true skips the checks (the click lands on the cover).
        let forced = ActOptions {
            force: true,
            ..quick()
        };
        step_with(&p, "click @covered-btn", forced).await.unwrap();

        let m = open("modal.html").await;
        observe(&m).await;
        let e = step_with(&m, "click css=#page-save", quick())
            .await
            .unwrap_err();
        match &e {
            Error::ElementCovered { covered_by, .. } => {
                assert!(
                    covered_by.contains("backdrop") || covered_by.contains("dialog"),
                    "{covered_by}"
                )
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            js(&m, "document.getElementById('page-save').textContent").await,
            "Save draft"
        );
        // Inside the modal works, and then the page is reachable.
        ok(&m, "click role=button[name=\"Confirm\"]").await;
        assert_eq!(
            js(&m, "document.getElementById('result').textContent").await,
            "Confirmed"
        );
        ok(&m, "click css=#page-save").await;
        assert_eq!(
            js(&m, "document.getElementById('page-save').textContent").await,
            "Saved"
        );
    });
}

#[test]
fn disabled_button() {
    run(async {
        let p = actions_page().await;
        let t = Instant::now();
        let e = step_with(&p, "click @disabled-btn", quick())
            .await
            .unwrap_err();
        assert!(
            t.elapsed() >= Duration::from_millis(300),
            "retried until the timeout"
        );
        assert!(matches!(e, Error::ElementNotEnabled { .. }), "{e:?}");
        assert_eq!(e.rpc_code(), -32014);
        assert!(e.retryable());
        assert!(e.hint().is_some());
        assert!(clicked_targets(&p).await.is_empty());
        // Enabled while we wait: the click goes through.
        js(
            &p,
            "setTimeout(() => document.getElementById('disabled-btn').disabled = false, 150); 0",
        )
        .await;
        ok(&p, "click @disabled-btn").await;
        assert_eq!(of(&p, "click", "disabled-btn").await.len(), 1);
    });
}

#[test]
fn moving_element_waits_or_fails_never_misclicks() {
    run(async {
        let p = actions_page().await;
        // Short timeout while moving: ElementNotStable.
        js(&p, "startMove(); 0").await;
        let e = step_with(&p, "click @moving-btn", quick())
            .await
            .unwrap_err();
        assert!(matches!(e, Error::ElementNotStable { .. }), "{e:?}");
        assert_eq!(e.rpc_code(), -32021);
        assert!(e.retryable());
        assert!(clicked_targets(&p).await.is_empty());
        // Default timeout: waits for the animation to end and clicks the button.
        js(&p, "startMove(); 0").await;
        let t = Instant::now();
        ok(&p, "click @moving-btn").await;
        assert!(
            t.elapsed() >= Duration::from_millis(500),
            "waited: {:?}",
            t.elapsed()
        );
        assert_eq!(clicked_targets(&p).await, vec!["moving-btn", "moving-btn"]);
    });
}

#[test]
fn detached_node() {
    run(async {
        let p = actions_page().await;
        let s = session().await;
        let spec = TargetSpec::from(Target::Css("#remove-target".into()));
        let el = s.resolve(&p, &spec).await.unwrap();
        js(&p, "removeTarget(); 0").await;
        let action = parse_step("click css=x").unwrap().action;
        let e = pinpoint::act::perform(&p.page, &el, &action, None, &ActOptions::default())
            .await
            .unwrap_err();
        assert!(
            matches!(e, Error::ElementNotFound { stale: false, .. }),
            "{e:?}"
        );
        assert_eq!(e.rpc_code(), -32012);
        assert!(e.retryable());
        let t = Instant::now();
        let e = step_with(&p, "click css=#remove-target", quick())
            .await
            .unwrap_err();
        assert!(
            t.elapsed() >= Duration::from_millis(300),
            "selectors wait for a match"
        );
        assert_eq!(e.code(), "element_not_found");
        assert!(clicked_targets(&p).await.is_empty());
    });
}

#[test]
fn selector_waits_for_late_element() {
    run(async {
        let p = actions_page().await;
        js(&p, "setTimeout(() => { const b = document.createElement('button'); b.id = 'late'; b.textContent = 'Late'; document.body.prepend(b); }, 300); 0").await;
        ok(&p, "click css=#late").await;
        assert_eq!(of(&p, "click", "late").await.len(), 1);
    });
}

#[test]
fn ambiguous_selector_and_index() {
    run(async {
        let p = actions_page().await;
        let e = step(&p, "click css=button").await.unwrap_err();
        match &e {
            Error::SelectorAmbiguous {
                count, candidates, ..
            } => {
                assert!(*count >= 8, "{count}");
                assert!(
                    candidates.iter().any(|c| c.contains("button#click-btn")),
                    "{candidates:?}"
                );
                assert!(
                    candidates.iter().any(|c| c.contains("shadow-button")),
                    "pierces shadow: {candidates:?}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(e.rpc_code(), -32020);
        assert!(!e.retryable());
        assert!(e.hint().unwrap().contains("index"));
        let e = step(&p, "click role=button").await.unwrap_err();
        assert_eq!(e.code(), "selector_ambiguous");
        assert!(clicked_targets(&p).await.is_empty());
        ok(&p, "click css=button >> nth=0").await;
        assert_eq!(clicked_targets(&p).await, vec!["click-btn", "click-btn"]);
        // Other selector kinds.
        ok(&p, "click xpath=//button[@id='click-btn']").await;
        ok(&p, "click text=\"Click me\"").await;
        assert_eq!(
            js(&p, "document.getElementById('click-count').textContent").await,
            "3"
        );
        // Text search ignores <script> content and returns innermost elements.
        match step(&p, "click text=Shadow").await.unwrap_err() {
            Error::SelectorAmbiguous { candidates, .. } => {
                assert_eq!(candidates.len(), 4, "{candidates:?}");
                assert!(
                    candidates[0].starts_with("button#shadow-button"),
                    "{candidates:?}"
                );
            }
            other => panic!("{other:?}"),
        }
        let e = step(&p, "click css=##bad").await.unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        let e = step_with(&p, "click testid=nothing-here", quick())
            .await
            .unwrap_err();
        assert_eq!(e.code(), "element_not_found");
    });
}

#[test]
#[ignore]
fn probe_timing() {
    run(async {
        let p = open("actions.html").await;
        observe(&p).await;
        for _ in 0..3 {
            let t = Instant::now();
            let v = js(
                &p,
                "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))",
            )
            .await;
            println!("2 raf: {:?} {v}", t.elapsed());
        }
        for s in [
            "click @click-btn",
            "fill @text-input \"abc\"",
            "fill @text-input \"abcd\"",
        ] {
            let t = Instant::now();
            step(&p, s).await.unwrap();
            println!("{s}: {:?}", t.elapsed());
        }
        for _ in 0..3 {
            for kind in ["move", "down", "up"] {
                let t = Instant::now();
                p.page
                    .mouse(kind, 30.0, 30.0, pinpoint::browser::MouseButton::Left, 1, 0)
                    .await
                    .unwrap();
                println!("mouse {kind}: {:?}", t.elapsed());
            }
            let t = Instant::now();
            let _ = pinpoint::act::call(&p.page, "scrollState", &serde_json::json!({}))
                .await
                .unwrap();
            println!("call: {:?}", t.elapsed());
            let t = Instant::now();
            step(&p, "click @click-btn").await.unwrap();
            println!("click: {:?}", t.elapsed());
        }
        let t = Instant::now();
        p.page.insert_text("x").await.unwrap();
        println!("insert: {:?}", t.elapsed());
    });
}

#[test]
#[ignore]
fn probe_raf_external() {
    run(async {
        let s = pinpoint::app::Session::new(
            pinpoint::browser::LaunchOptions {
                cdp: Some(
                    "ws://127.0.0.1:9333/devtools/browser/8a80f3c0-ba7e-47b8-8a19-9e179dbafedc"
                        .into(),
                ),
                ..Default::default()
            },
            pinpoint::browser::Viewport::default(),
        );
        let p = s.new_page(None).await.unwrap();
        s.navigate(
            &p,
            &url("actions.html").await,
            pinpoint::browser::LoadState::Load,
            Duration::from_secs(10),
        )
        .await
        .unwrap();
        for _ in 0..5 {
            let t = Instant::now();
            let v = p.page.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))").await.unwrap();
            println!("2 raf: {:?} {v}", t.elapsed());
        }
    });
}

#[test]
#[ignore]
fn probe_click_breakdown() {
    run(async {
        let p = actions_page().await;
        let s = session().await;
        let spec = pinpoint::act::parse_target("@click-btn").unwrap();
        let el = s.resolve(&p, &spec).await.unwrap();
        let (mut resolve, mut check, mut input, mut full, mut eval) =
            (vec![], vec![], vec![], vec![], vec![]);
        let arg = json!({"key": el.key, "doc": el.doc, "visible": true, "enabled": true, "stable": true, "hit": true});
        for _ in 0..40 {
            let t = Instant::now();
            s.resolve(&p, &spec).await.unwrap();
            resolve.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            p.page.eval("1").await.unwrap();
            eval.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let v = pinpoint::act::call(&p.page, "check", &arg).await.unwrap();
            check.push(t.elapsed().as_secs_f64() * 1e3);
            let (x, y) = (v["x"].as_f64().unwrap(), v["y"].as_f64().unwrap());
            let t = Instant::now();
            futures::future::try_join_all(vec![
                p.page
                    .mouse("move", x, y, pinpoint::browser::MouseButton::Left, 0, 0),
                p.page
                    .mouse("down", x, y, pinpoint::browser::MouseButton::Left, 1, 0),
                p.page
                    .mouse("up", x, y, pinpoint::browser::MouseButton::Left, 1, 0),
            ])
            .await
            .unwrap();
            input.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            step(&p, "click @click-btn").await.unwrap();
            full.push(t.elapsed().as_secs_f64() * 1e3);
        }
        println!(
            "median ms: resolve {:.2} eval(1) {:.2} check {:.2} input {:.2} full {:.2}",
            median(resolve),
            median(eval),
            median(check),
            median(input),
            median(full)
        );
    });
}

#[test]
fn pointer_and_keyboard_in_shadow_and_frame() {
    run(async {
        let p = actions_page().await;
        ok(&p, "hover css=#frame-button").await;
        assert_eq!(of(&p, "mouseenter", "frame-button").await.len(), 1);
        ok(&p, "dblclick css=#shadow-button").await;
        assert_eq!(of(&p, "dblclick", "shadow-button").await.len(), 1);
        ok(&p, "type css=#shadow-input \"Hi!\"").await;
        assert_eq!(
            js(
                &p,
                &format!("{SHADOW}.getElementById('shadow-input').value")
            )
            .await,
            "Hi!"
        );
        ok(&p, "type label=\"Frame input\" xyz").await;
        ok(&p, "press label=\"Frame input\" Backspace").await;
        assert_eq!(
            js(&p, &format!("{FRAME}.getElementById('frame-input').value")).await,
            "xy"
        );
        let keys: Vec<Value> = of(&p, "keydown", "frame-input")
            .await
            .iter()
            .map(|e| e["detail"]["key"].clone())
            .collect();
        assert_eq!(
            keys,
            vec![json!("x"), json!("y"), json!("z"), json!("Backspace")]
        );
        // Scroll the page so that the iframe moves: the frame offset follows.
        ok(&p, "scroll down 40").await;
        ok(&p, "click css=#frame-button").await;
        assert_eq!(
            js(
                &p,
                &format!("{FRAME}.getElementById('frame-click-count').textContent")
            )
            .await,
            "1"
        );
        ok(&p, "drag css=#shadow-button css=#mouse-target").await;
        assert!(!of(&p, "mousedown", "shadow-button").await.is_empty());
    });
}

#[test]
#[ignore]
fn probe_background_tab() {
    run(async {
        let a = open("actions.html").await;
        let b = open("actions.html").await;
        for p in [&a, &b] {
            let t = Instant::now();
            let v = tokio::time::timeout(Duration::from_secs(2), p.page.eval("new Promise(r => requestAnimationFrame(() => r(document.visibilityState + ' ' + document.hasFocus())))")).await;
            println!("{:?} {:?}", v, t.elapsed());
        }
    });
}

#[test]
#[ignore]
fn probe_moving() {
    run(async {
        let p = actions_page().await;
        let s = session().await;
        let el = s
            .resolve(&p, &pinpoint::act::parse_target("@moving-btn").unwrap())
            .await
            .unwrap();
        let arg = json!({"key": el.key, "doc": el.doc, "visible": true, "enabled": true, "stable": true, "hit": true});
        for round in 0..2 {
            js(&p, "startMove(); 0").await;
            let t = Instant::now();
            for _ in 0..8 {
                let st = js(&p, "document.getAnimations().map(a => [a.playState, a.pending, a.currentTime, a.startTime]).concat([document.getElementById('moving-btn').getBoundingClientRect().left])").await;
                let v = pinpoint::act::call(&p.page, "check", &arg).await.unwrap();
                println!("{round} {:?} {} {}", t.elapsed(), st, v["status"]);
            }
            tokio::time::sleep(Duration::from_millis(1200)).await;
        }
    });
}

/// Where click-by-ref time goes: an eval round trip, move+down+up pipelined
/// (with each acknowledgement's arrival time), down+up alone, a page change
/// followed by a 1-px move + down + up, and `Session::act` itself.
#[test]
#[ignore]
fn profile_click() {
    use pinpoint::app::MouseButton::Left;
    run(async {
        let s = session().await;
        let p = open("actions.html").await;
        s.observe(&p, &pinpoint::app::ObserveOptions::default())
            .await
            .unwrap();
        let pg = &p.page;
        let mut rows: Vec<[f64; 5]> = Vec::new();
        let c = pg.eval("(() => { const r = document.getElementById('click-btn').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()").await.unwrap();
        let (x, y) = (c[0].as_f64().unwrap(), c[1].as_f64().unwrap());
        for i in 0..40 {
            let t = std::time::Instant::now();
            pg.eval("1").await.unwrap();
            let a = t.elapsed().as_secs_f64() * 1e3;
            let xx = x;
            let t = std::time::Instant::now();
            let t0 = t;
            let m = async {
                pg.mouse("move", xx, y, Left, 0, 0).await.unwrap();
                t0.elapsed().as_secs_f64() * 1e3
            };
            let d = async {
                pg.mouse("down", xx, y, Left, 1, 0).await.unwrap();
                t0.elapsed().as_secs_f64() * 1e3
            };
            let u = async {
                pg.mouse("up", xx, y, Left, 1, 0).await.unwrap();
                t0.elapsed().as_secs_f64() * 1e3
            };
            let r = futures::join!(m, d, u);
            let r = [r.0, r.1, r.2];
            if i % 5 == 0 {
                println!("acks move {:.1} down {:.1} up {:.1}", r[0], r[1], r[2]);
            }
            let b = t.elapsed().as_secs_f64() * 1e3;
            let t = std::time::Instant::now();
            futures::future::try_join_all(vec![
                pg.mouse("down", xx, y, Left, 1, 0),
                pg.mouse("up", xx, y, Left, 1, 0),
            ])
            .await
            .unwrap();
            let c = t.elapsed().as_secs_f64() * 1e3;
            let t = std::time::Instant::now();
            pg.eval("document.body.dataset.x = Math.random()")
                .await
                .unwrap();
            futures::future::try_join_all(vec![
                pg.mouse("move", xx + 1.0, y, Left, 0, 0),
                pg.mouse("down", xx, y, Left, 1, 0),
                pg.mouse("up", xx, y, Left, 1, 0),
            ])
            .await
            .unwrap();
            let d = t.elapsed().as_secs_f64() * 1e3;
            let spec = pinpoint::act::parse_target("@click-btn").unwrap();
            let click = pinpoint::act::Action::Click(pinpoint::act::ClickOptions {
                click_count: 1,
                ..Default::default()
            });
            let t = std::time::Instant::now();
            s.act(&p, Some(&spec), &click, &Default::default())
                .await
                .unwrap();
            let e = t.elapsed().as_secs_f64() * 1e3;
            rows.push([a, b, c, d, e]);
        }
        for i in 0..5 {
            let mut v: Vec<f64> = rows.iter().map(|r| r[i]).collect();
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            println!(
                "{} median {:.2} min {:.2} p90 {:.2}",
                [
                    "eval",
                    "move+down+up",
                    "down+up",
                    "mutate+move+down+up",
                    "act"
                ][i],
                v[v.len() / 2],
                v[0],
                v[v.len() * 9 / 10]
            );
        }
    });
}
