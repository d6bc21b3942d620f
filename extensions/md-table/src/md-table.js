// The `md_table` tool: pi's `tool` world (`wit/worlds.wit`) in JavaScript. `describe` offers
// one tool; `execute` reads the table (given inline or as a workspace file), sorts it when
// asked and answers with the aligned markdown. Problems with the input are thrown: an export
// returning `result<_, string>` turns a thrown value into its `err`, which pi shows the model.

import { log } from 'pi:extension/host@0.3.0';
import {
  TableError,
  columnIndex,
  detectFormat,
  formatTable,
  parseTable,
  sortRows,
} from './table.js';
import { MAX_BYTES, readWorkspaceFile } from './workspace.js';

const PARAMETERS = {
  type: 'object',
  properties: {
    table: {
      type: 'string',
      description: 'The table as text: a markdown table, CSV or TSV (the first row is the header).',
    },
    path: {
      type: 'string',
      description: 'A file in the workspace holding the table, instead of `table`.',
    },
    format: {
      type: 'string',
      enum: ['auto', 'markdown', 'csv', 'tsv'],
      description: 'The input format; `auto` (the default) tells them apart.',
    },
    sort_by: {
      type: 'string',
      description: 'Sort the rows by this column: its header, or its number counting from 1.',
    },
    descending: {
      type: 'boolean',
      description: 'Sort from largest to smallest (with `sort_by`).',
    },
  },
  additionalProperties: false,
};

function definition() {
  return {
    name: 'md_table',
    label: 'Markdown table',
    description:
      'Formats a table as an aligned markdown table: columns padded to the same width (wide ' +
      'characters count double), `:---:` alignment markers kept, optionally sorted by a column. ' +
      'Takes markdown, CSV or TSV text, or a file in the workspace.',
    parametersSchema: JSON.stringify(PARAMETERS),
    promptSnippet: 'md_table: align, convert (CSV/TSV to markdown) and sort tables',
    promptGuidelines: [
      'Use md_table to write or tidy markdown tables instead of aligning columns by hand.',
    ],
    executionMode: 'parallel',
  };
}

/** The table text the call names: `table`, or the contents of `path`. */
function input(args) {
  if (typeof args.table === 'string' && typeof args.path === 'string') {
    throw new TableError('give either `table` or `path`, not both');
  }
  if (typeof args.path === 'string') return readWorkspaceFile(args.path);
  if (typeof args.table === 'string') {
    if (args.table.length > MAX_BYTES) throw new TableError(`the table is longer than ${MAX_BYTES} characters`);
    return args.table;
  }
  throw new TableError('give the table as `table` (text) or `path` (a workspace file)');
}

function run(args) {
  const text = input(args);
  const format = !args.format || args.format === 'auto' ? detectFormat(text) : args.format;
  const table = parseTable(text, format);
  let sortedBy = null;
  if (args.sort_by !== undefined && args.sort_by !== '') {
    const index = columnIndex(table.header, args.sort_by);
    table.rows = sortRows(table.rows, index, args.descending === true);
    sortedBy = table.header[index];
  }
  const markdown = formatTable(table);
  const details = {
    format,
    columns: table.header.length,
    rows: table.rows.length,
    sortedBy,
    descending: sortedBy !== null && args.descending === true,
  };
  return { markdown, details };
}

export const toolGuest = {
  describe() {
    return [definition()];
  },

  execute(call) {
    let args;
    try {
      args = JSON.parse(call.arguments);
    } catch (e) {
      throw `the arguments are not JSON: ${e.message}`;
    }
    try {
      const { markdown, details } = run(args);
      log('debug', `formatted a ${details.format} table of ${details.rows} rows`);
      return {
        content: [{ tag: 'text', val: markdown }],
        details: JSON.stringify(details),
        isError: false,
      };
    } catch (e) {
      if (e instanceof TableError) throw e.message;
      log('error', `md_table failed: ${e && e.stack ? e.stack : e}`);
      throw `md_table failed: ${e}`;
    }
  },
};
