/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time by function, self time by area
 * (node http, undici, zod, SQLite, JSON, GC, ...) and inclusive time of chosen functions.
 *
 *   node --import tsx bench/lib/cpuprofile.ts FILE.cpuprofile [--top 30]
 *
 * Native code (JSON.parse, better-sqlite3's statement.run, ...) has no script URL; its time is
 * shown with the JS function that called it, so "run ← insertTrace" reads as the SQLite insert.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import { markdownTable } from "./stats.js";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  /** Sampled time in ms: all of it, and what was not idle. */
  totalMs: number;
  busyMs: number;
  top: { name: string; where: string; selfMs: number; pctBusy: number }[];
  areas: { area: string; selfMs: number; pctBusy: number }[];
  inclusive: { name: string; ms: number; pctBusy: number }[];
}

/** Functions whose inclusive time is reported (gateway hot path), matched by name. */
const INCLUSIVE = [
  "handle",
  "agentCall",
  "readJsonBody",
  "chatCompletions",
  "completions",
  "parseChat",
  "runChat",
  "runChatStreaming",
  "callUpstream",
  "upstreamPost",
  "readUpstreamJson",
  "upstreamSse",
  "chat",
  "chatTrace",
  "completionTrace",
  "record",
  "serve",
  "postMaybeStreaming",
  "insertTrace",
  "flush",
  "sendJson",
  "agentCompletion",
  "newTraceId",
  "authorize",
  "callSignal",
  "applySession",
  "stringify",
  "parse",
  "safeParse",
];

function shortUrl(url: string): string {
  if (!url) return "";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) return url.slice(nm + "node_modules/".length);
  const src = url.lastIndexOf("/src/");
  if (src >= 0) return url.slice(src + 1);
  return url.replace(/^file:\/\//, "");
}

function areaOf(frame: CallFrame, caller: CallFrame | undefined): string {
  const { functionName: fn, url } = frame;
  if (fn === "(garbage collector)") return "GC";
  if (fn === "(idle)") return "idle";
  if (fn === "(program)") return "V8/native (program)";
  if (fn === "(root)") return "root";
  if (!url) {
    // A builtin or native binding: file it under what it is, or under its caller.
    if (fn === "parse" || fn === "stringify") {
      return caller && /store\/sqlite/.test(caller.url)
        ? "SQLite (JSON.stringify of the trace)"
        : `JSON.${fn}`;
    }
    if (caller) {
      const a = areaOf(caller, undefined);
      return a.startsWith("SQLite") ? "SQLite (native)" : `${a} (native)`;
    }
    return "native";
  }
  if (url.includes("node_modules/undici")) return "undici";
  if (url.includes("node_modules/zod")) return "zod";
  if (url.includes("node_modules/better-sqlite3")) return "SQLite (js)";
  if (url.includes("node_modules/tsx") || url.includes("node_modules/esbuild")) return "tsx loader";
  if (url.includes("node_modules/")) return "other deps";
  if (/\/src\/store\//.test(url)) return "SQLite (js)";
  if (/\/src\/gateway\//.test(url)) return "gateway code";
  if (/\/src\//.test(url)) return "rllm other";
  if (
    url.startsWith("node:internal/http") ||
    url === "node:_http_server" ||
    url.includes("_http_")
  ) {
    return "node http";
  }
  if (url.startsWith("node:internal/streams") || url.startsWith("node:stream")) {
    return "node streams";
  }
  if (url.startsWith("node:net") || url.startsWith("node:internal/net")) return "node net";
  if (url.startsWith("node:internal/timers") || url.startsWith("node:timers")) return "node timers";
  if (url.startsWith("node:internal/abort") || url.startsWith("node:internal/event_target")) {
    return "AbortController/events";
  }
  if (url.startsWith("node:")) return `node other (${url.replace(/^node:(internal\/)?/, "")})`;
  return "other";
}

/**
 * `windows`: only samples taken inside these [start, end] intervals count, in microseconds of the
 * monotonic clock the profile uses (the same as process.hrtime: µs = hrtime.bigint() / 1000).
 */
export function summarizeProfile(
  file: string,
  topN = 25,
  windows?: readonly (readonly [number, number])[],
): ProfileSummary {
  const p = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of p.nodes) byId.set(n.id, n);
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // timeDeltas[i] is the time before sample i; attribute the gap after a sample to that sample.
  const self = new Map<number, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let t = p.startTime;
  for (let i = 0; i < p.samples.length; i++) {
    const id = p.samples[i]!;
    t += p.timeDeltas[i] ?? 0;
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
    if (dt <= 0) continue;
    if (windows && !windows.some(([a, b]) => t >= a && t <= b)) continue;
    total += dt;
    self.set(id, (self.get(id) ?? 0) + dt);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const fn = byId.get(cur)!.callFrame.functionName;
      if (INCLUSIVE.includes(fn) && !seen.has(fn)) {
        seen.add(fn);
        inclusive.set(fn, (inclusive.get(fn) ?? 0) + dt);
      }
    }
  }
  let idle = 0;
  const fnSelf = new Map<string, { name: string; where: string; ms: number }>();
  const areaSelf = new Map<string, number>();
  for (const [id, ms] of self) {
    const node = byId.get(id)!;
    const f = node.callFrame;
    if (f.functionName === "(idle)") idle += ms;
    const pid = parent.get(id);
    const caller = pid !== undefined ? byId.get(pid)?.callFrame : undefined;
    const name = f.functionName || "(anonymous)";
    const where = f.url
      ? `${shortUrl(f.url)}:${f.lineNumber + 1}`
      : caller
        ? `native ← ${caller.functionName || "(anonymous)"} ${shortUrl(caller.url)}`
        : "native";
    const key = `${name}@${where}`;
    const e = fnSelf.get(key) ?? { name, where, ms: 0 };
    e.ms += ms;
    fnSelf.set(key, e);
    const area = areaOf(f, caller);
    areaSelf.set(area, (areaSelf.get(area) ?? 0) + ms);
  }
  const busy = total - idle;
  const pct = (ms: number) => (busy > 0 ? (100 * ms) / busy : 0);
  return {
    file,
    totalMs: total,
    busyMs: busy,
    top: [...fnSelf.values()]
      .filter((e) => e.name !== "(idle)")
      .sort((a, b) => b.ms - a.ms)
      .slice(0, topN)
      .map((e) => ({ name: e.name, where: e.where, selfMs: e.ms, pctBusy: pct(e.ms) })),
    areas: foldSmall(
      [...areaSelf.entries()]
        .filter(([a]) => a !== "idle")
        .sort((a, b) => b[1] - a[1])
        .map(([area, ms]) => ({ area, selfMs: ms, pctBusy: pct(ms) })),
    ),
    inclusive: INCLUSIVE.filter((n) => inclusive.has(n))
      .map((n) => ({ name: n, ms: inclusive.get(n)!, pctBusy: pct(inclusive.get(n)!) }))
      .sort((a, b) => b.ms - a.ms),
  };
}

/** Areas under 0.5% of busy time are summed into one line. */
function foldSmall(areas: ProfileSummary["areas"]): ProfileSummary["areas"] {
  const big = areas.filter((a) => a.pctBusy >= 0.5);
  const small = areas.filter((a) => a.pctBusy < 0.5);
  if (small.length === 0) return big;
  const sum = (k: "selfMs" | "pctBusy") => small.reduce((acc, a) => acc + a[k], 0);
  return [
    ...big,
    { area: `${small.length} smaller areas`, selfMs: sum("selfMs"), pctBusy: sum("pctBusy") },
  ];
}

/** Per-request figures when the number of requests served during the profile is known. */
export function formatProfile(s: ProfileSummary, requests?: number): string {
  const perReq = (ms: number) =>
    requests && requests > 0 ? `${((ms * 1000) / requests).toFixed(1)} µs` : "–";
  const out: string[] = [];
  out.push(
    `Profile ${basename(s.file)}: ${s.totalMs.toFixed(0)} ms sampled, ${s.busyMs.toFixed(0)} ms busy` +
      (requests ? `, ${requests} requests → ${perReq(s.busyMs)} busy CPU per request` : ""),
  );
  out.push("");
  out.push("Self time by area:");
  out.push(
    markdownTable(
      ["area", "self ms", "% of busy", "per request"],
      s.areas.map((a) => [a.area, a.selfMs.toFixed(0), a.pctBusy.toFixed(1), perReq(a.selfMs)]),
    ),
  );
  out.push("");
  out.push("Top functions by self time:");
  out.push(
    markdownTable(
      ["function", "where", "self ms", "% of busy", "per request"],
      s.top.map((t) => [
        t.name,
        t.where,
        t.selfMs.toFixed(0),
        t.pctBusy.toFixed(1),
        perReq(t.selfMs),
      ]),
    ),
  );
  out.push("");
  out.push("Inclusive time of hot-path functions (all functions of that name):");
  out.push(
    markdownTable(
      ["function", "incl ms", "% of busy", "per request"],
      s.inclusive.map((t) => [t.name, t.ms.toFixed(0), t.pctBusy.toFixed(1), perReq(t.ms)]),
    ),
  );
  return out.join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const file = args.find((a) => !a.startsWith("--"));
  if (!file) {
    console.error("usage: node --import tsx bench/lib/cpuprofile.ts FILE.cpuprofile [--top N]");
    process.exit(2);
  }
  const ti = args.indexOf("--top");
  const top = ti >= 0 ? Number(args[ti + 1]) : 25;
  const ri = args.indexOf("--requests");
  const requests = ri >= 0 ? Number(args[ri + 1]) : undefined;
  console.log(formatProfile(summarizeProfile(file, top), requests));
}
