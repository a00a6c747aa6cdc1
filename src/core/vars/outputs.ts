/**
 * Output variable keys (SPEC 2.7): the default outputs.json key is the variable name converted from
 * SCREAMING_SNAKE_CASE to camelCase. The rule lives with the other name rules in core/spec; re-exported here so
 * users of core/vars need one import.
 */
export { toCamelKey } from '../spec/names.js';
