// Shared by the ask page and the admin page: the key (kept in this browser only), API calls
// with it, and small DOM helpers that only ever set textContent (never HTML from data).
"use strict";
const cw = {
  key() { return localStorage.getItem("citewise.key") || ""; },
  setKey(k) { localStorage.setItem("citewise.key", k.trim()); },
  forgetKey() { localStorage.removeItem("citewise.key"); },
  headers(extra) {
    return Object.assign({"Authorization": "Bearer " + cw.key()}, extra || {});
  },
  async api(path, options) {
    const opts = Object.assign({}, options || {});
    opts.headers = cw.headers(opts.headers);
    const r = await fetch(path, opts);
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(body.detail || (r.status + " " + r.statusText));
    return body;
  },
  el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else e.setAttribute(k, v);
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  },
  async showWho() {
    const who = document.getElementById("who");
    document.getElementById("forget-key").hidden = !cw.key();
    if (!cw.key()) {
      who.textContent = "no key yet";
      const admin = document.getElementById("admin-link");
      if (admin) admin.hidden = true;
      return null;
    }
    try {
      const me = await cw.api("/v1/me");
      who.textContent = `${me.name} (${me.role}, ${me.tenant}: ${me.groups.join(", ") || "no groups"})`;
      const admin = document.getElementById("admin-link");
      if (admin) admin.hidden = !["admin", "operator"].includes(me.role);
      return me;
    } catch (err) { who.textContent = err.message; return null; }
  },
  // onChange runs when the key changes or is forgotten: what the page shows and remembers
  // of the last key's conversation goes (a security review: it stayed for the next key).
  bindKeyForm(onChange) {
    const form = document.getElementById("key-form");
    const input = document.getElementById("key");
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      cw.setKey(input.value);
      input.value = "";
      if (onChange) onChange();
      await cw.showWho();
    });
    document.getElementById("forget-key").addEventListener("click", async () => {
      cw.forgetKey();  // a shared browser keeps no key after its user signs out
      if (onChange) onChange();
      await cw.showWho();
    });
  },
};
