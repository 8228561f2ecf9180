import { readFile } from "node:fs/promises";
import { createEncodeOffload, type EncodeOffload, EncodePool, encodeWorkers } from "@relax/agent-api";
import {
  type ChatRenderer,
  createChatRenderer,
  type ImageStore,
  loadTokenizer,
  type TextTokenizer,
  type VisionProcessorConfig,
} from "@relax/chat";
import { resolveTokenizerPath } from "../config/resolve-tokenizer-path";
import type { RolloutComponents } from "../plan/plan-rollout-components";
import { loadVisionSetup } from "./load-vision-setup";

/** The tokenizer, chat template and renderer one gateway process works with (see {@link loadTextStack}). */
export interface TextStack {
  tokenizer: TextTokenizer;
  /** The directory the tokenizer was loaded from (encode workers load it again). */
  tokenizerDir: string;
  /** The renderer forests use (on the offload's tokenizer when there is one; a vision renderer with images). */
  renderer: ChatRenderer;
  /** The encode worker pool, when large renders are offloaded (text-only templates). */
  offload?: EncodeOffload;
  /** Present with `--processor-config`: requests may carry images. */
  images?: ImageStore;
  /** What the stand-in engine needs to serve images like a vision engine. */
  vision?: { processor: VisionProcessorConfig; imagePadId: number };
  /** Stops the encode workers. Idempotent. */
  close(): Promise<void>;
}

/**
 * Loads the tokenizer (`--tokenizer`), the chat template (`--chat-template-path` or the tokenizer's own)
 * and builds the renderer: with `offload`, large observations render and tokenise in worker threads
 * (`encode-offload.ts`; `workers` of them, default {@link encodeWorkers}); with `--processor-config`, a
 * vision renderer on the event loop (the workers know only the text template). Every gateway process —
 * the one-process gateway, each shard, a sharded run's controller — builds the same stack, so ids agree.
 *
 * @throws TokenizerLoadError, ConfigError (an unreadable processor config) as they come.
 */
export async function loadTextStack(
  components: RolloutComponents,
  options: {
    offload: boolean;
    workers?: number;
    /** Most workers, spares included (see `EncodePoolOptions.maxSize`). @default workers + 3 */
    maxWorkers?: number;
  },
): Promise<TextStack> {
  const tokenizerDir = resolveTokenizerPath(components.tokenizer.source);
  const tokenizer = await loadTokenizer(tokenizerDir);
  const chatTemplatePath = components.tokenizer.chatTemplatePath;
  const chatTemplate = chatTemplatePath !== undefined ? await readFile(chatTemplatePath, "utf8") : undefined;
  const template = chatTemplate !== undefined ? { chatTemplate } : {};
  const processorConfigPath = components.tokenizer.processorConfigPath;
  if (options.offload && processorConfigPath === undefined) {
    const offload = createEncodeOffload({
      tokenizer,
      pool: new EncodePool({
        tokenizerDir,
        size: options.workers ?? encodeWorkers(),
        ...(options.maxWorkers !== undefined ? { maxSize: options.maxWorkers } : {}),
        ...template,
      }),
    });
    return {
      tokenizer,
      tokenizerDir,
      renderer: offload.wrapRenderer(createChatRenderer({ tokenizer: offload.tokenizer, ...template })),
      offload,
      close: () => offload.close(),
    };
  }
  const setup = await loadVisionSetup({
    renderer: createChatRenderer({ tokenizer, ...template }),
    ...(processorConfigPath !== undefined ? { processorConfigPath } : {}),
  });
  return {
    tokenizer,
    tokenizerDir,
    renderer: setup.renderer,
    ...(setup.images !== undefined ? { images: setup.images } : {}),
    ...(setup.vision !== undefined ? { vision: setup.vision } : {}),
    close: async () => {},
  };
}
