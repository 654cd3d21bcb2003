// Generates api.d.ts from the served document with openapi-typescript's Node API, so file bodies
// (the logo upload, PDFs) are typed as Blob rather than string: the recipe docs/API.md gives
// under "Generated clients". Usage: node generate.mjs OPENAPI_JSON OUT_D_TS
import fs from "node:fs";
import { pathToFileURL } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";

const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier("Blob"));
const [input, output] = process.argv.slice(2);
const ast = await openapiTS(pathToFileURL(input), {
  transform(schema) {
    if (schema.format === "binary") return BLOB;
  },
});
fs.writeFileSync(output, astToString(ast));
