// Page inspection helpers for the BAP observe/* and agent/extract methods.
// Evaluated as `(INSPECT)(op, node, arg)`; returns JSON-able values only.
(function (op, node, arg) {
  const SENSITIVE = (el) => {
    if (!el || el.nodeType !== 1) return false;
    if (el.hasAttribute("data-sensitive")) return true;
    const t = (el.getAttribute("type") || "").toLowerCase();
    if (t === "password") return true;
    const ac = (el.getAttribute("autocomplete") || "").toLowerCase();
    return /cc-|one-time-code|current-password|new-password/.test(ac);
  };
  const REDACTED = "[REDACTED]";
  const clean = (s) => (s || "").replace(/\s+/g, " ").trim();
  // Offset of an element's frame in the top document (page CSS px).
  function pageRect(el) {
    const r = el.getBoundingClientRect();
    let x = r.x, y = r.y;
    let w = el.ownerDocument.defaultView;
    while (w && w !== window.top && w.frameElement) {
      const fr = w.frameElement.getBoundingClientRect();
      const cs = w.frameElement.ownerDocument.defaultView.getComputedStyle(w.frameElement);
      x += fr.x + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
      y += fr.y + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop);
      w = w.parent;
    }
    return { x: x + window.scrollX, y: y + window.scrollY, width: r.width, height: r.height };
  }

  if (op === "element") {
    const el = node;
    if (!el || !el.isConnected) return { found: false };
    const want = new Set(arg || []);
    const all = want.size === 0;
    const out = { found: true };
    const cs = el.ownerDocument.defaultView.getComputedStyle(el);
    if (all || want.has("visible")) {
      const r = el.getBoundingClientRect();
      out.visible = r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    }
    if (all || want.has("enabled")) out.enabled = !(el.disabled || el.closest("fieldset[disabled]") || el.getAttribute("aria-disabled") === "true");
    if (all || want.has("checked")) {
      if ("checked" in el && (el.type === "checkbox" || el.type === "radio")) out.checked = !!el.checked;
      else if (el.hasAttribute("aria-checked")) out.checked = el.getAttribute("aria-checked") === "true";
    }
    if (all || want.has("text")) out.text = clean(el.innerText !== undefined ? el.innerText : el.textContent).slice(0, 10000);
    if ((all || want.has("value")) && "value" in el && typeof el.value === "string") out.value = SENSITIVE(el) ? REDACTED : el.value;
    if (all || want.has("boundingBox")) out.boundingBox = pageRect(el);
    if (all || want.has("attributes")) {
      out.attributes = {};
      for (const a of el.attributes) out.attributes[a.name] = (a.name === "value" && SENSITIVE(el)) ? REDACTED : a.value;
    }
    if (all || want.has("computedStyle")) {
      out.computedStyle = {};
      for (const k of ["display", "visibility", "opacity", "position", "color", "background-color", "font-size", "font-weight", "font-family", "width", "height", "overflow", "z-index", "cursor", "pointer-events"]) {
        out.computedStyle[k] = cs.getPropertyValue(k);
      }
    }
    return out;
  }

  if (op === "content") {
    const fmt = arg;
    if (fmt === "html") return document.documentElement.outerHTML;
    if (fmt === "text") return document.body ? document.body.innerText : "";
    return markdown(document.body);
  }

  if (op === "frames") {
    const out = [];
    const walk = (win, parent, path) => {
      let doc;
      try { doc = win.document; } catch (e) { doc = null; }
      const id = path;
      out.push({ frameId: id, name: parent === null ? "" : (win.name || ""), url: (() => { try { return win.location.href; } catch (e) { return ""; } })(), parentFrameId: parent, isMain: parent === null });
      if (!doc) return;
      const frames = doc.querySelectorAll("iframe, frame");
      frames.forEach((f, i) => {
        const w = f.contentWindow;
        if (!w) return;
        let same = true;
        try { void w.document; } catch (e) { same = false; }
        const cid = id + "/" + (f.id || f.name || ("frame" + i));
        if (same) walk(w, id, cid);
        else out.push({ frameId: cid, name: f.name || "", url: f.src || "", parentFrameId: id, isMain: false });
      });
    };
    walk(window, null, "main");
    return out;
  }

  if (op === "extract") {
    const r = extract(node || document.body, arg.schema || {}, arg.mode || "single");
    r.sources = (r.sources || []).slice(0, 200).map((s) => ({ selector: cssPath(s.el), text: s.text }));
    return r;
  }

  return null;

  function cssPath(el) {
    const parts = [];
    for (let n = el; n && n.nodeType === 1 && n.localName !== "html"; n = n.parentElement) {
      if (n.id && n.ownerDocument.querySelectorAll("#" + CSS.escape(n.id)).length === 1) { parts.unshift("#" + CSS.escape(n.id)); break; }
      let step = n.localName;
      const p = n.parentElement;
      if (p) {
        const same = [...p.children].filter((c) => c.localName === n.localName);
        if (same.length > 1) step += ":nth-of-type(" + (same.indexOf(n) + 1) + ")";
      }
      parts.unshift(step);
    }
    return parts.join(" > ");
  }

  // ---- markdown ----
  function markdown(root) {
    const out = [];
    const inline = (n) => {
      let s = "";
      for (const c of n.childNodes) {
        if (c.nodeType === 3) s += c.textContent.replace(/\s+/g, " ");
        else if (c.nodeType === 1) {
          const t = c.localName;
          const cs = getComputedStyle(c);
          if (cs.display === "none" || cs.visibility === "hidden") continue;
          if (t === "script" || t === "style" || t === "noscript" || t === "template") continue;
          if (t === "br") { s += "\n"; continue; }
          if (t === "img") { const alt = c.getAttribute("alt"); if (alt) s += "![" + alt + "](" + c.src + ")"; continue; }
          if (t === "input" || t === "textarea" || t === "select") {
            const lab = c.getAttribute("aria-label") || c.getAttribute("placeholder") || c.name || c.type;
            s += "[" + (c.type === "checkbox" || c.type === "radio" ? (c.checked ? "x" : " ") + "] " + lab : lab + ": " + (SENSITIVE(c) ? REDACTED : (c.value || "")) + "]");
            continue;
          }
          const inner = inline(c);
          if (t === "a" && c.getAttribute("href")) s += "[" + clean(inner) + "](" + c.href + ")";
          else if (t === "strong" || t === "b") s += clean(inner) ? "**" + clean(inner) + "**" : "";
          else if (t === "em" || t === "i") s += clean(inner) ? "_" + clean(inner) + "_" : "";
          else if (t === "code") s += "`" + inner + "`";
          else if (/^(div|p|section|article|li|tr|h\d|ul|ol|table|header|footer|nav|main|aside|form|fieldset|pre|blockquote)$/.test(t)) s += " " + inner + " ";
          else s += inner;
        }
      }
      return s;
    };
    const block = (n, depth) => {
      for (const c of n.children) {
        const t = c.localName;
        const cs = getComputedStyle(c);
        if (cs.display === "none" || cs.visibility === "hidden") continue;
        if (t === "script" || t === "style" || t === "noscript" || t === "template") continue;
        const h = /^h([1-6])$/.exec(t);
        if (h) { out.push("#".repeat(+h[1]) + " " + clean(inline(c))); continue; }
        if (t === "p" || t === "summary" || t === "label" || t === "button") { const s = clean(inline(c)); if (s) out.push(s); continue; }
        if (t === "pre") { out.push("```\n" + c.textContent.replace(/\n$/, "") + "\n```"); continue; }
        if (t === "blockquote") { out.push("> " + clean(inline(c))); continue; }
        if (t === "hr") { out.push("---"); continue; }
        if (t === "ul" || t === "ol") {
          let i = 1;
          for (const li of c.children) {
            if (li.localName !== "li") continue;
            out.push("  ".repeat(depth) + (t === "ol" ? (i++) + ". " : "- ") + clean(inline(li)));
          }
          continue;
        }
        if (t === "table") {
          const rows = [...c.querySelectorAll("tr")].map((r) => [...r.children].map((td) => clean(inline(td)).replace(/\|/g, "\\|")));
          if (rows.length) {
            const w = Math.max(...rows.map((r) => r.length));
            const pad = (r) => r.concat(Array(w - r.length).fill(""));
            out.push("| " + pad(rows[0]).join(" | ") + " |");
            out.push("|" + " --- |".repeat(w));
            for (const r of rows.slice(1)) out.push("| " + pad(r).join(" | ") + " |");
          }
          continue;
        }
        const blockKids = [...c.children].some((k) => { const d = getComputedStyle(k).display; return d === "block" || d === "flex" || d === "grid" || d === "table" || d === "list-item"; });
        if (c.shadowRoot) { block(c.shadowRoot, depth); continue; }
        if (blockKids) block(c, depth);
        else { const s = clean(inline(c)); if (s) out.push(s); }
      }
    };
    if (root) block(root, 0);
    return out.join("\n\n").replace(/\n{3,}/g, "\n\n");
  }

  // ---- extraction (no model: labels, microdata, class names, structure) ----
  function norm(s) { return (s || "").toLowerCase().replace(/[^a-z0-9]/g, ""); }
  function textOf(el) { return clean(el.innerText !== undefined ? el.innerText : el.textContent); }
  function valueOf(el) {
    if (!el) return null;
    if ("value" in el && typeof el.value === "string" && /^(input|textarea|select)$/.test(el.localName)) return SENSITIVE(el) ? REDACTED : el.value;
    if (el.localName === "img") return el.getAttribute("alt") || el.src;
    if (el.localName === "a" && !textOf(el)) return el.href;
    if (el.localName === "meta") return el.content;
    return textOf(el);
  }
  // The element holding the value of property `key` inside `scope`.
  function findField(scope, key) {
    const k = norm(key);
    const all = scope.querySelectorAll("*");
    // 1. microdata / data attributes / name / id / class containing the key.
    let best = null, bestScore = 0;
    for (const el of all) {
      let sc = 0;
      const ip = norm(el.getAttribute("itemprop"));
      if (ip && ip === k) sc = 10;
      const dn = norm(el.getAttribute("data-field") || el.getAttribute("data-name") || el.getAttribute("data-testid"));
      if (!sc && dn && (dn === k || dn.endsWith(k))) sc = 8;
      const nm = norm(el.getAttribute("name"));
      if (!sc && nm && nm === k) sc = 7;
      const id = norm(el.id);
      if (!sc && id && (id === k || id.endsWith(k))) sc = 6;
      if (!sc) {
        for (const c of el.classList) { const n = norm(c); if (n === k || n.endsWith(k)) { sc = 5; break; } }
      }
      if (sc > bestScore) { best = el; bestScore = sc; }
      if (sc === 10) break;
    }
    if (best) return best;
    // 2. label/value pairs: <dt>Key</dt><dd>, <th>Key</th><td>, <label>Key</label> control, "Key: value".
    for (const el of all) {
      const t = norm(textOf(el));
      if (!t || t.length > 40 || !(t === k || t.replace(/s$/, "") === k.replace(/s$/, ""))) continue;
      if (el.localName === "dt" && el.nextElementSibling) return el.nextElementSibling;
      if (el.localName === "th") {
        const tr = el.parentElement;
        if (tr && tr.parentElement && tr.parentElement.localName !== "thead" && el.nextElementSibling) return el.nextElementSibling;
      }
      if (el.localName === "label" && el.control) return el.control;
      if (el.nextElementSibling && el.children.length === 0) return el.nextElementSibling;
    }
    for (const el of all) {
      if (el.children.length) continue;
      const m = /^([^:]{1,40}):\s*(.+)$/.exec(textOf(el));
      if (m && norm(m[1]) === k) return { __text: m[2] };
    }
    return null;
  }
  function headingOf(scope) {
    return scope.querySelector("h1,h2,h3,h4,h5,h6,[role=heading],strong,b,a");
  }
  function pick(scope, key, spec) {
    const t = (spec && spec.type) || "string";
    const f = findField(scope, key);
    let raw = f ? (f.__text !== undefined ? f.__text : valueOf(f)) : null;
    let el = f && f.__text === undefined ? f : null;
    if (raw === null || raw === "") {
      const k = norm(key);
      if (t === "string" && /(name|title|heading|label)$/.test(k)) { el = headingOf(scope); raw = el ? textOf(el) : null; }
      else if (t === "number" && /(price|cost|amount|total)$/.test(k)) {
        const m = /[-+]?[$€£¥]?\s?\d[\d,]*(\.\d+)?/.exec(textOf(scope)); raw = m ? m[0] : null;
      } else if (/(url|link|href)$/.test(k)) { el = scope.querySelector("a[href]"); raw = el ? el.href : null; }
    }
    if (t === "object" && spec.properties) {
      const o = {}; let n = 0;
      for (const [pk, ps] of Object.entries(spec.properties)) { const v = pick(scope, pk, ps); o[pk] = v.value; if (v.value !== null) n++; }
      return { value: n ? o : null, el: null };
    }
    if (t === "array" && spec.items) {
      const items = listItems(scope, spec.items);
      return { value: items.map((it) => fill(it, spec.items).value), el: null };
    }
    return { value: raw, el };
  }
  function fill(scope, spec) {
    if (!spec || spec.type !== "object" || !spec.properties) {
      return { value: textOf(scope), found: textOf(scope) ? 1 : 0, total: 1, sources: [] };
    }
    const o = {}; let found = 0, total = 0; const sources = [];
    for (const [k, s] of Object.entries(spec.properties)) {
      total++;
      const v = pick(scope, k, s);
      o[k] = v.value === "" ? null : v.value;
      if (o[k] !== null && o[k] !== undefined) { found++; if (v.el) sources.push({ el: v.el, text: typeof v.value === "string" ? v.value : undefined }); }
    }
    return { value: o, found, total, sources };
  }
  // Repeated items: the largest group of same-shaped siblings.
  function listItems(scope, itemSpec) {
    const cands = new Map();
    for (const el of scope.querySelectorAll("*")) {
      if (el.children.length < 2) continue;
      const groups = new Map();
      for (const c of el.children) {
        if (/^(script|style|template)$/.test(c.localName)) continue;
        const key = c.localName + "." + [...c.classList].sort().join(".");
        (groups.get(key) || groups.set(key, []).get(key)).push(c);
      }
      for (const [key, g] of groups) {
        if (g.length < 2) continue;
        const withText = g.filter((x) => textOf(x));
        if (withText.length < 2) continue;
        let score = withText.length * Math.min(5, withText[0].querySelectorAll("*").length + 1);
        if (itemSpec && itemSpec.properties) {
          const hit = Object.keys(itemSpec.properties).filter((k) => findField(withText[0], k)).length;
          score *= 1 + hit;
        }
        if (/^(li|tr|article)$/.test(g[0].localName)) score *= 1.5;
        if (g[0].localName === "tr" && g[0].querySelector("th") && !g[0].querySelector("td")) continue;
        const prev = cands.get(el);
        if (!prev || prev.score < score) cands.set(el, { score, items: withText });
      }
    }
    let best = null;
    for (const v of cands.values()) if (!best || v.score > best.score) best = v;
    return best ? best.items.filter((x) => !(x.localName === "tr" && x.querySelector("th") && !x.querySelector("td"))) : [];
  }
  function table(scope, itemSpec) {
    const t = scope.localName === "table" ? scope : scope.querySelector("table");
    if (!t) return null;
    const rows = [...t.querySelectorAll("tr")];
    if (!rows.length) return null;
    const head = [...rows[0].children].map((c) => textOf(c));
    const keys = itemSpec && itemSpec.properties ? Object.keys(itemSpec.properties) : head;
    const col = keys.map((k) => head.findIndex((h) => norm(h) === norm(k) || norm(h).includes(norm(k)) || norm(k).includes(norm(h))));
    const out = [], els = [];
    for (const r of rows.slice(1)) {
      const cells = [...r.children];
      if (!cells.length) continue;
      const o = {};
      keys.forEach((k, i) => { o[k] = col[i] >= 0 && cells[col[i]] ? textOf(cells[col[i]]) : null; });
      out.push(o); els.push(r);
    }
    return { value: out, els };
  }
  function extract(scope, schema, mode) {
    const items = schema.type === "array" ? schema.items : schema;
    if (mode === "table") {
      const t = table(scope, items);
      if (!t) return { data: [], found: 0, total: 1, sources: [] };
      return { data: t.value, found: t.value.length, total: Math.max(1, t.value.length), sources: t.els.map((e) => ({ el: e, text: textOf(e).slice(0, 200) })) };
    }
    if (mode === "list" || schema.type === "array") {
      let its = listItems(scope, items);
      if (!its.length) { const t = table(scope, items); if (t && t.value.length) return { data: t.value, found: t.value.length, total: t.value.length, sources: t.els.map((e) => ({ el: e })) }; }
      const data = its.map((it) => fill(it, items).value);
      return { data, found: data.length, total: Math.max(1, data.length), sources: its.map((e) => ({ el: e, text: textOf(e).slice(0, 200) })) };
    }
    if (schema.type === "object") {
      const r = fill(scope, schema);
      return { data: r.value, found: r.found, total: r.total, sources: r.sources };
    }
    // A primitive: the first heading, or the scope's text.
    const h = headingOf(scope);
    let v = h ? textOf(h) : textOf(scope).slice(0, 2000);
    return { data: v, found: v ? 1 : 0, total: 1, sources: h ? [{ el: h, text: v }] : [], primitive: true };
  }
})
