/**
 * The DagRun API calls the run store needs beyond CustomResources (client.ts): a paged LIST that keeps
 * the list's resourceVersion (the watch starts there), a read of one object as it was at a past
 * resourceVersion, and a delete that tells the deleted object's uid. Errors mapped as client.ts does.
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { NotFoundError } from '../../core/errors.js';
import { GROUP, VERSION } from './crds.js';
import { kubeError } from './client.js';
import type { DagRunObject } from './run-mapping.js';

export const DAG_RUN_PLURAL = 'dagruns';

/** Objects per LIST page: a big history is read in bounded responses, still one consistent snapshot. */
const PAGE = 500;

export interface DagRunList {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string };
  items: DagRunObject[];
}

export class DagRunApi {
  private readonly api: CustomObjectsApi;

  constructor(kc: KubeConfig, readonly namespace: string) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  private get where() {
    return { group: GROUP, version: VERSION, namespace: this.namespace, plural: DAG_RUN_PLURAL };
  }

  /** The watch path of the namespace's DagRuns. */
  get path(): string {
    return `/apis/${GROUP}/${VERSION}/namespaces/${this.namespace}/${DAG_RUN_PLURAL}`;
  }

  /** Every DagRun (matching the selector), page by page; the resourceVersion is the first page's (the snapshot's). */
  async list(labelSelector?: string, fieldSelector?: string): Promise<DagRunList> {
    const first = await this.page(labelSelector, undefined, fieldSelector);
    const items = [...first.items];
    for (let next = first.metadata.continue; next; ) {
      const page = await this.page(labelSelector, next, fieldSelector);
      items.push(...page.items);
      next = page.metadata.continue;
    }
    return { ...first, metadata: { resourceVersion: first.metadata.resourceVersion ?? '' }, items };
  }

  private async page(labelSelector?: string, token?: string, fieldSelector?: string): Promise<DagRunList> {
    try {
      return await this.api.listNamespacedCustomObject({
        ...this.where, limit: PAGE, ...(labelSelector ? { labelSelector } : {}), ...(fieldSelector ? { fieldSelector } : {}), ...(token ? { _continue: token } : {}),
      }) as DagRunList;
    } catch (e) {
      throw kubeError(e, DAG_RUN_PLURAL);
    }
  }

  /** The object as it was at `resourceVersion` (read from etcd); undefined when absent then or no longer kept. */
  async at(name: string, resourceVersion: string): Promise<DagRunObject | undefined> {
    try {
      const out = await this.api.listNamespacedCustomObject({
        ...this.where, fieldSelector: `metadata.name=${name}`, resourceVersion, resourceVersionMatch: 'Exact',
      }) as DagRunList;
      return out.items[0];
    } catch {
      return undefined; // compacted (410), or not a version at all: the caller treats it as "changed"
    }
  }

  /**
   * The deleted object's uid; undefined when there was nothing to delete. With `uid`, only that very
   * object is deleted (ConflictError when the name now belongs to another).
   */
  async delete(name: string, uid?: string): Promise<string | undefined> {
    try {
      const body = uid ? { preconditions: { uid } } : undefined;
      const out = await this.api.deleteNamespacedCustomObject({ ...this.where, name, ...(body ? { body } : {}) }) as { details?: { uid?: string } };
      return out.details?.uid ?? '';
    } catch (e) {
      const err = kubeError(e, `${DAG_RUN_PLURAL}/${name}`);
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }
}
