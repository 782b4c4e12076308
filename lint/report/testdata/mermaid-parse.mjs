// Parses Mermaid diagrams with mermaid's own parser, without a browser:
// node mermaid-parse.mjs NODE_MODULES FILE... reads each file as one
// diagram and prints "FILE: error" for each that does not parse; the exit
// status is 1 when one did not. NODE_MODULES holds mermaid and jsdom.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, ...files] = process.argv.slice(2);
// mermaid sanitizes text with DOMPurify, which needs a DOM: jsdom's.
const { JSDOM } = createRequire(join(modules, "noop.js"))("jsdom");
const { window } = new JSDOM("");
globalThis.window = window;
globalThis.document = window.document;
const { default: mermaid } = await import(pathToFileURL(join(modules, "mermaid", "dist", "mermaid.core.mjs")).href);
mermaid.initialize({ startOnLoad: false });

let failed = false;
for (const file of files) {
  try {
    const parsed = await mermaid.parse(readFileSync(file, "utf8"));
    if (!parsed || parsed.diagramType !== "gantt") {
      throw new Error(`parsed as ${parsed && parsed.diagramType}, not gantt`);
    }
  } catch (error) {
    failed = true;
    console.log(`${file}: ${String(error.message || error).split("\n").join(" ")}`);
  }
}
process.exit(failed ? 1 : 0);
