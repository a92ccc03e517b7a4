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
