// citewise web page. Everything that comes from documents is put on the page with
// textContent or createTextNode, never innerHTML.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { kb: "default", answer: null, search: null };
// The page's labels in the reader's language (GET /ui/labels; keys of core/messages.py).
const labels = { lang: null, table: {} };

function label(key) {
  return labels.table[key] || key;
}

// A label with its {field} names filled in (the catalogue's str.format names); the
// result goes on the page with textContent only.
function fill(key, fields) {
  return label(key).replace(/\{(\w+)\}/g, (m, name) => (name in fields ? String(fields[name]) : m));
}

// Labels of the page in `lang` ("en", "zh"; null: the browser's Accept-Language, the
// language the server chose is its Content-Language), put in place with textContent and
// the placeholder and aria-label attributes only. Views whose text the scripts wrote
// (tables, buttons, empty-list lines) hear "citewise:labels" and write it again.
async function applyLabels(lang) {
  if (lang && lang === labels.lang) return;
  const url = "/ui/labels" + (lang ? "?lang=" + encodeURIComponent(lang) : "");
  const resp = await fetch(url);
  if (!resp.ok) return;
  labels.table = await resp.json();
  labels.lang = lang;
  const shown = lang || (resp.headers.get("Content-Language") || "").slice(0, 2);
  if (shown) document.documentElement.lang = shown === "zh" ? "zh-CN" : "en";
  for (const node of document.querySelectorAll("[data-label]")) {
    const text = labels.table[node.dataset.label];
    if (text) node.textContent = text;
  }
  for (const node of document.querySelectorAll("[data-label-placeholder]")) {
    const text = labels.table[node.dataset.labelPlaceholder];
    if (text) node.placeholder = text;
  }
  for (const node of document.querySelectorAll("[data-label-aria]")) {
    const text = labels.table[node.dataset.labelAria];
    if (text) node.setAttribute("aria-label", text);
  }
  document.dispatchEvent(new Event("citewise:labels"));
}

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

function docUrl(path) {
  return path.split("/").map(encodeURIComponent).join("/");
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

async function api(method, url, body, isForm) {
  const headers = {};
  const key = $("api-key").value.trim();
  if (key) headers["X-API-Key"] = key;
  let payload;
  if (body !== undefined) {
    if (isForm) payload = body;
    else {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(body);
    }
  }
  const resp = await fetch(url, { method, headers, body: payload });
  const data = await resp.json().catch(() => ({}));
  if (!resp.ok && !(resp.status === 207)) {
    const err = (data && data.error) || { code: "HTTP_" + resp.status, message: resp.statusText };
    throw new Error(err.code + ": " + err.message);
  }
  return data;
}

// -- knowledge bases ----------------------------------------------------------------
async function loadKbs() {
  const kbs = await api("GET", "/kb");
  const picker = $("kb-picker");
  clear(picker);
  for (const kb of kbs) {
    const opt = el("option", kb.name + " (" + kb.document_count + ")");
    opt.value = kb.name;
    picker.appendChild(opt);
  }
  if (kbs.some((k) => k.name === state.kb)) picker.value = state.kb;
  else if (kbs.length) state.kb = kbs[0].name;
}

// -- ask ----------------------------------------------------------------------------
async function ask(question) {
  showError("");
  $("ask-button").disabled = true;
  try {
    const base = "/kb/" + encodeURIComponent(state.kb);
    clear($("answer"));
    $("citation-view").hidden = true;
    showAsking();
    const [answer, search] = await Promise.all([
      askStream(base, { question, trace: true, verify_web: $("verify-web").checked }, renderSentence),
      api("POST", base + "/search", { query: question, top_k: 10 }).catch(() => null),
    ]);
    state.answer = answer;
    state.search = search;
    renderAnswer(answer);
    await applyLabels((answer.display || {}).lang || null).catch(() => null);
    renderStatus(answer, search);
    renderEvidence(answer);
    renderTrace(answer, search);
  } catch (e) {
    showError(e.message);
  } finally {
    $("ask-button").disabled = false;
  }
}

// POST /ask?stream=true read as server-sent events: each released sentence is shown as
// it arrives (with clickable citations); the final "answer" event is the whole answer.
async function askStream(base, body, onSentence) {
  // "*": the question's own language decides the wording, not the browser's languages
  const headers = {
    "Content-Type": "application/json",
    Accept: "text/event-stream",
    "Accept-Language": "*",
  };
  const key = $("api-key").value.trim();
  if (key) headers["X-API-Key"] = key;
  const resp = await fetch(base + "/ask?stream=true", {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  if (!resp.ok) {
    const data = await resp.json().catch(() => ({}));
    const err = (data && data.error) || { code: "HTTP_" + resp.status, message: resp.statusText };
    throw new Error(err.code + ": " + err.message);
  }
  const reader = resp.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let final = null;
  const handle = (block) => {
    let name = "message";
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) name = line.slice(7);
      else if (line.startsWith("data: ")) data += line.slice(6);
    }
    if (!data) return;
    const value = JSON.parse(data);
    if (name === "sentence") onSentence(value);
    else if (name === "answer") final = value;
    else if (name === "error") throw new Error(value.error.code + ": " + value.error.message);
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += decoder.decode(value, { stream: true });
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      handle(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
      cut = buffer.indexOf("\n\n");
    }
    if (done) break;
  }
  if (final === null) throw new Error("STREAM_ENDED: the answer stream ended early; ask again.");
  return final;
}

function citeButton(c) {
  const btn = el("button", "[" + c.number + "]", "cite-marker");
  btn.type = "button";
  btn.dataset.citation = String(c.number);
  btn.title = c.path + " " + (placeLabel(c.locator) || fill("web.cite_lines", { start: c.line_start, end: c.line_end })) +
    (c.regulation ? " · " + regulationLine(c.regulation) : "");
  btn.addEventListener("click", () => openCitation(c));
  return btn;
}

// The second source's state (docs/regulations.md); text only, never markup.
function verifyBadge(v) {
  const badge = el("span", v.state.replace(/_/g, " "), "verify-state");
  badge.dataset.state = v.state;
  badge.title = v.reason;
  return badge;
}

// One streamed sentence, shown at once with its citation markers.
function renderSentence(sentence) {
  const line = el("div", null, "streamed-sentence");
  line.dataset.index = String(sentence.index);
  line.appendChild(document.createTextNode(sentence.text + " "));
  for (const c of sentence.citations) line.appendChild(citeButton(c));
  $("answer").appendChild(line);
}

function renderAnswer(answer) {
  const box = $("answer");
  clear(box);
  $("citation-view").hidden = true;
  const byNumber = new Map(answer.citations.map((c) => [String(c.number), c]));
  const parts = String(answer.answer || "").split(/(\[\d+\])/);
  for (const part of parts) {
    const m = /^\[(\d+)\]$/.exec(part);
    if (m && byNumber.has(m[1])) {
      const c = byNumber.get(m[1]);
      box.appendChild(citeButton(c));
      if (c.verification) box.appendChild(verifyBadge(c.verification));
    } else if (part) {
      box.appendChild(document.createTextNode(part));
    }
  }
}

function graphStatus(search) {
  if (!search) return label("web.graph_unknown");
  const g = (search.diagnostics || []).find((d) => d.route === "graph");
  return g ? g.status : label("web.graph_not_run");
}

// While the answer is on its way: the status row says so (and nothing of the last one).
function showAsking() {
  $("status-row").hidden = false;
  const line = $("status-line");
  line.textContent = label("web.asking");
  line.dataset.outcome = "pending";
  line.dataset.degradation = "";
  clear($("status-notes"));
}

// One status line (answer/wording.py): the outcome first, then the degradation with its
// plain reason, in the question's language; notes (editions set aside) below it.
function renderStatus(answer, search) {
  const shown = answer.display || {};
  $("status-row").hidden = false;
  const line = $("status-line");
  line.textContent = shown.status_line || answer.outcome;
  line.dataset.outcome = answer.outcome;
  line.dataset.degradation = answer.degradation;
  $("st-citations").textContent = String(answer.citations.length);
  $("st-graph").textContent = graphStatus(search);
  const notes = $("status-notes");
  clear(notes);
  for (const text of shown.lines || []) notes.appendChild(el("li", text));
}

// A PDF page with the cited boxes, rendered by the server (fetched with the API key).
async function pageImage(id, part) {
  const headers = {};
  const key = $("api-key").value.trim();
  if (key) headers["X-API-Key"] = key;
  const url = "/citations/" + encodeURIComponent(id) + "/page.png?part=" + String(part);
  const resp = await fetch(url, { headers });
  if (!resp.ok) throw new Error("HTTP_" + resp.status + ": the page image is unavailable");
  return URL.createObjectURL(await resp.blob());
}

function placeLabel(loc) {
  if (!loc) return "";
  const parts = loc.parts || [loc];
  const pages = parts.filter((p) => p.page !== undefined).map((p) => fill("web.cite_page", { page: p.page }));
  let place = pages.join(", ");
  if (loc.ocr) place += " (OCR)";
  if (loc.degraded) place += fill("web.cite_approximate", { why: loc.degraded });
  return place;
}

async function showPages(cited, c) {
  const holder = $("cite-pages");
  clear(holder);
  const extra = cited.extra || {};
  const loc = extra.locator;
  if (!loc || extra.format !== "pdf") return;
  const parts = loc.parts || [loc];
  for (let i = 0; i < parts.length; i++) {
    const img = el("img", null, "cite-page");
    img.alt = fill("web.cite_page_image", { page: parts[i].page, path: cited.path });
    img.dataset.page = String(parts[i].page);
    holder.appendChild(img);
    img.src = await pageImage(c.id, i);
  }
}

const UNIT_FORMATS = ["docx", "xlsx", "epub", "odt"];

function smallest(nodes) {
  nodes.sort((a, b) => (a.char_end - a.char_start) - (b.char_end - b.char_start));
  return nodes[0] || null;
}

// The text shown around the cited span: for a DOCX/XLSX/EPUB/ODT citation the unit its
// locator names (the row or paragraph holding the span); otherwise the smallest section
// (a PPTX slide is a section). The span is marked inside it.
function contextNode(nodes, cited) {
  const holds = (n) => n.char_start <= cited.char_start && n.char_end >= cited.char_end;
  if (UNIT_FORMATS.includes((cited.extra || {}).format)) {
    const unit = smallest(nodes.filter((n) => holds(n) && n.attrs && n.attrs.locator));
    if (unit) return unit;
  }
  return smallest(nodes.filter((n) => (n.kind === "section" || n.kind === "document") && holds(n)));
}

// "second source: conflict (reason) · web: URL, 2022 edition · similarity 0.94"
function verificationLine(v) {
  if (!v) return "";
  const web = v.web_evidence;
  const where = web
    ? fill("web.cite_web", { url: web.final_url }) +
      (web.edition ? fill("web.cite_web_edition", { edition: web.edition }) : "")
    : "";
  const cmp = v.comparison ? fill("web.cite_similarity", { value: v.comparison.similarity }) : "";
  return fill("web.cite_second_source", { state: v.state.replace(/_/g, " "), reason: v.reason }) + where + cmp;
}

// "12 CFR 1002 · edition 2017-20417 · § 1002.4(b) · effective 2022-01-01 · current"
function regulationLine(r) {
  if (!r) return "";
  return [r.regulation, fill("web.cite_edition", { edition: r.edition || label("web.cite_edition_unknown") }),
    r.clause ? fill("web.cite_clause", { clause: r.clause }) : "",
    r.effective_date ? fill("web.cite_effective", { date: r.effective_date }) : "", r.status || ""]
    .filter((x) => x).join(" · ");
}

async function openCitation(c) {
  showError("");
  try {
    const cited = await api("GET", "/citations/" + encodeURIComponent(c.id));
    const view = $("citation-view");
    view.hidden = false;
    $("cite-meta").textContent =
      fill("web.cite_where", { path: cited.path, version: cited.version_id, revision: c.revision }) +
      (placeLabel((cited.extra || {}).locator) ? " · " + placeLabel(cited.extra.locator) : "") +
      " · " + fill("web.cite_lines", { start: cited.line_start, end: cited.line_end }) +
      ((cited.extra || {}).locator ? label("web.cite_extracted") : "") +
      " · " + fill("web.cite_chars", { start: cited.char_start, end: cited.char_end });
    $("cite-section").textContent = (cited.heading_path || []).join(" > ");
    $("cite-where").textContent = (cited.extra || {}).locator_words || "";
    $("cite-verify").textContent = verificationLine(c.verification);
    $("cite-regulation").textContent = regulationLine(c.regulation);
    const pre = $("cite-text");
    clear(pre);
    let section = null;
    let docNodes = null; // the sheet view (sheet.js) draws a cited table from them
    try {
      const doc = await api(
        "GET", "/kb/" + encodeURIComponent(state.kb) + "/documents/" + docUrl(cited.path) + "?nodes=true");
      if (doc.version_id === cited.version_id) {
        section = contextNode(doc.nodes || [], cited);
        docNodes = doc.nodes || [];
      }
    } catch (e) {
      section = null; // the excerpt alone still shows
    }
    const mark = el("mark", cited.text);
    mark.id = "cite-highlight";
    if (section) {
      const start = cited.char_start - section.char_start;
      const end = cited.char_end - section.char_start;
      pre.appendChild(document.createTextNode(section.text.slice(0, start)));
      pre.appendChild(mark);
      pre.appendChild(document.createTextNode(section.text.slice(end)));
    } else {
      pre.appendChild(mark);
    }
    mark.scrollIntoView({ block: "nearest" });
    await showPages(cited, c);
    if (typeof showSheet === "function") showSheet(cited, docNodes);
  } catch (e) {
    showError(e.message);
  }
}

const GROUPS = [
  ["web.group_direct", "direct_evidence"],
  ["web.group_augmentation", "document_augmentation"],
  ["web.group_graph", "graph_neighbor_evidence"],
];

function fragmentNode(f) {
  const box = el("div", null, "fragment");
  const where = f.path + ":" + (placeLabel(f.locator) || (f.line_start + "-" + f.line_end)) +
    ((f.heading_path || []).length ? "  " + f.heading_path.join(" > ") : "");
  box.appendChild(el("div", "[" + f.role + "] " + where, "meta"));
  // Shown as the reader sees it once /display answers (Markdown rendered, PDF lines
  // reflowed); until then, and if it fails, the excerpt as written.
  const shown = el("div", null, "shown");
  shown.appendChild(el("pre", f.text));
  box.appendChild(shown);
  const source = el("details", null, "source");
  source.appendChild(el("summary", label("web.fragment_source")));
  source.appendChild(el("pre", f.text));
  box.appendChild(source);
  return box;
}

// A tree of allowed elements from /display (server/display.py) built with createElement
// and textContent; a link keeps only an http(s), mailto or in-page target.
const SHOWN_TAGS = new Set(["p", "strong", "em", "code", "pre", "ul", "ol", "li", "blockquote",
  "h1", "h2", "h3", "h4", "h5", "h6", "br", "hr", "table", "thead", "tbody", "tr", "th", "td",
  "a", "span"]);

function buildNode(n) {
  if (typeof n === "string") return document.createTextNode(n);
  const tag = SHOWN_TAGS.has(n.t) ? n.t : "span";
  const node = document.createElement(tag);
  const a = n.a || {};
  if (tag === "a" && /^(https?:|mailto:|#)/i.test(a.href || "")) {
    node.setAttribute("href", a.href);
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
  if (tag === "span" && a.class === "img-alt") node.className = "img-alt";
  if (tag === "ol" && /^\d+$/.test(a.start || "")) node.setAttribute("start", a.start);
  (n.c || []).forEach((c) => node.appendChild(buildNode(c)));
  return node;
}

async function showAsRead(fragments, boxes) {
  if (!fragments.length) return;
  try {
    const items = fragments.map((f) => ({ text: f.text, path: f.path || "", locator: f.locator || null }));
    const out = await api("POST", "/display", { items });
    out.items.forEach((item, i) => {
      const shown = boxes[i].querySelector(".shown");
      shown.dataset.shape = item.shape;
      clear(shown);
      item.tree.forEach((n) => shown.appendChild(buildNode(n)));
    });
  } catch (e) {
    // the excerpts as written stay
  }
}

function renderEvidence(answer) {
  const pack = (answer.trace || {}).pack;
  const groups = $("evidence-groups");
  clear(groups);
  $("evidence").hidden = !pack;
  if (!pack) return;
  const shownFrags = [];
  const shownBoxes = [];
  for (const [titleKey, key] of GROUPS) {
    const title = label(titleKey);
    const frags = pack[key] || [];
    const g = el("div", null, "group");
    g.dataset.role = key;
    g.appendChild(el("h3", title + " (" + frags.length + ")"));
    frags.forEach((f) => {
      const box = fragmentNode(f);
      shownFrags.push(f);
      shownBoxes.push(box);
      g.appendChild(box);
    });
    groups.appendChild(g);
  }
  const cl = pack.conflicts_and_limitations || { conflicts: [], limitations: [] };
  const g = el("div", null, "group");
  g.dataset.role = "conflicts";
  g.appendChild(el("h3", label("web.group_conflicts") + " (" + (cl.conflicts.length + cl.limitations.length) + ")"));
  cl.conflicts.forEach((f) => g.appendChild(fragmentNode(f)));
  cl.limitations.forEach((l) => g.appendChild(el("div", l.kind + ": " + (l.path || "") + " " + l.reason, "meta")));
  groups.appendChild(g);
  showAsRead(shownFrags, shownBoxes);
}

function renderTrace(answer, search) {
  const trace = answer.trace || {};
  const pack = trace.pack || {};
  $("tr-replay").textContent = answer.replay_id;
  $("tr-trace").textContent = answer.trace_id;
  const b = pack.budget;
  $("tr-budget").textContent = b
    ? fill("web.trace_budget_used", {
      fragments: b.used.fragments, max_fragments: b.max_fragments, tokens: b.used.tokens,
      total_tokens: b.total_tokens, chars: b.used.chars, total_chars: b.total_chars,
    })
    : label("web.trace_no_budget");
  const reasons = answer.sufficiency.reasons || [];
  $("tr-reasons").textContent = answer.sufficiency.status + (reasons.length ? ": " + reasons.join("; ") : "");
  const body = $("tr-routes").querySelector("tbody");
  clear(body);
  for (const d of (search && search.diagnostics) || []) {
    const tr = el("tr");
    [d.route, d.status, d.candidates, Number(d.ms).toFixed(1), d.reason].forEach((v) => tr.appendChild(el("td", v)));
    body.appendChild(tr);
  }
}

// -- documents ----------------------------------------------------------------------
async function loadDocs() {
  showError("");
  try {
    const data = await api("GET", "/kb/" + encodeURIComponent(state.kb) + "/documents");
    const body = $("docs-table").querySelector("tbody");
    clear(body);
    $("docs-empty").hidden = data.documents.length > 0;
    for (const d of data.documents) {
      const tr = el("tr");
      tr.dataset.path = d.path;
      [d.path, d.title, d.version_id, d.node_count].forEach((v) => tr.appendChild(el("td", v)));
      const actions = el("td");
      const vb = el("button", label("web.btn_versions"));
      vb.type = "button";
      vb.addEventListener("click", () => loadVersions(d.path));
      const db = el("button", label("web.btn_delete"));
      db.type = "button";
      db.addEventListener("click", () => deleteDoc(d.path));
      actions.append(vb, db);
      tr.appendChild(actions);
      body.appendChild(tr);
    }
  } catch (e) {
    showError(e.message);
  }
}

async function loadVersions(path) {
  showError("");
  try {
    const versions = await api(
      "GET", "/kb/" + encodeURIComponent(state.kb) + "/documents/" + docUrl(path) + "/versions");
    $("versions").hidden = false;
    $("versions-path").textContent = path;
    const body = $("versions-table").querySelector("tbody");
    clear(body);
    for (const v of versions) {
      const tr = el("tr");
      const action = v.restored_from
        ? fill("web.docs_restored_from", { action: v.action, version: v.restored_from })
        : v.action;
      [(v.is_head ? "* " : "") + v.version_id, action, v.revision, v.content_sha256.slice(0, 12), v.created_at]
        .forEach((x) => tr.appendChild(el("td", x)));
      const td = el("td");
      if (!v.is_head) {
        const rb = el("button", label("web.btn_revert"));
        rb.type = "button";
        rb.addEventListener("click", () => revert(path, v.version_id));
        td.appendChild(rb);
      }
      tr.appendChild(td);
      body.appendChild(tr);
    }
  } catch (e) {
    showError(e.message);
  }
}

async function revert(path, version) {
  try {
    await api("POST", "/kb/" + encodeURIComponent(state.kb) + "/documents/" + docUrl(path) + "/revert", { version });
    await loadVersions(path);
    await loadDocs();
  } catch (e) {
    showError(e.message);
  }
}

async function deleteDoc(path) {
  if (!window.confirm(fill("web.docs_confirm_delete", { path }))) return;
  try {
    await api("DELETE", "/kb/" + encodeURIComponent(state.kb) + "/documents/" + docUrl(path));
    $("versions").hidden = true;
    await loadDocs();
    await loadKbs();
  } catch (e) {
    showError(e.message);
  }
}

// An uploaded file's status codes and their labels; a code the page does not know yet is
// shown as the JSON gives it.
const UPLOAD_STATUS = {
  added: "web.docs_status_added",
  changed: "web.docs_status_changed",
  unchanged: "web.docs_status_unchanged",
  reverted: "web.docs_status_reverted",
  skipped: "web.docs_status_skipped",
  failed: "web.docs_status_failed",
};

function uploadLine(f) {
  const status = labels.table[UPLOAD_STATUS[f.status]] || f.status;
  return fill("web.docs_upload_line", { path: f.path, status }) + (f.code ? " " + f.code : "");
}

async function upload(ev) {
  ev.preventDefault();
  showError("");
  const files = $("upload-files").files;
  if (!files.length) return;
  const form = new FormData();
  for (const f of files) form.append("files", f, f.name);
  form.append("prefix", $("upload-prefix").value.trim());
  try {
    const report = await api("POST", "/kb/" + encodeURIComponent(state.kb) + "/documents", form, true);
    $("upload-result").textContent = report.files.map(uploadLine).join("; ");
    await loadDocs();
    await loadKbs();
  } catch (e) {
    showError(e.message);
  }
}

// -- wiring -------------------------------------------------------------------------
function showView(name) {
  $("view-ask").hidden = name !== "ask";
  $("view-docs").hidden = name !== "docs";
  $("tab-ask").classList.toggle("active", name === "ask");
  $("tab-docs").classList.toggle("active", name === "docs");
  if (name === "docs") refreshDocs();
}

// The list and the open version history written again (in the page's current language).
function refreshDocs() {
  loadDocs();
  if (!$("versions").hidden) loadVersions($("versions-path").textContent);
}

document.addEventListener("DOMContentLoaded", () => {
  $("api-key").value = window.localStorage.getItem("citewise-key") || "";
  $("api-key").addEventListener("change", () => {
    window.localStorage.setItem("citewise-key", $("api-key").value.trim());
    loadKbs().catch((e) => showError(e.message));
  });
  $("kb-picker").addEventListener("change", () => {
    state.kb = $("kb-picker").value;
    if (!$("view-docs").hidden) loadDocs();
  });
  $("ask-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = $("question").value.trim();
    if (q) ask(q);
  });
  $("trace-toggle").addEventListener("click", () => { $("trace").hidden = !$("trace").hidden; });
  $("tab-ask").addEventListener("click", () => showView("ask"));
  $("tab-docs").addEventListener("click", () => showView("docs"));
  $("upload-form").addEventListener("submit", upload);
  document.addEventListener("citewise:labels", () => {
    if (!$("view-docs").hidden) refreshDocs();
  });
  applyLabels(null).catch(() => null);
  loadKbs().catch((e) => showError(e.message));
});
