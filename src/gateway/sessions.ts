/**
 * Sessions: one per rollout. A session has a secret token (the agent's API key), optional metadata
 * and sampling parameters that are enforced on every call it makes, and — in memory only — the
 * prompt state of its last call, which token-in/token-out prompt building extends.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { secureRandomBytes } from "../random.js";
import type { Store } from "../store/sqlite.js";
import { type SamplingParams, SamplingParamsSchema } from "../types/index.js";
import { badRequestFromIssues, HttpError } from "./errors.js";
import type { PromptState } from "./upstreams/types.js";

export interface Session {
  id: string;
  token: string;
  metadata: Record<string, unknown>;
  samplingParams: SamplingParams;
  createdAt: number;
  closedAt: number | null;
  previous?: PromptState;
}

export const CreateSessionSchema = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(512)
    .regex(/^[A-Za-z0-9._~:/@+=-]+$/, "may hold letters, digits and . _ ~ : / @ + = - only")
    .refine((s) => !s.startsWith("/") && !s.endsWith("/") && !s.includes("//"), {
      message: "must not start or end with / nor contain //",
    })
    .optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  samplingParams: SamplingParamsSchema.optional(),
});

export class Sessions {
  private readonly cache = new Map<string, Session>();

  constructor(
    private readonly store: Store,
    private readonly defaults: SamplingParams,
  ) {}

  async create(body: unknown): Promise<Session> {
    const parsed = CreateSessionSchema.safeParse(body ?? {});
    if (!parsed.success) throw badRequestFromIssues("session", parsed.error.issues);
    const id = parsed.data.id ?? randomUUID();
    if (this.get(id))
      throw new HttpError(409, `session ${id} already exists; pick another id or omit it`);
    const session: Session = {
      id,
      token: `rllm-${secureRandomBytes(24).toString("base64url")}`,
      metadata: parsed.data.metadata ?? {},
      samplingParams: { ...this.defaults, ...(parsed.data.samplingParams ?? {}) },
      createdAt: Date.now(),
      closedAt: null,
    };
    // In the cache first, so a second create of the same id while this one commits is a 409.
    this.cache.set(id, session);
    try {
      await this.store.insertSession(session);
    } catch (err) {
      this.cache.delete(id);
      throw err;
    }
    return session;
  }

  get(id: string): Session | undefined {
    const cached = this.cache.get(id);
    if (cached) return cached;
    const row = this.store.getSession(id);
    if (!row) return undefined;
    const session: Session = { ...row, samplingParams: row.samplingParams as SamplingParams };
    this.cache.set(id, session);
    return session;
  }

  /** The session for an agent call, checking that `token` is this session's own. */
  authorize(id: string, token: string | undefined, adminKey: string | undefined): Session {
    const session = this.get(id);
    if (!session) {
      throw new HttpError(
        404,
        `unknown session ${JSON.stringify(id)}; create it with POST /sessions first`,
      );
    }
    if (!token) {
      throw new HttpError(
        401,
        "missing session token: send the token POST /sessions returned as 'Authorization: Bearer <token>' or 'x-api-key'",
      );
    }
    if (!safeEqual(token, session.token) && !(adminKey && safeEqual(token, adminKey))) {
      throw new HttpError(403, `this token does not belong to session ${JSON.stringify(id)}`);
    }
    if (session.closedAt !== null)
      throw new HttpError(410, `session ${JSON.stringify(id)} was deleted`);
    return session;
  }

  list(after: string, limit: number): Session[] {
    return this.store.listSessions(after, limit).map((r) => ({
      ...r,
      samplingParams: r.samplingParams as SamplingParams,
    }));
  }

  /** Forgets the session; its traces stay (they are training data) unless `purge`. */
  async delete(id: string, purge: boolean): Promise<{ deleted: boolean; tracesDeleted: number }> {
    const existed = this.get(id) !== undefined;
    this.cache.delete(id);
    if (!existed) return { deleted: false, tracesDeleted: 0 };
    return { deleted: true, tracesDeleted: await this.store.deleteSession(id, purge) };
  }
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** The public view of a session (no token). */
export function sessionView(s: Session, baseUrl: string): Record<string, unknown> {
  return {
    id: s.id,
    url: sessionUrl(baseUrl, s.id),
    metadata: s.metadata,
    samplingParams: s.samplingParams,
    createdAt: s.createdAt,
  };
}

export function sessionUrl(baseUrl: string, id: string): string {
  // `/` and `:` stay readable; the router takes the session id as everything before `/v1/`.
  return `${baseUrl}/sessions/${encodeURI(id).replace(/[?#]/g, encodeURIComponent)}`;
}
