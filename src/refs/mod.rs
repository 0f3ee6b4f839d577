//! Stable element refs and the per-page registry (pure).
//!
//! A ref is either a readable slug (`@checkout-submit`) taken from a test id,
//! an id or an aria-label that is unique on the page, or `@e` + the first
//! characters of a blake3 hash over the element's identity features: role,
//! accessible name, tag, input type, `name` attribute, href, the *anchor*
//! (nearest stable ancestor: test id, id, landmark, the heading of its card
//! or section, the text of its list row) and its ordinal among elements with
//! exactly the same features inside that anchor.
//!
//! Matching an observation against the registry, in order:
//! 1. the same live node (in-page key of the same document) keeps its ref,
//!    even if its text changed;
//! 2. the same identity hash keeps its ref (survives `innerHTML = innerHTML`,
//!    framework re-mounts and reorders of anchored items);
//! 3. a scored fuzzy match (same role, similar name, same anchor, near
//!    position) against entries not yet claimed keeps the old ref;
//! 4. everything else gets a new ref. Collisions extend the hash; they never
//!    fall back to list position.
//!
//! Architecture invariant: imports only `model`; no I/O, no async, no browser.

use crate::model::{Changes, Checked, Element, Rect, Stability};
use std::collections::{HashMap, HashSet};

/// Observations an entry may go unseen before it is stale (actions on it fail).
pub const STALE_AFTER: u64 = 3;
/// Observations an entry may go unseen before it is forgotten.
pub const DROP_AFTER: u64 = 6;
/// Hex digits of the hash in a fresh hashed ref (extended on collision).
const HASH_LEN: usize = 6;
/// Minimum fuzzy score (0..1) to keep an old ref for a changed element.
const FUZZY_THRESHOLD: f64 = 0.62;

/// One element handed to the registry: its in-page node key and its facts.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// In-page key of the live DOM node (unique within one document).
    pub key: u64,
    pub element: Element,
}

/// What the registry remembers about one ref.
#[derive(Debug, Clone)]
pub struct Entry {
    pub ref_: String,
    pub identity: [u8; 32],
    pub key: Option<u64>,
    /// Observation number when last seen.
    pub last_seen: u64,
    /// State fingerprint (name, value, checked…) for `changes.updated`.
    state: u64,
    /// The element as last observed (role, name, selector, bounds… for
    /// re-resolution by identity and fuzzy matching).
    pub element: Element,
}

/// Why a ref lookup failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// Seen in the latest observation (or recently enough).
    Live(&'a Entry),
    /// Known, but unseen for [`STALE_AFTER`] observations or more.
    Stale(&'a Entry),
    Unknown,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.ref_ == other.ref_ && self.identity == other.identity
    }
}
impl Eq for Entry {}

/// The per-page ref registry.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// Document token of the page the live keys belong to.
    doc: String,
    observation: u64,
    entries: HashMap<String, Entry>,
    by_key: HashMap<u64, String>,
    by_identity: HashMap<[u8; 32], String>,
    /// Refs of the previous observation (for `changes`).
    last_refs: Vec<String>,
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of observations applied so far.
    pub fn observation(&self) -> u64 {
        self.observation
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The element with in-page key `key` as the latest observation saw it
    /// (`None` if that observation did not include it).
    pub fn latest_by_key(&self, key: u64) -> Option<&Element> {
        let e = self.entries.get(self.by_key.get(&key)?)?;
        (e.key == Some(key) && e.last_seen == self.observation).then_some(&e.element)
    }

    /// Look a ref up (`@x` or `x`).
    pub fn lookup(&self, r: &str) -> Lookup<'_> {
        let key = if r.starts_with('@') {
            r.to_string()
        } else {
            format!("@{r}")
        };
        match self.entries.get(&key) {
            Some(e) if self.observation.saturating_sub(e.last_seen) >= STALE_AFTER => {
                Lookup::Stale(e)
            }
            Some(e) => Lookup::Live(e),
            None => Lookup::Unknown,
        }
    }

    /// The document token the live node keys belong to.
    pub fn doc(&self) -> &str {
        &self.doc
    }

    /// Apply one observation: give every candidate a ref, update the registry,
    /// and report what changed since the previous observation.
    ///
    /// `doc` is the page's document token: when it differs from the previous
    /// one, live node keys are forgotten (the nodes are gone) but identities stay.
    pub fn observe(&mut self, doc: &str, cands: Vec<Candidate>) -> (Vec<Element>, Changes) {
        if self.doc != doc {
            self.by_key.clear();
            for e in self.entries.values_mut() {
                e.key = None;
            }
            self.doc = doc.to_string();
        }
        self.observation += 1;
        let obs = self.observation;
        let n = cands.len();
        let identities = identities(&cands);
        let mut assigned: Vec<Option<(String, Option<String>)>> = vec![None; n];
        let mut claimed: HashSet<String> = HashSet::new();

        // 1. Same live node.
        for (i, c) in cands.iter().enumerate() {
            if let Some(r) = self.by_key.get(&c.key) {
                if claimed.insert(r.clone()) {
                    assigned[i] = Some((r.clone(), None));
                }
            }
        }
        // 2. Same identity.
        for i in 0..n {
            if assigned[i].is_some() {
                continue;
            }
            if let Some(r) = self.by_identity.get(&identities[i]) {
                if !claimed.contains(r) {
                    claimed.insert(r.clone());
                    assigned[i] = Some((r.clone(), None));
                }
            }
        }
        // 3. Fuzzy match of what is left against unclaimed, not-dropped entries.
        let left: Vec<usize> = (0..n).filter(|&i| assigned[i].is_none()).collect();
        if !left.is_empty() {
            let pool: Vec<&Entry> = self
                .entries
                .values()
                .filter(|e| !claimed.contains(&e.ref_))
                .collect();
            if !pool.is_empty() {
                let mut scored: Vec<(f64, usize, &str)> = Vec::new();
                for &i in &left {
                    let el = &cands[i].element;
                    for e in &pool {
                        if e.element.role != el.role || e.element.frame != el.frame {
                            continue;
                        }
                        let s = fuzzy_score(e, el);
                        if s >= FUZZY_THRESHOLD {
                            scored.push((s, i, e.ref_.as_str()));
                        }
                    }
                }
                // Best pairs first; ties broken deterministically by index then ref.
                scored.sort_by(|a, b| {
                    b.0.partial_cmp(&a.0)
                        .unwrap_or(std::cmp::Ordering::Equal)
                        .then(a.1.cmp(&b.1))
                        .then(a.2.cmp(b.2))
                });
                for (_, i, r) in scored {
                    if assigned[i].is_some() || claimed.contains(r) {
                        continue;
                    }
                    claimed.insert(r.to_string());
                    assigned[i] = Some((r.to_string(), None));
                }
            }
        }
        // 4. New refs: a readable slug when unique and free, else a hash.
        if assigned.iter().any(Option::is_none) {
            let slugs = unique_slugs(&cands);
            let mut taken: HashSet<String> = self.entries.keys().cloned().collect();
            taken.extend(claimed.iter().cloned());
            for i in 0..n {
                if assigned[i].is_some() {
                    continue;
                }
                let r = match &slugs[i] {
                    Some(s) if !taken.contains(s) => s.clone(),
                    _ => hashed_ref(&identities[i], &taken),
                };
                taken.insert(r.clone());
                assigned[i] = Some((r, None));
            }
        }
        drop(claimed);

        // Write back: entries seen before are updated in place (their
        // strings reuse their buffers), maps are only touched on change.
        let previous: HashSet<&str> = self.last_refs.iter().map(String::as_str).collect();
        let mut out = Vec::with_capacity(n);
        let mut changes = Changes::default();
        let mut current = Vec::with_capacity(n);
        for (i, c) in cands.into_iter().enumerate() {
            let (r, prev) = assigned[i].take().unwrap_or_default();
            let mut el = c.element;
            let state = state_fingerprint(&el);
            let stability = match self.entries.get(&r) {
                None => Stability::New,
                Some(old) => {
                    if previous.contains(r.as_str()) && old.state != state {
                        changes.updated.push(r.clone());
                    }
                    if moved(&old.element.bounds, &el.bounds) || old.identity != identities[i] {
                        Stability::Moved
                    } else {
                        Stability::Stable
                    }
                }
            };
            if !previous.contains(r.as_str()) {
                changes.added.push(r.clone());
            }
            el.ref_ = r.clone();
            el.stability = stability;
            el.previous_ref = prev;
            if let Some(old) = self.entries.get(&r) {
                if old.identity != identities[i] {
                    self.by_identity.remove(&old.identity);
                }
                if let Some(k) = old.key {
                    if k != c.key {
                        self.by_key.remove(&k);
                    }
                }
            }
            // An identity now claimed by this ref is released by any other entry.
            match self.by_identity.get(&identities[i]) {
                Some(other) if other == &r => {}
                Some(other) => {
                    let other = other.clone();
                    if let Some(o) = self.entries.get_mut(&other) {
                        o.identity = [0; 32];
                    }
                    self.by_identity.insert(identities[i], r.clone());
                }
                None => {
                    self.by_identity.insert(identities[i], r.clone());
                }
            }
            if self.by_key.get(&c.key) != Some(&r) {
                self.by_key.insert(c.key, r.clone());
            }
            match self.entries.get_mut(&r) {
                Some(e) => {
                    e.identity = identities[i];
                    e.key = Some(c.key);
                    e.last_seen = obs;
                    e.state = state;
                    e.element.clone_from(&el);
                }
                None => {
                    self.entries.insert(
                        r.clone(),
                        Entry {
                            ref_: r.clone(),
                            identity: identities[i],
                            key: Some(c.key),
                            last_seen: obs,
                            state,
                            element: el.clone(),
                        },
                    );
                }
            }
            current.push(r);
            out.push(el);
        }
        let now: HashSet<&String> = current.iter().collect();
        changes.removed = self
            .last_refs
            .iter()
            .filter(|r| !now.contains(r))
            .cloned()
            .collect();
        drop(now);
        drop(previous);
        self.last_refs = current;

        // Forget entries unseen for too long.
        let dropped: Vec<String> = self
            .entries
            .values()
            .filter(|e| obs.saturating_sub(e.last_seen) > DROP_AFTER)
            .map(|e| e.ref_.clone())
            .collect();
        for r in dropped {
            if let Some(e) = self.entries.remove(&r) {
                if self.by_identity.get(&e.identity) == Some(&r) {
                    self.by_identity.remove(&e.identity);
                }
                if let Some(k) = e.key {
                    if self.by_key.get(&k) == Some(&r) {
                        self.by_key.remove(&k);
                    }
                }
            }
        }
        (out, changes)
    }

    /// Previous ref of each entry matched when rebuilding from scratch
    /// (`refreshRefs` + `includeRefHistory`): returns a fresh registry and
    /// fills `previous_ref` where an element's new ref differs from its old one.
    pub fn refresh(
        &self,
        doc: &str,
        cands: Vec<Candidate>,
        history: bool,
    ) -> (Registry, Vec<Element>, Changes) {
        let mut fresh = Registry::new();
        let keys: Vec<u64> = cands.iter().map(|c| c.key).collect();
        let (mut els, changes) = fresh.observe(doc, cands);
        if history {
            let ids = {
                let mut v = Vec::with_capacity(els.len());
                for (el, k) in els.iter().zip(&keys) {
                    let old = if self.doc == doc {
                        self.by_key.get(k).cloned()
                    } else {
                        None
                    };
                    let old = old.or_else(|| {
                        fresh
                            .entries
                            .get(&el.ref_)
                            .and_then(|e| self.by_identity.get(&e.identity).cloned())
                    });
                    v.push(old);
                }
                v
            };
            for (el, old) in els.iter_mut().zip(ids) {
                if let Some(old) = old {
                    if old != el.ref_ {
                        el.previous_ref = Some(old);
                        el.stability = Stability::Moved;
                    } else {
                        el.stability = Stability::Stable;
                    }
                }
            }
        }
        (fresh, els, changes)
    }

    /// Entries known to the registry (for diagnostics and re-resolution).
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values()
    }
}

/// Normalise text for identity: collapse whitespace, lowercase.
fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Identity hashes for every candidate (features + ordinal within anchor).
pub fn identities(cands: &[Candidate]) -> Vec<[u8; 32]> {
    let mut seen: HashMap<[u8; 32], u32> = HashMap::new();
    cands
        .iter()
        .map(|c| {
            let base = feature_hash(&c.element);
            let ord = seen.entry(base).or_insert(0);
            let mut h = blake3::Hasher::new();
            h.update(&base);
            h.update(&ord.to_le_bytes());
            *ord += 1;
            *h.finalize().as_bytes()
        })
        .collect()
}

fn feature_hash(e: &Element) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    for part in [
        e.role.as_str(),
        &norm(&e.name),
        e.tag.as_str(),
        e.input_type.as_deref().unwrap_or(""),
        e.test_id.as_deref().unwrap_or(""),
        e.id.as_deref().unwrap_or(""),
        e.name_attr.as_deref().unwrap_or(""),
        e.href.as_deref().unwrap_or(""),
        e.anchor.as_str(),
        e.frame.as_str(),
    ] {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    *h.finalize().as_bytes()
}

/// `@e` + base-32 digits of the identity hash, extended until free.
fn hashed_ref(identity: &[u8; 32], taken: &HashSet<String>) -> String {
    const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
    let mut digits = String::with_capacity(52);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for b in identity {
        acc = (acc << 8) | u32::from(*b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            digits.push(ALPHABET[((acc >> bits) & 31) as usize] as char);
        }
    }
    let mut len = HASH_LEN;
    loop {
        let r = format!("@e{}", &digits[..len.min(digits.len())]);
        if !taken.contains(&r) || len >= digits.len() {
            return r;
        }
        len += 2;
    }
}

/// Lowercase, ASCII letters/digits, runs of anything else become one `-`.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for ch in s.chars() {
        if ch.is_ascii_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(ch.to_ascii_lowercase());
        } else {
            dash = true;
        }
        if out.len() >= 32 {
            break;
        }
    }
    out.trim_matches('-').to_string()
}

/// A slug ref per candidate when its test id / id / aria-label is unique on the page.
fn unique_slugs(cands: &[Candidate]) -> Vec<Option<String>> {
    let mut count: HashMap<String, usize> = HashMap::new();
    let sources: Vec<Option<String>> = cands
        .iter()
        .map(|c| {
            let e = &c.element;
            let pick = [
                e.test_id.as_deref(),
                e.id.as_deref(),
                e.aria_label.as_deref(),
            ]
            .into_iter()
            .flatten()
            .map(slug)
            // A slug that looks like our hashed refs would confuse people.
            .find(|s| s.len() >= 2 && !looks_hashed(s));
            pick.map(|s| format!("@{s}"))
        })
        .collect();
    for s in sources.iter().flatten() {
        *count.entry(s.clone()).or_insert(0) += 1;
    }
    sources
        .into_iter()
        .map(|s| s.filter(|s| count.get(s) == Some(&1)))
        .collect()
}

fn looks_hashed(s: &str) -> bool {
    s.len() >= 7
        && s.starts_with('e')
        && s[1..].chars().all(|c| c.is_ascii_alphanumeric())
        && s[1..].chars().any(|c| c.is_ascii_digit())
}

fn moved(a: &Rect, b: &Rect) -> bool {
    (a.x - b.x).abs() > 2.0
        || (a.y - b.y).abs() > 2.0
        || (a.width - b.width).abs() > 2.0
        || (a.height - b.height).abs() > 2.0
}

fn state_fingerprint(e: &Element) -> u64 {
    let mut h = blake3::Hasher::new();
    h.update(e.name.as_bytes());
    h.update(e.value.as_deref().unwrap_or("").as_bytes());
    let tri = |b: Option<bool>| match b {
        None => 0u8,
        Some(false) => 1,
        Some(true) => 2,
    };
    let checked = match e.checked {
        None => 0u8,
        Some(Checked::Bool(false)) => 1,
        Some(Checked::Bool(true)) => 2,
        Some(Checked::Mixed(_)) => 3,
    };
    h.update(&[
        checked,
        tri(e.expanded),
        tri(e.selected),
        u8::from(e.disabled),
    ]);
    let b = h.finalize();
    let mut x = [0u8; 8];
    x.copy_from_slice(&b.as_bytes()[..8]);
    u64::from_le_bytes(x)
}

/// Similarity of two names in 0..1 (token Jaccard blended with a common-prefix bonus).
fn name_similarity(a: &str, b: &str) -> f64 {
    let a = norm(a);
    let b = norm(b);
    if a == b {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let ta: HashSet<&str> = a.split(' ').collect();
    let tb: HashSet<&str> = b.split(' ').collect();
    let inter = ta.intersection(&tb).count() as f64;
    let union = ta.union(&tb).count() as f64;
    let jac = if union > 0.0 { inter / union } else { 0.0 };
    let prefix = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count() as f64
        / a.chars().count().max(b.chars().count()) as f64;
    jac.max(prefix)
}

fn fuzzy_score(entry: &Entry, el: &Element) -> f64 {
    let e = &entry.element;
    // Role (and frame) already equal.
    let mut score = 0.0;
    let mut max = 0.0;
    max += 1.0;
    if e.tag == el.tag {
        score += 1.0;
    }
    max += 3.0;
    score += 3.0 * name_similarity(&e.name, &el.name);
    max += 2.0;
    if e.anchor == el.anchor {
        score += 2.0;
    }
    max += 2.0;
    let d = e.bounds.center_distance(&el.bounds);
    score += 2.0 * (1.0 - (d / 400.0).min(1.0));
    max += 1.0;
    if e.selector == el.selector {
        score += 1.0;
    }
    score / max
}

#[cfg(test)]
mod tests;
