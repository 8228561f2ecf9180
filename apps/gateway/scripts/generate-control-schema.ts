/**
 * Regenerates `docs/trainer-api.schema.json` from the zod schemas of the trainer control API
 * (`pnpm generate:schema` in apps/gateway). A test fails when the committed file is out of date.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createControlJsonSchema } from "@relax/rollout";

const target = fileURLToPath(new URL("../../../docs/trainer-api.schema.json", import.meta.url));
writeFileSync(target, `${JSON.stringify(createControlJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target}`);
