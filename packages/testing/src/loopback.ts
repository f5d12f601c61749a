import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** An HTTP request as the scripted servers record it: the body is parsed JSON when it is JSON. */
export interface IncomingScriptedRequest {
  readonly method: string;
  /** The URL's path without a trailing slash. */
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: unknown;
}

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
    handle: (request: IncomingScriptedRequest, res: ServerResponse) => Promise<void>,
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
        // A client that hangs up mid-response is normal for a test server (aborts, cut streams).
        res.on("error", () => {});
        readRequest(req)
          .then((request) => handle(request, res))
          .catch((error: unknown) => {
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

async function readRequest(req: IncomingMessage): Promise<IncomingScriptedRequest> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const raw = Buffer.concat(parts).toString("utf8");
  let body: unknown = undefined;
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
  }
  const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname.replace(/\/+$/, "") || "/";
  return { method: req.method ?? "GET", path, headers: { ...req.headers }, body };
}
