//! Unit tests of the pure registry on hand-made element lists.

use super::*;
use crate::model::{Element, Rect, Stability};

fn el(role: &str, name: &str, anchor: &str, y: f64) -> Element {
    Element {
        ref_: String::new(),
        role: role.into(),
        name: name.into(),
        tag: if role == "link" {
            "a".into()
        } else {
            "button".into()
        },
        input_type: None,
        bounds: Rect::new(10.0, y, 80.0, 20.0),
        in_viewport: true,
        visible: true,
        occluded: false,
        occluded_by: None,
        disabled: false,
        checked: None,
        expanded: None,
        selected: None,
        focused: false,
        editable: false,
        value: None,
        sensitive: false,
        frame: "main".into(),
        selector: format!("body > button:nth-of-type({})", y as i64),
        shadow: false,
        clickable: false,
        stability: Stability::New,
        previous_ref: None,
        test_id: None,
        id: None,
        href: None,
        name_attr: None,
        aria_label: None,
        anchor: anchor.into(),
        region: None,
    }
}

/// Six product cards, each with an identical "Add to cart" button, plus a header.
fn shop(key_base: u64) -> Vec<Candidate> {
    let mut v = vec![
        Candidate {
            key: key_base,
            element: el("link", "Home", "landmark:banner:", 0.0),
        },
        Candidate {
            key: key_base + 1,
            element: el("button", "Sign in", "landmark:banner:", 0.0),
        },
    ];
    for (i, p) in ["Blender", "Toaster", "Kettle", "Mixer", "Grill", "Fryer"]
        .iter()
        .enumerate()
    {
        v.push(Candidate {
            key: key_base + 10 + i as u64,
            element: el(
                "button",
                "Add to cart",
                &format!("heading:{p}"),
                100.0 + 50.0 * i as f64,
            ),
        });
    }
    v
}

fn refs(els: &[Element]) -> Vec<String> {
    els.iter().map(|e| e.ref_.clone()).collect()
}

#[test]
fn identical_buttons_get_distinct_refs() {
    let mut r = Registry::new();
    let (els, _) = r.observe("d1", shop(1));
    let set: HashSet<_> = refs(&els).into_iter().collect();
    assert_eq!(
        set.len(),
        els.len(),
        "refs must be unique: {:?}",
        refs(&els)
    );
    assert!(els.iter().all(|e| e.stability == Stability::New));
}

#[test]
fn same_nodes_keep_refs_and_are_stable() {
    let mut r = Registry::new();
    let (a, _) = r.observe("d1", shop(1));
    for _ in 0..5 {
        let (b, ch) = r.observe("d1", shop(1));
        assert_eq!(refs(&a), refs(&b));
        assert!(b.iter().all(|e| e.stability == Stability::Stable));
        assert!(ch.added.is_empty() && ch.removed.is_empty() && ch.updated.is_empty());
    }
}

#[test]
fn rerender_with_new_nodes_keeps_refs_by_identity() {
    let mut r = Registry::new();
    let (a, _) = r.observe("d1", shop(1));
    // innerHTML = innerHTML: every node is new, the content is the same.
    let (b, _) = r.observe("d1", shop(1000));
    assert_eq!(refs(&a), refs(&b));
}

#[test]
fn reorder_of_anchored_cards_keeps_refs() {
    let mut r = Registry::new();
    let (a, _) = r.observe("d1", shop(1));
    let mut cands = shop(500);
    let header: Vec<_> = cands.drain(..2).collect();
    cands.reverse();
    for (i, c) in cands.iter_mut().enumerate() {
        c.element.bounds.y = 100.0 + 50.0 * i as f64;
    }
    let mut all = header;
    all.extend(cands);
    let (b, _) = r.observe("d1", all);
    let before: HashMap<String, String> = a
        .iter()
        .map(|e| (e.anchor.clone() + &e.name, e.ref_.clone()))
        .collect();
    for e in &b {
        assert_eq!(before[&(e.anchor.clone() + &e.name)], e.ref_);
    }
    // Cards moved on screen: reported as moved, not new.
    assert!(b.iter().skip(2).any(|e| e.stability == Stability::Moved));
}

#[test]
fn insert_at_top_keeps_every_ref() {
    let mut r = Registry::new();
    let (a, _) = r.observe("d1", shop(1));
    let mut c = shop(1);
    c.insert(
        0,
        Candidate {
            key: 99,
            element: el("button", "New promo", "", 0.0),
        },
    );
    let (b, ch) = r.observe("d1", c);
    assert_eq!(refs(&a), refs(&b)[1..].to_vec());
    assert_eq!(b[0].stability, Stability::New);
    assert_eq!(ch.added, vec![b[0].ref_.clone()]);
}

#[test]
fn text_change_on_same_node_keeps_ref() {
    let mut r = Registry::new();
    let (a, _) = r.observe("d1", shop(1));
    let mut c = shop(1);
    c[1].element.name = "Log in".into();
    let (b, ch) = r.observe("d1", c);
    assert_eq!(a[1].ref_, b[1].ref_);
    assert_eq!(ch.updated, vec![b[1].ref_.clone()]);
}

#[test]
fn text_change_with_new_node_keeps_ref_by_fuzzy_match() {
    let mut r = Registry::new();
    let (a, _) = r.observe("d1", shop(1));
    let mut c = shop(1000);
    c[1].element.name = "Sign in now".into();
    let (b, _) = r.observe("d1", c);
    assert_eq!(refs(&a), refs(&b));
}

#[test]
fn new_document_forgets_live_keys_but_not_identities() {
    let mut r = Registry::new();
    let (a, _) = r.observe("d1", shop(1));
    // Reload: same keys are reused by the new document for other nodes.
    let mut c = shop(1);
    c.swap(0, 1);
    let (b, _) = r.observe("d2", c);
    assert_eq!(a[0].ref_, b[1].ref_);
    assert_eq!(a[1].ref_, b[0].ref_);
}

#[test]
fn unique_test_ids_become_readable_slugs() {
    let mut r = Registry::new();
    let mut c = shop(1);
    c[1].element.test_id = Some("Checkout Submit".into());
    c[2].element.id = Some("dup".into());
    c[3].element.id = Some("dup".into());
    let (b, _) = r.observe("d1", c);
    assert_eq!(b[1].ref_, "@checkout-submit");
    assert!(b[2].ref_.starts_with("@e") && b[3].ref_.starts_with("@e"));
    assert_ne!(b[2].ref_, b[3].ref_);
}

#[test]
fn stale_then_dropped() {
    let mut r = Registry::new();
    let (a, _) = r.observe("d1", shop(1));
    let gone = a[7].ref_.clone();
    let mut c = shop(1);
    c.pop();
    for i in 1..=DROP_AFTER + 1 {
        r.observe("d1", c.clone());
        match r.lookup(&gone) {
            Lookup::Live(_) => assert!(i < STALE_AFTER, "live after {i}"),
            Lookup::Stale(_) => assert!((STALE_AFTER..=DROP_AFTER).contains(&i), "stale after {i}"),
            Lookup::Unknown => assert!(i > DROP_AFTER, "dropped after {i}"),
        }
    }
    // Lookups accept the bare form too.
    assert!(matches!(
        r.lookup(a[0].ref_.trim_start_matches('@')),
        Lookup::Live(_)
    ));
}

#[test]
fn hash_collisions_extend_instead_of_suffixing() {
    let id = [7u8; 32];
    let mut taken = HashSet::new();
    let first = hashed_ref(&id, &taken);
    taken.insert(first.clone());
    let second = hashed_ref(&id, &taken);
    assert_ne!(first, second);
    assert!(second.starts_with(&first));
    assert_eq!(first.len(), 2 + HASH_LEN);
}

#[test]
fn refresh_with_history_reports_previous_refs() {
    let mut r = Registry::new();
    let mut c = shop(1);
    c[0].element.name = "Home page".into();
    let (a, _) = r.observe("d1", c);
    // The link's text changes (same node), so a fresh registry would hash it anew.
    let mut c = shop(1);
    c[0].element.name = "Start".into();
    let (_fresh, b, _) = r.refresh("d1", c, true);
    assert_ne!(a[0].ref_, b[0].ref_);
    assert_eq!(b[0].previous_ref.as_deref(), Some(a[0].ref_.as_str()));
    assert_eq!(b[0].stability, Stability::Moved);
    assert_eq!(b[1].stability, Stability::Stable);
}

#[test]
fn slug_rules() {
    assert_eq!(slug("Checkout -- Submit!"), "checkout-submit");
    assert_eq!(slug("  --  "), "");
    assert_eq!(slug("Café"), "caf");
    assert!(slug(&"x".repeat(100)).len() <= 32);
}
