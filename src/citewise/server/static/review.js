// citewise web page: the Review tab (issue 38). Held candidates and quarantined files,
// each document's line diff against the published version, its warnings and provenance,
// and the approve / release / reject buttons. Uses app.js's helpers ($, el, clear, api,
// state, showError) and its labels (label, fill: the page's language). Everything from documents and requests goes on the page with
// textContent (el), never innerHTML.
"use strict";

// Codes of a held change (its kind, a file's change) and their labels; a code the page
// does not know yet is shown as the JSON gives it.
const REVIEW_WORDS = {
  candidate: "web.review_kind_candidate",
  quarantine: "web.review_kind_quarantine",
  added: "web.review_change_added",
  changed: "web.review_change_changed",
  deleted: "web.review_change_deleted",
};

function reviewWord(code) {
  const key = REVIEW_WORDS[code];
  return (key && labels.table[key]) || code;
}

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

// The policy's words come from the labels (app.js); its codes stay as the JSON has them.
function policyLine(p, mayDecide) {
  const q = p.quarantine;
  const held = ["ocr_degraded", "repaired_extraction", "parse_warnings"].filter((k) => q[k]);
  if (q.max_bytes !== null) held.push(fill("web.review_over_bytes", { bytes: q.max_bytes }));
  return fill("web.review_policy", {
    publication: p.publication,
    publishers: p.publishers.join(", ") || label("web.review_admins"),
    quarantine: held.join(", ") || label("web.review_nothing"),
  }) + (mayDecide ? "" : label("web.review_read_only"));
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

function button(text, onClick) {
  const b = el("button", text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

function reviewRow(h, mayDecide) {
  const tr = el("tr");
  tr.dataset.id = h.id;
  tr.dataset.kind = h.kind;
  const changes = h.files.map((f) => f.action + " " + f.path).join(", ") +
    (h.withheld_files ? fill("web.review_withheld_row", { count: h.withheld_files }) : "");
  [h.id, reviewWord(h.kind), (h.submitted_by || label("web.review_local")) + " " + h.created_at, changes,
    h.reasons.map((r) => r.message).join("; ")].forEach((x) => tr.appendChild(el("td", x)));
  const td = el("td");
  td.appendChild(button(label("web.btn_show"), () => showHeld(h.id)));
  if (mayDecide) {
    const publish = h.kind === "candidate" ? "approve" : "release";
    const word = label(publish === "approve" ? "web.btn_approve" : "web.btn_release");
    td.appendChild(button(word, () => decide(h.id, publish)));
    td.appendChild(button(label("web.btn_reject"), () => decide(h.id, "reject")));
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
    $("review-id").textContent = held.id + " (" + reviewWord(held.kind) + ")";
    $("review-meta").textContent = fill("web.review_submitted", {
      who: held.submitted_by || label("web.review_local"), origin: held.origin, at: held.created_at,
    }) + (held.withheld_files ? fill("web.review_withheld_detail", { count: held.withheld_files }) : "");
    const box = $("review-files");
    clear(box);
    for (const f of held.files) {
      const div = el("div", undefined, "review-file");
      div.dataset.path = f.path;
      div.appendChild(el("h3", reviewWord(f.change) + " " + f.path));
      const p = f.provenance;
      if (f.action === "write") {
        const line = fill("web.review_provenance", { source: p.source, sha: p.sha256.slice(0, 16), size: p.size });
        div.appendChild(el("p", line, "meta"));
      }
      for (const w of f.warnings) div.appendChild(el("p", w.kind + ": " + w.message, "meta review-warning"));
      div.appendChild(diffBlock(f.diff));
      if (f.diff_cut) div.appendChild(el("p", fill("web.review_diff_cut", { count: f.diff_cut }), "meta"));
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
  // The page's language changed (app.js applyLabels): write the list in it again.
  document.addEventListener("citewise:labels", () => {
    if (!$("view-review").hidden) loadReview();
  });
});
