// Loaded first (`--require`) into a provider host that src/engine/reuse.ts keeps between
// deployments: such a host waits unused, so it must not outlive the process that started it,
// however that process ends (a test runner ends its workers with a signal, which runs no exit
// handler). Its stdin is a pipe from that process, and the system closes the pipe when the
// process ends: the host ends with it.
process.stdin.on("end", () => process.exit(0));
process.stdin.on("error", () => process.exit(0));
process.stdin.resume();
