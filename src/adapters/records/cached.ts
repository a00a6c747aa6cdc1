/** The records of a collection kept in memory once loaded; handed out as copies. */
export class CachedRecords<T extends object> {
  private cache?: T[];
  private loading?: Promise<T[]>;

  constructor(private readonly read: () => Promise<T[]>) {}

  async copies(): Promise<T[]> {
    return (await this.load()).map((r) => structuredClone(r));
  }

  size(): number {
    return this.cache?.length ?? 0;
  }

  set(records: T[]): void {
    this.cache = records.map((r) => structuredClone(r));
  }

  private load(): Promise<T[]> {
    if (this.cache) return Promise.resolve(this.cache);
    this.loading ??= this.read().then((records) => {
      this.cache ??= records;
      return this.cache;
    }, (e: unknown) => {
      // A failed read (EMFILE, a torn file) is not cached: the next call tries again.
      this.loading = undefined;
      throw e;
    });
    return this.loading;
  }
}
