/** Reading a file a user named (dotenv): its text, or undefined when it does not exist or is a directory. */
import { readFile } from 'node:fs/promises';

export async function readUserFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR') return undefined;
    throw e;
  }
}
