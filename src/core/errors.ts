/** Domain errors: they know nothing of HTTP; the API maps each code once (SPEC 7). */
export type ErrorCode =
  | 'bad_request' | 'unauthorized' | 'forbidden' | 'not_found' | 'already_exists' | 'already_running'
  | 'max_run_reached' | 'not_running' | 'timeout' | 'service_unavailable' | 'conflict' | 'too_many_requests';

export class DomainError extends Error {
  constructor(readonly code: ErrorCode, message: string, readonly details?: Record<string, unknown>) {
    super(message);
    this.name = 'DomainError';
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string, details?: Record<string, unknown>) { super('not_found', message, details); }
}
export class AlreadyExistsError extends DomainError {
  constructor(message: string, details?: Record<string, unknown>) { super('already_exists', message, details); }
}
export class BadRequestError extends DomainError {
  constructor(message: string, details?: Record<string, unknown>) { super('bad_request', message, details); }
}
/** A run's status is over what its store can hold (a DagRun status near etcd's object limit). */
export class StatusTooLargeError extends BadRequestError {}
/** Optimistic concurrency: the resourceVersion moved on; re-read and try again. */
export class ConflictError extends DomainError {
  constructor(message: string) { super('conflict', message); }
}
