/** Where a command's run goes when no --output is given. */
import { join } from "node:path";

/** `YYYYMMDD-HHMMSS` in UTC: sorts by time and holds no character a shell or a file system minds. */
export function runStamp(date = new Date()): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");
}

/** `runs/<command>/<name>-YYYYMMDD-HHMMSS`, e.g. runs/train/countdown-20250101-120000. */
export function defaultRunDir(command: string, name: string, stamp = runStamp()): string {
  return join("runs", command, `${name}-${stamp}`);
}
