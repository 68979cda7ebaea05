/**
 * The fake daemon's archive routes on a container's rootfs dir (see ./contract.ts): the path stat
 * (Go FileMode bits), a tar of a resource under its base name, and a tar extracted into a dir.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, normalize } from "node:path";
import { extract, pack } from "tar-stream";

const GO_MODE_DIR = 2 ** 31;
const GO_MODE_SYMLINK = 2 ** 27;

type Fail = (status: number, message: string) => Error;

export interface PathStat {
  name: string;
  size: number;
  mode: number;
  mtime: string;
  linkTarget: string;
}

export function archiveStat(rootfs: string, path: string, id: string, fail: Fail): PathStat {
  const host = join(rootfs, path);
  if (!existsSync(host) && !isLink(host))
    throw fail(404, `Could not find the file ${path} in container ${id}`);
  const st = lstatSync(host);
  const kind = st.isDirectory() ? GO_MODE_DIR : st.isSymbolicLink() ? GO_MODE_SYMLINK : 0;
  return {
    name: basename(path) || "/",
    size: st.size,
    mode: (st.mode & 0o777) + kind,
    mtime: st.mtime.toISOString(),
    linkTarget: st.isSymbolicLink() ? readlinkSync(host) : "",
  };
}

export async function archiveGet(rootfs: string, path: string): Promise<Buffer> {
  const archive = pack();
  const add = (host: string, name: string) => {
    const st = lstatSync(host);
    const mode = st.mode & 0o7777;
    if (st.isSymbolicLink()) {
      archive.entry({ name, type: "symlink", linkname: readlinkSync(host), mode });
    } else if (st.isDirectory()) {
      archive.entry({ name: `${name}/`, type: "directory", mode });
      for (const child of readdirSync(host).sort()) add(join(host, child), `${name}/${child}`);
    } else {
      archive.entry({ name, type: "file", mode }, readFileSync(host));
    }
  };
  add(join(rootfs, path), basename(path) || ".");
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const c of archive) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function archivePut(
  rootfs: string,
  path: string,
  tar: Buffer,
  id: string,
  fail: Fail,
): Promise<void> {
  const dest = join(rootfs, path);
  if (!existsSync(dest)) throw fail(404, `Could not find the file ${path} in container ${id}`);
  if (!lstatSync(dest).isDirectory()) throw fail(400, "extraction point is not a directory");
  const reader = extract();
  reader.end(tar);
  for await (const entry of reader) {
    const chunks: Buffer[] = [];
    for await (const c of entry) chunks.push(c as Buffer);
    const name = normalize(entry.header.name);
    if (name.startsWith("..") || name.startsWith("/"))
      throw fail(400, `invalid archive entry ${entry.header.name}`);
    const target = join(dest, name);
    const mode = entry.header.mode & 0o7777;
    if (entry.header.type === "directory") {
      mkdirSync(target, { recursive: true });
      chmodSync(target, mode);
    } else if (entry.header.type === "symlink") {
      mkdirSync(dirname(target), { recursive: true });
      symlinkSync(entry.header.linkname, target);
    } else if (entry.header.type === "file") {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, Buffer.concat(chunks));
      chmodSync(target, mode);
    }
  }
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
