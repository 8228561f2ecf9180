/**
 * Regenerates `schema/training-row.schema.json` from the zod row schema (`pnpm generate:schema`).
 * A test fails when the committed file is out of date.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createTrainingRowJsonSchema } from "../src/rows/training-row";

const target = fileURLToPath(new URL("../schema/training-row.schema.json", import.meta.url));
writeFileSync(target, `${JSON.stringify(createTrainingRowJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target}`);
