import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * What every scripted server shares: an HTTP server on 127.0.0.1 only, scripted delays that a
 * close cuts short, and a close that destroys open sockets (a hanging stream never blocks a test).
 */
export interface Loopback {
  /** An explicit, cancellable wait: resolves early when the server closes. */
  sleep(ms: number): Promise<void>;
  /** The response is finished, destroyed, or the server is closing: stop writing. */
  gone(res: ServerResponse): boolean;
  /** Binds 127.0.0.1 (port 0: any free port) and resolves with the port. */
  listen(
    port: number | undefined,
    handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
    internalError: (res: ServerResponse, message: string) => void,
  ): Promise<number>;
  close(): Promise<void>;
}

export function createLoopback(): Loopback {
  const sockets = new Set<Socket>();
  const timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  let closing: Promise<void> | undefined;
  let server: ReturnType<typeof createServer> | undefined;

  return {
    sleep: (ms) =>
      new Promise((resolve) => {
        if (ms <= 0 || closing) return resolve();
        const entry = {
          resolve,
          timer: setTimeout(() => {
            timers.delete(entry);
            resolve();
          }, ms),
        };
        timers.add(entry);
      }),
    gone: (res) => res.destroyed || res.writableEnded || closing !== undefined,
    async listen(port, handle, internalError) {
      const s = createServer((req, res) => {
        handle(req, res).catch((error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          if (!res.headersSent) internalError(res, `scripted server: internal error: ${message}`);
          else res.socket?.destroy();
        });
      });
      server = s;
      s.on("connection", (socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
      });
      s.on("clientError", (_error, socket) => socket.destroy());
      await new Promise<void>((resolve, reject) => {
        s.once("error", reject);
        s.listen(port ?? 0, "127.0.0.1", () => {
          s.off("error", reject);
          resolve();
        });
      });
      const address = s.address();
      if (address === null || typeof address === "string") throw new Error("scripted server: unexpected address");
      return address.port;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const entry of timers) {
          clearTimeout(entry.timer);
          entry.resolve();
        }
        timers.clear();
        if (server) server.close(() => resolve());
        else resolve();
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
      return closing;
    },
  };
}
