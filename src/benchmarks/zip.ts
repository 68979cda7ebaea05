/**
 * Reading text members out of a zip file, for datasets that ship documents as an archive beside
 * their table (AA-LCR's extracted_text/AA-LCR_extracted-text.zip). Follows the format's
 * specification (PKWARE APPNOTE.TXT, sections 4.3.7 local header, 4.3.12 central directory header,
 * 4.3.16 end of central directory): the end record gives the central directory, whose entries give
 * each member's name, method, sizes and local header; a member's data follows its local header.
 *
 * Decided once:
 * - Names are decoded as UTF-8 whatever the language flag says (archives written on macOS store
 *   UTF-8 without the flag, which CP437 decoding turns into "ΓÇÖ"), and looked up in Unicode NFC,
 *   so a decomposed "ş" in the archive matches a composed one in the table.
 * - Methods: stored (0) and deflate (8); others, encryption and ZIP64 are refused by name.
 * - The whole file is read into memory: these archives are tens of megabytes.
 */
import { readFile } from "node:fs/promises";
import { inflateRawSync } from "node:zlib";

export interface ZipArchive {
  /** Member names (NFC), directories included, in central-directory order. */
  names: string[];
  /** A member's text (UTF-8), or undefined when the archive has no such member. */
  text(name: string): string | undefined;
}

const END_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

interface Member {
  method: number;
  flags: number;
  compressedSize: number;
  localOffset: number;
}

export async function openZip(path: string): Promise<ZipArchive> {
  const bytes = await readFile(path);
  const fail = (why: string) => new Error(`${path}: not a readable zip file (${why})`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The end record is the last 22 bytes plus a comment of at most 65,535 bytes.
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === END_SIGNATURE) {
      end = at;
      break;
    }
  }
  if (end < 0) throw fail("no end of central directory record");
  const count = view.getUint16(end + 10, true);
  const directoryOffset = view.getUint32(end + 16, true);
  if (count === 0xffff || directoryOffset === 0xffffffff)
    throw fail("ZIP64 archives are not supported");
  const decoder = new TextDecoder("utf-8");
  const members = new Map<string, Member>();
  let at = directoryOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== CENTRAL_SIGNATURE) {
      throw fail(`central directory entry ${i} is damaged`);
    }
    const nameLength = view.getUint16(at + 28, true);
    const name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength)).normalize("NFC");
    members.set(name, {
      method: view.getUint16(at + 10, true),
      flags: view.getUint16(at + 8, true),
      compressedSize: view.getUint32(at + 20, true),
      localOffset: view.getUint32(at + 42, true),
    });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return {
    names: [...members.keys()],
    text(name) {
      const member = members.get(name.normalize("NFC"));
      if (!member) return undefined;
      if (member.flags & 1) throw fail(`member ${name} is encrypted`);
      const local = member.localOffset;
      if (view.getUint32(local, true) !== LOCAL_SIGNATURE)
        throw fail(`member ${name} has no local header`);
      const start =
        local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
      const data = bytes.subarray(start, start + member.compressedSize);
      if (member.method === 0) return decoder.decode(data);
      if (member.method === 8) return decoder.decode(inflateRawSync(data));
      throw fail(
        `member ${name} uses compression method ${member.method}; only stored and deflate are read`,
      );
    },
  };
}
