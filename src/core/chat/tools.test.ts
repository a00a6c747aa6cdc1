import { loadDagText } from '../spec/load.js';
import { parseParamString } from '../vars/params.js';
import { toolCallParams, toolDefinition, toolNameClash } from './tools.js';

const dagOf = (text: string) => loadDagText(text, { fileName: 't' }).dag!;

const weather = dagOf(`
description: Tells the weather of a city.
params: first CITY=Paris UNITS=""
steps:
  - command: echo
`);

describe('toolDefinition', () => {
  test('name, description and string parameters from the DAG params, positional ones by place', () => {
    expect(toolDefinition('weather.now', weather)).toEqual({
      name: 'weather_now', dagName: 'weather.now', description: 'Tells the weather of a city.',
      parameters: {
        type: 'object', required: [], additionalProperties: false,
        properties: {
          1: { type: 'string', description: 'Positional parameter 1 (default: "first")' },
          CITY: { type: 'string', description: 'Parameter CITY (default: "Paris")' },
          UNITS: { type: 'string', description: 'Parameter UNITS' },
        },
      },
    });
  });

  test('a DAG without a description is described by its name', () => {
    expect(toolDefinition('bare', dagOf('steps:\n  - command: echo\n')).description).toBe('Runs the workflow "bare" and returns its outputs and status.');
  });

  test('two DAGs offered under one function name are a clash', () => {
    const d = dagOf('steps:\n  - command: echo\n');
    expect(toolNameClash([toolDefinition('a.b', d), toolDefinition('a_b', d)])).toBe('llm.tools: "a.b" and "a_b" would both be offered as the function "a_b"');
    expect(toolNameClash([toolDefinition('a.b', d), toolDefinition('c', d)])).toBeUndefined();
  });
});

describe('toolCallParams', () => {
  const tool = toolDefinition('weather', weather);
  const params = (args: unknown): unknown => {
    const r = toolCallParams(tool, weather, args);
    return 'params' in r ? parseParamString(r.params) : r;
  };

  test('arguments over the defaults, positional in place, values as data', () => {
    expect(params({ CITY: "Saint-Jean-d'Angély $HOME", 1: 7 })).toEqual([
      { value: '7' }, { name: 'CITY', value: "Saint-Jean-d'Angély $HOME" }, { name: 'UNITS', value: '' },
    ]);
    expect(params(undefined)).toEqual([{ value: 'first' }, { name: 'CITY', value: 'Paris' }, { name: 'UNITS', value: '' }]);
    expect(params({ UNITS: { metric: true } })).toContainEqual({ name: 'UNITS', value: '{"metric":true}' });
  });

  test('arguments the model got wrong are errors to pass back to it', () => {
    expect(params([1])).toEqual({ error: 'the arguments of weather must be a JSON object' });
    expect(params({ TOWN: 'x', CITY: 'y' })).toEqual({ error: 'weather has no parameter TOWN: its parameters are 1, CITY, UNITS' });
    const none = dagOf('steps:\n  - command: echo\n');
    expect(toolCallParams(toolDefinition('none', none), none, { X: 1 })).toEqual({ error: 'none has no parameter X: it takes no parameters' });
  });
});
