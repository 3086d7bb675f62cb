/** Runs a bench to its end and exits with its outcome: what it leaves open (pools, sockets, timers) must not keep it alive. */
export function runToExit(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
