// Reading a table from markdown, CSV or TSV text, sorting it and writing it back as an aligned
// markdown table. Pure functions over strings, so the logic does not depend on the component
// around it. Every problem with the input is a `TableError` whose message names the line.

import { displayWidth } from './width.js';

/** A problem with the table the user gave, worded for the model to relay or fix. */
export class TableError extends Error {}

/** A GitHub-flavoured markdown delimiter row: `| :--- | :---: | ---: |` (outer pipes optional). */
const DELIMITER = /^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$/;

/** The format of `text`: a markdown table when its second line is a delimiter row, TSV when
 * its first line has a tab, CSV otherwise. */
export function detectFormat(text) {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length >= 2 && DELIMITER.test(lines[1].trim()) && lines[1].includes('-')) {
    return 'markdown';
  }
  if (lines.length > 0 && lines[0].includes('\t')) return 'tsv';
  return 'csv';
}

/**
 * Parses `text` in `format` (markdown, csv or tsv) into
 * `{ header: string[], align: ('left'|'center'|'right'|'none')[], rows: string[][] }`, cells
 * as markdown text.
 */
export function parseTable(text, format) {
  const table = PARSERS[format](text);
  if (table.header.length === 0) throw new TableError('the table is empty');
  return table;
}

const PARSERS = {
  markdown: parseMarkdown,
  csv: (text) => fromRecords(parseDelimited(text, ',')),
  tsv: (text) => fromRecords(parseTsv(text)),
};

/** The cells of one markdown row: split at pipes that are not escaped (`\|`). */
function markdownCells(line) {
  let row = line.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
  const cells = [];
  let cell = '';
  for (let i = 0; i < row.length; i++) {
    if (row[i] === '\\' && row[i + 1] === '|') {
      cell += '\\|';
      i++;
    } else if (row[i] === '|') {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += row[i];
    }
  }
  cells.push(cell.trim());
  return cells;
}

function alignmentOf(marker) {
  const left = marker.startsWith(':');
  const right = marker.endsWith(':');
  if (left && right) return 'center';
  if (right) return 'right';
  if (left) return 'left';
  return 'none';
}

function parseMarkdown(text) {
  const lines = numberedLines(text);
  if (lines.length < 2 || !DELIMITER.test(lines[1].text.trim())) {
    throw new TableError(
      'not a markdown table: the second line must be a delimiter row such as `| --- | :---: |`',
    );
  }
  const header = markdownCells(lines[0].text);
  const markers = markdownCells(lines[1].text);
  if (markers.length !== header.length) {
    throw new TableError(
      `line ${lines[1].number}: the delimiter row has ${markers.length} cells, the header ${header.length}`,
    );
  }
  const rows = lines.slice(2).map(({ number, text: line }) => {
    if (!line.includes('|')) {
      throw new TableError(`line ${number} is not a table row (it has no \`|\`): ${quote(line)}`);
    }
    const cells = markdownCells(line);
    checkWidth(cells.length, header.length, number);
    return cells;
  });
  return { header, align: markers.map(alignmentOf), rows };
}

/** The non-blank lines of `text` with their 1-based line numbers. */
function numberedLines(text) {
  return text
    .split(/\r?\n/)
    .map((line, i) => ({ number: i + 1, text: line }))
    .filter((l) => l.text.trim() !== '');
}

function checkWidth(cells, expected, line) {
  if (cells !== expected) {
    throw new TableError(
      `line ${line} has ${cells} ${cells === 1 ? 'cell' : 'cells'}, the header has ${expected}: ` +
        'every row needs one cell per column (leave a cell empty rather than out)',
    );
  }
}

function quote(line) {
  return JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line);
}

/** CSV as RFC 4180 has it: quoted fields may hold the separator, `""` and newlines. Returns
 * records with the line each starts on. */
function parseDelimited(text, separator) {
  const records = [];
  let record = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let quoteLine = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        if (ch === '\n') line++;
        field += ch;
      }
    } else if (ch === '"' && field === '') {
      quoted = true;
      quoteLine = line;
    } else if (ch === separator) {
      record.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push({ line: start, cells: record });
      record = [];
      field = '';
      line++;
      start = line;
    } else {
      field += ch;
    }
  }
  if (quoted) throw new TableError(`line ${quoteLine}: a quoted field is never closed`);
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push({ line: start, cells: record });
  }
  return records.filter((r) => !(r.cells.length === 1 && r.cells[0].trim() === ''));
}

function parseTsv(text) {
  return numberedLines(text).map(({ number, text: line }) => ({
    line: number,
    cells: line.split('\t'),
  }));
}

/** Markdown text of a CSV or TSV value: pipes escaped, line breaks as `<br>`. */
function markdownText(value) {
  return value.trim().replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

const NUMBER = /^[-+]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?%?$/;

function isNumber(cell) {
  return cell !== '' && NUMBER.test(cell) && /\d/.test(cell);
}

/** A table from CSV or TSV records; columns holding only numbers are right-aligned, as they
 * would be in a spreadsheet. */
function fromRecords(records) {
  if (records.length === 0) throw new TableError('the table is empty');
  const [head, ...body] = records;
  const header = head.cells.map(markdownText);
  const rows = body.map(({ line, cells }) => {
    checkWidth(cells.length, header.length, line);
    return cells.map(markdownText);
  });
  const align = header.map((_, c) =>
    rows.length > 0 && rows.every((r) => r[c] === '' || isNumber(r[c])) && rows.some((r) => r[c] !== '')
      ? 'right'
      : 'none',
  );
  return { header, align, rows };
}

/** The index of the column `key` names: a header (case-insensitive) or a 1-based number. */
export function columnIndex(header, key) {
  const text = String(key).trim();
  const byName = header.findIndex((h) => h.toLowerCase() === text.toLowerCase());
  if (byName >= 0) return byName;
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n >= 1 && n <= header.length) return n - 1;
  }
  throw new TableError(
    `no column ${JSON.stringify(text)}: the columns are ${header.map((h) => JSON.stringify(h)).join(', ')} (or 1 to ${header.length})`,
  );
}

function numericValue(cell) {
  return Number(cell.replace(/[,%]/g, ''));
}

/** Sorts rows by column `index` (stable): numerically when every filled cell is a number,
 * else by text ignoring case; empty cells last either way. */
export function sortRows(rows, index, descending) {
  const numeric = rows.every((r) => r[index] === '' || isNumber(r[index]));
  const compare = (a, b) => {
    if (numeric) return numericValue(a) - numericValue(b);
    const [x, y] = [a.toLowerCase(), b.toLowerCase()];
    return x < y ? -1 : x > y ? 1 : 0;
  };
  return [...rows].sort((a, b) => {
    const [x, y] = [a[index], b[index]];
    if (x === '' || y === '') return (x === '') - (y === '');
    return descending ? compare(y, x) : compare(x, y);
  });
}

function pad(text, width, align) {
  const gap = width - displayWidth(text);
  if (align === 'right') return ' '.repeat(gap) + text;
  if (align === 'center') {
    const left = Math.floor(gap / 2);
    return ' '.repeat(left) + text + ' '.repeat(gap - left);
  }
  return text + ' '.repeat(gap);
}

function delimiter(width, align) {
  const dashes = (n) => '-'.repeat(n);
  if (align === 'center') return `:${dashes(width - 2)}:`;
  if (align === 'right') return `${dashes(width - 1)}:`;
  if (align === 'left') return `:${dashes(width - 1)}`;
  return dashes(width);
}

/** The table as aligned markdown: every column as wide as its widest cell (at least 3, so
 * the delimiter row stays valid), one space either side of each cell. */
export function formatTable({ header, align, rows }) {
  const widths = header.map((h, c) =>
    Math.max(3, displayWidth(h), ...rows.map((r) => displayWidth(r[c]))),
  );
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [
    line(header.map((h, c) => pad(h, widths[c], align[c]))),
    line(widths.map((w, c) => delimiter(w, align[c]))),
    ...rows.map((r) => line(r.map((cell, c) => pad(cell, widths[c], align[c])))),
  ].join('\n');
}
