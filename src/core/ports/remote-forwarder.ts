/** Forwards an API request to another configured instance (SPEC 2.1 `remoteNode`). */

export interface ForwardRequest {
  method: string;
  /** Absolute URL on the remote node. */
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Aborts the upstream request (the client went away). */
  signal?: AbortSignal;
}

export interface ForwardResponse {
  status: number;
  headers: Record<string, string>;
  body: AsyncIterable<Uint8Array>;
}

/** Throws DomainError service_unavailable when the node cannot be reached. */
export interface RemoteForwarder {
  forward(req: ForwardRequest): Promise<ForwardResponse>;
}
