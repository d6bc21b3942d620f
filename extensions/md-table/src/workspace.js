// Reading a file of the workspace through WASI: the package is granted `filesystem = "read"`,
// so pi preopens the working directory at its real absolute path and nothing else. A path is
// resolved against `host.cwd()`, matched to that preopen and opened relative to it; WASI itself
// refuses anything that leaves it (`..`, symbolic links pointing out).

import { cwd } from 'pi:extension/host@0.3.0';
import { getDirectories } from 'wasi:filesystem/preopens@0.2.12';
import { TableError } from './table.js';

/** Larger inputs are refused rather than read: a table this big is not for a model's context. */
export const MAX_BYTES = 1024 * 1024;

/** `path` made absolute against the session's working directory, `.` and `..` folded. */
function absolute(path) {
  const joined = path.startsWith('/') ? path : `${cwd()}/${path}`;
  const parts = [];
  for (const part of joined.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** The preopened directory holding `full`, and the path inside it. */
function locate(full, shown) {
  for (const [dir, root] of getDirectories()) {
    const base = root.endsWith('/') ? root : `${root}/`;
    if (full.startsWith(base)) return [dir, full.slice(base.length)];
  }
  throw new TableError(`${shown} is outside the workspace (${cwd()}), which is all this tool can read`);
}

function describeError(e) {
  // WASI errors arrive as a ComponentError whose payload is the error-code name.
  const code = e && e.payload !== undefined ? e.payload : String(e);
  const words = {
    'no-entry': 'no such file',
    'is-directory': 'it is a directory',
    access: 'permission denied',
    'not-permitted': 'not permitted (outside the workspace)',
  };
  return words[code] || code;
}

/** The text of the workspace file `path` (UTF-8). */
export function readWorkspaceFile(path) {
  const shown = JSON.stringify(path);
  const [dir, inner] = locate(absolute(path), shown);
  if (inner === '') throw new TableError(`${shown} is a directory, not a file`);
  let file;
  try {
    file = dir.openAt({ symlinkFollow: true }, inner, {}, { read: true });
  } catch (e) {
    throw new TableError(`cannot open ${shown}: ${describeError(e)}`);
  }
  try {
    const size = file.stat().size;
    if (size > BigInt(MAX_BYTES)) {
      throw new TableError(`${shown} is ${size} bytes; this tool reads at most ${MAX_BYTES}`);
    }
    const chunks = [];
    let offset = 0n;
    for (;;) {
      const [bytes, end] = file.read(65536n, offset);
      chunks.push(bytes);
      offset += BigInt(bytes.length);
      if (end || bytes.length === 0) break;
    }
    const all = new Uint8Array(Number(offset));
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.length;
    }
    return new TextDecoder().decode(all);
  } catch (e) {
    if (e instanceof TableError) throw e;
    throw new TableError(`cannot read ${shown}: ${describeError(e)}`);
  }
}
