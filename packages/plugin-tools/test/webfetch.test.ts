import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebFetchTool } from "../src/index.js";
import { failure, run, tempDir, toolContext } from "./helpers.js";

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
const PAGE = `<!doctype html><html><head><title>T</title><style>p{}</style><script>alert(1)</script></head>
<body><h1>Hello</h1><p>Some <b>bold</b> text &amp; a <a href="https://example.com/x">link</a>.</p><ul><li>one</li><li>two</li></ul></body></html>`;

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/page") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    else if (req.url === "/plain") res.writeHead(200, { "content-type": "text/plain" }).end("just text\n");
    else if (req.url === "/image") res.writeHead(200, { "content-type": "image/png" }).end(PNG);
    else if (req.url === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = "x".repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 6 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    } else if (req.url === "/slow") setTimeout(() => res.writeHead(200).end("late"), 3_000);
    else res.writeHead(404, "Not Found").end("nope");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const fetchTool = createWebFetchTool();
const ctx = () => toolContext(tempDir());

describe("webfetch", () => {
  it("converts an HTML page to markdown by default", async () => {
    const result = await run(fetchTool, { url: `${base}/page` }, ctx());
    expect(result.output).toBe("# Hello\n\nSome **bold** text & a [link](https://example.com/x).\n\n-   one\n-   two");
  });

  it("gives readable text with format text", async () => {
    const result = await run(fetchTool, { url: `${base}/page`, format: "text" }, ctx());
    expect(result.output).toBe("Hello\n\nSome bold text & a link.\n\none\ntwo");
  });

  it("gives the raw HTML with format html", async () => {
    expect((await run(fetchTool, { url: `${base}/page`, format: "html" }, ctx())).output).toBe(PAGE);
  });

  it("returns plain text as it is", async () => {
    expect((await run(fetchTool, { url: `${base}/plain` }, ctx())).output).toBe("just text\n");
  });

  it("returns an image as an attachment", async () => {
    const result = await run(fetchTool, { url: `${base}/image` }, ctx());
    expect(result.attachments).toEqual([{ mediaType: "image/png", url: `data:image/png;base64,${PNG.toString("base64")}` }]);
  });

  it("refuses a response over the size limit", async () => {
    expect(await failure(run(fetchTool, { url: `${base}/big` }, ctx()))).toContain("over the 5.0 MB limit");
  });

  it("gives up after the timeout", async () => {
    const started = Date.now();
    expect(await failure(run(fetchTool, { url: `${base}/slow`, timeout: 0.5 }, ctx()))).toBe(`Fetching ${base}/slow timed out after 0.5 s.`);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("reports an HTTP error status", async () => {
    expect(await failure(run(fetchTool, { url: `${base}/missing` }, ctx()))).toBe(`${base}/missing answered HTTP 404 Not Found.`);
  });

  it("only fetches http and https URLs", async () => {
    expect(await failure(run(fetchTool, { url: "file:///etc/passwd" }, ctx()))).toContain("Only http and https URLs can be fetched (got file:)");
  });

  it("asks the webfetch permission for the URL", () => {
    expect(fetchTool.permission!({ url: "https://example.com/a" }, { directory: "/" })).toEqual([{ permission: "webfetch", patterns: ["https://example.com/a"] }]);
  });
});
