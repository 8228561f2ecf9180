import { fileURLToPath } from "node:url";
import type { ShardEntry } from "@relax/agent-api";

/**
 * The gateway shard entry of this package for `ShardPool`: the built `dist/shard-main.js`, or the
 * TypeScript source under tsx (tests and benches run from source).
 */
export function gatewayShardEntry(): ShardEntry {
  const here = import.meta.url;
  if (here.endsWith(".ts")) {
    return {
      file: fileURLToPath(new URL("../shard-main.ts", here)),
      execArgv: ["--import", "tsx", "--conditions=@relax/source"],
    };
  }
  return { file: fileURLToPath(new URL("./shard-main.js", here)), execArgv: [] };
}
