import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { type BuildDebugDumpOptions, buildDebugDump, debugRolloutId } from "./build-debug-dump";

/** Options of {@link writeDebugDump}. */
export interface WriteDebugDumpOptions extends BuildDebugDumpOptions {
  /** Path template; every `{rollout_id}` is replaced by the step id (`eval_<step>` in eval). */
  pathTemplate: string;
}

/**
 * Writes the debug dump of a step as pretty-printed JSON (UTF-8), creating parent directories, and
 * returns the path written. The Python Relax writes a `torch.save` pickle; JSON is used here so any
 * tool can read it (see docs/contract.md#deviations).
 */
export async function writeDebugDump(options: WriteDebugDumpOptions): Promise<string> {
  const { pathTemplate, ...build } = options;
  const path = debugDumpPath({ pathTemplate, rolloutStep: build.rolloutStep, mode: build.mode ?? "train" });
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(buildDebugDump(build), null, 2)}\n`, "utf8");
  return path;
}

/** The dump path for a step: `pathTemplate` with every `{rollout_id}` replaced. */
export function debugDumpPath({
  pathTemplate,
  rolloutStep,
  mode = "train",
}: {
  pathTemplate: string;
  rolloutStep: number | string;
  mode?: "train" | "eval";
}): string {
  return pathTemplate.replaceAll("{rollout_id}", debugRolloutId({ rolloutStep, mode }));
}
