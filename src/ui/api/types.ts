/**
 * The API's shapes the pages use, from the generated schema. Where the OpenAPI document leaves an object
 * open (a step definition, the DAG definition's extra fields), the few fields the UI reads are declared
 * here as optional, and read defensively.
 */
import type { components } from './schema.generated';

type Schemas = components['schemas'];

export type DagListItem = Schemas['DagListItem'];
export type DagRunSummary = Schemas['DagRunSummary'];
export type NodeRecord = Schemas['NodeRecord'] & { exitCode?: number };
export type DagRunDetail = Schemas['DagRunDetail'];
export type LogPage = Schemas['LogPage'];
export type Pagination = Schemas['Pagination'];
export type ApiErrorBody = Schemas['Error'];
export type Role = Schemas['Role'];
export type Worker = Schemas['Worker'];
export type Health = Schemas['Health'];
export type User = Schemas['User'];
export type ApiKey = Schemas['ApiKey'];
export type Webhook = Schemas['Webhook'];

/** The step definition fields the graph and tables read (open in the schema). */
export interface StepFields {
  name: string;
  depends?: string[];
  type?: string;
  description?: string;
}

export interface RunConfig {
  disableParamEdit?: boolean;
  disableRunIdEdit?: boolean;
}

export type DagDefinition = Schemas['DagDefinition'] & { runConfig?: RunConfig; queue?: string };
export type DagDetail = Omit<Schemas['DagDetail'], 'dag'> & { dag: DagDefinition };

export function stepFields(step: Schemas['Step']): StepFields {
  const s = step as Schemas['Step'] & Partial<StepFields>;
  return {
    name: s.name,
    depends: Array.isArray(s.depends) ? s.depends.filter((d): d is string => typeof d === 'string') : [],
    ...(typeof s.type === 'string' ? { type: s.type } : {}),
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
  };
}
