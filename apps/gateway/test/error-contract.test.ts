import * as agentApi from "@relax/agent-api";
import * as chat from "@relax/chat";
import * as exportPackage from "@relax/export";
import * as forest from "@relax/forest";
import * as launcher from "@relax/launcher";
import * as protocol from "@relax/protocol";
import * as rollout from "@relax/rollout";
import * as runtime from "@relax/runtime";
import * as sglang from "@relax/sglang";
import * as standin from "@relax/standin";
import * as view from "@relax/view";
import { describe, expect, it } from "vitest";
import * as gateway from "../src/index";

const PACKAGES: Record<string, Record<string, unknown>> = {
  "@relax/agent-api": agentApi,
  "@relax/chat": chat,
  "@relax/export": exportPackage,
  "@relax/forest": forest,
  "@relax/launcher": launcher,
  "@relax/protocol": protocol,
  "@relax/rollout": rollout,
  "@relax/runtime": runtime,
  "@relax/sglang": sglang,
  "@relax/standin": standin,
  "@relax/view": view,
  "@relax/gateway": gateway,
};

type ErrorClass = (abstract new (...args: never[]) => Error) & { isInstance?: (value: unknown) => boolean };

/** Every exported class that extends `Error`, with its package and export name. */
function exportedErrorClasses(): Array<[string, ErrorClass]> {
  const found: Array<[string, ErrorClass]> = [];
  for (const [pkg, exports] of Object.entries(PACKAGES)) {
    for (const [name, value] of Object.entries(exports)) {
      if (typeof value === "function" && value.prototype instanceof Error) {
        found.push([`${pkg} ${name}`, value as ErrorClass]);
      }
    }
  }
  return found;
}

/** The marker `isInstance` checks: `relax.error.<Name>`, or `relax.error` for the base class. */
function markerOf(name: string): symbol {
  return Symbol.for(name === "RelaxError" ? "relax.error" : `relax.error.${name}`);
}

const classes = exportedErrorClasses();

describe("the error contract of every package", () => {
  it("should find the error classes of every package that exports some", () => {
    const packages = new Set(classes.map(([label]) => label.split(" ")[0]));
    expect([...packages].sort()).toEqual(
      expect.arrayContaining([
        "@relax/agent-api",
        "@relax/chat",
        "@relax/forest",
        "@relax/launcher",
        "@relax/rollout",
        "@relax/sglang",
        "@relax/view",
      ]),
    );
    expect(classes.length).toBeGreaterThan(40);
  });

  it.each(classes)(
    "%s should have isInstance, true for its marker and false for a forged one",
    (label, cls) => {
      const name = label.split(" ")[1]!;
      expect(typeof cls.isInstance, `${label} has no static isInstance`).toBe("function");
      expect(cls.isInstance!({ [markerOf(name)]: true })).toBe(true);
      expect(cls.isInstance!({ [markerOf(name)]: false })).toBe(false);
      expect(cls.isInstance!({ [markerOf(name)]: "true" })).toBe(false);
      expect(cls.isInstance!({ [markerOf(name)]: false, [Symbol.for("relax.error")]: false })).toBe(false);
      expect(cls.isInstance!(new Error(name))).toBe(false);
      expect(cls.isInstance!(null)).toBe(false);
    },
  );
});
