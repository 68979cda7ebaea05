/** Where a command's run goes when no --output is given. */
import { join } from "node:path";

/** `YYYYMMDD-HHMMSS` in UTC: sorts by time and holds no character a shell or a file system minds. */
export function runStamp(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");
}

/**
 * `runs/<command>/<name>-YYYYMMDD-HHMMSS`, e.g. runs/train/countdown-20250101-120000; a name with
 * other characters than letters, digits, ".", "_" and "-" (harbor:DIR) has each run of them as "_".
 */
export function defaultRunDir(command: string, name: string, stamp = runStamp()): string {
  return join("runs", command, `${name.replace(/[^A-Za-z0-9._-]+/g, "_")}-${stamp}`);
}
