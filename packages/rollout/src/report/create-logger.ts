import { Writable } from "node:stream";
import pino, { type Logger } from "pino";

/** Log line format: `text` (`HH:MM:SS LEVEL message key=value …`) or pino's JSON lines. */
export type LogFormat = "text" | "json";

const LEVEL_NAMES: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};
const OMIT = new Set(["level", "time", "pid", "hostname", "msg"]);

function formatValue(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

/**
 * A pino logger writing to stderr (so stdout stays for results). `text` renders each record as one
 * readable line; `json` keeps pino's JSON lines for log shippers.
 */
export function createLogger(options: {
  level: string;
  format?: LogFormat;
  destination?: NodeJS.WritableStream;
}): Logger {
  const destination = options.destination ?? process.stderr;
  if (options.format === "json") return pino({ level: options.level }, destination as pino.DestinationStream);
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line === "") continue;
        try {
          const record = JSON.parse(line) as Record<string, unknown>;
          const time = new Date(record.time as number).toISOString().slice(11, 19);
          const level = LEVEL_NAMES[record.level as number] ?? String(record.level);
          const fields = Object.entries(record)
            .filter(([key]) => !OMIT.has(key))
            .map(([key, value]) => `${key}=${formatValue(value)}`)
            .join(" ");
          destination.write(`${time} ${level.padEnd(5)} ${record.msg ?? ""}${fields ? ` ${fields}` : ""}\n`);
        } catch {
          destination.write(`${line}\n`);
        }
      }
      callback();
    },
  });
  return pino({ level: options.level }, stream);
}

/**
 * The `AGENTIC ROLLOUT event=<event> k=v …` log line (see docs/contract.md#runtime-scheduling), in the
 * format existing log searches (`event=accounting_end`) expect.
 */
export function formatAgenticEvent(event: string, fields: Record<string, unknown>): string {
  const parts = Object.entries(fields).map(([key, value]) => `${key}=${formatValue(value)}`);
  return `AGENTIC ROLLOUT event=${event}${parts.length ? ` ${parts.join(" ")}` : ""}`;
}
