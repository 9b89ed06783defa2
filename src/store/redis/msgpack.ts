// The record batch travels as one MessagePack array (Lua's built-in `cmsgpack.unpack` reads it in C).
// Redis and Lua pay for every script argument — a parse, an object, an interned string — and at one
// call per batch those arguments were most of a call's cost; one packed argument costs a fraction.
// Only what the batch needs: non-negative safe integers and strings.

const STR8 = 0xd9;
const STR16 = 0xda;
const STR32 = 0xdb;
const UINT32 = 0xce;
const FLOAT64 = 0xcb;
const ARRAY32 = 0xdd;

/** A MessagePack array of strings and non-negative integers (exact up to 2⁵³, as Lua numbers are). */
export function packArray(values: ReadonlyArray<string | number>): Buffer {
  let size = 5;
  // A UTF-16 unit is at most 3 bytes of UTF-8: room enough without measuring every string.
  for (const v of values) size += typeof v === 'number' ? 9 : 5 + v.length * 3;
  const buf = Buffer.allocUnsafe(size);
  buf[0] = ARRAY32;
  buf.writeUInt32BE(values.length, 1);
  let at = 5;
  for (const v of values) {
    if (typeof v === 'number') {
      if (v <= 0xffffffff) {
        buf[at] = UINT32;
        buf.writeUInt32BE(v, at + 1);
        at += 5;
      } else {
        buf[at] = FLOAT64; // integers below 2⁵³ are exact as doubles
        buf.writeDoubleBE(v, at + 1);
        at += 9;
      }
    } else {
      const length = Buffer.byteLength(v);
      if (length <= 0xff) {
        buf[at] = STR8;
        buf[at + 1] = length;
        at += 2;
      } else if (length <= 0xffff) {
        buf[at] = STR16;
        buf.writeUInt16BE(length, at + 1);
        at += 3;
      } else {
        buf[at] = STR32;
        buf.writeUInt32BE(length, at + 1);
        at += 5;
      }
      at += buf.write(v, at, 'utf8');
    }
  }
  return buf.subarray(0, at);
}
