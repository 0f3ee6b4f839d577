// One seeded random DOM mutation, for the cache-invalidation test: called as
// `(src)(seed)`, it picks an element of the page (open shadow roots and
// same-origin iframes included) and changes it the way real pages do (text,
// attributes, ids, roles, labels, moves, inserts, removals, re-renders,
// wrappers, style sheets, URL changes, edits made while detached). Returns a
// description of what it did, for the failure message.
(function (seed) {
  let x = (seed * 2654435761) >>> 0 || 1;
  const rnd = (n) => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x % n;
  };
  const all = [];
  const roots = [document];
  while (roots.length) {
    const root = roots.shift();
    for (const e of root.querySelectorAll("*")) {
      if (e.shadowRoot) roots.push(e.shadowRoot);
      if (e.localName === "iframe") {
        try { if (e.contentDocument) roots.push(e.contentDocument); } catch (err) {}
      }
      if (!["html", "head", "body", "script", "style", "meta", "title", "link"].includes(e.localName)) all.push(e);
    }
  }
  if (!all.length) return "empty page";
  const pick = () => all[rnd(all.length)];
  const ids = all.map((e) => e.id).filter(Boolean);
  const someId = () => (ids.length ? ids[rnd(ids.length)] : "none");
  const d = (e) => e.localName + (e.id ? "#" + e.id : "") + "[" + all.indexOf(e) + "]";
  const fresh = (like) => {
    const tag = ["button", "a", "h2", "div", "label", "span", "section", "input", "li"][rnd(9)];
    const n = like.ownerDocument.createElement(tag);
    if (tag === "a") n.setAttribute("href", "#n" + rnd(5));
    if (rnd(3) === 0) n.id = rnd(2) ? someId() : "new" + rnd(4);
    if (rnd(4) === 0) n.setAttribute("onclick", "");
    if (tag !== "input") n.textContent = "New " + rnd(9);
    return n;
  };
  const ops = [
    () => { const e = pick(); e.textContent = "Text " + rnd(50); return "text of " + d(e); },
    () => {
      const e = pick();
      const w = e.ownerDocument.createTreeWalker(e, NodeFilter.SHOW_TEXT);
      const t = w.nextNode();
      if (!t) return "no text in " + d(e);
      t.data = t.data + " more";
      return "text node data in " + d(e);
    },
    () => { const e = pick(), v = rnd(3) ? someId() : "id" + rnd(4); e.id = v; return "id " + v + " on " + d(e); },
    () => { const e = pick(); e.removeAttribute("id"); return "id removed from " + d(e); },
    () => { const e = pick(); e.setAttribute("aria-label", "Label " + rnd(6)); return "aria-label on " + d(e); },
    () => { const e = pick(), v = someId(); e.setAttribute("aria-labelledby", v); return "aria-labelledby " + v + " on " + d(e); },
    () => { const e = pick(); e.setAttribute("data-testid", "tid" + rnd(3)); return "test id on " + d(e); },
    () => { const e = pick(); e.setAttribute("class", "c" + rnd(3)); return "class on " + d(e); },
    () => { const e = pick(); e.setAttribute("title", "Title " + rnd(5)); return "title on " + d(e); },
    () => {
      const e = pick(), r = ["button", "navigation", "region", "link", "heading", "listitem", "checkbox"][rnd(7)];
      e.setAttribute("role", r);
      return "role " + r + " on " + d(e);
    },
    () => { const e = pick(); e.removeAttribute("role"); return "role removed from " + d(e); },
    () => {
      const a = pick(), b = pick();
      if (a === b || a.contains(b) || b.contains(a) || !a.parentNode) return "no move";
      a.parentNode.insertBefore(b, a);
      return "moved " + d(b) + " before " + d(a);
    },
    () => {
      const a = pick();
      if (!a.parentNode) return "no insert";
      const n = fresh(a);
      a.parentNode.insertBefore(n, rnd(2) ? a : a.nextSibling);
      return "inserted " + n.localName + " near " + d(a);
    },
    () => { const a = pick(); a.remove(); return "removed " + d(a); },
    () => { const a = pick(); a.innerHTML = a.innerHTML; return "re-rendered " + d(a); },
    () => { const a = pick(); a.setAttribute("style", ["display:none", "color:red", "visibility:hidden", ""][rnd(4)]); return "style on " + d(a); },
    () => { const a = pick(); a.hidden = !a.hidden; return "hidden toggled on " + d(a); },
    () => { const a = pick(); a.setAttribute("href", "#h" + rnd(5)); return "href on " + d(a); },
    () => {
      const a = pick();
      if (a.localName !== "input") return "not an input";
      a.setAttribute("type", ["text", "password", "checkbox", "search", "submit"][rnd(5)]);
      return "type of " + d(a);
    },
    () => { const a = pick(), v = someId(); a.setAttribute("for", v); return "for " + v + " on " + d(a); },
    () => {
      const a = pick();
      if (!a.parentNode) return "no wrap";
      const w = a.ownerDocument.createElement(["section", "nav", "div", "li", "label"][rnd(5)]);
      if (rnd(2)) w.setAttribute("aria-label", "Wrap " + rnd(3));
      if (rnd(3) === 0) w.id = "wrap" + rnd(3);
      a.replaceWith(w);
      w.append(a);
      return "wrapped " + d(a) + " in " + w.localName;
    },
    () => {
      // Taken out now, changed and put back by a later step: the edit is made
      // while the node is detached, where no observer sees it.
      if (window.__stash) {
        const [e, parent, next] = window.__stash;
        window.__stash = null;
        e.textContent = "Changed while away " + rnd(9);
        if (e.id) e.id = e.id;
        try { parent.insertBefore(e, next && next.parentNode === parent ? next : null); } catch (err) { return "stash lost"; }
        return "put back " + d(e);
      }
      const a = pick();
      if (!a.parentNode) return "no stash";
      window.__stash = [a, a.parentNode, a.nextSibling];
      a.remove();
      return "took out " + d(a);
    },
    () => {
      const a = pick();
      if (!a.parentNode) return "no sibling";
      const s = a.ownerDocument.createElement(a.localName);
      a.parentNode.insertBefore(s, a);
      return "same-tag sibling before " + d(a);
    },
    () => {
      const a = pick();
      const s = a.ownerDocument.createElement("style");
      s.textContent = rnd(2) ? "button::before { content: \"+\" }" : "a::after { content: \"\\2192\" }";
      a.ownerDocument.head.append(s);
      return "style sheet with generated content";
    },
    () => {
      const sheet = document.styleSheets[0];
      if (!sheet) return "no sheet";
      sheet.insertRule("a::before { content: \"#\" }", sheet.cssRules.length);
      return "CSSOM rule with generated content";
    },
    () => { history.pushState(null, "", "/deep" + rnd(3) + "/page" + location.search); return "pushState to " + location.pathname; },
    () => { const a = pick(); a.setAttribute("data-sensitive", ""); return "data-sensitive on " + d(a); },
    () => {
      const a = pick();
      const l = a.ownerDocument.createElement("label");
      l.textContent = "Label for " + (a.id || "nothing");
      if (a.id) l.htmlFor = a.id;
      a.ownerDocument.body.prepend(l);
      return "label for " + d(a);
    },
  ];
  const op = ops[rnd(ops.length)];
  return op();
})
