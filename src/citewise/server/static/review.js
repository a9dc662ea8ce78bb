// citewise web page: the Review tab (issue 38). Held candidates and quarantined files,
// each document's line diff against the published version, its warnings and provenance,
// and the approve / release / reject buttons. Uses app.js's helpers ($, el, clear, api,
// state, showError). Everything from documents and requests goes on the page with
// textContent (el), never innerHTML.
"use strict";

function reviewBase() {
  return "/kb/" + encodeURIComponent(state.kb) + "/review";
}

function showReview(visible) {
  $("view-review").hidden = !visible;
  $("tab-review").classList.toggle("active", visible);
  if (visible) {
    $("view-ask").hidden = true;
    $("view-docs").hidden = true;
    $("tab-ask").classList.remove("active");
    $("tab-docs").classList.remove("active");
    loadReview();
  }
}

function policyLine(p, mayDecide) {
  const q = p.quarantine;
  const held = ["ocr_degraded", "repaired_extraction", "parse_warnings"].filter((k) => q[k]);
  if (q.max_bytes !== null) held.push("over " + q.max_bytes + " bytes");
  return "publication: " + p.publication + "; publishers: " + (p.publishers.join(", ") || "(admins)") +
    "; quarantine: " + (held.join(", ") || "nothing") + (mayDecide ? "" : "; you may read but not decide");
}

async function loadReview() {
  showError("");
  $("review-detail").hidden = true;
  try {
    const data = await api("GET", reviewBase());
    $("review-policy").textContent = policyLine(data.policy, data.may_decide);
    const body = $("review-table").querySelector("tbody");
    clear(body);
    $("review-empty").hidden = data.held.length > 0;
    for (const h of data.held) body.appendChild(reviewRow(h, data.may_decide));
  } catch (e) {
    showError(e.message);
  }
}

function button(label, onClick) {
  const b = el("button", label);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

function reviewRow(h, mayDecide) {
  const tr = el("tr");
  tr.dataset.id = h.id;
  tr.dataset.kind = h.kind;
  const changes = h.files.map((f) => f.action + " " + f.path).join(", ") +
    (h.withheld_files ? " (+" + h.withheld_files + " you may not read)" : "");
  [h.id, h.kind, (h.submitted_by || "local") + " " + h.created_at, changes,
    h.reasons.map((r) => r.message).join("; ")].forEach((x) => tr.appendChild(el("td", x)));
  const td = el("td");
  td.appendChild(button("show", () => showHeld(h.id)));
  if (mayDecide) {
    const publish = h.kind === "candidate" ? "approve" : "release";
    td.appendChild(button(publish, () => decide(h.id, publish)));
    td.appendChild(button("reject", () => decide(h.id, "reject")));
  }
  tr.appendChild(td);
  return tr;
}

function diffBlock(lines) {
  const pre = el("pre", undefined, "diff");
  for (const line of lines) {
    let cls = "";
    if (line.startsWith("@@")) cls = "hunk";
    else if (line.startsWith("+") && !line.startsWith("+++")) cls = "add";
    else if (line.startsWith("-") && !line.startsWith("---")) cls = "del";
    pre.appendChild(el("span", line + "\n", cls));
  }
  return pre;
}

async function showHeld(id) {
  showError("");
  try {
    const held = await api("GET", reviewBase() + "/" + encodeURIComponent(id));
    $("review-detail").hidden = false;
    $("review-id").textContent = held.id + " (" + held.kind + ")";
    $("review-meta").textContent = "submitted by " + (held.submitted_by || "local") + " from " +
      held.origin + " at " + held.created_at +
      (held.withheld_files ? "; " + held.withheld_files + " file(s) you may not read" : "");
    const box = $("review-files");
    clear(box);
    for (const f of held.files) {
      const div = el("div", undefined, "review-file");
      div.dataset.path = f.path;
      div.appendChild(el("h3", f.change + " " + f.path));
      const p = f.provenance;
      if (f.action === "write") {
        div.appendChild(el("p", p.source + "; sha256 " + p.sha256.slice(0, 16) + "; " + p.size + " bytes", "meta"));
      }
      for (const w of f.warnings) div.appendChild(el("p", w.kind + ": " + w.message, "meta review-warning"));
      div.appendChild(diffBlock(f.diff));
      if (f.diff_cut) div.appendChild(el("p", f.diff_cut + " more diff lines", "meta"));
      box.appendChild(div);
    }
  } catch (e) {
    showError(e.message);
  }
}

async function decide(id, action) {
  showError("");
  try {
    const body = action === "reject" ? { reason: "rejected in the web page" } : undefined;
    await api("POST", reviewBase() + "/" + encodeURIComponent(id) + "/" + action, body);
    await loadReview();
    await loadKbs();
  } catch (e) {
    showError(e.message);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("tab-review").addEventListener("click", () => showReview(true));
  $("tab-ask").addEventListener("click", () => showReview(false));
  $("tab-docs").addEventListener("click", () => showReview(false));
  const notes = $("tab-notes");  // the Notes page (notes.js), when the page has one
  if (notes) notes.addEventListener("click", () => showReview(false));
  $("kb-picker").addEventListener("change", () => {
    if (!$("view-review").hidden) loadReview();
  });
});
