import { describe, expect, it } from "vitest";
import { AsyncDisposableStack } from "./async-disposable-stack";

describe("AsyncDisposableStack", () => {
  it("should release in reverse order of registration, once", async () => {
    const closed: string[] = [];
    const stack = new AsyncDisposableStack();
    stack.defer(() => {
      closed.push("a");
    });
    const resource = stack.use({
      [Symbol.asyncDispose]: async () => {
        closed.push("b");
      },
    });
    expect(stack.adopt(7, (value) => void closed.push(`c${value}`))).toBe(7);
    stack.use(undefined);
    expect(resource).toBeDefined();
    await stack[Symbol.asyncDispose]();
    await stack.disposeAsync();
    expect(closed).toEqual(["c7", "b", "a"]);
    expect(stack.disposed).toBe(true);
    expect(() => stack.defer(() => {})).toThrow(ReferenceError);
  });

  it("should run every release when some throw, and report all failures", async () => {
    const closed: string[] = [];
    const stack = new AsyncDisposableStack();
    stack.defer(() => void closed.push("first"));
    stack.defer(() => {
      throw new Error("one");
    });
    stack.defer(() => void closed.push("middle"));
    stack.defer(async () => {
      throw new Error("two");
    });
    const error = await stack.disposeAsync().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors.map((item: Error) => item.message)).toEqual(["two", "one"]);
    expect(closed).toEqual(["middle", "first"]);

    const single = new AsyncDisposableStack();
    single.defer(() => {
      throw new Error("only");
    });
    await expect(single.disposeAsync()).rejects.toThrow("only");
  });

  it("should move its registrations to a new stack (ownership handed over after a successful start)", async () => {
    const closed: string[] = [];
    const stack = new AsyncDisposableStack();
    stack.defer(() => void closed.push("server"));
    const owner = stack.move();
    await stack.disposeAsync();
    expect(closed).toEqual([]);
    await owner.disposeAsync();
    expect(closed).toEqual(["server"]);
  });
});
