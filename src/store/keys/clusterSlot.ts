// The Redis Cluster slot of a key, as the server computes it (CRC16/XMODEM of the hash tag, or of the
// whole key when it has none, mod 16,384): reads of many channels are grouped by slot, one script call each.
const table = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    t[i] = crc;
  }
  return t;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) & 0xffff) ^ table[((crc >> 8) ^ b) & 0xff]!;
  return crc;
}

/** The part of the key that is hashed: between the first `{` and the next `}`, if not empty. */
function hashedPart(key: string): string {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  return close === -1 || close === open + 1 ? key : key.slice(open + 1, close);
}

export function clusterSlot(key: string): number {
  return crc16(Buffer.from(hashedPart(key), 'utf8')) % 16384;
}
