// The record batch travels as one MessagePack array (Lua's built-in `cmsgpack.unpack` reads it in C).
// Redis and Lua pay for every script argument — a parse, an object, an interned string — and at one
// call per batch those arguments were most of a call's cost; one packed argument costs a fraction.
// Only what the batch needs: non-negative safe integers, strings, and bytes (Lua strings too).

const STR8 = 0xd9;
const STR32 = 0xdb;
const UINT8 = 0xcc;
const UINT16 = 0xcd;
const UINT32 = 0xce;
const FLOAT64 = 0xcb;
const ARRAY32 = 0xdd;
/** 10⁰…10¹⁵: a safe integer has at most 16 digits. */
const powersOfTen = Array.from({ length: 16 }, (_, i) => 10 ** i);

/** `count` digits of `v` (below 10⁸, zero-padded on the left), the last one at `last`. */
function writeDigits(buf: Buffer, last: number, v: number, count: number): void {
  for (let i = 0, rest = v; i < count; i++) {
    const next = (rest / 10) | 0;
    buf[last - i] = 0x30 + rest - next * 10;
    rest = next;
  }
}

/** Strings up to this long are tried as ASCII first (see ascii()); longer ones go to Buffer.write at once. */
const shortAscii = 64;

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

  /**
   * A non-negative integer, exact up to 2⁵³ as Lua numbers are, in its shortest form: a batch's series
   * groups, statuses and ledger shards fit in 1–3 bytes, and every byte is sent and read again by Redis.
   */
  int(v: number): this {
    this.room(9);
    const buf = this.buf;
    const at = this.at;
    if (v < 0x80) {
      buf[at] = v; // positive fixint
      this.at = at + 1;
    } else if (v <= 0xff) {
      buf[at] = UINT8;
      buf[at + 1] = v;
      this.at = at + 2;
    } else if (v <= 0xffff) {
      buf[at] = UINT16;
      buf[at + 1] = v >>> 8;
      buf[at + 2] = v & 0xff;
      this.at = at + 3;
    } else if (v <= 0xffffffff) {
      buf[at] = UINT32;
      buf.writeUInt32BE(v, at + 1);
      this.at = at + 5;
    } else {
      buf[at] = FLOAT64; // integers below 2⁵³ are exact as doubles
      buf.writeDoubleBE(v, at + 1);
      this.at = at + 9;
    }
    this.count++;
    return this;
  }

  str(v: string): this {
    // A UTF-16 unit is at most 3 bytes of UTF-8: room enough without measuring the string first.
    this.room(5 + v.length * 3);
    if (v.length <= shortAscii && this.ascii(v)) return this;
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

  /**
   * `v` after `prefix` in `prefixBytes` bytes, high byte first, as one str (a ledger field, layouts.ts):
   * written in place, where building each field as a Buffer first cost an allocation per outcome.
   */
  prefixedStr(prefix: number, prefixBytes: number, v: string): this {
    this.room(5 + prefixBytes + v.length * 3);
    const buf = this.buf;
    const short = prefixBytes + v.length * 3 <= 0xff;
    const first = this.at + (short ? 2 : 5);
    buf.writeUIntBE(prefix, first, prefixBytes);
    const length = prefixBytes + buf.write(v, first + prefixBytes, 'utf8');
    if (short) {
      buf[this.at] = STR8;
      buf[this.at + 1] = length;
    } else {
      buf[this.at] = STR32;
      buf.writeUInt32BE(length, this.at + 1);
    }
    this.at = first + length;
    this.count++;
    return this;
  }

  /**
   * A short string copied unit by unit, false (nothing written) at its first non-ASCII unit. Request ids,
   * codes and ledger keys are short ASCII, and Buffer.write costs a call into C++ for each.
   */
  private ascii(v: string): boolean {
    const buf = this.buf;
    const first = this.at + 2;
    for (let i = 0; i < v.length; i++) {
      const unit = v.charCodeAt(i);
      if (unit > 0x7f) return false;
      buf[first + i] = unit;
    }
    buf[this.at] = STR8;
    buf[this.at + 1] = v.length;
    this.at = first + v.length;
    this.count++;
    return true;
  }

  /**
   * A non-negative integer as its decimal text, without making the string first. Every outcome sends one
   * (its ledger state, up to 10 digits): the digits are cut from two halves of at most 8 digits each, in
   * int32 arithmetic, instead of one floating-point division per digit.
   */
  decimal(v: number): this {
    this.room(2 + 16);
    let digits = 1;
    while (digits < powersOfTen.length && v >= powersOfTen[digits]!) digits++;
    const buf = this.buf;
    buf[this.at] = STR8;
    buf[this.at + 1] = digits;
    const last = this.at + 1 + digits;
    const high = Math.floor(v / 1e8);
    if (high === 0) writeDigits(buf, last, v, digits);
    else {
      writeDigits(buf, last, v - high * 1e8, 8);
      writeDigits(buf, last - 8, high, digits - 8);
    }
    this.at = last + 1;
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
