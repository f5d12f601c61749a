// Writes schema/config.schema.json from the built zod schema, so the two cannot drift.
import { mkdirSync, writeFileSync } from "node:fs";
import { configJsonSchema } from "../dist/index.js";

const url = new URL("../schema/", import.meta.url);
mkdirSync(url, { recursive: true });
writeFileSync(new URL("config.schema.json", url), `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
