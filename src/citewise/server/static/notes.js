// citewise web page: the Notes view (issue 40). Loaded after app.js and uses its helpers
// ($, el, clear, api, state, showError, openCitation) and its labels in the page's
// language (label, fill). Every note line is a quotation from a document: it is put on
// the page with textContent only, never as markup; its citation opens the same citation
// view as an answer's markers.
"use strict";

const notesState = { list: [], topic: null, home: null };

// A note's section codes and their labels; a section the page does not know yet shows the
// title the JSON gives (section_titles).
const NOTE_SECTIONS = {
  definition: "web.note_section_definition",
  relations: "web.note_section_relations",
  used: "web.note_section_used",
  figures: "web.note_section_figures",
  conflicts: "web.note_section_conflicts",
  discussed: "web.note_section_discussed",
};

function sectionTitle(note, section) {
  const key = NOTE_SECTIONS[section];
  return (key && labels.table[key]) || note.section_titles[section] || section;
}

function notesUrl(topic) {
  const base = "/kb/" + encodeURIComponent(state.kb) + "/notes";
  return topic ? base + "/" + encodeURIComponent(topic) : base;
}

// The citation view lives in the Ask view; it moves to the view that opens a citation.
function citationViewTo(parent) {
  const view = $("citation-view");
  if (!notesState.home) notesState.home = { parent: view.parentNode, next: view.nextSibling };
  if (view.parentNode !== parent) parent.appendChild(view);
}

function citationViewBack() {
  const home = notesState.home;
  if (home && $("citation-view").parentNode !== home.parent) {
    home.parent.insertBefore($("citation-view"), home.next);
  }
}

function showNotesView(show) {
  $("view-notes").hidden = !show;
  $("tab-notes").classList.toggle("active", show);
  if (show) {
    $("view-ask").hidden = true;
    $("view-docs").hidden = true;
    $("tab-ask").classList.remove("active");
    $("tab-docs").classList.remove("active");
    refreshNotes();
  } else {
    citationViewBack();
  }
}

function renderNoteList() {
  const list = $("notes-list");
  clear(list);
  const q = $("notes-query").value.trim().toLowerCase();
  for (const n of notesState.list) {
    if (q && !n.title.toLowerCase().includes(q)) continue;
    const li = el("li");
    const b = el("button", n.title + " (" + n.lines + ")");
    b.type = "button";
    b.dataset.topic = n.topic;
    if (n.topic === notesState.topic) b.classList.add("active");
    b.addEventListener("click", () => openNote(n.topic));
    li.appendChild(b);
    list.appendChild(li);
  }
}

async function loadNotes() {
  showError("");
  try {
    const data = await api("GET", notesUrl());
    notesState.list = data.notes || [];
    $("notes-meta").textContent = notesState.list.length
      ? fill("web.notes_count", { count: notesState.list.length })
      : label("web.notes_empty");
    renderNoteList();
  } catch (e) {
    showError(e.message);
  }
}

// The list and the open note written again (in the page's current language).
function refreshNotes() {
  loadNotes();
  if (notesState.topic && !$("note").hidden) openNote(notesState.topic);
}

function noteLine(line, number) {
  const div = el("div", null, "note-line");
  div.dataset.changed = String(Boolean(line.changed));
  const quote = el("q", line.excerpt);
  div.appendChild(quote);
  const c = { ...line, number: number, verification: null, regulation: null };
  div.appendChild(citeButton(c));
  const where = fill("web.note_line_where", { path: line.path, start: line.line_start, end: line.line_end }) +
    (line.detail ? " · " + line.detail : "") + (line.changed ? label("web.note_line_changed") : "");
  div.appendChild(el("div", where, "meta"));
  return div;
}

async function openNote(topic) {
  showError("");
  try {
    const note = await api("GET", notesUrl(topic));
    notesState.topic = note.topic;
    renderNoteList();
    $("note").hidden = false;
    $("note-title").textContent = note.title;
    $("note-meta").textContent =
      fill("web.note_meta", { revision: note.revision, lines: note.lines, documents: note.documents }) +
      (note.changed ? fill("web.note_changed_count", { count: note.changed }) : "");
    const box = $("note-sections");
    clear(box);
    let current = null;
    note.items.forEach((line, i) => {
      if (line.section !== current) {
        current = line.section;
        box.appendChild(el("h3", sectionTitle(note, current)));
      }
      box.appendChild(noteLine(line, i + 1));
    });
    const links = $("note-links");
    clear(links);
    if (note.links.length) links.appendChild(document.createTextNode(label("web.note_related") + " "));
    note.links.forEach((l, i) => {
      const b = el("button", l.title, "note-link");
      b.type = "button";
      b.addEventListener("click", () => openNote(l.topic));
      if (i) links.appendChild(document.createTextNode(" "));
      links.appendChild(b);
    });
    citationViewTo($("note"));
    $("citation-view").hidden = true;
  } catch (e) {
    showError(e.message);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("tab-notes").addEventListener("click", () => showNotesView(true));
  $("tab-ask").addEventListener("click", () => showNotesView(false));
  $("tab-docs").addEventListener("click", () => showNotesView(false));
  const review = $("tab-review");  // the Review page (review.js), when the page has one
  if (review) review.addEventListener("click", () => showNotesView(false));
  $("notes-query").addEventListener("input", renderNoteList);
  $("notes-filter").addEventListener("submit", (ev) => ev.preventDefault());
  $("kb-picker").addEventListener("change", () => {
    notesState.topic = null;
    $("note").hidden = true;
    if (!$("view-notes").hidden) loadNotes();
  });
  // The page's language changed (app.js applyLabels): write the list and the note again.
  document.addEventListener("citewise:labels", () => {
    if (!$("view-notes").hidden) refreshNotes();
  });
});
