/** Long-running commands (`server`, `operator`) run until SIGINT or SIGTERM: which one came. */
export function stopSignal(): Promise<string> {
  return new Promise<string>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}
