import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "@relax/launcher";
let cached: string | null | undefined;

/**
 * @internal The directory holding `@relax/launcher`'s package.json, found by walking up from this module
 * (works from `src/` in development and from the bundled `dist/`), or `null` when bundled elsewhere.
 */
export function locatePackageRoot(): string | null {
  if (cached !== undefined) return cached;
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(directory, "package.json");
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === PACKAGE_NAME) {
          cached = directory;
          return directory;
        }
      } catch {
        // unreadable manifest: keep walking up
      }
    }
    const parent = dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  cached = null;
  return null;
}
