/** A file as a local step would read it with `cat`: its text, or undefined when it cannot be read. */
import { open } from 'node:fs/promises';

/** Undefined for a missing, unreadable or non-regular file; an error over maxBytes (never silently cut). */
export async function readLocalFile(path: string, maxBytes: number): Promise<string | undefined> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return undefined;
    if (st.size > maxBytes) throw new Error(`${path} is ${st.size} bytes, over the ${maxBytes}-byte limit of a file the engine reads`);
    return await fh.readFile('utf8');
  } finally {
    await fh.close();
  }
}
