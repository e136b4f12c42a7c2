import { PNG } from 'pngjs';
import { DM_ERRORS } from '../dm.errors.js';

export const IMAGE_SIZE = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A template image must be a PNG of exactly 64 x 64 pixels (interface-spec, Limits). Checked by decoding it whole with
 * pngjs (signature, chunk CRCs, compressed data), not by trusting the header: truncated or corrupt images are refused.
 * Answers the base64 text as it will be stored.
 */
export function checkImage(base64: string): string {
  const text = base64.replace(/\s+/g, '');
  if (!BASE64.test(text) || text.length === 0) throw DM_ERRORS.invalidCall('setImage: image is not base64');
  let png: PNG;
  try {
    png = PNG.sync.read(Buffer.from(text, 'base64'));
  } catch {
    throw DM_ERRORS.invalidCall('setImage: image is not a readable PNG');
  }
  if (png.width !== IMAGE_SIZE || png.height !== IMAGE_SIZE) {
    throw DM_ERRORS.invalidCall(`setImage: image is ${png.width} x ${png.height} pixels; a template image is ${IMAGE_SIZE} x ${IMAGE_SIZE}`);
  }
  return text;
}
