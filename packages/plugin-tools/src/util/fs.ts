import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes `data` to `path` atomically: a temp file in the same directory, flushed, then renamed
 * over the target, so a reader never sees half a file and a crash leaves the old one. An
 * existing file keeps its mode. Parent directories are created.
 */
export async function atomicWrite(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
  let mode = options.mode;
  if (mode === undefined) {
    try {
      mode = (await stat(path)).mode & 0o7777;
    } catch {
      mode = undefined;
    }
  }
  await mkdir(dirname(path), { recursive: true });
  const temp = tempPathFor(path);
  const handle = await open(temp, "wx", mode ?? 0o666);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    // open() applies the umask; an existing file's exact mode is restored.
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** A fresh temp file name next to `path` (same directory, so the rename is atomic). */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.tessera-${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
}

const BINARY_EXTENSIONS = new Set([
  ".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".jar", ".war", ".class",
  ".exe", ".dll", ".so", ".dylib", ".o", ".a", ".lib", ".obj", ".bin", ".dat", ".wasm", ".pyc",
  ".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods",
  ".ico", ".bmp", ".tif", ".tiff", ".psd", ".mp3", ".mp4", ".mov", ".avi", ".mkv", ".wav", ".flac", ".ogg",
  ".ttf", ".otf", ".woff", ".woff2", ".eot", ".sqlite", ".db",
]);

/** Whether a file looks binary: a known binary extension, a NUL byte, or mostly control bytes in `sample`. */
export function looksBinary(sample: Uint8Array, extension = ""): boolean {
  if (BINARY_EXTENSIONS.has(extension.toLowerCase())) return true;
  if (sample.length === 0) return false;
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    // Control characters other than tab, newline, vertical tab, form feed, carriage return, escape.
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 11 && byte !== 12 && byte !== 13 && byte !== 27) control++;
  }
  return control / sample.length > 0.3;
}

const IMAGE_EXTENSIONS: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** The image media type (png, jpeg, gif, webp) of a file from its first bytes; undefined for anything else. */
export function imageType(sample: Uint8Array, extension: string): string | undefined {
  const b = sample;
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 6 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) return "image/gif";
  if (b.length >= 12 && b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57 && b[9] === 0x45 && b[10] === 0x42 && b[11] === 0x50) {
    return "image/webp";
  }
  return undefined;
}

/** Whether the extension names an image type the read tool returns as an attachment. */
export function isImageExtension(extension: string): boolean {
  return extension.toLowerCase() in IMAGE_EXTENSIONS;
}

/** The error code of a Node error (`ENOENT` …), if any. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined;
}
