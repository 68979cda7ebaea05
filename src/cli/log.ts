/**
 * The commands' log lines, filtered by RLLM_LOG_LEVEL (config/load.ts: debug < info < warn <
 * error, default info). A command's results (eval's summary table, `rllm model show`) are output,
 * not log lines, and are always written.
 */
import { LOG_LEVELS, type LogLevel, logLevel } from "../config/index.js";

type LogLine = (line: string) => void;

interface Log {
  debug: LogLine;
  info: LogLine;
  warn: LogLine;
  error: LogLine;
}

/** A log writing each line at or above `level` (default: RLLM_LOG_LEVEL's) with `write`. */
export function createLog(options: { level?: LogLevel; write?: LogLine } = {}): Log {
  const min = LOG_LEVELS.indexOf(options.level ?? logLevel());
  const write = options.write ?? ((line: string) => console.error(line));
  const at = (level: LogLevel): LogLine => (LOG_LEVELS.indexOf(level) >= min ? write : () => {});
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
