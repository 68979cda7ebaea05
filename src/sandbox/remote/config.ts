/**
 * The `sandbox` section of the daytona backend and what it enforces: zod and types only, so the
 * registry (and with it the config) loads without the implementation (daytona.ts).
 */
import { z } from "zod";
import { common } from "../config.js";
import type { SandboxCapabilities } from "../types.js";

export const DaytonaSandboxConfigSchema = z.strictObject({
  backend: z.literal("daytona"),
  ...common,
  /** The Daytona API. */
  apiUrl: z.url().default("https://app.daytona.io/api"),
  /** API key; default the DAYTONA_API_KEY environment variable. */
  apiKey: z.string().min(1).optional(),
  /** Sent as X-Daytona-Organization-ID (a key of several organizations). */
  organizationId: z.string().min(1).optional(),
  /** The image sandboxes run (a spec's image overrides it); Daytona builds it once and caches it. */
  image: z.string().min(1).default("python:3.12-slim"),
  /** The region sandboxes are created in; default the organization's. */
  target: z.string().min(1).optional(),
  /** How long a sandbox may take to start (an image's first build included), seconds. */
  startTimeoutS: z.number().positive().default(300),
  /** Idle minutes after which Daytona stops, and so deletes, a sandbox a crashed run left. */
  autoStopMinutes: z.number().int().min(1).default(15),
});
export type DaytonaSandboxConfig = z.infer<typeof DaytonaSandboxConfigSchema>;

export const DAYTONA_CAPABILITIES: SandboxCapabilities = {
  limits: ["memoryMb", "diskMb", "cpuSeconds", "fileMb", "openFiles"],
  network: true,
  hostPaths: false,
  image: true,
  cpuSeconds: false,
  /** No links: this backend does not make them, so resolveSpec refuses a spec with links (a task that needs them runs on bwrap). */
  links: false,
};
