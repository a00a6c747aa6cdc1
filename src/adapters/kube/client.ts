/**
 * The Kubernetes API as the adapters use it: one namespace's custom resources of one plural, and its
 * Secrets, through @kubernetes/client-node, with the API's failures mapped to the domain errors
 * (404 NotFound, 409 AlreadyExists or Conflict, 400/422 BadRequest). Writes ask for strict field
 * validation: a field the schema does not know is an error, never silently pruned.
 */
import { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions, type V1Secret } from '@kubernetes/client-node';
import { AlreadyExistsError, BadRequestError, ConflictError, DomainError, NotFoundError } from '../../core/errors.js';
import { GROUP, VERSION } from './crds.js';

export const FIELD_MANAGER = 'svc';

/** The kubeconfig of `path`, else KUBECONFIG / ~/.kube/config, else the in-cluster service account. */
export function loadKubeConfig(path?: string): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return kc;
}

/** The namespace the server runs for: given, else the in-cluster one (the context's), else `default`. */
export function defaultNamespace(kc: KubeConfig, given?: string): string {
  if (given) return given;
  const ctx = kc.getContextObject(kc.getCurrentContext());
  return ctx?.namespace ?? 'default';
}

interface Status {
  reason?: string;
  message?: string;
}

function statusOf(e: ApiException<unknown>): Status {
  const body = e.body;
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as Status;
    } catch {
      return { message: body };
    }
  }
  return (body ?? {}) as Status;
}

/** The domain error of a failed API call; anything else is rethrown as it is. */
export function kubeError(e: unknown, what: string): unknown {
  if (!(e instanceof ApiException)) {
    const why = unreachable(e);
    return why ? new DomainError('service_unavailable', `${what}: the Kubernetes API cannot be reached (${why})`) : e;
  }
  const s = statusOf(e as ApiException<unknown>);
  const message = s.message ?? `${what}: HTTP ${e.code}`;
  if (e.code === 404) return new NotFoundError(`${what} not found`);
  if (e.code === 409 && s.reason === 'AlreadyExists') return new AlreadyExistsError(`${what} already exists`);
  if (e.code === 409) return new ConflictError(`${what} was changed by someone else: ${message}`);
  if (e.code === 400 || e.code === 422) return new BadRequestError(message);
  if (e.code === 413) return new BadRequestError(`${what} is too large for the Kubernetes API: ${message}`);
  return new DomainError('service_unavailable', `${what}: the Kubernetes API answered ${e.code}: ${message}`);
}

/** Why a request never got an answer (connection refused or reset, DNS, TLS), or undefined when it did. */
function unreachable(e: unknown): string | undefined {
  const err = e as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } } | undefined;
  const code = err?.code ?? err?.cause?.code;
  if (err?.name === 'FetchError' || err?.message === 'fetch failed' || (typeof code === 'string' && /^E[A-Z]+/.test(code))) {
    return code ?? err?.cause?.message ?? err?.message ?? 'no answer';
  }
  return undefined;
}

async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw kubeError(e, what);
  }
}

const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string; generation?: number; creationTimestamp?: string; labels?: Record<string, string>; annotations?: Record<string, string>; managedFields?: { time?: string }[] };
  spec?: unknown;
  status?: unknown;
}

/**
 * Why svc cannot keep its state in this namespace, or undefined: the API unreachable, the CRDs not
 * installed, no permission. One cheap call (a list of at most one Dag).
 */
export async function apiProblem(kc: KubeConfig, namespace: string): Promise<string | undefined> {
  const api = kc.makeApiClient(CustomObjectsApi);
  try {
    await api.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'dags', limit: 1 });
    return undefined;
  } catch (e) {
    if (e instanceof ApiException && e.code === 404) return `the svc.io custom resources are not installed in the cluster: kubectl apply --server-side -f crds/`;
    if (e instanceof ApiException && (e.code === 401 || e.code === 403)) return `no permission to list dags.svc.io in namespace ${namespace} (HTTP ${e.code}): check the service account's Role`;
    const err = kubeError(e, 'dags.svc.io');
    return err instanceof Error ? err.message : String(err);
  }
}

/** One plural of svc.io custom resources in one namespace. */
export class CustomResources<T extends KubeObject> {
  private readonly api: CustomObjectsApi;

  constructor(kc: KubeConfig, readonly namespace: string, readonly plural: string) {
    this.api = kc.makeApiClient(CustomObjectsApi);
  }

  private get where() {
    return { group: GROUP, version: VERSION, namespace: this.namespace, plural: this.plural };
  }

  private what(name: string): string {
    return `${this.plural}/${name}`;
  }

  async get(name: string): Promise<T | undefined> {
    try {
      return (await this.api.getNamespacedCustomObject({ ...this.where, name })) as T;
    } catch (e) {
      if (e instanceof ApiException && e.code === 404) return undefined;
      throw kubeError(e, this.what(name));
    }
  }

  create(obj: T): Promise<T> {
    return call(this.what(obj.metadata.name), () => this.api.createNamespacedCustomObject({ ...this.where, body: obj, fieldManager: FIELD_MANAGER, fieldValidation: 'Strict' }) as Promise<T>);
  }

  /** Compare-and-swap when obj.metadata.resourceVersion is set (ConflictError when it moved). */
  replace(obj: T): Promise<T> {
    return call(this.what(obj.metadata.name), () => this.api.replaceNamespacedCustomObject({ ...this.where, name: obj.metadata.name, body: obj, fieldManager: FIELD_MANAGER, fieldValidation: 'Strict' }) as Promise<T>);
  }

  replaceStatus(obj: T): Promise<T> {
    return call(this.what(obj.metadata.name), () => this.api.replaceNamespacedCustomObjectStatus({ ...this.where, name: obj.metadata.name, body: obj, fieldManager: FIELD_MANAGER }) as Promise<T>);
  }

  mergePatch(name: string, patch: object): Promise<T> {
    return call(this.what(name), () => this.api.patchNamespacedCustomObject({ ...this.where, name, body: patch, fieldManager: FIELD_MANAGER }, MERGE) as Promise<T>);
  }

  mergePatchStatus(name: string, patch: object): Promise<T> {
    return call(this.what(name), () => this.api.patchNamespacedCustomObjectStatus({ ...this.where, name, body: patch, fieldManager: FIELD_MANAGER }, MERGE) as Promise<T>);
  }

  /**
   * Deleting what is not there is not an error. With `only`, the object is deleted only while it is that
   * version (ConflictError otherwise: it changed since it was read).
   */
  async delete(name: string, only?: { uid?: string; resourceVersion?: string }): Promise<void> {
    try {
      await this.api.deleteNamespacedCustomObject({ ...this.where, name, ...(only ? { body: { preconditions: only } } : {}) });
    } catch (e) {
      if (e instanceof ApiException && e.code === 404) return;
      throw kubeError(e, this.what(name));
    }
  }

  async list(labelSelector?: string): Promise<T[]> {
    const out = await call(this.plural, () => this.api.listNamespacedCustomObject({ ...this.where, ...(labelSelector ? { labelSelector } : {}) }) as Promise<{ items: T[] }>);
    return out.items;
  }
}

/** The Secrets of one namespace (the auth stores' records). */
export class Secrets {
  private readonly api: CoreV1Api;

  constructor(kc: KubeConfig, readonly namespace: string) {
    this.api = kc.makeApiClient(CoreV1Api);
  }

  async get(name: string): Promise<V1Secret | undefined> {
    try {
      return await this.api.readNamespacedSecret({ name, namespace: this.namespace });
    } catch (e) {
      if (e instanceof ApiException && e.code === 404) return undefined;
      throw kubeError(e, `secrets/${name}`);
    }
  }

  create(secret: V1Secret): Promise<V1Secret> {
    return call(`secrets/${secret.metadata?.name}`, () => this.api.createNamespacedSecret({ namespace: this.namespace, body: secret, fieldManager: FIELD_MANAGER }));
  }

  /** Compare-and-swap on metadata.resourceVersion. */
  replace(secret: V1Secret): Promise<V1Secret> {
    const name = secret.metadata?.name ?? '';
    return call(`secrets/${name}`, () => this.api.replaceNamespacedSecret({ name, namespace: this.namespace, body: secret, fieldManager: FIELD_MANAGER }));
  }
}
