import { constants } from "node:os";

const nameByNumber = new Map<number, NodeJS.Signals>(
  Object.entries(constants.signals).map(([name, number]) => [number, name as NodeJS.Signals]),
);

/** @internal Signal name for a Linux signal number (`9` → `"SIGKILL"`), or `null` for 0 / unknown. */
export function signalName(signalNumber: number): NodeJS.Signals | null {
  return nameByNumber.get(signalNumber) ?? null;
}
