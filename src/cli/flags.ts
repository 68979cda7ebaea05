/** Flag parsers shared by the commands: each names the flag in its error. */
import { ConfigError } from "../config/index.js";

export function int(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0)
      throw new ConfigError(`${name} ${v}: must be a non-negative integer`);
    return n;
  };
}

export function num(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n)) throw new ConfigError(`${name} ${v}: must be a number`);
    return n;
  };
}
