// The record batch travels as one MessagePack array (Lua's built-in `cmsgpack.unpack` reads it in C).
// Redis and Lua pay for every script argument — a parse, an object, an interned string — and at one
// call per batch those arguments were most of a call's cost; one packed argument costs a fraction.
// Only what the batch needs: non-negative safe integers, strings, and bytes (Lua strings too).

const STR8 = 0xd9;
const STR32 = 0xdb;
const UINT32 = 0xce;
const FLOAT64 = 0xcb;
const ARRAY32 = 0xdd;

/**
 * Writes one MessagePack array straight into a buffer, value by value: the record path writes
 * thousands of values a batch, and an intermediate array of them was a good part of the client's
 * garbage-collection time.
 */
export class PackWriter {
  private buf: Buffer;
  private at = 5; // after the array header, written by finish()
  private count = 0;

  constructor(sizeHint = 1024) {
    this.buf = Buffer.allocUnsafe(Math.max(64, sizeHint));
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }

  /** A non-negative integer, exact up to 2⁵³ as Lua numbers are. */
  int(v: number): this {
    this.room(9);
    if (v <= 0xffffffff) {
      this.buf[this.at] = UINT32;
      this.buf.writeUInt32BE(v, this.at + 1);
      this.at += 5;
    } else {
      this.buf[this.at] = FLOAT64; // integers below 2⁵³ are exact as doubles
      this.buf.writeDoubleBE(v, this.at + 1);
      this.at += 9;
    }
    this.count++;
    return this;
  }

  str(v: string): this {
    // A UTF-16 unit is at most 3 bytes of UTF-8: room enough without measuring the string first.
    this.room(5 + v.length * 3);
    if (v.length * 3 <= 0xff) {
      const length = this.buf.write(v, this.at + 2, 'utf8');
      this.buf[this.at] = STR8;
      this.buf[this.at + 1] = length;
      this.at += 2 + length;
    } else {
      const length = this.buf.write(v, this.at + 5, 'utf8');
      this.buf[this.at] = STR32;
      this.buf.writeUInt32BE(length, this.at + 1);
      this.at += 5 + length;
    }
    this.count++;
    return this;
  }

  /** A non-negative integer as its decimal text, without making the string first. */
  decimal(v: number): this {
    this.room(2 + 16);
    let digits = 1;
    for (let rest = Math.floor(v / 10); rest > 0; rest = Math.floor(rest / 10)) digits++;
    this.buf[this.at] = STR8;
    this.buf[this.at + 1] = digits;
    for (let i = this.at + 1 + digits, rest = v; i > this.at + 1; i--, rest = Math.floor(rest / 10)) {
      this.buf[i] = 0x30 + (rest % 10);
    }
    this.at += 2 + digits;
    this.count++;
    return this;
  }

  /** Bytes, as a str: Redis's cmsgpack predates MessagePack's bin types, and reads a str's bytes as they are. */
  bytes(v: Buffer): this {
    this.room(5 + v.length);
    this.buf[this.at] = STR32;
    this.buf.writeUInt32BE(v.length, this.at + 1);
    this.at += 5 + v.copy(this.buf, this.at + 5);
    this.count++;
    return this;
  }

  /** The array, with every value written so far. */
  finish(): Buffer {
    this.buf[0] = ARRAY32;
    this.buf.writeUInt32BE(this.count, 1);
    return this.buf.subarray(0, this.at);
  }
}

/** A MessagePack array of strings and non-negative integers. */
export function packArray(values: ReadonlyArray<string | number>): Buffer {
  const writer = new PackWriter(values.length * 16);
  for (const v of values) {
    if (typeof v === 'number') writer.int(v);
    else writer.str(v);
  }
  return writer.finish();
}
