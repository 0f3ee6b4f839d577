//! Pure label layout for Set-of-Marks: reading-order numbering, collision-free
//! badge placement, and a checker that measures a layout against the rules.
//!
//! All coordinates are output-image pixels. Hard rules: no two badges overlap
//! and every placed badge lies fully inside the image. Soft rules: a badge does
//! not cover another marked box (boxes that contain its own box do not count)
//! when a free spot exists, and it touches its own box or gets a leader line.
//! The result depends only on the inputs (no hashing, no randomness).

use crate::model::{Point, Rect};
use std::cell::Cell;

/// Where one badge goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// Badge rectangle in image pixels (meaningless when `placed` is false).
    pub rect: Rect,
    /// False when no spot inside the image was free of other badges.
    pub placed: bool,
    /// A line from the badge to its box, set when the badge does not touch the box.
    pub leader: Option<(Point, Point)>,
}

/// What [`check_layout`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LayoutReport {
    /// Pairs of placed badges that overlap (must be 0).
    pub badge_overlaps: usize,
    /// Placed badges not fully inside the image (must be 0).
    pub outside_image: usize,
    /// Placed badges covering part of another mark's box (boxes containing their own box excluded).
    pub covering_other_marks: usize,
    /// Placed badges that neither touch their box nor have a leader line.
    pub detached_without_leader: usize,
    /// Badges that could not be placed at all.
    pub unplaced: usize,
}

const CELL: f64 = 32.0;

/// A uniform grid over the image: each cell lists the ids of rectangles touching it.
struct Grid {
    cols: usize,
    rows: usize,
    cells: Vec<Vec<u32>>,
}

impl Grid {
    fn new(w: f64, h: f64) -> Grid {
        let cols = ((w / CELL).ceil() as usize).clamp(1, 4096);
        let rows = ((h / CELL).ceil() as usize).clamp(1, 4096);
        Grid {
            cols,
            rows,
            cells: vec![Vec::new(); cols * rows],
        }
    }

    fn span(&self, r: &Rect) -> (usize, usize, usize, usize) {
        let c = |v: f64, n: usize| ((v / CELL).floor().max(0.0) as usize).min(n - 1);
        (
            c(r.x, self.cols),
            c(r.right(), self.cols),
            c(r.y, self.rows),
            c(r.bottom(), self.rows),
        )
    }

    fn insert(&mut self, id: usize, r: &Rect) {
        let (c0, c1, r0, r1) = self.span(r);
        for row in r0..=r1 {
            for col in c0..=c1 {
                self.cells[row * self.cols + col].push(id as u32);
            }
        }
    }

    /// Calls `f` with each id near `r` (an id may repeat across cells).
    fn each(&self, r: &Rect, mut f: impl FnMut(usize) -> bool) -> bool {
        let (c0, c1, r0, r1) = self.span(r);
        for row in r0..=r1 {
            for col in c0..=c1 {
                for &id in &self.cells[row * self.cols + col] {
                    if f(id as usize) {
                        return true;
                    }
                }
            }
        }
        false
    }
}

fn finite(r: &Rect) -> bool {
    r.x.is_finite() && r.y.is_finite() && r.width.is_finite() && r.height.is_finite()
}

/// Indices of `boxes` in reading order, so that neighbours get neighbouring
/// numbers. A recursive XY cut: each set is cut in two at its widest
/// horizontal gap of whitespace when that is at least [`SECTION_GAP`] (a
/// header, a footer), else at its widest gap either way (top or left part
/// first). A vertical gap counts only where the rows on its two sides do not
/// line up: a sidebar of links beside content is numbered down the sidebar
/// first, while a table, a card grid or links on wrapped text lines stay row
/// by row. What cannot be cut is ordered by rows: boxes whose vertical centres
/// lie within half the smaller box height of the row's first box share a row,
/// left to right. Non-finite boxes go last, in input order.
pub fn reading_order(boxes: &[Rect]) -> Vec<usize> {
    reading_order_in(boxes, &[])
}

/// [`reading_order`] that also knows the page region (landmark) of each box
/// (`None`: outside all of them, itself one region; a short slice: the rest
/// are `None`). Below a section gap, a cut that keeps every region on one
/// side is taken before any other: the widest across bands (regions stacked:
/// a banner, a footer), else the widest across columns. A sidebar is
/// numbered down first even where its rows line up with the content's, and a
/// cut never interleaves one region's marks with another's.
pub fn reading_order_in(boxes: &[Rect], regions: &[Option<u64>]) -> Vec<usize> {
    let (ok, bad): (Vec<usize>, Vec<usize>) = (0..boxes.len()).partition(|&i| finite(&boxes[i]));
    let mut out = Vec::with_capacity(boxes.len());
    let region = |i: usize| regions.get(i).copied().flatten();
    let mixed = ok.iter().any(|&i| region(i) != region(ok[0]));
    let regions = if mixed { regions } else { &[] };
    xy_order(boxes, regions, ok, 0, &mut out);
    out.extend(bad);
    out
}

/// For each cut position `k` (before group `k`) of `groups`, whether it keeps
/// every region on one side. Empty when all boxes share one region.
fn region_cuts(groups: &[(f64, Vec<usize>)], regions: &[Option<u64>]) -> Vec<bool> {
    if regions.is_empty() || groups.len() < 2 {
        return Vec::new();
    }
    let region = |i: usize| regions.get(i).copied().flatten();
    // First and last group of each region.
    let mut span: Vec<(Option<u64>, usize, usize)> = Vec::new();
    for (k, (_, g)) in groups.iter().enumerate() {
        for &i in g {
            let r = region(i);
            match span.iter_mut().find(|s| s.0 == r) {
                Some(s) => s.2 = k,
                None => span.push((r, k, k)),
            }
        }
    }
    if span.len() < 2 {
        return Vec::new();
    }
    // A region spanning groups a..=b blocks the cuts a+1..=b.
    let mut blocked = vec![0i32; groups.len() + 1];
    for &(_, a, b) in &span {
        if a < b {
            blocked[a + 1] += 1;
            blocked[b + 1] -= 1;
        }
    }
    let mut open = 0;
    blocked
        .iter()
        .take(groups.len())
        .map(|&d| {
            open += d;
            open == 0
        })
        .collect()
}

/// Whitespace (px) that separates two bands.
const BAND_GAP: f64 = 2.0;
/// Whitespace (px) that may separate two columns.
const COLUMN_GAP: f64 = 8.0;
/// Horizontal whitespace (px) wide enough to be cut before any column.
const SECTION_GAP: f64 = 24.0;
/// Share of rows that must line up for two columns to read as one.
const ALIGNED_SHARE: f64 = 0.8;

/// Split `idx` along y (`across_x` false) or x into groups separated by at
/// least `min_gap` of whitespace (a negative gap allows that much overlap),
/// each with the whitespace before it.
fn split(
    boxes: &[Rect],
    mut idx: Vec<usize>,
    across_x: bool,
    min_gap: f64,
) -> Vec<(f64, Vec<usize>)> {
    let lo = |i: usize| if across_x { boxes[i].x } else { boxes[i].y };
    let hi = |i: usize| {
        if across_x {
            boxes[i].right()
        } else {
            boxes[i].bottom()
        }
    };
    idx.sort_by(|&a, &b| {
        lo(a)
            .total_cmp(&lo(b))
            .then(hi(a).total_cmp(&hi(b)))
            .then(a.cmp(&b))
    });
    let mut groups: Vec<(f64, Vec<usize>)> = Vec::new();
    let mut reach = f64::NEG_INFINITY;
    for i in idx {
        match groups.last_mut() {
            Some((_, g)) if lo(i) < reach + min_gap => g.push(i),
            _ => groups.push((lo(i) - reach, vec![i])),
        }
        reach = reach.max(hi(i));
    }
    groups
}

/// Whether the rows of two columns line up (a table's columns, links on the
/// same text lines) rather than run independently (a sidebar beside content).
fn rows_line_up(boxes: &[Rect], a: &[usize], b: &[usize]) -> bool {
    let rows = |g: &[usize]| -> Vec<(f64, f64)> {
        split(boxes, g.to_vec(), false, -1.0)
            .iter()
            .map(|(_, r)| {
                let y0 = r.iter().map(|&i| boxes[i].y).fold(f64::INFINITY, f64::min);
                let y1 = r
                    .iter()
                    .map(|&i| boxes[i].bottom())
                    .fold(f64::NEG_INFINITY, f64::max);
                ((y0 + y1) / 2.0, y1 - y0)
            })
            .collect()
    };
    let (ra, rb) = (rows(a), rows(b));
    let (few, many) = if ra.len() <= rb.len() {
        (ra, rb)
    } else {
        (rb, ra)
    };
    let matched = few
        .iter()
        .filter(|(c, h)| {
            many.iter()
                .any(|(c2, h2)| (c - c2).abs() <= 2.0 + 0.1 * h.min(*h2))
        })
        .count();
    matched as f64 >= ALIGNED_SHARE * few.len() as f64
}

fn xy_order(
    boxes: &[Rect],
    regions: &[Option<u64>],
    idx: Vec<usize>,
    depth: usize,
    out: &mut Vec<usize>,
) {
    if idx.len() <= 2 || depth >= 64 {
        by_rows(boxes, idx, out);
        return;
    }
    let bands = split(boxes, idx.clone(), false, BAND_GAP);
    let cols = split(boxes, idx.clone(), true, COLUMN_GAP);
    let (band_cuts, col_cuts) = (region_cuts(&bands, regions), region_cuts(&cols, regions));
    // The widest cut each way (index of the first group after it, and its
    // gap); among equal gaps the one nearest the middle, so that a grid of
    // equal rows is halved rather than peeled row by row.
    let widest = |gaps: &mut dyn Iterator<Item = (usize, f64)>, n: usize| {
        let off_centre = |k: usize| (2 * k).abs_diff(n);
        gaps.fold(None, |best: Option<(usize, f64)>, (k, g)| match best {
            Some((bk, bg)) if g < bg || (g == bg && off_centre(k) >= off_centre(bk)) => best,
            _ => Some((k, g)),
        })
    };
    let h = widest(&mut (1..bands.len()).map(|k| (k, bands[k].0)), bands.len());
    // Vertical gaps are checked for aligned rows only when they could win.
    let beat = h.map_or(f64::NEG_INFINITY, |(_, g)| {
        if g >= SECTION_GAP {
            f64::INFINITY
        } else {
            g
        }
    });
    let v = widest(
        &mut (1..cols.len())
            .filter(|&k| cols[k].0 > beat && !rows_line_up(boxes, &cols[k - 1].1, &cols[k].1))
            .map(|k| (k, cols[k].0)),
        cols.len(),
    );
    // The widest cut that keeps regions apart, across bands before columns.
    let apart = |cuts: &[bool], groups: &[(f64, Vec<usize>)]| {
        widest(
            &mut (1..cuts.len())
                .filter(|&k| cuts[k])
                .map(|k| (k, groups[k].0)),
            groups.len(),
        )
    };
    let sections = h.is_some_and(|(_, g)| g >= SECTION_GAP);
    let (rh, rv) = if sections {
        (None, None)
    } else {
        (apart(&band_cuts, &bands), apart(&col_cuts, &cols))
    };
    let (groups, k) = match (h, v, rh, rv) {
        (_, _, Some((kh, _)), _) => (bands, kh),
        (_, _, None, Some((kv, _))) => (cols, kv),
        // A wide horizontal gap (a header, a footer, a section) is cut first.
        (Some((kh, gh)), _, _, _) if gh >= SECTION_GAP => (bands, kh),
        (Some((_, gh)), Some((kv, gv)), _, _) if gv > gh => (cols, kv),
        (Some((kh, _)), _, _, _) => (bands, kh),
        (None, Some((kv, _)), _, _) => (cols, kv),
        (None, None, _, _) => {
            by_rows(boxes, idx, out);
            return;
        }
    };
    let mut first = Vec::new();
    let mut second = Vec::new();
    for (j, (_, g)) in groups.into_iter().enumerate() {
        if j < k {
            first.extend(g);
        } else {
            second.extend(g);
        }
    }
    xy_order(boxes, regions, first, depth + 1, out);
    xy_order(boxes, regions, second, depth + 1, out);
}

/// Rows top to bottom (vertical centres within half the smaller box height of
/// the row's first box), then left to right.
fn by_rows(boxes: &[Rect], mut ok: Vec<usize>, out: &mut Vec<usize>) {
    let cy = |i: usize| boxes[i].y + boxes[i].height / 2.0;
    ok.sort_by(|&a, &b| {
        cy(a)
            .total_cmp(&cy(b))
            .then(boxes[a].x.total_cmp(&boxes[b].x))
            .then(a.cmp(&b))
    });
    let mut i = 0;
    while i < ok.len() {
        let anchor = ok[i];
        let mut j = i + 1;
        while j < ok.len() {
            let tol = 0.5 * boxes[anchor].height.min(boxes[ok[j]].height).max(1.0);
            if cy(ok[j]) - cy(anchor) <= tol {
                j += 1;
            } else {
                break;
            }
        }
        let mut row = ok[i..j].to_vec();
        row.sort_by(|&a, &b| {
            boxes[a]
                .x
                .total_cmp(&boxes[b].x)
                .then(cy(a).total_cmp(&cy(b)))
                .then(a.cmp(&b))
        });
        out.extend(row);
        i = j;
    }
}

/// Whether `a` touches or overlaps `b` (within one pixel).
fn touches(a: &Rect, b: &Rect) -> bool {
    a.x <= b.right() + 1.0
        && b.x <= a.right() + 1.0
        && a.y <= b.bottom() + 1.0
        && b.y <= a.bottom() + 1.0
}

struct Ctx<'a> {
    boxes: &'a [Rect],
    box_grid: Grid,
    badge_grid: Grid,
    badges: Vec<Rect>,
    w: f64,
    h: f64,
    /// Spots the last resort (step 4 of `place_one`) may still look at in
    /// this layout: a crowded image (thousands of marks that no badge fits
    /// beside) would otherwise scan the whole image for each of them, seconds
    /// in all; once spent, such marks go unplaced (dropped and counted).
    last_resort_budget: Cell<usize>,
    /// The smallest badge size for which the last resort found the image
    /// full of badges: badges only come, so no badge as big can fit later.
    full_for: Cell<Option<(f64, f64)>>,
}

/// A small set of ids: inline for the first few (no allocation for a spot
/// over a handful of boxes, the common case), then a vector.
#[derive(Default)]
struct Seen {
    inline: [usize; 8],
    n: usize,
    more: Vec<usize>,
}

impl Seen {
    /// Whether `id` was new.
    fn insert(&mut self, id: usize) -> bool {
        if self.inline[..self.n].contains(&id) || self.more.contains(&id) {
            return false;
        }
        if self.n < self.inline.len() {
            self.inline[self.n] = id;
            self.n += 1;
        } else {
            self.more.push(id);
        }
        true
    }
}

/// Full-image scans (at the finest step, 4 px) the last resort may make per
/// layout, all marks together: at most ~25 ms at 1280×720.
const LAST_RESORT_SCANS: usize = 8;

impl<'a> Ctx<'a> {
    fn new(boxes: &'a [Rect], w: f64, h: f64) -> Self {
        Ctx {
            boxes,
            box_grid: Grid::new(w, h),
            badge_grid: Grid::new(w, h),
            badges: Vec::new(),
            w,
            h,
            // Spots of a full scan at the finest step (4 px), times the scans allowed.
            last_resort_budget: Cell::new(
                LAST_RESORT_SCANS * ((w / 4.0 + 1.0) * (h / 4.0 + 1.0)) as usize,
            ),
            full_for: Cell::new(None),
        }
    }

    fn inside(&self, r: &Rect) -> bool {
        r.x >= 0.0 && r.y >= 0.0 && r.right() <= self.w && r.bottom() <= self.h
    }

    fn hits_badge(&self, r: &Rect) -> bool {
        self.badge_grid.each(r, |id| self.badges[id].intersects(r))
    }

    /// Area of other marks' boxes covered by `r` (boxes containing box `own` excluded).
    fn cover(&self, r: &Rect, own: usize) -> f64 {
        let mut area = 0.0;
        // A box spanning several grid cells is met once per cell: count it once.
        let mut seen = Seen::default();
        self.box_grid.each(r, |id| {
            if id != own && seen.insert(id) {
                let b = &self.boxes[id];
                if !b.contains(&self.boxes[own]) {
                    if let Some(x) = b.intersection(r) {
                        area += x.area();
                    }
                }
            }
            false
        });
        area
    }

    /// Whether badge `r` lines up better with another nearby box than with its own
    /// (its vertical centre is closer to that box's, which overlaps its band and
    /// lies within two badge heights sideways): readers would pair them wrongly.
    fn ambiguous(&self, r: &Rect, own: usize) -> bool {
        let ob = &self.boxes[own];
        let cy = r.y + r.height / 2.0;
        let own_off = (cy - (ob.y + ob.height / 2.0)).abs();
        let reach = 2.0 * r.height;
        let probe = Rect::new(r.x - reach, r.y, r.width + 2.0 * reach, r.height);
        self.box_grid.each(&probe, |id| {
            if id == own {
                return false;
            }
            let b = &self.boxes[id];
            if b.contains(ob) || !(r.y < b.bottom() && b.y < r.bottom()) {
                return false;
            }
            let hgap = (b.x - r.right()).max(r.x - b.right()).max(0.0);
            hgap < reach && (cy - (b.y + b.height / 2.0)).abs() < own_off
        })
    }
}

/// Distance between two rectangles (0 when they touch or overlap).
fn gap(a: &Rect, b: &Rect) -> f64 {
    let dx = (b.x - a.right()).max(a.x - b.right()).max(0.0);
    let dy = (b.y - a.bottom()).max(a.y - b.bottom()).max(0.0);
    (dx * dx + dy * dy).sqrt()
}

/// The pair of nearest points between a badge and its box, for a leader line.
fn leader(badge: &Rect, b: &Rect) -> (Point, Point) {
    let (cx, cy) = badge.center();
    let bx = cx.clamp(b.x, b.right());
    let by = cy.clamp(b.y, b.bottom());
    let px = bx.clamp(badge.x, badge.right());
    let py = by.clamp(badge.y, badge.bottom());
    (Point { x: px, y: py }, Point { x: bx, y: by })
}

/// The direct candidates for a badge of size `w`×`h` next to box `b`: outside at
/// each corner (above, right, left, below), then inside the corners.
fn direct_candidates(b: &Rect, w: f64, h: f64) -> [Rect; 12] {
    let (l, t, r, btm) = (b.x, b.y, b.right(), b.bottom());
    let at = |x: f64, y: f64| Rect::new(x, y, w, h);
    [
        at(l, t - h),       // above, left-aligned
        at(r - w, t - h),   // above, right-aligned
        at(r, t),           // right, top-aligned
        at(l - w, t),       // left, top-aligned
        at(l, btm),         // below, left-aligned
        at(r - w, btm),     // below, right-aligned
        at(r, btm - h),     // right, bottom-aligned
        at(l - w, btm - h), // left, bottom-aligned
        at(l, t),           // inside corners
        at(r - w, t),
        at(l, btm - h),
        at(r - w, btm - h),
    ]
}

/// Ring `k` of the spiral search: badge positions whose gap to the box is about `k × step`.
fn ring(b: &Rect, w: f64, h: f64, d: f64, step: f64, out: &mut Vec<Rect>) {
    out.clear();
    let x0 = b.x - w - d;
    let x1 = b.right() + d;
    let y0 = b.y - h - d;
    let y1 = b.bottom() + d;
    let nx = ((x1 - x0) / step).ceil().min(2000.0) as usize;
    let ny = ((y1 - y0) / step).ceil().min(2000.0) as usize;
    for i in 0..=nx {
        let x = (x0 + i as f64 * step).min(x1);
        out.push(Rect::new(x, y0, w, h));
        out.push(Rect::new(x, y1, w, h));
    }
    for i in 1..ny {
        let y = y0 + i as f64 * step;
        out.push(Rect::new(x0, y, w, h));
        out.push(Rect::new(x1, y, w, h));
    }
}

/// Place one badge per box. `boxes` are image pixels (already clipped to the
/// image), `badge_sizes[i]` is the (width, height) of box `i`'s badge. Boxes are
/// processed smallest first; ties keep input order. Deterministic.
pub fn layout(boxes: &[Rect], badge_sizes: &[(f64, f64)], image: (u32, u32)) -> Vec<Placement> {
    layout_with(boxes, badge_sizes, image, None)
}

/// Share of a spot's pixels that are page content (text, icons) rather than
/// flat background: 0.0 on a plain area. See [`busy_fraction`].
pub type Busy<'a> = &'a dyn Fn(&Rect) -> f64;

/// A spot counts as covering page content above this share of busy pixels.
pub const BUSY_LIMIT: f64 = 0.04;

/// How much more an inside left corner's page content weighs when every
/// direct spot covers some (see `place_one`).
const INSIDE_LEFT_PENALTY: f64 = 2.0;

/// [`layout`], preferring direct spots that cover no page content (a label's
/// text next to its input, a price under a button) when `busy` can tell.
pub fn layout_with(
    boxes: &[Rect],
    badge_sizes: &[(f64, f64)],
    image: (u32, u32),
    busy: Option<Busy<'_>>,
) -> Vec<Placement> {
    let (w, h) = (f64::from(image.0), f64::from(image.1));
    let n = boxes.len().min(badge_sizes.len());
    let mut out = vec![
        Placement {
            rect: Rect::default(),
            placed: false,
            leader: None,
        };
        boxes.len()
    ];
    let mut ctx = Ctx::new(boxes, w, h);
    ctx.badges.reserve(n);
    let valid = |i: usize| {
        finite(&boxes[i])
            && !boxes[i].is_empty()
            && badge_sizes[i].0.is_finite()
            && badge_sizes[i].1.is_finite()
            && badge_sizes[i].0 > 0.0
            && badge_sizes[i].1 > 0.0
    };
    let mut order: Vec<usize> = (0..n).filter(|&i| valid(i)).collect();
    for &i in &order {
        ctx.box_grid.insert(i, &boxes[i]);
    }
    order.sort_by(|&a, &b| boxes[a].area().total_cmp(&boxes[b].area()).then(a.cmp(&b)));
    let mut ring_buf = Vec::new();
    for i in order {
        let b = boxes[i];
        let (bw, bh) = badge_sizes[i];
        if let Some(r) = place_one(&ctx, i, &b, bw, bh, &mut ring_buf, busy) {
            let id = ctx.badges.len();
            ctx.badges.push(r);
            ctx.badge_grid.insert(id, &r);
            out[i] = Placement {
                rect: r,
                placed: true,
                leader: (!touches(&r, &b)).then(|| leader(&r, &b)),
            };
        }
    }
    out
}

fn place_one(
    ctx: &Ctx,
    i: usize,
    b: &Rect,
    bw: f64,
    bh: f64,
    ring_buf: &mut Vec<Rect>,
    busy: Option<Busy<'_>>,
) -> Option<Rect> {
    if bw > ctx.w || bh > ctx.h {
        return None;
    }
    // The first good direct spot that also covers no page content wins; when
    // every good spot covers some, the one covering least (an inside corner
    // over the blank end of a link rather than over its first letters).
    let busy_of = |r: &Rect| busy.map_or(0.0, |f| f(r));
    let quiet = |r: &Rect| busy_of(r) <= BUSY_LIMIT;
    let mut least_busy: Option<(f64, Rect)> = None;
    // 1. a direct candidate (clamped into the image, still touching the box) that
    //    covers no other box and pairs unambiguously with its own box; else the
    //    first one that at least covers nothing.
    let mut fallback: Option<(f64, Rect)> = None;
    let mut second: Option<Rect> = None;
    for (k, c) in direct_candidates(b, bw, bh).into_iter().enumerate() {
        let cl = Rect::new(
            c.x.clamp(0.0, ctx.w - bw),
            c.y.clamp(0.0, ctx.h - bh),
            bw,
            bh,
        );
        if !touches(&cl, b) || ctx.hits_badge(&cl) {
            continue;
        }
        let cost = ctx.cover(&cl, i);
        if cost == 0.0 {
            // An outside spot pushed onto its own box by the image edge is second best.
            let pushed_in = k < 8 && cl != c && cl.intersects(b);
            if !pushed_in && !ctx.ambiguous(&cl, i) {
                let b = busy_of(&cl);
                if b <= BUSY_LIMIT {
                    return Some(cl);
                }
                // An inside left corner sits over the start of the element's
                // own text, which is what a reader knows it by: it must cover
                // clearly less than a spot over the end.
                let b = if k == 8 || k == 10 {
                    b * INSIDE_LEFT_PENALTY
                } else {
                    b
                };
                if least_busy.is_none_or(|(lb, _)| b < lb) {
                    least_busy = Some((b, cl));
                }
                continue;
            }
            second = second.or(Some(cl));
        } else if fallback.is_none_or(|(fc, _)| cost < fc) {
            fallback = Some((cost, cl));
        }
    }
    if let Some((_, c)) = least_busy {
        return Some(c);
    }
    if second.is_some() {
        return second;
    }
    // 2. spiral search for a free spot nearby (drawn with a leader line): the
    //    nearest spot covering no box and no page content, looking at most
    //    QUIET_RINGS rings beyond the first ring with a box-free spot; else
    //    that ring's nearest box-free spot.
    const QUIET_RINGS: usize = 2;
    let step = (bh / 2.0).max(4.0);
    let mut near_best: Option<(f64, f64, Rect)> = None;
    let mut free: Option<(usize, Rect)> = None;
    for k in 1..=8 {
        if free.is_some_and(|(fk, _)| k > fk + QUIET_RINGS) {
            break;
        }
        ring(b, bw, bh, k as f64 * step, step, ring_buf);
        let mut best: Option<(f64, Rect)> = None;
        let mut best_quiet: Option<(f64, Rect)> = None;
        for c in ring_buf.iter() {
            if !ctx.inside(c) || ctx.hits_badge(c) {
                continue;
            }
            let d = gap(c, b);
            let cost = ctx.cover(c, i);
            if cost == 0.0 {
                if best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, *c));
                }
                if best_quiet.is_none_or(|(bd, _)| d < bd) && quiet(c) {
                    best_quiet = Some((d, *c));
                }
            } else if fallback.is_none() && near_best.is_none_or(|(nc, nd, _)| (cost, d) < (nc, nd))
            {
                near_best = Some((cost, d, *c));
            }
        }
        if let Some((_, c)) = best_quiet {
            return Some(c);
        }
        if let (None, Some((_, c))) = (free, best) {
            free = Some((k, c));
        }
    }
    if let Some((_, c)) = free {
        return Some(c);
    }
    // 3. the least-covering direct candidate, else the least-covering nearby spot.
    if let Some((_, c)) = fallback {
        return Some(c);
    }
    if let Some((_, _, c)) = near_best {
        return Some(c);
    }
    // 4. anywhere in the image that is free of badges: least covering, then
    //    nearest; among the spots as good and at most one badge height
    //    farther, the nearest quiet one. Within the layout's budget (see
    //    `Ctx::last_resort_budget`); skipped where a badge as big already
    //    found the image full.
    if ctx
        .full_for
        .get()
        .is_some_and(|(fw, fh)| bw >= fw && bh >= fh)
    {
        return None;
    }
    let mut spots: Vec<(f64, f64, Rect)> = Vec::new();
    let mut budget = ctx.last_resort_budget.get();
    let mut y = 0.0;
    'scan: while y + bh <= ctx.h {
        let mut x = 0.0;
        while x + bw <= ctx.w {
            if budget == 0 {
                break 'scan;
            }
            budget -= 1;
            let c = Rect::new(x, y, bw, bh);
            if !ctx.hits_badge(&c) {
                spots.push((ctx.cover(&c, i), gap(&c, b), c));
            }
            x += step;
        }
        y += step;
    }
    // The scan ran to the bottom unless the budget ran out first.
    let scanned_all = y + bh > ctx.h;
    ctx.last_resort_budget.set(budget);
    if spots.is_empty() && scanned_all {
        let smaller = ctx
            .full_for
            .get()
            .is_none_or(|(fw, fh)| bw <= fw && bh <= fh);
        if smaller {
            ctx.full_for.set(Some((bw, bh)));
        }
    }
    let best = spots
        .iter()
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)))
        .copied()?;
    let near_quiet = spots
        .iter()
        .filter(|s| s.0 == best.0 && s.1 <= best.1 + bh && quiet(&s.2))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .copied();
    Some(near_quiet.unwrap_or(best).2)
}

/// Share of the pixels of `r` (image pixels) whose luminance is far from the
/// spot's median luminance (its background): text and icons count, a flat or
/// gently shaded background does not. Nor do thin rules crossing the whole
/// spot (a table's or list's border, a panel's edge: at most [`MAX_RULES`]
/// full-length rows or columns each way), which a badge may cover without
/// hiding anything a reader needs. `lum(x, y)` reads one pixel.
pub fn busy_fraction(r: &Rect, size: (u32, u32), lum: impl Fn(u32, u32) -> u8) -> f64 {
    let x0 = r.x.max(0.0).floor() as u32;
    let y0 = r.y.max(0.0).floor() as u32;
    let x1 = (r.right().ceil().max(0.0) as u32).min(size.0);
    let y1 = (r.bottom().ceil().max(0.0) as u32).min(size.1);
    if x1 <= x0 || y1 <= y0 {
        return 0.0;
    }
    let (w, h) = ((x1 - x0) as usize, (y1 - y0) as usize);
    let at = |x: usize, y: usize| lum(x0 + x as u32, y0 + y as u32);
    let mut hist = [0u32; 256];
    for y in 0..h {
        for x in 0..w {
            hist[at(x, y) as usize] += 1;
        }
    }
    let n = (w * h) as u32;
    let mut acc = 0;
    let mut median = 0u8;
    for (v, c) in hist.iter().enumerate() {
        acc += c;
        if acc * 2 >= n {
            median = v as u8;
            break;
        }
    }
    let far_total: u32 = hist
        .iter()
        .enumerate()
        .filter(|(v, _)| (*v as u8).abs_diff(median) > 48)
        .map(|(_, c)| c)
        .sum();
    if far_total == 0 {
        return 0.0;
    }
    let far = |x: usize, y: usize| at(x, y).abs_diff(median) > 48;
    // Far pixels per row and per column.
    let (mut rows, mut cols) = (vec![0u32; h], vec![0u32; w]);
    for (y, row) in rows.iter_mut().enumerate() {
        for (x, col) in cols.iter_mut().enumerate() {
            if far(x, y) {
                *row += 1;
                *col += 1;
            }
        }
    }
    // Rules: rows (columns) far along all but one pixel of their length.
    let full_row = |y: usize| rows[y] as usize + 1 >= w;
    let full_col = |x: usize| cols[x] as usize + 1 >= h;
    let n_rows = (0..h).filter(|&y| full_row(y)).count();
    let n_cols = (0..w).filter(|&x| full_col(x)).count();
    let rules_rows = w >= 4 && (1..=MAX_RULES).contains(&n_rows);
    let rules_cols = h >= 4 && (1..=MAX_RULES).contains(&n_cols);
    let mut content = far_total;
    if rules_rows || rules_cols {
        content = 0;
        for y in 0..h {
            if rules_rows && full_row(y) {
                continue;
            }
            for x in 0..w {
                if !(rules_cols && full_col(x)) {
                    content += u32::from(far(x, y));
                }
            }
        }
    }
    f64::from(content) / f64::from(n)
}

/// At most this many full-length rows (and columns) of a spot count as rules
/// (borders) rather than content: more is a block of colour or large text.
const MAX_RULES: usize = 3;

/// Measure a layout against the hard and soft rules.
pub fn check_layout(boxes: &[Rect], placements: &[Placement], image: (u32, u32)) -> LayoutReport {
    let (w, h) = (f64::from(image.0), f64::from(image.1));
    let mut rep = LayoutReport::default();
    let placed: Vec<(usize, &Placement)> = placements
        .iter()
        .enumerate()
        .filter(|(_, p)| p.placed)
        .collect();
    rep.unplaced = placements.len() - placed.len();
    for (a, (i, p)) in placed.iter().enumerate() {
        let r = &p.rect;
        if !(finite(r) && r.x >= 0.0 && r.y >= 0.0 && r.right() <= w && r.bottom() <= h) {
            rep.outside_image += 1;
        }
        rep.badge_overlaps += placed[a + 1..]
            .iter()
            .filter(|(_, q)| q.rect.intersects(r))
            .count();
        if let Some(own) = boxes.get(*i) {
            let covers = boxes
                .iter()
                .enumerate()
                .any(|(j, b)| j != *i && !b.contains(own) && b.intersects(r));
            if covers {
                rep.covering_other_marks += 1;
            }
            if !touches(r, own) && p.leader.is_none() {
                rep.detached_without_leader += 1;
            }
        }
    }
    rep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_order_groups_rows_then_left_to_right() {
        // Row 1: three boxes with slightly different tops; row 2 below.
        let boxes = [
            Rect::new(300.0, 12.0, 50.0, 20.0), // row 1, right
            Rect::new(10.0, 100.0, 50.0, 20.0), // row 2, left
            Rect::new(10.0, 10.0, 50.0, 20.0),  // row 1, left
            Rect::new(150.0, 15.0, 50.0, 16.0), // row 1, middle (a bit lower)
            Rect::new(200.0, 98.0, 50.0, 24.0), // row 2, right
        ];
        assert_eq!(reading_order(&boxes), vec![2, 3, 0, 1, 4]);
    }

    /// `rows` × `cols` boxes of `size` from `origin`, `pitch` apart, row by row.
    fn grid(
        origin: (f64, f64),
        pitch: (f64, f64),
        size: (f64, f64),
        rows: usize,
        cols: usize,
    ) -> Vec<Rect> {
        (0..rows * cols)
            .map(|k| {
                let (r, c) = ((k / cols) as f64, (k % cols) as f64);
                Rect::new(
                    origin.0 + pitch.0 * c,
                    origin.1 + pitch.1 * r,
                    size.0,
                    size.1,
                )
            })
            .collect()
    }

    #[test]
    fn reading_order_numbers_a_sidebar_before_the_content_beside_it() {
        // 20 touching 16-px sidebar rows; beside them a 3×4 table of links on
        // 19-px rows: the sidebar first (top to bottom), then the table row by row.
        let mut boxes: Vec<Rect> = (0..20)
            .map(|i| Rect::new(0.0, 4.0 + 16.0 * i as f64, 240.0, 16.0))
            .collect();
        boxes.extend(grid((265.0, 108.0), (100.0, 19.0), (80.0, 13.0), 4, 3));
        let want: Vec<usize> = (0..32).collect();
        assert_eq!(reading_order(&boxes), want);
        // The same table alone, or beside a column whose rows line up with it
        // (a table's first column), reads row by row.
        let mut grid: Vec<Rect> = (0..4)
            .map(|r| Rect::new(0.0, 108.0 + 19.0 * r as f64, 240.0, 13.0))
            .collect();
        grid.extend_from_slice(&boxes[20..]);
        let order = reading_order(&grid);
        let row_of = |i: usize| if i < 4 { i } else { (i - 4) / 3 };
        for w in order.windows(2) {
            assert!(row_of(w[0]) <= row_of(w[1]), "{order:?}");
        }
        assert_eq!(&order[..4], &[0, 4, 5, 6]);
    }

    #[test]
    fn reading_order_keeps_page_regions_together_where_rows_line_up() {
        // A 16-px sidebar (navigation) beside 16-px content rows (main) that
        // line up with it exactly: geometry alone reads it as one table, row
        // by row; with regions the sidebar comes first, then the content.
        let mut boxes: Vec<Rect> = (0..10)
            .map(|i| Rect::new(0.0, 4.0 + 16.0 * i as f64, 240.0, 16.0))
            .collect();
        boxes.extend(grid((264.0, 4.0), (120.0, 16.0), (100.0, 16.0), 10, 2));
        let rows_first = reading_order(&boxes);
        assert_eq!(&rows_first[..4], &[0, 10, 11, 1], "{rows_first:?}");
        let mut regions = vec![Some(7); 10];
        regions.extend(vec![Some(9); 20]);
        let want: Vec<usize> = (0..30).collect();
        assert_eq!(reading_order_in(&boxes, &regions), want);
        // The content alone (one region) stays row by row.
        let content: Vec<Rect> = boxes[10..].to_vec();
        assert_eq!(
            reading_order_in(&content, &regions[10..]),
            (0..20).collect::<Vec<_>>()
        );
        // Elements outside every landmark form a region of their own.
        let mut outside = regions.clone();
        outside[..10].fill(None);
        assert_eq!(reading_order_in(&boxes, &outside), want);
        // A short slice: the rest count as outside (the sidebar here).
        assert_eq!(reading_order_in(&boxes, &[None; 10]), rows_first);
    }

    #[test]
    fn reading_order_with_regions_keeps_a_banner_first_and_grids_by_rows() {
        // A banner row (a logo and two links; the links are in a nav inside
        // the header, which is still the banner region: the outermost one),
        // 12 px above a navigation column (40 px to its right: a wider gap)
        // beside a main 2×3 card grid whose cards share the main region: the
        // banner, the sidebar, then the cards row by row.
        let mut boxes = vec![
            Rect::new(10.0, 10.0, 60.0, 20.0),  // 0 logo (banner)
            Rect::new(900.0, 10.0, 60.0, 20.0), // 1 banner nav
            Rect::new(980.0, 10.0, 60.0, 20.0), // 2 banner nav
        ];
        let mut regions = vec![Some(1); 3];
        boxes.extend((0..4).map(|i| Rect::new(10.0, 42.0 + 30.0 * i as f64, 150.0, 20.0)));
        regions.extend([Some(3); 4]);
        boxes.extend(grid((200.0, 42.0), (300.0, 60.0), (280.0, 50.0), 2, 3));
        regions.extend([Some(4); 6]);
        let want: Vec<usize> = (0..13).collect();
        assert_eq!(reading_order_in(&boxes, &regions), want);
    }

    #[test]
    fn reading_order_takes_the_widest_cut_first() {
        // A shop: a header row, a filter column of five checkboxes beside two
        // rows of three "Add to cart" buttons, a footer row. The filter's small
        // gaps between checkboxes do not cut through the product rows.
        let mut boxes = vec![
            Rect::new(24.0, 10.0, 40.0, 32.0),   // 0 header: Home
            Rect::new(1142.0, 10.0, 68.0, 30.0), // 1 header: Sign in
        ];
        for i in 0..5 {
            boxes.push(Rect::new(28.0, 100.0 + 23.0 * i as f64, 12.0, 12.0)); // 2..=6 filter
        }
        boxes.extend(grid((257.0, 135.0), (343.0, 112.0), (80.0, 18.0), 2, 3)); // 7..=12
        boxes.push(Rect::new(24.0, 312.0, 62.0, 16.0)); // 13 footer
        let want: Vec<usize> = (0..14).collect();
        assert_eq!(reading_order(&boxes), want);
    }

    #[test]
    fn reading_order_keeps_links_on_wrapped_lines_in_text_order() {
        // Two touching text lines whose links happen to leave a common x gap.
        let boxes = [
            Rect::new(0.0, 0.0, 50.0, 18.0),
            Rect::new(100.0, 0.0, 50.0, 18.0),
            Rect::new(20.0, 18.0, 50.0, 18.0),
            Rect::new(120.0, 18.0, 50.0, 18.0),
        ];
        assert_eq!(reading_order(&boxes), vec![0, 1, 2, 3]);
    }

    #[test]
    fn reading_order_puts_non_finite_last() {
        let boxes = [
            Rect::new(f64::NAN, 0.0, 10.0, 10.0),
            Rect::new(0.0, 0.0, 10.0, 10.0),
        ];
        assert_eq!(reading_order(&boxes), vec![1, 0]);
    }

    #[test]
    fn layout_obeys_hard_rules_on_a_dense_grid() {
        let mut boxes = Vec::new();
        for row in 0..40 {
            for col in 0..8 {
                boxes.push(Rect::new(col as f64 * 80.0, row as f64 * 16.0, 60.0, 16.0));
            }
        }
        let sizes = vec![(24.0, 16.0); boxes.len()];
        let p = layout(&boxes, &sizes, (640, 640));
        let rep = check_layout(&boxes, &p, (640, 640));
        assert_eq!(rep.badge_overlaps, 0);
        assert_eq!(rep.outside_image, 0);
        assert_eq!(rep.detached_without_leader, 0);
        assert_eq!(rep.unplaced, 0);
    }

    #[test]
    fn layout_prefers_above_left_when_free() {
        let boxes = [Rect::new(100.0, 100.0, 80.0, 30.0)];
        let p = layout(&boxes, &[(20.0, 16.0)], (400, 400));
        assert_eq!(p[0].rect, Rect::new(100.0, 84.0, 20.0, 16.0));
        assert!(p[0].leader.is_none());
    }

    #[test]
    fn layout_clamps_into_the_image_at_the_edges() {
        let boxes = [
            Rect::new(0.0, 0.0, 50.0, 20.0),
            Rect::new(380.0, 390.0, 20.0, 10.0),
        ];
        let p = layout(&boxes, &[(20.0, 16.0), (30.0, 16.0)], (400, 400));
        let rep = check_layout(&boxes, &p, (400, 400));
        assert_eq!(rep.outside_image, 0);
        assert_eq!(rep.badge_overlaps, 0);
        assert!(p.iter().all(|p| p.placed));
    }

    #[test]
    fn layout_survives_bad_input() {
        let boxes = [
            Rect::new(f64::NAN, 0.0, 10.0, 10.0),
            Rect::new(0.0, 0.0, -5.0, 10.0),
            Rect::new(0.0, 0.0, f64::INFINITY, 10.0),
            Rect::new(5.0, 5.0, 10.0, 10.0),
        ];
        let sizes = [(10.0, 10.0), (10.0, 10.0), (10.0, 10.0), (f64::NAN, 10.0)];
        let p = layout(&boxes, &sizes, (100, 100));
        assert!(p.iter().all(|p| !p.placed));
        // A badge larger than the image cannot be placed.
        let p = layout(
            &[Rect::new(0.0, 0.0, 5.0, 5.0)],
            &[(200.0, 16.0)],
            (100, 100),
        );
        assert!(!p[0].placed);
    }

    /// A small box (index 0) surrounded by other marked boxes on every side.
    fn crowded_box() -> Vec<Rect> {
        let mut boxes = vec![Rect::new(100.0, 100.0, 10.0, 10.0)];
        for (x, y) in [(60.0, 60.0), (110.0, 60.0), (60.0, 110.0), (110.0, 110.0)] {
            boxes.push(Rect::new(x, y, 40.0, 40.0));
        }
        boxes.push(Rect::new(60.0, 100.0, 40.0, 10.0));
        boxes.push(Rect::new(110.0, 100.0, 40.0, 10.0));
        boxes.push(Rect::new(100.0, 60.0, 10.0, 40.0));
        boxes.push(Rect::new(100.0, 110.0, 10.0, 40.0));
        boxes
    }

    #[test]
    fn layout_uses_a_leader_when_all_direct_spots_are_taken() {
        // A small box surrounded by other marked boxes on every side.
        let boxes = crowded_box();
        let sizes = vec![(16.0, 16.0); boxes.len()];
        let p = layout(&boxes, &sizes, (300, 300));
        let rep = check_layout(&boxes, &p, (300, 300));
        assert_eq!(rep.badge_overlaps, 0);
        assert_eq!(rep.detached_without_leader, 0);
        assert!(p[0].leader.is_some(), "{:?}", p[0]);
    }

    #[test]
    fn a_leader_badge_avoids_page_content_when_a_quiet_spot_is_near() {
        // The same crowded box as above; page content (text) fills the image
        // except a strip below the crowd, two rings beyond the first free ring.
        let boxes = crowded_box();
        let sizes = vec![(16.0, 16.0); boxes.len()];
        let quiet_band = |y: f64| (166.0..190.0).contains(&y);
        let busy_at = |x: u32, y: u32| -> u8 {
            if quiet_band(f64::from(y)) || (x + y) % 3 != 0 {
                250
            } else {
                20
            }
        };
        let busy = |r: &Rect| busy_fraction(r, (300, 300), busy_at);
        let plain = layout(&boxes, &sizes, (300, 300));
        let p = layout_with(&boxes, &sizes, (300, 300), Some(&busy));
        assert!(p[0].leader.is_some(), "{:?}", p[0]);
        assert!(busy(&plain[0].rect) > BUSY_LIMIT, "{:?}", plain[0]);
        assert!(busy(&p[0].rect) <= BUSY_LIMIT, "{:?}", p[0]);
        // Still near: at most two rings (one badge height) beyond the plain spot.
        assert!(gap(&p[0].rect, &boxes[0]) <= gap(&plain[0].rect, &boxes[0]) + 16.0 + 1e-9);
        let rep = check_layout(&boxes, &p, (300, 300));
        assert_eq!(rep.badge_overlaps, 0);
        assert_eq!(rep.detached_without_leader, 0);
    }

    #[test]
    fn a_crowded_image_keeps_the_rules_and_bounds_the_last_resort() {
        // 3,000 boxes of 6×16 px tile a 1280×720 image: no badge fits beside
        // most of them. The hard rules hold, a good share are placed, the
        // rest are left unplaced (dropped) instead of scanned for one by one.
        let (cols, rows) = (100, 30);
        let boxes: Vec<Rect> = (0..cols * rows)
            .map(|k| {
                Rect::new(
                    12.8 * (k % cols) as f64 + 3.0,
                    24.0 * (k / cols) as f64 + 4.0,
                    6.0,
                    16.0,
                )
            })
            .collect();
        let sizes = vec![(22.0, 16.0); boxes.len()];
        let p = layout(&boxes, &sizes, (1280, 720));
        let rep = check_layout(&boxes, &p, (1280, 720));
        assert_eq!((rep.badge_overlaps, rep.outside_image), (0, 0), "{rep:?}");
        assert_eq!(rep.detached_without_leader, 0, "{rep:?}");
        let placed = p.iter().filter(|p| p.placed).count();
        assert!(placed > 1000 && placed < boxes.len(), "{placed}");
        assert_eq!(rep.unplaced, boxes.len() - placed);
    }

    /// Fill `ctx` with 16-px badges on a `cols` × `rows` grid, except the cells in `free`.
    fn tile_badges(ctx: &mut Ctx, (cols, rows): (usize, usize), free: &[(usize, usize)]) {
        for ty in 0..rows {
            for tx in 0..cols {
                if free.contains(&(tx, ty)) {
                    continue;
                }
                let r = Rect::new(16.0 * tx as f64, 16.0 * ty as f64, 16.0, 16.0);
                ctx.badge_grid.insert(ctx.badges.len(), &r);
                ctx.badges.push(r);
            }
        }
    }

    #[test]
    fn a_full_image_is_scanned_once_per_badge_size() {
        // Badges already tile the whole image: the first last-resort search
        // scans it and finds nothing; later ones, for badges as big, skip.
        let (w, h) = (160.0, 64.0);
        let boxes = [Rect::new(70.0, 20.0, 10.0, 10.0)];
        let mut ctx = Ctx::new(&boxes, w, h);
        ctx.box_grid.insert(0, &boxes[0]);
        tile_badges(&mut ctx, (10, 4), &[]);
        let mut buf = Vec::new();
        let budget = ctx.last_resort_budget.get();
        assert_eq!(
            place_one(&ctx, 0, &boxes[0], 16.0, 16.0, &mut buf, None),
            None
        );
        let spent = budget - ctx.last_resort_budget.get();
        assert!(spent > 0);
        assert_eq!(ctx.full_for.get(), Some((16.0, 16.0)));
        assert_eq!(
            place_one(&ctx, 0, &boxes[0], 20.0, 16.0, &mut buf, None),
            None
        );
        assert_eq!(
            budget - ctx.last_resort_budget.get(),
            spent,
            "no second scan"
        );
        // A smaller badge still looks (and finds nothing either).
        assert_eq!(
            place_one(&ctx, 0, &boxes[0], 8.0, 8.0, &mut buf, None),
            None
        );
        assert!(budget - ctx.last_resort_budget.get() > spent);
        assert_eq!(ctx.full_for.get(), Some((8.0, 8.0)));
    }

    #[test]
    fn the_last_resort_spot_prefers_a_quiet_one_as_near() {
        // Badges tile a 320×96 image except two free 16-px cells equally far
        // from the box: the top-left one over text, the bottom-right one blank.
        let (w, h) = (320.0, 96.0);
        let boxes = [Rect::new(152.0, 40.0, 16.0, 16.0)];
        let mut ctx = Ctx::new(&boxes, w, h);
        ctx.box_grid.insert(0, &boxes[0]);
        tile_badges(&mut ctx, (20, 6), &[(0, 0), (19, 5)]);
        let text = |x: u32, y: u32| {
            if x < 16 && y < 16 && x % 2 == 0 {
                20
            } else {
                250
            }
        };
        let busy = |r: &Rect| busy_fraction(r, (320, 96), text);
        let mut buf = Vec::new();
        let plain = place_one(&ctx, 0, &boxes[0], 16.0, 16.0, &mut buf, None);
        let quiet = place_one(&ctx, 0, &boxes[0], 16.0, 16.0, &mut buf, Some(&busy));
        assert_eq!(plain, Some(Rect::new(0.0, 0.0, 16.0, 16.0)));
        assert_eq!(quiet, Some(Rect::new(304.0, 80.0, 16.0, 16.0)));
    }

    #[test]
    fn dense_rows_get_badges_on_their_own_row() {
        // Stacked 16-px rows of growing width: "above, right-aligned" would be free
        // but sits on the previous row's line, so the badge goes right of its box.
        let boxes: Vec<Rect> = (0..6)
            .map(|i| {
                Rect::new(
                    16.0,
                    32.0 + i as f64 * 16.0,
                    60.0 + (i * 37 % 140) as f64,
                    16.0,
                )
            })
            .collect();
        let p = layout(&boxes, &[(18.0, 16.0); 6], (600, 600));
        for (b, p) in boxes.iter().zip(&p).skip(1) {
            assert_eq!((p.rect.x, p.rect.y), (b.right(), b.y), "{b:?}");
        }
    }

    #[test]
    fn busy_fraction_tells_text_from_background() {
        // 40×20 white image with a dark "text" run in rows 4..10, x 0..20.
        let lum = |x: u32, y: u32| {
            if (4..10).contains(&y) && x < 20 && x % 2 == 0 {
                30
            } else {
                250
            }
        };
        let flat = busy_fraction(&Rect::new(20.0, 0.0, 20.0, 20.0), (40, 20), lum);
        let text = busy_fraction(&Rect::new(0.0, 0.0, 20.0, 20.0), (40, 20), lum);
        assert_eq!(flat, 0.0);
        assert!((text - 0.15).abs() < 1e-9, "{text}");
        // A border (1 px column, 2 px row) crossing the spot is not content;
        // text beside it still is.
        let ruled = |x: u32, y: u32| {
            if x == 25 || (8..10).contains(&y) {
                120
            } else {
                250
            }
        };
        assert_eq!(
            busy_fraction(&Rect::new(20.0, 0.0, 20.0, 20.0), (40, 20), ruled),
            0.0
        );
        let ruled_text = |x: u32, y: u32| lum(x, y).min(ruled(x, y));
        let t = busy_fraction(&Rect::new(0.0, 0.0, 40.0, 20.0), (40, 20), ruled_text);
        assert!((t - 40.0 / 800.0).abs() < 1e-9, "{t}");
        // A rule that stops short of the spot's edge is content.
        let short = |x: u32, y: u32| if x == 25 && y >= 5 { 120 } else { 250 };
        let b = busy_fraction(&Rect::new(20.0, 0.0, 20.0, 20.0), (40, 20), short);
        assert!((b - 15.0 / 400.0).abs() < 1e-9, "{b}");
        // Half the spot dark (a block, an image): not rules.
        let block = |x: u32, _y: u32| if x < 8 { 20 } else { 250 };
        let b = busy_fraction(&Rect::new(0.0, 0.0, 20.0, 20.0), (40, 20), block);
        assert!((b - 0.4).abs() < 1e-9, "{b}");
        // Outside the image: nothing to cover.
        assert_eq!(
            busy_fraction(&Rect::new(50.0, 50.0, 5.0, 5.0), (40, 20), lum),
            0.0
        );
    }

    #[test]
    fn a_rule_crossing_a_spot_does_not_push_the_badge_elsewhere() {
        // A 2-px rule (a panel's border) runs through the spot above the box;
        // sparse text fills everything from the box's top down.
        let b = Rect::new(40.0, 40.0, 60.0, 16.0);
        let lum = |x: u32, y: u32| {
            if (30..32).contains(&y) {
                120
            } else if y >= 40 && x % 8 == 0 && (4..12).contains(&(y % 16)) {
                30
            } else {
                250
            }
        };
        let busy = |r: &Rect| busy_fraction(r, (200, 100), lum);
        // The rule alone would make the spot above busier (32 of 224 px) than
        // the text beside the box (16 of 224).
        let above = Rect::new(40.0, 26.0, 16.0, 14.0);
        assert_eq!(busy(&above), 0.0);
        assert!(busy(&Rect::new(100.0, 40.0, 16.0, 14.0)) > BUSY_LIMIT);
        let p = layout_with(&[b], &[(16.0, 14.0)], (200, 100), Some(&busy));
        assert_eq!(p[0].rect, above);
    }

    #[test]
    fn a_badge_over_its_own_text_covers_the_end_not_the_start() {
        // The box fills the image, so only inside corners remain, all over
        // evenly spread text: the right one (the text's end) is taken.
        let b = Rect::new(0.0, 0.0, 120.0, 14.0);
        let lum = |x: u32, _y: u32| if x % 2 == 0 { 30 } else { 250 };
        let busy = |r: &Rect| busy_fraction(r, (120, 14), lum);
        let p = layout_with(&[b], &[(16.0, 14.0)], (120, 14), Some(&busy));
        assert_eq!((p[0].rect.x, p[0].rect.y), (104.0, 0.0));
        // Much less text under the left corner: that one.
        let lum = |x: u32, _y: u32| if x >= 16 && x % 2 == 0 { 30 } else { 250 };
        let busy = |r: &Rect| busy_fraction(r, (120, 14), lum);
        let p = layout_with(&[b], &[(16.0, 14.0)], (120, 14), Some(&busy));
        assert_eq!((p[0].rect.x, p[0].rect.y), (0.0, 0.0));
    }

    #[test]
    fn badges_leave_page_content_uncovered_when_they_can() {
        // An input with its label text right above its left corner: the usual
        // spot (above, left-aligned) covers the text, above right-aligned does not.
        let b = Rect::new(40.0, 124.0, 320.0, 32.0);
        let label = Rect::new(40.0, 106.0, 60.0, 14.0);
        let busy = |r: &Rect| r.intersection(&label).map_or(0.0, |c| c.area() / r.area());
        let plain = layout(&[b], &[(16.0, 16.0)], (640, 400));
        assert_eq!((plain[0].rect.x, plain[0].rect.y), (40.0, 108.0));
        let p = layout_with(&[b], &[(16.0, 16.0)], (640, 400), Some(&busy));
        assert_eq!((p[0].rect.x, p[0].rect.y), (344.0, 108.0));
        assert!(p[0].leader.is_none());
        // Every good spot busy: the usual corner is kept.
        let all = |_: &Rect| 1.0;
        let p = layout_with(&[b], &[(16.0, 16.0)], (640, 400), Some(&all));
        assert_eq!((p[0].rect.x, p[0].rect.y), (40.0, 108.0));
    }
}
