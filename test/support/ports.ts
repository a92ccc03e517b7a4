import * as net from "node:net";

/**
 * A port on 127.0.0.1 that was free a moment ago and has nothing listening on it now: for a server
 * a test starts itself (slapd, PostgreSQL, moto, an emulator command), or for a connection that
 * must be refused. The system picks it (port 0), so no test depends on a fixed port.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A server's start refused because its port was taken (EADDRINUSE): after freePort() let the port
 * go, a connection of a test running beside this one may take it (both come from the system's
 * ephemeral range) before the server listens, which for a server that must start up first (slapd,
 * PostgreSQL, moto's Python, an emulator command) is a second or more.
 */
export class PortTaken extends Error {}

/** The words every server these tests start prints when it cannot listen on a port that is taken. */
const ADDRESS_IN_USE = /address already in use/i;

/** The failure of a server that exited before it answered: PortTaken when its `output` says the port was taken. */
export function startFailure(message: string, output: string): Error {
  return ADDRESS_IN_USE.test(output) ? new PortTaken(message) : new Error(message);
}

/**
 * Starts a server on a port `pick` gives (freePort by default), and again on another when `start`
 * throws PortTaken, three tries in all; any other failure, or the third PortTaken, is thrown.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, pick: () => Promise<number> = freePort): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await pick());
    } catch (e) {
      if (attempt >= 3 || !(e instanceof PortTaken)) throw e;
    }
  }
}
