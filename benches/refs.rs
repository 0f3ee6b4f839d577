//! Ref registry: matching an observation of N elements against the previous
//! one (the pure part of every observe), for an unchanged page and for a page
//! whose every element moved (reorder: identity matching, no live nodes).
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pinpoint::model::{Element, Rect, Stability};
use pinpoint::refs::{Candidate, Registry};

fn element(i: usize) -> Element {
    let section = i / 25;
    Element {
        ref_: String::new(),
        role: ["button", "link", "textbox", "checkbox"][i % 4].into(),
        name: format!("Item {} details", i / 4),
        tag: ["button", "a", "input", "input"][i % 4].into(),
        input_type: None,
        bounds: Rect::new(10.0 + (i % 4) as f64 * 200.0, 20.0 * i as f64, 180.0, 18.0),
        in_viewport: i < 36,
        visible: true,
        occluded: false,
        occluded_by: None,
        disabled: false,
        checked: None,
        expanded: None,
        selected: None,
        focused: false,
        editable: i % 4 == 2,
        value: None,
        sensitive: false,
        frame: "main".into(),
        selector: format!("#s{section} > div:nth-of-type({})", i % 25 + 1),
        shadow: false,
        clickable: false,
        stability: Stability::New,
        previous_ref: None,
        test_id: None,
        id: None,
        href: None,
        name_attr: None,
        aria_label: None,
        anchor: format!("heading:Section {section}"),
        region: None,
    }
}

fn cands(n: usize, key_offset: u64) -> Vec<Candidate> {
    (0..n)
        .map(|i| Candidate {
            key: i as u64 + key_offset,
            element: element(i),
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("refs_observe");
    for n in [100usize, 1000, 5000] {
        g.bench_with_input(BenchmarkId::new("unchanged", n), &n, |b, &n| {
            let mut reg = Registry::new();
            reg.observe("doc", cands(n, 0));
            b.iter(|| black_box(reg.observe("doc", cands(n, 0))))
        });
        g.bench_with_input(BenchmarkId::new("rerendered_new_nodes", n), &n, |b, &n| {
            let mut reg = Registry::new();
            reg.observe("doc", cands(n, 0));
            let mut off = 0;
            b.iter(|| {
                off += n as u64;
                black_box(reg.observe("doc", cands(n, off)))
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
