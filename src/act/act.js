// Pinpoint action helpers, installed once per document as
// window[Symbol.for("pinpoint.act")]. They share the in-page node keys of the
// discovery pass (window[Symbol.for("pinpoint.state")]), so a key found by
// observe or by a selector names the same live node everywhere, across open
// shadow roots and same-origin iframes (all tracked from the top window).
(function () {
  "use strict";
  const A = Symbol.for("pinpoint.act");
  if (window[A]) return true;
  const S = Symbol.for("pinpoint.state");
  function state() {
    let st = window[S];
    if (!st) {
      st = { seq: 0, keyOf: new WeakMap(), byKey: new Map(), doc: Math.random().toString(36).slice(2, 10) + Date.now().toString(36) };
      Object.defineProperty(window, S, { value: st, enumerable: false });
    }
    return st;
  }
  function keyFor(el) {
    const st = state();
    let k = st.keyOf.get(el);
    if (k === undefined) {
      k = ++st.seq;
      st.keyOf.set(el, k);
    }
    st.byKey.set(k, new WeakRef(el));
    return k;
  }
  function node(key, doc) {
    const st = state();
    if (doc && st.doc !== doc) return null;
    const r = st.byKey.get(key);
    const el = r && r.deref();
    return el && el.isConnected ? el : null;
  }
  // A <label> stands for its control in fill/select/check/upload (as a
  // click on it would).
  function control(a) {
    const el = node(a.key, a.doc);
    if (el && el.localName === "label" && el.control) return el.control;
    return el;
  }
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  function parentOf(el) {
    if (el.parentElement) return el.parentElement;
    const r = el.parentNode;
    if (r && r.host) return r.host;
    return null;
  }
  function containsComposed(a, b) {
    for (let n = b; n; n = parentOf(n)) if (n === a) return true;
    return false;
  }
  function describe(el) {
    if (!el) return "nothing";
    let s = el.localName;
    if (el.id) s += "#" + el.id;
    else if (el.classList && el.classList.length) s += "." + Array.from(el.classList).slice(0, 2).join(".");
    const r = el.getAttribute("role");
    if (r) s += '[role="' + r + '"]';
    return s;
  }
  function describeLong(el) {
    const t = norm(el.innerText || el.value || el.getAttribute("aria-label") || "").slice(0, 40);
    return describe(el) + (t ? ' "' + t + '"' : "");
  }
  function deepHit(doc, x, y) {
    let hit = doc.elementFromPoint(x, y);
    let guard = 0;
    while (hit && hit.shadowRoot && guard++ < 20) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }
  // Offset of an element's frame content box in the top viewport.
  function frameOffset(el) {
    let x = 0, y = 0;
    let win = el.ownerDocument.defaultView;
    while (win && win !== window) {
      const fe = win.frameElement;
      if (!fe) break;
      const r = fe.getBoundingClientRect();
      const cs = fe.ownerDocument.defaultView.getComputedStyle(fe);
      x += r.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
      y += r.top + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop);
      win = fe.ownerDocument.defaultView;
    }
    return { x, y };
  }
  function topRect(el) {
    const r = el.getBoundingClientRect();
    const o = frameOffset(el);
    return { x: r.left + o.x, y: r.top + o.y, width: r.width, height: r.height };
  }
  // The element at a top-viewport point, through iframes and shadow roots.
  function hitTop(x, y) {
    let doc = document, ox = 0, oy = 0, hit = null;
    for (let guard = 0; guard < 10; guard++) {
      hit = deepHit(doc, x - ox, y - oy);
      if (!hit || !(hit.localName === "iframe" || hit.localName === "frame")) return hit;
      let inner = null;
      try { inner = hit.contentDocument; } catch (e) { inner = null; }
      if (!inner) return hit;
      const r = hit.getBoundingClientRect();
      const cs = doc.defaultView.getComputedStyle(hit);
      ox += r.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
      oy += r.top + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop);
      doc = inner;
    }
    return hit;
  }
  function isDisabled(el) {
    if (el.matches(":disabled")) return true;
    for (let n = el; n; n = parentOf(n)) if (n.getAttribute && n.getAttribute("aria-disabled") === "true") return true;
    return false;
  }
  const TEXT_TYPES = new Set(["", "text", "search", "email", "url", "tel", "password", "number", "date", "datetime-local", "month", "week", "time"]);
  function isEditable(el) {
    const t = el.localName;
    if (t === "input") return TEXT_TYPES.has((el.getAttribute("type") || "").toLowerCase()) && !el.readOnly;
    if (t === "textarea") return !el.readOnly;
    return !!el.isContentEditable;
  }
  // Every root to search: documents of same-origin frames and open shadow roots.
  function allRoots() {
    const roots = [];
    const queue = [document];
    while (queue.length) {
      const root = queue.shift();
      roots.push(root);
      for (const el of root.querySelectorAll("*")) {
        if (el.shadowRoot) queue.push(el.shadowRoot);
        if (el.localName === "iframe" || el.localName === "frame") {
          let d = null;
          try { d = el.contentDocument; } catch (e) { d = null; }
          if (d && d.documentElement) queue.push(d);
        }
      }
    }
    return roots;
  }
  function textMatch(have, want, exact) {
    have = norm(have);
    if (exact) return have === norm(want);
    return have.toLowerCase().includes(norm(want).toLowerCase());
  }
  function labelText(el) {
    const parts = [];
    if (el.labels) for (const l of el.labels) parts.push(l.textContent);
    const lb = el.getAttribute("aria-labelledby");
    if (lb) {
      const root = el.getRootNode();
      for (const id of lb.trim().split(/\s+/)) {
        const t = root.getElementById ? root.getElementById(id) : null;
        if (t) parts.push(t.textContent);
      }
    }
    const al = el.getAttribute("aria-label");
    if (al) parts.push(al);
    return parts;
  }
  const SKIP = new Set(["script", "style", "head", "template", "noscript", "title", "meta", "link"]);
  function find(q) {
    const out = [];
    const roots = allRoots();
    if (q.kind === "css") {
      for (const r of roots) for (const el of r.querySelectorAll(q.value)) out.push(el);
    } else if (q.kind === "xpath") {
      for (const r of roots) {
        if (r.nodeType !== 9) continue;
        const res = r.evaluate(q.value, r, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
        for (let i = 0; i < res.snapshotLength; i++) {
          const n = res.snapshotItem(i);
          out.push(n.nodeType === 1 ? n : n.parentElement);
        }
      }
    } else if (q.kind === "testid") {
      for (const r of roots) for (const el of r.querySelectorAll("[data-testid],[data-test-id],[data-test],[data-cy]")) {
        const v = el.getAttribute("data-testid") || el.getAttribute("data-test-id") || el.getAttribute("data-test") || el.getAttribute("data-cy");
        if (v === q.value) out.push(el);
      }
    } else if (q.kind === "placeholder") {
      for (const r of roots) for (const el of r.querySelectorAll("[placeholder]")) if (textMatch(el.getAttribute("placeholder"), q.value, q.exact)) out.push(el);
    } else if (q.kind === "label") {
      for (const r of roots) for (const el of r.querySelectorAll("input,select,textarea,button,[contenteditable],[role],[aria-label],[aria-labelledby]")) {
        if (el.localName === "input" && (el.getAttribute("type") || "").toLowerCase() === "hidden") continue;
        if (labelText(el).some((t) => textMatch(t, q.value, q.exact))) out.push(el);
      }
    } else if (q.kind === "text") {
      // Text without <script>/<style> content, memoised per element.
      const memo = new Map();
      const txt = (el) => {
        let t = memo.get(el);
        if (t !== undefined) return t;
        t = "";
        for (const c of el.childNodes) {
          if (c.nodeType === 3) t += c.data;
          else if (c.nodeType === 1 && !SKIP.has(c.localName)) t += " " + txt(c) + " ";
        }
        memo.set(el, t);
        return t;
      };
      for (const r of roots) for (const el of r.querySelectorAll("*")) {
        if (SKIP.has(el.localName)) continue;
        const tag = el.localName;
        if (tag === "input") {
          const t = (el.getAttribute("type") || "").toLowerCase();
          if ((t === "button" || t === "submit" || t === "reset") && textMatch(el.value, q.value, q.exact)) out.push(el);
          continue;
        }
        if (!textMatch(txt(el), q.value, q.exact)) continue;
        // Innermost match only: skip when a child element matches too.
        let childMatches = false;
        for (const c of el.children) {
          if (!SKIP.has(c.localName) && textMatch(txt(c), q.value, q.exact)) { childMatches = true; break; }
        }
        if (!childMatches) out.push(el);
      }
    } else if (q.kind === "point") {
      const el = hitTop(q.x, q.y);
      if (el) out.push(el);
    }
    const seen = new Set();
    const res = [];
    for (const el of out) {
      if (!el || seen.has(el)) continue;
      seen.add(el);
      res.push({ key: keyFor(el), desc: describeLong(el), tag: el.localName });
    }
    return { doc: state().doc, matches: res };
  }
  function fullyInView(el) {
    const r = el.getBoundingClientRect();
    const w = el.ownerDocument.defaultView;
    if (r.top < 0 || r.left < 0 || r.bottom > w.innerHeight || r.right > w.innerWidth) return false;
    const t = topRect(el);
    return t.x >= 0 && t.y >= 0 && t.x + t.width <= window.innerWidth && t.y + t.height <= window.innerHeight;
  }
  // Properties whose animation can move or resize a box.
  const GEOMETRY = /^(transform|translate|rotate|scale|offset|left|top|right|bottom|inset|width|height|margin|padding|border|font|line-height|letter-spacing|flex|grid|inline-size|block-size|min-|max-|zoom|x|y|d)/i;
  function movesBox(an) {
    if (typeof CSSTransition !== "undefined" && an instanceof CSSTransition) return GEOMETRY.test(an.transitionProperty || "");
    const eff = an.effect;
    if (!eff || typeof eff.getKeyframes !== "function") return true;
    for (const kf of eff.getKeyframes()) {
      for (const k of Object.keys(kf)) {
        if (k === "offset" || k === "easing" || k === "composite" || k === "computedOffset") continue;
        const css = k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
        if (GEOMETRY.test(css)) return true;
      }
    }
    return false;
  }
  // Whether a running animation or transition that can move a box targets
  // the element or one of its composed ancestors (iframe elements of parent
  // documents included). Such an element is unstable until the animation
  // finishes: comparing rects across frames is unreliable when the page
  // renders few frames (headless, busy machine), and a box that is still
  // animating may move between the check and the click anyway.
  function animating(el) {
    const chain = new Set();
    const docs = new Set();
    for (let n = el, guard = 0; n && guard < 2000; guard++) {
      chain.add(n);
      docs.add(n.ownerDocument);
      let p = parentOf(n);
      if (!p) {
        const w = n.ownerDocument && n.ownerDocument.defaultView;
        p = w && w !== window ? w.frameElement : null;
      }
      n = p;
    }
    for (const d of docs) {
      for (const an of d.getAnimations()) {
        if (an.playState !== "running") continue;
        const t = an.effect && an.effect.target;
        if (!t || !chain.has(t)) continue;
        if (movesBox(an)) return true;
      }
    }
    return false;
  }
  // One actionability attempt. a = {key, doc, force, visible, enabled, editable, stable, hit, pos}
  function check(a) {
    const el = a.editable ? control(a) : node(a.key, a.doc);
    if (!el) return { status: "detached" };
    const info = { desc: describe(el), tag: el.localName };
    if (a.editable && !isEditable(el)) return Object.assign(info, { status: "not_editable" });
    if (!a.force && a.visible) {
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) return Object.assign(info, { status: "hidden", reason: "it has no size" });
      if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return Object.assign(info, { status: "hidden", reason: "it is hidden (display, visibility or opacity)" });
    }
    if (!a.force && a.enabled && isDisabled(el)) return Object.assign(info, { status: "disabled" });
    if (a.scroll !== false && !fullyInView(el)) el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    if (!a.force && a.stable && animating(el)) return Object.assign(info, { status: "unstable" });
    const rect = topRect(el);
    const x = a.pos ? rect.x + a.pos.x : rect.x + rect.width / 2;
    const y = a.pos ? rect.y + a.pos.y : rect.y + rect.height / 2;
    info.x = x;
    info.y = y;
    info.rect = rect;
    if (!a.force && a.hit) {
      if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) return Object.assign(info, { status: "hidden", reason: "the point is outside the viewport" });
      const hit = hitTop(x, y);
      if (!hit || !containsComposed(el, hit)) {
        // A label of the target forwards the click: that counts as the target.
        const lab = hit && hit.closest ? hit.closest("label") : null;
        if (!(lab && lab.control === el)) return Object.assign(info, { status: "covered", by: describe(hit) });
      }
    }
    info.status = "ok";
    return info;
  }
  function focus(a) {
    const el = control(a);
    if (!el) return { status: "detached" };
    el.focus();
    if (a.selectAll) {
      if (el.localName === "input" || el.localName === "textarea") {
        try { el.select(); } catch (e) { /* types without selection */ }
      } else if (el.isContentEditable) {
        const sel = el.ownerDocument.getSelection();
        const range = el.ownerDocument.createRange();
        range.selectNodeContents(el);
        sel.removeAllRanges();
        sel.addRange(range);
      }
    }
    return { status: "ok" };
  }
  // After fill: make sure the value is what was asked and `change` fired.
  function afterFill(a) {
    const el = control(a);
    if (!el) return { status: "detached" };
    const isField = el.localName === "input" || el.localName === "textarea";
    if (isField) {
      if (el.value !== a.text && el.type !== "number" && el.type !== "date") {
        // Fall back to setting the value (e.g. maxlength or a framework reset).
        return { status: "mismatch", value: el.value };
      }
      el.dispatchEvent(new Event("change", { bubbles: true }));
    } else {
      el.dispatchEvent(new Event("change", { bubbles: true }));
    }
    return { status: "ok", value: isField ? el.value : norm(el.textContent) };
  }
  function select(a) {
    const el = control(a);
    if (!el) return { status: "detached" };
    if (el.localName !== "select") return { status: "not_select", desc: describe(el) };
    if (isDisabled(el)) return { status: "disabled", desc: describe(el) };
    const opts = Array.from(el.options);
    const picked = [];
    for (const w of a.options) {
      let o = null;
      if (w.index !== undefined && w.index !== null) o = opts[w.index] || null;
      else if (w.value !== undefined && w.value !== null) o = opts.find((x) => x.value === w.value) || null;
      if (!o && w.label !== undefined && w.label !== null) o = opts.find((x) => norm(x.label) === norm(w.label)) || null;
      if (!o && w.value !== undefined && w.value !== null) o = opts.find((x) => norm(x.label) === norm(w.value)) || null;
      if (!o) return { status: "no_option", want: w, available: opts.map((x) => x.value + " (" + norm(x.label) + ")") };
      picked.push(o);
    }
    if (picked.length > 1 && !el.multiple) return { status: "not_multiple" };
    for (const o of opts) o.selected = picked.includes(o);
    el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
    return { status: "ok", values: picked.map((o) => o.value) };
  }
  function checked(a) {
    const el = control(a);
    if (!el) return { status: "detached" };
    let v = null;
    if (el.localName === "input" && (el.type === "checkbox" || el.type === "radio")) v = el.checked;
    else {
      const ac = el.getAttribute("aria-checked") || el.getAttribute("aria-pressed");
      if (ac === "true") v = true;
      else if (ac === "false") v = false;
      else if (ac === "mixed") v = "mixed";
    }
    return { status: "ok", checked: v, type: el.type || null, desc: describe(el) };
  }
  function scrollState(a) {
    const el = a.key ? node(a.key, a.doc) : null;
    if (a.key && !el) return { status: "detached" };
    if (el) return { status: "ok", x: el.scrollLeft, y: el.scrollTop };
    return { status: "ok", x: window.scrollX, y: window.scrollY };
  }
  function scrollBy(a) {
    const el = a.key ? node(a.key, a.doc) : null;
    if (a.key && !el) return { status: "detached" };
    (el || window).scrollBy({ left: a.dx, top: a.dy, behavior: "instant" });
    return scrollState(a);
  }
  function scrollTo(a) {
    const el = node(a.key, a.doc);
    if (!el) return { status: "detached" };
    el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    return { status: "ok", rect: topRect(el), inView: fullyInView(el) };
  }
  function fileInput(a) {
    const el = control(a);
    if (!el) return { status: "detached" };
    if (!(el.localName === "input" && el.type === "file")) return { status: "not_file", desc: describe(el) };
    return { status: "ok", multiple: el.multiple };
  }
  function files(a) {
    const el = control(a);
    if (!el) return { status: "detached" };
    return { status: "ok", files: Array.from(el.files || []).map((f) => f.name) };
  }
  Object.defineProperty(window, A, {
    value: { find, check, focus, afterFill, select, checked, scrollState, scrollBy, scrollTo, fileInput, files, node },
    enumerable: false,
  });
  return true;
})()
