// validate studio's page. It renders the JSON documents the server answers with (lint, plan,
// advise, run, compare: the ones the CLI prints) and computes no figure of its own.
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
};

const state = {
  name: "",
  saved: "",       // the file's text as last loaded or saved
  original: null,  // the text before an advise variant was applied
  applied: "",     // the variant applied, "" for none
  variants: {},
  seq: 0,          // the latest edit: answers to older ones are dropped
  schema: null,
  running: null,   // the AbortController of a run or comparison
};

const text = $("#text");

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({ error: r.statusText }));
  if (!r.ok) throw Object.assign(new Error(data.error || r.statusText), { status: r.status });
  return data;
}

function status(msg) { $("#status").textContent = msg; }

// ---- editor: gutter, colouring, hover -------------------------------------------------------

function escapeHTML(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// colour is YAML's surface: comments, keys, strings, numbers and booleans.
function colour(line) {
  const m = /^(\s*(?:-\s+)?)([A-Za-z0-9_$@"'-]+)(\s*:)(.*)$/.exec(line);
  let head = "", rest = line;
  if (m) {
    head = escapeHTML(m[1]) + '<span class="k">' + escapeHTML(m[2]) + "</span>" + escapeHTML(m[3]);
    rest = m[4];
  }
  const c = rest.search(/(^|\s)#/);
  let comment = "";
  if (c >= 0) { comment = '<span class="c">' + escapeHTML(rest.slice(c)) + "</span>"; rest = rest.slice(0, c); }
  rest = escapeHTML(rest)
    .replace(/("[^"]*"|'[^']*')/g, '<span class="s">$1</span>')
    .replace(/\b(true|false|null)\b/g, '<span class="b">$1</span>')
    .replace(/(^|[\s\[,:{])(-?\d+(?:\.\d+)?)(?=$|[\s,\]}])/g, '$1<span class="n">$2</span>');
  return head + rest + comment;
}

let marks = new Map(); // line → "error" | "finding" | "note"

function paint() {
  const lines = text.value.split("\n");
  $("#highlight").innerHTML = lines.map(colour).join("\n") + "\n";
  $("#gutter").innerHTML = lines.map((_, i) => {
    const m = marks.get(i + 1);
    return m ? `<span class="mark ${m}" data-line="${i + 1}">${i + 1}</span>` : String(i + 1);
  }).join("\n") + "\n";
  syncScroll();
}

function syncScroll() {
  $("#highlight").scrollTop = text.scrollTop;
  $("#highlight").scrollLeft = text.scrollLeft;
  $("#gutter").scrollTop = text.scrollTop;
}
text.addEventListener("scroll", syncScroll);

function goToLine(line, col) {
  const lines = text.value.split("\n");
  let pos = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) pos += lines[i].length + 1;
  pos += Math.max((col || 1) - 1, 0);
  text.focus();
  text.setSelectionRange(pos, pos);
}

// keyPath is the YAML key path at a line, found by indentation (what the schema describes there).
function keyPath(lines, lineIdx) {
  const path = [];
  let indent = Infinity;
  for (let i = lineIdx; i >= 0; i--) {
    const m = /^(\s*)(-\s+)?([A-Za-z0-9_$@-]+)\s*:/.exec(lines[i]);
    if (!m) continue;
    const ind = m[1].length + (m[2] ? m[2].length : 0);
    if (ind < indent) {
      path.unshift(m[3]);
      indent = m[2] ? m[1].length : ind;
      if (indent === 0) break;
    }
  }
  return path;
}

function schemaNode(path) {
  let node = state.schema;
  const deref = (n) => {
    while (n && n.$ref) n = state.schema.$defs[n.$ref.replace("#/$defs/", "")];
    while (n && n.items) n = n.items.$ref ? deref(n.items) : n.items;
    return n;
  };
  for (const k of path) {
    node = deref(node);
    if (!node || !node.properties || !node.properties[k]) return null;
    node = node.properties[k];
  }
  return node;
}

function describe(node) {
  if (!node) return "";
  let n = node;
  if (n.$ref) n = Object.assign({}, state.schema.$defs[n.$ref.replace("#/$defs/", "")], n);
  return n.description || "";
}

// hover shows the schema's description of the key under the caret.
function hover() {
  const box = $("#hover");
  if (!state.schema) return;
  const before = text.value.slice(0, text.selectionStart);
  const lines = text.value.split("\n");
  const idx = before.split("\n").length - 1;
  const path = keyPath(lines, idx);
  const d = path.length ? describe(schemaNode(path)) : "";
  if (!d) { box.hidden = true; return; }
  box.textContent = path.join(".") + ": " + d;
  box.hidden = false;
}

// completion offers the keys the schema allows where the caret is (Ctrl-Space).
function complete() {
  if (!state.schema) return;
  const lines = text.value.split("\n");
  const idx = text.value.slice(0, text.selectionStart).split("\n").length - 1;
  const cur = lines[idx];
  const ind = /^\s*(-\s+)?/.exec(cur)[0].length;
  // The parent is the nearest line above with less indentation.
  let parentIdx = -1;
  for (let i = idx - 1; i >= 0; i--) {
    const m = /^(\s*)(-\s+)?\S/.exec(lines[i]);
    if (m && m[1].length + (m[2] ? m[2].length : 0) < ind && /:\s*(#.*)?$/.test(lines[i])) { parentIdx = i; break; }
  }
  const path = parentIdx < 0 ? [] : keyPath(lines, parentIdx);
  let node = path.length ? schemaNode(path) : state.schema;
  while (node && (node.$ref || node.items)) {
    node = node.$ref ? state.schema.$defs[node.$ref.replace("#/$defs/", "")] : node.items;
  }
  const keys = node && node.properties ? Object.keys(node.properties) : [];
  const word = /[A-Za-z0-9_]*$/.exec(text.value.slice(0, text.selectionStart))[0];
  const options = keys.filter((k) => k.startsWith(word));
  const box = $("#hover");
  box.innerHTML = "";
  box.hidden = options.length === 0;
  for (const k of options) {
    const b = el("button", { type: "button", class: "completion", text: k, title: describe(node.properties[k]) });
    b.addEventListener("mousedown", (ev) => {
      ev.preventDefault();
      const at = text.selectionStart;
      text.setRangeText(k.slice(word.length) + ": ", at, at, "end");
      box.hidden = true;
      edited();
    });
    box.append(b);
  }
}

text.addEventListener("keydown", (ev) => {
  if (ev.key === " " && ev.ctrlKey) { ev.preventDefault(); complete(); }
  if (ev.key === "Tab") { ev.preventDefault(); text.setRangeText("  ", text.selectionStart, text.selectionEnd, "end"); edited(); }
  if (ev.key === "Escape") $("#hover").hidden = true;
});
text.addEventListener("click", hover);
text.addEventListener("keyup", (ev) => { if (ev.key.startsWith("Arrow")) hover(); });

// ---- analysis as you type --------------------------------------------------------------------

let timer = null, adviseTimer = null;

// bump numbers a new edit; the body's data-seq and data-analyzed let a test (or a person's eye)
// tell when the figures shown are those of the text shown.
function bump() {
  const seq = ++state.seq;
  document.body.dataset.seq = String(seq);
  return seq;
}

function edited() {
  paint();
  const seq = bump();
  status("editing…");
  clearTimeout(timer);
  clearTimeout(adviseTimer);
  timer = setTimeout(() => analyze(seq), 250);
  adviseTimer = setTimeout(() => adviseNow(seq), 700);
}
text.addEventListener("input", () => {
  if (state.applied && text.value !== state.variants[state.applied]) {
    // Editing an applied variant makes it the user's text: nothing to toggle back to any more.
    state.applied = ""; state.original = null;
  }
  edited();
});

async function analyze(seq) {
  let a;
  try {
    a = await api("/api/analyze", { name: state.name, text: text.value });
  } catch (e) { status("analysis failed: " + e.message); return; }
  if (seq !== state.seq) return;
  renderLint(a.lint);
  renderPlan(a);
  renderPartitions(a);
  document.body.dataset.analyzed = String(seq);
  status(a.lint.valid ? "analysed" : "the design does not parse: see the findings");
}

function renderLint(doc) {
  const list = $("#findings");
  list.innerHTML = "";
  marks = new Map();
  const all = [...(doc.errors || []).map((p) => ({ ...p, kind: "error" })),
    ...(doc.findings || []).map((p) => ({ ...p, kind: p.note ? "note" : "finding" }))];
  for (const p of all) {
    const where = doc.file + (p.line ? `:${p.line}:${p.col || 1}` : "");
    const li = el("li", { class: p.kind, "data-line": String(p.line || 0) },
      el("code", { class: "where", text: where }), " ",
      p.path ? el("code", { class: "path", text: p.path + ":" }) : "", " ",
      el("span", { class: "msg", text: p.message }),
      p.code ? el("span", { class: "code", text: ` [${p.code}]` }) : "");
    li.addEventListener("click", () => goToLine(p.line, p.col));
    list.append(li);
    if (p.line && marks.get(p.line) !== "error") marks.set(p.line, p.kind);
  }
  $("#finding-count").textContent = all.length ? `(${all.length})` : "(none)";
  paint();
}

// fmt shows a figure as the JSON carries it, shortened for reading (never recomputed).
const fmt = (x) => {
  if (x === undefined || x === null) return "–";
  if (typeof x !== "number") return String(x);
  const a = Math.abs(x);
  if (a === 0 || Number.isInteger(x)) return String(x);
  if (a >= 100) return x.toFixed(0);
  if (a >= 1) return String(Number(x.toFixed(2)));
  return String(Number(x.toPrecision(2)));
};
// usd shows a monthly cost in cents, as plan's text report does.
const usd = (x) => (typeof x === "number" ? "$" + x.toFixed(2) : "–");

// withBand writes figure x, formatted by f, followed by its band as plan and run write it
// (record.Range.Words) when the band's two ends differ as shown: the figure with every banded
// pattern at the low end of its band (lo) and at the high end (hi), resting on the named rules. A
// load in RU/s passes same = sameLoad: its band is shown only when the ends differ in three
// significant figures (record.NewLoadRange; docs/cost-model.md, "When a band is shown").
function withBand(x, lo, hi, rules, f, same = (a, b) => f(a) === f(b)) {
  if (!rules || !rules.length || typeof lo !== "number" || same(lo, hi)) return f(x);
  return `${f(x)} (${f(Math.min(lo, hi))}–${f(Math.max(lo, hi))}: ${rules.length > 1 ? "rules" : "rule"} ${rules.join(", ")} unvalidated)`;
}

const sameLoad = (a, b) => a.toPrecision(3) === b.toPrecision(3);

// endsOf is a plan.LoadBand's two ends of one figure, as withBand's arguments: always three of
// them (undefined without a band), so that the arguments after them keep their places.
const endsOf = (lb, key) => (lb ? [lb.low[key], lb.high[key], lb.rules] : [undefined, undefined, undefined]);

// productionCell writes the production figure as plan and run do: with its band when it rests on
// rules no published figure or calibration decides (record.Band.Words), or the rule a calibration
// pinned. The figures are plan's; this only formats them.
function productionCell(pp) {
  if (!pp.productionRU) return "–";
  const b = pp.productionBand;
  if (b && b.rules && b.rules.length) {
    return withBand(pp.productionRU, b.lowRU, b.highRU, [...new Set(b.rules.map((r) => r.name))], fmt);
  }
  const pinned = (pp.productionPinned || []).map((r) => `${r.name}=${r.alternative}`);
  return pinned.length ? `${fmt(pp.productionRU)} (calibrated: ${pinned.join(", ")})` : fmt(pp.productionRU);
}

function bandTitle(pp) {
  const b = pp.productionBand;
  if (!b || !b.rules) return "modeled by the estimator at the design's production scale";
  return "modeled; under each alternative of the unpinned rules:\n" + b.rules.map((r) => `${r.name}=${r.alternative}: ${fmt(r.ru)} RU`).join("\n");
}

function renderPlan(a) {
  const p = a.plan;
  const err = $("#plan-error");
  const view = $("#view-plan");
  if (!p) {
    view.classList.add("stale");
    err.hidden = false;
    err.textContent = a.planError || "The design does not parse: the figures below are of the last design that did. Lint's findings say what to fix.";
    return;
  }
  view.classList.remove("stale");
  err.hidden = true;
  const mb = p.monthlyBand;
  $("#monthly").textContent = mb ? withBand(p.monthlyUSD, mb.low, mb.high, mb.rules, usd) : usd(p.monthlyUSD);
  const tb = $("#patterns tbody");
  tb.innerHTML = "";
  for (const pp of p.patterns) {
    const ws = (p.warnings || []).filter((w) => w.subject === pp.id || (w.subject || "").startsWith(pp.id + " "));
    const verdict = ws.length ? ws.map((w) => w.code).join(", ") : "ok";
    tb.append(el("tr", { class: ws.length ? "warn" : "", title: ws.map((w) => w.message).join("\n") },
      el("td", { text: `${pp.id} ${pp.name}` }), el("td", { text: pp.op }),
      el("td", { text: fmt(pp.modelRU) }), el("td", { text: productionCell(pp), title: bandTitle(pp) }),
      el("td", { text: pp.judgedOn }), el("td", { text: fmt(pp.floorRU) }), el("td", { text: fmt(pp.estimateRU) }),
      el("td", { text: fmt(pp.avgRUs) }), el("td", { text: fmt(pp.peakRUs) }), el("td", { class: "verdict", text: verdict })));
  }
  const cb = $("#containers tbody");
  cb.innerHTML = "";
  for (const c of p.containers) {
    cb.append(el("tr", {},
      el("td", { text: c.name }), el("td", { text: `${c.designed.mode} ${c.designed.ru || ""}` }),
      el("td", { text: `${c.recommended.mode} ${c.recommended.ru || ""}`, title: c.recommendedNote || "" }),
      el("td", { text: withBand(c.peakRUs, ...endsOf(c.loadBand, "peakRUs"), fmt, sameLoad) }), el("td", { text: fmt(c.storageGB) }),
      el("td", { text: fmt(c.partitions) }), el("td", { text: withBand(c.monthlyUSD, ...endsOf(c.loadBand, "monthlyUSD"), usd) })));
  }
  const wl = $("#warnings");
  wl.innerHTML = "";
  for (const w of p.warnings || []) wl.append(el("li", { text: `${w.subject ? w.subject + ": " : ""}${w.message} [${w.code}]` }));
}

// renderPartitions draws plan's partitions: the physical partitions (each with its share of the
// throughput, plan's hot.capacityRU) and the busiest logical partition against the limits. Bar
// lengths are drawing only; every number shown is plan's.
function renderPartitions(a) {
  const v = $("#view-partitions");
  if (!a.plan) { v.classList.add("stale"); return; }
  v.classList.remove("stale");
  v.innerHTML = "";
  const L = a.limits;
  for (const c of a.partitions || []) {
    const hot = c.hot.risk && c.hot.risk !== "none";
    const box = el("div", { class: "container" + (hot ? " hot" : ""), "data-container": c.container });
    box.append(el("h3", { text: `${c.container} — key ${c.partitionKey.join(", ")}` }));
    box.append(el("p", { text: `${c.physical} physical partition(s) at production (${fmt(c.storageGB)} GB, ${L.physicalGB} GB and ${L.physicalRU} RU/s each at most), peak ${c.peakBand ? withBand(c.peakRUs, c.peakBand.low, c.peakBand.high, c.peakBand.rules, fmt) : fmt(c.peakRUs)} RU/s` }));
    const row = el("div", { class: "physical" });
    const shown = Math.min(c.physical, 48);
    for (let i = 0; i < shown; i++) {
      const isBusiest = i === 0;
      const pp = el("div", { class: "pp" + (isBusiest && hot ? " hot" : ""), title: `physical partition ${i + 1}: ${fmt(c.hot.capacityRU)} RU/s` },
        el("span", { text: `P${i + 1}` }), el("small", { text: `${fmt(c.hot.capacityRU)} RU/s` }));
      row.append(pp);
    }
    if (c.physical > shown) row.append(el("span", { text: `+${c.physical - shown} more` }));
    box.append(row);
    const fill = (w) => { const f = el("span", { class: "fill" }); f.style.width = w + "%"; return f; };
    const bar = (label, value, limit, unit, over) => {
      const w = Math.min(100, limit > 0 ? (value / limit) * 100 : 0);
      return el("div", { class: "bar" + (over ? " over" : "") },
        el("span", { class: "label", text: label }),
        el("span", { class: "track" }, fill(w)),
        el("span", { class: "value", text: `${fmt(value)} ${unit} of ${limit} ${unit}` }));
    };
    const busiest = el("div", { class: "busiest" + (hot ? " hot" : ""), "data-hot": String(hot) });
    busiest.append(el("h4", { text: (hot ? "HOT: " : "") + `busiest logical partition (${c.partitionKey.join(", ")})` + (hot ? ` — risk ${c.hot.risk}` : "") }));
    busiest.append(bar("RU/s", c.busiestRUs, L.physicalRU, "RU/s", hot));
    busiest.append(bar("storage", c.busiestGB, L.logicalGB, "GB", false));
    for (const f of c.hot.findings || []) busiest.append(el("p", { class: "finding", text: f }));
    busiest.append(el("p", { class: "basis", text: c.busiestBasis }));
    box.append(busiest);
    const reach = el("ul", { class: "reach" });
    for (const r of c.patterns) {
      reach.append(el("li", { class: r.kind },
        el("span", { class: "badge", text: r.kind }), ` ${r.id} ${r.name} (${r.op})` +
        (r.partitionsChecked ? ` — ${r.partitionsChecked} physical partition(s) consulted` : "")));
    }
    box.append(reach);
    v.append(box);
  }
}

// ---- advise's what-ifs ----------------------------------------------------------------------

async function adviseNow(seq) {
  $("#advise-status").textContent = "pricing the what-ifs…";
  const base = state.original !== null ? state.original : text.value;
  let r;
  try {
    r = await api("/api/advise", { name: state.name, text: base });
  } catch (e) { $("#advise-status").textContent = e.message; return; }
  if (seq !== state.seq && state.original === null) return;
  renderAdvice(r);
}

function renderAdvice(r) {
  const list = $("#variants");
  list.innerHTML = "";
  if (r.error) { $("#advise-status").textContent = r.error; return; }
  const a = r.advice;
  state.variants = r.variants || {};
  $("#advise-status").textContent = a.nothingToImprove
    ? "advise: nothing to improve"
    : `advise: ${a.recommended.length} change(s); the design costs ${usd(a.baseline.monthlyUSD)}/month (${a.basis})`;
  for (const v of a.recommended) {
    const id = "variant-" + v.name;
    const box = el("input", { type: "checkbox", id, "data-variant": v.name });
    box.checked = state.applied === v.name;
    box.addEventListener("change", () => toggle(v.name, box.checked));
    list.append(el("li", {}, box, el("label", { for: id },
      el("strong", { text: v.name }), ` ${v.what} — `,
      el("span", { class: "saving", text: `${v.change.monthlyUSD > 0 ? "+" : ""}${v.change.monthlyUSD.toFixed(2)} $/month, ${fmt(v.change.rus)} RU/s` }))));
  }
  document.body.dataset.advised = String(state.seq);
}

// toggle applies a variant to the editor (the file advise --write-variants writes) or takes it back.
function toggle(name, on) {
  if (on) {
    if (state.original === null) state.original = text.value;
    state.applied = name;
    text.value = state.variants[name];
  } else {
    text.value = state.original;
    state.original = null;
    state.applied = "";
  }
  for (const b of document.querySelectorAll("#variants input")) b.checked = b.dataset.variant === state.applied;
  const seq = bump();
  paint();
  analyze(seq);
}

// ---- files, saving, runs ---------------------------------------------------------------------

async function open(name) {
  const f = await api("/api/file?name=" + encodeURIComponent(name));
  state.name = name; state.saved = f.text; state.original = null; state.applied = "";
  text.value = f.text;
  edited();
}

$("#file").addEventListener("change", (ev) => {
  if (text.value !== state.saved && !confirm(`Leave ${state.name}? Its edits are not saved.`)) {
    ev.target.value = state.name;
    return;
  }
  open(ev.target.value);
});

$("#save").addEventListener("click", async () => {
  const body = { name: state.name, text: text.value };
  try {
    await api("/api/save", body);
  } catch (e) {
    if (e.status !== 409 || !confirm(e.message + "?")) { status("not saved: " + e.message); return; }
    await api("/api/save", { ...body, overwrite: true });
  }
  state.saved = text.value;
  status("saved");
});

async function streamed(path, onResult) {
  show("run");
  const ctl = new AbortController();
  state.running = ctl;
  $("#cancel").hidden = false;
  $("#run").disabled = $("#compare").disabled = true;
  $("#run-progress").textContent = "";
  $("#run-output").textContent = "";
  $("#compare-changes").innerHTML = "";
  $("#compare-diff").innerHTML = "";
  try {
    const r = await fetch(path, {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: state.name, text: text.value }), signal: ctl.signal,
    });
    if (!r.ok) { const e = await r.json(); throw new Error(e.error); }
    const reader = r.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const ev = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (ev.progress) $("#run-progress").textContent = ev.progress;
        if (ev.diff) renderDiff(ev.diff);
        if (ev.error) $("#run-output").textContent = "failed: " + ev.error;
        if (ev.result) onResult(ev.result);
      }
    }
  } catch (e) {
    $("#run-output").textContent = ctl.signal.aborted ? "cancelled" : "failed: " + e.message;
  } finally {
    state.running = null;
    $("#cancel").hidden = true;
    $("#run").disabled = $("#compare").disabled = false;
  }
}

$("#run").addEventListener("click", () => streamed("/api/run", (res) => {
  $("#run-progress").textContent = "done";
  $("#run-output").textContent = res.text;
}));
$("#compare").addEventListener("click", () => streamed("/api/compare", (res) => {
  $("#run-progress").textContent = "done";
  const ul = $("#compare-changes");
  for (const c of res.changes || []) ul.append(el("li", { text: c }));
  if (!(res.changes || []).length) ul.append(el("li", { text: "the design is as saved" }));
  $("#run-output").textContent = res.text;
}));
function renderDiff(lines) {
  const pre = $("#compare-diff");
  pre.innerHTML = "";
  if (!lines.length) { pre.textContent = "the editor's text is the saved file"; return; }
  for (const l of lines) pre.append(el("span", { class: "d" + (l[0] === "@" ? "h" : l[0] === "+" ? "a" : l[0] === "-" ? "r" : ""), text: l + "\n" }));
}

$("#cancel").addEventListener("click", () => state.running && state.running.abort());

function show(view) {
  for (const b of document.querySelectorAll("nav button")) b.classList.toggle("active", b.dataset.view === view);
  for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== "view-" + view;
}
for (const b of document.querySelectorAll("nav button")) b.addEventListener("click", () => show(b.dataset.view));

(async function start() {
  // The schema first: completion and descriptions are there by the time the design is.
  state.schema = await fetch("/static/design.schema.json").then((r) => r.json()).catch(() => null);
  const { files } = await api("/api/files");
  const sel = $("#file");
  for (const f of files) sel.append(el("option", { value: f, text: f }));
  const want = new URLSearchParams(location.hash.slice(1)).get("file");
  const first = files.includes(want) ? want : files[0];
  if (first) { sel.value = first; await open(first); } else status("no design file in this folder");
})();
