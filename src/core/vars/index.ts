/** Pure variable, parameter and environment logic (SPEC 2.1, 2.2, 2.4, 2.7). See README.md for the invariants. */
export type { ParamToken, ResolvedParams } from './params.js';
export { paramsToEnv, parseParamString, resolveParams } from './params.js';
export type { ExpandOptions, Lookup, RunCommand } from './expand.js';
export { expandAll, expandVars, jsonPath, splitBackquotes } from './expand.js';
export { parseJsonPath, renderJsonValue } from './jsonpath.js';
export type { PathSegment } from './jsonpath.js';
export type { DotenvResult } from './dotenv.js';
export { dotenvOrder, parseDotenv } from './dotenv.js';
export type { DagEnvInput, StepEnvInput, SystemEnv } from './env.js';
export {
  buildExpansionLookup,
  buildStepEnv,
  evaluateEntries,
  filterSystemEnv,
  resolveDagEnv,
  SYSTEM_ENV_NAMES,
  SYSTEM_ENV_PREFIXES,
} from './env.js';
export type { Masker } from './mask.js';
export { createMasker, MASK, maskSecrets } from './mask.js';
export type { ParallelItem } from './items.js';
export { itemToString, parseParallelItems } from './items.js';
export { toCamelKey } from './outputs.js';
