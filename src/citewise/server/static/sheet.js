// citewise web page: a spreadsheet citation shown as its sheet (issue 36). Loaded after
// app.js and uses its helpers ($, el, clear, fill). When the cited span lies in a table
// whose rows name their cells (XLSX, ODS, CSV, converted XLS: attrs.cell_refs), the
// table is drawn as the sheet shows it, with spreadsheet column letters and row numbers,
// and the cited cells (the locator's `cells`, e.g. 'Stanley Cups'!C5 or A5:C5) are
// highlighted; the caption names the sheet. Every cell is put on the page with
// textContent only, never as markup.
"use strict";

// "'Q1 ''north'''!B3:C5" -> {c0: 2, r0: 3, c1: 3, r1: 5}; null when unreadable.
function sheetRange(cells) {
  const bare = String(cells || "").split("!").pop();
  const m = /^\$?([A-Z]{1,3})\$?(\d+)(?::\$?([A-Z]{1,3})\$?(\d+))?$/.exec(bare);
  if (!m) return null;
  const c0 = columnNumber(m[1]);
  const r0 = Number(m[2]);
  const c1 = m[3] ? columnNumber(m[3]) : c0;
  const r1 = m[4] ? Number(m[4]) : r0;
  return { c0: Math.min(c0, c1), r0: Math.min(r0, r1), c1: Math.max(c0, c1), r1: Math.max(r0, r1) };
}

function columnNumber(letters) {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

function refParts(ref) {
  const m = /([A-Z]{1,3})(\d+)$/.exec(String(ref || ""));
  return m ? { letter: m[1], col: columnNumber(m[1]), row: Number(m[2]) } : null;
}

// The table node holding the cited span and its rows that carry cell references.
function citedSheetTable(nodes, cited) {
  const holds = (n) => n.char_start <= cited.char_start && n.char_end >= cited.char_end;
  const table = nodes.find((n) => n.kind === "table" && holds(n));
  if (!table) return null;
  const rows = nodes.filter((n) => n.kind === "table_row" && n.char_start >= table.char_start &&
    n.char_end <= table.char_end && n.attrs && n.attrs.cell_refs);
  return rows.length ? { table, rows } : null;
}

function showSheet(cited, nodes) {
  const holder = $("cite-sheet");
  clear(holder);
  holder.hidden = true;
  const loc = (cited.extra || {}).locator;
  if (!loc || loc.sheet === undefined || !nodes) return;
  const found = citedSheetTable(nodes, cited);
  if (!found) return;
  const range = sheetRange(loc.cells);
  const header = (found.table.attrs || {}).header || [];
  const firstRefs = found.rows[0].attrs.cell_refs;
  const letters = header.map((h) => (refParts(firstRefs[h]) || {}).letter || "");
  const table = el("table", null, "sheet-grid");
  table.appendChild(el("caption", fill("web.cite_sheet", { sheet: loc.sheet, cells: String(loc.cells || "").split("!").pop() })));
  const head = el("thead");
  const lettersRow = el("tr");
  lettersRow.appendChild(el("th", "", "sheet-corner"));
  letters.forEach((l) => lettersRow.appendChild(el("th", l, "sheet-col")));
  head.appendChild(lettersRow);
  const names = el("tr");
  const headerRow = ((found.table.attrs || {}).locator || {}).row;
  names.appendChild(el("th", headerRow === undefined ? "" : String(headerRow), "sheet-row"));
  header.forEach((h) => names.appendChild(el("th", h)));
  head.appendChild(names);
  table.appendChild(head);
  const body = el("tbody");
  let first = null;
  for (const row of found.rows) {
    const tr = el("tr");
    const number = (row.attrs.locator || {}).row;
    tr.appendChild(el("th", number === undefined ? "" : String(number), "sheet-row"));
    const cells = row.attrs.cells || [];
    header.forEach((h, i) => {
      const td = el("td", cells[i] || "");
      const at = refParts(row.attrs.cell_refs[h]);
      const col = at ? at.col : 0;
      if (range && number >= range.r0 && number <= range.r1 && col >= range.c0 && col <= range.c1) {
        td.className = "sheet-cited";
        if (!first) first = td;
      }
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
  table.appendChild(body);
  holder.appendChild(table);
  holder.hidden = false;
  if (first) {
    first.id = "cite-cell";
    first.scrollIntoView({ block: "nearest" });
  }
}
