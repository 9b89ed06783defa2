// The spill journal's record format: one frame per appended batch, `length (u32 LE) · crc32 (u32 LE) · payload`,
// the payload a JSON array of outcomes. A crash can leave a torn frame at the end of the newest file; the
// checksum finds it, and it is dropped: its append never returned, so nobody was told `buffered` for it.
import * as zlib from 'node:zlib';
import type { Outcome } from '../../types.js';

export const frameHeaderBytes = 8;

const table = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** zlib.crc32 is in Node ≥ 20.15; earlier 20.x releases get the same checksum from the table. */
export function crc32(data: Uint8Array): number {
  const native = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
  if (native) return native(data) >>> 0;
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function encodeFrame(outcomes: Outcome[]): Buffer {
  const payload = Buffer.from(JSON.stringify(outcomes), 'utf8');
  const frame = Buffer.allocUnsafe(frameHeaderBytes + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  payload.copy(frame, frameHeaderBytes);
  return frame;
}

export interface DecodedFile {
  batches: Outcome[][];
  /** Bytes of whole, checked frames; anything after is a torn tail. */
  validBytes: number;
}

export function decodeFrames(data: Buffer): DecodedFile {
  const batches: Outcome[][] = [];
  let offset = 0;
  while (offset + frameHeaderBytes <= data.length) {
    const length = data.readUInt32LE(offset);
    const end = offset + frameHeaderBytes + length;
    if (end > data.length) break;
    const payload = data.subarray(offset + frameHeaderBytes, end);
    if (crc32(payload) !== data.readUInt32LE(offset + 4)) break;
    batches.push(JSON.parse(payload.toString('utf8')) as Outcome[]);
    offset = end;
  }
  return { batches, validBytes: offset };
}
