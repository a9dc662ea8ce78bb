// citewise web page: the Conflicts tab (issue 38). The conflicts answers met in the chosen
// knowledge base (GET /kb/{kb}/conflicts): both sides with their path, value and exact
// text, the state, and the resolution (which side governs, who decided, until when); a
// form per conflict to record which side governs (POST .../resolve) for callers the
// policy lets resolve. Uses app.js's helpers ($, el, clear, api, state, showError, label,
// fill). Everything from documents, requests and the server goes on the page with
// textContent (el), never as markup.
"use strict";

// A record's state code and its label; a code the page does not know is shown as given.
const CONFLICT_STATES = {
  open: "web.conflict_state_open",
  resolved: "web.conflict_state_resolved",
  expired: "web.conflict_state_expired",
};

function conflictsBase() {
  return "/kb/" + encodeURIComponent(state.kb) + "/conflicts";
}

// The other views (app.js, review.js, notes.js) are hidden here; each of their scripts
// hides its own view when its tab is not the one clicked, and so does this one.
function showConflicts(visible) {
  $("view-conflicts").hidden = !visible;
  $("tab-conflicts").classList.toggle("active", visible);
  if (!visible) return;
  for (const name of ["ask", "docs", "review", "notes"]) {
    const view = $("view-" + name);
    const tab = $("tab-" + name);
    if (view) view.hidden = true;
    if (tab) tab.classList.remove("active");
  }
  loadConflicts();
}

async function loadConflicts() {
  showError("");
  const list = $("conflicts-list");
  clear(list);
  $("conflicts-policy").textContent = "";
  $("conflicts-withheld").hidden = true;
  try {
    const data = await api("GET", conflictsBase());
    $("conflicts-policy").textContent = fill("web.conflicts_policy", { mode: data.policy.conflicts }) +
      (data.may_resolve ? "" : label("web.conflicts_read_only"));
    $("conflicts-empty").hidden = data.conflicts.length > 0;
    if (data.withheld) {
      $("conflicts-withheld").hidden = false;
      $("conflicts-withheld").textContent = fill("web.conflicts_withheld", { count: data.withheld });
    }
    for (const c of data.conflicts) list.appendChild(conflictCard(c, data.may_resolve));
  } catch (e) {
    $("conflicts-empty").hidden = true;
    showError(e.message);
  }
}

function conflictState(code) {
  const key = CONFLICT_STATES[code];
  return (key && labels.table[key]) || code;
}

// One side; `governs` is the governing path of a resolution in force (else null).
function sideBlock(s, governs) {
  const div = el("div", undefined, "conflict-side");
  div.dataset.side = s.side;
  div.dataset.path = s.path;
  if (governs !== null) div.dataset.governs = String(governs === s.path);
  div.appendChild(el("h3", fill("web.conflict_side", { side: s.side.toUpperCase(), path: s.path })));
  if (s.value) div.appendChild(el("p", fill("web.conflict_value", { value: s.value }), "meta"));
  div.appendChild(el("blockquote", s.text, "source"));
  return div;
}

function resolutionLine(r) {
  let line = fill("web.conflict_resolution", { governs: r.governs, who: r.resolver, at: r.resolved_at });
  if (r.until) line += fill("web.conflict_until", { until: r.until });
  if (r.note) line += fill("web.conflict_note", { note: r.note });
  return line;
}

function conflictCard(c, mayResolve) {
  const card = el("section", undefined, "conflict");
  card.dataset.id = c.id;
  card.dataset.state = c.state;
  const head = el("h2");
  head.appendChild(el("span", conflictState(c.state), "conflict-state"));
  head.appendChild(el("span", " " + fill("web.conflict_head", {
    id: c.id, subject: c.subject, attribute: c.attribute, at: c.detected_at,
  })));
  card.appendChild(head);
  const sides = el("div", undefined, "conflict-sides");
  const governs = c.state === "resolved" && c.resolution ? c.resolution.governs : null;
  for (const s of c.sides) sides.appendChild(sideBlock(s, governs));
  card.appendChild(sides);
  if (c.resolution) card.appendChild(el("p", resolutionLine(c.resolution), "meta conflict-resolution"));
  if (mayResolve) card.appendChild(resolveForm(c));
  return card;
}

function field(text, input) {
  const wrap = el("label");
  wrap.appendChild(el("span", text + " "));
  wrap.appendChild(input);
  return wrap;
}

// Choose the governing side (its letter and path), an optional last day and a note.
function resolveForm(c) {
  const form = el("form", undefined, "conflict-resolve");
  const governs = el("select");
  governs.name = "governs";
  for (const s of c.sides) {
    const opt = el("option", s.side.toUpperCase() + ": " + s.path);
    opt.value = s.side;
    opt.selected = Boolean(c.resolution && c.resolution.governs === s.path);
    governs.appendChild(opt);
  }
  // A text field, not type=date: the day goes to the server as typed (YYYY-MM-DD), whose
  // error names the form when it is not one.
  const until = el("input");
  until.type = "text";
  until.name = "until";
  until.placeholder = "YYYY-MM-DD";
  until.maxLength = 40;
  const note = el("input");
  note.type = "text";
  note.name = "note";
  note.maxLength = 500;
  const submit = el("button", label("web.btn_resolve"));
  submit.type = "submit";
  form.appendChild(field(label("web.conflict_governs"), governs));
  form.appendChild(field(label("web.conflict_until_field"), until));
  form.appendChild(field(label("web.conflict_note_field"), note));
  form.appendChild(submit);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    resolveConflict(c.id, { governs: governs.value, until: until.value.trim() || null, note: note.value.trim() });
  });
  return form;
}

async function resolveConflict(id, body) {
  showError("");
  try {
    await api("POST", conflictsBase() + "/" + encodeURIComponent(id) + "/resolve", body);
    await loadConflicts();
  } catch (e) {
    showError(e.message);  // a 403 names the role or the policy's publishers it needs
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("tab-conflicts").addEventListener("click", () => showConflicts(true));
  for (const name of ["ask", "docs", "review", "notes"]) {
    const tab = $("tab-" + name);
    if (tab) tab.addEventListener("click", () => showConflicts(false));
  }
  const reload = () => {
    if (!$("view-conflicts").hidden) loadConflicts();
  };
  $("kb-picker").addEventListener("change", reload);
  $("api-key").addEventListener("change", reload);
  // The page's language changed (app.js applyLabels): write the list in it again.
  document.addEventListener("citewise:labels", reload);
});
