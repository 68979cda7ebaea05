/**
 * The Docker Engine API contract the fake daemon (./server.ts) enforces, from github.com/moby/moby
 * (snapshot of 2026-08, API 1.56; the routes used here are unchanged since 1.42):
 *
 * - api/swagger.yaml:
 *   - POST /containers/create?name= body = ContainerConfig (Hostname, Domainname, User, Attach*,
 *     ExposedPorts, Tty, OpenStdin, StdinOnce, Env [string], Cmd [string], Healthcheck,
 *     ArgsEscaped, Image, Volumes, WorkingDir, Entrypoint [string], NetworkDisabled, OnBuild,
 *     Labels, StopSignal, StopTimeout, Shell) + HostConfig (Resources: Memory, MemorySwap,
 *     PidsLimit, NanoCpus, CpuQuota, Ulimits [{Name, Soft, Hard}], Init, ...; and Binds,
 *     NetworkMode, AutoRemove, CapDrop, SecurityOpt, ReadonlyRootfs, Tmpfs {path: "opts"}, ...)
 *     + NetworkingConfig. 201 {Id, Warnings}; 404 {"message": "No such image: <ref>"}; 400, 409.
 *   - POST /containers/{id}/start 204 (304 already started); POST /containers/{id}/kill?signal=
 *     204 (409 not running); DELETE /containers/{id}?force=&v= 204 (409 running without force);
 *     GET /containers/{id}/json (State.Running, State.OOMKilled, ...); 404 "No such container: <id>".
 *   - POST /containers/{id}/exec body ExecConfig {AttachStdin, AttachStdout, AttachStderr,
 *     ConsoleSize, DetachKeys, Tty, Env, Cmd, Privileged, User, WorkingDir} → 201 {Id}; 409 when
 *     the container is not running. POST /exec/{id}/start body {Detach, Tty, ConsoleSize}.
 *     GET /exec/{id}/json {ID, Running, ExitCode, Pid, ProcessConfig, OpenStdin, ..., ContainerID}.
 *   - HEAD|GET|PUT /containers/{id}/archive?path=: HEAD and GET answer the header
 *     X-Docker-Container-Path-Stat (base64 JSON {name, size, mode (Go FileMode: 1<<31 directory,
 *     1<<27 symlink), mtime, linkTarget}); GET a tar of the resource under its base name; PUT
 *     extracts a tar into the directory `path`.
 *   - POST /images/create?fromImage=&tag= → 200, a stream of JSON progress lines (an error can come
 *     as a line {"errorDetail": {"message"}, "error"}); no tag pulls every tag, so clients send one.
 *   - GET|HEAD /_ping → "OK" with headers API-Version, OSType, Docker-Experimental, Builder-Version;
 *     GET /version {Version, ApiVersion, MinAPIVersion, Os, Arch, ...}.
 *   - Errors: ErrorResponse {"message": string}.
 * - daemon/server/httputils/httputils.go (ReadJSON, CheckForJSON): a body must be
 *   Content-Type application/json; an undecodable body is 400 "invalid JSON: ...". Go's decoder
 *   ignores unknown keys; THIS FAKE REJECTS THEM (400), so that a misspelt key — which the real
 *   daemon would silently drop — fails a test instead.
 * - daemon/server/router/container/exec.go (postContainerExecStart): an empty Cmd is 400 "No exec
 *   command specified"; start with an `Upgrade` header is answered "HTTP/1.1 101 UPGRADED" with
 *   Content-Type application/vnd.docker.multiplexed-stream (API >= 1.42, no TTY), Connection:
 *   Upgrade, Upgrade: tcp; stdout/stderr are framed by api/pkg/stdcopy (8-byte header: stream
 *   1 stdout / 2 stderr, 3 zero bytes, big-endian uint32 length); stdin is read from the hijacked
 *   connection until the client half-closes it. An exec that cannot start writes the error on the
 *   stdout stream and exits 126 (127 when the executable is not found).
 * - daemon/server/middleware/version.go: `/vX.Y/` prefixes; "client version X is too new. Maximum
 *   supported API version is Y" / "... is too old. Minimum supported API version is Y, please
 *   upgrade your client to a newer version" (400).
 * - daemon/errors.go, daemon/container/view.go, daemon/archive_unix.go: "No such container: <id>",
 *   "container <id> is not running", "Could not find the file <path> in container <id>",
 *   "extraction point is not a directory", "container rootfs is marked read-only" (400).
 * - daemon/internal/runconfig/config.go: a create body without a config is "config cannot be
 *   empty in order to create a container"; the daemon's validateResources: Memory >= 6 MiB,
 *   MemorySwap >= Memory; go-units ulimits: a known name and Soft <= Hard.
 * - runc libcontainer/nsenter/nsexec.c (stage-2 setsid): every exec'd process leads its own session
 *   and process group — the fake spawns them detached to match.
 * - moby/moby#22020 (docs "docker container cp", corner cases): the archive routes see the
 *   container's own filesystem under a tmpfs mount, never the tmpfs — modelled here.
 */
import { z } from "zod";

const str = z.string().nullable().optional();
const bool = z.boolean().nullable().optional();
const int = z.number().int().nullable().optional();
const strings = z.array(z.string()).nullable().optional();
/** Go's strslice.StrSlice: a string or a list of strings. */
const strSlice = z
  .union([z.string(), z.array(z.string())])
  .nullable()
  .optional();
const object = z.record(z.string(), z.unknown()).nullable().optional();
const list = z.array(z.unknown()).nullable().optional();

export const UlimitSchema = z.strictObject({
  Name: z.enum([
    "core",
    "cpu",
    "data",
    "fsize",
    "locks",
    "memlock",
    "msgqueue",
    "nice",
    "nofile",
    "nproc",
    "rss",
    "rtprio",
    "rttime",
    "sigpending",
    "stack",
  ]),
  Soft: z.number().int(),
  Hard: z.number().int(),
});

const TMPFS_OPTION =
  /^(rw|ro|exec|noexec|suid|nosuid|dev|nodev|atime|noatime|relatime|strictatime|size=\d+[kmg]?|mode=[0-7]{3,4}|uid=\d+|gid=\d+|nr_inodes=\d+[kmg]?)$/;

export const HostConfigSchema = z.strictObject({
  CpuShares: int,
  Memory: int,
  CgroupParent: str,
  BlkioWeight: int,
  BlkioWeightDevice: list,
  BlkioDeviceReadBps: list,
  BlkioDeviceWriteBps: list,
  BlkioDeviceReadIOps: list,
  BlkioDeviceWriteIOps: list,
  CpuPeriod: int,
  CpuQuota: int,
  CpuRealtimePeriod: int,
  CpuRealtimeRuntime: int,
  CpusetCpus: str,
  CpusetMems: str,
  Devices: list,
  DeviceCgroupRules: strings,
  DeviceRequests: list,
  MemoryReservation: int,
  MemorySwap: int,
  MemorySwappiness: int,
  NanoCpus: int,
  OomKillDisable: bool,
  Init: bool,
  PidsLimit: int,
  Ulimits: z.array(UlimitSchema).nullable().optional(),
  CpuCount: int,
  CpuPercent: int,
  IOMaximumIOps: int,
  IOMaximumBandwidth: int,
  Binds: strings,
  ContainerIDFile: str,
  LogConfig: object,
  NetworkMode: str,
  PortBindings: object,
  RestartPolicy: object,
  AutoRemove: bool,
  VolumeDriver: str,
  VolumesFrom: strings,
  Mounts: list,
  ConsoleSize: z.array(z.number().int()).nullable().optional(),
  Annotations: object,
  CapAdd: strings,
  CapDrop: strings,
  CgroupnsMode: str,
  Dns: strings,
  DnsOptions: strings,
  DnsSearch: strings,
  ExtraHosts: strings,
  GroupAdd: strings,
  IpcMode: str,
  Cgroup: str,
  Links: strings,
  OomScoreAdj: int,
  PidMode: str,
  Privileged: bool,
  PublishAllPorts: bool,
  ReadonlyRootfs: bool,
  SecurityOpt: strings,
  StorageOpt: object,
  Tmpfs: z
    .record(
      z.string().startsWith("/"),
      z.string().refine((o) => o === "" || o.split(",").every((x) => TMPFS_OPTION.test(x)), {
        message: "invalid tmpfs option",
      }),
    )
    .nullable()
    .optional(),
  UTSMode: str,
  UsernsMode: str,
  ShmSize: int,
  Sysctls: object,
  Runtime: str,
  Isolation: str,
  MaskedPaths: strings,
  ReadonlyPaths: strings,
});

export const ContainerCreateSchema = z.strictObject({
  Hostname: str,
  Domainname: str,
  User: str,
  AttachStdin: bool,
  AttachStdout: bool,
  AttachStderr: bool,
  ExposedPorts: object,
  Tty: bool,
  OpenStdin: bool,
  StdinOnce: bool,
  Env: strings,
  Cmd: strSlice,
  Healthcheck: object,
  ArgsEscaped: bool,
  Image: z.string().min(1),
  Volumes: object,
  WorkingDir: str,
  Entrypoint: strSlice,
  NetworkDisabled: bool,
  OnBuild: strings,
  Labels: z.record(z.string(), z.string()).nullable().optional(),
  StopSignal: str,
  StopTimeout: int,
  Shell: strings,
  HostConfig: HostConfigSchema.nullable().optional(),
  NetworkingConfig: z.strictObject({ EndpointsConfig: object }).nullable().optional(),
});
export type ContainerCreate = z.infer<typeof ContainerCreateSchema>;

export const ExecCreateSchema = z.strictObject({
  AttachStdin: bool,
  AttachStdout: bool,
  AttachStderr: bool,
  ConsoleSize: z.array(z.number().int().min(0)).length(2).nullable().optional(),
  DetachKeys: str,
  Tty: bool,
  Env: strings,
  Cmd: strSlice,
  Privileged: bool,
  User: str,
  WorkingDir: str,
  /**
   * Not in the swagger: the Go type's deprecated ExecOptions.Detach (moby commit 0c182d4d57
   * "api/types/container: deprecate ExecOptions.Detach"), which the docker CLI 28.x still sends and
   * the daemon ignores.
   */
  Detach: bool,
});
export type ExecCreate = z.infer<typeof ExecCreateSchema>;

export const ExecStartSchema = z.strictObject({
  Detach: bool,
  Tty: bool,
  ConsoleSize: z.array(z.number().int().min(0)).length(2).nullable().optional(),
});

/** The daemon's own checks of a create body beyond its types (validateResources, go-units). */
export function createRules(body: ContainerCreate): string | undefined {
  const h = body.HostConfig ?? {};
  const cmd = [...asList(body.Entrypoint), ...asList(body.Cmd)];
  if (cmd.length === 0) return "No command specified";
  if (h.Memory && h.Memory > 0 && h.Memory < 6 * 1024 * 1024) {
    return "Minimum memory limit allowed is 6MB";
  }
  if (h.MemorySwap && h.MemorySwap > 0 && (!h.Memory || h.MemorySwap < h.Memory)) {
    return "Minimum memoryswap limit should be larger than memory limit, see usage";
  }
  for (const u of h.Ulimits ?? []) {
    if (u.Soft > u.Hard)
      return `ulimit soft limit must be less than or equal to hard limit: ${u.Soft} > ${u.Hard}`;
  }
  return undefined;
}

export function asList(v: string | string[] | null | undefined): string[] {
  return v == null ? [] : typeof v === "string" ? [v] : v;
}

/** A zod error as the daemon words a decode failure. */
export function invalid(error: z.ZodError): string {
  const i = error.issues[0];
  return `invalid JSON: ${i ? `${i.path.join(".") || "(body)"}: ${i.message}` : "bad body"}`;
}
