import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { access, chmod, constants, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ReaperUnavailableError } from "../errors/reaper-unavailable-error";
import { locatePackageRoot } from "./locate-package-root";

const execFileAsync = promisify(execFile);

/** Relative path of the supervisor's C source inside the package. */
export const REAPER_SOURCE = "native/relax-reaper.c";
/** Relative path of the binary built by `pnpm build` (tsup `onSuccess`). */
export const REAPER_BINARY = "dist/relax-reaper";

let pending: Promise<string> | undefined;

/**
 * Finds (or builds) the `relax-reaper` supervisor binary, once per process:
 * 1. `dist/relax-reaper` when its `.sha256` stamp matches the shipped `native/relax-reaper.c`;
 * 2. otherwise a cached build under `$TMPDIR/relax-reaper-<user>/<source sha256>/`, compiled with `$CC` or
 *    `cc` on first use (atomically, so concurrent launchers share it).
 *
 * @returns the absolute path of an executable binary.
 * @throws {ReaperUnavailableError} when the source cannot be found or compiled (e.g. no C compiler).
 */
export function resolveReaperBinary(): Promise<string> {
  pending ??= locateOrBuild().catch((error: unknown) => {
    pending = undefined; // allow a retry after the environment is fixed
    throw error;
  });
  return pending;
}

async function locateOrBuild(): Promise<string> {
  const root = locatePackageRoot();
  if (root === null) {
    throw new ReaperUnavailableError({ details: "cannot locate the @relax/launcher package directory" });
  }
  let source: Buffer;
  try {
    source = await readFile(join(root, REAPER_SOURCE));
  } catch (error) {
    throw new ReaperUnavailableError({ details: `missing ${join(root, REAPER_SOURCE)}`, cause: error });
  }
  const digest = createHash("sha256").update(source).digest("hex");
  const built = join(root, REAPER_BINARY);
  if ((await isExecutable(built)) && (await readStamp(`${built}.sha256`)) === digest) return built;

  const cacheRoot = join(tmpdir(), `relax-reaper-${safeUser()}`);
  const directory = join(cacheRoot, digest.slice(0, 16));
  const cachedBinary = join(directory, "relax-reaper");
  await mkdir(directory, { recursive: true, mode: 0o700 });
  // Never run a binary from a shared temporary directory someone else could have planted.
  const owner = (await stat(cacheRoot)).uid;
  if (process.getuid !== undefined && owner !== process.getuid()) {
    throw new ReaperUnavailableError({ details: `${cacheRoot} belongs to another user (uid ${owner})` });
  }
  if (await isExecutable(cachedBinary)) return cachedBinary;
  await compileReaper({ sourcePath: join(root, REAPER_SOURCE), outputPath: cachedBinary });
  return cachedBinary;
}

/**
 * Compiles `native/relax-reaper.c` into `outputPath` (written to a temporary name, then renamed).
 *
 * @param options.compiler C compiler command. @default process.env.CC ?? "cc"
 * @throws {ReaperUnavailableError} with the compiler's output when compilation fails or no compiler exists.
 */
export async function compileReaper({
  sourcePath,
  outputPath,
  compiler = process.env.CC ?? "cc",
}: {
  sourcePath: string;
  outputPath: string;
  compiler?: string;
}): Promise<void> {
  const temporary = `${outputPath}.${process.pid}.${Date.now()}.tmp`;
  try {
    await execFileAsync(compiler, ["-O2", "-std=c11", "-Wall", "-Wextra", "-o", temporary, sourcePath]);
    await chmod(temporary, 0o755);
    await rename(temporary, outputPath);
  } catch (error) {
    await rm(temporary, { force: true });
    const output = (error as { stderr?: string }).stderr?.trim();
    throw new ReaperUnavailableError({
      details: `${compiler} failed to build ${sourcePath}${output ? `: ${output}` : `: ${(error as Error).message}`}`,
      cause: error,
    });
  }
}

/** SHA-256 (hex) of the reaper source, as written to `dist/relax-reaper.sha256` by the build. */
export async function reaperSourceDigest(sourcePath: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(sourcePath))
    .digest("hex");
}

/** @internal */
export async function writeReaperStamp(binaryPath: string, digest: string): Promise<void> {
  await writeFile(`${binaryPath}.sha256`, `${digest}\n`);
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function readStamp(path: string): Promise<string | null> {
  try {
    return (await readFile(path, "utf8")).trim();
  } catch {
    return null;
  }
}

function safeUser(): string {
  try {
    return userInfo().username.replace(/[^A-Za-z0-9_.-]/g, "_");
  } catch {
    return String(process.getuid?.() ?? "user");
  }
}
