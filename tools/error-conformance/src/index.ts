/**
 * @module @relax-tools/error-conformance
 * The Relax error contract as one vitest suite, shared by every package's `error-conformance.test.ts`:
 * each error class carries `Symbol.for("relax.error")` and `Symbol.for("relax.error.<Name>")` (plus one
 * marker per Relax ancestor), its `name` is its class name, and its static `isInstance` recognises a
 * foreign copy by those markers alone. The symbols are written out here on purpose, not imported from a
 * package: a test of a package's own constant would pass even if other packages could not recognise its
 * errors.
 */
import { describe, expect, it } from "vitest";

const relaxError = Symbol.for("relax.error");
const markerOf = (name: string): symbol => Symbol.for(`relax.error.${name}`);

/** What `isInstance` is checked on: any class with the contract's static check. */
export interface ErrorClass {
  isInstance(value: unknown): boolean;
}

/** One error class of a package, with an instance of it. */
export interface ErrorCase {
  /** The class's export name, also its `error.name` and its marker `relax.error.<name>`. */
  readonly name: string;
  /** An instance, built with the class's constructor. */
  readonly error: Error;
  /** The Relax classes it extends, each of whose markers it must carry. @default [] */
  readonly ancestors?: readonly string[];
}

/** An error class the package does not export from its root but marks the same way. */
export interface InternalErrorCase extends ErrorCase {
  /** The class itself (it cannot be looked up among the exports). */
  readonly errorClass: ErrorClass;
}

/** One package's side of the error contract. */
export interface ErrorContract {
  /** The package's name (`"@relax/sglang"`); the suite is `<packageName> error contract`. */
  readonly packageName: string;
  /** The package root's exports (`import * as sglang from "../index"`). */
  readonly exports: object;
  /** Every error class exported from the root, none missing and none extra; `[]` when it exports none. */
  readonly cases: readonly ErrorCase[];
  /** Internal error classes, checked like the exported ones. @default [] */
  readonly internalCases?: readonly InternalErrorCase[];
  /** Which exported names are error classes (functions only). @default /^[A-Z]\w*Error$/ */
  readonly errorNamePattern?: RegExp;
  /**
   * Root classes that carry only `relax.error` and no marker of their own name (`@relax/chat`'s
   * `RelaxError`, whose `isInstance` is true for any Relax error). @default []
   */
  readonly unmarkedRoots?: readonly string[];
}

/**
 * Registers the suite `<packageName> error contract`: the exported error classes are exactly `cases`;
 * each case (internal ones too) carries the literal global markers of its class and ancestors, has its
 * class name as `name` and is an `Error`; each class's `isInstance` is true for a foreign object carrying
 * the markers and false for a plain `Error` or a `false` marker. `more` registers the package's own extra
 * cases inside the same suite.
 *
 * @example
 * describeErrorContract({
 *   packageName: "@relax/forest",
 *   exports: forest,
 *   cases: [{ name: "SnapshotError", error: new forest.SnapshotError({ path: "nodes", reason: "bad" }) }],
 * });
 */
export function describeErrorContract(contract: ErrorContract, more?: () => void): void {
  const { packageName, exports, cases, internalCases = [], unmarkedRoots = [] } = contract;
  const pattern = contract.errorNamePattern ?? /^[A-Z]\w*Error$/;
  const checked = [...cases, ...internalCases].map((c) => ({ ...c, ancestors: c.ancestors ?? [] }));
  const classOf = (name: string): ErrorClass =>
    internalCases.find((c) => c.name === name)?.errorClass ?? (exports as Record<string, ErrorClass>)[name]!;

  describe(`${packageName} error contract`, () => {
    it(
      cases.length === 0
        ? "should export no error class"
        : "should list every exported error class in this test",
      () => {
        const exported = Object.entries(exports)
          .filter(([name, value]) => pattern.test(name) && typeof value === "function")
          .map(([name]) => name);
        expect(exported.sort()).toEqual(cases.map((c) => c.name).sort());
      },
    );

    if (checked.length > 0) {
      it.each(checked)("should mark $name with the literal global symbols", ({ name, error, ancestors }) => {
        const record = error as unknown as Record<symbol, unknown>;
        expect(record[relaxError]).toBe(true);
        if (!unmarkedRoots.includes(name)) expect(record[markerOf(name)]).toBe(true);
        for (const ancestor of ancestors) expect(record[markerOf(ancestor)]).toBe(true);
        expect(error.name).toBe(name);
        expect(error).toBeInstanceOf(Error);
      });

      it.each(checked)("should recognise $name by isInstance from a foreign copy", ({ name }) => {
        const errorClass = classOf(name);
        expect(errorClass.isInstance({ [relaxError]: true, [markerOf(name)]: true })).toBe(true);
        expect(errorClass.isInstance(new Error("plain"))).toBe(false);
        expect(errorClass.isInstance({ [markerOf(name)]: false })).toBe(false);
      });
    }

    more?.();
  });
}
