// Pinpoint discovery pass: runs once per observation in the top frame and walks
// every open shadow root and same-origin iframe. Returns one JSON string.
// The caller substitutes nothing: options are passed as the argument object.
// Every element found is given a stable in-page key (a counter kept in a
// WeakMap, invisible to the page) so that the registry can tell "the same live
// node" without extra CDP round-trips.
(function (opts) {
  "use strict";
  opts = opts || {};
  const S = Symbol.for("pinpoint.state");
  let st = window[S];
  if (!st) {
    st = {
      seq: 0,
      keyOf: new WeakMap(),
      byKey: new Map(),
      doc: Math.random().toString(36).slice(2, 10) + Date.now().toString(36),
    };
    Object.defineProperty(window, S, { value: st, enumerable: false });
  }
  let keyFor = (el) => {
    let k = st.keyOf.get(el);
    if (k === undefined) {
      k = ++st.seq;
      st.keyOf.set(el, k);
      st.byKey.set(k, new WeakRef(el));
    }
    return k;
  };
  // Drop dead WeakRefs now and then so the map does not grow forever.
  if (st.byKey.size > 50000) {
    for (const [k, r] of st.byKey) if (!r.deref() || !r.deref().isConnected) st.byKey.delete(k);
  }

  // DOM-derived fields of an element (anchor, CSS path, href, sensitivity,
  // and its name when computing it read no style and no form state) are kept
  // across passes and dropped only where a mutation can have changed them.
  // A MutationObserver on every walked root (document, open shadow roots,
  // same-origin iframes) queues records between passes. Each pass marks the
  // composed ancestors of every mutated node ("touched") and drops:
  //  - name, href, sensitivity: when the element itself or anything it read
  //    outside its subtree (its labels, aria-labelledby targets, a slot's host)
  //    was touched, or an id it looked up was added, removed or changed;
  //  - anchor: when the subtree the anchor search read (see `anchorOf`) was touched;
  //  - CSS path: when a node on its chain had its children or id changed, or
  //    an id whose uniqueness it relied on changed.
  // Nodes put back lose their fields (they may have changed unobserved).
  // Everything is dropped when a label, style sheet or <base> comes or goes,
  // a style sheet's text changes, on `for` / `data-sensitive` changes, when
  // the URL changes, when a document's sheet or rule counts change (CSSOM
  // edits make no records), and when more records queue up than are worth
  // sorting; an element's last result is kept through all of it. `style`
  // attribute changes are skipped: no cached field reads style. Everything
  // that depends on layout, style, listeners or form state is recomputed
  // each pass.
  if (!st.dom) {
    const c = { map: new WeakMap(), gen: 0, observed: new WeakSet(), pending: [], all: false, url: location.href };
    c.mo = new MutationObserver((recs) => {
      if (c.all) return;
      for (const r of recs) if (r.type !== "attributes" || r.attributeName !== "style") c.pending.push(r);
      if (c.pending.length > 4000) {
        c.all = true;
        c.pending = [];
        c.mo.disconnect();
        c.observed = new WeakSet();
      }
    });
    st.dom = c;
  }
  const dom = st.dom;
  const GLOBAL_ATTRS = new Set(["for", "data-sensitive"]);
  const ID_ATTRS = new Set(["id", "data-testid"]);
  // (A `data-sensitive` ancestor can only come by that attribute changing or
  // by the element being put back, which drops its fields anyway.)
  const GLOBAL_SEL = "label,style,link,base";
  // Composed ancestors-or-self of every mutated node, nodes whose children or
  // id changed, and id / test id values added, removed or changed.
  // `lists`: parents whose list of children (or a child's class) changed.
  // `attrs`: elements whose own attributes changed.
  const touched = new Set(), targets = new Set(), lists = new Set(), attrs = new Set(), idsChanged = new Set();
  function markUp(n) {
    while (n && !touched.has(n)) {
      touched.add(n);
      n = n.nodeType === 11 ? n.host : n.parentNode;
    }
  }
  // Note the ids and test ids of a node that came or went; true when it is
  // or holds a label, style sheet or <base> (then everything must go).
  function globalOrIds(n) {
    if (n.nodeType !== 1) return false;
    if (n.matches(GLOBAL_SEL) || n.querySelector(GLOBAL_SEL)) return true;
    for (const a of ID_ATTRS) {
      const v = n.getAttribute(a);
      if (v) idsChanged.add(v);
    }
    if (n.firstElementChild) {
      for (const e of n.querySelectorAll("[id],[data-testid]")) {
        for (const a of ID_ATTRS) {
          const v = e.getAttribute(a);
          if (v) idsChanged.add(v);
        }
      }
    }
    return false;
  }
  // Style sheets decide whether generated content can be part of a name
  // (`mayHavePseudo`); CSSOM edits make no mutation records, so each walked
  // document's sheets are fingerprinted (counts of sheets and rules).
  function sheetPrint(doc) {
    let n = 0;
    const add = (list) => {
      n = (n * 31 + list.length) | 0;
      for (const sh of list) {
        try { n = (n * 31 + sh.cssRules.length) | 0; } catch (e) { n = (n * 31 + 7) | 0; }
      }
    };
    try {
      add(doc.styleSheets);
      add(doc.adoptedStyleSheets || []);
    } catch (e) { return 0; }
    return n;
  }
  // Nodes added back may have changed while detached (unobserved): the
  // DOM-derived fields of everything inside them are dropped.
  function forget(n) {
    if (n.nodeType !== 1) return;
    dropFields(n);
    if (n.shadowRoot) for (const c of n.shadowRoot.children) forget(c);
    if (!n.firstElementChild) return;
    for (const e of n.getElementsByTagName("*")) {
      dropFields(e);
      if (e.shadowRoot) for (const c of e.shadowRoot.children) forget(c);
    }
  }
  // Its DOM-derived fields go (see `recordOf`); its last result stays.
  function dropFields(e) {
    const r = dom.map.get(e);
    if (r !== undefined) r.gen = -1;
  }
  let dropAll = dom.all || !!opts.fresh || dom.url !== location.href || !dom.prints;
  if (!dropAll) {
    for (const [doc, n] of dom.prints) {
      if (!doc.defaultView) dom.prints.delete(doc);
      else if (sheetPrint(doc) !== n) { dropAll = true; break; }
    }
  }
  // No mutation anywhere since the last pass: every element's page region
  // (tags, role attributes, the parent chain) is as that pass found it.
  let quiet = false;
  if (!dropAll) {
    const recs = dom.pending.concat(dom.mo.takeRecords());
    quiet = recs.length === 0;
    for (const r of recs) {
      const t = r.target;
      if (r.type === "attributes") {
        const a = r.attributeName;
        if (a === "style") continue;
        if (GLOBAL_ATTRS.has(a)) { dropAll = true; break; }
        if (a === "class" && t.parentNode) lists.add(t.parentNode);
        attrs.add(t);
        if (ID_ATTRS.has(a)) {
          targets.add(t);
          if (r.oldValue) idsChanged.add(r.oldValue);
          const v = t.getAttribute(a);
          if (v) idsChanged.add(v);
        }
        markUp(t);
      } else if (r.type === "characterData") {
        const p = t.parentNode;
        if (p && p.localName === "style") { dropAll = true; break; }
        markUp(p);
      } else {
        if (t.localName === "style") { dropAll = true; break; }
        for (const n of r.addedNodes) {
          if (globalOrIds(n)) dropAll = true;
          else forget(n);
        }
        for (const n of r.removedNodes) if (globalOrIds(n)) dropAll = true;
        if (dropAll) break;
        targets.add(t);
        lists.add(t);
        markUp(t);
      }
    }
  }
  dom.pending = [];
  if (dropAll) {
    // A new generation: records lose their DOM-derived fields as they are
    // met, but keep their last result, so what did not change still travels
    // as its key alone.
    dom.gen++;
    dom.all = false;
    dom.url = location.href;
    dom.prints = new Map();
    dom.mo.disconnect();
    dom.observed = new WeakSet();
    touched.clear();
  }
  const anyTouched = touched.size > 0;
  let cacheKept = 0;
  function watch(root) {
    if (root.nodeType === 9 && !dom.prints.has(root)) dom.prints.set(root, sheetPrint(root));
    if (dom.observed.has(root)) return;
    dom.mo.observe(root, { subtree: true, childList: true, attributes: true, attributeOldValue: true, characterData: true });
    dom.observed.add(root);
  }
  const hitsAny = (nodes, set) => {
    if (nodes) for (const n of nodes) if (set.has(n)) return true;
    return false;
  };
  // The cached record of an element, with stale fields dropped.
  function recordOf(el, root, frameId) {
    let r = dom.map.get(el);
    const sh = !!el.shadowRoot;
    if (r === undefined || r.root !== root || r.frame !== frameId || r.sh !== sh) {
      // Every field up front: one shape for all records.
      r = {
        gen: dom.gen, root, frame: frameId, sh,
        name: undefined, deps: undefined, ids: undefined,
        anchor: undefined, region: undefined, handle: undefined, aDeps: undefined, aIds: undefined, lists: undefined,
        cssPath: undefined, chain: undefined, pathIds: undefined,
        href: undefined, sensitive: undefined, base: undefined, last: undefined, lastPass: 0, land: 0,
      };
      dom.map.set(el, r);
      return r;
    }
    if (r.gen !== dom.gen) {
      r.gen = dom.gen;
      r.name = r.deps = r.ids = r.anchor = r.region = r.handle = r.aDeps = r.aIds = r.lists = undefined;
      r.cssPath = r.chain = r.pathIds = r.href = r.sensitive = r.base = undefined;
      return r;
    }
    let stale = false;
    if (anyTouched || idsChanged.size) {
      if (touched.has(el) || hitsAny(r.deps, touched) || hitsAny(r.ids, idsChanged)) {
        r.name = r.href = r.sensitive = r.deps = r.ids = undefined;
        // Its own id may have come or gone (the chain holds only ancestors).
        r.cssPath = r.chain = r.pathIds = undefined;
        stale = true;
      }
      if (r.anchor !== undefined && (touched.has(r.region) || attrs.has(r.handle) || hitsAny(r.lists, lists) || hitsAny(r.aDeps, touched) || hitsAny(r.aIds, idsChanged))) {
        r.anchor = r.aDeps = r.aIds = r.lists = r.handle = undefined;
        stale = true;
      }
      if (r.cssPath !== undefined && (hitsAny(r.chain, targets) || hitsAny(r.pathIds, idsChanged))) {
        r.cssPath = undefined;
        stale = true;
      }
    }
    if (stale) r.base = undefined;
    return r;
  }
  // What the name / anchor / CSS path being computed read outside the obvious
  // places (see `recordOf`), collected while `sink` is on. Plain variables,
  // not an object per computation: this runs for every element on a cold
  // pass. `record()` starts; the caller turns `sink` off and reads them.
  let sink = false, sDeps, sIds, sLists;
  const readNode = (n) => { if (sink && n) (sDeps || (sDeps = [])).push(n); };
  const readId = (id) => { if (sink && id) (sIds || (sIds = [])).push(id); };
  const readList = (n) => { if (sink && n) (sLists || (sLists = [])).push(n); };
  function record() {
    sink = true;
    sDeps = sIds = sLists = undefined;
  }
  // Set when a name computation reads computed style or form state.
  let styleUsed = false;

  const NATIVE_ROLE_TAGS = new Set(["a", "area", "button", "input", "select", "textarea", "summary", "option"]);
  const WIDGET_ROLES = new Set([
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "textbox", "searchbox", "combobox", "listbox", "slider",
    "spinbutton", "treeitem", "gridcell", "scrollbar",
  ]);
  const NAME_FROM_CONTENT = new Set([
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "treeitem", "cell", "gridcell", "columnheader", "rowheader",
    "heading", "tooltip", "row", "DisclosureTriangle", "sectionhead",
  ]);
  const LANDMARKS = { header: "banner", nav: "navigation", main: "main", aside: "complementary", footer: "contentinfo", form: "form", section: "region", dialog: "dialog", search: "search" };
  const LANDMARK_ROLES = new Set(["banner", "navigation", "main", "complementary", "contentinfo", "form", "region", "dialog", "alertdialog", "search", "tabpanel", "menu", "menubar", "toolbar", "list", "listitem", "row", "article", "group", "radiogroup", "tablist", "tree", "grid", "table"]);
  // Only these can match :disabled (form controls, fieldset inheritance included).
  const FORM_TAGS = new Set(["button", "input", "select", "textarea", "optgroup", "option", "fieldset"]);
  const NOT_TEXT_INPUTS = new Set(["checkbox", "radio", "button", "submit", "reset", "image", "file", "range", "color"]);
  const SENSITIVE_AUTOCOMPLETE = /^(cc-|current-password|new-password|one-time-code)/;

  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  const testIdOf = (el) => el.getAttribute("data-testid") || el.getAttribute("data-test-id") || el.getAttribute("data-test") || el.getAttribute("data-cy") || null;
  const tagOf = (el) => el.localName;

  function explicitRole(el) {
    const r = el.getAttribute("role");
    if (!r) return null;
    for (const t of r.trim().split(/\s+/)) if (t && t !== "none" && t !== "presentation") return t;
    return null;
  }

  function implicitRole(el) {
    const tag = tagOf(el);
    switch (tag) {
      case "a": case "area": return el.hasAttribute("href") ? "link" : "generic";
      case "button": return "button";
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "textarea": return "textbox";
      case "summary": return "DisclosureTriangle";
      case "option": return "option";
      case "details": return "group";
      case "img": return el.getAttribute("alt") === "" ? "none" : "image";
      case "h1": case "h2": case "h3": case "h4": case "h5": case "h6": return "heading";
      case "input": {
        const t = (el.getAttribute("type") || "text").toLowerCase();
        switch (t) {
          case "button": case "submit": case "reset": case "image": return "button";
          case "checkbox": return el.getAttribute("role") === "switch" ? "switch" : "checkbox";
          case "radio": return "radio";
          case "range": return "slider";
          case "number": return "spinbutton";
          case "color": return "ColorWell";
          case "file": return "button";
          case "date": return "Date";
          case "datetime-local": return "DateTime";
          case "time": return "InputTime";
          case "month": return "DateTime";
          case "week": return "DateTime";
          case "search": return el.hasAttribute("list") ? "combobox" : "searchbox";
          default: return el.hasAttribute("list") ? "combobox" : "textbox";
        }
      }
      default:
        if (LANDMARKS[tag]) return LANDMARKS[tag];
        // Chromium: contenteditable hosts stay generic; draggable generics become groups.
        if (el.getAttribute("draggable") === "true") return "group";
        return "generic";
    }
  }
  const roleOf = (el) => explicitRole(el) || implicitRole(el);

  function isHiddenForName(el) {
    if (el.nodeType !== 1) return false;
    if (el.getAttribute("aria-hidden") === "true") return true;
    if (el.hidden) return true;
    styleUsed = true;
    const cs = el.ownerDocument.defaultView.getComputedStyle(el);
    return cs.display === "none" || cs.visibility === "hidden";
  }

  // Text alternative of a node (accname 1.2, the parts Chromium uses for controls).
  // Whether a document's style sheets can generate ::before/::after content at all.
  const pseudoDocs = new Map();
  function mayHavePseudo(doc) {
    let v = pseudoDocs.get(doc);
    if (v === undefined) {
      v = false;
      try {
        for (const sh of [...doc.styleSheets, ...(doc.adoptedStyleSheets || [])]) {
          let rules;
          try { rules = sh.cssRules; } catch (e) { v = true; break; }
          for (const r of rules) {
            const t = r.cssText;
            if (t && (t.includes(":before") || t.includes(":after")) && t.includes("content")) { v = true; break; }
            if (r.cssRules && r.cssRules.length) { v = true; break; }
          }
          if (v) break;
        }
      } catch (e) { v = true; }
      pseudoDocs.set(doc, v);
    }
    return v;
  }
  function pseudoText(el, which) {
    if (!mayHavePseudo(el.ownerDocument)) return "";
    styleUsed = true;
    const c = el.ownerDocument.defaultView.getComputedStyle(el, which).content;
    return c && c !== "none" && c !== "normal" && /^".*"$/.test(c) ? c.slice(1, -1) : "";
  }
  function textAlt(node, depth, inLabelledBy, visited) {
    if (depth > 20) return "";
    if (node.nodeType === 3) return node.data;
    if (node.nodeType !== 1) return "";
    const el = node;
    if (visited.has(el)) return "";
    visited.add(el);
    if (!inLabelledBy && isHiddenForName(el)) return "";
    const aria = norm(el.getAttribute("aria-label"));
    if (aria && depth > 0) return aria;
    const tag = tagOf(el);
    if (depth > 0) {
      if (tag === "img" || (tag === "input" && el.type === "image")) return el.getAttribute("alt") || el.getAttribute("title") || "";
      if (tag === "input" || tag === "textarea" || tag === "select") styleUsed = true;
      if (tag === "input" || tag === "textarea") {
        const t = (el.getAttribute("type") || "text").toLowerCase();
        if (t === "button" || t === "submit" || t === "reset") return el.value || "";
        return el.value || "";
      }
      if (tag === "select") {
        const o = el.selectedOptions && el.selectedOptions[0];
        return o ? norm(o.textContent) : "";
      }
    }
    let out = pseudoText(el, "::before");
    const kids = el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
    for (const c of kids) {
      if (c.nodeType === 1 && tagOf(c) === "slot") {
        // Assigned nodes live outside this subtree, under the host.
        const rt = c.getRootNode();
        if (rt.host) readNode(rt.host);
        for (const a of c.assignedNodes({ flatten: true })) out += addSpace(a, textAlt(a, depth + 1, inLabelledBy, visited));
        continue;
      }
      out += addSpace(c, textAlt(c, depth + 1, inLabelledBy, visited));
    }
    out += pseudoText(el, "::after");
    if (!norm(out) && depth > 0 && el.getAttribute("title")) out = el.getAttribute("title");
    return out;
  }
  function addSpace(node, text) {
    if (!text) return "";
    if (node.nodeType === 1) {
      styleUsed = true;
      const d = node.ownerDocument.defaultView.getComputedStyle(node).display;
      if (d && d !== "inline" && d !== "contents") return " " + text + " ";
    }
    return text;
  }

  function labelledBy(el) {
    const ids = el.getAttribute("aria-labelledby");
    if (!ids) return null;
    const root = el.getRootNode();
    const parts = [];
    for (const id of ids.trim().split(/\s+/)) {
      const t = root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id);
      readId(id);
      readNode(t);
      if (t) parts.push(norm(aria_or_text(t)));
    }
    const s = norm(parts.join(" "));
    return s || null;
  }
  function aria_or_text(t) {
    return norm(t.getAttribute("aria-label")) || textAlt(t, 1, true, new Set());
  }

  function nameOf(el, role) {
    const lb = labelledBy(el);
    if (lb) return lb;
    const aria = norm(el.getAttribute("aria-label"));
    if (aria) return aria;
    const tag = tagOf(el);
    if (tag === "input" || tag === "select" || tag === "textarea") {
      const t = (el.getAttribute("type") || "").toLowerCase();
      if (tag === "input" && (t === "submit" || t === "reset" || t === "button")) {
        if (el.hasAttribute("value")) return norm(el.value);
        return t === "submit" ? "Submit" : t === "reset" ? "Reset" : norm(el.getAttribute("title"));
      }
      if (tag === "input" && t === "image") {
        return norm(el.getAttribute("alt")) || norm(el.getAttribute("value")) || norm(el.getAttribute("title")) || "Submit";
      }
      const labs = labelsOf(el);
      if (labs.length) {
        const s = norm(labs.map((l) => textAlt(l, 1, false, new Set([el]))).join(" "));
        if (s) return s;
      }
      const title = norm(el.getAttribute("title"));
      const ph = norm(el.getAttribute("placeholder"));
      if (tag !== "select") {
        if (ph) return ph;
      }
      if (title) return title;
      return "";
    }
    if (tag === "area" || tag === "img") return norm(el.getAttribute("alt")) || norm(el.getAttribute("title"));
    if (tag === "fieldset") {
      const lg = el.querySelector(":scope > legend");
      if (lg) return norm(textAlt(lg, 1, false, new Set()));
    }
    if (NAME_FROM_CONTENT.has(role) || tag === "summary" || tag === "button" || tag === "a") {
      // Fast path: only text inside and no generated content.
      if (el.childElementCount === 0 && !el.shadowRoot && !mayHavePseudo(el.ownerDocument)) {
        const s = norm(el.textContent);
        if (s) return s;
        return norm(el.getAttribute("title"));
      }
      const s = norm(textAlt(el, 0, false, new Set()));
      if (s) return s;
    }
    return norm(el.getAttribute("title"));
  }

  function isCandidate(el, role, explicit) {
    const tag = tagOf(el);
    if (el.hasAttribute("inert")) return false;
    switch (tag) {
      case "a": case "area": if (el.hasAttribute("href")) return true; break;
      case "button": case "select": case "textarea": return true;
      case "input": return (el.getAttribute("type") || "").toLowerCase() !== "hidden";
      case "summary": return !!(el.parentElement && tagOf(el.parentElement) === "details" && el.parentElement.querySelector(":scope > summary") === el);
    }
    if (explicit && WIDGET_ROLES.has(explicit)) return true;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
    if (el.hasAttribute("tabindex") && el.tabIndex >= 0) return true;
    return false;
  }

  function inInteractiveAncestor(el) {
    for (let p = parentOf(el); p; p = parentOf(p)) {
      if (p.nodeType !== 1) break;
      const tag = tagOf(p);
      if (tag === "a" && p.hasAttribute("href")) return true;
      if (tag === "button" || tag === "select" || tag === "textarea" || tag === "label") return true;
      const r = explicitRole(p);
      if (r && WIDGET_ROLES.has(r)) return true;
    }
    return false;
  }
  function parentOf(el) {
    if (el.parentElement) return el.parentElement;
    const r = el.parentNode;
    if (r && r.host) return r.host; // shadow root -> host
    return null;
  }

  // The page region (landmark) an element sits in: the key of its outermost
  // composed ancestor that is a page-level banner, navigation, main,
  // complementary, contentinfo or search landmark, 0 outside all of them.
  // Reading order keeps a region's marks together (a sidebar beside content
  // whose rows line up is still numbered down the sidebar first). Headers,
  // footers and asides inside an article or section are not page regions
  // (each card of a grid would become its own region). Recomputed every
  // pass that follows a mutation (memoised per ancestor), else kept.
  const PAGE_REGIONS = new Set(["banner", "navigation", "main", "complementary", "contentinfo", "search"]);
  const regionMemo = new Map();
  function isPageRegion(p) {
    const r = explicitRole(p);
    if (r) return PAGE_REGIONS.has(r);
    // role="none" / "presentation" takes the landmark away.
    if (p.hasAttribute("role") && p.getAttribute("role").trim()) return false;
    const t = tagOf(p);
    if (t === "nav" || t === "main" || t === "search") return true;
    if (t === "header" || t === "footer" || t === "aside") {
      const up = p.parentElement;
      return !up || !up.closest(t === "aside" ? "article,aside,nav,section" : "article,aside,main,nav,section");
    }
    return false;
  }
  function regionOf(el, outer) {
    const up = parentOf(el);
    if (up && regionMemo.has(up)) return regionMemo.get(up);
    const path = [];
    let reg = outer;
    for (let n = up; n; n = parentOf(n)) {
      const m = regionMemo.get(n);
      if (m !== undefined) { reg = m; break; }
      path.push(n);
    }
    // Down from the top: the outermost region wins (a header's nav is the banner's).
    for (let i = path.length - 1; i >= 0; i--) {
      const p = path[i];
      if (!reg && isPageRegion(p)) reg = keyFor(p);
      regionMemo.set(p, reg);
    }
    return reg;
  }

  function isSensitive(el, root) {
    const tag = tagOf(el);
    if (el.hasAttribute("data-sensitive") || (rootHas(root, "[data-sensitive]") && el.closest("[data-sensitive]"))) return true;
    if (tag !== "input") return false;
    const t = (el.getAttribute("type") || "").toLowerCase();
    if (t === "password") return true;
    const ac = (el.getAttribute("autocomplete") || "").toLowerCase();
    return SENSITIVE_AUTOCOMPLETE.test(ac);
  }

  function valueOf(el, role) {
    const tag = tagOf(el);
    if (tag === "input") {
      const t = (el.getAttribute("type") || "text").toLowerCase();
      if (t === "checkbox" || t === "radio" || t === "button" || t === "submit" || t === "reset" || t === "image") return null;
      if (t === "file") return el.files && el.files.length ? Array.from(el.files).map((f) => f.name).join(", ") : null;
      return el.value;
    }
    if (tag === "textarea") return el.value;
    if (tag === "select") return Array.from(el.selectedOptions).map((o) => o.value).join(", ");
    if (el.isContentEditable) return norm(el.innerText).slice(0, 200);
    const vn = el.getAttribute("aria-valuenow");
    if (vn !== null) return vn;
    return null;
  }

  // Per-pass caches keep every helper below linear in the page size.
  // `el.labels` is a live list that scans the whole tree on each access
  // (quadratic on a form-heavy page): one pass over the root's labels instead.
  const labelMaps = new Map();
  function labelsOf(el) {
    const root = el.getRootNode();
    let m = labelMaps.get(root);
    if (!m) {
      m = new Map();
      for (const l of root.querySelectorAll("label")) {
        const c = l.control;
        if (!c) continue;
        const a = m.get(c);
        if (a) a.push(l);
        else m.set(c, [l]);
      }
      labelMaps.set(root, m);
    }
    const labs = m.get(el) || [];
    if (sink) {
      readId(el.id);
      for (const l of labs) readNode(l);
      // A label around it labels its first control: which one that is can change.
      const p = el.parentElement;
      readNode(p && p.closest("label"));
    }
    return labs;
  }
  // Whether a root has any element matching `sel` at all (then `closest` is needed).
  const anyCache = new Map();
  function rootHas(root, sel) {
    let m = anyCache.get(root);
    if (!m) anyCache.set(root, (m = new Map()));
    let v = m.get(sel);
    if (v === undefined) m.set(sel, (v = !!root.querySelector(sel)));
    return v;
  }
  const ownText = new Map();
  function textOf(n) {
    let t = ownText.get(n);
    if (t === undefined) ownText.set(n, (t = norm(n.textContent)));
    return t;
  }
  const headingCache = new Map();
  const siblingCache = new Map();
  const labelCache = new Map();
  const uniqCache = new Map();
  const indexCache = new Map();
  function firstHeading(p) {
    let h = headingCache.get(p);
    if (h === undefined) {
      h = p.querySelector("h1,h2,h3,h4,h5,h6,[role=heading]") || null;
      headingCache.set(p, h);
    }
    return h;
  }
  const sameCount = new Map();
  function sameSiblings(p) {
    readList(p.parentElement);
    let n = sameCount.get(p);
    if (n === undefined) sameCount.set(p, (n = countSame(p)));
    return n;
  }
  function countSame(p) {
    const par = p.parentElement;
    if (!par) return 0;
    let m = siblingCache.get(par);
    if (!m) {
      m = new Map();
      for (const s of par.children) {
        const k = s.localName + "|" + s.className;
        m.set(k, (m.get(k) || 0) + 1);
      }
      siblingCache.set(par, m);
    }
    return m.get(p.localName + "|" + p.className) || 0;
  }
  function labelTexts(p) {
    let l = labelCache.get(p);
    if (!l) {
      l = [];
      for (const c of p.querySelectorAll("a[href],h1,h2,h3,h4,h5,h6,[role=heading],label,strong,b,td,th,span,p")) {
        const t = norm(c.textContent);
        if (t) l.push([c, t]);
        if (l.length >= 6) break;
      }
      labelCache.set(p, l);
    }
    return l;
  }
  // How many elements of a root carry this id / test id (one scan per root and attribute).
  function countIn(root, attr, value) {
    let m = uniqCache.get(root);
    if (!m) {
      m = { id: new Map(), "data-testid": new Map() };
      for (const e of root.querySelectorAll("[id],[data-testid]")) {
        for (const a of ["id", "data-testid"]) {
          const v = e.getAttribute(a);
          if (v) m[a].set(v, (m[a].get(v) || 0) + 1);
        }
      }
      uniqCache.set(root, m);
    }
    return m[attr].get(value) || 0;
  }
  // nth-of-type index and same-tag count of a child (one scan per parent).
  function typeIndex(cur) {
    const par = cur.parentElement;
    let m = indexCache.get(par);
    if (!m) {
      m = new Map();
      const counts = new Map();
      for (const s of par.children) {
        const n = (counts.get(s.localName) || 0) + 1;
        counts.set(s.localName, n);
        m.set(s, n);
      }
      m.counts = counts;
      indexCache.set(par, m);
    }
    return [m.get(cur) || 1, m.counts.get(cur.localName) || 1];
  }

  // Stable handle of an ancestor: test id, id, landmark role + name, or the heading of a card/section.
  // The element-independent handle of an ancestor (test id, id, landmark), cached.
  const handleCache = new Map();
  const ANCHOR_ROLES = new Set(["banner", "navigation", "main", "complementary", "contentinfo", "search", "dialog", "alertdialog", "form", "region"]);
  function handleOf(p) {
    let h = handleCache.get(p);
    if (h !== undefined) {
      // Replay what computing it read (aria-labelledby) into the current record.
      if (sink && h && h.startsWith("landmark:") && p.hasAttribute("aria-labelledby")) labelledBy(p);
      return h;
    }
    h = null;
    const tid = testIdOf(p);
    if (tid) h = "testid:" + tid;
    else if (p.id && !/\d{3,}|^:r|^radix-|^react-|^ember\d|^mui-/.test(p.id)) h = "id:" + p.id;
    else {
      const r = explicitRole(p) || LANDMARKS[tagOf(p)] || null;
      if (r && ANCHOR_ROLES.has(r)) {
        const n = norm(p.getAttribute("aria-label")) || (labelledBy(p) || "");
        if (n || r !== "region") h = "landmark:" + r + ":" + n;
      }
    }
    handleCache.set(p, h);
    return h;
  }
  // The subtree the last `anchorOf` read (the ancestors, the card's heading
  // and label texts); the parents whose child lists it compared go to the
  // sink's `lists`. A mutation elsewhere cannot change the anchor.
  // An ancestor's handle depends on its own attributes only (and what
  // aria-labelledby points at): then the region is the subtree below it on
  // the path and `anchorHandle` the ancestor, so an app root with an id does
  // not make every change anywhere inside it re-anchor everything.
  let anchorRegion = null, anchorHandle = null;
  function anchorOf(el, doc) {
    let depth = 0, last = el;
    anchorHandle = null;
    for (let p = parentOf(el); p && depth < 40; p = parentOf(p), depth++) {
      if (p === doc.body || p === doc.documentElement) break;
      const below = last;
      last = p;
      anchorRegion = p;
      const handle = handleOf(p);
      if (handle) {
        anchorRegion = below;
        anchorHandle = p;
        return handle;
      }
      // A card or section: the nearest ancestor that owns a heading.
      const h = firstHeading(p);
      if (h && !h.contains(el)) return "heading:" + norm(h.textContent).slice(0, 80);
      // A row of a repeated structure (list item, table row, card without heading):
      // anchored by its own label text, so a reorder keeps "Edit in the row of X".
      const key = repeatedItemKey(p, el);
      if (key) return "item:" + key;
    }
    anchorRegion = last;
    return "";
  }
  function repeatedItemKey(p, el) {
    if (sameSiblings(p) < 2) return null;
    const own = textOf(el);
    for (const [c, t] of labelTexts(p)) {
      if (c === el || c.contains(el) || el.contains(c)) continue;
      if (t !== own) return t.slice(0, 60);
    }
    const t = textOf(p);
    if (!t || t === own) return null;
    return t.slice(0, 60);
  }

  // A link target as a same-origin path or an absolute URL. In-page anchors
  // made only of plain characters skip the URL parser (the costly part on
  // documentation pages full of "#section" links); the result is identical.
  const docBase = new Map();
  function hrefOf(href, doc) {
    try {
      if (href.charCodeAt(0) === 35 && /^#[A-Za-z0-9_.~-]+$/.test(href)) {
        let b = docBase.get(doc);
        if (b === undefined) {
          const u = new URL(doc.baseURI);
          u.hash = "";
          b = u.origin === location.origin ? u.pathname + u.search : u.href;
          docBase.set(doc, b);
        }
        return b + href;
      }
      const u = new URL(href, doc.baseURI);
      return u.origin === location.origin ? u.pathname + u.search + u.hash : u.href;
    } catch (e) {
      return href;
    }
  }

  // A CSS path unique within its root (document or shadow root).
  // While recording, the parents on the chain go to `deps` and the ids whose
  // uniqueness was checked to `ids`.
  function cssPath(el) {
    const parts = [];
    let cur = el;
    while (cur && cur.nodeType === 1) {
      const root = cur.getRootNode();
      readId(cur.id);
      if (cur.id && countIn(root, "id", cur.id) === 1) {
        parts.unshift("#" + CSS.escape(cur.id));
        break;
      }
      const tid = cur.getAttribute("data-testid");
      readId(tid);
      if (tid && countIn(root, "data-testid", tid) === 1) {
        parts.unshift('[data-testid="' + CSS.escape(tid) + '"]');
        break;
      }
      const tag = tagOf(cur);
      const par = cur.parentElement;
      if (!par) {
        parts.unshift(tag);
        break;
      }
      readNode(par);
      const [idx, same] = typeIndex(cur);
      parts.unshift(same > 1 ? tag + ":nth-of-type(" + idx + ")" : tag);
      if (tag === "body" || tag === "html") break;
      cur = par;
    }
    return parts.join(" > ");
  }

  function describe(el) {
    if (!el) return "unknown";
    let s = tagOf(el);
    if (el.id) s += "#" + el.id;
    else if (el.classList && el.classList.length) s += "." + Array.from(el.classList).slice(0, 2).join(".");
    const r = explicitRole(el);
    if (r) s += '[role="' + r + '"]';
    return s;
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
  function containsComposed(a, b) {
    for (let n = b; n; n = parentOf(n)) if (n === a) return true;
    return false;
  }

  const r2 = (v) => Math.round(v * 100) / 100;
  // Results omit null, false and empty fields (set only when present:
  // deleting keys turns objects into slow dictionaries for JSON.stringify).
  function put(o, k, v) {
    if (v !== null && v !== false && v !== "" && v !== undefined) o[k] = v;
  }
  const topVW = window.innerWidth, topVH = window.innerHeight;
  const sx = window.scrollX, sy = window.scrollY;
  const out = [];
  const frames = [];
  const maxElements = opts.maxElements || 100000;
  let total = 0;

  // Walk one document (frame), with its offset relative to the top viewport.
  function walkDoc(doc, frameId, offX, offY, clip, outerRegion) {
    const win = doc.defaultView;
    const marks = win[Symbol.for("pinpoint.clicks")] || null;
    const roots = [doc];
    while (roots.length) {
      const root = roots.shift();
      watch(root);
      const all = root.querySelectorAll("*");
      for (let i = 0; i < all.length; i++) {
        const el = all[i];
        if (el.shadowRoot) roots.push(el.shadowRoot);
        const tag = el.localName;
        if (tag === "iframe" || tag === "frame") {
          let inner = null;
          try { inner = el.contentDocument; } catch (e) { inner = null; }
          const r = el.getBoundingClientRect();
          const cs = win.getComputedStyle(el);
          const bl = parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
          const bt = parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop);
          const fid = frameId + "/" + (el.id || el.name || "iframe" + frames.length);
          frames.push({ id: fid, url: inner ? inner.URL : el.src, crossOrigin: !inner, cssPath: cssPath(el) });
          if (inner && inner.documentElement) {
            const fx = offX + r.left + bl, fy = offY + r.top + bt;
            const c = { x0: Math.max(clip.x0, fx), y0: Math.max(clip.y0, fy), x1: Math.min(clip.x1, fx + el.clientWidth), y1: Math.min(clip.y1, fy + el.clientHeight) };
            walkDoc(inner, fid, fx, fy, c, regionOf(el, outerRegion));
          }
          continue;
        }
        const explicit = explicitRole(el);
        let cand = isCandidate(el, null, explicit);
        let clickable = false;
        if (!cand) {
          if (el === doc.body || el === doc.documentElement) continue;
          if (!nonSemanticClickable(el, win, marks)) continue;
          cand = true;
          clickable = true;
        }
        const elRoot = el.getRootNode();
        if (rootHas(elRoot, "[inert],[aria-hidden=true]") && el.closest("[inert],[aria-hidden=true]")) continue;
        const rect = el.getBoundingClientRect();
        if (rect.width <= 0 || rect.height <= 0) continue;
        // One visibility call in the common case: visible and opaque.
        const opaque = el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true, opacityProperty: true });
        if (!opaque && !el.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true })) continue;
        total++;
        if (out.length >= maxElements) continue;
        const role = explicit || implicitRole(el);
        const rec = recordOf(el, elRoot, frameId);
        let name = rec.name;
        if (name === undefined) {
          styleUsed = false;
          record();
          name = nameOf(el, role).slice(0, 200);
          sink = false;
          if (!styleUsed) {
            rec.name = name;
            rec.deps = sDeps;
            rec.ids = sIds;
          }
        }
        const bx = rect.left + offX, by = rect.top + offY;
        // Visible part inside the frame clip and the top viewport.
        const vx0 = Math.max(bx, clip.x0, 0), vy0 = Math.max(by, clip.y0, 0);
        const vx1 = Math.min(bx + rect.width, clip.x1, topVW), vy1 = Math.min(by + rect.height, clip.y1, topVH);
        const inViewport = vx1 > vx0 && vy1 > vy0;
        let occluded = false, occludedBy = null, clipped = false;
        if (inViewport) {
          // Hit-test the centre of the visible part (and two more points) in the element's own frame.
          const pts = [[(vx0 + vx1) / 2, (vy0 + vy1) / 2], [vx0 + (vx1 - vx0) * 0.25, (vy0 + vy1) / 2], [vx0 + (vx1 - vx0) * 0.75, (vy0 + vy1) / 2]];
          let hitsOwn = 0, first = null;
          // One own hit settles it (the usual case): later points are only
          // tried while every earlier one hit something else.
          for (const [px, py] of pts) {
            const hit = deepHit(doc, px - offX, py - offY);
            if (hit && (hit === el || containsComposed(el, hit))) {
              hitsOwn++;
              break;
            }
            if (!first) first = hit;
          }
          if (hitsOwn === 0) {
            // Covered by something, or clipped away by an overflow:hidden ancestor.
            if (first && !containsComposed(first, el)) {
              occluded = true;
              occludedBy = describe(first);
            } else clipped = true;
          }
          // The iframe itself may be covered in the top document.
          if (!occluded && frameId !== "main" && doc !== document) {
            const [px, py] = pts[0];
            const hit = deepHit(document, px, py);
            if (hit && !(hit.localName === "iframe" || hit.localName === "frame")) {
              occluded = true;
              occludedBy = describe(hit);
            }
          }
        }
        let sensitive = rec.sensitive;
        if (sensitive === undefined) rec.sensitive = sensitive = isSensitive(el, elRoot);
        let value = valueOf(el, role);
        if (sensitive && value) value = "••••";
        if (value !== null && value.length > 500) value = value.slice(0, 500);
        const t = tagOf(el);
        const typeAttr = t === "input" ? (el.getAttribute("type") || "text").toLowerCase() : null;
        const ariaChecked = el.getAttribute("aria-checked");
        let checked = null;
        if (t === "input" && (typeAttr === "checkbox" || typeAttr === "radio")) checked = el.indeterminate ? "mixed" : el.checked;
        else if (ariaChecked === "true" || ariaChecked === "false") checked = ariaChecked === "true";
        else if (ariaChecked === "mixed") checked = "mixed";
        const ariaExpanded = el.getAttribute("aria-expanded");
        let expanded = ariaExpanded === "true" ? true : ariaExpanded === "false" ? false : null;
        if (t === "summary" && el.parentElement) expanded = el.parentElement.open;
        const ariaSelected = el.getAttribute("aria-selected");
        const selected = ariaSelected === "true" ? true : ariaSelected === "false" ? false : null;
        const disabled = (FORM_TAGS.has(t) && el.matches(":disabled")) || el.getAttribute("aria-disabled") === "true";
        let hrefPath = rec.href;
        if (hrefPath === undefined) {
          const href = el.getAttribute("href");
          rec.href = hrefPath = href && (t === "a" || t === "area") ? hrefOf(href, doc) : null;
        }
        let anchor = rec.anchor;
        if (anchor === undefined) {
          record();
          rec.anchor = anchor = anchorOf(el, doc);
          sink = false;
          rec.region = anchorRegion;
          rec.handle = anchorHandle;
          rec.aDeps = sDeps;
          rec.aIds = sIds;
          rec.lists = sLists;
        }
        let path = rec.cssPath;
        if (path === undefined) {
          record();
          rec.cssPath = path = cssPath(el);
          sink = false;
          rec.chain = sDeps;
          rec.pathIds = sIds;
        }
        // Fields that depend on the DOM only are built once per element
        // (see the cache above); the rest are added each pass.
        let base = rec.base;
        if (base !== undefined) cacheKept++;
        else {
          rec.base = base = {};
          put(base, "key", keyFor(el));
          // The top frame ("main") is the default and not sent.
          if (frameId !== "main") base.frame = frameId;
          put(base, "tag", t);
          put(base, "inputType", typeAttr);
          put(base, "testId", testIdOf(el));
          put(base, "id", el.id);
          put(base, "nameAttr", el.getAttribute("name"));
          put(base, "ariaLabel", el.getAttribute("aria-label"));
          put(base, "placeholder", el.getAttribute("placeholder"));
          put(base, "href", hrefPath);
          put(base, "anchor", anchor);
          put(base, "cssPath", path);
          put(base, "shadow", elRoot !== doc);
          put(base, "sensitive", sensitive);
        }
        const o = { ...base };
        put(o, "role", role);
        put(o, "name", name);
        // [x, y, width, height]: a 5,000-element result is 1.3 MB, and every
        // byte costs on the way out of Chromium (~40 ms per MB measured).
        o.bounds = [r2(bx + sx), r2(by + sy), r2(rect.width), r2(rect.height)];
        put(o, "inViewport", inViewport);
        put(o, "visible", opaque && !clipped);
        put(o, "occluded", occluded);
        put(o, "occludedBy", occludedBy);
        put(o, "clickable", clickable);
        put(o, "disabled", disabled);
        put(o, "checked", checked);
        put(o, "expanded", expanded);
        put(o, "selected", selected);
        put(o, "focused", elRoot.activeElement === el);
        put(o, "editable", (t === "input" && !NOT_TEXT_INPUTS.has(typeAttr)) || t === "textarea" || el.isContentEditable);
        put(o, "readonly", !!el.readOnly);
        put(o, "required", !!el.required || el.getAttribute("aria-required") === "true");
        put(o, "multiple", !!el.multiple);
        put(o, "value", value);
        // Kept from the last pass when nothing mutated since and it was walked then.
        let region = rec.land;
        if (!quiet || rec.lastPass !== st.lastPass) rec.land = region = regionOf(el, outerRegion);
        if (region) o.region = region;
        out.push(reuse && rec.lastPass === st.lastPass && sameResult(o, rec.last) ? base.key : o);
        rec.last = o;
        rec.lastPass = pass;
      }
    }
  }
  // Clickable non-semantic elements: click listeners or an own cursor:pointer,
  // not inside or around a real control (so nothing is listed twice).
  function nonSemanticClickable(el, win, marks) {
    const listened = el.hasAttribute("onclick") || typeof el.onclick === "function" || (marks && marks.has(el));
    if (!listened) {
      if (win.getComputedStyle(el).cursor !== "pointer") return false;
      const p = parentOf(el);
      if (p && p.nodeType === 1 && win.getComputedStyle(p).cursor === "pointer") return false;
    }
    if (tagOf(el) === "label" || tagOf(el) === "option") return false;
    if (inInteractiveAncestor(el)) return false;
    if (el.querySelector("a[href],button,input:not([type=hidden]),select,textarea,[role=button],[role=link]")) return false;
    return true;
  }
  // Results equal to the previous pass's are sent as the element's key alone
  // when the caller says it holds that pass (`opts.have`); the pass number is
  // in the output. Any doubt (another pass in between, a dropped cache) means
  // the full result.
  const pass = (st.passSeq = (st.passSeq || 0) + 1);
  const reuse = opts.have != null && opts.have === st.lastPass;
  function sameResult(a, b) {
    if (b === undefined) return false;
    let n = 0;
    for (const k in a) {
      n++;
      const x = a[k], y = b[k];
      if (x === y) continue;
      if (k !== "bounds" || y === undefined || x[0] !== y[0] || x[1] !== y[1] || x[2] !== y[2] || x[3] !== y[3]) return false;
    }
    for (const k in b) n--;
    return n === 0;
  }
  const T = {};
  if (opts.profile) {
    const wrap = (name, f) => function (...a) { const t = performance.now(); try { return f.apply(this, a); } finally { T[name] = (T[name] || 0) + performance.now() - t; } };
    nameOf = wrap("name", nameOf); anchorOf = wrap("anchor", anchorOf); cssPath = wrap("cssPath", cssPath);
    deepHit = wrap("hit", deepHit); nonSemanticClickable = wrap("clickable", nonSemanticClickable); keyFor = wrap("key", keyFor); isCandidate = wrap("cand", isCandidate); valueOf = wrap("value", valueOf); regionOf = wrap("region", regionOf);
  }
  const full = { x0: -1e9, y0: -1e9, x1: 1e9, y1: 1e9 };
  const tw = performance.now();
  walkDoc(document, "main", 0, 0, full, 0);
  T.walk = performance.now() - tw;
  st.lastPass = pass;
  const json = JSON.stringify({
    doc: st.doc,
    pass,
    url: location.href,
    title: document.title,
    viewport: { width: topVW, height: topVH, scrollX: sx, scrollY: sy, dpr: window.devicePixelRatio },
    page: { width: Math.max(document.documentElement.scrollWidth, document.body ? document.body.scrollWidth : 0), height: Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0) },
    total,
    frames,
    profile: opts.profile ? T : undefined,
    cache: opts.stats ? { kept: cacheKept, dropAll } : undefined,
    elements: out,
  });
  // A large result leaves in parts the caller asks for all at once: Chromium
  // hands a 1 MB string over in ~45 ms but eight 128 KB parts, requested
  // together, in ~21 ms (probe, 5,000 elements). The whole string waits here,
  // under its pass number, and the last part takes it away; the four most
  // recent passes are kept for callers that overlap.
  // Cuts never split a surrogate pair (a lone half would not survive the trip).
  const partLen = opts.part || 131072;
  if (opts.profile || opts.stats || json.length <= partLen) return json;
  const cuts = [0];
  for (let at = partLen; at < json.length; at += partLen) {
    let c = at;
    const u = json.charCodeAt(c - 1);
    if (u >= 0xd800 && u <= 0xdbff) c--;
    if (c > cuts[cuts.length - 1]) cuts.push(c);
  }
  cuts.push(json.length);
  const outs = st.outs || (st.outs = new Map());
  for (const k of outs.keys()) if (k <= pass - 4) outs.delete(k);
  outs.set(pass, { json, cuts });
  return JSON.stringify({ parts: cuts.length - 1, pass });
})
