const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/**
 * Python `datetime.strftime` in the C locale (English names) for the directives chat templates use:
 * `%Y %y %m %d %e %j %H %I %M %S %p %b %B %h %a %A %%`; other directives are left as written.
 */
export function strftime(date: Date, format: string): string {
  return format.replace(/%[YymdejHIMSpbBhaA%]/g, (directive) => {
    switch (directive) {
      case "%Y":
        return String(date.getFullYear());
      case "%y":
        return pad(date.getFullYear() % 100);
      case "%m":
        return pad(date.getMonth() + 1);
      case "%d":
        return pad(date.getDate());
      case "%e":
        return String(date.getDate()).padStart(2, " ");
      case "%j": {
        const start = new Date(date.getFullYear(), 0, 1);
        return pad(Math.floor((date.getTime() - start.getTime()) / 86_400_000) + 1, 3);
      }
      case "%H":
        return pad(date.getHours());
      case "%I":
        return pad(date.getHours() % 12 === 0 ? 12 : date.getHours() % 12);
      case "%M":
        return pad(date.getMinutes());
      case "%S":
        return pad(date.getSeconds());
      case "%p":
        return date.getHours() < 12 ? "AM" : "PM";
      case "%b":
      case "%h":
        return MONTHS[date.getMonth()]!.slice(0, 3);
      case "%B":
        return MONTHS[date.getMonth()]!;
      case "%a":
        return DAYS[date.getDay()]!.slice(0, 3);
      case "%A":
        return DAYS[date.getDay()]!;
      default:
        return "%";
    }
  });
}

/** Python `range(start, stop, step)` as a list. @throws Error when `step` is 0. */
export function range(start: number, stop?: number, step = 1): number[] {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (step === 0) throw new Error("range() arg 3 must not be zero");
  const out: number[] = [];
  for (let i = from; step > 0 ? i < to : i > to; i += step) out.push(i);
  return out;
}

/** Thrown by the template's `raise_exception(message)`. */
export class TemplateRaisedError extends Error {}

/**
 * The globals transformers gives every chat template (`raise_exception`, `strftime_now`) plus Jinja's
 * (`range`, `true`/`false`/`none` in both casings). `now` fixes the clock for `strftime_now`.
 */
export function templateGlobals(now: () => Date): Record<string, unknown> {
  return {
    true: true,
    false: false,
    none: null,
    True: true,
    False: false,
    None: null,
    range,
    raise_exception: (message: unknown) => {
      throw new TemplateRaisedError(String(message));
    },
    strftime_now: (format: string) => strftime(now(), format),
  };
}
