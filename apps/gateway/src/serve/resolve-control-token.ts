import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError } from "@relax/rollout";

/**
 * Where the control token of `relax serve` came from; `file` with `reused: true` is a token an earlier run
 * wrote to the run dir, `reused: false` one generated now and written there.
 */
export type ControlTokenSource =
  | { kind: "flag" }
  | { kind: "env" }
  | { kind: "file"; path: string; reused: boolean }
  | { kind: "printed" };

/** The environment variable holding the control token. */
export const CONTROL_TOKEN_ENV = "RELAX_CONTROL_TOKEN";

/** The token file's name inside `--run-dir`. */
export const CONTROL_TOKEN_FILE = "control-token";

/**
 * Picks the control token: `--control-token`, else `$RELAX_CONTROL_TOKEN`, else the token already in
 * `<run-dir>/control-token` (a restart keeps the trainer's credential valid), else 128 random bits (32 hex
 * digits) written there with mode 0600 (the directory is created), or — without a run dir — returned with
 * `source.kind === "printed"` for the caller to print once.
 * @throws ConfigError when a given token is empty or holds whitespace.
 */
export async function resolveControlToken(options: {
  flag?: string;
  env?: NodeJS.ProcessEnv;
  runDir?: string;
}): Promise<{ token: string; source: ControlTokenSource }> {
  const env = options.env ?? process.env;
  const check = (token: string, where: string) => {
    if (token === "" || /\s/.test(token))
      throw new ConfigError({
        message: `${where}: the control token must be non-empty and hold no whitespace`,
      });
    return token;
  };
  if (options.flag !== undefined)
    return { token: check(options.flag, "--control-token"), source: { kind: "flag" } };
  const fromEnv = env[CONTROL_TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv !== "")
    return { token: check(fromEnv, CONTROL_TOKEN_ENV), source: { kind: "env" } };
  if (options.runDir !== undefined) {
    const existing = await readFile(join(options.runDir, CONTROL_TOKEN_FILE), "utf8").catch(() => undefined);
    if (existing !== undefined && existing.trim() !== "") {
      const path = join(options.runDir, CONTROL_TOKEN_FILE);
      await chmod(path, 0o600);
      return { token: check(existing.trim(), path), source: { kind: "file", path, reused: true } };
    }
  }
  const token = randomBytes(16).toString("hex");
  if (options.runDir === undefined) return { token, source: { kind: "printed" } };
  await mkdir(options.runDir, { recursive: true });
  const path = join(options.runDir, CONTROL_TOKEN_FILE);
  await writeFile(path, `${token}\n`, { mode: 0o600 });
  await chmod(path, 0o600); // an existing file keeps its mode on write: set it either way
  return { token, source: { kind: "file", path, reused: false } };
}
