// A template's image (interface-spec, Limits: PNG, 64 x 64 pixels), checked from its bytes without trusting them: the
// header is read before anything is inflated, so a header that claims 10000 x 10000 pixels costs nothing, and the
// pixel data is inflated to at most the bytes 64 x 64 pixels need, so a small stream that inflates to gigabytes
// stops there. (A decoder such as pngjs trusts the header's size and allocates or inflates that much first.)
import { crc32, inflateSync } from 'node:zlib';
import { DM_ERRORS } from '../dm.errors.js';

export const IMAGE_SIZE = 64;
/**
 * Bytes of an image, at most: 64 x 64 pixels are 33 KB unfiltered at the deepest format (16-bit RGBA), and
 * the rest is room for ancillary chunks (colour profile, text).
 */
export const MAX_IMAGE_BYTES = 128 * 1024;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Channels of each colour type and the bit depths it may have (PNG specification, 11.2.2 IHDR). */
const COLOUR_TYPES: Record<number, { channels: number; depths: number[] }> = {
  0: { channels: 1, depths: [1, 2, 4, 8, 16] },
  2: { channels: 3, depths: [8, 16] },
  3: { channels: 1, depths: [1, 2, 4, 8] },
  4: { channels: 2, depths: [8, 16] },
  6: { channels: 4, depths: [8, 16] },
};
/** Adam7 interlacing: each pass's first column and row and its steps. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

interface Header {
  width: number;
  height: number;
  depth: number;
  colourType: number;
  interlace: number;
}

const refuse = (why: string) => DM_ERRORS.invalidCall(`setImage: ${why}`, { path: 'parameters/image' });

/** The header (IHDR): refused unless it is a valid PNG header of 64 x 64 pixels. */
function readHeader(data: Buffer): Header {
  if (data.length !== 13) throw refuse('image has a malformed header (IHDR)');
  const h = {
    width: data.readUInt32BE(0),
    height: data.readUInt32BE(4),
    depth: data[8],
    colourType: data[9],
    interlace: data[12],
  };
  if (h.width !== IMAGE_SIZE || h.height !== IMAGE_SIZE)
    throw refuse(`image is ${h.width} x ${h.height} pixels; a template image is ${IMAGE_SIZE} x ${IMAGE_SIZE}`);
  if (!COLOUR_TYPES[h.colourType]?.depths.includes(h.depth))
    throw refuse(`image has colour type ${h.colourType} with bit depth ${h.depth}, which PNG does not have`);
  if (data[10] !== 0 || data[11] !== 0 || h.interlace > 1)
    throw refuse('image has a compression, filter or interlace method PNG does not have');
  return h;
}

/** The scanlines of each pass (one pass unless interlaced): how many, and the bytes of each after its filter byte. */
function passes(h: Header): Array<{ rows: number; rowBytes: number }> {
  const bits = COLOUR_TYPES[h.colourType].channels * h.depth;
  const pass = (columns: number, rows: number) => ({
    rows: columns > 0 ? rows : 0,
    rowBytes: Math.ceil((columns * bits) / 8),
  });
  if (h.interlace === 0) return [pass(h.width, h.height)];
  return ADAM7.map(([x, y, dx, dy]) => pass(Math.ceil((h.width - x) / dx), Math.ceil((h.height - y) / dy)));
}

/** The chunks: signature, CRCs, IHDR first (checked at once), consecutive IDATs, a palette where needed, IEND last. */
function readChunks(png: Buffer): { header: Header; data: Buffer } {
  if (png.length < SIGNATURE.length || !png.subarray(0, SIGNATURE.length).equals(SIGNATURE))
    throw refuse('image is not a PNG');
  let header: Header | undefined;
  const data: Buffer[] = [];
  let dataEnded = false;
  let palette = false;
  let at = SIGNATURE.length;
  for (let ended = false; !ended; ) {
    if (at + 12 > png.length) throw refuse('image is truncated');
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) throw refuse('image has a malformed chunk');
    if (length > png.length - at - 12) throw refuse('image is truncated');
    const body = png.subarray(at + 8, at + 8 + length);
    if (crc32(png.subarray(at + 4, at + 8 + length)) !== png.readUInt32BE(at + 8 + length))
      throw refuse(`image chunk ${type} is corrupt (CRC)`);
    at += 12 + length;
    if (!header && type !== 'IHDR') throw refuse('image does not start with its header (IHDR)');
    if (data.length > 0 && type !== 'IDAT') dataEnded = true;
    switch (type) {
      case 'IHDR':
        if (header) throw refuse('image has two headers (IHDR)');
        header = readHeader(body);
        break;
      case 'PLTE':
        if (palette || data.length > 0 || length === 0 || length % 3 !== 0 || length > 256 * 3)
          throw refuse('image has a malformed palette (PLTE)');
        palette = true;
        break;
      case 'IDAT':
        if (dataEnded) throw refuse('image has its pixel data (IDAT) in pieces apart');
        data.push(body);
        break;
      case 'IEND':
        ended = true;
        break;
      default:
        // Ancillary chunks (lower-case first letter) may be skipped; an unknown critical one may not.
        if ((type.charCodeAt(0) & 0x20) === 0)
          throw refuse(`image has a critical chunk ${type} this reader does not know`);
    }
  }
  if (at !== png.length) throw refuse('image has bytes after its end (IEND)');
  if (!header || data.length === 0) throw refuse('image has no pixel data (IDAT)');
  if (header.colourType === 3 && !palette) throw refuse('image has colour type 3 (palette) but no palette (PLTE)');
  return { header, data: Buffer.concat(data) };
}

/** Inflates the pixel data to at most the bytes the header's pixels need; it must be exactly those, each scanline's filter type 0-4. */
function checkPixels(header: Header, data: Buffer): void {
  const scanlines = passes(header);
  const expected = scanlines.reduce((n, p) => n + p.rows * (1 + p.rowBytes), 0);
  let raw: Buffer;
  try {
    raw = inflateSync(data, { maxOutputLength: expected });
  } catch {
    throw refuse(
      `image pixel data does not inflate to the ${expected} bytes of its ${header.width} x ${header.height} pixels`,
    );
  }
  if (raw.length !== expected)
    throw refuse(
      `image pixel data inflates to ${raw.length} bytes, not the ${expected} of its ${header.width} x ${header.height} pixels`,
    );
  let at = 0;
  for (const { rows, rowBytes } of scanlines) {
    for (let r = 0; r < rows; r++, at += 1 + rowBytes)
      if (raw[at] > 4) throw refuse(`image has a scanline with filter type ${raw[at]}, which PNG does not have`);
  }
}

/**
 * A template image must be a PNG of exactly 64 x 64 pixels (interface-spec, Limits) and at most MAX_IMAGE_BYTES:
 * structure, CRCs and pixel data are checked, so truncated or corrupt images are refused. Answers the base64 text as
 * it will be stored.
 */
export function checkImage(base64: string): string {
  const text = base64.replace(/\s+/g, '');
  if (text.length > Math.ceil(MAX_IMAGE_BYTES / 3) * 4) throw refuse(`image is larger than ${MAX_IMAGE_BYTES} bytes`);
  if (text.length === 0 || !BASE64.test(text)) throw refuse('image is not base64');
  const { header, data } = readChunks(Buffer.from(text, 'base64'));
  checkPixels(header, data);
  return text;
}
