import type { MessageError } from "../session/message.js";
import { NETWORK_ERROR_PREFIX, TIMEOUT_ERROR_PREFIX } from "./model-errors.js";

/** The first retry waits this long; each further attempt doubles it. */
export const RETRY_INITIAL_MS = 2000;
/** Backoff stops growing here when the provider gives no `retry-after`. */
export const RETRY_MAX_MS = 30_000;
/**
 * The longest wait a provider's `retry-after` can impose. A daily quota may ask for hours; the
 * session would look hung, so it waits at most 10 minutes and then tries (and asks) again.
 */
export const RETRY_AFTER_MAX_MS = 10 * 60_000;

// setTimeout fires immediately for delays above a signed 32-bit integer.
const TIMER_MAX_MS = 2 ** 31 - 1;

/**
 * A short status line for the user while the engine waits to retry, or `undefined` when the
 * error is not worth retrying: anything but a retryable `APIError`, and never a 4xx other than
 * 408, 409 and 429 (the request itself is wrong).
 */
export function retryMessage(error: MessageError): string | undefined {
  if (error.name !== "APIError" || error.retryable !== true) return undefined;
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429) {
    return undefined;
  }
  if (status === 429) return "Rate limited";
  if (status === 529 || /overloaded/i.test(`${error.message}\n${error.responseBody ?? ""}`)) return "Provider overloaded";
  if (status === 408 || error.message.startsWith(TIMEOUT_ERROR_PREFIX)) return "Timed out";
  if (error.message.startsWith(NETWORK_ERROR_PREFIX)) return "Network error";
  if (status === 409) return "Request conflict (409)";
  if (status !== undefined && status >= 500) return `Server error ${status}`;
  return "Temporary provider error";
}

/**
 * How long to wait before retry number `attempt` (1-based), in ms. The provider's
 * `retry-after-ms` (milliseconds) or `retry-after` (seconds, or an HTTP date) wins when present,
 * clamped to 0 … `RETRY_AFTER_MAX_MS`; otherwise exponential backoff from `RETRY_INITIAL_MS`,
 * doubling, capped at `RETRY_MAX_MS`.
 */
export function retryDelay(attempt: number, error?: MessageError): number {
  const fromHeaders = error?.name === "APIError" ? headerDelay(error.responseHeaders) : undefined;
  if (fromHeaders !== undefined) return fromHeaders;
  const n = Number.isFinite(attempt) ? Math.max(1, Math.floor(attempt)) : 1;
  // Past 2^5 the cap has long been reached; keeps the power from overflowing to Infinity.
  return Math.min(RETRY_INITIAL_MS * 2 ** Math.min(n - 1, 32), RETRY_MAX_MS);
}

function headerDelay(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = parseNumber(header(headers, "retry-after-ms"));
  if (ms !== undefined) return clampRetryAfter(ms);
  const retryAfter = header(headers, "retry-after")?.trim();
  if (!retryAfter) return undefined;
  const seconds = parseNumber(retryAfter);
  if (seconds !== undefined) return clampRetryAfter(seconds * 1000);
  const date = Date.parse(retryAfter);
  if (!Number.isNaN(date)) return clampRetryAfter(date - Date.now());
  return undefined;
}

// Stored headers are lower-cased by toMessageError, but errors built elsewhere may not be.
function header(headers: Record<string, string>, name: string): string | undefined {
  const exact = headers[name];
  if (exact !== undefined) return exact;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

function parseNumber(value: string | undefined): number | undefined {
  if (value === undefined || !/^\s*\d+(?:\.\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}

function clampRetryAfter(ms: number): number {
  return Math.ceil(Math.min(Math.max(ms, 0), RETRY_AFTER_MAX_MS));
}

/**
 * Wait `ms`, or reject as soon as `signal` aborts, with the signal's reason (a DOMException
 * named "AbortError" unless the aborter gave another). The timer and the listener are removed
 * either way, so a long-lived signal does not collect listeners across retries.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const delay = Number.isFinite(ms) ? Math.min(Math.max(ms, 0), TIMER_MAX_MS) : ms > 0 ? TIMER_MAX_MS : 0;
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, delay);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
