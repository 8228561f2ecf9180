import { MarkerFinder } from "./marker-finder";

/** Text between Harmony messages (or all of a text without Harmony markup). */
export interface HarmonyText {
  type: "text";
  start: number;
  end: number;
}

/** One Harmony message: `[<|start|>ROLE]HEADER<|message|>BODY<|end|>|<|call|>|<|return|>`. */
export interface HarmonyMessage {
  type: "message";
  /** Span of the whole message, from `<|start|>` (or `<|channel|>`) through its terminator. */
  start: number;
  end: number;
  /** `analysis`, `commentary`, `final`, … (`undefined` when the header names none). */
  channel: string | undefined;
  /** The `to=` recipient, e.g. `functions.get_weather`. */
  recipient: string | undefined;
  body: string;
  /** How the message ended; `undefined` when the text ended (or the next message began) first. */
  terminator: "<|end|>" | "<|call|>" | "<|return|>" | undefined;
  /** False when the text ended inside the header, before `<|message|>`. */
  headerComplete: boolean;
}

export type HarmonyItem = HarmonyText | HarmonyMessage;

const START = "<|start|>";
const CHANNEL = "<|channel|>";
const MESSAGE = "<|message|>";
const TERMINATORS = ["<|end|>", "<|call|>", "<|return|>"] as const;

/**
 * Splits generated Harmony text (gpt-oss) into messages and the plain text around them. The first
 * message of a turn has no `<|start|>assistant` (the prompt ends with it), so a message may begin with
 * `<|channel|>` as well. The recipient may sit in the header before or after the channel
 * (`<|start|>assistant to=functions.f<|channel|>commentary json<|message|>` or
 * `<|channel|>commentary to=functions.f <|constrain|>json<|message|>`). Linear in the text length.
 */
export function splitHarmonyMessages(text: string): HarmonyItem[] {
  const finder = new MarkerFinder(text);
  const items: HarmonyItem[] = [];
  let pos = 0;
  while (pos < text.length) {
    const next = finder.nextOf([START, CHANNEL], pos);
    if (next === undefined) {
      items.push({ type: "text", start: pos, end: text.length });
      break;
    }
    if (next.index > pos) items.push({ type: "text", start: pos, end: next.index });
    const start = next.index;
    const headerFrom = start + next.needle.length;
    const messageAt = finder.next(MESSAGE, headerFrom);
    const nextStart = finder.next(START, headerFrom);
    if (messageAt === -1 || (nextStart !== -1 && nextStart < messageAt)) {
      // A header that never reaches `<|message|>`: cut off, or broken by the next message.
      const end = messageAt === -1 && nextStart === -1 ? text.length : nextStart;
      items.push({
        type: "message",
        start,
        end,
        ...readHeader(text.slice(start, end)),
        body: "",
        terminator: undefined,
        headerComplete: false,
      });
      pos = end;
      continue;
    }
    const bodyStart = messageAt + MESSAGE.length;
    const stop = finder.nextOf([...TERMINATORS, START], bodyStart);
    const bodyEnd = stop?.index ?? text.length;
    const terminator =
      stop !== undefined && stop.needle !== START ? (stop.needle as HarmonyMessage["terminator"]) : undefined;
    const end = terminator !== undefined ? bodyEnd + terminator.length : bodyEnd;
    items.push({
      type: "message",
      start,
      end,
      ...readHeader(text.slice(start, messageAt)),
      body: text.slice(bodyStart, bodyEnd),
      terminator,
      headerComplete: true,
    });
    pos = end;
  }
  return items;
}

function readHeader(header: string): { channel: string | undefined; recipient: string | undefined } {
  const channelAt = header.indexOf(CHANNEL);
  const channel =
    channelAt === -1 ? undefined : /^[^\s<]+/.exec(header.slice(channelAt + CHANNEL.length))?.[0];
  const recipient = /(?:^|\s|>)to=([^\s<]+)/.exec(header)?.[1];
  return { channel, recipient };
}
