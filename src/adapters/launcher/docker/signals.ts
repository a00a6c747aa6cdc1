/** Signal names and numbers (an exit code above 128 is 128 plus the number of the signal that ended it). */
import { constants } from 'node:os';

const NAMES = new Map<number, string>();
for (const [name, n] of Object.entries(constants.signals as Record<string, number>)) if (!NAMES.has(n)) NAMES.set(n, name);

export const signalName = (n: number): string => NAMES.get(n) ?? `SIG${n}`;
