import { randomBytes } from "node:crypto";
import { z } from "zod";

export const ID_PREFIXES = { session: "ses", message: "msg", part: "prt", permission: "per" } as const;
export type IdKind = keyof typeof ID_PREFIXES;

// 12 hex digits of milliseconds last until the year 10889; 4 hex digits of counter allow 65,536 ids
// per millisecond before the generator borrows the next millisecond. Fixed widths are what make
// plain string comparison agree with creation order.
const TIME_WIDTH = 12;
const COUNTER_WIDTH = 4;
const COUNTER_MAX = 16 ** COUNTER_WIDTH - 1;
const RANDOM_LENGTH = 10;
const RANDOM_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

export type IdGenerator = (kind: IdKind) => string;

/**
 * Ids that sort by creation order as plain strings: `<prefix>_<ms><counter><random>`. The clock is
 * never allowed to go backwards (a system clock step back would otherwise break ordering), and the
 * counter keeps ids made in the same millisecond ascending. The random tail only keeps ids from
 * different processes apart; it never decides order within one generator.
 */
export function createIdGenerator(clock: () => number = Date.now): IdGenerator {
  let lastTime = 0;
  let counter = 0;
  return (kind) => {
    const now = Math.floor(clock());
    if (now > lastTime) {
      lastTime = now;
      counter = 0;
    } else if (counter < COUNTER_MAX) {
      counter++;
    } else {
      lastTime++;
      counter = 0;
    }
    const time = lastTime.toString(16).padStart(TIME_WIDTH, "0");
    const count = counter.toString(16).padStart(COUNTER_WIDTH, "0");
    return `${ID_PREFIXES[kind]}_${time}${count}${randomTail()}`;
  };
}

function randomTail(): string {
  const bytes = randomBytes(RANDOM_LENGTH);
  let out = "";
  for (const byte of bytes) out += RANDOM_ALPHABET[byte % RANDOM_ALPHABET.length];
  return out;
}

/** The process-wide generator: one shared clock and counter, so every id this process makes ascends. */
export const newId: IdGenerator = createIdGenerator();

// Only the prefix is checked: ids imported from elsewhere (or made by an older generator) keep working.
const idSchema = (kind: IdKind) =>
  z.string().startsWith(`${ID_PREFIXES[kind]}_`, { error: `expected a ${kind} id (${ID_PREFIXES[kind]}_…)` });

export const SessionIDSchema = idSchema("session");
export const MessageIDSchema = idSchema("message");
export const PartIDSchema = idSchema("part");
