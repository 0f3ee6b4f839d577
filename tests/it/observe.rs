//! Discovery and refs on real Chromium, for every fixture.
use crate::harness::*;
use pinpoint::app::PageState;
use pinpoint::model::{Element, Observation};
use pinpoint::refs::Lookup;
use std::collections::{HashMap, HashSet};

/// Every top-level fixture page.
pub const FIXTURES: &[&str] = &[
    "demo.html",
    "forms.html",
    "nav.html",
    "shadow.html",
    "iframe.html",
    "modal.html",
    "hidden.html",
    "shop.html",
    "spa.html",
    "sidebar.html",
    "actions.html",
    "regions.html",
];

async fn key_of(p: &PageState, r: &str) -> u64 {
    let st = p.refs.lock().await;
    match st.registry.lookup(r) {
        Lookup::Live(e) => e.key.expect("live key"),
        other => panic!("{r} not live: {other:?}"),
    }
}

fn node_expr(key: u64) -> String {
    format!("window[Symbol.for('pinpoint.state')].byKey.get({key}).deref()")
}

fn by_id<'a>(o: &'a Observation, id: &str) -> Option<&'a Element> {
    o.elements.iter().find(|e| e.id.as_deref() == Some(id))
}

/// Role and name of every element of every fixture agree with Chromium's accessibility tree.
#[test]
fn role_and_name_agree_with_chromium_accessibility_tree() {
    run(async {
        let mut mismatches = Vec::new();
        let mut checked = 0;
        for f in FIXTURES {
            let p = open(f).await;
            let o = observe(&p).await;
            let ax = p.page.ax_tree().await.expect("ax tree");
            let ax: HashMap<i64, _> = ax
                .iter()
                .filter_map(|n| n.backend_node_id.map(|b| (b, n)))
                .collect();
            for e in &o.elements {
                let key = key_of(&p, &e.ref_).await;
                let backend = p
                    .page
                    .backend_node_id(&node_expr(key))
                    .await
                    .expect("backend id");
                let Some(n) = ax.get(&backend) else {
                    mismatches.push(format!(
                        "{f}: {} ({} {:?}) has no AX node",
                        e.ref_, e.role, e.name
                    ));
                    continue;
                };
                checked += 1;
                if n.role != e.role || n.name.trim() != e.name {
                    mismatches.push(format!(
                        "{f}: {} ours role={} name={:?} | chromium role={} name={:?}",
                        e.ref_, e.role, e.name, n.role, n.name
                    ));
                }
            }
            session().await.close_page(&p.id).await.ok();
        }
        assert!(checked > 150, "only {checked} elements checked");
        assert!(
            mismatches.is_empty(),
            "{} mismatches of {checked}:\n{}",
            mismatches.len(),
            mismatches.join("\n")
        );
    });
}

#[test]
fn visibility_matches_fixture_expectations() {
    run(async {
        let p = open("hidden.html").await;
        let o = observe(&p).await;
        let expect: HashMap<String, String> = serde_json::from_value(
            js(&p, "Object.fromEntries([...document.querySelectorAll('[data-expect]')].map(e => [e.id, e.dataset.expect]))").await,
        )
        .unwrap();
        assert!(expect.len() >= 20);
        for (id, want) in &expect {
            let e = by_id(&o, id);
            match want.as_str() {
                "visible" => {
                    let e = e.unwrap_or_else(|| panic!("{id} not found"));
                    assert!(e.visible && e.in_viewport && !e.occluded, "{id}: {e:?}");
                }
                "hidden" => assert!(
                    e.is_none() || !e.unwrap().visible,
                    "{id} should be hidden: {e:?}"
                ),
                "offscreen" => assert!(
                    e.is_none() || !e.unwrap().in_viewport,
                    "{id} should be off-screen"
                ),
                "below-fold" => {
                    let e = e.unwrap_or_else(|| panic!("{id} not found"));
                    assert!(!e.in_viewport && e.bounds.y >= 720.0, "{id}: {e:?}");
                }
                other => panic!("unknown expectation {other}"),
            }
        }
    });
}

#[test]
fn shadow_dom_and_iframe_elements_have_page_coordinates() {
    run(async {
        let p = open("shadow.html").await;
        let o = observe(&p).await;
        let shadow: Vec<_> = o.elements.iter().filter(|e| e.shadow).collect();
        assert!(
            shadow.len() >= 3,
            "open shadow roots (nested too) are walked: {shadow:?}"
        );
        assert!(
            shadow.iter().any(|e| e.role == "link"),
            "nested shadow root link found"
        );

        let p = open("iframe.html").await;
        let o = observe(&p).await;
        let inner: Vec<_> = o.elements.iter().filter(|e| e.frame != "main").collect();
        assert!(
            inner.len() >= 3,
            "same-origin iframe walked: {:?}",
            o.elements
        );
        // Compare with the frame's own geometry, computed independently in the page.
        let want = js(&p, "(() => { const f = document.querySelector('iframe'); const fr = f.getBoundingClientRect(); const cs = getComputedStyle(f); const b = f.contentDocument.querySelector('button').getBoundingClientRect(); return [fr.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft) + b.left + scrollX, fr.top + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop) + b.top + scrollY]; })()").await;
        let btn = inner
            .iter()
            .find(|e| e.role == "button")
            .expect("iframe button");
        assert!(
            (btn.bounds.x - want[0].as_f64().unwrap()).abs() < 1.0
                && (btn.bounds.y - want[1].as_f64().unwrap()).abs() < 1.0,
            "{:?} vs {want}",
            btn.bounds
        );
        assert!(btn.bounds.x >= 100.0 && btn.bounds.y >= 150.0);
    });
}

#[test]
fn modal_overlay_occludes_page_buttons_and_names_the_cover() {
    run(async {
        let p = open("modal.html").await;
        let o = observe(&p).await;
        let covered: Vec<_> = o.elements.iter().filter(|e| e.occluded).collect();
        assert!(covered.len() >= 3, "{:?}", o.elements);
        for e in &covered {
            assert!(
                e.occluded_by.as_deref().unwrap_or("").contains("backdrop")
                    || e.occluded_by.as_deref().unwrap_or("").contains("modal"),
                "{e:?}"
            );
        }
        let dialog: Vec<_> = o
            .elements
            .iter()
            .filter(|e| {
                e.anchor.contains("dialog")
                    || e.id.as_deref().is_some_and(|i| i.starts_with("modal-"))
            })
            .collect();
        assert!(
            !dialog.is_empty() && dialog.iter().all(|e| !e.occluded),
            "dialog buttons are not covered"
        );
        // Closing the modal uncovers them.
        js(&p, "closeModal()").await;
        let o = observe(&p).await;
        assert!(
            o.elements
                .iter()
                .filter(|e| e.in_viewport)
                .all(|e| !e.occluded),
            "{:?}",
            o.elements
        );
    });
}

#[test]
fn six_identical_buttons_get_six_refs_that_survive_rerender_and_reorder() {
    run(async {
        let p = open("shop.html").await;
        let a = observe(&p).await;
        let carts: Vec<_> = a
            .elements
            .iter()
            .filter(|e| e.name == "Add to cart")
            .collect();
        assert_eq!(carts.len(), 6);
        let refs: HashSet<_> = carts.iter().map(|e| e.ref_.clone()).collect();
        assert_eq!(refs.len(), 6, "six distinct refs");
        let by_card: HashMap<_, _> = carts
            .iter()
            .map(|e| (e.anchor.clone(), e.ref_.clone()))
            .collect();
        assert_eq!(by_card.len(), 6, "each anchored to its own card");
        js(
            &p,
            "scenarios.rerenderCards(); scenarios.reorderCards(); true",
        )
        .await;
        let b = observe(&p).await;
        let after: HashMap<_, _> = b
            .elements
            .iter()
            .filter(|e| e.name == "Add to cart")
            .map(|e| (e.anchor.clone(), e.ref_.clone()))
            .collect();
        assert_eq!(by_card, after);
        let all: HashSet<_> = b.elements.iter().map(|e| &e.ref_).collect();
        assert_eq!(all.len(), b.elements.len(), "no two elements share a ref");
    });
}

#[test]
fn ref_stability_scenarios_meet_the_goals() {
    run(async {
        let s = session().await;
        let base = url("").await;
        let rows = pinpoint::app::bench::ref_stability(&s, &base)
            .await
            .expect("scenarios");
        for r in &rows {
            assert!(r.unique, "{}: duplicate refs", r.scenario);
            assert!(r.survivors > 0, "{}: nothing to compare", r.scenario);
            let goal = if r.scenario.contains("render")
                || r.scenario.contains("reorder")
                || r.scenario.contains("all")
            {
                0.99
            } else {
                1.0
            };
            assert!(
                r.share() >= goal,
                "{} kept {:.1}% < {:.0}%",
                r.scenario,
                r.share() * 100.0,
                goal * 100.0
            );
        }
    });
}

#[test]
fn spa_route_change_keeps_registry_and_new_document_resets_it() {
    run(async {
        let s = session().await;
        let p = open("spa.html").await;
        let a = observe(&p).await;
        js(&p, "app.route('/settings'); true").await;
        let b = observe(&p).await;
        assert!(
            b.changes.is_some(),
            "same document: changes against the previous observation"
        );
        js(&p, "app.route('/'); true").await;
        let c = observe(&p).await;
        let ra: HashSet<_> = a.elements.iter().map(|e| &e.ref_).collect();
        let rc: HashSet<_> = c.elements.iter().map(|e| &e.ref_).collect();
        assert_eq!(ra, rc, "back on the list view, the same refs");
        // A new document at another URL starts a fresh registry.
        s.navigate(
            &p,
            &url("shop.html").await,
            pinpoint::browser::LoadState::Load,
            std::time::Duration::from_secs(10),
        )
        .await
        .unwrap();
        let d = observe(&p).await;
        assert!(
            d.changes.is_none(),
            "fresh registry has no previous observation"
        );
        assert!(d
            .elements
            .iter()
            .all(|e| e.stability == pinpoint::model::Stability::New));
    });
}

#[test]
fn sensitive_values_are_redacted_and_states_reported() {
    run(async {
        let p = open("forms.html").await;
        js(
            &p,
            "document.querySelector('input[type=password]').value = 'hunter2'; true",
        )
        .await;
        let o = observe(&p).await;
        let pw = o
            .elements
            .iter()
            .find(|e| e.input_type.as_deref() == Some("password"))
            .expect("password field");
        assert!(pw.sensitive);
        assert_ne!(pw.value.as_deref(), Some("hunter2"));
        assert!(o.elements.iter().any(|e| e.disabled));
        assert!(o
            .elements
            .iter()
            .any(|e| e.checked == Some(pinpoint::model::Checked::Bool(true))));
        assert!(
            o.elements
                .iter()
                .all(|e| e.input_type.as_deref() != Some("hidden")),
            "hidden inputs are not listed"
        );
    });
}

#[test]
fn large_page_lists_every_element() {
    run(async {
        let p = open("many.html?n=5000").await;
        let o = observe(&p).await;
        assert_eq!(o.elements.len(), 5000);
        assert_eq!(o.total, 5000);
        let refs: HashSet<_> = o.elements.iter().map(|e| &e.ref_).collect();
        assert_eq!(refs.len(), 5000);
    });
}

/// `PROFILE_N` for the probes below (elements on many.html), else `default`.
fn profile_n(default: usize) -> usize {
    env_number("PROFILE_N", default)
}

/// Probe, not a check (run with `--ignored --nocapture`): in-page timings of
/// the discovery pass and a V8 sampling profile of it. `PROFILE_N` (elements
/// on many.html), `PROFILE_PAGE` (another fixture), `PROFILE_JS` (a modified
/// script file).
#[test]
#[ignore]
fn profile_discovery() {
    run(async {
        let n = profile_n(1000);
        let fixture = profile_page(&format!("many.html?n={n}"));
        let p = open(&fixture).await;
        let custom = std::env::var("PROFILE_JS")
            .ok()
            .map(|f| std::fs::read_to_string(f).unwrap());
        let src = custom
            .as_deref()
            .unwrap_or(pinpoint::observe::DISCOVER_JS)
            .trim_end()
            .trim_end_matches(';');
        let fresh = std::env::var("PROFILE_FRESH").is_ok();
        for _ in 0..3 {
            let v = js(&p, &format!("(() => {{ const t = performance.now(); const s = ({src})({{profile: true, fresh: {fresh}}}); return [performance.now() - t, s.length, JSON.parse(s).profile]; }})()")).await;
            println!("in-page: {v}");
        }
        for _ in 0..8 {
            let v = js(&p, &format!("(() => {{ const t = performance.now(); const f = window.__pp || (window.__pp = ({src})); const s = f({{profile: true}}); return [performance.now() - t, s.length, JSON.parse(s).profile.walk]; }})()")).await;
            println!("cached fn: {v}");
        }
        let expr = format!("({src})({{fresh: {fresh}}}).length");
        for _ in 0..2 {
            let rows = p.page.profile_eval(&expr).await.unwrap();
            let total: f64 = rows.iter().map(|r| r.0).sum();
            println!("profile total {total:.1} ms");
            for (ms, f) in rows.iter().take(22) {
                println!("  {ms:7.2} {f}");
            }
        }
        // The whole trip, split: the pass in the page (JSON.stringify
        // included), the rest of the evaluate (transfer, CDP decoding), and
        // parsing the result.
        let timed = format!("(() => {{ const t = performance.now(); const s = ({src})({{fresh: {fresh}}}); return [performance.now() - t, s]; }})()");
        // Transfer alone: one 1 MB string vs the same in 128 KB parts at once.
        js(
            &p,
            &format!("window.__s = ({src})({{fresh: true, part: 1000000000}}); 1"),
        )
        .await;
        let n = js(&p, "__s.length").await.as_u64().unwrap() as usize;
        let parts: Vec<String> = (0..n.div_ceil(131_072))
            .map(|i| format!("__s.slice({}, {})", i * 131_072, (i + 1) * 131_072))
            .collect();
        let (mut one, mut many) = (Vec::new(), Vec::new());
        for _ in 0..9 {
            let t = std::time::Instant::now();
            js(&p, "__s").await;
            one.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = std::time::Instant::now();
            p.page.eval_all(&parts).await.unwrap();
            many.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        one.sort_by(f64::total_cmp);
        many.sort_by(f64::total_cmp);
        println!(
            "transfer of {n} chars: one string median {:.1} ms; {} parts at once median {:.1} ms",
            one[4],
            parts.len(),
            many[4]
        );
        // Whole (one string) vs in parts fetched at once, alternating.
        for _ in 0..6 {
            for part in [1_000_000_000usize, 131_072] {
                let t = std::time::Instant::now();
                let answer = p
                    .page
                    .eval_json_string(&format!("({src})({{fresh: {fresh}, part: {part}}})"))
                    .await
                    .unwrap();
                let json = pinpoint::app::join_parts(&p.page, answer)
                    .await
                    .unwrap()
                    .unwrap();
                println!(
                    "part {part}: {:.1} ms, {} bytes",
                    t.elapsed().as_secs_f64() * 1000.0,
                    json.len()
                );
            }
        }
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let v = p.page.eval(&timed).await.unwrap();
            let trip = t.elapsed().as_secs_f64() * 1000.0;
            let in_page = v[0].as_f64().unwrap();
            let s = v[1].as_str().unwrap();
            let t = std::time::Instant::now();
            let raw: pinpoint::observe::RawObservation = serde_json::from_str(s).unwrap();
            let parse = t.elapsed().as_secs_f64() * 1000.0;
            println!(
                "round trip {trip:.1} ms = in page {in_page:.1} + transfer {:.1}; parse {parse:.1} ms; {} bytes, {} elements",
                trip - in_page,
                s.len(),
                raw.elements.len()
            );
        }
    });
}

#[test]
#[ignore]
fn profile_ablation() {
    run(async {
        let n = profile_n(2000);
        let p = open(&profile_page(&format!("many.html?n={n}"))).await;
        let fresh = std::env::var("PROFILE_FRESH").is_ok();
        let base = pinpoint::observe::DISCOVER_JS
            .trim_end()
            .trim_end_matches(';')
            .to_string();
        let variants: Vec<(&str, String)> = vec![
            ("full", base.clone()),
            (
                "no name",
                base.replace(
                    "function nameOf(el, role) {",
                    "function nameOf(el, role) { return '';",
                ),
            ),
            (
                "no anchor",
                base.replace(
                    "function anchorOf(el, doc) {",
                    "function anchorOf(el, doc) { return '';",
                ),
            ),
            (
                "no css",
                base.replace(
                    "function cssPath(el) {",
                    "function cssPath(el) { return '';",
                ),
            ),
            (
                "no hit",
                base.replace(
                    "function deepHit(doc, x, y) {",
                    "function deepHit(doc, x, y) { return null;",
                ),
            ),
            (
                "no clickable",
                base.replace(
                    "function nonSemanticClickable(el, win, marks) {",
                    "function nonSemanticClickable(el, win, marks) { return false;",
                ),
            ),
            (
                "no value",
                base.replace(
                    "function valueOf(el, role) {",
                    "function valueOf(el, role) { return null;",
                ),
            ),
            (
                "no region",
                base.replace(
                    "function regionOf(el, outer) {",
                    "function regionOf(el, outer) { return 0;",
                ),
            ),
        ];
        // Interleaved rounds, so that every variant sees the same machine.
        let rounds = env_number("RUNS", 15);
        let mut ts = vec![Vec::new(); variants.len()];
        for _ in 0..rounds {
            for ((_, src), t) in variants.iter().zip(&mut ts) {
                let v = js(&p, &format!("(() => {{ const t = performance.now(); ({src})({{fresh: {fresh}}}); return performance.now() - t; }})()")).await;
                t.push(v.as_f64().unwrap());
            }
        }
        for ((name, _), t) in variants.iter().zip(ts) {
            let min = t.iter().copied().fold(f64::INFINITY, f64::min);
            println!("{name:<14} median {:.2} ms  min {:.2}", median(t), min);
        }
    });
}

/// Probe, not a check: the cost of single DOM calls over 5,000 controls in
/// this Chromium (how `el.labels` turned out quadratic).
#[test]
#[ignore]
fn profile_dom_ops() {
    run(async {
        let p = open("many.html?n=5000").await;
        let v = js(&p, r#"(() => {
            const els = Array.from(document.querySelectorAll('button,a[href],input'));
            const out = { n: els.length };
            const t = (name, f) => { const a = performance.now(); let x = 0; for (const e of els) { if (f(e)) x++; } out[name] = Math.round((performance.now() - a) * 10) / 10; };
            t('noop', e => e);
            t('getAttribute', e => e.getAttribute('role'));
            t('rect', e => e.getBoundingClientRect().width);
            t('rect2', e => e.getBoundingClientRect().width);
            t('checkVis', e => e.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true }));
            t('checkVisOp', e => e.checkVisibility({ opacityProperty: true }));
            t('closest', e => e.closest('[inert]'));
            t('matchesDisabled', e => e.matches(':disabled'));
            t('isContentEditable', e => e.isContentEditable);
            t('cs.cursor', e => getComputedStyle(e).cursor);
            t('csm.cursor', e => e.computedStyleMap().get('cursor').toString());
            t('cs.display', e => getComputedStyle(e).display);
            t('labels', e => e.labels && e.labels.length);
            t('textContent', e => e.textContent);
            t('getRootNode', e => e.getRootNode());
            t('elementFromPoint', e => document.elementFromPoint(100, 100));
            t('activeElement', e => document.activeElement === e);
            t('tabIndex', e => e.tabIndex);
            t('hasAttribute', e => e.hasAttribute('inert'));
            t('url', e => e.getAttribute('href') && new URL(e.getAttribute('href'), document.baseURI).pathname);
            const names = ['role','data-testid','data-test-id','data-test','data-cy','aria-label','name','placeholder','href','type','aria-checked','aria-expanded','aria-selected','aria-disabled','aria-required','aria-valuenow','autocomplete','title','aria-labelledby','tabindex'];
            t('getAttribute x20', e => { let x = 0; for (const n of names) if (e.getAttribute(n) !== null) x++; return x; });
            t('getAttributeNames', e => e.getAttributeNames().length);
            t('attrNames+get', e => { const o = {}; for (const n of e.getAttributeNames()) o[n] = e.getAttribute(n); return o; });
            t('attributes', e => { const o = {}; const a = e.attributes; for (let i = 0; i < a.length; i++) o[a[i].name] = a[i].value; return o; });
            t('id prop', e => e.id);
            t('localName', e => e.localName);
            t('parentElement x5', e => e.parentElement.parentElement.parentElement);
            t('hasAttributes', e => e.hasAttributes());
            t('obj', e => ({ a: 1, b: 'x', c: { x: 1, y: 2 } }));
            return out;
        })()"#).await;
        println!("{v}");
    });
}

/// Discovery keeps DOM-derived fields across passes; every kind of change
/// must still show up in the next observation: text, attributes, shadow-root
/// and iframe content, form state, listeners added without any DOM change,
/// and style-dependent names.
#[test]
fn cached_fields_follow_every_change() {
    run(async {
        let p = open("demo.html").await;
        observe(&p).await;
        observe(&p).await;
        js(
            &p,
            "document.getElementById('signin-submit').textContent = 'Log in now'",
        )
        .await;
        js(
            &p,
            "document.getElementById('search').setAttribute('aria-label', 'Find things')",
        )
        .await;
        js(&p, "document.getElementById('email').value = 'a@b.c'").await;
        // A listener is no DOM mutation: the element must still be found.
        js(&p, "const d = document.createElement('div'); d.id = 'late'; d.textContent = 'Late tile'; d.style.cssText = 'position:absolute;left:900px;top:10px;width:80px;height:20px'; document.body.append(d)").await;
        observe(&p).await;
        js(
            &p,
            "document.getElementById('late').addEventListener('click', () => {})",
        )
        .await;
        let o = observe(&p).await;
        assert_eq!(by_id(&o, "signin-submit").unwrap().name, "Log in now");
        assert_eq!(by_id(&o, "search").unwrap().name, "Find things");
        assert_eq!(by_id(&o, "email").unwrap().value.as_deref(), Some("a@b.c"));
        assert!(
            by_id(&o, "late").unwrap().clickable,
            "found by its listener"
        );
        // A name that depends on style: a hidden span drops out of the name.
        js(&p, "const b = document.getElementById('signin-submit'); b.innerHTML = 'Log <span id=\"x\">in</span>'").await;
        assert_eq!(
            by_id(&observe(&p).await, "signin-submit").unwrap().name,
            "Log in"
        );
        js(&p, "const s = new CSSStyleSheet(); s.replaceSync('#x { display: none }'); document.adoptedStyleSheets = [s]").await;
        assert_eq!(
            by_id(&observe(&p).await, "signin-submit").unwrap().name,
            "Log"
        );

        let p = open("shadow.html").await;
        observe(&p).await;
        js(&p, "document.getElementById('widget').shadowRoot.getElementById('shadow-button').textContent = 'Renamed in shadow'").await;
        assert_eq!(
            by_id(&observe(&p).await, "shadow-button").unwrap().name,
            "Renamed in shadow"
        );

        let p = open("iframe.html").await;
        observe(&p).await;
        js(&p, "document.getElementById('frame').contentDocument.getElementById('inner-button').textContent = 'Renamed in frame'").await;
        assert_eq!(
            by_id(&observe(&p).await, "inner-button").unwrap().name,
            "Renamed in frame"
        );
    });
}

/// The in-page cache drops a field exactly where a mutation can have changed
/// it: after every step of a seeded random walk of DOM mutations (text, ids,
/// roles, labels, moves, inserts, removals, wrappers, style sheets, URL
/// changes, edits made while detached) on every fixture page, a pass that uses
/// the cache lists the same elements, field for field, as a pass from scratch.
#[test]
fn cached_pass_equals_a_fresh_pass_after_random_mutations() {
    run(async {
        let src = pinpoint::observe::DISCOVER_JS
            .trim_end()
            .trim_end_matches(';');
        let mutate = include_str!("mutate.js").trim_end();
        let pass = |fresh: bool| {
            format!(
                "(() => {{ const o = JSON.parse(({src})({{fresh: {fresh}, stats: true}})); \
                 return {{elements: o.elements, frames: o.frames, total: o.total, cache: o.cache}}; }})()"
            )
        };
        let (cached_call, fresh_call) = (pass(false), pass(true));
        let same = |cached: &serde_json::Value, fresh: &serde_json::Value, what: &str| {
            if cached != fresh {
                let (a, b) = (&cached["elements"], &fresh["elements"]);
                let diff = (0..a.as_array().unwrap().len().max(b.as_array().unwrap().len()))
                    .find(|&k| a[k] != b[k])
                    .map(|k| format!("element {k}: cached {} vs fresh {}", a[k], b[k]));
                panic!("after {what}: {diff:?}");
            }
        };
        // Cases a random walk rarely hits: what a name read outside the
        // element (an aria-labelledby target, the label around it) and an
        // element changed while it was out of the document.
        let p = open("demo.html").await;
        js(&p, &fresh_call).await;
        for step in [
            "document.getElementById('signin-submit').setAttribute('aria-labelledby', 'signin-title')",
            "document.getElementById('signin-title').textContent = 'Welcome back'",
            "const l = document.createElement('label'); l.id = 'wrap-label'; l.append('Pick one '); \
             const a = document.createElement('input'); a.id = 'in-label'; l.append(a); document.querySelector('main').prepend(l)",
            "const b = document.createElement('input'); b.id = 'first-in-label'; document.getElementById('wrap-label').prepend(b)",
            "document.getElementById('first-in-label').remove()",
            "window.__away = document.querySelector('footer a'); __away.remove()",
            "__away.textContent = 'Changed while away'; document.querySelector('footer').append(__away)",
            "document.getElementById('search').setAttribute('aria-labelledby', 'late-title')",
            "const h = document.createElement('span'); h.id = 'late-title'; h.textContent = 'Late'; document.body.append(h)",
            "const n = document.createElement('nav'); n.setAttribute('aria-labelledby', 'nav-title'); \
             n.innerHTML = '<a href=\"#x1\">One</a> <a href=\"#x2\">Two</a>'; \
             const h = document.createElement('span'); h.id = 'nav-title'; h.textContent = 'Side'; document.body.append(h, n)",
            "document.getElementById('nav-title').textContent = 'Other side'",
            "const i = document.createElement('input'); i.id = 'no-label'; i.placeholder = 'Type here'; document.body.append(i)",
            "document.querySelector('label[for=email]').htmlFor = 'no-label'",
            "document.getElementById('signin').setAttribute('data-sensitive', '')",
            // Page regions: a landmark wrapped around one, a role changed,
            // then a quiet pass (no mutation: regions are kept).
            "const w = document.createElement('aside'); const f = document.querySelector('footer'); f.before(w); w.append(f)",
            "document.querySelector('main').setAttribute('role', 'navigation')",
            "",
            "const s = document.createElement('style'); s.id = 'late-style'; s.textContent = '.zz {}'; document.head.append(s)",
            "document.getElementById('late-style').firstChild.data = 'a::before { content: \"#\" }'",
        ] {
            js(&p, &format!("{{ {step} }}")).await;
            let mut cached = js(&p, &cached_call).await;
            let mut fresh = js(&p, &fresh_call).await;
            cached["cache"].take();
            fresh["cache"].take();
            same(&cached, &fresh, step);
        }

        let mut kept = 0u64;
        let mut listed = 0u64;
        for (i, page) in [
            "demo.html",
            "forms.html",
            "shadow.html",
            "iframe.html",
            "shop.html",
            "nav.html",
            "spa.html",
            "modal.html",
            "hidden.html",
            "sidebar.html",
        ]
        .iter()
        .enumerate()
        {
            let p = open(page).await;
            js(&p, &fresh_call).await;
            for step in 0..40u64 {
                let seed = (i as u64 + 1) * 1000 + step;
                let what = js(&p, &format!("({mutate})({seed})")).await;
                let mut cached = js(&p, &cached_call).await;
                let mut fresh = js(&p, &fresh_call).await;
                let stats = cached["cache"].take();
                fresh["cache"].take();
                if stats["dropAll"] == false {
                    kept += stats["kept"].as_u64().unwrap();
                    listed += cached["elements"].as_array().unwrap().len() as u64;
                }
                same(&cached, &fresh, &format!("{page} seed {seed}: {what}"));
            }
        }
        // The check means something only if the cache was used.
        assert!(
            kept * 3 > listed,
            "most elements keep their cached fields across local mutations: {kept} of {listed}"
        );

        // A cached pass after `change` on a fresh load of `page`.
        let after = |page: &'static str, change: &'static str| {
            let (fresh_call, cached_call) = (&fresh_call, &cached_call);
            async move {
                let p = open(page).await;
                js(&p, fresh_call).await;
                js(&p, change).await;
                js(&p, cached_call).await
            }
        };
        // A local change keeps everything else: one button's text on a 400-element page.
        let v = after(
            "many.html?n=400",
            "document.getElementById('e200').textContent = 'Renamed'",
        )
        .await;
        let kept = v["cache"]["kept"].as_u64().unwrap();
        assert!(kept >= 390, "kept {kept} of 400");

        // A status line changing inside a form anchored by its id (`id:signin`)
        // re-anchors nothing: the id, not the form's content, is the anchor.
        let v = after(
            "demo.html",
            "document.getElementById('signin-status').textContent = 'Signed in'",
        )
        .await;
        let listed = v["elements"].as_array().unwrap().len() as u64;
        assert_eq!(v["cache"]["kept"].as_u64().unwrap(), listed);
    });
}

/// A large result leaves the page in parts fetched all at once; joined, they
/// are exactly the whole result, even when a cut falls inside an emoji (a
/// surrogate pair); parts four passes old are gone and say so.
#[test]
fn a_result_in_parts_joins_to_the_whole_result() {
    run(async {
        let p = open("demo.html").await;
        // Installed with the document (an init script), not by the first observe.
        let first = p
            .page
            .eval_json_string(&pinpoint::observe::discover_call(None, None))
            .await
            .unwrap();
        assert_ne!(first, pinpoint::observe::MISSING);
        js(
            &p,
            "document.getElementById('signin-submit').textContent = 'Go 🚀 now 😀😀😀 ✓ done'; \
             document.querySelectorAll('nav a').forEach((a, i) => a.textContent = '🙂'.repeat(i + 1))",
        )
        .await;
        observe(&p).await;
        let whole = pinpoint::app::join_parts(
            &p.page,
            p.page
                .eval_json_string(&pinpoint::observe::discover_call(None, None))
                .await
                .unwrap(),
        )
        .await
        .unwrap()
        .unwrap();
        assert!(
            pinpoint::observe::Parted::from_answer(&whole).is_none(),
            "a small page answers in one piece"
        );
        for part in [7, 64, 1000] {
            let answer = p
                .page
                .eval_json_string(&pinpoint::observe::discover_call_in_parts(
                    None,
                    None,
                    Some(part),
                ))
                .await
                .unwrap();
            let h = pinpoint::observe::Parted::from_answer(&answer).expect("a parted answer");
            assert!(h.parts > whole.len() / part / 2, "{h:?}");
            let joined = pinpoint::app::join_parts(&p.page, answer)
                .await
                .unwrap()
                .expect("parts still there");
            let elements =
                |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap()["elements"].clone();
            assert_eq!(elements(&joined), elements(&whole), "part length {part}");
            assert!(joined.contains("😀😀😀"));
        }
        // Four newer passes replace a result nobody fetched.
        let old = p
            .page
            .eval_json_string(&pinpoint::observe::discover_call_in_parts(
                None,
                None,
                Some(500),
            ))
            .await
            .unwrap();
        for _ in 0..4 {
            js(
                &p,
                &pinpoint::observe::discover_call_in_parts(None, None, Some(500)),
            )
            .await;
        }
        assert_eq!(pinpoint::app::join_parts(&p.page, old).await.unwrap(), None);
        // A full observe of a large page goes through parts.
        let p = open("many.html?n=2000").await;
        let o = observe(&p).await;
        assert_eq!(o.elements.len(), 2000);
        assert!(o.elements.iter().any(|e| e.id.as_deref() == Some("e1999")));
    });
}

/// Each element knows its page region (outermost banner, navigation, main,
/// complementary, contentinfo or search landmark), and the region follows
/// the DOM: a table moved into the sidebar joins it, a landmark role removed
/// leaves its links in none, a pass with no mutation keeps them.
#[test]
fn page_regions_follow_moves_and_role_changes() {
    run(async {
        let p = open("regions.html").await;
        let regions = |o: &pinpoint::model::Observation| {
            let of = |n: &str| o.elements.iter().find(|e| e.name == n).unwrap().region;
            ["Home", "Docs", "Guide 1", "fn_a1()", "fn_b12()", "Privacy"].map(of)
        };
        let r = regions(&observe(&p).await);
        assert!(r.iter().all(Option::is_some), "{r:?}");
        assert_eq!(r[0], r[1], "the header's nav is the banner's region");
        assert_eq!(r[3], r[4]);
        let distinct: HashSet<_> = [r[0], r[2], r[3], r[5]].into();
        assert_eq!(distinct.len(), 4, "{r:?}");

        js(
            &p,
            "document.querySelector('.cols > nav').append(document.querySelector('table')); 1",
        )
        .await;
        let moved = regions(&observe(&p).await);
        assert_eq!(moved[3], moved[2], "{moved:?}");
        assert_eq!(moved[4], moved[2], "{moved:?}");
        assert_eq!(
            regions(&observe(&p).await),
            moved,
            "a quiet pass keeps them"
        );

        js(
            &p,
            "document.querySelector('.cols > nav').setAttribute('role', 'none'); 1",
        )
        .await;
        let none = regions(&observe(&p).await);
        assert_eq!(&none[2..5], &[None, None, None], "{none:?}");
        assert_eq!((none[0], none[5]), (r[0], r[5]));
        assert_eq!(regions(&observe(&p).await), none, "a quiet pass keeps them");
    });
}

/// Unchanged elements come back as their in-page key alone and are filled in
/// from the registry; anything that changed, and every element after another
/// client's pass or with refs that ignore the registry, comes back in full.
#[test]
fn unchanged_elements_are_sent_as_keys_and_filled_in_exactly() {
    run(async {
        let s = session().await;
        let p = open("many.html?n=200").await;
        let first = observe(&p).await;
        assert_eq!(first.timings.reused_elements, 0);
        let second = observe(&p).await;
        assert_eq!(second.timings.reused_elements, 200);
        let strip = |o: &Observation| {
            o.elements
                .iter()
                .map(|e| {
                    let mut e = e.clone();
                    e.stability = pinpoint::model::Stability::Stable;
                    e
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&first), strip(&second), "filled in exactly");
        // Form state and scrolling change results without a DOM mutation.
        js(
            &p,
            "document.getElementById('e2').value = 'typed'; scrollTo(0, 300)",
        )
        .await;
        let third = observe(&p).await;
        let e2 = by_id(&third, "e2").unwrap();
        assert_eq!(e2.value.as_deref(), Some("typed"));
        assert!(!e2.in_viewport, "scrolled out");
        assert!(third.timings.reused_elements < 200);
        assert!(
            third.timings.reused_elements > 50,
            "{}",
            third.timings.reused_elements
        );
        // A pass the registry never saw (another caller) means full results.
        js(&p, "window[Symbol.for('pinpoint.state')].lastPass = -1").await;
        let fourth = observe(&p).await;
        assert_eq!(fourth.timings.reused_elements, 0);
        assert_eq!(strip(&third), strip(&fourth));
        let opts = pinpoint::app::ObserveOptions {
            refresh_refs: true,
            ..Default::default()
        };
        let fresh = s.observe(&p, &opts).await.unwrap();
        assert_eq!(fresh.timings.reused_elements, 0);
        assert_eq!(
            observe(&p).await.timings.reused_elements,
            0,
            "after refresh: full"
        );
        let before = observe(&p).await;
        assert_eq!(before.timings.reused_elements, 200);
        // A change that drops every cached field (a style sheet comes) keeps
        // the last results: what did not change still travels as its key,
        // a row taken out and put back too, and a renamed one comes in full.
        js(
            &p,
            "document.head.append(document.createElement('style')); \
             const r = [...document.querySelectorAll('.row')].pop(); const sec = r.parentNode; r.remove(); sec.append(r); \
             document.getElementById('e8').textContent = 'Renamed'",
        )
        .await;
        let after = observe(&p).await;
        // Not reused: e8 and the three after it in its row (they move right).
        assert_eq!(after.timings.reused_elements, 196);
        let e8 = by_id(&after, "e8").unwrap();
        assert_eq!(e8.name, "Renamed");
        js(&p, "window[Symbol.for('pinpoint.state')].lastPass = -1").await;
        assert_eq!(
            strip(&after),
            strip(&observe(&p).await),
            "filled in exactly"
        );
    });
}

/// Probe, not a check: why the first pass on a freshly loaded page is slower
/// than later ones (the page's first-time work vs V8 warming up).
#[test]
#[ignore]
fn profile_first_pass() {
    run(async {
        let n = profile_n(5000);
        let src = pinpoint::observe::DISCOVER_JS
            .trim_end()
            .trim_end_matches(';');
        let timed = format!("(() => {{ const t = performance.now(); ({src})({{fresh: true, part: 1e9}}); return performance.now() - t; }})()");
        for touch in [
            "1",
            "document.body.getBoundingClientRect(); document.elementFromPoint(100, 100); 1",
            "(() => { for (const e of document.querySelectorAll('*')) { e.getBoundingClientRect(); e.checkVisibility(); getComputedStyle(e).cursor; } return 1; })()",
        ] {
            let p = open(&format!("many.html?n={n}")).await;
            let t = std::time::Instant::now();
            js(&p, touch).await;
            let touch_ms = t.elapsed().as_secs_f64() * 1000.0;
            let mut runs = Vec::new();
            for _ in 0..4 {
                runs.push(js(&p, &timed).await.as_f64().unwrap());
            }
            println!("touch {touch_ms:.1} ms ({}): passes {runs:.1?}", &touch[..touch.len().min(40)]);
        }
    });
}

/// Probe: the installed pass as an observe runs it (cached, `have` = the
/// previous pass), timed in the page, and a CPU profile of it.
#[test]
#[ignore]
fn profile_installed_pass() {
    run(async {
        let fixture = profile_page("sidebar.html");
        let p = open(&fixture).await;
        observe(&p).await;
        let call = |have: u64| {
            let c = pinpoint::observe::discover_call(None, Some(have));
            format!("(() => {{ const t = performance.now(); const s = {c}; return [performance.now() - t, s.length, JSON.parse(s).pass]; }})()")
        };
        let mut have = 0;
        let v = js(&p, &call(have)).await;
        have = v[2].as_u64().unwrap();
        for _ in 0..8 {
            let v = js(&p, &call(have)).await;
            have = v[2].as_u64().unwrap();
            println!(
                "installed pass: {:.2} ms, {} chars",
                v[0].as_f64().unwrap(),
                v[1]
            );
        }
        let s = session().await;
        for _ in 0..8 {
            let t = std::time::Instant::now();
            let o = s
                .observe(&p, &pinpoint::app::ObserveOptions::default())
                .await
                .unwrap();
            println!(
                "observe: {:.2} ms (discover {:.2}, refs {:.2}, reused {})",
                t.elapsed().as_secs_f64() * 1000.0,
                o.timings.discover_ms,
                o.timings.refs_ms,
                o.timings.reused_elements
            );
        }
        let c = pinpoint::observe::discover_call(None, None);
        for _ in 0..2 {
            let rows = p.page.profile_eval(&format!("(() => {{ let n = 0; for (let i = 0; i < 20; i++) n += {c}.length; return n; }})()")).await.unwrap();
            let total: f64 = rows.iter().map(|r| r.0).sum();
            println!("profile of 20 passes: total {total:.1} ms");
            for (ms, f) in rows.iter().take(16) {
                println!("  {ms:7.2} {f}");
            }
        }
    })
}
