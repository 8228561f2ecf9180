import { hasMarker, RelaxError } from "@relax/chat";

const name = "GroupSizeError";
const marker = `relax.error.${name}`;
const symbol = Symbol.for(marker);

/**
 * A Group does not hold exactly `n_samples_per_prompt` members. Normalisation never regroups silently
 * (slime's reshape-based grouping does, when the fan-out is uneven), so this is a hard error: the
 * controller handed the export step a Group it did not sample.
 */
export class GroupSizeError extends RelaxError {
  readonly [symbol] = true;
  /** `group_index` of the offending Group. */
  readonly groupIndex: number;
  /** The configured fan-out (`n_samples_per_prompt`). */
  readonly expected: number;
  /** How many members the Group actually has. */
  readonly actual: number;

  constructor({ groupIndex, expected, actual }: { groupIndex: number; expected: number; actual: number }) {
    super({
      name,
      message:
        `group ${groupIndex} has ${actual} member(s), expected exactly ${expected} (n_samples_per_prompt); ` +
        "uneven fan-out is never regrouped",
    });
    this.groupIndex = groupIndex;
    this.expected = expected;
    this.actual = actual;
  }

  /** True for any `GroupSizeError`, including one from another copy of this package. */
  static override isInstance(error: unknown): error is GroupSizeError {
    return hasMarker(error, marker);
  }
}
